/**
 * Helpers shared by the `schemapin contract` subcommands: strict option parsing (with token
 * order, so a `--header` belongs to the `--http` before it), the run-time limits, reading the
 * lock, snapshot and client config with errors that name the file.
 *
 * @module
 */
import { type FlagTable, optionList, parseOptions, rewriteDeprecatedFlags } from "./flags.ts";
import { parseArgs } from "node:util";
import { basename, dirname, isAbsolute, relative, resolve } from "node:path";
import { SchemaPinError } from "../errors.ts";
import { parseArgsErrorMessage } from "./arg_mistakes.ts";
import { type ConfigContext, parseMcpConfig } from "../contractpin/config.ts";
import type { ServerTarget } from "../contractpin/live.ts";
import { type ContractLock, normalizeClientCapabilities, parseLock } from "../contractpin/lock.ts";
import { type HeaderTemplate, parseHeader } from "../contractpin/secrets.ts";
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from "../mcp/session.ts";
import { DEFAULT_CONCURRENCY, type RunOptions } from "../contractpin/run.ts";
import { type ContractSnapshot, parseSnapshot } from "../contractpin/snapshot.ts";
import type { SecretWarning } from "../contractpin/secrets.ts";
import { VERSION } from "../version.ts";
import type { CliIO } from "./command.ts";
import { notice, UsageError } from "./command.ts";
import { exists, readInput } from "./io.ts";

/**
 * The MCP timeouts (`--startup-timeout`, `--timeout`): seconds for a server to start, and for
 * each MCP request after that. Also taken by `sign-tools`. Not the network deadlines of the
 * verify commands' `--timeout` (lib/cli/flag_groups.ts, NETWORK_TIMEOUT_FLAGS).
 */
export const MCP_TIMEOUT_FLAGS = {
  "startup-timeout": {
    type: "string",
    value: "SECONDS",
    help: "seconds for a server to start and answer initialize (default " +
      `${DEFAULT_STARTUP_TIMEOUT_MS / 1000})`,
  },
  timeout: {
    type: "string",
    value: "SECONDS",
    help: `seconds for each MCP request after initialize (default ${
      DEFAULT_REQUEST_TIMEOUT_MS / 1000
    })`,
  },
} as const satisfies FlagTable;

/** The limits every live `contract` subcommand (init, verify, approve) accepts. */
export const MCP_LIMIT_FLAGS = {
  ...MCP_TIMEOUT_FLAGS,
  "max-pages": {
    type: "string",
    value: "N",
    help: `most tools/list pages to follow (default ${DEFAULT_MAX_PAGES})`,
  },
  concurrency: {
    type: "string",
    value: "N",
    help: `servers contacted at once (default ${DEFAULT_CONCURRENCY})`,
  },
} as const satisfies FlagTable;

/**
 * The servers given on the command line of `contract init` and `contract dump`: a stdio
 * command (`--server NAME -- CMD…`, with `--env`, `--cwd`), HTTP servers (`--http`, `--sse`,
 * each with the `--header`s after it) and the client capabilities to announce.
 */
export const CONTRACT_SERVER_FLAGS = {
  server: {
    type: "string",
    value: "NAME",
    help: "the stdio server whose command follows --, under NAME",
  },
  env: {
    type: "string",
    multiple: true,
    value: "NAME[=VALUE]",
    help: "an environment variable of --server's command (NAME alone: its value here, " +
      "stored as ${NAME}); repeatable",
  },
  cwd: { type: "string", value: "DIR", help: "the working folder of --server's command" },
  http: {
    type: "string",
    multiple: true,
    value: "NAME=URL",
    help: "an HTTP server (Streamable HTTP, else the legacy HTTP+SSE transport); init takes " +
      "several",
  },
  sse: {
    type: "string",
    multiple: true,
    value: "NAME=URL",
    help: "an HTTP server reached with the legacy HTTP+SSE transport (2024-11-05); init " +
      "takes several",
  },
  header: {
    type: "string",
    multiple: true,
    value: "'NAME: VALUE'",
    help: "an HTTP header for the --http/--sse before it (before the first one: for every " +
      "HTTP server); never written to the lock; repeatable",
  },
  file: {
    type: "string",
    multiple: true,
    value: "NAME=PATH",
    help: "a saved tools/list result (a file dump) as server NAME; init takes several",
  },
  "client-capabilities": {
    type: "string",
    value: "NAMES",
    help: "announce these client capabilities (roots,sampling,elicitation) to the servers " +
      "of this command line; recorded in the lock",
  },
} as const satisfies FlagTable;

/** The servers of a command line (CONTRACT_SERVER_FLAGS), in order, with their headers. */
export interface CommandLineServers {
  /** The servers, in the order given (`--server` last). */
  readonly targets: ServerTarget[];
  /** `--header`s given before the first `--http`/`--sse`: for every HTTP server. */
  readonly globalHeaders: HeaderTemplate[];
  /** The `--header`s of each HTTP server, by name. */
  readonly perServer: Map<string, HeaderTemplate[]>;
  /** `--client-capabilities`, sorted; undefined when not given. */
  readonly capabilities?: string[];
}

