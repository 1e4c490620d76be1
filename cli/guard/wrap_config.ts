/**
 * What `schemapin guard wrap` and `guard unwrap` decide about an MCP client config, apart from
 * the terminal: which entries are wrapped already, which lock entry each server is checked
 * against, which loopback port each HTTP server's guard gets, that the edited text reads back
 * as intended, and when the backup is written and copied back. The text edits themselves are
 * {@linkcode wrapConfigText} and {@linkcode unwrapConfigText} (./wrap.ts); the files are read
 * and written through {@linkcode ConfigFiles}, so the command chooses how (atomically).
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import { describeFsError } from "../../lib/runtime/fs.ts";
import {
  type ConfigContext,
  type ConfigEntry,
  parseClientConfig,
  readGuardedCommand,
  readGuardedUrl,
} from "../contractpin/config.ts";
import type { ServerTarget } from "../../lib/contractpin/live.ts";
import {
  type ContractLock,
  DEFAULT_LOCK_FILE,
  identityOf,
  readLock,
  type ServerIdentity,
} from "../../lib/contractpin/lock.ts";
import { redactCommand, redactUrl, sanitizeIdentity } from "../../lib/contractpin/secrets.ts";
import { shellQuote } from "../../lib/contractpin/display_text.ts";
import { sameIdentity } from "../../lib/contractpin/verify.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import {
  backupMatches,
  type EditResult,
  type GuardInvocation,
  unwrapConfigText,
  wrapConfigText,
  type WrapEdit,
} from "./wrap.ts";
import { defaultSchemapinProgram, type EnvLookup, schemapinProgram } from "./schemapin_path.ts";

/** The suffix of the backup written next to a config before its first change. */
export const BACKUP_SUFFIX = ".schemapin.bak";

/** A client config as read for editing. */
export interface ClientConfigFile {
  /** The path as given (for messages). */
  readonly path: string;
  /** The file the path leads to (a symlinked config is edited where it lives). */
  readonly real: string;
  /** Its permission bits, kept by every write. */
  readonly mode: number;
  /** Its text. */
  readonly text: string;
  /** The parsed document. */
  readonly doc: JsonValue;
  /** Its MCP server entries. */
  readonly entries: readonly ConfigEntry[];
}

/**
 * Parses a client config read from `file.path` (JSONC; strict: `JSON_INVALID` /
 * `INPUT_INVALID` name the file).
 *
 * @example
 * ```ts ignore
 * import { parseClientConfigFile } from "./wrap_config.ts";
 * const path = ".cursor/mcp.json";
 * const real = await Deno.realPath(path);
 * const config = parseClientConfigFile(await Deno.readFile(path), {
 *   path,
 *   real,
 *   mode: (await Deno.stat(real)).mode ?? 0o644,
 * }, { projectDir: "." });
 * ```
 */
export function parseClientConfigFile(
  bytes: Uint8Array,
  file: { path: string; real: string; mode: number },
  context: ConfigContext,
): ClientConfigFile {
  const { doc, entries } = parseClientConfig(bytes, file.path, context);
  const text = new TextDecoder().decode(bytes);
  return { path: file.path, real: file.real, mode: file.mode & 0o777, text, doc, entries };
}

/**
 * Reads the client config at `path` for editing: its bytes with `read` (errors name the file),
 * the file it leads to (a symlinked config is edited where it lives) and its permission bits,
 * parsed as {@linkcode parseClientConfigFile} does.
 *
 * @throws {SchemaPinError} what `read` throws; `IO_FAILED` when the file cannot be inspected;
 *   as {@linkcode parseClientConfigFile}; `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { readClientConfigFile } from "./wrap_config.ts";
 * const config = await readClientConfigFile(".cursor/mcp.json", (p) => Deno.readFile(p), {
 *   projectDir: ".",
 * });
 * config.entries.map((e) => e.name); // ["acme"]
 * ```
 */
