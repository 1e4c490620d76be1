/**
 * The canonical form of a JSON value as `schemapin canonicalize` reports it: schemapin-v1
 * (SchemaPin §4, what schema signatures cover) or contractpin-canonical-json/1 (RFC 8785, what
 * contract digests cover), with its SHA-256.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { sha256Hex } from "../../lib/crypto/hash.ts";
import {
  canonicalizeJcsBytes,
  CONTRACTPIN_CANONICAL_JSON_1,
} from "../../lib/json/canonical_jcs.ts";
import { canonicalizeSchemapinV1Bytes, SCHEMAPIN_V1 } from "../../lib/json/canonical_schemapin.ts";

/** A value's canonical bytes and the canonicalization that made them. */
export interface CanonicalForm {
  /** `schemapin-v1` or `contractpin-canonical-json/1`. */
  readonly canonicalization: string;
  /** The canonical bytes (UTF-8). */
  readonly bytes: Uint8Array;
}

/**
 * The canonical form of `value`: schemapin-v1, or contractpin-canonical-json/1 with
 * `contract`.
 *
 * @throws {SchemaPinError} `SCHEMA_CANONICALIZATION_FAILED` for a value with no canonical
 *   form, naming its JSON Pointer.
 *
 * @example
 * ```ts
 * import { canonicalForm } from "./canonical_form.ts";
 * new TextDecoder().decode(canonicalForm({ b: 1, a: 2 }, true).bytes); // '{"a":2,"b":1}'
 * ```
 */
export function canonicalForm(value: unknown, contract: boolean): CanonicalForm {
  return contract
    ? { canonicalization: CONTRACTPIN_CANONICAL_JSON_1, bytes: canonicalizeJcsBytes(value) }
    : { canonicalization: SCHEMAPIN_V1, bytes: canonicalizeSchemapinV1Bytes(value) };
}

/**
 * The JSON fields of a canonical form: `canonicalization`, `canonical` (the text) and
 * `sha256` (`sha256:` and the hex SHA-256 of the bytes).
 *
 * @example
 * ```ts
 * import { canonicalForm, canonicalFormJson } from "./canonical_form.ts";
 * canonicalFormJson(canonicalForm({}, false)).canonical; // "{}"
 * ```
 */
export function canonicalFormJson(
  form: CanonicalForm,
): { canonicalization: string; canonical: string; sha256: string } {
  checkArg("canonicalFormJson", "form", form, "object");
  checkArg("canonicalFormJson", "form.bytes", form.bytes, "bytes");
  return {
    canonicalization: form.canonicalization,
    canonical: new TextDecoder().decode(form.bytes),
    sha256: `sha256:${sha256Hex(form.bytes)}`,
  };
}
