/**
 * Helpers shared by the `schemapin contract` subcommands: strict option parsing (with token
 * order, so a `--header` belongs to the `--http` before it), the run-time limits, and the
 * CLI's side of the library's inputs — the files (cli/commands/io.ts) the contract operations read
 * and write, the machine the client configs are read on — and the library's usage errors as
 * the CLI's.
 *
 * @module
 */
import { messageInCliWords } from "../library_words.ts";
import { booleanFlag, type FlagTable, listFlag, optionList, valueFlag } from "../args/flags.ts";
import type { SkillRunOptions } from "../../lib/contractpin/skills_live.ts";
import { skillRunOptions, type SkillRunText } from "../contractpin/skill_run_options.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";
import {
  type CommandLineServers,
  type ServerOption,
  serversFromSpecs,
} from "../contractpin/server_specs.ts";
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from "../../lib/mcp/session.ts";
import { DEFAULT_CONCURRENCY, type RunOptions } from "../../lib/contractpin/run.ts";
import { runLimits } from "../contractpin/run_limits.ts";
import {
  type ArgToken,
  asUsage,
  type CliIO,
  parseCommandArgs,
  type ParsedArgs,
  UsageError,
} from "./command.ts";
import { exists, readInput, writeFileAtomic } from "./io.ts";

/**
 * The MCP timeouts (`--startup-timeout`, `--timeout`): seconds for a server to start, and for
 * each MCP request after that. Also taken by `sign-tools`. Not the network deadlines of the
 * verify commands' `--timeout` (cli/commands/flag_groups.ts, NETWORK_TIMEOUT_FLAGS).
 */
export const MCP_TIMEOUT_FLAGS = {
  "startup-timeout": valueFlag(
    "SECONDS",
    "seconds for a server to start and answer initialize (default " +
      `${DEFAULT_STARTUP_TIMEOUT_MS / 1000})`,
  ),
  timeout: valueFlag(
    "SECONDS",
    `seconds for each MCP request after initialize (default ${DEFAULT_REQUEST_TIMEOUT_MS / 1000})`,
  ),
} as const satisfies FlagTable;

/** The limits every live `contract` subcommand (init, verify, approve) accepts. */
export const MCP_LIMIT_FLAGS = {
  ...MCP_TIMEOUT_FLAGS,
  "max-pages": valueFlag("N", `most tools/list pages to follow (default ${DEFAULT_MAX_PAGES})`),
  concurrency: valueFlag("N", `servers contacted at once (default ${DEFAULT_CONCURRENCY})`),
} as const satisfies FlagTable;

/**
 * The caps of the skills served over MCP (docs/contractpin-skills.md) that every live
 * `contract` subcommand fetches: SEP-2640's 512 files and 16 MiB per skill, and a total per
 * server.
 */
export const SKILL_CAP_FLAGS = {
  "max-skill-files": valueFlag("N", "most files of one skill served over MCP (default 512)"),
  "max-skill-bytes": valueFlag(
    "SIZE",
    "most bytes of one skill served over MCP (default 16M; K, M, G suffixes)",
  ),
  "max-server-skill-bytes": valueFlag(
    "SIZE",
    "most bytes of all the skills of one server (default 256M; K, M, G suffixes)",
  ),
} as const satisfies FlagTable;

/** `--allow-dynamic-skills` of `contract init` and `contract approve`. */
export const DYNAMIC_SKILL_FLAGS = {
  "allow-dynamic-skills": booleanFlag(
    "pin a skill served without resources (a dynamic skill) by its frontmatter only, " +
      "instead of refusing it",
  ),
} as const satisfies FlagTable;

/**
 * The skill options of a command line (SKILL_CAP_FLAGS, DYNAMIC_SKILL_FLAGS) as the library's
 * `SkillRunOptions`; a usage error of `command` for a value that is not a count or size.
 */
export function skillOptionsFrom(
  command: string,
  values: SkillRunText,
): SkillRunOptions {
  return asUsage(command, () => skillRunOptions(values));
}

/**
 * The servers given on the command line of `contract init` and `contract dump`: a stdio
 * command (`--server NAME -- CMD…`, with `--env`, `--cwd`), HTTP servers (`--http`, `--sse`,
 * each with the `--header`s after it) and the client capabilities to announce.
 */
