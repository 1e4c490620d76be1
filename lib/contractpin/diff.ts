/**
 * A line-based unified diff (Myers' O(ND) algorithm) for showing what changed in a contract:
 * `--- locked` / `+++ live` headers and `@@` hunks with three lines of context, like `diff -u`.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";

/** One line of an edit script. */
export interface DiffLine {
  /** `" "` kept, `"-"` only in the old text, `"+"` only in the new text. */
  readonly op: " " | "-" | "+";
  /** The line, without its newline. */
  readonly text: string;
}

/** Above this many edits the diff is shown as "everything replaced" (bounded memory). */
const MAX_EDITS = 4000;

/**
 * The shortest edit script turning `a` into `b`.
 *
 * @example
 * ```ts
 * import { diffLines } from "./diff.ts";
 * diffLines(["a", "b"], ["a", "c"]).map((l) => l.op + l.text); // [" a", "-b", "+c"]
 * ```
 */
export function diffLines(a: readonly string[], b: readonly string[]): DiffLine[] {
  checkArg("diffLines", "a", a, "array");
  checkArg("diffLines", "b", b, "array");
  const n = a.length, m = b.length;
  const max = Math.min(n + m, MAX_EDITS);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    const next = v;
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && next[offset + k - 1] < next[offset + k + 1])
        ? next[offset + k + 1]
        : next[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
    v = next;
  }
  if (!found) {
    return [
      ...a.map((text) => ({ op: "-" as const, text })),
      ...b.map((text) => ({ op: "+" as const, text })),
    ];
  }
  const out: DiffLine[] = [];
  let x = n, y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1] < vd[offset + k + 1]) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[offset + prevK];
    const prevY = d === 0 ? 0 : prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push({ op: " ", text: a[--x] });
      y--;
    }
    if (d > 0) {
      if (x === prevX) out.push({ op: "+", text: b[--y] });
      else out.push({ op: "-", text: a[--x] });
    }
  }
  return out.reverse();
}

/**
 * A unified diff of two texts given as lines; the empty string when they are equal.
 *
 * @param context lines of context around each change (default 3)
 *
 * @example
 * ```ts
 * import { unifiedDiff } from "./diff.ts";
 * console.log(unifiedDiff(["a", "b"], ["a", "c"], "locked", "live"));
 * // --- locked
 * // +++ live
 * // @@ -1,2 +1,2 @@
 * //  a
 * // -b
 * // +c
 * ```
 */
export function unifiedDiff(
  a: readonly string[],
  b: readonly string[],
  fromLabel: string,
  toLabel: string,
  context = 3,
): string {
  checkArg("unifiedDiff", "a", a, "array");
  checkArg("unifiedDiff", "b", b, "array");
  checkArg("unifiedDiff", "fromLabel", fromLabel, "string");
  checkArg("unifiedDiff", "toLabel", toLabel, "string");
  checkArg("unifiedDiff", "context", context, "number");
  const script = diffLines(a, b);
  if (script.every((l) => l.op === " ")) return "";
  const lines = [`--- ${fromLabel}`, `+++ ${toLabel}`];
  // Positions (old line, new line) before each script entry.
  const posA: number[] = [], posB: number[] = [];
  let ia = 0, ib = 0;
  for (const l of script) {
    posA.push(ia);
    posB.push(ib);
    if (l.op !== "+") ia++;
    if (l.op !== "-") ib++;
  }
  let i = 0;
  while (i < script.length) {
    if (script[i].op === " ") {
      i++;
      continue;
    }
    let start = Math.max(0, i - context);
    let end = i;
    // Extend while the next change is within 2*context kept lines.
    while (true) {
      while (end < script.length && script[end].op !== " ") end++;
      let j = end;
      while (j < script.length && script[j].op === " " && j - end < 2 * context) j++;
      if (j < script.length && script[j].op !== " " && j - end <= 2 * context) {
        end = j;
        continue;
      }
      end = Math.min(script.length, end + context);
      break;
    }
    const hunk = script.slice(start, end);
    const oldCount = hunk.filter((l) => l.op !== "+").length;
    const newCount = hunk.filter((l) => l.op !== "-").length;
    const oldStart = oldCount === 0 ? posA[start] : posA[start] + 1;
    const newStart = newCount === 0 ? posB[start] : posB[start] + 1;
    lines.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const l of hunk) lines.push(l.op + l.text);
    i = end;
    start = end;
  }
  return lines.join("\n") + "\n";
}