/** `NAME=VALUE` of `--<flag>`, split at the first `=`. */
function splitNameValue(cmd: string, flag: string, text: string): [string, string] {
  const eq = text.indexOf("=");
  if (eq <= 0 || eq === text.length - 1) {
    throw new UsageError(`${cmd}: --${flag} expects NAME=${flag === "file" ? "PATH" : "URL"}`);
  }
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** A server name of the lock: a letter or digit, then letters, digits, `._@-`. */
function checkServerName(cmd: string, name: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]*$/.test(name)) {
    throw new UsageError(
      `${cmd}: server name ${JSON.stringify(name)} must start with a letter or digit and use ` +
        `only letters, digits, ".", "_", "@" and "-"`,
    );
  }
}

/** `roots,sampling,elicitation` → sorted names; undefined when not given. */
function parseClientCapabilities(cmd: string, text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(",").map((n) => n.trim()).filter((n) => n !== "");
  if (names.length === 0) {
    throw new UsageError(`${cmd}: --client-capabilities expects names, e.g. roots,sampling`);
  }
  try {
    return normalizeClientCapabilities(names);
  } catch (e) {
    throw new UsageError(`${cmd}: --client-capabilities: ${(e as Error).message}`);
  }
}

/** The parse of a table that includes CONTRACT_SERVER_FLAGS, as parseWithTokens returns it. */
interface ServerFlagParse {
  readonly values: {
    server?: string;
    env?: string[];
    cwd?: string;
    "client-capabilities"?: string;
  };
  readonly tokens?: readonly { kind: string; name?: string; value?: string }[];
}

/**
 * The servers of a command line (CONTRACT_SERVER_FLAGS): `--http`/`--sse` in order, a
 * `--header` for the one before it (or every HTTP server when before the first), and
 * `--file NAME=PATH` dumps in their place, and `--server NAME` with `command` (the words after
 * `--`). `relative` rewrites a `--cwd` and a `--file` path (relative to the lock's folder for
 * init; as given for dump).
 */
export function commandLineServers(
  cmd: string,
  parsed: ServerFlagParse,
  command: string[] | undefined,
  relative: (path: string) => string = (p) => p,
): CommandLineServers {
  const { values } = parsed;
  const targets: ServerTarget[] = [];
  const globalHeaders: HeaderTemplate[] = [];
  const perServer = new Map<string, HeaderTemplate[]>();
  let lastHttp: string | undefined;
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== "option") continue;
    if (token.name === "http" || token.name === "sse") {
      // --sse: the legacy HTTP+SSE transport (2024-11-05); the lock records transport "http"
      // (contractpin §5 knows no other) and verify detects the legacy transport again.
      const [name, url] = splitNameValue(cmd, token.name, token.value!);
      checkServerName(cmd, name);
      targets.push({
        name,
        identity: { transport: "http", url },
        ...(token.name === "sse" ? { httpTransport: "sse" as const } : {}),
      });
      perServer.set(name, []);
      lastHttp = name;
    } else if (token.name === "header") {
      const header = parseHeader(token.value!);
      if (lastHttp === undefined) globalHeaders.push(header);
      else perServer.get(lastHttp)!.push(header);
    } else if (token.name === "file") {
      const [name, path] = splitNameValue(cmd, "file", token.value!);
      checkServerName(cmd, name);
      targets.push({ name, identity: { transport: "file", path: relative(path) } });
    }
  }
  if (values.server !== undefined) {
    checkServerName(cmd, values.server);
    if (!command || command.length === 0 || command[0] === "") {
      throw new UsageError(`${cmd}: --server ${values.server} needs the command after --`);
    }
    const env: Record<string, string> = {};
    for (const e of values.env ?? []) {
      const eq = e.indexOf("=");
      const name = eq < 0 ? e : e.slice(0, eq);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
        throw new UsageError(
          `${cmd}: --env expects NAME=VALUE or NAME (got ${JSON.stringify(name)})`,
        );
      }
      // --env NAME passes the variable through: the lock stores the reference ${NAME}.
      env[name] = eq < 0 ? `\${${name}}` : e.slice(eq + 1);
    }
    const identity: ServerTarget["identity"] = { transport: "stdio", command };
    if (Object.keys(env).length) identity.env = env;
    if (values.cwd !== undefined) identity.cwd = relative(values.cwd);
    targets.push({ name: values.server, identity });
  } else if (command !== undefined) {
    throw new UsageError(`${cmd}: a command after -- needs --server NAME`);
  } else if (values.env?.length || values.cwd !== undefined) {
    throw new UsageError(`${cmd}: --env and --cwd apply to --server NAME -- CMD`);
  }
  const capabilities = parseClientCapabilities(cmd, values["client-capabilities"]);
  return { targets, globalHeaders, perServer, ...(capabilities ? { capabilities } : {}) };
}

/**
 * Strict parseArgs of a flag table with tokens (so a `--header` belongs to the `--http`
 * before it); deprecated spellings are rewritten first, each with a note on stderr, and
 * errors become usage errors naming the subcommand.
 */
