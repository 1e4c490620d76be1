/**
 * A trusted verification's result (lib/trust/verify.ts) as the verify commands' JSON shows it:
 * the result's own fields (lib/json/result_fields.ts) with the developer's name and the
 * signature format of lib/trust/json_fields.ts, and what lineage decided
 * (lib/schema/lineage_json.ts).
 *
 * @module
 */
import { verificationFields } from "../json/result_fields.ts";
import { lineageReportJson } from "../schema/lineage_json.ts";
import { developerNameJson, signatureFormatJson } from "./json_fields.ts";
import type { TrustedSchemaResult, TrustedSkillResult } from "./verify.ts";

/**
 * The JSON fields of `result`: `ok`, the error, the fields named in `keys` (the parsed document
 * is left out), `developer_name` null for a key without a discovery document, one
 * `signature_format` vocabulary for schemas and skills, and `lineage` when lineage was checked.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when `result` is not a verification result or
 *   `keys` not a list of names (`verificationFields`).
 *
 * @example
 * ```ts ignore
 * import { trustedResultFields } from "./result_json.ts";
 * trustedResultFields(result, ["toolId", "domain", "signatureFormat"]);
 * // { ok: true, tool_id: "t", domain: "example.com", signature_format: "document" }
 * ```
 */
export function trustedResultFields<R extends TrustedSchemaResult | TrustedSkillResult>(
  result: R,
  keys: readonly (keyof R & string)[],
): { readonly ok: boolean } & Record<string, unknown> {
  const fields: { ok: boolean } & Record<string, unknown> = verificationFields(result, keys);
  if ("developer_name" in fields) fields.developer_name = developerNameJson(result);
  if ("signature_format" in fields) {
    fields.signature_format = signatureFormatJson(result.signatureFormat);
  }
  if (result.lineage !== undefined) fields.lineage = lineageReportJson(result.lineage);
  return fields;
}
