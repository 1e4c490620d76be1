/**
 * A trusted verification's result (lib/trust/verify.ts) as the JSON fields the verify commands
 * print: the fields of a schema's or a skill folder's result, in order (the parsed document is
 * left out), with `developer_name` and `signature_format` as cli/trust/json_fields.ts gives
 * them and what lineage decided. Its exit code is `resultExitCode` of cli/exit_codes.ts.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { verificationFields } from "../json/result_fields.ts";
import { lineageReportJson } from "../schema/lineage_json.ts";
import { developerNameJson, signatureFormatJson } from "./json_fields.ts";
import type {
  TrustedSchemaResult,
  TrustedServedSkillResult,
  TrustedSkillResult,
} from "../../lib/trust/verify.ts";

/** The fields of a schema's result, in order. */
const SCHEMA_KEYS = [
  "domain",
  "toolId",
  "developerName",
  "keyFingerprint",
  "keyPinning",
  "pinnedFingerprint",
  "signatureFormat",
  "schemaHash",
  "signedAt",
  "signerKid",
  "expired",
  "expiresAt",
  "schemaVersion",
  "previousHash",
  "warnings",
  "unprotectedFields",
  "discoverySource",
  "dns",
] as const satisfies readonly (keyof TrustedSchemaResult)[];

/** The fields of a skill folder's result, in order. */
const SKILL_KEYS = [
  "domain",
  "toolId",
  "skillName",
  "developerName",
  "keyFingerprint",
  "keyPinning",
  "pinnedFingerprint",
  "signatureFormat",
  "skillHash",
  "files",
  "totalBytes",
  "changes",
  "unsignedFiles",
  "signedAt",
  "signerKid",
  "expired",
  "expiresAt",
  "schemaVersion",
  "previousHash",
  "lineageAnchor",
  "signsLegacyHash",
  "warnings",
  "unprotectedFields",
  "discoverySource",
  "dns",
] as const satisfies readonly (keyof TrustedSkillResult)[];

function trustedFields<R extends TrustedSchemaResult | TrustedSkillResult>(
  fn: string,
  result: R,
  keys: readonly (keyof R & string)[],
): { readonly ok: boolean } & Record<string, unknown> {
  checkArg(fn, "result", result, "object");
  const fields = verificationFields(result, keys) as Record<string, unknown>;
  if ("developer_name" in fields) fields.developer_name = developerNameJson(result);
  if ("signature_format" in fields) {
    fields.signature_format = signatureFormatJson(result.signatureFormat);
  }
  if (result.lineage !== undefined) fields.lineage = lineageReportJson(result.lineage);
  return fields as { readonly ok: boolean } & Record<string, unknown>;
}

/**
 * The JSON fields of a schema verified with trust: `ok`, `error` on failure, then `domain`,
 * `tool_id`, … `dns` (snake_case, undefined ones left out), `developer_name` null for a key
 * without a discovery document, and `lineage` when lineage was enforced.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when `result` is not a verification result.
 *
 * @example
 * ```ts ignore
 * import { trustedSchemaJson } from "./result_json.ts";
 * const fields = trustedSchemaJson(await verifier.verifySchema(input)); // { ok: true, domain, tool_id, … }
 * ```
 */
export function trustedSchemaJson(
  result: TrustedSchemaResult,
): { readonly ok: boolean } & Record<string, unknown> {
  return trustedFields("trustedSchemaJson", result, SCHEMA_KEYS);
}

/**
 * The JSON fields of a skill folder verified with trust, as {@linkcode trustedSchemaJson}
 * with the skill's own (`skill_name`, `skill_hash`, `files`, `changes`, …).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when `result` is not a verification result.
 *
 * @example
 * ```ts ignore
 * import { trustedSkillJson } from "./result_json.ts";
 * const fields = trustedSkillJson(await verifier.verifySkill({ dir: "pdf-tools" }));
 * ```
 */
export function trustedSkillJson(
  result: TrustedSkillResult,
): { readonly ok: boolean } & Record<string, unknown> {
  return trustedFields("trustedSkillJson", result, SKILL_KEYS);
}

/**
 * The JSON fields of a skill served over MCP verified with trust: those of
 * {@linkcode trustedSkillJson}, then `source: "mcp"`, `uri`, `form` (`sep-2640` or `fastmcp`),
 * `signature_source` (`file` or `meta`, when the skill carries a signature) and `problems`
 * (each contradiction between the listing and the bytes: `kind`, `file`, `message`).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when `result` is not a verification result.
 *
 * @example
 * ```ts ignore
 * import { trustedServedSkillJson } from "./result_json.ts";
 * const fields = trustedServedSkillJson(await verifier.verifyServedSkill({ skill }));
 * ```
 */
export function trustedServedSkillJson(
  result: TrustedServedSkillResult,
): { readonly ok: boolean } & Record<string, unknown> {
  const fields = trustedFields("trustedServedSkillJson", result, SKILL_KEYS);
  return {
    ...fields,
    source: "mcp",
    uri: result.uri,
    form: result.form,
    ...(result.signatureSource ? { signature_source: result.signatureSource } : {}),
    problems: result.problems.map((p) => ({
      kind: p.kind,
      ...(p.file !== undefined ? { file: p.file } : {}),
      message: p.message,
    })),
  };
}
