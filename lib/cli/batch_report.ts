/**
 * What the batches of sign-schema and verify-schema share on the terminal: their progress line
 * and their end — the files skipped, the error of a batch that matched nothing, and the summary
 * (one `schemapin.<command>.batch/1` object with `--json`, else one line).
 *
 * @module
 */
import { type CliIO, EXIT_OK, EXIT_USAGE } from "./command.ts";
import { jsonError, jsonOutput } from "./json_output.ts";
import { count, type Progress } from "./progress.ts";

/**
 * The `onProgress` of a batch of `command`: `COMMAND: DONE/TOTAL schemas, N failed` on the
 * progress line.
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

/** A finished batch, for {@linkcode finishBatch}. */
export interface FinishedBatch {
  /** `sign-schema` or `verify-schema`. */
  readonly command: string;
  /** `signed` or `verified`: the summary's count of successes. */
  readonly verb: string;
  /** `--batch DIR` and `--pattern GLOB`. */
  readonly dir: string;
  readonly pattern: string;
  /** The files listed (`total`), how many failed, and the worst exit code of a failure. */
  readonly total: number;
  readonly failed: number;
  readonly worst: number;
  /** The entries not regular files, skipped. */
  readonly skipped: readonly string[];
  /** The `--json` result of each file. */
  readonly results: readonly Record<string, unknown>[];
  /** With `--json`, one object on stdout; else `line` (the summary). */
  readonly json: boolean;
  readonly line: string;
}

/**
 * Warns of the skipped entries, then prints the summary of a batch and returns its exit code:
 * exit 2 when nothing matched the pattern, the worst failure's code, else 0.
 */
export async function finishBatch(batch: FinishedBatch, io: CliIO): Promise<number> {
  const { total, failed, json } = batch;
  for (const path of batch.skipped) {
    await io.stderr(`warning: skipped ${path} (not a regular file)\n`);
  }
  if (total === 0) {
    const message = `no file in ${batch.dir} matches ${JSON.stringify(batch.pattern)}`;
    if (json) await io.stdout(jsonError("INPUT_INVALID", message));
    await io.stderr(`error: ${message}\n`);
    return EXIT_USAGE;
  }
  if (json) {
    await io.stdout(jsonOutput(`${batch.command}.batch`, {
      ok: failed === 0,
      ...(failed === 0 ? {} : {
        // Each result carries its own error.
        error: { code: "BATCH_FAILED", message: `${failed} of ${total} file(s) not ${batch.verb}` },
      }),
      summary: { total, [batch.verb]: total - failed, failed },
      results: batch.results,
    }));
  } else {
    await io.stdout(batch.line);
  }
  return failed > 0 ? batch.worst : EXIT_OK;
}
