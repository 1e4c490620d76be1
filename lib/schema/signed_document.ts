/**
 * What the two signature documents share — the 1.4 schema signature document
 * (`lib/schema/document.ts`) and the skill signature document `.schemapin.sig`
 * (`lib/skill/document.ts`): reading their string fields and the optional fields both carry
 * (`expires_at`, `domain`, `signer_kid`, `schema_version`, `previous_hash`,
 * `canonicalization`), the signing input (§4b.5), the file format, and the canonicalization
 * a signer may declare (§19).
 *
 * Each document type keeps its own list of known fields; everything here takes that list,
 * so fields are read, signed and written in the order it gives.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonValue } from "../json/types.ts";
import { canonicalizeSchemapinV1Bytes, SCHEMAPIN_V1 } from "../json/canonical_schemapin.ts";
import { checkDomain } from "../dns/domain.ts";
import { ownField, typeName } from "../json/object.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import { isRfc3339 } from "../time/rfc3339.ts";

/** The optional fields both signature documents carry. */
export interface SignedDocumentOptionalFields {
  /** Expiry (§16), read as found. */
  expires_at?: JsonValue;
  /** The signer's domain, kept exactly as signed (§9). */
  domain?: string;
  /** Signer key id. */
  signer_kid?: string;
  /** Caller-supplied version tag (§18.1). */
  schema_version?: string;
  /** The hash of the previous signed version (§18.1). */
  previous_hash?: string;
  /** Canonicalization identifier (§19), read as found. */
  canonicalization?: JsonValue;
}

/**
 * The `INPUT_INVALID` error of a malformed signature document: `<source>: <message>`, with
 * `source` and `field` in the details.
 *
 * @example
 * ```ts
 * import { invalidDocument } from "./signed_document.ts";
 * invalidDocument("tool.sig", "signature is empty", "signature").message;
 * // "tool.sig: signature is empty"
 * ```
 */
export function invalidDocument(source: string, message: string, field?: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", `${source}: ${message}`, { source, field });
}

/**
 * A reader of the string fields of `value`: `read(field, required)` returns the field, or
 * `undefined` when it is absent and not `required`; a missing required field or a
 * non-string throws {@linkcode invalidDocument}.
 *
 * @example
 * ```ts
 * import { stringFieldReader } from "./signed_document.ts";
 * const read = stringFieldReader({ signed_at: "2026-05-01T10:00:00Z" }, "tool.sig");
 * read("signed_at", true); // "2026-05-01T10:00:00Z"
 * read("domain", false); // undefined
 * ```
 */
export function stringFieldReader(
  value: Record<string, unknown>,
  source: string,
): (field: string, required: boolean) => string | undefined {
  return (field, required) => {
    const v = ownField(value, field);
    if (v === undefined) {
      if (required) throw invalidDocument(source, `${field} is missing`, field);
      return undefined;
    }
    if (typeof v !== "string") {
      throw invalidDocument(source, `${field} must be a string, not ${typeName(v)}`, field);
    }
    return v;
  };
}

/**
 * Reads the required fields both signature documents carry after their own, in this order:
 * `hashField` (a `sha256:` value), `signature` (not empty) and `signed_at` (a strict RFC 3339
 * timestamp when `strictSignedAt`). Problems throw {@linkcode invalidDocument}.
 *
 * @example
 * ```ts
 * import { readRequiredSignedFields } from "./signed_document.ts";
 * const doc = {
 *   schema_hash: "sha256:" + "0".repeat(64),
 *   signature: "MEUCIQ==",
 *   signed_at: "2026-05-01T10:00:00Z",
 * };
 * readRequiredSignedFields(doc, "tool.sig", "schema_hash", { strictSignedAt: true }).signature;
 * // "MEUCIQ=="
 * ```
 */
export function readRequiredSignedFields(
  value: Record<string, unknown>,
  source: string,
  hashField: string,
  options: { strictSignedAt: boolean },
): { hash: string; signature: string; signedAt: string } {
  const str = stringFieldReader(value, source);
  const hash = str(hashField, true)!;
  if (!isSha256Ref(hash)) {
    throw invalidDocument(source, `${hashField} ${describeBadSha256Ref(hash)}`, hashField);
  }
  const signature = str("signature", true)!;
  if (signature === "") throw invalidDocument(source, "signature is empty", "signature");
  const signedAt = str("signed_at", true)!;
  if (options.strictSignedAt && !isRfc3339(signedAt)) {
    throw invalidDocument(
      source,
      `signed_at ${JSON.stringify(signedAt)} is not a strict RFC 3339 timestamp`,
      "signed_at",
    );
  }
  return { hash, signature, signedAt };
}

/**
 * Reads the optional fields both signature documents share, in the order they stand in
 * `fields` (so the first problem reported is the first in that order), and returns those
 * present. `domain` must be a valid host name and is kept exactly as signed; `schema_version`
 * must not be empty, nor `signer_kid` when `rejectEmptySignerKid`; `previous_hash` must be a
 * `sha256:` value. `expires_at` and `canonicalization` are taken as found: their failures
 * have their own codes at verification time (§16.2, §19.3). Problems throw
 * {@linkcode invalidDocument}.
 *
 * @example
 * ```ts
 * import { readOptionalSignedFields } from "./signed_document.ts";
 * readOptionalSignedFields({ domain: "example.com" }, "tool.sig", ["domain", "signer_kid"], {
 *   rejectEmptySignerKid: true,
 * }); // { domain: "example.com" }
 * ```
 */