export async function readClientConfigFile(
  path: string,
  read: ConfigFiles["read"],
  context: ConfigContext,
): Promise<ClientConfigFile> {
  checkArg("readClientConfigFile", "path", path, "string");
  checkArg("readClientConfigFile", "read", read, "function");
  checkArg("readClientConfigFile", "context", context, "object");
  const bytes = await read(path);
  let real: string, mode: number;
  try {
    real = await Deno.realPath(path);
    mode = (await Deno.stat(real)).mode ?? 0o644;
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot inspect ${path}: ${describeFsError(e)}`, {
      path,
    });
  }
  return parseClientConfigFile(bytes, { path, real, mode }, context);
}

/** The object at `path` in `doc`, if there is one. */
function objectAt(doc: JsonValue, path: readonly string[]): JsonObject | undefined {
  let v: JsonValue | undefined = doc;
  for (const key of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as JsonObject)[key];
  }
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as JsonObject : undefined;
}

/** The URL member of an HTTP entry: `url`, or Windsurf's `serverUrl`. */
function urlOf(raw: JsonObject): JsonValue | undefined {
  return typeof raw.url === "string" ? raw.url : raw.serverUrl;
}

/** An entry of a config that runs through the guard already. */
export type WrappedEntry =
  | {
    readonly kind: "stdio";
    /** The server's own command, credentials hidden (contractpin §5). */
    readonly shown: string;
    /** The lock entry its guard checks (`--server`), when named. */
    readonly lockName?: string;
  }
  | {
    readonly kind: "http";
    /** The upstream URL, credentials hidden. */
    readonly shown: string;
    /** The loopback port the client connects to. */
    readonly port: number;
  };

/**
 * How `entry` of `doc` runs through the guard, or `undefined` when it does not.
 *
 * @example
 * ```ts ignore
 * import { wrappedEntry } from "./wrap_config.ts";
 * const wrapped = config.entries.filter((e) => wrappedEntry(config.doc, e) !== undefined);
 * ```
 */
export function wrappedEntry(doc: JsonValue, entry: ConfigEntry): WrappedEntry | undefined {
  const raw = objectAt(doc, entry.path);
  if (!raw) return undefined;
  if (typeof raw.command === "string" && (raw.args === undefined || Array.isArray(raw.args))) {
    const args = (raw.args ?? []) as unknown[];
    if (!args.every((a) => typeof a === "string")) return undefined;
    const w = readGuardedCommand(raw.command, args as string[]);
    if (!w) return undefined;
    // Shown with credentials hidden, as in every report (contractpin §5).
    const shown = redactCommand(w.original).join(" ");
    return { kind: "stdio", shown, ...(w.lockName !== undefined ? { lockName: w.lockName } : {}) };
  }
  const url = urlOf(raw);
  if (typeof url !== "string") return undefined;
  const upstream = readGuardedUrl(url);
  if (upstream === undefined) return undefined;
  return { kind: "http", shown: redactUrl(upstream), port: Number(new URL(url).port) };
}

/**
 * The identity a lock entry pinned from this config entry has, as `contract init --config`
 * records it: secrets sanitized, a relative `cwd` resolved against the config's folder.
 *
 * @example
 * ```ts ignore
 * import { lockIdentityOf } from "./wrap_config.ts";
 * // { transport: "stdio", command: "node", args: ["server.js"], cwd: "/proj/.cursor/tools" }
 * lockIdentityOf(entry.target!, "/proj/.cursor/mcp.json");
 * ```
 */
export function lockIdentityOf(target: ServerTarget, configPath: string): ServerIdentity {
  const id = sanitizeIdentity(target.identity, { allowLiteralSecrets: true }).identity;
  if (id.transport !== "stdio" || id.cwd === undefined || id.cwd.includes("${")) return id;
  return isAbsolute(id.cwd) ? id : { ...id, cwd: resolve(dirname(configPath), id.cwd) };
}

/** Why an entry cannot run through the guard. */
export type WrapProblem =
  /** The entry cannot be used at all (`problem` says why). */
  | { readonly kind: "unusable"; readonly problem: string }
  /** No lock entry has the server's name. */
  | { readonly kind: "not_pinned" }
  /** Lock entries have its name (`candidates`) but pin another command or URL. */
  | { readonly kind: "pinned_differently"; readonly candidates: readonly string[] }
  /** Its URL holds a `${VAR}`: the guard's upstream needs the URL itself. */
  | { readonly kind: "url_variable" };

/**
 * Why an entry cannot run through the guard, with what to do about it (`configPath` and
 * `lockPath` as the user knows them).
 *
 * @example
 * ```ts
 * import { describeWrapProblem } from "./wrap_config.ts";
 * describeWrapProblem({ kind: "url_variable" }, "mcp.json", "/p/contractpin.lock");
 * // "its URL holds a variable; the guard's --upstream needs the URL itself"
 * ```
 */
export function describeWrapProblem(p: WrapProblem, configPath: string, lockPath: string): string {
  checkArg("describeWrapProblem", "p", p, "object");
  switch (p.kind) {
    case "unusable":
      return p.problem;
    case "not_pinned":
      return `not pinned in ${lockPath}; pin it first: schemapin contract init --force --config ` +
        `${shellQuote(configPath)} (or --discover)`;
    case "pinned_differently":
      return `${lockPath} pins ${p.candidates.join(", ")} from a different definition; re-pin ` +
        `it: schemapin contract init --force --config ${shellQuote(configPath)}`;
    case "url_variable":
      return "its URL holds a variable; the guard's --upstream needs the URL itself";
  }
}

/** What wrapping decided about one entry, in the config's order. */
export type WrapOutcome =
  | { readonly name: string; readonly status: "already_wrapped"; readonly wrapped: WrappedEntry }
  | {
    readonly name: string;
    readonly status: "wrapped";
    readonly transport: "stdio";
    readonly lockName: string;
  }
  | {
    readonly name: string;
    readonly status: "wrapped";
    readonly transport: "http";
    readonly lockName: string;
    /** The loopback port of its guard. */
    readonly port: number;
    /** The URL the client now connects to. */
    readonly local: string;
    /**
     * The arguments of schemapin that start its guard (`guard --listen …`): a client cannot
     * start an HTTP server's guard, so it is started separately and kept running.
     */
    readonly guardArgs: readonly string[];
  }
  | {
    readonly name: string;
    readonly status: "unguarded";
    /** A disabled entry is left as it is; any other one stops the wrap (or, partial, stays). */
    readonly disabled: boolean;
    readonly problem: WrapProblem;
  };

/** Options of {@linkcode planWrap}. */
export interface WrapPlanOptions {
  /** The lock's absolute path (what the guards are started with). */
  readonly lockPath: string;
  /** The loopback port of the first wrapped HTTP server (the next ones count up). */
  readonly firstPort: number;
  /** `--mode` for every guard (default: the guard's own). */
  readonly mode?: string;
}

/** What {@linkcode planWrap} decided. */
export interface WrapPlan {
  /** One per entry, in the config's order. */
  readonly outcomes: readonly WrapOutcome[];
  /** The text edits of the entries to wrap (for {@linkcode applyWrap}). */
  readonly edits: readonly WrapEdit[];
  /** Some entry ran through the guard before (then the backup of the unwrapped file is kept). */
  readonly hadWrapped: boolean;
}

/**
 * Decides, entry by entry, how `config` is put behind the guard: its lock entry (same name, or
 * `name@…`, with the same command or URL), and for an HTTP server a free loopback port from
 * `firstPort` up (ports of already wrapped entries are skipped).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when the config has no MCP servers, or no port is
 *   left.
 *
 * @example
 * ```ts ignore
 * const plan = planWrap(file, lock, { lockPath: "/src/app/contractpin.lock", firstPort: 8931 });
 * plan.outcomes.filter((o) => o.status === "unguarded"); // what stops the wrap
 * ```
 */
export function planWrap(
  config: ClientConfigFile,
  lock: ContractLock,
  options: WrapPlanOptions,
): WrapPlan {
  if (config.entries.length === 0) {
    throw new SchemaPinError("INPUT_INVALID", `${config.path} has no MCP servers to wrap`);
  }
  const wrapped = config.entries.map((e) => wrappedEntry(config.doc, e));
  const usedPorts = new Set<number>();
  for (const w of wrapped) if (w?.kind === "http") usedPorts.add(w.port);
  let nextPort = options.firstPort;
  const takePort = () => {
    while (usedPorts.has(nextPort)) nextPort++;
    if (nextPort > 65535) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `no loopback port left from ${options.firstPort} up for the guards of ${config.path}`,
        { path: config.path, firstPort: options.firstPort, noPortLeft: true },
      );
    }
    usedPorts.add(nextPort);
    return nextPort;
  };
  const outcomes: WrapOutcome[] = [];
  const edits: WrapEdit[] = [];
  config.entries.forEach((e, i) => {
    const w = wrapped[i];
    if (w) {
      outcomes.push({ name: e.name, status: "already_wrapped", wrapped: w });
      return;
    }
    const unguarded = (problem: WrapProblem) =>
      outcomes.push({ name: e.name, status: "unguarded", disabled: e.disabled, problem });
    if (e.target === undefined) {
      unguarded({ kind: "unusable", problem: e.problem ?? "unusable entry" });
      return;
    }
    const identity = lockIdentityOf(e.target, config.path);
    const candidates = Object.keys(lock.servers).filter((n) =>
      n === e.name || n.startsWith(`${e.name}@`)
    );
    const lockName = candidates.find((n) => sameIdentity(identityOf(lock.servers[n]), identity));
    if (lockName === undefined) {
      unguarded(
        candidates.length === 0
          ? { kind: "not_pinned" }
          : { kind: "pinned_differently", candidates },
      );
      return;
    }
    if (e.target.identity.transport === "stdio") {
      edits.push({ kind: "stdio", path: e.path, lockName });
      outcomes.push({ name: e.name, status: "wrapped", transport: "stdio", lockName });
      return;
    }
    if (e.target.identity.transport !== "http") return;
    const url = urlOf(objectAt(config.doc, e.path)!) as string;
    if (url.includes("${")) {
      unguarded({ kind: "url_variable" });
      return;
    }
    const port = takePort();
    edits.push({ kind: "http", path: e.path, lockName, port });
    outcomes.push({
      name: e.name,
      status: "wrapped",
      transport: "http",
      lockName,
      port,
      local: `http://127.0.0.1:${port}${new URL(url).pathname}`,
      guardArgs: [
        "guard",
        "--listen",
        `127.0.0.1:${port}`,
        "--upstream",
        url,
        "--lock",
        options.lockPath,
        "--server",
        lockName,
        ...(options.mode ? ["--mode", options.mode] : []),
        ...(e.target.httpTransport === "sse" ? ["--upstream-transport", "sse"] : []),
      ],
    });
  });
  return { outcomes, edits, hadWrapped: wrapped.some((w) => w !== undefined) };
}

