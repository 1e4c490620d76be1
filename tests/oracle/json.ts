/**
 * The oracle's JSON parser: a deliberately simple, independent reading of RFC 8259 used only
 * to check the library (`lib/json`) in tests. It shares no code with the library, imports
 * nothing, never calls `JSON.parse`, and builds every value itself, one byte at a time.
 *
 * Strictness follows the SchemaPin spec §4 and `vectors/README.md`: invalid UTF-8 (overlong
 * forms, encoded surrogates, code points above U+10FFFF, truncated or stray bytes), a leading
 * byte order mark, duplicate names (compared after decoding escapes), lone surrogates in
 * `\u` escapes, raw control characters in strings, leading zeros, trailing commas, comments,
 * anything after the value, numbers that overflow a double, and nesting deeper than
 * {@linkcode ORACLE_MAX_DEPTH} are all rejected.
 *
 * Representation: `null`, booleans, numbers and strings are JS primitives, arrays are JS
 * arrays, and objects are `Map<string, OValue>` in document order — so `__proto__`,
 * `constructor` or `prototype` names are plain data and never touch a prototype.
 *
 * @module
 */

/** A JSON value as the oracle sees it. Objects are Maps (insertion = document order). */
export type OValue = null | boolean | number | string | OValue[] | OObject;
/** A JSON object: its members in document order. */
export type OObject = Map<string, OValue>;

/** The nesting limit; the library's `MAX_JSON_DEPTH` (kept equal by oracle_test.ts). */
export const ORACLE_MAX_DEPTH = 1000;

/** Why an input has no canonical form; the same words as `vectors/README.md`. */
export type RejectReason =
  | "invalid-utf8"
  | "bom"
  | "duplicate-key"
  | "lone-surrogate"
  | "control-character"
  | "number-overflow"
  | "number-range"
  | "depth"
  | "syntax";

/** The oracle's refusal: at which stage, why, and (for parse errors) the byte offset. */
export class OracleReject extends Error {
  constructor(
    readonly stage: "parse" | "canonicalize",
    readonly reason: RejectReason,
    message: string,
    readonly offset = -1,
  ) {
    super(`${stage}/${reason}: ${message}${offset >= 0 ? ` at byte ${offset}` : ""}`);
    this.name = "OracleReject";
  }
}

/** Parses strict JSON bytes into an {@linkcode OValue}; throws {@linkcode OracleReject}. */
export function oracleParse(bytes: Uint8Array): OValue {
  return new Reader(bytes).document();
}

/** True when `v` is a JSON object of the oracle's representation. */
export function isObject(v: OValue): v is OObject {
  return v instanceof Map;
}

const WS = " \t\n\r";
const DIGITS = "0123456789";
const HEX = "0123456789abcdefABCDEF";

class Reader {
  private pos = 0;
  private depth = 0;

  constructor(private readonly bytes: Uint8Array) {}

  private fail(reason: RejectReason, message: string, at = this.pos): never {
    throw new OracleReject("parse", reason, message, at);
  }

  /** The character at `pos` if it is ASCII, "" at the end, "\u0080" for any other byte. */
  private peek(offset = 0): string {
    const b = this.bytes[this.pos + offset];
    if (b === undefined) return "";
    return b < 0x80 ? String.fromCharCode(b) : "\u0080";
  }

  private skipWhitespace(): void {
    while (this.peek() !== "" && WS.includes(this.peek())) this.pos++;
  }

  private expect(ch: string): void {
    if (this.peek() !== ch) this.fail("syntax", `expected '${ch}'`);
    this.pos++;
  }