export const CONTRACT_SERVER_FLAGS = {
  server: valueFlag("NAME", "the stdio server whose command follows --, under NAME"),
  env: listFlag(
    "NAME[=VALUE]",
    "an environment variable of --server's command (NAME alone: its value here, " +
      "stored as ${NAME}); repeatable",
  ),
  cwd: valueFlag("DIR", "the working folder of --server's command"),
  http: listFlag(
    "NAME=URL",
    "an HTTP server (Streamable HTTP, else the legacy HTTP+SSE transport); init takes " +
      "several",
  ),
  sse: listFlag(
    "NAME=URL",
    "an HTTP server reached with the legacy HTTP+SSE transport (2024-11-05); init " +
      "takes several",
  ),
  header: listFlag(
    "'NAME: VALUE'",
    "an HTTP header for the --http/--sse before it (before the first one: for every " +
      "HTTP server); never written to the lock; repeatable",
  ),
  file: listFlag(
    "NAME=PATH",
    "a saved tools/list result (a file dump) as server NAME; init takes several",
  ),
  "client-capabilities": valueFlag(
    "NAMES",
    "announce these client capabilities (roots,sampling,elicitation) to the servers " +
      "of this command line; recorded in the lock",
  ),
} as const satisfies FlagTable;

/** The parse of a table that includes CONTRACT_SERVER_FLAGS, as parseCommandArgs returns it. */
interface ServerFlagParse {
  readonly values: {
    server?: string;
    env?: string[];
    cwd?: string;
    "client-capabilities"?: string;
  };
  readonly tokens?: readonly ArgToken[];
}

const SERVER_OPTIONS: readonly string[] = ["http", "sse", "header", "file"];

/**
 * The servers of a command line (CONTRACT_SERVER_FLAGS, cli/contractpin/server_specs.ts): the
 * `--http`/`--sse`/`--header`/`--file` options in the order given, and `--server NAME` with
 * `command` (the words after `--`). `relative` rewrites a `--cwd` and a `--file` path
 * (relative to the lock's folder for init; as given for dump).
 */
export function commandLineServers(
  cmd: string,
  parsed: ServerFlagParse,
  command: string[] | undefined,
  relative: (path: string) => string = (p) => p,
): CommandLineServers {
  const { values } = parsed;
  const options: ServerOption[] = [];
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== "option" || !SERVER_OPTIONS.includes(token.name!)) continue;
    options.push({ option: token.name as ServerOption["option"], value: token.value! });
  }
  return asUsage(cmd, () =>
    serversFromSpecs({
      options,
      server: values.server,
      command,
      env: values.env,
      cwd: values.cwd,
      clientCapabilities: values["client-capabilities"],
    }, relative));
}

/**
 * `parseCommandArgs` (cli/commands/command.ts) for a `contract` subcommand that takes no positional argument (one
 * is a usage error); with `withCommand`, the words after `--` are the stdio server's command.
 */
export function parseContractArgs<T extends FlagTable>(
  command: string,
  args: string[],
  table: T,
  withCommand = false,
): ParsedArgs<T> & { command?: string[] } {
  const dash = withCommand ? args.indexOf("--") : -1;
  const parsed = parseCommandArgs(command, dash < 0 ? args : args.slice(0, dash), table);
  if (parsed.positionals.length) {
    throw new UsageError(
      `${command}: unexpected argument ${JSON.stringify(parsed.positionals[0])}`,
    );
  }
  return dash < 0 ? parsed : { ...parsed, command: args.slice(dash + 1) };
}

/**
 * Reads the limit options into {@linkcode RunOptions} (seconds on the command line,
 * milliseconds inside; cli/contractpin/run_limits.ts, `runLimits`); a value that is not a
 * positive number is a usage error of `command`.
 */
export function limitsFrom(
  command: string,
  values: Partial<Record<keyof typeof MCP_LIMIT_FLAGS, string | undefined>>,
): RunOptions {
  return asUsage(command, () => runLimits(values));
}

/**
 * The option list of `table` without the flags of `shared` (the limits and the signature
 * check are listed once, in their own sections of the help).
 */
export function ownOptions(table: FlagTable, ...shared: FlagTable[]): string {
  const own = Object.entries(table).filter(([name]) => !shared.some((g) => Object.hasOwn(g, name)));
  return optionList(Object.fromEntries(own));
}

/** The home folder and platform of this process, for the client configs' variables. */

/**
 * The files of the contract operations (lib/contractpin/files.ts) as the CLI has them: inputs
 * read with `readInput` (`-` is stdin), outputs replaced atomically.
 *
 * @example
 * ```ts ignore
 * const { report } = await verifyLockFile({ lockPath: "contractpin.lock" }, contractFiles(io));
 * ```
 */
export function contractFiles(io: CliIO): ContractFiles {
  return {
    read: (path) => readInput(path, io),
    exists,
    write: (path, text) => writeFileAtomic(path, text, { overwrite: true }),
  };
}

/** A server that failed, on stderr: `message`, then the last 15 lines of its stderr. */
export async function printServerFailure(
  io: CliIO,
  message: string,
  stderr: string | undefined,
): Promise<void> {
  await io.stderr(`error: ${messageInCliWords(message)}\n`); // a library hint in the CLI's words
  if (stderr) {
    const tail = stderr.trimEnd().split("\n").slice(-15);
    await io.stderr(tail.map((l) => `  | ${l}\n`).join(""));
  }
}