/**
 * The text of `config` with `edits` applied, checked before anything is written: the new text
 * parses as a client config, and every wrapped entry reads back as the guard in front of
 * exactly the command or URL it had.
 *
 * @throws {Error} when an edit does not read back (a bug, never a bad input).
 *
 * @example
 * ```ts ignore
 * import { applyWrap, planWrap } from "./wrap_config.ts";
 * const plan = planWrap(config, lock, { lockPath: "/proj/contractpin.lock", firstPort: 8931 });
 * const { text } = applyWrap(config, plan.edits, {
 *   program: ["/usr/local/bin/schemapin"],
 *   lockPath: "/proj/contractpin.lock",
 * }, { projectDir: "/proj" });
 * ```
 */
export function applyWrap(
  config: ClientConfigFile,
  edits: readonly WrapEdit[],
  invocation: GuardInvocation,
  context: ConfigContext,
): EditResult {
  const result = wrapConfigText(config.text, edits, invocation);
  const after = parseClientConfig(new TextEncoder().encode(result.text), config.path, context);
  for (const edit of edits) {
    const before = objectAt(config.doc, edit.path)!;
    const now = objectAt(after.doc, edit.path)!;
    const ok = edit.kind === "stdio"
      ? JSON.stringify(
        readGuardedCommand(now.command as string, now.args as string[])?.original,
      ) ===
        JSON.stringify([before.command, ...((before.args ?? []) as string[])])
      : readGuardedUrl(urlOf(now) as string) === urlOf(before);
    if (!ok) throw new Error(`guard wrap: the edit of ${edit.path.join("/")} does not read back`);
  }
  return result;
}

