/**
 * The CLI dispatcher: global flags, command lookup, and the single place where errors become
 * messages and exit codes.
 *
 * @module
 */
import { VERSION } from "../version.ts";
import { type CliIO, describeError, EXIT_OK, EXIT_USAGE, setNoticeSink } from "./command.ts";
import { COMMAND_ENTRIES } from "./registry.ts";
import { didYouMean } from "./suggest.ts";

function topLevelHelp(): string {
  const width = Math.max(...COMMAND_ENTRIES.map((c) => c.name.length));
  const lines = COMMAND_ENTRIES.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    `schemapin ${VERSION} — sign and verify MCP tool schemas, skill folders and contract locks`,
    "",
    "Usage: schemapin <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Global options:",
    "  -h, --help          show help (also: schemapin <command> --help)",
    "  -V, -v, --version   print the version (also: schemapin version)",
    "",
    "Exit codes: 0 success/verified, 1 verification failed, 2 bad arguments or input;",
    "130/143 stopped by Ctrl-C/SIGTERM (temporary files removed, progress line erased).",
    "Example:",
    "  schemapin keygen --out ./keys",
    "",
  ].join("\n");
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
export async function runCli(args: string[], io: CliIO): Promise<number> {
  try {
    const [first, ...rest] = args;
    if (first === undefined || first === "-h" || first === "--help" || first === "help") {
      if (first === "help" && rest.length > 0) return await runCli([rest[0], "--help"], io);
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
      await printJsonError(rest, "USAGE", message, io);
      await io.stderr(`error: ${message} (see schemapin --help)\n`);
      return EXIT_USAGE;
    }
    const command = await entry.load(); // only this command's modules (registry.ts)
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
    // Under --json the error is also the result on stdout (ARCHITECTURE.md, "How a command is built").
    await printJsonError(args, undefined, e, io);
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
