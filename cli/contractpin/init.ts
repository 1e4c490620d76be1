/**
 * Pinning servers into a lock (`contract init`): which servers — those of an existing lock
 * (with `force`), of a client config, of the client configs discovered on this machine, and of
 * the command line — then pinning them all, and writing the snapshot and the lock only when
 * every server could be pinned (and, with `strictText`, none serves hidden text). The caller
 * renders the result: what was pinned, what failed, what discovery skipped.
 *
 * @module
 */
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { dirname, resolve } from "node:path";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import { readConfig } from "../mcp_config/read.ts";
import type { ConfigHost } from "../mcp_config/variables.ts";
import type { DiscoveryEnvironment } from "../mcp_config/formats.ts";
import {
  type DiscoveredServer,
  discoverServers,
  type Discovery,
  type SkippedServer,
} from "../mcp_config/discover.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";
import type { ServerTarget } from "../../lib/contractpin/live.ts";
import {
  buildLock,
  type ContractLock,
  identityOf,
  lockRelative,
  type LockServer,
  readLock,
  serializeLock,
} from "../../lib/contractpin/lock.ts";
import { staleLockSignature } from "./lock_signature_check.ts";
import { type PinOutcome, pinServers, type RunOptions } from "../../lib/contractpin/run.ts";
import type { CommandLineServers } from "./server_specs.ts";
import { defaultSnapshotPath, serializeSnapshot } from "../../lib/contractpin/snapshot.ts";
import { messageInCliWords } from "../library_words.ts";

/** What {@linkcode initLock} pins, and where it writes. */
export interface InitRequest {
  /** The lock to write. */
  readonly lockPath: string;
  /**
   * Replace an existing lock: its servers are pinned again, with the ones given (that is how a
   * legitimate change is acknowledged). Without it an existing lock is an error.
   */
  readonly force?: boolean;
  /**
   * The servers of the command line ({@linkcode serversFromSpecs}, relative paths already
   * relative to the lock's folder), with their headers and client capabilities.
   */
  readonly given?: CommandLineServers;
  /** Pin the servers of this MCP client config. */
  readonly config?: string;
  /** How the variables of `config` resolve (the home folder, Windows). */
  readonly configHost?: ConfigHost;
  /**
   * Pin the servers of the client configs found in this environment; one that is new to the
   * lock is skipped (with the reason) when it cannot run here, lock servers stay strict.
   */
  readonly discover?: DiscoveryEnvironment;
  /** Where the snapshot is written: default next to the lock; `null` writes none. */
  readonly snapshot?: string | null;
  /** Hidden text in a definition pinned is a failure: nothing is written. */
  readonly strictText?: boolean;
}

/** Options of {@linkcode initLock}: the run's limits and what is told before pinning. */
export interface InitOptions extends RunOptions {
  /** A warning before pinning (an existing lock that cannot be carried over). */
  readonly onWarning?: (message: string) => void | Promise<void>;
  /** The discovery (with `discover`), before any server is contacted. */
  readonly onDiscovery?: (discovery: Discovery) => void | Promise<void>;
}

/** The outcome of one server; a discovered server that failed is `skipped`, not a failure. */
export type InitOutcome = PinOutcome & {
  /** Set for a server discovery found that could not be pinned: left out, with the reason. */
  readonly skipped?: SkippedServer;
};

/** Why {@linkcode initLock} wrote nothing. */
export interface InitError {
  /** `SERVER_FAILED` (a server could not be pinned) or `HIDDEN_TEXT` (with `strictText`). */
  readonly code: "SERVER_FAILED" | "HIDDEN_TEXT";
  /** What went wrong, naming the lock that was not written. */
  readonly message: string;
}

