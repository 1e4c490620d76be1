/**
 * The CLI dispatcher: global flags, command lookup, and the single place where errors become
 * messages and exit codes.
 *
 * @module
 */
import { VERSION } from "../../lib/version.ts";
import {
  type CliIO,
  type Command,
  describeError,
  EXIT_OK,
  EXIT_USAGE,
  setNoticeSink,
  type SubcommandFlags,
  UsageError,
} from "./command.ts";
import { type FlagTable, offeredFlags } from "../args/flags.ts";
import { COMMAND_ENTRIES, COMMAND_GROUPS, type CommandGroup } from "./registry.ts";
import { didYouMean } from "../args/suggest.ts";

/** Flags every command that has them takes, accepted before the command too. */
const GLOBAL_FLAGS: ReadonlySet<string> = new Set(["-q", "--quiet", "--json"]);

/** Task headings of the top-level help. */
const GROUP_TITLES: Readonly<Record<CommandGroup, string>> = {
  publish: "Publish (sign schemas, skills and tools; keys, discovery, revocation, DNS):",
  verify: "Verify (as a client):",
  "MCP contracts": "MCP contracts (lock, verify, approve; guard a live server):",
  "trust store": "Trust store (pins, trust bundles):",
  serve: "Serve (.well-known over HTTPS):",
  tools: "Tools:",
};

function topLevelHelp(): string {
  const width = Math.max(...COMMAND_ENTRIES.map((c) => c.name.length));
  const groups = COMMAND_GROUPS.flatMap((group) => [
    "",
    GROUP_TITLES[group],
    ...COMMAND_ENTRIES.filter((c) => c.group === group).map((c) =>
      `  ${c.name.padEnd(width)}  ${c.summary}`
    ),
  ]);
  return [
    `schemapin ${VERSION} — sign and verify MCP tool schemas, skill folders and contract locks`,
    "",
    "Usage: schemapin [-q|--json] <command> [options]",
    ...groups,
    "",
    "Global options:",
    "  -h, --help          show help (also: schemapin <command> --help)",
    "  -V, -v, --version   print the version (also: schemapin version)",
    "  -q, --quiet         (before or after the command) only failures and warnings",
    "  --json              (before or after the command) the result as JSON",
    "",
    "Exit codes: 0 success/verified, 1 verification failed, 2 bad arguments or input;",
    "130/143 stopped by Ctrl-C/SIGTERM (temporary files removed, progress line erased).",
    "Flags: docs/cli-vocabulary.md. Example:",
    "  schemapin keygen --out-dir ./keys",
    "",
  ].join("\n");
}

/** The global flags given before the command, and the arguments from the command on. */
function splitGlobalFlags(args: string[]): { globals: string[]; args: string[] } {
  let i = 0;
  while (i < args.length && GLOBAL_FLAGS.has(args[i])) i++;
  return { globals: args.slice(0, i), args: args.slice(i) };
}

/**
 * The command's arguments with the global flags given before the command added: `schemapin
 * -q fingerprint k.pem` runs as `schemapin fingerprint k.pem`, and `schemapin --json pins
 * list` as `schemapin pins list --json`. They go before a bare `--` (what follows it is
 * another program's command line). `-q` is dropped for a command that prints nothing more
 * than its result anyway (it has no --quiet); `--json` always goes through, so a command
 * without JSON output says so.
 */
function withGlobalFlags(command: Command, rest: string[], globals: string[]): string[] {
  if (globals.length === 0) return rest;
  const tables = command.flags;
  const offered = new Set(
    Array.isArray(tables)
      ? (tables as readonly SubcommandFlags[]).flatMap((t) => offeredFlags(t.flags))
      : offeredFlags(tables as FlagTable),
  );
  const kept = globals.filter((f) => f === "--json" || offered.has(f));
  const end = rest.indexOf("--");
  return end < 0 ? [...rest, ...kept] : [...rest.slice(0, end), ...kept, ...rest.slice(end)];
}

/**
 * Under --json an error is also the result on stdout (ARCHITECTURE.md, "How a command is built"). The JSON
 * helpers load only on this path: a normal start loads the dispatcher, not them.
 */