/** How the config and its backup are read and written (the command's atomic writes). */
export interface ConfigFiles {
  /** True when `path` exists. */
  exists(path: string): Promise<boolean>;
  /** The bytes of `path`. */
  read(path: string): Promise<Uint8Array>;
  /** Replaces `path` with `text`, with these permission bits. */
  write(path: string, text: string, mode: number): Promise<void>;
}

/**
 * Where the backup of `config` is kept: next to the file the config's path leads to.
 *
 * @example
 * ```ts ignore
 * import { backupPathOf } from "./wrap_config.ts";
 * backupPathOf(config); // "/home/me/.cursor/mcp.json.schemapin.bak"
 * ```
 */
export function backupPathOf(config: ClientConfigFile): string {
  return config.real + BACKUP_SUFFIX;
}

/**
 * Writes the wrapped text of `config`, first copying the file to its backup — unless some
 * entry was wrapped before and a backup exists: that one is of the unwrapped file and is kept.
 * Returns whether the backup was written.
 *
 * @example
 * ```ts ignore
 * import { writeWrappedConfig } from "./wrap_config.ts";
 * const files = {
 *   exists: async (p: string) => (await Deno.stat(p).catch(() => undefined)) !== undefined,
 *   read: (p: string) => Deno.readFile(p),
 *   write: (p: string, text: string, mode: number) => Deno.writeTextFile(p, text, { mode }),
 * };
 * const { backupWritten } = await writeWrappedConfig(config, text, plan.hadWrapped, files);
 * ```
 */
