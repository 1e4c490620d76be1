/**
 * Ctrl-C and SIGTERM while a command runs: the progress line is erased, the temporary files
 * of writes under way are removed (lib/runtime/temp_files.ts), and the process exits 130
 * (SIGINT) or 143 (SIGTERM), as a shell reports a command stopped by that signal. Destination
 * files are complete or untouched: they are only ever put in place by a rename after an fsync.
 *
 * The same cleanup runs at any exit while the command runs (a component that exits on its own
 * signal handler, such as a stdio MCP client taking its server down), and the listeners are
 * removed when the command returns. `guard` (not wrap/unwrap) and `serve` stop gracefully on
 * their own signal handlers and are run without these.
 *
 * @module
 */
import { removeTrackedTempFiles, runStopActions } from "../../lib/runtime/temp_files.ts";

/** The exit code after each signal handled here: 128 + the signal number. */
export const SIGNAL_EXIT_CODES: Readonly<Record<"SIGINT" | "SIGTERM", number>> = {
  SIGINT: 130,
  SIGTERM: 143,
};

/**
 * True for the command lines that handle SIGINT/SIGTERM themselves (a graceful stop):
 * `guard` other than `guard wrap`/`guard unwrap`, and `serve`.
 *
 * @example
 * ```ts
 * import { handlesSignalsItself } from "./interrupt.ts";
 * handlesSignalsItself(["guard", "--", "server"]); // true
 * handlesSignalsItself(["guard", "wrap", "mcp.json"]); // false
 * handlesSignalsItself(["sign-schema", "--batch", "schemas"]); // false
 * ```
 */
export function handlesSignalsItself(args: readonly string[]): boolean {
  if (args[0] === "serve") return true;
  return args[0] === "guard" && args[1] !== "wrap" && args[1] !== "unwrap";
}

/**
 * Erases the progress line and removes the temporary files of writes under way; returns the
 * paths removed. Synchronous and never throws (it runs in signal handlers and at exit).
 *
 * @example
 * ```ts ignore
 * cleanUpInterrupted();
 * ```
 */
export function cleanUpInterrupted(): string[] {
  runStopActions(); // the progress line's eraser
  return removeTrackedTempFiles();
}

/**
 * Runs `run` (a command) with SIGINT/SIGTERM listeners that clean up (see the module
 * documentation) and exit 130/143, and an exit hook that cleans up at any other exit; all
 * removed when `run` settles. The exit is deferred by one turn of the event loop, so that
 * another listener of the same signal (a stdio MCP client killing its server) runs first;
 * if `run` returns in that turn, its result is replaced by the signal's exit code.
 *
 * @example
 * ```ts ignore
 * Deno.exit(await runInterruptible(() => runCli(Deno.args, processIO())));
 * ```
 */
export async function runInterruptible(run: () => Promise<number>): Promise<number> {
  const signals: ("SIGINT" | "SIGTERM")[] = Deno.build.os === "windows"
    ? ["SIGINT"]
    : ["SIGINT", "SIGTERM"];
  let stoppedWith: number | undefined;
  const handlers = signals.map((signal) => {
    const handler = () => {
      cleanUpInterrupted();
      if (stoppedWith !== undefined) return;
      const code = SIGNAL_EXIT_CODES[signal];
      stoppedWith = code;
      setTimeout(() => Deno.exit(code), 0);
    };
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  const atExit = () => void cleanUpInterrupted();
  globalThis.addEventListener("unload", atExit);
  try {
    const code = await run();
    return stoppedWith ?? code;
  } catch (e) {
    if (stoppedWith !== undefined) return stoppedWith;
    throw e;
  } finally {
    for (const [signal, handler] of handlers) Deno.removeSignalListener(signal, handler);
    globalThis.removeEventListener("unload", atExit);
    // A signal arrived while the command was finishing: what it started since is removed too.
    if (stoppedWith !== undefined) cleanUpInterrupted();
  }
}
