/**
 * `schemapin guard wrap CONFIG` / `schemapin guard unwrap CONFIG`: put the guard in front of
 * every server of an MCP client config (each with its contractpin.lock entry), and take it
 * out again. The text edits are lib/guard/wrap.ts; this file reads and checks the inputs,
 * keeps the backup and writes atomically (temporary file + rename; nothing is written when
 * anything is wrong).
 *
 * @module
 */
import { shellQuote } from "../contractpin/display_text.ts";
import { dirname, isAbsolute, resolve } from "node:path";
import { SchemaPinError } from "../errors.ts";
import {
  type ConfigEntry,
  parseClientConfig,
  readGuardedCommand,
  readGuardedUrl,
} from "../contractpin/config.ts";
import type { ServerTarget } from "../contractpin/live.ts";
import { DEFAULT_LOCK_FILE, identityOf, type ServerIdentity } from "../contractpin/lock.ts";
import { redactCommand, redactUrl, sanitizeIdentity } from "../contractpin/secrets.ts";
import { sameIdentity } from "../contractpin/verify.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import {
  backupMatches,
  type GuardInvocation,
  unwrapConfigText,
  wrapConfigText,
  type WrapEdit,
} from "../guard/wrap.ts";
import { type CliIO, EXIT_OK, EXIT_USAGE, parseCommandArgs, UsageError } from "./command.ts";
import { configContextFor, lockRelative, readLock } from "./contract_shared.ts";
import { describeFsError, exists, readInput, writeFileAtomic } from "./io.ts";
import type { FlagTable } from "./flags.ts";
import { type EnvLookup, findSchemapinOnPath } from "./schemapin_path.ts";

/** The loopback port of the first wrapped HTTP server (the next ones count up). */
export const DEFAULT_GUARD_PORT = 8931;

/**
 * How a client starts schemapin: the `schemapin` found on PATH (its absolute path, as
 * `command -v` finds it), never a path inside a package-manager cache nor the Deno runtime of
 * this process — both vanish when the cache is cleaned. None usable: a usage error naming
 * --schemapin-command and what was found.
 */
export function defaultSchemapinCommand(env: EnvLookup = (n) => Deno.env.get(n)): string[] {
  const found = findSchemapinOnPath(env, {
    denoPath: Deno.build.standalone ? undefined : Deno.execPath(),
  });
  if (found.path !== undefined) return [found.path];
  const seen = found.candidates.length === 0
    ? "no schemapin on PATH"
    : `only ${found.candidates.map((c) => `${c.path} (${c.rejected})`).join(", ")}, which ` +
      "a client config cannot rely on: it disappears when that cache is cleaned";
  throw new UsageError(
    `guard wrap: ${seen}; install schemapin on PATH (e.g. the compiled binary in ` +
      "~/.local/bin), or give the command the client should run with --schemapin-command PATH",
  );
}

const PROJECT_FLAGS = {
  project: {
    type: "string",
    value: "DIR",
    help: "the project folder: ${workspaceFolder} and Claude Code's per-project servers " +
      "(default .)",
  },
} as const satisfies FlagTable;

/** The flags of `guard wrap`. */
export const WRAP_FLAGS = {
  lock: {
    type: "string",
    value: "FILE",
    help: "the lock whose entries the wrapped servers are checked against (default " +
      "contractpin.lock)",
  },
  mode: {
    type: "string",
    value: "MODE",
    help: "the guard's --mode for every wrapped server: enforce, filter or audit",
  },
  port: {
    type: "string",
    value: "PORT",
    help: `the loopback port of the first wrapped HTTP server (default ${DEFAULT_GUARD_PORT}; ` +
      "the next ones count up)",
  },
  partial: {
    type: "boolean",
    help: "wrap the servers that are pinned and leave the others (default: a server that is " +
      "not pinned stops the wrap)",
  },
  "schemapin-command": {
    type: "string",
    value: "PATH",
    help: "how the client starts schemapin (default: the schemapin found on PATH, never one " +
      "inside a package-manager cache)",
  },
  ...PROJECT_FLAGS,
} as const satisfies FlagTable;

/** The flags of `guard unwrap`. */
export const UNWRAP_FLAGS = { ...PROJECT_FLAGS } as const satisfies FlagTable;

/** The suffix of the backup written next to a config before its first change. */
export const BACKUP_SUFFIX = ".schemapin.bak";