export async function writeWrappedConfig(
  config: ClientConfigFile,
  text: string,
  hadWrapped: boolean,
  files: ConfigFiles,
): Promise<{ backupWritten: boolean; backupPath: string }> {
  const backupPath = backupPathOf(config);
  const backupWritten = !hadWrapped || !(await files.exists(backupPath));
  if (backupWritten) await files.write(backupPath, config.text, config.mode);
  await files.write(config.real, text, config.mode);
  return { backupWritten, backupPath };
}

/** What {@linkcode unwrapConfigFile} did. */
export interface UnwrapResult {
  /** The entries that ran through the guard, in the config's order (none: nothing written). */
  readonly unwrapped: readonly { readonly name: string; readonly wrapped: WrappedEntry }[];
  /** The backup's bytes were copied back: nothing else had changed since the wrap. */
  readonly exact: boolean;
  /** Entries whose replaced members held comments that are gone (when not `exact`). */
  readonly droppedComments: readonly string[];
  /** Where the backup is. */
  readonly backupPath: string;
  /** Whether a backup exists (when not `exact`: it was not copied back). */
  readonly backupExists: boolean;
}

/**
 * Puts every original command and URL of `config` back and writes it: the backup's exact
 * bytes when unwrapping gives back what it holds, else the commands restored in place. Writes
 * nothing when no entry runs through the guard.
 *
 * @example
 * ```ts ignore
 * import { unwrapConfigFile } from "./wrap_config.ts";
 * const result = await unwrapConfigFile(config, files);
 * if (result.unwrapped.length === 0) console.log("nothing to unwrap");
 * ```
 */
export async function unwrapConfigFile(
  config: ClientConfigFile,
  files: ConfigFiles,
): Promise<UnwrapResult> {
  const backupPath = backupPathOf(config);
  const unwrapped = config.entries.flatMap((e) => {
    const wrapped = wrappedEntry(config.doc, e);
    return wrapped ? [{ entry: e, wrapped }] : [];
  });
  const listed = unwrapped.map(({ entry, wrapped }) => ({ name: entry.name, wrapped }));
  if (unwrapped.length === 0) {
    return { unwrapped: [], exact: false, droppedComments: [], backupPath, backupExists: false };
  }
  const paths = unwrapped.map(({ entry }) => entry.path);
  const result = unwrapConfigText(config.text, paths);
  let text = result.text;
  let exact = false;
  const backupExists = await files.exists(backupPath);
  if (backupExists) {
    const backup = new TextDecoder().decode(await files.read(backupPath));
    if (backupMatches(result.text, backup, paths)) {
      text = backup;
      exact = true;
    }
  }
  await files.write(config.real, text, config.mode);
  return {
    unwrapped: listed,
    exact,
    droppedComments: exact ? [] : result.droppedComments,
    backupPath,
    backupExists,
  };
}

/** The loopback port of the first wrapped HTTP server (the next ones count up). */
export const DEFAULT_GUARD_PORT = 8931;

/** What `guard wrap` is asked, as given (see {@linkcode wrapConfigFile}). */
export interface WrapRequest {
  /** The client config. */
  readonly configPath: string;
  /** How its paths and variables are read. */
  readonly context: ConfigContext;
  /** The lock (default `contractpin.lock`). */
  readonly lock?: string;
  /** `--mode` of every guard: enforce, filter or audit (default: the guard's own). */
  readonly mode?: string;
  /** The loopback port of the first HTTP server's guard, as text (default 8931). */
  readonly port?: string;
  /** Wrap the servers that can be and leave the others (else one that cannot stops the wrap). */
  readonly partial?: boolean;
  /** How the client starts schemapin (default: the one on PATH, looked up with `env`). */
  readonly schemapinCommand?: string;
  /** The environment (PATH and the caches' variables). */
  readonly env: EnvLookup;
  /**
   * The Deno executable running this schemapin, never written as the command (it vanishes with
   * its cache); absent for a compiled binary.
   */
  readonly denoPath?: string;
}

