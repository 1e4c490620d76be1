/**
 * Standard Base64 (RFC 4648 §4) for signatures and PEM bodies. Decoding is strict: one
 * spelling per byte string, so a signature cannot be re-encoded into a "different" valid one.
 *
 * @module
 */

import { SchemaPinError } from "../errors.ts";
import { checkArg } from "../arguments.ts";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PAD = 0x3d; // "="

/** Maps a char code below 128 to its 6-bit value, or -1. */
const DECODE: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

/**
 * Encodes bytes as standard, padded Base64.
 *
 * @example
 * ```ts
 * import { encodeBase64 } from "./base64.ts";
 * encodeBase64(new TextEncoder().encode("hi")); // "aGk="
 * ```
 */
export function encodeBase64(bytes: Uint8Array): string {
  checkArg("encodeBase64", "bytes", bytes, "bytes");
  let out = "";
  const full = bytes.length - (bytes.length % 3);
  for (let i = 0; i < full; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] +
      ALPHABET[n & 63];
  }
  const rest = bytes.length - full;
  if (rest === 1) {
    const n = bytes[full] << 16;
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + "==";
  } else if (rest === 2) {
    const n = (bytes[full] << 16) | (bytes[full + 1] << 8);
    out += ALPHABET[n >> 18] + ALPHABET[(n >> 12) & 63] + ALPHABET[(n >> 6) & 63] + "=";
  }
  return out;
}

function describeChar(code: number): string {
  if (code === 0x20) return "a space";
  if (code === 0x09) return "a tab";
  if (code === 0x0a || code === 0x0d) return "a line break";
  if (code === 0x2d || code === 0x5f) {
    return `"${String.fromCharCode(code)}" (URL-safe Base64 is not accepted; use "+" and "/")`;
  }
  if (code < 0x20 || code === 0x7f) {
    return `control character U+${code.toString(16).padStart(4, "0")}`;
  }
  return JSON.stringify(String.fromCharCode(code));
}

/**
 * Decodes standard Base64 strictly: the RFC 4648 alphabet only, `=` padding required, no
 * whitespace or line breaks, and the unused low bits of the last character must be zero
 * (so every byte string has exactly one accepted encoding). The empty string decodes to no
 * bytes.
 *
 * @param text The Base64 text.
 * @param what What the text is, for the error message ("signature", "PEM body of key.pem").
 * @throws {SchemaPinError} `INPUT_INVALID` naming `what` and the offending character offset
 *   (`details.offset`, in UTF-16 code units from the start of `text`).
 *
 * @example
 * ```ts
 * import { decodeBase64Strict } from "./base64.ts";
 * decodeBase64Strict("aGk=", "greeting"); // Uint8Array [104, 105]
 * // decodeBase64Strict("aGl=", "greeting") throws: non-zero trailing bits at offset 2
 * ```
 */
export function decodeBase64Strict(text: string, what: string): Uint8Array<ArrayBuffer> {
  checkArg("decodeBase64Strict", "text", text, "string");
  checkArg("decodeBase64Strict", "what", what, "string");
  const result = scanBase64(text);
  if (result instanceof Uint8Array) return result;
  throw new SchemaPinError(
    "INPUT_INVALID",
    `${what} is not valid Base64: ${result.problem} at offset ${result.offset}`,
    { what, offset: result.offset },
  );
}

/** Why a text is not strict Base64, and where (UTF-16 offset into the text). */
export interface Base64Problem {
  /** What is wrong, e.g. `a space` or `non-zero trailing bits (non-canonical encoding)`. */
  readonly problem: string;
  /** Offset of the offending character. */
  readonly offset: number;
}

/**
 * The decoder behind {@linkcode decodeBase64Strict}: returns the bytes, or the problem and
 * its offset instead of throwing, so callers (PEM, signatures) can phrase their own errors.
 *
 * @example
 * ```ts
 * import { scanBase64 } from "./base64.ts";
 * scanBase64("aGk="); // Uint8Array [104, 105]
 * scanBase64("aG k="); // { problem: "a space", offset: 2 }
 * ```
 */
export function scanBase64(text: string): Uint8Array<ArrayBuffer> | Base64Problem {
  const fail = (problem: string, offset: number): Base64Problem => ({ problem, offset });
  const len = text.length;
  // Characters outside the alphabet are reported first: they are the likeliest mistake.
  let firstPad = -1;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c === PAD) {
      if (firstPad < 0) firstPad = i;
    } else if (c >= 128 || DECODE[c] < 0) {
      return fail(describeChar(c), i);
    } else if (firstPad >= 0) {
      return fail(`${describeChar(c)} after padding "="`, i);
    }
  }
  // "=" may only fill the last one or two places of the final quantum.
  if (firstPad >= 0 && firstPad < len - 2) return fail(`padding "=" before the end`, firstPad);
  const pads = firstPad < 0 ? 0 : len - firstPad;
  if (len % 4 !== 0) {
    return fail(`length ${len} is not a multiple of 4 (padding "=" is required)`, len);
  }

  const out = new Uint8Array((len / 4) * 3 - pads);
  let o = 0;
  for (let i = 0; i < len; i += 4) {
    const a = DECODE[text.charCodeAt(i)];
    const b = DECODE[text.charCodeAt(i + 1)];
    const isLast = i + 4 === len;
    if (isLast && pads === 2) {
      if ((b & 15) !== 0) return fail("non-zero trailing bits (non-canonical encoding)", i + 1);
      out[o++] = (a << 2) | (b >> 4);
      break;
    }
    const c = DECODE[text.charCodeAt(i + 2)];
    if (isLast && pads === 1) {
      if ((c & 3) !== 0) return fail("non-zero trailing bits (non-canonical encoding)", i + 2);
      out[o++] = (a << 2) | (b >> 4);
      out[o++] = ((b & 15) << 4) | (c >> 2);
      break;
    }
    const d = DECODE[text.charCodeAt(i + 3)];
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 15) << 4) | (c >> 2);
    out[o++] = ((c & 3) << 6) | d;
  }
  return out;
}
