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
 * Every value is built here, in one pass, from the decoded text; the runtime's `JSON.parse`
 * is never used. The V8 in Deno 2.9.6 has a `JSON.parse` defect that reads an escaped object
 * name as an earlier, differently escaped name of the same length (renaming or merging
 * members), which let tampered bytes canonicalize like the signed ones (issue 12). Building
 * values ourselves makes the result depend on the bytes only. The cost is linear in the input
 * for every shape (wide objects included: duplicate names are found with the object's own
 * hashed property lookup).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonObject, JsonValue } from "./types.ts";
import { checkArg } from "../arguments.ts";

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

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lossyUtf8 = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Parses strict JSON from UTF-8 bytes.
 *
 * @param bytes the document
 * @param source a name for error messages (a file name, "stdin", a field)
 * @throws {SchemaPinError} `JSON_INVALID` with `details.offset` (byte), `line`, `column`
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * const v = parseJson(new TextEncoder().encode('{"name":"add","__proto__":1}'));
 * console.log(Object.keys(v as object)); // ["name", "__proto__"]
 * ```
 */
export function parseJson(bytes: Uint8Array, source?: string): JsonValue {
  checkArg("parseJson", "bytes", bytes, "bytes");
  checkArg("parseJson", "source", source, "string", true);
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return failInvalidUtf8(bytes, source);
  }
  return new Parser(text, source).document();
}

/**
 * Parses strict JSON from a string (offsets in errors are byte offsets of its UTF-8
 * encoding). A string holding a lone surrogate cannot be encoded and is rejected.
 *
 * @example
 * ```ts
 * import { parseJsonText } from "./parse.ts";
 * parseJsonText('[1, 2.5, "x"]'); // [1, 2.5, "x"]
 * ```
 */
export function parseJsonText(text: string, source?: string): JsonValue {
  checkArg("parseJsonText", "text", text, "string");
  checkArg("parseJsonText", "source", source, "string", true);
  if (!text.isWellFormed()) {
    throw new SchemaPinError(
      "JSON_INVALID",
      `${source ? source + ": " : ""}text contains a lone surrogate and is not valid Unicode`,
      { source },
    );
  }
  return new Parser(text, source).document();
}

// Character codes.
const QUOTE = 0x22, BACKSLASH = 0x5c, MINUS = 0x2d, PLUS = 0x2b, DOT = 0x2e, ZERO = 0x30;
const NINE = 0x39, COLON = 0x3a, COMMA = 0x2c, LBRACE = 0x7b, RBRACE = 0x7d;
const LBRACKET = 0x5b, RBRACKET = 0x5d, LOWER_E = 0x65, UPPER_E = 0x45, SLASH = 0x2f;

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function hexValue(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** The one-character escapes of RFC 8259 §7: the code unit, by the character after `\` (0: none). */
const SIMPLE_ESCAPES = new Uint16Array(128);
for (
  const [c, unit] of [
    [QUOTE, QUOTE],
    [BACKSLASH, BACKSLASH],
    [SLASH, SLASH],
    [0x62, 0x08],
    [0x66, 0x0c],
    [0x6e, 0x0a],
    [0x72, 0x0d],
    [0x74, 0x09],
  ]
) {
  SIMPLE_ESCAPES[c] = unit;
}

/** 10^0 … 10^22: every one is an exact double. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/** Flush size of the string buffer; `UNIT_CHUNK + 2` units always fit (a pair after a check). */
const UNIT_CHUNK = 8192;
const unitBuffer = new Uint16Array(UNIT_CHUNK + 2);

function describeChar(s: string, i: number): string {
  if (i >= s.length) return "end of input";
  const c = s.codePointAt(i)!;
  if (c >= 0x21 && c < 0x7f) return `'${String.fromCharCode(c)}'`;
  if (c < 0x80) return `byte 0x${c.toString(16).padStart(2, "0")}`;
  return `character U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Recursive-descent parser over the decoded text. Positions are UTF-16 indexes while
 * parsing; an error converts its index to the byte offset of the UTF-8 encoding.
 */
