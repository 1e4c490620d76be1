/**
 * The textual form of key fingerprints (§8.2) and content hashes: `sha256:` followed by 64
 * lower-case hexadecimal digits.
 *
 * @module
 */

import { typeName } from "../json/object.ts";

const SHA256_REF = /^sha256:[0-9a-f]{64}$/;

/**
 * True when `value` is `sha256:` + 64 lower-case hex digits (a key fingerprint per §8.2, or a
 * `schema_hash` / `previous_hash`).
 *
 * @example
 * ```ts
 * import { isSha256Ref } from "./fingerprint.ts";
 * isSha256Ref("sha256:" + "ab".repeat(32)); // true
 * isSha256Ref("sha256:" + "AB".repeat(32)); // false (upper case)
 * ```
 */
export function isSha256Ref(value: unknown): value is string {
  return typeof value === "string" && SHA256_REF.test(value);
}

/**
 * Explains why `value` is not a `sha256:` reference, for error messages.
 *
 * @example
 * ```ts
 * import { describeBadSha256Ref } from "./fingerprint.ts";
 * describeBadSha256Ref("abc"); // "must start with \"sha256:\""
 * ```
 */
export function describeBadSha256Ref(value: unknown): string {
  if (typeof value !== "string") return `must be a string, not ${typeName(value)}`;
  if (!value.startsWith("sha256:")) return `must start with "sha256:"`;
  const hex = value.slice(7);
  if (hex.length !== 64) return `must have 64 hex digits after "sha256:", not ${hex.length}`;
  if (/[A-F]/.test(hex) && !/[^0-9a-fA-F]/.test(hex)) return "hex digits must be lower case";
  return 'must contain only hex digits after "sha256:"';
}
