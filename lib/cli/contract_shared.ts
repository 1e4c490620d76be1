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
import { type ContractLock, parseLock } from "../contractpin/lock.ts";
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
