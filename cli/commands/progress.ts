/**
 * The progress line of long commands (batches, skill walks and hashing): one line on stderr,
 * redrawn in place, only when stderr is a terminal and `--quiet` was not given — never in a
 * pipe, a file or a test's captured output. A counter per item, drawn at most every
 * {@linkcode PROGRESS_REDRAW_MS} and only once the command has run for
 * {@linkcode PROGRESS_DELAY_MS} (a fast command never flickers). Drawing is synchronous, so a
 * synchronous loop (the skill walk) can report too.
 *
 * @module
 */
import { onStop } from "../../lib/runtime/temp_files.ts";
import type { CliIO } from "./command.ts";
import type { SkillHashProgress } from "../../lib/skill/hash.ts";

/** How long a command runs before its progress line appears, in milliseconds. */
export const PROGRESS_DELAY_MS = 250;
/** The shortest time between two redraws, in milliseconds. */
export const PROGRESS_REDRAW_MS = 100;

/** A progress line (see the module documentation); every method is cheap when nothing is shown. */
export interface Progress {
  /** Whether anything can be drawn (stderr is a terminal, not quiet). */
  readonly active: boolean;
  /** Sets the text; drawn now if the delay and the redraw interval allow. */
  update(text: string | (() => string)): void;
  /** Erases the line (before other output); the next `update` draws it again. */
  clear(): void;
}

const INACTIVE: Progress = { active: false, update() {}, clear() {} };

/**
 * The progress line of a command: active when `io.progress` exists (a terminal) and not
 * `quiet`.
 *
 * @example
 * ```ts ignore
 * const progress = progressLine(io, values.quiet === true);
 * for (let i = 0; i < files.length; i++) progress.update(() => `verify-schema: ${i}/${files.length}`);
 * progress.clear();
 * ```
 */
export function progressLine(
  io: CliIO,
  quiet = false,
  now: () => number = performance.now.bind(performance),
): Progress {
  const write = io.progress;
  if (quiet || !io.stderrIsTerminal || write === undefined) return INACTIVE;
  const start = now();
  let last = -Infinity;
  let shown = false;
  let unregister = () => {};
  const clear = () => {
    if (!shown) return;
    shown = false;
    last = -Infinity;
    unregister();
    write("\r\x1b[K");
  };
  return {
    active: true,
    update(text) {
      const t = now();
      if (t - start < PROGRESS_DELAY_MS || t - last < PROGRESS_REDRAW_MS) return;
      last = t;
      // Erased also when the command is stopped by a signal (cli/commands/interrupt.ts).
      if (!shown) unregister = onStop(clear);
      shown = true;
      // A file name must not move the cursor: control characters are shown as "?".
      // deno-lint-ignore no-control-regex
      const line = (typeof text === "string" ? text : text()).replace(/[\x00-\x1f\x7f-\x9f]/g, "?");
      write(`\r${line}\x1b[K`);
    },
    clear,
  };
}

/**
 * `n` with thousands separators (`12,345`), for progress and summaries.
 *
 * @example
 * ```ts
 * import { count } from "./progress.ts";
 * count(12345); // "12,345"
 * ```
 */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/**
 * The `onProgress` of a batch of `command`: `COMMAND: DONE/TOTAL schemas, N failed` on the
 * progress line (sign-schema and verify-schema).
 */
export function batchProgress(
  command: string,
  progress: Progress,
): (p: { done: number; total: number; failed: number }) => void {
  return ({ done, total, failed }) =>
    progress.update(() =>
      `${command}: ${count(done)}/${count(total)} schemas` +
      (failed > 0 ? `, ${count(failed)} failed` : "")
    );
}

function mib(n: number): string {
  return (n / 1024 / 1024).toFixed(1);
}

/** What a skill command passes to the library for its progress line, and how to end it. */
export interface SkillProgress {
  /** The progress options of `hashSkillDir` (none when nothing is shown). */
  readonly options: {
    onWalkProgress?: (filesFound: number) => void;
    onProgress?: (p: SkillHashProgress) => void | Promise<void>;
    progressIntervalMs?: number;
  };
  /** Erases the line. */
  done(): void;
}

/** Resolves on the next turn of the event loop (after pending signals and I/O). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * The progress line of a skill command (cli/commands/progress.ts: a terminal only, not with
 * `--quiet`): a file counter while the folder is walked, then files and bytes hashed.
 *
 * @example
 * ```ts ignore
 * const progress = skillProgress(io, "hash-skill", values.quiet === true);
 * try { await hashSkillDir(dir, { ...progress }); } finally { progress.done(); }
 * ```
 */
export function skillProgress(
  io: CliIO,
  command: string,
  quiet = false,
  now?: () => number,
): SkillProgress {
  const line = progressLine(io, quiet, now);
  // Hashing is synchronous between reports: each report lets the event loop run once, so a
  // Ctrl-C or SIGTERM is handled within a report interval (cli/commands/interrupt.ts), not at the end.
  if (!line.active) return { options: { onProgress: yieldToEventLoop }, done: () => {} };
  return {
    options: {
      onWalkProgress: (found) => line.update(() => `${command}: listing… ${count(found)} files`),
      onProgress: (p) => {
        line.update(() => {
          const pct = p.bytesTotal === 0 ? 100 : Math.floor((p.bytesDone / p.bytesTotal) * 100);
          return `${command}: ${count(p.filesDone)}/${count(p.filesTotal)} files, ` +
            `${mib(p.bytesDone)}/${mib(p.bytesTotal)} MiB (${pct}%)`;
        });
        return yieldToEventLoop();
      },
      progressIntervalMs: PROGRESS_REDRAW_MS,
    },
    done: () => line.clear(),
  };
}
