/**
 * JSON with comments (JSONC), for MCP client configuration files only — VS Code's
 * `.vscode/mcp.json` and the editors built on it allow `//` and `/* *\/` comments and trailing
 * commas. Signed data, locks, snapshots and everything else stay strict JSON: nothing outside
 * the client-config readers calls this module.
 *
 * The JSONC step is small on purpose: comments and trailing commas outside strings are
 * overwritten with spaces (line breaks kept), and the result goes through the strict parser
 * {@linkcode parseJson} — duplicate names, bad escapes, a BOM and the rest are still errors.
 * Because nothing moves, a byte offset (and line) in an error is the offset in the original
 * file, and a position in the blanked text is the position in the original text, which lets a
 * config be edited in place with its comments kept.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { parseJson } from "../../lib/json/parse.ts";
import type { JsonValue } from "../../lib/json/types.ts";

const SPACE = 0x20, LF = 0x0a, CR = 0x0d, TAB = 0x09, QUOTE = 0x22, BACKSLASH = 0x5c;
const SLASH = 0x2f, STAR = 0x2a, COMMA = 0x2c, RBRACE = 0x7d, RBRACKET = 0x5d;
const LBRACE = 0x7b, LBRACKET = 0x5b, COLON = 0x3a;

/**
 * Blanks comments and trailing commas in code units (UTF-8 bytes or UTF-16 units: every
 * delimiter is ASCII, and no unit of a multi-unit character is below 0x80). Returns a copy and
 * the index of an unterminated block comment, if any.
 */
function blank<T extends Uint8Array | Uint16Array>(units: T): { out: T; open: number } {
  const out = units.slice() as T;
  const n = out.length;
  // A comma is trailing when a value comes before it and a closing bracket after it; `{,}`
  // and `[1,,]` are left for the strict parser to refuse.
  let pendingComma = -1;
  let last = 0; // the last unit outside strings and comments that is not whitespace
  let i = 0;
  while (i < n) {
    const c = out[i];
    if (c === QUOTE) {
      pendingComma = -1;
      i++;
      while (i < n && out[i] !== QUOTE && out[i] !== LF) i += out[i] === BACKSLASH ? 2 : 1;
      i++;
      last = QUOTE;
    } else if (c === SLASH && out[i + 1] === SLASH) {
      while (i < n && out[i] !== LF && out[i] !== CR) out[i++] = SPACE;
    } else if (c === SLASH && out[i + 1] === STAR) {
      const start = i;
      out[i++] = SPACE;
      out[i++] = SPACE;
      while (i < n && !(out[i] === STAR && out[i + 1] === SLASH)) {
        if (out[i] !== LF && out[i] !== CR) out[i] = SPACE;
        i++;
      }
      if (i >= n) return { out, open: start };
      out[i++] = SPACE;
      out[i++] = SPACE;
    } else if (c === SPACE || c === LF || c === CR || c === TAB) {
      i++;
    } else {
      if ((c === RBRACE || c === RBRACKET) && pendingComma >= 0) out[pendingComma] = SPACE;
      const afterValue = last !== 0 && last !== LBRACE && last !== LBRACKET && last !== COMMA &&
        last !== COLON;
      pendingComma = c === COMMA && afterValue ? i : -1;
      last = c;
      i++;
    }
  }
  return { out, open: -1 };
}

/**
 * Text with its JSONC comments and trailing commas replaced by spaces: same length, same
 * positions, so spans found in the result are spans of the original text.
 *
 * @throws {SchemaPinError} `JSON_INVALID` for a block comment that is never closed
 *
 * @example
 * ```ts
 * import { blankJsoncText } from "./jsonc.ts";
 * blankJsoncText('{"a": 1, // one\n}') === '{"a": 1' + " ".repeat(8) + "\n}"; // true
 * ```
 */
export function blankJsoncText(text: string, source?: string): string {
  const units = new Uint16Array(text.length);
  for (let k = 0; k < text.length; k++) units[k] = text.charCodeAt(k);
  const { out, open } = blank(units);
  if (open >= 0) unterminated(new TextEncoder().encode(text.slice(0, open)).length, source);
  let s = "";
  for (let k = 0; k < out.length; k += 8192) {
    s += String.fromCharCode(...out.subarray(k, k + 8192));
  }
  return s;
}

function unterminated(offset: number, source: string | undefined): never {
  throw new SchemaPinError(
    "JSON_INVALID",
    `${source ? source + ": " : ""}a /* comment is never closed (opened at byte ${offset})`,
    { offset, source },
  );
}

/**
 * Parses a JSONC document (an MCP client configuration): comments and trailing commas are
 * allowed, everything else is strict JSON as {@linkcode parseJson} reads it. Error offsets are
 * byte offsets in `bytes`.
 *
 * @param source the file name for error messages
 * @throws {SchemaPinError} `JSON_INVALID` with `details.offset` (byte), `line`, `column`
 *
 * @example
 * ```ts
 * import { parseJsonc } from "./jsonc.ts";
 * const text = '{\n  // VS Code\n  "servers": {"fs": {"command": "npx",},},\n}';
 * parseJsonc(new TextEncoder().encode(text), "mcp.json"); // { servers: { fs: { command: "npx" } } }
 * ```
 */
export function parseJsonc(bytes: Uint8Array, source?: string): JsonValue {
  const { out, open } = blank(bytes);
  if (open >= 0) unterminated(open, source);
  return parseJson(out, source);
}
