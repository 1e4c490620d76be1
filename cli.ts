/**
 * The `schemapin` command-line entry point (`deno task schemapin`, a `deno install -g` shim, or
 * the compiled binary).
 *
 * @example
 * ```sh
 * deno task schemapin keygen --out-dir ./keys
 * ```
 * @module
 */
import { handlesSignalsItself, runInterruptible } from "./cli/commands/interrupt.ts";
import { processIO, runCli } from "./cli/commands/main.ts";

/**
 * `isAbsolute` of `node:path` for this platform (the same test, written out: importing
 * `node:path` costs every command ~10 ms of start-up under Deno, issue 14): `/…` on POSIX;
 * on Windows `\…`, `/…` or a drive letter, a colon and a separator (`C:\…`, `c:/…`).
 */
function isAbsolute(path: string): boolean {
  const windows = Deno.build.os === "windows";
  const separator = (c: string | undefined) => c === "/" || (windows && c === "\\");
  if (separator(path[0])) return true;
  return windows && /^[A-Za-z]:$/.test(path.slice(0, 2)) && separator(path[2]);
}

/** What {@linkcode callerFolder} decides from. */
export interface CallerFolderInput {
  /** `INIT_CWD` of the environment (undefined or "" when unset). */
  readonly initCwd: string | undefined;
  /** The process's folder, as a real path. */
  readonly cwd: string;
  /** The checkout's folder (the one holding cli.ts and deno.json), as a real path. */
  readonly checkout: string;
  /** True in the compiled binary (`Deno.build.standalone`). */
  readonly standalone: boolean;
}

/**
 * The folder to move to before running a command, so that `deno task schemapin …` takes
 * relative paths from the caller's folder; undefined to stay.
 *
 * deno task runs a task in the folder of its deno.json (the checkout), wherever it was started
 * (`deno task --config ~/schemapin/deno.json schemapin …`, or from a folder below the checkout),
 * and records that folder in `INIT_CWD` (unless `INIT_CWD` is already set: npm's convention).
 * The entry point moves back there only when the process starts in the checkout's own folder —
 * where deno task puts it — and `INIT_CWD` is another absolute path; never in the compiled
 * binary. A `deno install -g` shim, a guard entry or a plain `deno run` started elsewhere keeps
 * its folder even when it inherited an `INIT_CWD`.
 *
 * @example
 * ```ts ignore
 * callerFolder({ initCwd: "/home/me/proj", cwd: "/src/sp", checkout: "/src/sp", standalone: false });
 * // → "/home/me/proj"
 * ```
 */
export function callerFolder(input: CallerFolderInput): string | undefined {
  const { initCwd, cwd, checkout, standalone } = input;
  if (standalone || !initCwd || !isAbsolute(initCwd)) return undefined;
  if (cwd !== checkout || initCwd === cwd) return undefined;
  return initCwd;
}

/**
 * Moves the process to {@linkcode callerFolder}. Returns an error message (exit 2) when
 * `INIT_CWD` names a folder that cannot be entered, so a relative path is never silently read
 * from the checkout instead.
 */
function enterCallerFolder(): string | undefined {
  const initCwd = Deno.env.get("INIT_CWD");
  const checkoutUrl = new URL("./", import.meta.url);
  if (!initCwd || Deno.build.standalone || checkoutUrl.protocol !== "file:") return undefined;
  let cwd: string;
  let checkout: string;
  try {
    cwd = Deno.realPathSync(Deno.cwd());
    checkout = Deno.realPathSync(checkoutUrl);
  } catch {
    return undefined; // nothing to compare with: stay
  }
  const target = callerFolder({ initCwd, cwd, checkout, standalone: false });
  if (target === undefined) return undefined;
  try {
    Deno.chdir(target);
    return undefined;
  } catch (e) {
    return `error: IO_FAILED: cannot enter INIT_CWD=${target} (the folder deno task was ` +
      `started in, where relative paths are resolved): ${e instanceof Error ? e.message : e}`;
  }
}

if (import.meta.main) {
  const problem = enterCallerFolder();
  if (problem) {
    console.error(problem);
    Deno.exit(2);
  }
  const run = () => runCli(Deno.args, processIO());
  // Ctrl-C/SIGTERM: temporary files removed, progress line erased, exit 130/143.
  Deno.exit(handlesSignalsItself(Deno.args) ? await run() : await runInterruptible(run));
}
