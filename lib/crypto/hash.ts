/**
 * SHA-256 and lowercase hex, the two encodings every SchemaPin digest uses (§3, §8.2).
 *
 * Hashing uses `node:crypto`'s one-shot `hash()` with hex output where the runtime has it
 * (Deno 2, Node.js ≥ 20.12): one native call per input. A `createHash` object per input costs
 * 4–6 µs under Deno before a single byte is hashed, several times the hashing of a typical
 * contract member or small file (bench/cli_scale.ts, row "contract digests"); the hex result
 * is decoded in JavaScript, which is cheaper than the runtime's Buffer output.
 *
 * @module
 */

import * as nodeCrypto from "node:crypto";

type OneShot = (algorithm: string, data: Uint8Array | string, encoding: "hex") => string;
const oneShot: OneShot | undefined = typeof (nodeCrypto as { hash?: unknown }).hash === "function"
  ? (nodeCrypto as unknown as { hash: OneShot }).hash
  : undefined;

/**
 * Lowercase hex of SHA-256 of the UTF-8 encoding of `text` — without a separate encoding
 * step (the runtime encodes while hashing). `text` should be well-formed Unicode: a lone
 * surrogate is hashed as U+FFFD, as `TextEncoder` would encode it.
 *
 * @example
 * ```ts
 * import { sha256HexOfText } from "./hash.ts";
 * sha256HexOfText("abc").slice(0, 8); // "ba7816bf"
 * ```
 */
export function sha256HexOfText(text: string): string {
  if (oneShot !== undefined) return oneShot("sha256", text, "hex");
  return nodeCrypto.createHash("sha256").update(text, "utf8").digest("hex");
}

const HEX_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUES["0123456789abcdef".charCodeAt(i)] = i;

/**
 * Decodes lowercase hex `hex` (an even number of digits) into `out` at `offset`. Throws on a
 * character that is not a lowercase hex digit.
 *
 * @example
 * ```ts
 * import { hexInto } from "./hash.ts";
 * const out = new Uint8Array(2);
 * hexInto("00ff", out, 0); // out is [0, 255]
 * ```
 */
export function hexInto(hex: string, out: Uint8Array, offset: number): void {
  for (let i = 0, j = offset; i < hex.length; i += 2, j++) {
    const hi = HEX_VALUES[hex.charCodeAt(i)] ?? -1;
    const lo = HEX_VALUES[hex.charCodeAt(i + 1)] ?? -1;
    if (hi < 0 || lo < 0) throw new TypeError(`not lowercase hex at ${i}`);
    out[j] = (hi << 4) | lo;
  }
}

/**
 * SHA-256 of `bytes`, computed synchronously.
 *
 * @example
 * ```ts
 * import { sha256 } from "./hash.ts";
 * sha256(new TextEncoder().encode("abc")).length; // 32
 * ```
 */
export function sha256(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(32);
  hexInto(sha256Hex(bytes), out, 0);
  return out;
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
 * Lowercase hex of SHA-256 of `bytes`, computed synchronously.
 *
 * @example
 * ```ts
 * import { sha256Hex } from "./hash.ts";
 * sha256Hex(new Uint8Array()); // "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
 * ```
 */
export function sha256Hex(bytes: Uint8Array): string {
  if (oneShot !== undefined) return oneShot("sha256", bytes, "hex");
  return nodeCrypto.createHash("sha256").update(bytes).digest("hex");
}
