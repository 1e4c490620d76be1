/**
 * A strict JSON parser: bytes in, values out, RFC 8259 grammar only, and every input that
 * has no single meaning rejected with the byte offset (and line:column) where it goes wrong.
 *
 * Rejected: invalid UTF-8 (including overlong forms and encoded surrogates), a leading UTF-8
 * byte order mark (a BOM is not part of JSON and would otherwise be silently hashed or
 * silently dropped, so we refuse it and say so), duplicate object names (also when one is
 * spelled with `\u` escapes), lone surrogates (escaped; raw ones are invalid UTF-8), control
 * characters inside strings, trailing garbage, leading zeros, `NaN`/`Infinity`, comments,
 * trailing commas, single quotes, numbers that overflow to ±Infinity, and nesting deeper than
 * {@linkcode MAX_JSON_DEPTH}.
 *
 * Names such as `__proto__`, `constructor` and `prototype` are stored as own data properties
 * (spec §4 item 8): the parser never assigns through a prototype.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonValue } from "./types.ts";

/**
 * The deepest nesting of arrays and objects the parser and the canonicalizers accept. Real
 * tool schemas are a few levels deep; the limit keeps recursion far from the JS stack limit,
 * so 100,000 nested `[` is a clean `JSON_INVALID` error rather than a RangeError.
 *
 * @example
 * ```ts
 * import { MAX_JSON_DEPTH } from "./parse.ts";
 * console.log(MAX_JSON_DEPTH); // 1000
 * ```
 */
export const MAX_JSON_DEPTH = 1000;

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder("utf-8");

/**
 * Parses strict JSON from UTF-8 bytes.
 *
 * @param bytes the document
 * @param source a name for error messages (a file name, "stdin", a field)
 * @throws {SchemaPinError} `JSON_INVALID` with `details.offset` (byte), `line`, `column`
 *
 * @example
 * ```ts
 * import { parseJson } from "./parse.ts";
 * const v = parseJson(new TextEncoder().encode('{"name":"add","__proto__":1}'));
 * console.log(Object.keys(v as object)); // ["name", "__proto__"]
 * ```
 */
export function parseJson(bytes: Uint8Array, source?: string): JsonValue {
  new Validator(bytes, source).validateDocument();
  return JSON.parse(utf8.decode(bytes));
}

/**
 * Parses strict JSON from a string (encoded to UTF-8 first, so offsets are byte offsets of
 * that encoding). A string holding a lone surrogate cannot be encoded and is rejected.
 *
 * @example
 * ```ts
 * import { parseJsonText } from "./parse.ts";
 * parseJsonText('[1, 2.5, "x"]'); // [1, 2.5, "x"]
 * ```
 */
export function parseJsonText(text: string, source?: string): JsonValue {
  if (!text.isWellFormed()) {
    throw new SchemaPinError(
      "JSON_INVALID",
      `${source ? source + ": " : ""}text contains a lone surrogate and is not valid Unicode`,
      { source },
    );
  }
  return parseJson(new TextEncoder().encode(text), source);
}

// Byte classes.
const QUOTE = 0x22, BACKSLASH = 0x5c, MINUS = 0x2d, PLUS = 0x2b, DOT = 0x2e, ZERO = 0x30;
const NINE = 0x39, COLON = 0x3a, COMMA = 0x2c, LBRACE = 0x7b, RBRACE = 0x7d;
const LBRACKET = 0x5b, RBRACKET = 0x5d, LOWER_E = 0x65, UPPER_E = 0x45;

function isWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function hexValue(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function describeByte(c: number | undefined): string {
  if (c === undefined) return "end of input";
  if (c >= 0x21 && c < 0x7f) return `'${String.fromCharCode(c)}'`;
  return `byte 0x${c.toString(16).padStart(2, "0")}`;
}

/**
 * Strict validation pass. It checks every rule of the module documentation over the bytes,
 * without building values; `JSON.parse` then materialises the validated text natively (for
 * strict RFC 8259 input it yields exactly the values the grammar defines, and it defines a
 * `"__proto__"` name as an own property). This is several times faster than building values
 * in JavaScript, because creating short strings from bytes is expensive in JS.
 *
 * Duplicate names are found by hashing each name's decoded UTF-8 bytes (so `"a"` and
 * `"\u0061"` collide); names with equal hashes are decoded and compared exactly.
 */
class Validator {
  private i = 0;
  private depth = 0;
  private keyHash = 0;

  constructor(private readonly b: Uint8Array, private readonly source?: string) {}

  validateDocument(): void {
    const b = this.b;
    if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
      this.fail("a UTF-8 byte order mark is not allowed in JSON; save the file without a BOM", 0);
    }
    this.skipWhitespace();
    this.value();
    this.skipWhitespace();
    if (this.i < b.length) this.fail(`unexpected ${describeByte(b[this.i])} after the JSON value`);
  }

  fail(what: string, offset: number = this.i): never {
    const { line, column } = lineColumn(this.b, offset);
    const where = `${this.source ? this.source + ": " : ""}`;
    throw new SchemaPinError(
      "JSON_INVALID",
      `${where}${what} at byte ${offset} (line ${line}, column ${column})`,
      { offset, line, column, source: this.source },
    );
  }

  private skipWhitespace(): void {
    const b = this.b;
    let i = this.i;
    while (i < b.length && isWhitespace(b[i])) i++;
    this.i = i;
  }

  private value(): void {
    const c = this.b[this.i];
    switch (c) {
      case LBRACE:
        return this.object();
      case LBRACKET:
        return this.array();
      case QUOTE:
        this.string(false);
        return;
      case 0x74: // t
        return this.literal("true");
      case 0x66: // f
        return this.literal("false");
      case 0x6e: // n
        return this.literal("null");
      default:
        if (c === MINUS || isDigit(c)) return this.number();
        return this.unexpectedValue(c);
    }
  }

  private unexpectedValue(c: number | undefined): never {
    if (c === 0x27) this.fail("single-quoted strings are not JSON");
    if (c === 0x2f) this.fail("comments are not JSON");
    if (c === 0x4e || c === 0x49) this.fail("NaN and Infinity are not JSON");
    if (c === PLUS) this.fail("a leading '+' is not JSON");
    if (c === DOT) this.fail("a number must start with a digit");
    this.fail(`unexpected ${describeByte(c)}: expected a value`);
  }

  private literal(word: string): void {
    const b = this.b;
    for (let k = 0; k < word.length; k++) {
      if (b[this.i + k] !== word.charCodeAt(k)) this.fail(`invalid literal (expected "${word}")`);
    }
    this.i += word.length;
  }

  private enter(): void {
    if (++this.depth > MAX_JSON_DEPTH) this.fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
    this.i++;
    this.skipWhitespace();
  }

  private array(): void {
    const b = this.b;
    this.enter();
    if (b[this.i] === RBRACKET) {
      this.i++;
      this.depth--;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      this.value();
      this.skipWhitespace();
      const c = b[this.i];
      if (c === COMMA) {
        this.i++;
        this.skipWhitespace();
        if (b[this.i] === RBRACKET) this.fail("trailing comma in array");
        continue;
      }
      if (c === RBRACKET) {
        this.i++;
        this.depth--;
        return;
      }
      if (c === 0x2f) this.fail("comments are not JSON");
      this.fail(`unexpected ${describeByte(c)} in array: expected ',' or ']'`);
    }
  }

  private object(): void {
    const b = this.b;
    this.enter();
    if (b[this.i] === RBRACE) {
      this.i++;
      this.depth--;
      return;
    }
    const hashes: number[] = [];
    const starts: number[] = [];
    for (;;) {
      this.skipWhitespace();
      const keyOffset = this.i;
      const k = b[keyOffset];
      if (k !== QUOTE) {
        if (k === 0x27) this.fail("single-quoted names are not JSON");
        if (k === RBRACE) this.fail("trailing comma in object");
        if (k === 0x2f) this.fail("comments are not JSON");
        this.fail(`unexpected ${describeByte(k)}: expected a quoted name`);
      }
      this.string(true);
      const h = this.keyHash;
      for (let j = hashes.indexOf(h); j !== -1; j = hashes.indexOf(h, j + 1)) {
        const name = this.decodeString(keyOffset);
        if (this.decodeString(starts[j]) === name) {
          this.fail(`duplicate name ${JSON.stringify(name)} in object`, keyOffset);
        }
      }
      hashes.push(h);
      starts.push(keyOffset);
      this.skipWhitespace();
      if (b[this.i] !== COLON) this.fail(`unexpected ${describeByte(b[this.i])}: expected ':'`);
      this.i++;
      this.skipWhitespace();
      this.value();
      this.skipWhitespace();
      const c = b[this.i];
      if (c === COMMA) {
        this.i++;
        continue;
      }
      if (c === RBRACE) {
        this.i++;
        this.depth--;
        return;
      }
      if (c === 0x2f) this.fail("comments are not JSON");
      this.fail(`unexpected ${describeByte(c)} in object: expected ',' or '}'`);
    }
  }

  /** Decodes the (already validated) string token starting at `offset`. Slow; rare. */
  private decodeString(offset: number): string {
    let end = offset + 1;
    while (this.b[end] !== QUOTE) end += this.b[end] === BACKSLASH ? 2 : 1;
    return JSON.parse(utf8.decode(this.b.subarray(offset, end + 1)));
  }

  private number(): void {
    const b = this.b;
    const start = this.i;
    let i = start;
    if (b[i] === MINUS) i++;
    if (b[i] === ZERO) {
      i++;
      if (isDigit(b[i])) this.fail("leading zeros are not allowed in numbers", start);
    } else if (isDigit(b[i])) {
      while (isDigit(b[i])) i++;
    } else {
      if (b[i] === 0x49) this.fail("NaN and Infinity are not JSON", start);
      this.fail("a '-' must be followed by a digit", i);
    }
    if (b[i] === DOT) {
      i++;
      if (!isDigit(b[i])) this.fail("a decimal point must be followed by a digit", i);
      while (isDigit(b[i])) i++;
    }
    let exponent = false;
    if (b[i] === LOWER_E || b[i] === UPPER_E) {
      exponent = true;
      i++;
      if (b[i] === PLUS || b[i] === MINUS) i++;
      if (!isDigit(b[i])) this.fail("an exponent must have digits", i);
      while (isDigit(b[i])) i++;
    }
    this.i = i;
    // Only an exponent or more than 308 digits can overflow a double.
    if (
      (exponent || i - start > 308) && !Number.isFinite(Number(latin1.decode(b.subarray(start, i))))
    ) {
      this.fail("number is too large for an IEEE 754 double (overflows to Infinity)", start);
    }
  }

  /**
   * Validates a string token. For names (`isKey`), leaves in `keyHash` an FNV-1a hash of the
   * decoded name's UTF-8 bytes, so differently escaped spellings of one name hash alike.
   */
  private string(isKey: boolean): void {
    const b = this.b;
    const start = this.i;
    let i = start + 1;
    let h = 0x811c9dc5;
    for (;;) {
      const c = b[i];
      if (c === QUOTE) break;
      if (c === undefined) this.fail("unterminated string", start);
      if (c < 0x20) {
        this.fail(
          `control character U+${c.toString(16).padStart(4, "0").toUpperCase()} ` +
            "must be escaped inside a string",
          i,
        );
      }
      if (c < 0x80 && c !== BACKSLASH) {
        if (isKey) h = Math.imul(h ^ c, 0x01000193);
        i++;
        continue;
      }
      if (c >= 0x80) {
        const next = this.utf8Sequence(i);
        if (isKey) { for (; i < next; i++) h = Math.imul(h ^ b[i], 0x01000193); }
        i = next;
        continue;
      }
      // An escape.
      const e = b[i + 1];
      let unit: number;
      let skip = 2;
      switch (e) {
        case QUOTE:
        case BACKSLASH:
        case 0x2f:
          unit = e;
          break;
        case 0x62:
          unit = 0x08;
          break;
        case 0x66:
          unit = 0x0c;
          break;
        case 0x6e:
          unit = 0x0a;
          break;
        case 0x72:
          unit = 0x0d;
          break;
        case 0x74:
          unit = 0x09;
          break;
        case 0x75: {
          unit = this.hex4(i + 2, i);
          skip = 6;
          if (unit >= 0xd800 && unit <= 0xdbff) {
            const low = b[i + 6] === BACKSLASH && b[i + 7] === 0x75 ? this.hex4(i + 8, i + 6) : -1;
            if (low < 0xdc00 || low > 0xdfff) {
              this.fail(`lone high surrogate \\u${unit.toString(16)} has no pair`, i);
            }
            unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
            skip = 12;
          } else if (unit >= 0xdc00 && unit <= 0xdfff) {
            this.fail(`lone low surrogate \\u${unit.toString(16)} has no pair`, i);
          }
          break;
        }
        default:
          this.fail(`invalid escape ${e === undefined ? "at end of input" : describeByte(e)}`, i);
      }
      if (isKey) h = hashCodePoint(h, unit);
      i += skip;
    }
    this.i = i + 1;
    this.keyHash = h;
  }

  private hex4(at: number, escapeOffset: number): number {
    const b = this.b;
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const h = hexValue(b[at + k]);
      if (h < 0) this.fail("\\u must be followed by four hex digits", escapeOffset);
      v = (v << 4) | h;
    }
    return v;
  }

  /** Validates one UTF-8 sequence starting at `i` (RFC 3629 table); returns the next offset. */
  private utf8Sequence(i: number): number {
    const b = this.b;
    const c = b[i];
    let need: number, lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c === 0xe0) (need = 2), (lo = 0xa0);
    else if (c >= 0xe1 && c <= 0xec) need = 2;
    else if (c === 0xed) (need = 2), (hi = 0x9f); // U+D800..U+DFFF are not scalar values
    else if (c >= 0xee && c <= 0xef) need = 2;
    else if (c === 0xf0) (need = 3), (lo = 0x90);
    else if (c >= 0xf1 && c <= 0xf3) need = 3;
    else if (c === 0xf4) (need = 3), (hi = 0x8f);
    else {
      const why = c === 0xc0 || c === 0xc1 ? "overlong encoding" : "not a UTF-8 lead byte";
      this.fail(`invalid UTF-8 (${why}: 0x${c.toString(16)})`, i);
    }
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      const min = k === 1 ? lo : 0x80, max = k === 1 ? hi : 0xbf;
      if (d === undefined || d < min || d > max) {
        const why = k === 1 && c === 0xed && d !== undefined && d >= 0xa0
          ? "encoded surrogate"
          : k === 1 && c === 0xf4 && d !== undefined && d > 0x8f
          ? "code point above U+10FFFF"
          : k === 1 && (c === 0xe0 || c === 0xf0) && d !== undefined && d < lo
          ? "overlong encoding"
          : "bad continuation byte";
        this.fail(`invalid UTF-8 (${why})`, i);
      }
    }
    return i + need + 1;
  }
}

