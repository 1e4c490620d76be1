/**
 * Helpers shared by the `schemapin contract` subcommands: strict option parsing (with token
 * order, so a `--header` belongs to the `--http` before it), the run-time limits, reading the
 * lock, snapshot and client config with errors that name the file.
 *
 * @module
 */
import { withShortFlags } from "./flags.ts";
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
import type { CliIO, OptionSpec } from "./command.ts";
import { UsageError } from "./command.ts";
import { exists, readInput } from "./io.ts";

/** Options every live subcommand accepts. */
export const LIMIT_OPTIONS = {
  "startup-timeout": { type: "string" },
  "timeout": { type: "string" },
  "max-pages": { type: "string" },
  "concurrency": { type: "string" },
} as const satisfies OptionSpec;

/** Strict parseArgs with tokens; errors become usage errors naming the subcommand. */
export function parseWithTokens<O extends OptionSpec>(
  command: string,
  args: string[],
  options: O,
): ReturnType<
  typeof parseArgs<
    { args: string[]; options: O; allowPositionals: true; strict: true; tokens: true }
  >
> {
  const spec = withShortFlags(options); // -f for --force (lib/cli/flags.ts)
  try {
    return parseArgs({ args, options: spec, allowPositionals: true, strict: true, tokens: true });
  } catch (e) {
    throw new UsageError(parseArgsErrorMessage(command, args, spec, e));
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
  values: Partial<Record<keyof typeof LIMIT_OPTIONS, string | undefined>>,
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

/** Help text for the limit options. */
export const LIMITS_HELP = [
  `  --startup-timeout S  seconds for a server to start and answer initialize (default ${
    DEFAULT_STARTUP_TIMEOUT_MS / 1000
  })`,
  `  --timeout S          seconds for each later request (default ${
    DEFAULT_REQUEST_TIMEOUT_MS / 1000
  })`,
  `  --max-pages N        most tools/list pages to follow (default ${DEFAULT_MAX_PAGES})`,
  `  --concurrency N      servers contacted at once (default ${DEFAULT_CONCURRENCY})`,
].join("\n");

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
