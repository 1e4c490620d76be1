/**
 * Code point order of strings: the order of skill paths (§4b.3), of batch file names and of
 * canonical names. JavaScript's `<` compares UTF-16 code units, which differs from code point
 * (= UTF-8 byte) order only where a surrogate meets a code unit at or above U+E000.
 *
 * @module
 */

/**
 * Compares two strings by code point, like comparing their UTF-8 bytes, without encoding or
 * building arrays.
 *
 * @example
 * ```ts
 * import { compareCodePoints } from "./order.ts";
 * ["\u{1F600}", "\uFB01", "a"].sort(compareCodePoints); // ["a", "\uFB01", "\u{1F600}"]
 * ```
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800–U+DFFF) encode code points above U+FFFF: they sort after U+E000–U+FFFF.
    const sx = x >= 0xd800 && x <= 0xdfff ? x + 0x2000 : x >= 0xe000 ? x - 0x800 : x;
    const sy = y >= 0xd800 && y <= 0xdfff ? y + 0x2000 : y >= 0xe000 ? y - 0x800 : y;
    return sx - sy;
  }
  return a.length - b.length;
}