async function printJsonError(
  args: string[],
  code: string | undefined,
  error: unknown,
  io: CliIO,
): Promise<void> {
  const { errorCodeOf, jsonError, plainMessage, wantsJson } = await import("./json_output.ts");
  if (!wantsJson(args)) return;
  await io.stdout(jsonError(code ?? errorCodeOf(error), plainMessage(error)));
}

/**
 * Runs the CLI with `args` and returns the exit code. Never throws: every error becomes a
 * message on stderr and exit code 1 or 2.
 *
 * @example
 * ```ts ignore
 * const code = await runCli(["--version"], io);
 * ```
 */
export async function runCli(given: string[], io: CliIO): Promise<number> {
  const { globals, args } = splitGlobalFlags(given);
  try {
    const [first, ...afterCommand] = args;
    if (globals.length > 0 && (first === undefined || first.startsWith("-"))) {
      const flags = globals.join(" ");
      throw new UsageError(`${flags} goes with a command: schemapin ${flags} <command> …`);
    }
    if (first === undefined || first === "-h" || first === "--help" || first === "help") {
      if (first === "help" && afterCommand.length > 0) {
        return await runCli([afterCommand[0], "--help"], io);
      }
      await io.stdout(topLevelHelp());
      return first === undefined ? EXIT_USAGE : EXIT_OK;
    }
    if (first === "-V" || first === "-v" || first === "--version" || first === "version") {
      const compiled = Deno.build.standalone ? " (compiled)" : "";
      await io.stdout(`schemapin ${VERSION}${compiled}\n`);
      return EXIT_OK;
    }
    const entry = COMMAND_ENTRIES.find((c) => c.name === first);
    if (!entry) {
      const hint = didYouMean(first, [
        ...COMMAND_ENTRIES.map((c) => c.name),
        ...["help", "version", "--help", "--version"],
      ]);
      const message = `unknown command "${first}"${hint}`;
      await printJsonError(given, "USAGE", message, io);
      await io.stderr(`error: ${message} (see schemapin --help)\n`);
      return EXIT_USAGE;
    }
    const command = await entry.load(); // only this command's modules (registry.ts)
    const rest = withGlobalFlags(command, afterCommand, globals);
    const own = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
    if (own.includes("--help") || own.includes("-h")) {
      await io.stdout(command.help.endsWith("\n") ? command.help : command.help + "\n");
      return EXIT_OK;
    }
    const previous = setNoticeSink((text) => void io.stderr(text).catch(() => {}));
    try {
      return await command.run(rest, io);
    } finally {
      setNoticeSink(previous);
    }
  } catch (e) {
    const { code, message } = describeError(e);
    await printJsonError(given, undefined, e, io);
    await io.stderr(message + "\n");
    if (Deno.env.get("SCHEMAPIN_DEBUG") && e instanceof Error) await io.stderr(`${e.stack}\n`);
    return code;
  }
}

/**
 * The `CliIO` of the real process: stdout/stderr/stdin of Deno.
 *
 * @example
 * ```ts ignore
 * Deno.exit(await runCli(Deno.args, processIO()));
 * ```
 */
export function processIO(): CliIO {
  const enc = new TextEncoder();
  const writeAll = async (w: { write(p: Uint8Array): Promise<number> }, data: Uint8Array) => {
    let n = 0;
    while (n < data.length) n += await w.write(data.subarray(n));
  };
  const stderrIsTerminal = Deno.stderr.isTerminal();
  const writeAllSync = (data: Uint8Array) => {
    let n = 0;
    while (n < data.length) n += Deno.stderr.writeSync(data.subarray(n));
  };
  return {
    stdout: (d) => writeAll(Deno.stdout, typeof d === "string" ? enc.encode(d) : d),
    stderr: (t) => writeAll(Deno.stderr, enc.encode(t)),
    readStdin: async () => new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer()),
    stderrIsTerminal,
    ...(stderrIsTerminal ? { progress: (t: string) => writeAllSync(enc.encode(t)) } : {}),
  };
}
