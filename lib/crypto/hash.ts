/**
 * SHA-256 and lowercase hex, the two encodings every SchemaPin digest uses (§3, §8.2).
 *
 * Hashing uses `node:crypto`'s one-shot `hash()` with hex output where the runtime has it
 * (Deno 2, Node.js ≥ 20.12): one native call per input. A `createHash` object per input costs
 * 4–6 µs under Deno before a single byte is hashed, several times the hashing of a typical
 * contract member or small file (bench/cli_scale.ts, row "contract digests"); the hex result
 * is decoded in JavaScript, which is cheaper than the runtime's Buffer output.
 *
 * Under Deno, `node:crypto` is loaded on first need, not at start-up: importing it starts the
 * Node compatibility layer, ~40 ms added to every command (issue 14). Until then, inputs of up
 * to {@linkcode JS_INPUT_LIMIT} bytes are hashed in JavaScript (below), so one verification
 * never loads it; the first larger input, or the first after {@linkcode JS_TOTAL_LIMIT} bytes
 * hashed in JavaScript (a batch, a skill folder), loads it and every later input is hashed
 * natively.
 *
 * @module
 */

import type * as NodeCrypto from "node:crypto";
import { checkArg } from "../arguments.ts";
import { nodeBuiltin } from "../runtime/builtin.ts";

type OneShot = (algorithm: string, data: Uint8Array | string, encoding: "hex") => string;

/** Native SHA-256 hex of bytes or of a string's UTF-8. */
type NativeHash = (data: Uint8Array | string) => string;

function nativeHashOf(nodeCrypto: typeof NodeCrypto): NativeHash {
  const oneShot = (nodeCrypto as { hash?: unknown }).hash;
  if (typeof oneShot === "function") return (data) => (oneShot as OneShot)("sha256", data, "hex");
  return (data) =>
    typeof data === "string"
      ? nodeCrypto.createHash("sha256").update(data, "utf8").digest("hex")
      : nodeCrypto.createHash("sha256").update(data).digest("hex");
}

const isDeno = typeof (globalThis as { Deno?: { version?: unknown } }).Deno?.version === "object";

// Node and Bun: loaded with the module, as before. Deno: on first need (see the module
// documentation), through its `process` global (its node:process, which has getBuiltinModule).
// (Not `nativeHash()` here: it reads `native`, still uninitialized while this line runs.)
let native: NativeHash | undefined = isDeno
  ? undefined
  : nativeHashOf(nodeBuiltin<typeof NodeCrypto>("node:crypto"));

function nativeHash(): NativeHash {
  native ??= nativeHashOf(nodeBuiltin<typeof NodeCrypto>("node:crypto"));
  return native;
}

// The JavaScript hash runs at ~200 MB/s, the native one at 0.8–1.6 GB/s from 1 KiB up (below
// ~200 bytes they are level); loading node:crypto costs a Deno process ~40 ms (2-core CI class,
// Deno 2.9.6). So up to 1 MiB in all (~5 ms) is hashed here before it is loaded.

/**
 * Inputs up to this many bytes (or UTF-16 code units of a text) are hashed in JavaScript while
 * `node:crypto` is not loaded: 64 KiB (~0.3 ms).
 */
const JS_INPUT_LIMIT = 64 * 1024;
/** After this many bytes hashed in JavaScript, `node:crypto` is loaded: 1 MiB. */
const JS_TOTAL_LIMIT = 1024 * 1024;
let jsTotal = 0;

/** Whether to hash an input of `length` bytes in JavaScript (see the module documentation). */
function inJavaScript(length: number): boolean {
  if (native !== undefined || length > JS_INPUT_LIMIT || jsTotal > JS_TOTAL_LIMIT) return false;
  jsTotal += length;
  return true;
}

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
  if (text.length <= SHORT_TEXT) return shortTextSha256Hex(text);
  if (inJavaScript(text.length)) return bytesSha256Hex(new TextEncoder().encode(text));
  return nativeHash()(text);
}

// SHA-256 (FIPS 180-4) of short texts in JavaScript: a native hash costs a fixed 1–3 µs per
// call under Deno (a Hash object each time), more than hashing one or two 64-byte blocks
// here. Contract field digests are often of a name, `null` or a small object. Checked
// against node:crypto in tests/crypto/hash_test.ts.

