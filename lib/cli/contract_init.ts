/**
 * `schemapin contract init`: enumerate servers, write `contractpin.lock` (and the snapshot)
 * atomically — nothing is written when any server fails.
 *
 * @module
 */
import { warnStaleLockSignature } from "./contract_sign.ts";
import { dirname, resolve } from "node:path";
import { SchemaPinError } from "../errors.ts";
import type { ServerTarget } from "../contractpin/live.ts";
import {
  buildLock,
  type ContractLock,
  DEFAULT_LOCK_FILE,
  identityOf,
  type LockServer,
  serializeLock,
} from "../contractpin/lock.ts";
import { type PinOutcome, pinServers } from "../contractpin/run.ts";
import { describeHiddenText, type ToolHiddenTextFinding } from "../contractpin/hidden_text.ts";
import { instructionsDigest, SURFACE_KINDS } from "../contractpin/surface.ts";
import { defaultSnapshotPath, serializeSnapshot } from "../contractpin/snapshot.ts";
import type { DiscoveredServer, SkippedServer } from "../contractpin/discover.ts";
import { processEnv } from "../contractpin/secrets.ts";
import { type CliIO, EXIT_FAILED, EXIT_OK, UsageError } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import type { FlagTable } from "./flags.ts";
import { jsonFlag } from "./flag_groups.ts";
import { exists, writeFileAtomic } from "./io.ts";
import {
  commandLineServers,
  CONTRACT_SERVER_FLAGS,
  limitsFrom,
  lockRelative,
  MCP_LIMIT_FLAGS,
  parseWithTokens,
  printWarnings,
  readConfig,
  readLock,
} from "./contract_shared.ts";
import {
  discover,
  type Discovery,
  discoveryEnvironment,
  printDiscovery,
  printSkipped,
} from "./contract_discover.ts";

const CMD = "contract init";

/** The flags of `contract init` (its limits are listed once, under the help's Limits). */
export const CONTRACT_INIT_FLAGS = {
  lock: {
    type: "string",
    value: "FILE",
    help: "the lock to write (default contractpin.lock)",
  },
  force: {
    type: "boolean",
    help: "replace an existing lock: re-pin its servers plus any given",
  },
  ...CONTRACT_SERVER_FLAGS,
  config: {
    type: "string",
    value: "FILE",
    help: "pin the servers of an MCP client config (mcpServers, or VS Code's servers; JSONC)",
  },
  discover: {
    type: "boolean",
    help: "find the MCP client configs on this machine and in the project and pin their " +
      "servers",
  },
  project: {
    type: "string",
    value: "DIR",
    help: "the project folder --discover looks in (default .)",
  },
  snapshot: {
    type: "string",
    value: "FILE",
    help: "where to write the readable snapshot (default next to the lock: " +
      "contractpin.snapshot.json)",
  },
  "no-snapshot": { type: "boolean", help: "write no snapshot" },
  "allow-literal-secrets": {
    type: "boolean",
    help: "write a stdio command holding a literal credential as given",
  },
  "strict-text": {
    type: "boolean",
    help: "hidden text in a tool definition is a failure: nothing is written (exit 1)",
  },
  ...jsonFlag("schemapin.contract.init/1"),
  ...MCP_LIMIT_FLAGS,
} as const satisfies FlagTable;