export function parseWithTokens<T extends FlagTable>(
  command: string,
  args: string[],
  table: T,
): ReturnType<
  typeof parseArgs<
    { args: string[]; options: T; allowPositionals: true; strict: true; tokens: true }
  >
> {
  const rewritten = rewriteDeprecatedFlags(command, args, table);
  for (const note of rewritten.notes) notice(`note: ${note}\n`);
  const spec = parseOptions(table); // with -f for --force, -k for --key (lib/cli/flags.ts)
  try {
    return parseArgs({
      args: rewritten.args,
      options: spec as T,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (e) {
    throw new UsageError(parseArgsErrorMessage(command, rewritten.args, spec, e));
  }
}

function positive(command: string, flag: string, value: string | undefined, integer: boolean) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(
      `${command}: --${flag} must be a positive ${integer ? "integer" : "number"} (got ${value})`,
    );
  }
  return n;
}

/**
 * Reads the limit options into {@linkcode RunOptions} (seconds on the command line,
 * milliseconds inside).
 */
export function limitsFrom(
  command: string,
  values: Partial<Record<keyof typeof MCP_LIMIT_FLAGS, string | undefined>>,
): RunOptions {
  const startup = positive(command, "startup-timeout", values["startup-timeout"], false);
  const timeout = positive(command, "timeout", values.timeout, false);
  return {
    startupTimeoutMs: startup === undefined ? DEFAULT_STARTUP_TIMEOUT_MS : startup * 1000,
    requestTimeoutMs: timeout === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : timeout * 1000,
    maxPages: positive(command, "max-pages", values["max-pages"], true) ?? DEFAULT_MAX_PAGES,
    concurrency: positive(command, "concurrency", values.concurrency, true) ?? DEFAULT_CONCURRENCY,
    clientVersion: VERSION,
  };
}

/** The help's option list of the limits. */
export const LIMITS_HELP = optionList(MCP_LIMIT_FLAGS);

/** Reads and validates a lock file (missing or corrupt: exit 2). */
export async function readLock(path: string, io: CliIO): Promise<ContractLock> {
  return parseLock(await readInput(path, io), path);
}

/**
 * How the variables of the client config at `path` resolve: `${workspaceFolder}` is the folder
 * holding its `.vscode/` or `.cursor/` (or `.mcp.json`), else `project`; `${userHome}` is the
 * home folder; Claude Code's per-project servers are those of `project`.
 */
export function configContextFor(path: string, project = "."): ConfigContext {
  const dir = dirname(resolve(path));
  const projectDir = [".vscode", ".cursor"].includes(basename(dir))
    ? dirname(dir)
    : basename(path) === ".mcp.json"
    ? dir
    : resolve(project);
  const windows = Deno.build.os === "windows";
  const home = Deno.env.get(windows ? "USERPROFILE" : "HOME");
  return { projectDir, ...(home ? { home } : {}), separator: windows ? "\\" : "/" };
}

/** Reads an MCP client config; relative `cwd` values are resolved against its folder. */
export async function readConfig(path: string, io: CliIO): Promise<Map<string, ServerTarget>> {
  const targets = parseMcpConfig(await readInput(path, io), path, configContextFor(path));
  const dir = dirname(resolve(path));
  for (const [name, t] of targets) {
    if (t.identity.transport === "stdio" && t.identity.cwd !== undefined) {
      const cwd = t.identity.cwd;
      if (!isAbsolute(cwd) && !cwd.includes("${")) {
        targets.set(name, { ...t, identity: { ...t.identity, cwd: resolve(dir, cwd) } });
      }
    }
  }
  return targets;
}

/**
 * Reads a snapshot. An explicit `--snapshot` must exist and parse; the default one is
 * optional, and an unreadable default produces a warning (never a silent fallback).
 */
export async function readSnapshot(
  path: string,
  explicit: boolean,
  io: CliIO,
): Promise<ContractSnapshot | undefined> {
  if (!explicit && !(await exists(path))) return undefined;
  try {
    return parseSnapshot(await readInput(path, io), path);
  } catch (e) {
    if (explicit) throw e;
    const message = e instanceof SchemaPinError ? e.message : String(e);
    await io.stderr(`warning: snapshot ignored, diffs unavailable: ${message}\n`);
    return undefined;
  }
}

/**
 * A path as stored in the lock: relative to the lock's folder (so the lock works from any
 * working directory), absolute paths and `${VAR}` templates kept as given.
 */
export function lockRelative(path: string, lockPath: string, from = "."): string {
  if (isAbsolute(path) || path.includes("${")) return path;
  return relative(dirname(resolve(lockPath)), resolve(from, path)) || ".";
}

/** Prints secret warnings (never the secret) to stderr. */
export async function printWarnings(
  io: CliIO,
  server: string,
  warnings: readonly SecretWarning[],
): Promise<void> {
  for (const w of warnings) await io.stderr(`warning: server ${server}: ${w.message}\n`);
}
