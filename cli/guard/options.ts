/**
 * The options of a guard run (`schemapin guard … -- CMD`, `schemapin guard --listen`) as given,
 * checked before anything is read, fetched or started: the transport (a server command, or
 * `--listen` with `--upstream`), the mode, the timeouts and connection limits, and which checks
 * run (the lock, the tools' signatures, the lock's signature) with the options that go with
 * them. Each mistake is a usage error (`usageError` of lib/errors.ts) naming the option.
 *
 * @module
 */
import { basename } from "node:path";
import { checkArg } from "../../lib/arguments.ts";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { DEFAULT_LOCK_FILE } from "../../lib/contractpin/lock.ts";
import { parseEndpoint } from "../../lib/contractpin/secrets.ts";
import type { ServerLimits } from "../../lib/http/server.ts";
import { serverLimitsFrom, type ServerLimitsText } from "../http/server_limits.ts";
import type { LineageStore } from "../../lib/pins/lineage.ts";
import { describeFsError } from "../../lib/runtime/fs.ts";
import type { TrustPlan } from "../../lib/trust/load.ts";
import { AuditLog, type AuditSink, openAuditSink } from "../../lib/guard/audit.ts";
import { parseListenAddress, type UpstreamTransportChoice } from "./listen.ts";
import type { GuardMode, LockPolicy } from "../../lib/guard/policy.ts";
import type { GuardSetup, GuardSetupOptions } from "./setup.ts";
import type { GuardCore } from "../../lib/guard/core.ts";

/** The options of a guard run as text, by option name (as `schemapin guard` takes them). */
export interface GuardOptionsText extends ServerLimitsText {
  /** `enforce` (default), `filter` or `audit`. */
  readonly mode?: string;
  /** The lock file (default `contractpin.lock`, unless only signatures are asked for). */
  readonly lock?: string;
  /** The server's entry in the lock. */
  readonly server?: string;
  /** Require SchemaPin signatures on every tool. */
  readonly signatures?: boolean;
  /** Refuse to start unless the lock's signature verifies. */
  readonly "require-signed-lock"?: boolean;
  /** The publisher's domain (the key sources need it). */
  readonly domain?: string;
  /** The audit log file (default stderr). */
  readonly log?: string;
  /** Enforce lineage (with signatures). */
  readonly lineage?: boolean;
  /** The lineage file (with signatures). */
  readonly "lineage-store"?: string;
  /** `HOST:PORT` of the HTTP guard. */
  readonly listen?: string;
  /** The HTTP server to guard. */
  readonly upstream?: string;
  /** `auto` (default), `streamable-http` or `sse`. */
  readonly "upstream-transport"?: string;
  /** Allow `listen` on an address that is not loopback. */
  readonly "allow-remote"?: boolean;
  /** Hidden text fails the tool. */
  readonly "strict-text"?: boolean;
  /** Refuse every skill whose lock item records no verified signature (implies the lock). */
  readonly "require-skill-signature"?: boolean;
  /** Seconds for the server to start and answer initialize. */
  readonly "startup-timeout"?: string;
  /** Seconds for each tools/list answer. */
  readonly "list-timeout"?: string;
  /** The pin store of the signatures' keys. */
  readonly "pin-store"?: string;
  /** Pin an unknown key on first use. */
  readonly "trust-first-use"?: boolean;
  /** Accept expired signatures (with a warning). */
  readonly "allow-expired"?: boolean;
  /** Accept a missing revocation document. */
  readonly "allow-missing-revocation"?: boolean;
}

/** What the caller supplies to {@linkcode checkGuardOptions} besides the options. */
export interface GuardOptionsContext {
  /** The server command (after `--`; empty with `listen`). */
  readonly command: readonly string[];
  /**
   * The names of the key-source and verification options, which go with `signatures` or
   * `require-signed-lock` only (checked when one of them is in the options).
   */
  readonly trustOptions: readonly string[];
  /** Checks the key-source options and returns their plan (with signatures or a signed lock). */
  readonly trustPlan: () => TrustPlan;
  /** The lineage store, when lineage is asked for (called once the options are checked). */
  readonly lineage?: () => LineageStore | undefined;
}

/** A guard run, checked by {@linkcode checkGuardOptions}. */
export interface GuardRun {
  readonly mode: GuardMode;
  /** The server command of a stdio guard. */
  readonly command: readonly string[];
  /** The HTTP guard's address, upstream and limits (`--listen`); else a stdio guard. */
  readonly listen?: {
    readonly hostname: string;
    readonly port: number;
    readonly upstream: string;
    readonly transport: UpstreamTransportChoice;
    readonly limits: ServerLimits;
  };
  readonly startupTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  /** The server's name as given. */
  readonly server?: string;
  /** The audit log file (default stderr). */
  readonly log?: string;
  /** What {@linkcode prepareGuard} (./setup.ts) gets. */
  readonly setup: GuardSetupOptions;
}