/** What {@linkcode initLock} did. */
export interface InitResult {
  /** The lock (written when `written`). */
  readonly lockPath: string;
  /** The snapshot written; `null` when none was (not asked for, or nothing written). */
  readonly snapshotPath: string | null;
  /** The snapshot (when asked for) and the lock were written. */
  readonly written: boolean;
  /** Why nothing was written; absent when `written`. */
  readonly error?: InitError;
  /** The lock of the servers pinned (its `generated_at` is the run's). */
  readonly lock: ContractLock;
  /** Every server's outcome, in order. */
  readonly outcomes: readonly InitOutcome[];
  /** Discovered servers left out because they could not be pinned (also in `outcomes`). */
  readonly skipped: readonly SkippedServer[];
  /** The discovery, with `discover`. */
  readonly discovery?: Discovery;
  /** Hidden-text findings in the definitions pinned. */
  readonly hiddenText: number;
  /** The signature file next to the lock, when one exists: it no longer covers the lock. */
  readonly staleSignature?: string;
}

/**
 * Pins the servers `request` names into a lock: an existing lock's servers (with `force`),
 * then the client config's, the discovered ones and the command line's (a name given twice is
 * an error), each HTTP server with the headers given for it. Nothing is written when a
 * server fails (a discovered server that fails is skipped instead), when no server could be
 * pinned, or with `strictText` when a definition pinned holds hidden text; else the snapshot
 * is written first, then the lock.
 *
 * @throws {SchemaPinError} `IO_FAILED` for an existing lock without `force` or a file that
 *   cannot be read or written; `INPUT_INVALID` for a malformed lock or config, an unset
 *   `${VAR}`, a literal credential; usage errors (`details.usage`) for a server defined twice,
 *   nothing to pin, or headers without an HTTP server
 *
 * @example
 * ```ts ignore
 * import { initLock } from "./init.ts";
 * import { serversFromSpecs } from "./server_specs.ts";
 * const given = serversFromSpecs({ options: [{ option: "file", value: "saved=tools.json" }] });
 * const result = await initLock({ lockPath: "contractpin.lock", given }, files);
 * if (!result.written) console.error(result.error?.message);
 * ```
 */