/** Runs `schemapin contract init`. */
export async function runContractInit(args: string[], io: CliIO): Promise<number> {
  const dash = args.indexOf("--");
  const optionArgs = dash < 0 ? args : args.slice(0, dash);
  const command = dash < 0 ? undefined : args.slice(dash + 1);
  const { values, positionals, tokens } = parseWithTokens(CMD, optionArgs, CONTRACT_INIT_FLAGS);
  if (positionals.length) {
    throw new UsageError(`${CMD}: unexpected argument ${JSON.stringify(positionals[0])}`);
  }
  const limits = limitsFrom(CMD, values);
  if (values.snapshot !== undefined && values["no-snapshot"]) {
    throw new UsageError(`${CMD}: --snapshot FILE and --no-snapshot contradict each other`);
  }
  if (values.project !== undefined && !values.discover) {
    throw new UsageError(`${CMD}: --project DIR goes with --discover`);
  }
  const lockPath = values.lock ?? DEFAULT_LOCK_FILE;
  const baseDir = dirname(resolve(lockPath));

  // Servers given on the command line, in order; a --header belongs to the --http before it,
  // or to every HTTP server when it comes before the first --http; --file dumps keep their
  // place among them.
  const given = commandLineServers(
    CMD,
    { values, tokens },
    command,
    (path) => lockRelative(path, lockPath),
  );
  const { globalHeaders, perServer } = given;
  const cli: ServerTarget[] = given.targets;

  // The existing lock: refuse to replace it without --force; with --force its servers are
  // pinned again (that is how a legitimate change is acknowledged).
  const targets = new Map<string, ServerTarget>();
  if (await exists(lockPath)) {
    if (!values.force) {
      throw new SchemaPinError(
        "IO_FAILED",
        `${lockPath} already exists; use --force to re-pin its servers (and any you add)`,
        { path: lockPath },
      );
    }
    let old: ContractLock | undefined;
    try {
      old = await readLock(lockPath, io);
    } catch (e) {
      if (cli.length === 0 && values.config === undefined && !values.discover) throw e;
      await io.stderr(
        `warning: existing ${lockPath} is not carried over: ${(e as Error).message}\n`,
      );
    }
    for (const [name, server] of Object.entries(old?.servers ?? {})) {
      const caps = (server as LockServer).client_capabilities;
      targets.set(name, {
        name,
        identity: identityOf(server as LockServer),
        ...(caps ? { clientCapabilities: caps } : {}),
      });
    }
  }
  const explicit = new Set<string>();
  const add = (t: ServerTarget, from: string) => {
    if (explicit.has(t.name)) {
      throw new UsageError(`${CMD}: server ${t.name} is defined twice (${from})`);
    }
    explicit.add(t.name);
    targets.set(t.name, t);
  };
  if (values.config !== undefined) {
    for (const t of (await readConfig(values.config, io)).values()) {
      const identity = t.identity.transport === "stdio" && t.identity.cwd !== undefined
        ? { ...t.identity, cwd: lockRelative(t.identity.cwd, lockPath) }
        : t.identity;
      add({ ...t, identity }, `--config ${values.config}`);
    }
  }
  // --discover: the servers of the client configs found. One that is new to the lock is
  // skipped (with the reason) when it cannot run here; lock servers stay strict.
  let discovery: Discovery | undefined;
  const lenient = new Map<string, DiscoveredServer>();
  const skippedLate: SkippedServer[] = [];
  if (values.discover) {
    discovery = await discover(
      discoveryEnvironment(values.project ?? ".", processEnv),
      { lockPath, allowLiteralSecrets: values["allow-literal-secrets"] === true },
      io,
    );
    if (!values.json) await printDiscovery(discovery, io);
    for (const s of discovery.servers) {
      const pinned = targets.get(s.lockName);
      if (!pinned) lenient.set(s.lockName, s);
      // A re-pinned server keeps the client capabilities its entry was pinned with.
      const caps = pinned?.clientCapabilities;
      add(
        caps ? { ...s.target, clientCapabilities: caps } : s.target,
        `${s.from.label} ${s.from.path}`,
      );
    }
  }
  for (const t of cli) add(t, "command line");
  if (targets.size === 0) {
    throw new UsageError(
      `${CMD}: no servers to pin: give --server NAME -- CMD, --http NAME=URL, --file NAME=PATH, ` +
        `--config FILE or --discover` + (discovery ? " (discovery found none it can run)" : ""),
    );
  }
  // --client-capabilities: what the servers given here are asked with (and the lock records).
  const capabilities = given.capabilities;
  if (capabilities) {
    for (const t of cli) {
      if (t.identity.transport === "file") {
        throw new UsageError(`${CMD}: --client-capabilities has no meaning for --file ${t.name}`);
      }
      targets.set(t.name, { ...targets.get(t.name)!, clientCapabilities: capabilities });
    }
  }
  const list = [...targets.values()].map((t) => {
    const headers = [
      ...(t.headers ?? []),
      ...(t.identity.transport === "http" ? globalHeaders : []),
      ...(perServer.get(t.name) ?? []),
    ];
    return { ...t, headers, baseDir };
  });
  if (globalHeaders.length && !list.some((t) => t.identity.transport === "http")) {
    throw new UsageError(`${CMD}: --header given but there is no HTTP server`);
  }

  const outcomes = await pinServers(list, {
    ...limits,
    allowLiteralSecrets: values["allow-literal-secrets"] === true,
  });
  const servers: Record<string, LockServer> = {};
  const snapshotServers: Record<string, { tools: Record<string, unknown> }> = {};
  let failed = 0;
  for (const o of outcomes) {
    await printWarnings(io, o.name, o.warnings);
    if (!o.ok && lenient.has(o.name)) {
      const d = lenient.get(o.name)!;
      skippedLate.push({ name: d.configName, from: d.from, reason: o.failure.message });
      if (!values.json) await printSkipped(io, d.configName, d.from, o.failure.message);
      continue;
    }
    if (!o.ok) {
      failed++;
      await io.stderr(`error: ${o.failure.message}\n`);
      if (o.failure.stderr) {
        const tail = o.failure.stderr.trimEnd().split("\n").slice(-15);
        await io.stderr(tail.map((l) => `  | ${l}\n`).join(""));
      }
      continue;
    }
    for (const n of o.notices) await io.stderr(`note: server ${o.name}: ${n.message}\n`);
    servers[o.name] = o.entry;
    snapshotServers[o.name] = o.snapshot;
  }
  const notPinned = failed > 0
    ? `${failed} of ${outcomes.length} servers could not be pinned; ${lockPath} was not written`
    : Object.keys(servers).length === 0
    ? `no server could be pinned; ${lockPath} was not written`
    : undefined;
  if (notPinned !== undefined) {
    await io.stderr(`error: ${notPinned}\n`);
    if (values.json) {
      // A machine reading --json learns what failed, not an empty stdout (exit 1).
      await io.stdout(jsonOutput("contract.init", {
        ok: false,
        error: { code: "SERVER_FAILED", message: notPinned },
        lock: lockPath,
        snapshot: null,
        generated_at: buildLock(servers).generated_at,
        servers: serversJson(outcomes, servers),
        failed: outcomes.flatMap((o) =>
          o.ok || lenient.has(o.name)
            ? []
            : [{ name: o.name, kind: o.failure.kind, message: o.failure.message }]
        ),
        ...(discovery ? { discovered: discoveryJson(discovery, skippedLate) } : {}),
      }));
    }
    return EXIT_FAILED;
  }

  // Hidden text in what is about to be trusted (issue 17 item 3): a first pin must not take it
  // silently. Each finding is printed before anything is written; with --strict-text nothing
  // is written at all.
  const strict = values["strict-text"] === true;
  let hiddenCount = 0;
  for (const o of outcomes) {
    if (!o.ok || !Object.hasOwn(servers, o.name)) continue;
    for (const h of o.hiddenText) {
      hiddenCount++;
      await io.stderr(
        `${strict ? "error" : "warning"}: server ${o.name}: hidden text in ` +
          `${describeHiddenText(h)}\n`,
      );
    }
  }
  const lock = buildLock(servers);
  const surfaceHidden = outcomes.some((o) => o.ok && o.hiddenText.some((h) => h.item_kind));
  if (strict && hiddenCount > 0) {
    const message = `${hiddenCount} hidden-text finding${hiddenCount === 1 ? "" : "s"} in the ` +
      `${
        surfaceHidden
          ? "definitions served (tools, prompts, resources, instructions)"
          : "tool definitions"
      } (--strict-text); ${lockPath} was not written`;
    await io.stderr(`error: ${message}\n`);
    if (values.json) {
      await io.stdout(jsonOutput("contract.init", {
        ok: false,
        error: { code: "HIDDEN_TEXT", message },
        lock: lockPath,
        snapshot: null,
        generated_at: lock.generated_at,
        servers: serversJson(outcomes, servers),
        ...(discovery ? { discovered: discoveryJson(discovery, skippedLate) } : {}),
      }));
    }
    return EXIT_FAILED;
  }
  const snapshotPath = values["no-snapshot"]
    ? undefined
    : values.snapshot ?? defaultSnapshotPath(lockPath);
  // The snapshot first: verify trusts a snapshot entry only where it matches the lock, so a
  // failure between the two writes can never make a diff lie.
  if (snapshotPath !== undefined) {
    await writeFileAtomic(snapshotPath, serializeSnapshot({ servers: snapshotServers as never }), {
      overwrite: true,
    });
  }
  await writeFileAtomic(lockPath, serializeLock(lock), { overwrite: true });
  await warnStaleLockSignature(lockPath, io);

  if (values.json) {
    await io.stdout(jsonOutput("contract.init", {
      ok: true,
      lock: lockPath,
      snapshot: snapshotPath ?? null,
      generated_at: lock.generated_at,
      servers: serversJson(outcomes, servers),
      ...(discovery ? { discovered: discoveryJson(discovery, skippedLate) } : {}),
    }));
  } else {
    for (const o of outcomes) {
      if (!o.ok) continue;
      const s = servers[o.name];
      await io.stdout(
        `pinned ${o.name} (${s.transport}): ${s.tool_count} tools${surfaceCounts(s)}  ` +
          `${s.digest}\n`,
      );
    }
    await io.stdout(
      `wrote ${lockPath}` + (snapshotPath ? ` and ${snapshotPath}` : "") + "\n",
    );
  }
  return EXIT_OK;
}

