/**
 * Latin-1 text of HTTP head bytes and back (lib/http/server.ts): a head's bytes map one to one
 * onto a ByteString, so a field value with bytes above 0x7F survives the round trip.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Latin-1 text of bytes (header bytes map one to one onto a ByteString).
 *
 * @example
 * ```ts
 * import { latin1 } from "./latin1.ts";
 * latin1(new Uint8Array([0x48, 0x69, 0xe9])); // "Hié"
 * ```
 */
export function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  }
  return s;
}

/**
 * Bytes of a ByteString (each char ≤ 0xFF).
 *
 * @example
 * ```ts
 * import { latin1Bytes } from "./latin1.ts";
 * latin1Bytes("Hié"); // Uint8Array [0x48, 0x69, 0xe9]
 * ```
 */
export function latin1Bytes(text: string): Uint8Array {
  // deno-lint-ignore no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) return encoder.encode(text);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}