/** Feeds the UTF-8 encoding of code point `cp` into an FNV-1a hash. */
function hashCodePoint(h: number, cp: number): number {
  if (cp < 0x80) return Math.imul(h ^ cp, 0x01000193);
  if (cp < 0x800) {
    h = Math.imul(h ^ (0xc0 | (cp >> 6)), 0x01000193);
  } else {
    if (cp < 0x10000) {
      h = Math.imul(h ^ (0xe0 | (cp >> 12)), 0x01000193);
    } else {
      h = Math.imul(h ^ (0xf0 | (cp >> 18)), 0x01000193);
      h = Math.imul(h ^ (0x80 | ((cp >> 12) & 0x3f)), 0x01000193);
    }
    h = Math.imul(h ^ (0x80 | ((cp >> 6) & 0x3f)), 0x01000193);
  }
  return Math.imul(h ^ (0x80 | (cp & 0x3f)), 0x01000193);
}

/** 1-based line and column (in characters) of a byte offset, for error messages. */
function lineColumn(b: Uint8Array, offset: number): { line: number; column: number } {
  let line = 1, lineStart = 0;
  const end = Math.min(offset, b.length);
  for (let i = 0; i < end; i++) {
    if (b[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  let column = 1;
  for (let i = lineStart; i < end; i++) if ((b[i] & 0xc0) !== 0x80) column++;
  return { line, column };
}