export async function initLock(
  request: InitRequest,
  files: ContractFiles,
  options: InitOptions = {},
): Promise<InitResult> {
  checkArg("initLock", "request", request, "object");
  checkArg("initLock", "request.lockPath", request.lockPath, "string");
  checkArg("initLock", "files", files, "object");
  checkArg("initLock", "options", options, "object");
  const { lockPath } = request;
  const baseDir = dirname(resolve(lockPath));
  const cli: readonly ServerTarget[] = request.given?.targets ?? [];
  const globalHeaders = request.given?.globalHeaders ?? [];
  const perServer = request.given?.perServer ?? new Map();

  // The existing lock: refused without force; with force its servers are pinned again.
  const targets = await existingTargets(request, files, options);
  const explicit = new Set<string>();
  const add = (t: ServerTarget, from: string) => {
    if (explicit.has(t.name)) {
      throw usageError(`server ${t.name} is defined twice (${from})`, { server: t.name });
    }
    explicit.add(t.name);
    targets.set(t.name, t);
  };
  if (request.config !== undefined) {
    for (const t of (await readConfig(request.config, files.read, request.configHost)).values()) {
      const identity = t.identity.transport === "stdio" && t.identity.cwd !== undefined
        ? { ...t.identity, cwd: lockRelative(t.identity.cwd, lockPath) }
        : t.identity;
      add({ ...t, identity }, `--config ${request.config}`);
    }
  }
  // Discovery: the servers of the client configs found. One that is new to the lock is
  // skipped (with the reason) when it cannot run here; lock servers stay strict.
  let discovery: Discovery | undefined;
  const lenient = new Map<string, DiscoveredServer>();
  if (request.discover) {
    discovery = discoveryInCliWords(
      await discoverServers(request.discover, {
        lockPath,
        allowLiteralSecrets: options.allowLiteralSecrets === true,
        ...(options.env ? { env: options.env } : {}),
      }, files),
    );
    await options.onDiscovery?.(discovery);
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
    throw usageError(
      `no servers to pin: give --server NAME -- CMD, --http NAME=URL, --file NAME=PATH, ` +
        `--config FILE or --discover` + (discovery ? " (discovery found none it can run)" : ""),
    );
  }
  // The client capabilities given: what the servers of the command line are asked with (and
  // the lock records).
  const capabilities = request.given?.capabilities;
  if (capabilities) {
    for (const t of cli) {
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
    throw usageError(`--header given but there is no HTTP server`, { option: "header" });
  }

  const pinned = (await pinServers(list, options)).map(outcomeInCliWords);
  const sorted = sortOutcomes(pinned, lenient);
  const { servers, snapshotServers, outcomes, skipped } = sorted;
  const lock = buildLock(servers);
  // Hidden text in what is about to be trusted (issue 17 item 3): a first pin must not take
  // it silently; with strictText nothing is written at all.
  let hiddenText = 0;
  for (const o of outcomes) if (o.ok) hiddenText += o.hiddenText.length;
  const done = (
    fields: Pick<InitResult, "written" | "snapshotPath"> & Partial<InitResult>,
  ): InitResult => ({
    lockPath,
    lock,
    outcomes,
    skipped,
    ...(discovery ? { discovery } : {}),
    hiddenText,
    ...fields,
  });
  const error = notWritten(request, lockPath, sorted, hiddenText);
  if (error) return done({ written: false, snapshotPath: null, error });
  const snapshotPath = request.snapshot === null
    ? null
    : request.snapshot ?? defaultSnapshotPath(lockPath);
  // The snapshot first: verify trusts a snapshot entry only where it matches the lock, so a
  // failure between the two writes can never make a diff lie.
  if (snapshotPath !== null) {
    await files.write(snapshotPath, serializeSnapshot({ servers: snapshotServers as never }));
  }
  await files.write(lockPath, serializeLock(lock));
  const staleSignature = await staleLockSignature(lockPath, files.exists);
  return done({ written: true, snapshotPath, ...(staleSignature ? { staleSignature } : {}) });
}

/**
 * The servers of the lock at `request.lockPath`, to pin again: none when there is no lock; an
 * error without `force`; with `force` a lock that cannot be read is an error when it is all
 * there is to pin, else a warning (it is not carried over).
 */
async function existingTargets(
  request: InitRequest,
  files: ContractFiles,
  options: InitOptions,
): Promise<Map<string, ServerTarget>> {
  const { lockPath } = request;
  const targets = new Map<string, ServerTarget>();
  if (!(await files.exists(lockPath))) return targets;
  if (!request.force) {
    throw new SchemaPinError(
      "IO_FAILED",
      `${lockPath} already exists; use --force to re-pin its servers (and any you add)`,
      { path: lockPath },
    );
  }
  let old: ContractLock | undefined;
  try {
    old = await readLock(lockPath, files.read);
  } catch (e) {
    const cli = request.given?.targets ?? [];
    if (cli.length === 0 && request.config === undefined && !request.discover) throw e;
    const why = messageInCliWords((e as Error).message);
    await options.onWarning?.(`existing ${lockPath} is not carried over: ${why}`);
  }
  for (const [name, server] of Object.entries(old?.servers ?? {})) {
    const caps = (server as LockServer).client_capabilities;
    targets.set(name, {
      name,
      identity: identityOf(server as LockServer),
      ...(caps ? { clientCapabilities: caps } : {}),
    });
  }
  return targets;
}

/**
 * A discovery with the reasons of its skipped servers in the CLI's words (a literal credential
 * names `--allow-literal-secrets`: cli/library_words.ts).
 */
function discoveryInCliWords(d: Discovery): Discovery {
  const skipped = d.skipped.map((s) => ({ ...s, reason: messageInCliWords(s.reason) }));
  return { ...d, skipped };
}

/**
 * One server's pin outcome with its warnings and notices in the CLI's words (the options they
 * name are flags: cli/library_words.ts), for the terminal and `--json` alike.
 */
function outcomeInCliWords(o: PinOutcome): PinOutcome {
  const warnings = o.warnings.map((w) => ({ ...w, message: messageInCliWords(w.message) }));
  if (!o.ok) return { ...o, warnings, failure: failureInCliWords(o.failure) };
  const notices = o.notices.map((n) => ({ ...n, message: messageInCliWords(n.message) }));
  return { ...o, warnings, notices };
}

/** A server's failure with the library's hint (a cap, credentials) in the CLI's words. */
function failureInCliWords(f: ServerFailure): ServerFailure {
  const message = messageInCliWords(f.message);
  return message === f.message ? f : new ServerFailure(f.kind, message, f.stderr, f.rpcCode);
}

/** The outcomes of a pin run, sorted: pinned, failed, and discovered servers skipped. */
interface SortedOutcomes {
  /** The lock entries of the servers pinned. */
  readonly servers: Record<string, LockServer>;
  /** Their snapshot entries. */
  readonly snapshotServers: Record<string, { tools: Record<string, unknown> }>;
  /** Every server's outcome, in order. */
  readonly outcomes: InitOutcome[];
  /** The discovered servers left out. */
  readonly skipped: SkippedServer[];
  /** How many servers failed (skipped ones not counted). */
  readonly failed: number;
}

/**
 * Sorts the outcomes of `pinServers`: a discovered server new to the lock (`lenient`) that
 * failed is skipped, not a failure, unless it was refused for its skills.
 */
function sortOutcomes(
  pinned: readonly PinOutcome[],
  lenient: ReadonlyMap<string, DiscoveredServer>,
): SortedOutcomes {
  const servers: Record<string, LockServer> = {};
  const snapshotServers: Record<string, { tools: Record<string, unknown> }> = {};
  const outcomes: InitOutcome[] = [];
  const skipped: SkippedServer[] = [];
  let failed = 0;
  for (const o of pinned) {
    // A server refused for its skills is never skipped: its listing lies, or a skill's
    // signature did not verify (contractpin-skills.md).
    if (!o.ok && lenient.has(o.name) && !o.skillProblems && !o.skillSignatures) {
      const d = lenient.get(o.name)!;
      const s = { name: d.configName, from: d.from, reason: o.failure.message };
      skipped.push(s);
      outcomes.push({ ...o, skipped: s });
      continue;
    }
    outcomes.push(o);
    if (!o.ok) {
      failed++;
      continue;
    }
    servers[o.name] = o.entry;
    snapshotServers[o.name] = o.snapshot;
  }
  return { servers, snapshotServers, outcomes, skipped, failed };
}

/**
 * Why nothing is written: a server failed, none was pinned, or (with `strictText`) a
 * definition pinned holds hidden text (issue 17 item 3); `undefined` to write.
 */
function notWritten(
  request: InitRequest,
  lockPath: string,
  sorted: SortedOutcomes,
  hiddenText: number,
): InitError | undefined {
  const { outcomes, failed } = sorted;
  if (failed > 0) {
    return {
      code: "SERVER_FAILED",
      message: `${failed} of ${outcomes.length} servers could not be pinned; ${lockPath} was ` +
        `not written`,
    };
  }
  if (Object.keys(sorted.servers).length === 0) {
    return {
      code: "SERVER_FAILED",
      message: `no server could be pinned; ${lockPath} was not written`,
    };
  }
  if (!request.strictText || hiddenText === 0) return undefined;
  const surface = outcomes.some((o) => o.ok && o.hiddenText.some((h) => h.item_kind));
  return {
    code: "HIDDEN_TEXT",
    message: `${hiddenText} hidden-text finding${hiddenText === 1 ? "" : "s"} in the ` +
      `${
        surface
          ? "definitions served (tools, prompts, resources, instructions)"
          : "tool definitions"
      } (--strict-text); ${lockPath} was not written`,
  };
}
