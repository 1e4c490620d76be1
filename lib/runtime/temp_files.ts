/**
 * The one list of temporary files that are being written right now: every atomic write
 * (temporary file next to the destination, fsync, rename — the CLI's outputs, batch
 * signatures, the pin and authority stores) records its temporary file here from before it
 * is created until it was renamed or removed. When the process is stopped in between
 * (Ctrl-C, SIGTERM, an exit from elsewhere), {@linkcode removeTrackedTempFiles} deletes what
 * is left, so no `*.tmp-*` file outlives the command; the destination files are complete or
 * untouched either way (a rename is atomic). The CLI calls it from its signal handlers and
 * at exit (cli/commands/interrupt.ts); the library only records. {@linkcode onStop} registers other
 * synchronous clean-ups for that moment (erasing the progress line).
 *
 * @module
 */

import type * as NodeFs from "node:fs";
import { nodeBuiltin } from "./builtin.ts";

// `Deno.removeSync` on Deno, `node:fs` `unlinkSync` elsewhere. node:fs is imported only outside
// Deno: under Deno it starts the Node compatibility layer, ~40 ms added to every command's
// start-up (issue 14), and this module loads with every command — so it does not import
// ./fs.ts either, which would add a module to every start (tests/cli/registry_test.ts).
const deno: typeof Deno | undefined = (globalThis as { Deno?: typeof Deno }).Deno;
const removeFileSync: (path: string) => void =
  deno !== undefined && typeof deno.removeSync === "function"
    ? (path) => deno.removeSync(path)
    : (path) => nodeBuiltin<typeof NodeFs>("node:fs").unlinkSync(path);

const live = new Set<string>();
const stopActions = new Set<() => void>();

/**
 * Registers `action` to run, synchronously, when the process is stopped before it is
 * unregistered (the progress line registers its eraser while it is on the terminal). Returns
 * the function that unregisters it.
 *
 * @example
 * ```ts
 * import { onStop } from "./temp_files.ts";
 * const done = onStop(() => console.error("stopped"));
 * done();
 * ```
 */
export function onStop(action: () => void): () => void {
  stopActions.add(action);
  return () => void stopActions.delete(action);
}

/**
 * Runs (and unregisters) every action registered with {@linkcode onStop}; an action that
 * throws is skipped.
 *
 * @example
 * ```ts ignore
 * runStopActions();
 * ```
 */
export function runStopActions(): void {
  for (const action of [...stopActions]) {
    stopActions.delete(action);
    try {
      action();
    } catch {
      // a stop action must not keep the others from running
    }
  }
}

/**
 * Records `path` as a temporary file being written (call it before creating the file).
 *
 * @example
 * ```ts
 * import { trackTempFile, untrackTempFile } from "./temp_files.ts";
 * trackTempFile("out/.a.sig.tmp-1-…");
 * // … create, write, fsync, rename …
 * untrackTempFile("out/.a.sig.tmp-1-…");
 * ```
 */
export function trackTempFile(path: string): void {
  live.add(path);
}

/**
 * Forgets `path`: it was renamed into place or removed.
 *
 * @example
 * ```ts
 * import { untrackTempFile } from "./temp_files.ts";
 * untrackTempFile("out/.a.sig.tmp-1-…");
 * ```
 */
export function untrackTempFile(path: string): void {
  live.delete(path);
}

/**
 * The temporary files being written now, oldest first.
 *
 * @example
 * ```ts
 * import { trackedTempFiles } from "./temp_files.ts";
 * trackedTempFiles().length; // 0 when no write is under way
 * ```
 */
export function trackedTempFiles(): string[] {
  return [...live];
}

/**
 * Removes every temporary file being written (synchronously: it runs in signal handlers and
 * at exit) and forgets them. A file already gone (renamed, never created) is skipped; nothing
 * here throws. Returns the paths removed.
 *
 * @example
 * ```ts ignore
 * import { removeTrackedTempFiles } from "./temp_files.ts";
 * Deno.addSignalListener("SIGINT", () => {
 *   removeTrackedTempFiles();
 *   Deno.exit(130);
 * });
 * ```
 */
export function removeTrackedTempFiles(): string[] {
  const removed: string[] = [];
  for (const path of live) {
    try {
      removeFileSync(path);
      removed.push(path);
    } catch {
      // renamed into place, never created, or not removable: nothing to do
    }
  }
  live.clear();
  return removed;
}
