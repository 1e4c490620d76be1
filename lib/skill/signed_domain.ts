/**
 * What the version and the `domain` of a signature document say before it is parsed: the
 * algorithm a skill signature document's `schemapin_version` selects (§4b.5: 1.4 and later 1.x,
 * or legacy below), and the `domain` a 1.4 signature names — of a skill or of a schema (§15.1).
 * Kept apart from the document's parser (lib/skill/document.ts, which re-exports both) so that a
 * schema verification reads the domain without loading the skill code.
 *
 * @module
 */
import { isJsonObject, ownField } from "../json/object.ts";
import type { SkillAlgorithm } from "./hash.ts";

/**
 * The `schemapin_version` of a skill signature document as an algorithm (`"1.4"` for 1.4 and
 * later 1.x, `"legacy"` below), or `undefined` when it is not a `major.minor` 1.x version.
 *
 * @example
 * ```ts
 * import { skillAlgorithmFor } from "./signed_domain.ts";
 * skillAlgorithmFor("1.3"); // "legacy"
 * skillAlgorithmFor("1.4"); // "1.4"
 * ```
 */
export function skillAlgorithmFor(version: unknown): SkillAlgorithm | undefined {
  const m = typeof version === "string" ? /^(\d{1,4})\.(\d{1,4})$/.exec(version) : null;
  if (!m || Number(m[1]) !== 1) return undefined;
  return Number(m[2]) < 4 ? "legacy" : "1.4";
}

/**
 * The `domain` a signature names, when it is a 1.4 (or later 1.x) signature document — of a
 * schema or of a skill — whose signature covers that field; `undefined` for bare Base64, a
 * legacy document or no `domain` field. Nothing is verified here: the key the domain selects
 * is checked against the signature afterwards.
 *
 * @example
 * ```ts
 * import { signedDocumentDomain } from "./signed_domain.ts";
 * signedDocumentDomain({ schemapin_version: "1.4", domain: "example.com" }); // "example.com"
 * signedDocumentDomain({ schemapin_version: "1.3", domain: "example.com" }); // undefined
 * signedDocumentDomain("MEUCIQ…"); // undefined
 * ```
 */
export function signedDocumentDomain(signature: unknown): string | undefined {
  if (!isJsonObject(signature)) return undefined;
  if (skillAlgorithmFor(ownField(signature, "schemapin_version")) !== "1.4") return undefined;
  const domain = ownField(signature, "domain");
  return typeof domain === "string" ? domain : undefined;
}
