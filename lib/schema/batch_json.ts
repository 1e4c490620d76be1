/**
 * The JSON fields of a finished batch of `sign-schema` or `verify-schema` (`.batch` formats,
 * the schemas in `schemas/cli/`): `ok`, the batch's error, the summary and each file's result.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";

/** A finished batch, for {@linkcode batchFields}. */
export interface BatchOutcome {
  /** `signed` or `verified`: the summary's count of successes. */
  readonly verb: string;
  /** The files listed and how many failed. */
  readonly total: number;
  readonly failed: number;
  /** The JSON result of each file (each carries its own error). */
  readonly results: readonly Record<string, unknown>[];
}

/**
 * `ok` when no file failed, else a `BATCH_FAILED` error counting them; the `summary` (`total`,
 * the `verb`'s count, `failed`) and the `results`.
 *
 * @example
 * ```ts
 * import { batchFields } from "./batch_json.ts";
 * batchFields({ verb: "signed", total: 2, failed: 0, results: [] });
 * // { ok: true, summary: { total: 2, signed: 2, failed: 0 }, results: [] }
 * ```
 */
export function batchFields(
  batch: BatchOutcome,
): { readonly ok: boolean } & Record<string, unknown> {
  checkArg("batchFields", "batch", batch, "object");
  const { verb, total, failed } = batch;
  return {
    ok: failed === 0,
    ...(failed === 0 ? {} : {
      error: { code: "BATCH_FAILED", message: `${failed} of ${total} file(s) not ${verb}` },
    }),
    summary: { total, [verb]: total - failed, failed },
    results: batch.results,
  };
}