const MODES = ["enforce", "filter", "audit"];
const TRANSPORTS = ["auto", "streamable-http", "sse"];
const LISTEN_LIMITS = [
  "max-connections",
  "header-timeout",
  "idle-timeout",
  "request-timeout",
  "min-request-rate",
  "request-grace",
];

function seconds(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    throw usageError(`--${option} must be a positive number of seconds (got ${text})`, { option });
  }
  return n * 1000;
}

/** The lock's only server is taken when `--server` is not given; several: a usage error. */
function chooseServer(file: string): (names: readonly string[]) => string {
  return (names) => {
    throw usageError(
      `${file} pins ${names.length} servers; choose one with --server NAME` +
        (names.length ? ` (${names.join(", ")})` : ""),
      { option: "server" },
    );
  };
}

/** The transport options: a server command, or `listen` with `upstream` and its limits. */
function checkTransport(values: GuardOptionsText, command: readonly string[]): GuardRun["listen"] {
  const http = values.listen !== undefined || values.upstream !== undefined;
  if (http) {
    if (values.listen === undefined || values.upstream === undefined) {
      throw usageError("--listen and --upstream go together");
    }
    if (command.length > 0) {
      throw usageError("give either a command after -- or --listen/--upstream");
    }
  } else {
    if (command.length === 0 || command[0] === "") {
      throw usageError("the server command goes after -- (or use --listen/--upstream)");
    }
    if (values["allow-remote"]) throw usageError("--allow-remote goes with --listen");
  }
  const address = http
    ? parseListenAddress(values.listen!, values["allow-remote"] === true)
    : undefined;
  if (http) {
    try {
      parseEndpoint(values.upstream!);
    } catch (e) {
      throw usageError(`--upstream: ${(e as Error).message}`, { option: "upstream" });
    }
  }
  const transport = values["upstream-transport"] ?? "auto";
  if (!TRANSPORTS.includes(transport)) {
    throw usageError(
      `--upstream-transport expects auto, streamable-http or sse (got ${
        JSON.stringify(transport)
      })`,
    );
  }
  if (values["upstream-transport"] !== undefined && !http) {
    throw usageError("--upstream-transport goes with --listen/--upstream");
  }
  for (const option of LISTEN_LIMITS) {
    if (values[option as keyof ServerLimitsText] !== undefined && !http) {
      throw usageError(`--${option} goes with --listen`);
    }
  }
  const limits = serverLimitsFrom(values, false);
  if (!address) return undefined;
  const upstream = values.upstream!;
  return { ...address, upstream, transport: transport as UpstreamTransportChoice, limits };
}

/**
 * Checks the options of a guard run, in this order: the mode, the transport (a command, or
 * `listen` with `upstream`, the upstream transport and the connection limits), the timeouts,
 * the trust options (`context.trustPlan`, with signatures or a signed lock), the options that
 * go with signatures only, and the lock (the default lock unless only signatures are asked
 * for; a signed lock needs a file). Nothing is read.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for options that do not fit
 *   together or a value that cannot be used; what `context.trustPlan` throws; `INPUT_INVALID`
 *   for arguments of the wrong type
 *
 * @example
 * ```ts
 * import { SchemaPinError } from "../../lib/errors.ts";
 * import { checkGuardOptions } from "./options.ts";
 * const run = checkGuardOptions({ mode: "filter", server: "acme" }, {
 *   command: ["node", "server.js"],
 *   trustOptions: [],
 *   trustPlan: () => {
 *     throw new SchemaPinError("INPUT_INVALID", "no signatures asked for");
 *   },
 * });
 * run.setup.lock?.path; // "contractpin.lock"
 * ```
 */
