/**
 * The `--json` fields of lineage (§18): what a chain check (`verifyChain` of
 * lib/pins/lineage.ts, §18.3) and a verifier's lineage decision (lib/schema/lineage_verify.ts,
 * §18.4) become in `schemapin chain`, `verify-schema`, `verify-skill` and the guard's output,
 * every name snake_case. The CLI adds `format` and prints them (cli/commands/json_output.ts).
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import type { ChainCheck } from "../../lib/pins/chain.ts";
import type { LineageReport } from "../../lib/schema/lineage_verify.ts";

/**
 * The `--json` object of a lineage decision: `status`, then `hash`, `latest_hash`, `reason`
 * and `store` where set.
 *
 * @example
 * ```ts
 * import { lineageReportJson } from "./lineage_json.ts";
 * lineageReportJson({ status: "rejected", reason: "fork", store: "lineage.json" });
 * // { status: "rejected", reason: "fork", store: "lineage.json" }
 * ```
 */
export function lineageReportJson(report: LineageReport): Record<string, string> {
  checkArg("lineageReportJson", "report", report, "object");
  const out: Record<string, string> = { status: report.status };
  if (report.hash !== undefined) out.hash = report.hash;
  if (report.latestHash !== undefined) out.latest_hash = report.latestHash;
  if (report.reason !== undefined) out.reason = report.reason;
  if (report.store !== undefined) out.store = report.store;
  return out;
}

/**
 * The `--json` fields of a chain check: `ok` and the hash that chains, or an `error` and the
 * check's own fields. Chain failures have no spec code (§18.3 names outcomes, not codes): the
 * error code is `CHAIN_<REASON>` (`CHAIN_MISMATCH`, `CHAIN_NO_PREVIOUS_HASH`, `CHAIN_LEGACY`).
 *
 * @example
 * ```ts
 * import { chainCheckJson } from "./lineage_json.ts";
 * chainCheckJson({ valid: false, reason: "no_previous_hash", message: "no previous_hash" });
 * // { ok: false, error: { code: "CHAIN_NO_PREVIOUS_HASH", message: "no previous_hash" },
 * //   reason: "no_previous_hash" }
 * ```
 */
export function chainCheckJson(check: ChainCheck): { ok: boolean } & Record<string, unknown> {
  checkArg("chainCheckJson", "check", check, "object");
  if (check.valid) return { ok: true, hash: check.hash };
  const { valid: _valid, message, ...rest } = check;
  return { ok: false, error: { code: `CHAIN_${check.reason.toUpperCase()}`, message }, ...rest };
}