/** Quotes an argument for a POSIX shell when it needs it (for printed commands). */
function valueIn(doc: JsonValue, path: readonly string[]): JsonObject | undefined {
  let v: JsonValue | undefined = doc;
  for (const key of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as JsonObject)[key];
  }
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as JsonObject : undefined;
}

/** A config as read for editing: its real path, mode, text and entries. */
interface ConfigFile {
  readonly path: string;
  /** The file the path leads to (a symlinked config is edited where it lives). */
  readonly real: string;
  readonly mode: number;
  readonly text: string;
  readonly doc: JsonValue;
  readonly entries: ConfigEntry[];
}

async function readConfigFile(path: string, project: string, io: CliIO): Promise<ConfigFile> {
  const bytes = await readInput(path, io);
  let real: string, mode: number;
  try {
    real = await Deno.realPath(path);
    mode = (await Deno.stat(real)).mode ?? 0o644;
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot inspect ${path}: ${describeFsError(e)}`, {
      path,
    });
  }
  const { doc, entries } = parseClientConfig(bytes, path, configContextFor(path, project));
  const text = new TextDecoder().decode(bytes);
  return { path, real, mode: mode & 0o777, text, doc, entries };
}

/** Writes the new config (and, first, the backup) atomically, keeping the file's mode. */
async function writeConfig(file: ConfigFile, text: string, backup: boolean): Promise<void> {
  if (backup) {
    await writeFileAtomic(file.real + BACKUP_SUFFIX, file.text, {
      overwrite: true,
      mode: file.mode,
    });
  }
  await writeFileAtomic(file.real, text, { overwrite: true, mode: file.mode });
}

/** The identity a lock entry pinned from this config entry has (as contract init writes it). */
function lockIdentityOf(t: ServerTarget, configPath: string, lockPath: string): ServerIdentity {
  const id = sanitizeIdentity(t.identity, { allowLiteralSecrets: true }).identity;
  if (id.transport !== "stdio" || id.cwd === undefined || id.cwd.includes("${")) return id;
  const cwd = isAbsolute(id.cwd) ? id.cwd : resolve(dirname(configPath), id.cwd);
  return { ...id, cwd: lockRelative(cwd, lockPath) };
}

/** A wrapped entry of a config, with what it runs. */
function wrappedState(doc: JsonValue, e: ConfigEntry) {
  const raw = valueIn(doc, e.path);
  if (!raw) return undefined;
  if (typeof raw.command === "string" && (raw.args === undefined || Array.isArray(raw.args))) {
    const args = (raw.args ?? []) as unknown[];
    if (!args.every((a) => typeof a === "string")) return undefined;
    const w = readGuardedCommand(raw.command, args as string[]);
    // Shown with credentials hidden, as in every report (contractpin §5).
    const shown = redactCommand(w?.original ?? []).join(" ");
    return w ? { kind: "stdio" as const, shown, lockName: w.lockName } : w;
  }
  const url = typeof raw.url === "string" ? raw.url : raw.serverUrl;
  if (typeof url !== "string") return undefined;
  const upstream = readGuardedUrl(url);
  if (upstream === undefined) return undefined;
  const port = Number(new URL(url).port);
  return { kind: "http" as const, shown: redactUrl(upstream), port, lockName: undefined };
}

/** Runs `schemapin guard wrap` or `schemapin guard unwrap`. */
export async function runGuardWrap(
  sub: "wrap" | "unwrap",
  args: string[],
  io: CliIO,
): Promise<number> {
  return sub === "wrap" ? await wrap(args, io) : await unwrap(args, io);
}

async function wrap(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("guard wrap", args, WRAP_FLAGS);
  if (positionals.length !== 1) {
    throw new UsageError(`guard wrap: expected one CONFIG file, got ${positionals.length}`);
  }
  const mode = values.mode;
  if (mode !== undefined && !["enforce", "filter", "audit"].includes(mode)) {
    throw new UsageError(`guard wrap: --mode must be enforce, filter or audit (got ${mode})`);
  }
  const base = values.port === undefined ? DEFAULT_GUARD_PORT : Number(values.port);
  if (!Number.isInteger(base) || base < 1 || base > 65535) {
    throw new UsageError(`guard wrap: --port must be a port number (got ${values.port})`);
  }
  const given = values["schemapin-command"];
  if (given === "") throw new UsageError("guard wrap: --schemapin-command is empty");
  const configPath = positionals[0];
  const lockPath = resolve(values.lock ?? DEFAULT_LOCK_FILE);
  const file = await readConfigFile(configPath, values.project ?? ".", io);
  const lock = await readLock(values.lock ?? DEFAULT_LOCK_FILE, io);

  const edits: WrapEdit[] = [];
  const problems: string[] = [];
  const lines: string[] = [];
  const httpStarts: string[][] = [];
  const usedPorts = new Set<number>();
  for (const e of file.entries) {
    const w = wrappedState(file.doc, e);
    if (w?.kind === "http") usedPorts.add(w.port);
  }
  let nextPort = base;
  const takePort = () => {
    while (usedPorts.has(nextPort)) nextPort++;
    if (nextPort > 65535) throw new UsageError("guard wrap: no port left above --port");
    usedPorts.add(nextPort);
    return nextPort;
  };
  for (const e of file.entries) {
    const w = wrappedState(file.doc, e);
    if (w) {
      lines.push(
        `already wrapped ${e.name}` + (w.lockName ? ` (lock entry ${w.lockName})` : "") +
          `: ${w.shown}`,
      );
      continue;
    }
    const cannot = (reason: string) => {
      if (e.disabled) lines.push(`left ${e.name} as it is (disabled): ${reason}`);
      else problems.push(`${e.name}: ${reason}`);
    };
    if (e.target === undefined) {
      cannot(e.problem ?? "unusable entry");
      continue;
    }
    const identity = lockIdentityOf(e.target, file.path, lockPath);
    const candidates = Object.keys(lock.servers).filter((n) =>
      n === e.name || n.startsWith(`${e.name}@`)
    );
    const lockName = candidates.find((n) => sameIdentity(identityOf(lock.servers[n]), identity));
    if (lockName === undefined) {
      cannot(
        candidates.length === 0
          ? `not pinned in ${lockPath}; pin it first: schemapin contract init --force --config ` +
            `${shellQuote(configPath)} (or --discover)`
          : `${lockPath} pins ${candidates.join(", ")} from a different definition; re-pin it: ` +
            `schemapin contract init --force --config ${shellQuote(configPath)}`,
      );
      continue;
    }
    if (e.target.identity.transport === "stdio") {
      edits.push({ kind: "stdio", path: e.path, lockName });
      lines.push(`wrapped ${e.name} (lock entry ${lockName})`);
      continue;
    }
    if (e.target.identity.transport !== "http") continue;
    const raw = valueIn(file.doc, e.path)!;
    const url = (typeof raw.url === "string" ? raw.url : raw.serverUrl) as string;
    if (url.includes("${")) {
      cannot("its URL holds a variable; the guard's --upstream needs the URL itself");
      continue;
    }
    const port = takePort();
    edits.push({ kind: "http", path: e.path, lockName, port });
    lines.push(
      `wrapped ${e.name} (lock entry ${lockName}): the client now connects to ` +
        `http://127.0.0.1:${port}${new URL(url).pathname}`,
    );
    httpStarts.push(
      [
        "guard",
        "--listen",
        `127.0.0.1:${port}`,
        "--upstream",
        url,
        "--lock",
        lockPath,
        "--server",
        lockName,
        ...(mode ? ["--mode", mode] : []),
        ...(e.target.httpTransport === "sse" ? ["--upstream-transport", "sse"] : []),
      ],
    );
  }
  if (file.entries.length === 0) {
    throw new SchemaPinError("INPUT_INVALID", `${configPath} has no MCP servers to wrap`);
  }
  if (problems.length > 0 && !values.partial) {
    await io.stderr(
      `error: guard wrap: ${problems.length} server(s) of ${configPath} cannot run through the ` +
        `guard; nothing was written:\n${problems.map((p) => `  ${p}\n`).join("")}` +
        `(fix them, or wrap the others with --partial)\n`,
    );
    return EXIT_USAGE;
  }
  for (const p of problems) lines.push(`left ${p.replace(":", " unguarded:")}`);
  if (edits.length === 0) {
    await io.stdout(lines.map((l) => l + "\n").join(""));
    await io.stdout(`nothing to change in ${configPath}\n`);
    return EXIT_OK;
  }

  // The command the client runs, looked up only when something is to be written.
  const program = given !== undefined
    ? [/[/\\]/.test(given) && !isAbsolute(given) ? resolve(given) : given]
    : defaultSchemapinCommand();
  const inv: GuardInvocation = { program, lockPath, ...(mode ? { mode } : {}) };
  const result = wrapConfigText(file.text, edits, inv);
  // Check the edit before writing: the new text parses, and every wrapped entry reads back
  // as the guard in front of exactly the command or URL it had.
  const after = parseClientConfig(
    new TextEncoder().encode(result.text),
    configPath,
    configContextFor(configPath, values.project ?? "."),
  );
  for (const edit of edits) {
    const before = valueIn(file.doc, edit.path)!;
    const now = valueIn(after.doc, edit.path)!;
    const ok = edit.kind === "stdio"
      ? JSON.stringify(
        readGuardedCommand(now.command as string, now.args as string[])?.original,
      ) ===
        JSON.stringify([before.command, ...((before.args ?? []) as string[])])
      : readGuardedUrl((now.url ?? now.serverUrl) as string) === (before.url ?? before.serverUrl);
    if (!ok) throw new Error(`guard wrap: the edit of ${edit.path.join("/")} does not read back`);
  }
  const hadWrapped = file.entries.some((e) => wrappedState(file.doc, e) !== undefined);
  const backupPath = file.real + BACKUP_SUFFIX;
  const backup = !hadWrapped || !(await exists(backupPath));
  await writeConfig(file, result.text, backup);

  await io.stdout(lines.map((l) => l + "\n").join(""));
  for (const p of result.droppedComments) {
    await io.stdout(`note: comments inside the replaced members of ${p} were dropped\n`);
  }
  if (httpStarts.length > 0) {
    await io.stdout(
      `HTTP servers: a client cannot start their guards; start each (and keep it running):\n` +
        httpStarts.map((c) => `  ${[...program, ...c].map(shellQuote).join(" ")}\n`).join(""),
    );
  }
  await io.stdout(
    `wrote ${configPath}` +
      (backup
        ? ` (backup: ${backupPath})`
        : ` (backup of the unwrapped file kept: ${backupPath})`) +
      `; restart the client. Undo: schemapin guard unwrap ${shellQuote(configPath)}\n`,
  );
  return EXIT_OK;
}