/** What {@linkcode wrapConfigFile} decided and did. */
export interface WrapResult {
  /** The config as read. */
  readonly config: ClientConfigFile;
  /** The lock's absolute path. */
  readonly lockPath: string;
  /** What was decided entry by entry. */
  readonly plan: WrapPlan;
  /** An entry that is not disabled cannot run through the guard, and `partial` was not asked. */
  readonly blocked: boolean;
  /** What was written; absent when nothing was (blocked, or nothing to change). */
  readonly written?: {
    /** The command that starts schemapin in the wrapped entries. */
    readonly program: readonly string[];
    /** The backup was written (else the one of the unwrapped file was kept). */
    readonly backupWritten: boolean;
    readonly backupPath: string;
    /** Entries whose replaced members held comments that are gone. */
    readonly droppedComments: readonly string[];
  };
}

/**
 * Puts the guard in front of the servers of a client config: the request checked (mode, port,
 * an empty schemapin command: usage errors), the config and the lock read, the wrap planned
 * ({@linkcode planWrap}), and unless an entry blocks it or nothing changes, the command that
 * starts schemapin looked up, the edit applied and checked ({@linkcode applyWrap}) and written
 * with its backup ({@linkcode writeWrappedConfig}).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for a request that cannot be
 *   used, no port left, or no usable schemapin on PATH; what reading the config or the lock
 *   throws; `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { wrapConfigFile } from "./wrap_config.ts";
 * const result = await wrapConfigFile({
 *   configPath: ".cursor/mcp.json",
 *   context: { projectDir: "." },
 *   env: (name) => Deno.env.get(name),
 * }, files);
 * if (result.blocked) console.error("nothing was written");
 * ```
 */
export async function wrapConfigFile(
  request: WrapRequest,
  files: ConfigFiles,
): Promise<WrapResult> {
  checkArg("wrapConfigFile", "request", request, "object");
  checkArg("wrapConfigFile", "files", files, "object");
  const { mode, port, schemapinCommand: given } = request;
  if (mode !== undefined && !["enforce", "filter", "audit"].includes(mode)) {
    throw usageError(`--mode must be enforce, filter or audit (got ${mode})`, { option: "mode" });
  }
  const firstPort = port === undefined ? DEFAULT_GUARD_PORT : Number(port);
  if (!Number.isInteger(firstPort) || firstPort < 1 || firstPort > 65535) {
    throw usageError(`--port must be a port number (got ${port})`, { option: "port" });
  }
  if (given === "") throw usageError("--schemapin-command is empty");
  const lockFile = request.lock ?? DEFAULT_LOCK_FILE;
  const lockPath = resolve(lockFile);
  const config = await readClientConfigFile(request.configPath, files.read, request.context);
  const lock = await readLock(lockFile, files.read);
  let plan;
  try {
    plan = planWrap(config, lock, { lockPath, firstPort, ...(mode ? { mode } : {}) });
  } catch (e) {
    if (e instanceof SchemaPinError && e.details.noPortLeft === true) {
      throw usageError("no port left above --port", { option: "port" });
    }
    throw e;
  }
  const blocked = !request.partial &&
    plan.outcomes.some((o) => o.status === "unguarded" && !o.disabled);
  if (blocked || plan.edits.length === 0) return { config, lockPath, plan, blocked };
  // The command the client runs, looked up only when something is to be written.
  const program = given !== undefined
    ? [schemapinProgram(given)]
    : defaultSchemapinProgram(request.env, request.denoPath);
  const invocation: GuardInvocation = { program, lockPath, ...(mode ? { mode } : {}) };
  const { text, droppedComments } = applyWrap(config, plan.edits, invocation, request.context);
  const backup = await writeWrappedConfig(config, text, plan.hadWrapped, files);
  return { config, lockPath, plan, blocked, written: { program, ...backup, droppedComments } };
}
