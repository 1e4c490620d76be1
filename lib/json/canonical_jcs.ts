/**
 * `contractpin-canonical-json/1` canonicalization: RFC 8785 (JCS) as restated in the
 * contractpin spec §3.
 *
 * @module
 */
import { makeCanonicalizer } from "./canonical.ts";

const encoder = new TextEncoder();

/**
 * The canonicalization identifier of contractpin spec §3 and §5.
 *
 * @example
 * ```ts
 * import { CONTRACTPIN_CANONICAL_JSON_1 } from "./canonical_jcs.ts";
 * console.log(CONTRACTPIN_CANONICAL_JSON_1); // "contractpin-canonical-json/1"
 * ```
 */
export const CONTRACTPIN_CANONICAL_JSON_1 = "contractpin-canonical-json/1";

const canonicalize = makeCanonicalizer({
  id: CONTRACTPIN_CANONICAL_JSON_1,
  codePointOrder: false, // §3.3: UTF-16 code units
  safeIntegerRange: false, // §3.6: every finite double is serialisable
});

/**
 * Canonical text of a JSON value under RFC 8785 / `contractpin-canonical-json/1`: names
 * sorted by UTF-16 code unit, the same minimal escaping as schemapin-v1, and ECMAScript
 * number serialisation (`1e21` → `1e+21`, `1e20` → `100000000000000000000`, `-0` → `0`).
 *
 * @throws {SchemaPinError} `SCHEMA_CANONICALIZATION_FAILED` for non-finite numbers, lone
 * surrogates, non-JSON values, cycles and excessive nesting (§3.8: fail loudly).
 *
 * @example
 * ```ts
 * import { canonicalizeJcs } from "./canonical_jcs.ts";
 * canonicalizeJcs({ b: 1e21, a: 1e20 }); // '{"a":100000000000000000000,"b":1e+21}'
 * ```
 */
export function canonicalizeJcs(value: unknown): string {
  return canonicalize(value);
}

/**
 * The UTF-8 bytes of {@linkcode canonicalizeJcs} — what contract digests hash.
 *
 * @example
 * ```ts
 * import { canonicalizeJcsBytes } from "./canonical_jcs.ts";
 * canonicalizeJcsBytes([1, "x"]); // bytes of '[1,"x"]'
 * ```
 */
export function canonicalizeJcsBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalize(value));
}