class Parser {
  private i = 0;
  private depth = 0;

  constructor(private readonly s: string, private readonly source?: string) {}

  document(): JsonValue {
    const s = this.s;
    if (s.charCodeAt(0) === 0xfeff) {
      this.fail("a UTF-8 byte order mark is not allowed in JSON; save the file without a BOM", 0);
    }
    this.skipWhitespace();
    const v = this.value();
    this.skipWhitespace();
    if (this.i < s.length) this.fail(`unexpected ${describeChar(s, this.i)} after the JSON value`);
    return v;
  }

  fail(what: string, at: number = this.i): never {
    const prefix = this.s.slice(0, Math.min(at, this.s.length));
    const offset = encoder.encode(prefix).length;
    const newline = prefix.lastIndexOf("\n");
    let line = 1;
    for (let k = prefix.indexOf("\n"); k !== -1; k = prefix.indexOf("\n", k + 1)) line++;
    let column = 1;
    for (const _ of prefix.slice(newline + 1)) column++;
    const where = `${this.source ? this.source + ": " : ""}`;
    throw new SchemaPinError(
      "JSON_INVALID",
      `${where}${what} at byte ${offset} (line ${line}, column ${column})`,
      { offset, line, column, source: this.source },
    );
  }

  private skipWhitespace(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  private value(): JsonValue {
    const c = this.s.charCodeAt(this.i);
    switch (c) {
      case LBRACE:
        return this.object();
      case LBRACKET:
        return this.array();
      case QUOTE:
        return this.string();
      case 0x74: // t
        return this.literal("true", true);
      case 0x66: // f
        return this.literal("false", false);
      case 0x6e: // n
        return this.literal("null", null);
      default:
        if (c === MINUS || isDigit(c)) return this.number();
        return this.unexpectedValue(c);
    }
  }

  private unexpectedValue(c: number): never {
    if (c === 0x27) this.fail("single-quoted strings are not JSON");
    if (c === SLASH) this.fail("comments are not JSON");
    if (c === 0x4e || c === 0x49) this.fail("NaN and Infinity are not JSON");
    if (c === PLUS) this.fail("a leading '+' is not JSON");
    if (c === DOT) this.fail("a number must start with a digit");
    this.fail(`unexpected ${describeChar(this.s, this.i)}: expected a value`);
  }

  private literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.s.startsWith(word, this.i)) this.fail(`invalid literal (expected "${word}")`);
    this.i += word.length;
    return value;
  }

  private enter(): void {
    if (++this.depth > MAX_JSON_DEPTH) this.fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`);
    this.i++;
    this.skipWhitespace();
  }

  private array(): JsonValue[] {
    const s = this.s;
    const out: JsonValue[] = [];
    this.enter();
    if (s.charCodeAt(this.i) === RBRACKET) {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      out.push(this.value());
      this.skipWhitespace();
      const c = s.charCodeAt(this.i);
      if (c === COMMA) {
        this.i++;
        this.skipWhitespace();
        if (s.charCodeAt(this.i) === RBRACKET) this.fail("trailing comma in array");
        continue;
      }
      if (c === RBRACKET) {
        this.i++;
        this.depth--;
        return out;
      }
      if (c === SLASH) this.fail("comments are not JSON");
      this.fail(`unexpected ${describeChar(s, this.i)} in array: expected ',' or ']'`);
    }
  }

  private object(): JsonObject {
    const s = this.s;
    const out: JsonObject = {};
    this.enter();
    if (s.charCodeAt(this.i) === RBRACE) {
      this.i++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      const keyAt = this.i;
      const k = s.charCodeAt(keyAt);
      if (k !== QUOTE) {
        if (k === 0x27) this.fail("single-quoted names are not JSON");
        if (k === RBRACE) this.fail("trailing comma in object");
        if (k === SLASH) this.fail("comments are not JSON");
        this.fail(`unexpected ${describeChar(s, keyAt)}: expected a quoted name`);
      }
      const name = this.string();
      // Names are compared after decoding, so "a" and "\u0061" collide. The object's own
      // property table makes this a hashed lookup: linear in the number of names.
      if (Object.hasOwn(out, name)) {
        this.fail(`duplicate name ${JSON.stringify(name)} in object`, keyAt);
      }
      this.skipWhitespace();
      if (s.charCodeAt(this.i) !== COLON) {
        this.fail(`unexpected ${describeChar(s, this.i)}: expected ':'`);
      }
      this.i++;
      this.skipWhitespace();
      const v = this.value();
      if (name === "__proto__") {
        // An assignment would set the prototype; define an own data property instead (§4 item 8).
        Object.defineProperty(out, name, {
          value: v,
          writable: true,
          enumerable: true,
          configurable: true,
        });
      } else {
        out[name] = v;
      }
      this.skipWhitespace();
      const c = s.charCodeAt(this.i);
      if (c === COMMA) {
        this.i++;
        continue;
      }
      if (c === RBRACE) {
        this.i++;
        this.depth--;
        return out;
      }
      if (c === SLASH) this.fail("comments are not JSON");
      this.fail(`unexpected ${describeChar(s, this.i)} in object: expected ',' or '}'`);
    }
  }

  private number(): number {
    const s = this.s;
    const start = this.i;
    let i = start;
    const negative = s.charCodeAt(i) === MINUS;
    if (negative) i++;
    // `mantissa` collects the significant digits while there are at most 15 of them (below
    // 2^53, so exact); `digits` counts them all and `scale` is the decimal exponent of the last.
    let mantissa = 0, digits = 0, scale = 0;
    let c = s.charCodeAt(i);
    if (c === ZERO) {
      i++;
      if (isDigit(s.charCodeAt(i))) this.fail("leading zeros are not allowed in numbers", start);
    } else if (isDigit(c)) {
      do {
        if (++digits <= 15) mantissa = mantissa * 10 + (c - ZERO);
        c = s.charCodeAt(++i);
      } while (isDigit(c));
    } else {
      if (c === 0x49) this.fail("NaN and Infinity are not JSON", start);
      this.fail("a '-' must be followed by a digit", i);
    }
    c = s.charCodeAt(i);
    if (c === DOT) {
      c = s.charCodeAt(++i);
      if (!isDigit(c)) this.fail("a decimal point must be followed by a digit", i);
      do {
        if (mantissa !== 0 || c !== ZERO) digits++;
        if (digits <= 15) (mantissa = mantissa * 10 + (c - ZERO)), scale--;
        c = s.charCodeAt(++i);
      } while (isDigit(c));
    }
    let exponent = false;
    if (c === LOWER_E || c === UPPER_E) {
      exponent = true;
      c = s.charCodeAt(++i);
      if (c === PLUS || c === MINUS) i++;
      if (!isDigit(s.charCodeAt(i))) this.fail("an exponent must have digits", i);
      while (isDigit(s.charCodeAt(i))) i++;
    }
    this.i = i;
    // Fast path (Clinger): at most 15 significant digits and no exponent part, so the value is
    // mantissa × 10^scale with both factors exact doubles and |scale| ≤ 22; one IEEE division is
    // correctly rounded, as RFC 8259 §6 and ECMAScript StringToNumber require.
    if (!exponent && digits <= 15 && scale >= -22) {
      const v = scale === 0 ? mantissa : mantissa / POWERS_OF_TEN[-scale];
      return negative ? -v : v;
    }
    // Everything else: ECMAScript StringToNumber on the validated token (round to nearest,
    // ties to even), the same reading of a JSON number as an IEEE 754 double.
    const n = Number(s.slice(start, i));
    if (!Number.isFinite(n)) {
      this.fail("number is too large for an IEEE 754 double (overflows to Infinity)", start);
    }
    return n;
  }

  private string(): string {
    const s = this.s;
    const start = this.i;
    let i = start + 1;
    // Fast path: no escape in the string, one slice of the source text.
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === QUOTE) {
        this.i = i + 1;
        return s.slice(start + 1, i);
      }
      if (c === BACKSLASH || c < 0x20 || i >= s.length) break;
      i++;
    }
    // Slow path: the string has escapes. Decoded code units go through a reusable buffer,
    // flushed in chunks: linear, where appending many short pieces to a string is not.
    const units = unitBuffer;
    const parts: string[] = [];
    let n = 0;
    for (let k = start + 1; k < i; k++) units[n++] = s.charCodeAt(k);
    for (;;) {
      if (n >= UNIT_CHUNK) {
        parts.push(String.fromCharCode.apply(null, units.subarray(0, n) as unknown as number[]));
        n = 0;
      }
      if (i >= s.length) this.fail("unterminated string", start);
      const c = s.charCodeAt(i);
      if (c === QUOTE) break;
      if (c < 0x20) {
        this.fail(
          `control character U+${c.toString(16).padStart(4, "0").toUpperCase()} ` +
            "must be escaped inside a string",
          i,
        );
      }
      if (c !== BACKSLASH) {
        units[n++] = c;
        i++;
        continue;
      }
      const e = s.charCodeAt(i + 1);
      const simple = e < 128 ? SIMPLE_ESCAPES[e] : 0;
      if (simple !== 0) {
        units[n++] = simple;
        i += 2;
      } else if (e === 0x75) {
        const unit = this.hex4(i + 2, i);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const low = s.charCodeAt(i + 6) === BACKSLASH && s.charCodeAt(i + 7) === 0x75
            ? this.hex4(i + 8, i + 6)
            : -1;
          if (low < 0xdc00 || low > 0xdfff) {
            this.fail(`lone high surrogate \\u${unit.toString(16)} has no pair`, i);
          }
          units[n++] = unit;
          units[n++] = low;
          i += 12;
        } else if (unit >= 0xdc00 && unit <= 0xdfff) {
          this.fail(`lone low surrogate \\u${unit.toString(16)} has no pair`, i);
        } else {
          units[n++] = unit;
          i += 6;
        }
      } else {
        const what = i + 1 >= s.length ? "at end of input" : describeChar(s, i + 1);
        this.fail(`invalid escape ${what}`, i);
      }
    }
    this.i = i + 1;
    const last = String.fromCharCode.apply(null, units.subarray(0, n) as unknown as number[]);
    if (parts.length === 0) return last;
    parts.push(last);
    return parts.join("");
  }

  private hex4(at: number, escapeAt: number): number {
    const s = this.s;
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const h = hexValue(s.charCodeAt(at + k));
      if (h < 0) this.fail("\\u must be followed by four hex digits", escapeAt);
      v = (v << 4) | h;
    }
    return v;
  }
}

/**
 * Reports bytes that are not UTF-8. A grammar error before the first bad byte is reported
 * first (as a validating pass in document order would); otherwise the bad byte, with the
 * reason (RFC 3629 table).
 */
function failInvalidUtf8(b: Uint8Array, source?: string): never {
  const bad = firstInvalidUtf8(b);
  // The lossy decoding replaces each bad sequence with U+FFFD and keeps every ASCII byte, so
  // the structure and every offset before the first bad byte are those of the input.
  try {
    new Parser(lossyUtf8.decode(b), source).document();
  } catch (e) {
    if (e instanceof SchemaPinError && Number(e.details?.offset) < bad.offset) throw e;
  }
  const prefix = new Parser(lossyUtf8.decode(b.subarray(0, bad.offset)), source);
  return prefix.fail(`invalid UTF-8 (${bad.why})`, Infinity);
}

/** The offset of the first byte sequence that is not UTF-8, and why. */
function firstInvalidUtf8(b: Uint8Array): { offset: number; why: string } {
  for (let i = 0; i < b.length;) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
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
      return { offset: i, why: `${why}: 0x${c.toString(16)}` };
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
        return { offset: i, why };
      }
    }
    i += need + 1;
  }
  return { offset: b.length, why: "truncated sequence" };
}
