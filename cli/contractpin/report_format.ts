/**
 * Which rendering of the verify report `contract verify` prints, from its `--format` and
 * `--json` flags.
 *
 * @module
 */
import { usageError } from "../../lib/errors.ts";

/** The renderings of a verify report: human text, the JSON report, SARIF 2.1.0, GitHub. */
export type ReportFormat = "human" | "json" | "sarif" | "github";

const REPORT_FORMATS: readonly string[] = ["human", "json", "sarif", "github"];

/**
 * The rendering asked for with `--format` and `--json` (`--json` is `--format json`); human
 * text when neither is given.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) for an unknown format,
 *   or `--json` with another format.
 *
 * @example
 * ```ts
 * import { reportFormat } from "./report_format.ts";
 * reportFormat(undefined, true); // "json"
 * reportFormat("sarif", false); // "sarif"
 * ```
 */
export function reportFormat(format: string | undefined, json: boolean): ReportFormat {
  const chosen = format ?? (json ? "json" : "human");
  if (!REPORT_FORMATS.includes(chosen)) {
    throw usageError(
      `--format must be one of ${REPORT_FORMATS.join(", ")} (got ${chosen})`,
      { option: "format" },
    );
  }
  if (json && chosen !== "json") {
    throw usageError(`--json and --format ${chosen} contradict each other`, { option: "json" });
  }
  return chosen as ReportFormat;
}
