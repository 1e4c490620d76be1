/**
 * The lineage fields (§18) of a signature document of either kind, read from parsed JSON: a
 * schema signature document, checked in full, or a skill signature document (`.schemapin.sig`),
 * of which only the lineage fields are read. A legacy (1.3) skill document is read too, so that
 * `verifyChain` can refuse it by name (§4b, §18.4) rather than as malformed input.
 *
 * @module
 */
import { isSha256Ref } from "../../lib/crypto/fingerprint.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { isJsonObject, ownField } from "../../lib/json/object.ts";
import type { LineageSignature } from "../../lib/pins/chain.ts";
import { parseSchemaSignatureDocument } from "../../lib/schema/document.ts";

/**
 * The lineage fields of the signature document `value` (named `source` in messages). This
 * reads metadata only: the document's signature is not checked here.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` (`details.source`) for a value that is not a
 *   signature document, or a malformed `previous_hash`; a schema signature document that does
 *   not parse fails as `parseSchemaSignatureDocument` does.
 *
 * @example
 * ```ts
 * import { lineageSignatureOf } from "./lineage_document.ts";
 * const hash = "sha256:" + "a".repeat(64);
 * lineageSignatureOf({ schemapin_version: "1.4", skill_hash: hash }, "a.sig").skill_hash === hash;
 * // true
 * ```
 */
export function lineageSignatureOf(value: unknown, source: string): LineageSignature {
  if (isJsonObject(value) && Object.hasOwn(value, "schema_hash")) {
    return parseSchemaSignatureDocument(value, source).document;
  }
  if (!isJsonObject(value)) {
    throw new SchemaPinError("INPUT_INVALID", `${source} is not a signature document`, {
      source,
    });
  }
  const version = ownField(value, "schemapin_version");
  const hash = ownField(value, "skill_hash");
  const prev = ownField(value, "previous_hash");
  if (typeof version !== "string" || !isSha256Ref(hash)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${source} has no schemapin_version and schema_hash/skill_hash: not a signature document`,
      { source },
    );
  }
  if (prev !== undefined && !isSha256Ref(prev)) {
    throw new SchemaPinError("INPUT_INVALID", `${source}: previous_hash is malformed`, {
      source,
    });
  }
  const sv = ownField(value, "schema_version");
  return {
    schemapin_version: version,
    skill_hash: hash,
    ...(prev !== undefined ? { previous_hash: prev as string } : {}),
    ...(typeof sv === "string" ? { schema_version: sv } : {}),
  };
}
