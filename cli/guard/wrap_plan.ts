/**
 * What `schemapin guard wrap` decides about an MCP client config, apart from the terminal:
 * which lock entry each server is checked against, which loopback port each HTTP server's guard
 * gets, what stops the wrap and what to do about it. Reading the config, the text edits, their
 * read-back check and the backup are cli/mcp_config/ (read.ts, wrap.ts); the files are read and
 * written through its `ConfigFiles`, so the command chooses how (atomically).
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import type { ServerTarget } from "../../lib/contractpin/live.ts";
import {
  type ContractLock,
  DEFAULT_LOCK_FILE,
  identityOf,
  readLock,
  type ServerIdentity,
} from "../../lib/contractpin/lock.ts";
import { sanitizeIdentity } from "../../lib/contractpin/secrets.ts";
import { shellQuote } from "../../lib/contractpin/display_text.ts";
import { sameIdentity } from "../../lib/contractpin/verify.ts";
import { objectAt, urlKeyOf } from "../mcp_config/formats.ts";
import type { GuardInvocation } from "../mcp_config/marker.ts";
import { type ClientConfigFile, readClientConfigFile } from "../mcp_config/read.ts";
import type { ConfigContext } from "../mcp_config/variables.ts";
import {
  applyWrap,
  type ConfigFiles,
  type WrappedEntry,
  wrappedEntry,
  writeWrappedConfig,
} from "../mcp_config/wrap.ts";
import type { WrapEdit } from "../mcp_config/wrap_text.ts";
import { defaultSchemapinProgram, type EnvLookup, schemapinProgram } from "./schemapin_path.ts";

/**
 * The identity a lock entry pinned from this config entry has, as `contract init --config`
 * records it: secrets sanitized, a relative `cwd` resolved against the config's folder.
 *
 * @example
 * ```ts ignore
 * import { lockIdentityOf } from "./wrap_plan.ts";
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
 * import { describeWrapProblem } from "./wrap_plan.ts";
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
    const raw = objectAt(config.doc, e.path)!;
    const url = raw[urlKeyOf(raw)!] as string;
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
 * import { wrapConfigFile } from "./wrap_plan.ts";
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