/**
 * `, 2 prompts, 1 resource, instructions` for what an entry pins beyond tools
 * (docs/contractpin-surface.md §4): the kinds that hold items, and the instructions when the
 * server serves some. Empty kinds and absent instructions are pinned too (a later prompt is
 * "added") but not shown, so a tools-only server's line reads as before.
 */
function surfaceCounts(s: LockServer): string {
  const parts: string[] = [];
  for (const kind of SURFACE_KINDS) {
    const count = s[kind]?.count ?? 0;
    const noun = kind.replace("_", " ");
    if (count > 0) parts.push(`${count} ${count === 1 ? noun.replace(/s$/, "") : noun}`);
  }
  if (s.instructions && s.instructions.digest !== NO_INSTRUCTIONS) parts.push("instructions");
  return parts.length ? ", " + parts.join(", ") : "";
}

/** The instructions digest of a server that serves none. */
const NO_INSTRUCTIONS = instructionsDigest(null);

/** `--json` form of the servers pinned, with their hidden-text findings. */
function serversJson(outcomes: readonly PinOutcome[], servers: Record<string, LockServer>) {
  return outcomes.filter((o) => o.ok && Object.hasOwn(servers, o.name)).map((o) => ({
    name: o.name,
    transport: servers[o.name].transport,
    tool_count: servers[o.name].tool_count,
    digest: servers[o.name].digest,
    warnings: o.warnings.map((w) => w.message),
    hidden_text: o.ok ? o.hiddenText.map((h: ToolHiddenTextFinding) => ({ ...h })) : [],
  }));
}

/** `--json` form of a discovery: the configs found, what each server became, what was skipped. */
function discoveryJson(d: Discovery, late: readonly SkippedServer[]) {
  return {
    configs: d.found.map((f) => ({
      client: f.location.client,
      scope: f.location.scope,
      path: f.location.path,
      servers: f.entries.map((e) => e.name),
    })),
    renamed: d.servers.filter((s) => s.lockName !== s.configName).map((s) => ({
      name: s.configName,
      config: s.from.path,
      lock_name: s.lockName,
    })),
    skipped: [...d.skipped, ...late].map((s) => ({
      name: s.name,
      client: s.from.client,
      config: s.from.path,
      reason: s.reason,
    })),
  };
}