async function unwrap(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("guard unwrap", args, UNWRAP_FLAGS);
  if (positionals.length !== 1) {
    throw new UsageError(`guard unwrap: expected one CONFIG file, got ${positionals.length}`);
  }
  const configPath = positionals[0];
  const file = await readConfigFile(configPath, values.project ?? ".", io);
  const wrapped = file.entries.map((e) => ({ e, w: wrappedState(file.doc, e) }))
    .filter((x) => x.w !== undefined);
  if (wrapped.length === 0) {
    await io.stdout(
      `nothing to unwrap: no server in ${configPath} runs through schemapin guard; ` +
        `the file was not changed\n`,
    );
    return EXIT_OK;
  }
  const paths = wrapped.map((x) => x.e.path);
  const result = unwrapConfigText(file.text, paths);
  const backupPath = file.real + BACKUP_SUFFIX;
  let text = result.text;
  let exact = false;
  if (await exists(backupPath)) {
    const backup = new TextDecoder().decode(await readInput(backupPath, io));
    if (backupMatches(result.text, backup, paths)) {
      text = backup;
      exact = true;
    }
  }
  await writeConfig(file, text, false);
  for (const { e, w } of wrapped) await io.stdout(`unwrapped ${e.name}: ${w!.shown}\n`);
  if (!exact) {
    for (const p of result.droppedComments) {
      await io.stdout(`note: comments inside the replaced members of ${p} were dropped\n`);
    }
  }
  await io.stdout(
    exact
      ? `restored ${configPath} exactly as it was before wrapping (from ${backupPath})\n`
      : `restored the commands in ${configPath} in place` +
        ((await exists(backupPath))
          ? ` (it changed since it was wrapped, so ${backupPath} was not copied back)`
          : "") +
        "\n",
  );
  return EXIT_OK;
}

/** Help text of wrap/unwrap, for the guard's --help. */
export const WRAP_HELP =
  `  schemapin guard wrap CONFIG [--lock FILE] [--mode MODE] [--port N] [--partial]
      [--schemapin-command PATH] [--project DIR]
  schemapin guard unwrap CONFIG [--project DIR]`;