export function readOptionalSignedFields(
  value: Record<string, unknown>,
  source: string,
  fields: readonly string[],
  options: { rejectEmptySignerKid: boolean },
): SignedDocumentOptionalFields {
  const str = stringFieldReader(value, source);
  const out: SignedDocumentOptionalFields = {};
  for (const field of fields) {
    switch (field) {
      case "expires_at":
      case "canonicalization":
        if (Object.hasOwn(value, field)) out[field] = value[field] as JsonValue;
        break;
      case "domain": {
        const domain = str(field, false);
        if (domain === undefined) break;
        const dc = checkDomain(domain);
        // Kept exactly as signed (no case folding): it is part of the signing input.
        if (!dc.ok) {
          throw invalidDocument(source, `domain ${JSON.stringify(domain)}: ${dc.reason}`, field);
        }
        out.domain = domain;
        break;
      }
      case "signer_kid": {
        const kid = str(field, false);
        if (kid === undefined) break;
        if (kid === "" && options.rejectEmptySignerKid) {
          throw invalidDocument(source, "signer_kid is empty", field);
        }
        out.signer_kid = kid;
        break;
      }
      case "schema_version": {
        const sv = str(field, false);
        if (sv === undefined) break;
        if (sv === "") throw invalidDocument(source, "schema_version is empty", field);
        out.schema_version = sv;
        break;
      }
      case "previous_hash": {
        const prev = str(field, false);
        if (prev === undefined) break;
        if (!isSha256Ref(prev)) {
          throw invalidDocument(source, `previous_hash ${describeBadSha256Ref(prev)}`, field);
        }
        out.previous_hash = prev;
        break;
      }
    }
  }
  return out;
}

/**
 * The top-level fields of `value` that are not in `fields` (ignored and unprotected).
 *
 * @example
 * ```ts
 * import { unknownFieldsOf } from "./signed_document.ts";
 * unknownFieldsOf({ signature: "x", note: "hi" }, ["signature"]); // ["note"]
 * ```
 */
export function unknownFieldsOf(
  value: Record<string, unknown>,
  fields: readonly string[],
): string[] {
  return Object.keys(value).filter((k) => !fields.includes(k));
}

/** The present known fields of `document`, in the order of `fields`. */
function presentFields(
  document: object,
  fields: readonly string[],
  signature?: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const doc = document as Record<string, unknown>;
  for (const field of fields) {
    if (field === "signature" && signature !== undefined) {
      out.signature = signature;
    } else if (Object.hasOwn(doc, field) && doc[field] !== undefined) {
      out[field] = doc[field];
    }
  }
  return out;
}

/**
 * The bytes a 1.4 signature document's signature covers (§4b.5): its present `fields` with
 * `signature` set to `""`, canonicalized with schemapin-v1. Throws `SchemaPinError`
 * `SCHEMA_CANONICALIZATION_FAILED` when a field value has no canonical form.
 *
 * @example
 * ```ts
 * import { signedDocumentSigningInput } from "./signed_document.ts";
 * const bytes = signedDocumentSigningInput({ a: "x", signature: "sig" }, ["a", "signature"]);
 * new TextDecoder().decode(bytes); // '{"a":"x","signature":""}'
 * ```
 */
export function signedDocumentSigningInput(
  document: object,
  fields: readonly string[],
): Uint8Array {
  return canonicalizeSchemapinV1Bytes(presentFields(document, fields, ""));
}

/**
 * Serialises a signature document for a file: its present `fields` in that order, two-space
 * indentation, trailing newline.
 *
 * @example
 * ```ts
 * import { formatSignedDocument } from "./signed_document.ts";
 * formatSignedDocument({ b: 1, a: 2, extra: 3 }, ["a", "b"]); // '{\n  "a": 2,\n  "b": 1\n}\n'
 * ```
 */
export function formatSignedDocument(document: object, fields: readonly string[]): string {
  return JSON.stringify(presentFields(document, fields), null, 2) + "\n";
}

/**
 * The canonicalization a signer asked to declare (§19): only `"schemapin-v1"` exists;
 * anything else throws `SchemaPinError` `CANONICALIZATION_UNSUPPORTED`.
 *
 * @example
 * ```ts
 * import { declaredCanonicalization } from "./signed_document.ts";
 * declaredCanonicalization("schemapin-v1"); // "schemapin-v1"
 * ```
 */
export function declaredCanonicalization(requested: string): typeof SCHEMAPIN_V1 {
  if (requested !== SCHEMAPIN_V1) {
    throw new SchemaPinError(
      "CANONICALIZATION_UNSUPPORTED",
      `canonicalization ${JSON.stringify(requested)} is not supported; ` +
        `the only one is "${SCHEMAPIN_V1}"`,
    );
  }
  return SCHEMAPIN_V1;
}
