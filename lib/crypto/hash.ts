/**
 * SHA-256 and lowercase hex, the two encodings every SchemaPin digest uses (§3, §8.2).
 *
 * @module
 */

import { createHash } from "node:crypto";

/**
 * SHA-256 of `bytes`, computed synchronously with `node:crypto`.
 *
 * @example
 * ```ts
 * import { sha256 } from "./hash.ts";
 * sha256(new TextEncoder().encode("abc")).length; // 32
 * ```
 */
export function sha256(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const digest = createHash("sha256").update(bytes).digest();
  // Copy out of the Buffer so callers get a plain, unshared Uint8Array.
  return new Uint8Array(digest);
}

const HEX_DIGITS: readonly string[] = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);

/**
 * Lowercase hexadecimal encoding of `bytes`.
 *
 * @example
 * ```ts
 * import { toHex } from "./hash.ts";
 * toHex(new Uint8Array([0, 171, 255])); // "00abff"
 * ```
 */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += HEX_DIGITS[b];
  return out;
}

/**
 * Lowercase hex of SHA-256 of `bytes`.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./hash.ts";
 * sha256Hex(new Uint8Array()); // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 * ```
 */
export function sha256Hex(bytes: Uint8Array): string {
  return toHex(sha256(bytes));
}