export function checkGuardOptions(
  values: GuardOptionsText,
  context: GuardOptionsContext,
): GuardRun {
  checkArg("checkGuardOptions", "values", values, "object");
  checkArg("checkGuardOptions", "context", context, "object");
  const mode = (values.mode ?? "enforce") as GuardMode;
  if (!MODES.includes(mode)) {
    throw usageError(`--mode must be enforce, filter or audit (got ${values.mode})`, {
      option: "mode",
    });
  }
  const listen = checkTransport(values, context.command);
  const startupTimeoutMs = seconds("startup-timeout", values["startup-timeout"]);
  const requestTimeoutMs = seconds("list-timeout", values["list-timeout"]);

  // The trust options are checked here; their documents are loaded after the lock, so that
  // nothing is fetched before all of the arguments and local inputs are known to be good.
  const signatures = values.signatures === true;
  const signedLock = values["require-signed-lock"] === true;
  let trust: TrustPlan | undefined;
  if (signatures || signedLock) {
    if (values.domain === undefined) {
      throw usageError(
        `${signatures ? "--signatures" : "--require-signed-lock"} needs --domain D`,
      );
    }
    trust = context.trustPlan();
  }
  if (!signatures && (values.lineage || values["lineage-store"] !== undefined)) {
    throw usageError(`--${values.lineage ? "lineage" : "lineage-store"} goes with --signatures`);
  }
  if (!trust) {
    for (const option of context.trustOptions) {
      if ((values as Record<string, unknown>)[option] !== undefined) {
        throw usageError(`--${option} goes with --signatures or --require-signed-lock`);
      }
    }
  }
  // The lock: with --lock, or by default when signatures are not asked for (skill signatures
  // are the lock's records: they need it).
  const path = values.lock ?? DEFAULT_LOCK_FILE;
  const requireSkillSignature = values["require-skill-signature"] === true;
  const withLock = values.lock !== undefined || !signatures || signedLock ||
    requireSkillSignature;
  if (withLock && signedLock && path === "-") {
    throw usageError("--require-signed-lock needs --lock FILE (its signature is FILE.sig)");
  }
  let setup: GuardSetupOptions = {
    ...(withLock
      ? { lock: { path, server: values.server, chooseServer: chooseServer(path) } }
      : {}),
    trust,
    requireSignedLock: signedLock,
    signatures,
    verify: {
      pinStore: values["pin-store"],
      trustFirstUse: values["trust-first-use"] === true,
      allowExpired: values["allow-expired"] === true,
      allowMissingRevocation: values["allow-missing-revocation"] === true,
    },
    strictText: values["strict-text"] === true,
    ...(requireSkillSignature ? { requireSkillSignature } : {}),
  };
  const lineage = context.lineage?.();
  if (lineage) setup = { ...setup, lineage };
  const { server, log } = values;
  const command = context.command;
  return { mode, command, listen, startupTimeoutMs, requestTimeoutMs, server, log, setup };
}

/**
 * The server's name in the audit log: the one given, else its lock entry's, else the
 * upstream's host (`listen`) or the file name of the server command.
 *
 * @example
 * ```ts ignore
 * import { guardServerName } from "./options.ts";
 * guardServerName(run, setup.lock); // "acme"
 * ```
 */
export function guardServerName(run: GuardRun, lock?: LockPolicy): string {
  checkArg("guardServerName", "run", run, "object");
  return run.server ?? lock?.serverName ??
    (run.listen ? new URL(run.listen.upstream).host : basename(run.command[0]));
}

/**
 * The audit log of a guard run: appended to its `log` file, else written to `stderr` when
 * given, else to the process's stderr.
 *
 * @throws {SchemaPinError} `IO_FAILED` when the file cannot be opened; `INPUT_INVALID` for
 *   arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { openGuardAuditLog } from "./options.ts";
 * const log = openGuardAuditLog(run, "acme");
 * log.record({ decision: "started", message: "checking lock contractpin.lock (acme)" });
 * ```
 */
export function openGuardAuditLog(run: GuardRun, serverName: string, stderr?: AuditSink): AuditLog {
  checkArg("openGuardAuditLog", "run", run, "object");
  checkArg("openGuardAuditLog", "serverName", serverName, "string");
  let sink: AuditSink;
  try {
    sink = stderr && run.log === undefined ? stderr : openAuditSink(run.log);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot open --log ${run.log}: ${describeFsError(e)}`);
  }
  return new AuditLog(serverName, run.mode, sink);
}

/**
 * The guard core of a run: the server's name ({@linkcode guardServerName}), its audit log
 * opened ({@linkcode openGuardAuditLog}), the core for what `setup` checks, and the log's
 * `started` line saying what that is.
 *
 * @throws {SchemaPinError} as {@linkcode openGuardAuditLog}
 *
 * @example
 * ```ts ignore
 * import { startGuardCore } from "./options.ts";
 * const { core, serverName } = startGuardCore(run, await prepareGuard(run.setup, env));
 * ```
 */
export function startGuardCore(
  run: GuardRun,
  setup: GuardSetup,
  stderr?: AuditSink,
): { core: GuardCore; serverName: string } {
  checkArg("startGuardCore", "setup", setup, "object");
  const serverName = guardServerName(run, setup.lock);
  const log = openGuardAuditLog(run, serverName, stderr);
  const core = setup.core({ mode: run.mode, log, serverName });
  log.record({ decision: "started", message: `checking ${setup.checks}` });
  return { core, serverName };
}
