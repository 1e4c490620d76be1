/**
 * `schemapin-v1` canonicalization (SchemaPin spec §4, identifier §19).
 *
 * @module
 */
import { makeCanonicalizer } from "./canonical.ts";

const encoder = new TextEncoder();

/**
 * The canonicalization identifier of spec §4 and §19.
 *
 * @example
 * ```ts
 * import { SCHEMAPIN_V1 } from "./canonical_schemapin.ts";
 * console.log(SCHEMAPIN_V1); // "schemapin-v1"
 * ```
 */
export const SCHEMAPIN_V1 = "schemapin-v1";

const canonicalize = makeCanonicalizer({
  id: SCHEMAPIN_V1,
  codePointOrder: true, // §4.3
  safeIntegerRange: true, // §4.6
});

/**
 * Canonical text of a JSON value under `schemapin-v1` (§4): no whitespace, names sorted by
 * code point, duplicate-free (the strict parser rejects duplicates), minimal escaping with
 * lowercase `\u00xx`, literal non-ASCII/U+007F/U+2028/U+2029, integers up to 2^53 − 1 in
 * plain decimal, `-0` → `0`, other numbers by ECMAScript `Number::toString`.
 *
 * @throws {SchemaPinError} `SCHEMA_CANONICALIZATION_FAILED` for lone surrogates, numbers
 * beyond 2^53 − 1 or non-finite, non-JSON values (`undefined`, functions, symbols, BigInt,
 * class instances such as `Date`/`Map`, sparse arrays), cycles, and nesting deeper than
 * `MAX_JSON_DEPTH`; the message names the JSON Pointer.
 *
 * @example
 * ```ts
 * import { canonicalizeSchemapinV1 } from "./canonical_schemapin.ts";
 * canonicalizeSchemapinV1({ name: "calculate_sum", parameters: { b: "integer", a: "integer" } });
 * // '{"name":"calculate_sum","parameters":{"a":"integer","b":"integer"}}'
 * ```
 */
export function canonicalizeSchemapinV1(value: unknown): string {
  return canonicalize(value);
}

/**
 * The UTF-8 bytes of {@linkcode canonicalizeSchemapinV1} — what is hashed and signed.
 *
 * @example
 * ```ts
 * import { canonicalizeSchemapinV1Bytes } from "jsr:@schemapin/schemapin/schema";
 * canonicalizeSchemapinV1Bytes({ a: "é" }).length; // 10
 * ```
 */
export function canonicalizeSchemapinV1Bytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalize(value));
}