/** Texts up to this many UTF-16 code units (≤ 144 UTF-8 bytes) are hashed in JavaScript. */
const SHORT_TEXT = 48;

const K = new Int32Array([
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
]);
const W = new Int32Array(64);
const H = new Int32Array(8);
let filled = 0; // bytes in the current block

/** The compression function over the block in `W[0..15]`. */
function compress(): void {
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15], y = W[i - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
  }
  let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g, g = f, f = e, e = (d + t1) | 0, d = c, c = b, b = a, a = (t1 + t2) | 0;
  }
  H[0] = (H[0] + a) | 0, H[1] = (H[1] + b) | 0, H[2] = (H[2] + c) | 0, H[3] = (H[3] + d) | 0;
  H[4] = (H[4] + e) | 0, H[5] = (H[5] + f) | 0, H[6] = (H[6] + g) | 0, H[7] = (H[7] + h) | 0;
}

/** Appends one byte to the message (big-endian words in `W`). */
function put(byte: number): void {
  const i = filled >> 2;
  if ((filled & 3) === 0) W[i] = byte << 24;
  else W[i] |= byte << (24 - ((filled & 3) << 3));
  if (++filled === 64) {
    compress();
    filled = 0;
  }
}

function shortTextSha256Hex(text: string): string {
  H[0] = 0x6a09e667, H[1] = 0xbb67ae85, H[2] = 0x3c6ef372, H[3] = 0xa54ff53a;
  H[4] = 0x510e527f, H[5] = 0x9b05688c, H[6] = 0x1f83d9ab, H[7] = 0x5be0cd19;
  filled = 0;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c < 0x80) {
      put(c), bytes += 1;
    } else if (c < 0x800) {
      put(0xc0 | (c >> 6)), put(0x80 | (c & 63)), bytes += 2;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const d = text.charCodeAt(i + 1);
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        put(0xf0 | (c >> 18)), put(0x80 | ((c >> 12) & 63));
        put(0x80 | ((c >> 6) & 63)), put(0x80 | (c & 63)), bytes += 4;
      } else {
        put(0xef), put(0xbf), put(0xbd), bytes += 3; // a lone surrogate: U+FFFD
      }
    } else {
      put(0xe0 | (c >> 12)), put(0x80 | ((c >> 6) & 63)), put(0x80 | (c & 63)), bytes += 3;
    }
  }
  return finish(bytes);
}

/** SHA-256 hex of `bytes` in JavaScript (whole blocks read as words, then the tail). */
function bytesSha256Hex(bytes: Uint8Array): string {
  H[0] = 0x6a09e667, H[1] = 0xbb67ae85, H[2] = 0x3c6ef372, H[3] = 0xa54ff53a;
  H[4] = 0x510e527f, H[5] = 0x9b05688c, H[6] = 0x1f83d9ab, H[7] = 0x5be0cd19;
  const n = bytes.length;
  let i = 0;
  for (; i + 64 <= n; i += 64) {
    for (let w = 0, j = i; w < 16; w++, j += 4) {
      W[w] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
    }
    compress();
  }
  filled = 0;
  for (; i < n; i++) put(bytes[i]);
  return finish(n);
}

/** Pads the message of `bytes` bytes (the tail already put), compresses, returns the hex. */
function finish(bytes: number): string {
  put(0x80);
  while (filled !== 56) put(0);
  W[14] = Math.floor(bytes / 0x20000000); // the bit length's high word
  W[15] = bytes * 8; // its low word (an Int32Array keeps the low 32 bits)
  compress();
  let out = "";
  for (let i = 0; i < 8; i++) {
    const w = H[i];
    out += HEX_DIGITS[(w >>> 24) & 0xff] + HEX_DIGITS[(w >>> 16) & 0xff] +
      HEX_DIGITS[(w >>> 8) & 0xff] + HEX_DIGITS[w & 0xff];
  }
  return out;
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
    // Programming-error assertion: callers pass the lowercase hex of a digest they computed.
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
  checkArg("sha256", "bytes", bytes, "bytes");
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
  checkArg("sha256Hex", "bytes", bytes, "bytes");
  if (inJavaScript(bytes.length)) return bytesSha256Hex(bytes);
  return nativeHash()(bytes);
}
