/**
 * "Did you mean …?" for a mistyped command, subcommand or flag: the known words closest to
 * what was typed, by edit distance (insertions, deletions, substitutions and swaps of two
 * neighbouring letters each count 1), offered only when they are close.
 *
 * @module
 */

/**
 * The edit distance between `a` and `b`: the fewest insertions, deletions, substitutions and
 * transpositions of adjacent characters turning one into the other (optimal string alignment).
 *
 * @example
 * ```ts
 * import { editDistance } from "./suggest.ts";
 * editDistance("verfy-schema", "verify-schema"); // 1
 * editDistance("sing", "sign"); // 1 (a swap)
 * ```
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2][j - 2] + 1);
      }
      d[i][j] = best;
    }
  }
  return d[rows - 1][cols - 1];
}

/** The largest distance still offered for a typed word of `length` characters. */
function allowedDistance(length: number): number {
  if (length <= 2) return 0;
  if (length <= 4) return 1;
  if (length <= 8) return 2;
  return 3;
}

/**
 * The known words closest to `typed` (ties in the order of `known`), or `[]` when none is
 * close: within 1 edit for a word of 3–4 characters, 2 up to 8, 3 beyond (case is ignored).
 * A known word of at least 3 characters that `typed` starts with (`output` → `out`), or that
 * starts with a `typed` of at least 3 characters (`verify` → `verify-schema`), is close too.
 * Leading dashes are compared as typed, so pass flags with their `--` on both sides.
 *
 * @example
 * ```ts
 * import { closest } from "./suggest.ts";
 * closest("verfy-schema", ["sign-schema", "verify-schema"]); // ["verify-schema"]
 * closest("--ouput", ["--out", "--json"]); // ["--out"]
 * closest("frobnicate", ["keygen", "revoke"]); // []
 * ```
 */
export function closest(typed: string, known: readonly string[]): string[] {
  const word = typed.toLowerCase();
  const bare = word.replace(/^-+/, "");
  const limit = allowedDistance(bare.length);
  let best = Infinity;
  let found: string[] = [];
  for (const candidate of known) {
    if (candidate === typed) return [candidate];
    const other = candidate.toLowerCase();
    const otherBare = other.replace(/^-+/, "");
    let distance = editDistance(word, other);
    const prefix = (otherBare.length >= 3 && bare.startsWith(otherBare)) ||
      (bare.length >= 3 && otherBare.startsWith(bare));
    if (distance > limit) {
      if (!prefix) continue;
      distance = limit + 1; // a prefix match ranks after every close spelling
    }
    if (distance < best) {
      best = distance;
      found = [candidate];
    } else if (distance === best && !found.includes(candidate)) {
      found.push(candidate);
    }
  }
  return found;
}

/**
 * The " (did you mean X?)" text for a message about `typed`, or "" when nothing is close.
 * At most three alternatives are named.
 *
 * @example
 * ```ts
 * import { didYouMean } from "./suggest.ts";
 * didYouMean("verfy-schema", ["verify-schema", "verify-skill"]); // "; did you mean verify-schema?"
 * didYouMean("xyz", ["keygen"]); // ""
 * ```
 */
export function didYouMean(typed: string, known: readonly string[]): string {
  const found = closest(typed, known).slice(0, 3);
  if (found.length === 0) return "";
  const list = found.length === 1
    ? found[0]
    : `${found.slice(0, -1).join(", ")} or ${found[found.length - 1]}`;
  return `; did you mean ${list}?`;
}
