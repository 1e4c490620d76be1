/**
 * What a finished batch reports (`sign-schema --batch`, `verify-schema --batch`): each file's
 * result as JSON fields, in order, how many failed and the worst exit code of a failure (its
 * row in cli/exit_codes.ts), and the batch's JSON fields (`.batch` formats, the schemas in
 * `schemas/cli/`).
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import type { SchemaPinError } from "../../lib/errors.ts";
import { EXIT_OK, exitCodeOfError } from "../exit_codes.ts";

/**
 * The results of a batch, counted as they arrive.
 *
 * @example
 * ```ts
 * import { BatchOutcome } from "./batch_outcome.ts";
 * const outcome = new BatchOutcome(2, []);
 * outcome.add({ file: "a.json", ok: true }, 0);
 * outcome.add({ file: "b.json", ok: false }, 1);
 * outcome.failed; // 1
 * outcome.fields("verified").summary; // { total: 2, verified: 1, failed: 1 }
 * ```
 */
export class BatchOutcome {
  /** Each file's JSON fields, in the order reported. */
  readonly results: Record<string, unknown>[] = [];
  /** How many files failed. */
  failed = 0;
  /** The worst exit code of a failure (0 while none failed). */
  worst: number = EXIT_OK;

  /**
   * @param total How many files the batch lists.
   * @param skipped The entries that are not regular files, skipped.
   */
  constructor(readonly total: number, readonly skipped: readonly string[]) {}

  /** Adds a file's fields and its exit code (0 for a success). */
  add(entry: Record<string, unknown>, code: number): void {
    checkArg("BatchOutcome.add", "entry", entry, "object");
    this.results.push(entry);
    if (code === EXIT_OK) return;
    this.failed++;
    this.worst = Math.max(this.worst, code);
  }

  /**
   * The batch's JSON fields: `ok` when no file failed, else a `BATCH_FAILED` error counting
   * them; the `summary` (`total`, the count of `verb` — `signed` or `verified` — and `failed`)
   * and the `results`.
   */
  fields(verb: string): { readonly ok: boolean } & Record<string, unknown> {
    checkArg("BatchOutcome.fields", "verb", verb, "string");
    const { total, failed } = this;
    return {
      ok: failed === 0,
      ...(failed === 0 ? {} : {
        error: { code: "BATCH_FAILED", message: `${failed} of ${total} file(s) not ${verb}` },
      }),
      summary: { total, [verb]: total - failed, failed },
      results: this.results,
    };
  }

  /** Adds a file that could not be handled: `{file, ok: false, error: {code, message}}`. */
  addError(path: string, error: SchemaPinError): void {
    const { code, message } = error;
    this.add({ file: path, ok: false, error: { code, message } }, exitCodeOfError(error));
  }
}
