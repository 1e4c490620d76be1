/**
 * Where values are in a JSON text: the spans (UTF-16 indexes) of an object's members and of
 * an array's elements, so a caller can replace one value and leave every other byte of a file
 * — formatting, comments — as it was. Used to edit MCP client configurations in place.
 *
 * The text must already have been accepted by the strict parser (after
 * {@linkcode blankJsoncText} for JSONC): these functions only find boundaries, they do not
 * validate, and they throw a plain `Error` on text that is not JSON (a programming error).
 *
 * @module
 */
import { parseJsonText } from "../../lib/json/parse.ts";

/** A span of text: `text.slice(start, end)`. */
export interface Span {
  /** Index of the first unit. */
  readonly start: number;
  /** Index after the last unit. */
  readonly end: number;
}

/** One member of an object. */
export interface MemberSpan {
  /** The member's name (escapes decoded). */
  readonly name: string;
  /** The quoted name. */
  readonly nameSpan: Span;
  /** The value. */
  readonly value: Span;
}

function skipWhitespace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

function stringEnd(text: string, i: number): number {
  for (i++; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  throw new Error("unterminated string");
}

/** The end of the value that starts at `i` (no leading whitespace). */
export function valueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c === 0x7b || c === 0x5b) {
    const close = c === 0x7b ? 0x7d : 0x5d;
    i = skipWhitespace(text, i + 1);
    if (text.charCodeAt(i) === close) return i + 1;
    for (;;) {
      if (c === 0x7b) {
        i = skipWhitespace(text, stringEnd(text, i));
        if (text.charCodeAt(i) !== 0x3a) throw new Error(`expected ':' at ${i}`);
        i = skipWhitespace(text, i + 1);
      }
      i = skipWhitespace(text, valueEnd(text, i));
      const d = text.charCodeAt(i);
      if (d === close) return i + 1;
      if (d !== 0x2c) throw new Error(`expected ',' at ${i}`);
      i = skipWhitespace(text, i + 1);
    }
  }
  let k = i;
  while (k < text.length && /[-+.0-9a-zA-Z]/.test(text[k])) k++;
  if (k === i) throw new Error(`expected a value at ${i}`);
  return k;
}

/**
 * The members of the object whose `{` is at `start`, in document order.
 *
 * @example
 * ```ts
 * import { objectMembers } from "./spans.ts";
 * objectMembers('{"a": 1, "b": [2]}', 0).map((m) => m.name); // ["a", "b"]
 * ```
 */
export function objectMembers(text: string, start: number): MemberSpan[] {
  if (text.charCodeAt(start) !== 0x7b) throw new Error(`expected '{' at ${start}`);
  const members: MemberSpan[] = [];
  let i = skipWhitespace(text, start + 1);
  if (text.charCodeAt(i) === 0x7d) return members;
  for (;;) {
    const nameEnd = stringEnd(text, i);
    const name = parseJsonText(text.slice(i, nameEnd)) as string;
    let v = skipWhitespace(text, nameEnd);
    v = skipWhitespace(text, v + 1); // ':'
    const end = valueEnd(text, v);
    members.push({ name, nameSpan: { start: i, end: nameEnd }, value: { start: v, end } });
    i = skipWhitespace(text, end);
    if (text.charCodeAt(i) === 0x7d) return members;
    i = skipWhitespace(text, i + 1); // ','
  }
}

/**
 * The spans of the elements of the array whose `[` is at `start`.
 *
 * @example
 * ```ts
 * import { arrayElements } from "./spans.ts";
 * arrayElements('["x", 2]', 0); // [{ start: 1, end: 4 }, { start: 6, end: 7 }]
 * ```
 */
export function arrayElements(text: string, start: number): Span[] {
  if (text.charCodeAt(start) !== 0x5b) throw new Error(`expected '[' at ${start}`);
  const out: Span[] = [];
  let i = skipWhitespace(text, start + 1);
  if (text.charCodeAt(i) === 0x5d) return out;
  for (;;) {
    const end = valueEnd(text, i);
    out.push({ start: i, end });
    i = skipWhitespace(text, end);
    if (text.charCodeAt(i) === 0x5d) return out;
    i = skipWhitespace(text, i + 1);
  }
}

/**
 * The span of the value at `path` (member names from the root), or `undefined` when a member
 * is missing or a value on the way is not an object.
 *
 * @example
 * ```ts
 * import { valueAt } from "./spans.ts";
 * const text = '{"mcpServers": {"fs": {"command": "npx"}}}';
 * const s = valueAt(text, ["mcpServers", "fs", "command"])!;
 * text.slice(s.start, s.end); // '"npx"'
 * ```
 */
export function valueAt(text: string, path: readonly string[]): Span | undefined {
  const root = skipWhitespace(text, 0);
  let span: Span = { start: root, end: valueEnd(text, root) };
  for (const name of path) {
    if (text.charCodeAt(span.start) !== 0x7b) return undefined;
    const m = objectMembers(text, span.start).find((x) => x.name === name);
    if (!m) return undefined;
    span = m.value;
  }
  return span;
}