  document(): OValue {
    const b = this.bytes;
    if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) {
      this.fail("bom", "byte order mark", 0);
    }
    this.skipWhitespace();
    const v = this.value();
    this.skipWhitespace();
    if (this.pos !== b.length) this.fail("syntax", "text after the value");
    return v;
  }

  private value(): OValue {
    const c = this.peek();
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "t") return this.word("true", true);
    if (c === "f") return this.word("false", false);
    if (c === "n") return this.word("null", null);
    if (c === "-" || (c !== "" && DIGITS.includes(c))) return this.number();
    return this.fail("syntax", "expected a value");
  }

  private word<T>(text: string, v: T): T {
    for (const ch of text) this.expect(ch);
    return v;
  }

  private enter(): void {
    this.depth++;
    if (this.depth > ORACLE_MAX_DEPTH) this.fail("depth", "nesting too deep");
    this.pos++;
  }

  private array(): OValue[] {
    this.enter();
    const out: OValue[] = [];
    this.skipWhitespace();
    if (this.peek() === "]") {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      out.push(this.value());
      this.skipWhitespace();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      this.expect("]");
      this.depth--;
      return out;
    }
  }

  private object(): OObject {
    this.enter();
    const out: OObject = new Map();
    this.skipWhitespace();
    if (this.peek() === "}") {
      this.pos++;
      this.depth--;
      return out;
    }
    for (;;) {
      this.skipWhitespace();
      const at = this.pos;
      if (this.peek() !== '"') this.fail("syntax", "expected a name");
      const name = this.string();
      if (out.has(name)) this.fail("duplicate-key", "duplicate name", at);
      this.skipWhitespace();
      this.expect(":");
      this.skipWhitespace();
      out.set(name, this.value());
      this.skipWhitespace();
      if (this.peek() === ",") {
        this.pos++;
        continue;
      }
      this.expect("}");
      this.depth--;
      return out;
    }
  }

  private number(): number {
    const start = this.pos;
    const digits = (): number => {
      let n = 0;
      while (this.peek() !== "" && DIGITS.includes(this.peek())) {
        this.pos++;
        n++;
      }
      return n;
    };
    if (this.peek() === "-") this.pos++;
    if (this.peek() === "0") {
      this.pos++;
      // "01": the number is "0" and the "1" after it is a syntax error wherever it stands.
    } else if (digits() === 0) {
      this.fail("syntax", "expected a digit");
    }
    if (this.peek() === ".") {
      this.pos++;
      if (digits() === 0) this.fail("syntax", "expected a digit after '.'");
    }
    if (this.peek() === "e" || this.peek() === "E") {
      this.pos++;
      if (this.peek() === "+" || this.peek() === "-") this.pos++;
      if (digits() === 0) this.fail("syntax", "expected an exponent digit");
    }
    let text = "";
    for (let i = start; i < this.pos; i++) text += String.fromCharCode(this.bytes[i]);
    // The token is a valid decimal literal; Number() is the standard, correctly rounded
    // decimal-to-binary64 conversion (it is not a JSON parser).
    const v = Number(text);
    if (!Number.isFinite(v)) this.fail("number-overflow", "number overflows a double", start);
    return v;
  }

  private hex4(): number {
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.peek();
      if (c === "" || !HEX.includes(c)) this.fail("syntax", "expected four hex digits");
      v = v * 16 + parseInt(c, 16);
      this.pos++;
    }
    return v;
  }

  private string(): string {
    const start = this.pos;
    this.pos++; // the opening quote
    let out = "";
    for (;;) {
      const b = this.bytes[this.pos];
      if (b === undefined) this.fail("syntax", "unterminated string", start);
      if (b === 0x22) {
        this.pos++;
        return out;
      }
      if (b < 0x20) this.fail("control-character", "raw control character in a string");
      if (b === 0x5c) {
        out += this.escape();
        continue;
      }
      if (b < 0x80) {
        out += String.fromCharCode(b);
        this.pos++;
        continue;
      }
      out += String.fromCodePoint(this.utf8());
    }
  }

  private escape(): string {
    const at = this.pos;
    this.pos++; // the backslash
    const c = this.peek();
    this.pos++;
    switch (c) {
      case '"':
        return '"';
      case "\\":
        return "\\";
      case "/":
        return "/";
      case "b":
        return "\b";
      case "f":
        return "\f";
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "u": {
        const unit = this.hex4();
        if (unit >= 0xdc00 && unit <= 0xdfff) this.fail("lone-surrogate", "lone low surrogate", at);
        if (unit < 0xd800 || unit > 0xdbff) return String.fromCharCode(unit);
        if (this.peek() !== "\\" || this.peek(1) !== "u") {
          this.fail("lone-surrogate", "high surrogate without a low one", at);
        }
        this.pos += 2;
        const low = this.hex4();
        if (low < 0xdc00 || low > 0xdfff) {
          this.fail("lone-surrogate", "high surrogate without a low one", at);
        }
        return String.fromCodePoint(0x10000 + (unit - 0xd800) * 0x400 + (low - 0xdc00));
      }
      default:
        return this.fail("syntax", "invalid escape", at);
    }
  }

  /** Decodes one UTF-8 sequence (lead byte >= 0x80) into a Unicode scalar value. */
  private utf8(): number {
    const at = this.pos;
    const lead = this.bytes[at];
    let count: number, cp: number, min: number;
    if (lead >= 0xc0 && lead <= 0xdf) (count = 1), (cp = lead & 0x1f), (min = 0x80);
    else if (lead >= 0xe0 && lead <= 0xef) (count = 2), (cp = lead & 0x0f), (min = 0x800);
    else if (lead >= 0xf0 && lead <= 0xf7) (count = 3), (cp = lead & 0x07), (min = 0x10000);
    else return this.fail("invalid-utf8", "not a lead byte", at);
    for (let k = 1; k <= count; k++) {
      const c = this.bytes[at + k];
      if (c === undefined || c < 0x80 || c > 0xbf) {
        this.fail("invalid-utf8", "truncated sequence", at);
      }
      cp = cp * 64 + (c & 0x3f);
    }
    if (cp < min) this.fail("invalid-utf8", "overlong encoding", at);
    if (cp >= 0xd800 && cp <= 0xdfff) this.fail("invalid-utf8", "encoded surrogate", at);
    if (cp > 0x10ffff) this.fail("invalid-utf8", "above U+10FFFF", at);
    this.pos = at + count + 1;
    return cp;
  }
}
