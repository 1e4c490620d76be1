/**
 * Seeded generators of JSON test documents for the differential test: valid documents built
 * to stress the spots where a parser or canonicalizer can go wrong (names spelled with
 * escapes, the V8 same-length-escaped-name class, surrogates, number forms and ranges, depth
 * near the limit, duplicate names spelled differently, `__proto__`-like names, whitespace,
 * invalid UTF-8), some with invalid constructs injected, and byte-level mutations of valid
 * documents. Case `index` under `seed` is a pure function of the two numbers.
 *
 * @module
 */
import { Rng } from "./prng.ts";

/** One generated input. */
export interface GeneratedCase {
  /** Which generator made it (for statistics and reports). */
  kind: string;
  /** The document bytes. */
  bytes: Uint8Array;
}

/** Generator names with their weights (per mille of cases). */
export const KIND_WEIGHTS: readonly (readonly [number, string])[] = [
  [210, "random"],
  [190, "escape-keys"],
  [80, "numbers"],
  [20, "deep"],
  [80, "special-keys"],
  [80, "unicode"],
  [340, "mutated"],
];

/** Generates case `index` of the sequence `seed`. */
export function generateCase(seed: number, index: number): GeneratedCase {
  const rng = new Rng(seed, index);
  const kind = rng.weighted(KIND_WEIGHTS);
  return { kind, bytes: generateKind(rng, kind) };
}

function generateKind(rng: Rng, kind: string): Uint8Array {
  if (kind === "mutated") {
    const base = rng.weighted(
      [
        [40, "random"],
        [40, "escape-keys"],
        [20, "numbers"],
        [20, "special-keys"],
        [20, "unicode"],
        [
          3,
          "deep",
        ],
      ] as const,
    );
    const g = new Gen(rng, 0);
    g.document(base);
    return mutate(rng, g.out.finish());
  }
  const bad = rng.chance(0.7) ? 0 : rng.pick([0.003, 0.01, 0.03, 0.1]);
  const g = new Gen(rng, bad);
  g.document(kind);
  return g.out.finish();
}

const encoder = new TextEncoder();

class Out {
  private bytes: number[] = [];

  text(s: string): void {
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        this.bytes.push(c);
        continue;
      }
      for (const b of encoder.encode(s.slice(i))) this.bytes.push(b);
      return;
    }
  }

  raw(bytes: readonly number[]): void {
    for (const b of bytes) this.bytes.push(b);
  }

  get length(): number {
    return this.bytes.length;
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

const COMMON_NAMES = [
  "type",
  "properties",
  "description",
  "name",
  "required",
  "items",
  "enum",
  "default",
  "title",
  "inputSchema",
  "annotations",
  "a",
  "b",
  "c",
  "x",
  "y",
  "A",
  "B",
  "_meta",
  "$schema",
  "$ref",
  "10",
  "9",
  "0",
  "",
  " ",
  "a ",
  "é",
  "e",
  "f",
  "\ufb00",
  "😀",
  "\uffff",
  "\u007f",
  "\u2028",
  "中文",
  "\ud800\udc00",
  "\udbff\udfff",
];

const SPECIAL_NAMES = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "__lookupSetter__",
  "isPrototypeOf",
  "length",
  "then",
  "toJSON",
  "__proto",
  "_proto__",
];

/** Characters that a name or string spells with an escape (or may). */
const ESCAPE_CHARS = [
  "\\",
  "\n",
  "\t",
  '"',
  "/",
  "\b",
  "\f",
  "\r",
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "é",
  "\u2028",
  "😀",
  "\uffff",
  "a",
  "x",
  "\u0100",
  "\ud7ff",
  "\ue000",
];

const CHAR_POOL = [
  ..."abcdefxyzABZ_$019 -.:,{}[]",
  ...ESCAPE_CHARS,
  "ß",
  "中",
  "\u00a0",
  "\ufeff",
  "\ud83d\ude00",
  "\ud800\udc00",
  "\udbff\udfff",
  "\u2029",
  "<",
  ">",
  "&",
  "'",
];

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

// Invalid UTF-8: overlong, encoded surrogates, above U+10FFFF, truncated, stray, bad leads.
const INVALID_UTF8: readonly (readonly number[])[] = [
  [0xc0, 0xaf],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0xaf],
  [0xe0, 0x9f, 0xbf],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xf0, 0x8f, 0xbf, 0xbf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xff],
  [0xfe],
  [0x80],
  [0xbf],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xe9],
  [0xc3, 0x28],
];

// Valid but unusual UTF-8 (boundaries of each sequence length).
const VALID_UTF8_EDGES = [
  "\u0080",
  "\u07ff",
  "\u0800",
  "\ud7ff",
  "\ue000",
  "\uffff",
  "\ud800\udc00",
  "\udbff\udfff",
  "\u00e9",
  "\ufffd",
];

class Gen {
  readonly out = new Out();
  /** Probability that the current name or value is spelled with escapes. */
  private escapeRate: number;
  private readonly dupRate: number;
  private readonly maxWidth: number;
  /** Containers stop growing once the output is this long (keeps documents small). */
  private readonly budget: number;

  constructor(readonly rng: Rng, readonly bad: number, maxWidth?: number) {
    this.escapeRate = rng.pick([0, 0.05, 0.2, 0.5, 1]);
    this.dupRate = bad > 0 ? Math.min(0.2, bad * 3) : 0;
    this.maxWidth = maxWidth ?? rng.pick([3, 5, 8, 14]);
    this.budget = rng.pick([150, 400, 400, 1000, 3000]);
  }

  document(kind: string): void {
    const rng = this.rng;
    if (rng.chance(this.bad * 3)) {
      this.out.raw(rng.pick([[0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xef, 0xbb], [0x00]]));
    }
    this.ws(true);
    switch (kind) {
      case "escape-keys":
        this.escapeKeys();
        break;
      case "numbers":
        this.numbersDoc();
        break;
      case "deep":
        this.deep();
        break;
      case "special-keys":
        this.specialKeys(0);
        break;
      case "unicode":
        this.escapeRate = rng.pick([0, 0.3, 1]);
        this.value(rng.range(1, 4), true);
        break;
      default:
        if (rng.chance(0.1)) this.scalar(false);
        else this.value(rng.range(1, 6), false);
    }
    this.ws(true);
    if (rng.chance(this.bad)) this.invalidSnippet();
  }

  private ws(edge = false): void {
    const rng = this.rng;
    if (rng.chance(this.bad)) {
      const v = rng.pick([
        [0x0b],
        [0x0c],
        [0xc2, 0xa0],
        [0xef, 0xbb, 0xbf],
        [0xe2, 0x80, 0xa8],
        [
          0x00,
        ],
        [0x2f, 0x2f, 0x0a],
        [0x2f, 0x2a, 0x2a, 0x2f],
      ]);
      this.out.raw(v);
      return;
    }
    if (rng.chance(edge ? 0.5 : 0.75)) return;
    this.out.text(rng.pick([" ", "\n", "\t", "\r\n", "  ", "\n    ", " \t ", "\r", "\n\n"]));
  }

  // ---- names and strings ----

  private randomChars(min: number, max: number, pool: readonly string[]): string {
    const n = this.rng.range(min, max);
    let s = "";
    for (let i = 0; i < n; i++) s += this.rng.pick(pool);
    return s;
  }

  randomName(): string {
    const rng = this.rng;
    switch (rng.int(7)) {
      case 0:
      case 1:
        return rng.pick(COMMON_NAMES);
      case 2:
        return rng.pick(SPECIAL_NAMES);
      case 3:
        return this.randomChars(1, 8, [..."abcdefghxyz"]);
      case 4:
        return this.randomChars(1, 6, CHAR_POOL);
      case 5: {
        const base = this.randomChars(0, rng.pick([2, 6, 30]), [..."abxyz_"]);
        const at = rng.int(base.length + 1);
        return base.slice(0, at) + rng.pick(ESCAPE_CHARS) + base.slice(at);
      }
      default:
        return this.randomChars(rng.pick([16, 40]), 64, CHAR_POOL);
    }
  }

  /** Spells a well-formed string's contents, choosing escapes at `rate`. */
  spell(s: string, rate = this.escapeRate): void {
    const rng = this.rng;
    let out = "";
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      const mustEscape = cp < 0x20 || ch === '"' || ch === "\\";
      if (!mustEscape && !rng.chance(rate)) {
        out += ch;
        continue;
      }
      const short = SHORT_ESCAPES[ch];
      if (short !== undefined && rng.chance(0.7)) {
        out += short;
        continue;
      }
      if (cp > 0xffff) {
        out += this.uEscape(ch.charCodeAt(0)) + this.uEscape(ch.charCodeAt(1));
      } else {
        out += this.uEscape(cp);
      }
    }
    this.out.text(out);
  }

  private uEscape(unit: number): string {
    const hex = unit.toString(16).padStart(4, "0");
    switch (this.rng.int(3)) {
      case 0:
        return "\\u" + hex;
      case 1:
        return "\\u" + hex.toUpperCase();
      default:
        return "\\u" + [...hex].map((c) => this.rng.chance(0.5) ? c.toUpperCase() : c).join("");
    }
  }

  private quoted(s: string, rate = this.escapeRate): void {
    this.out.text('"');
    this.spell(s, rate);
    this.out.text('"');
  }

  /** A string value, possibly with raw UTF-8 edges and (when bad) invalid contents. */
  private stringValue(unicodeHeavy: boolean): void {
    const rng = this.rng;
    this.out.text('"');
    const parts = rng.range(0, unicodeHeavy ? 8 : 3);
    for (let i = 0; i < parts; i++) {
      if (rng.chance(this.bad)) {
        this.invalidStringPart();
        continue;
      }
      const r = rng.int(10);
      if (r < 4) this.spell(this.randomChars(1, 12, CHAR_POOL));
      else if (r < 6) this.spell(rng.pick(VALID_UTF8_EDGES), unicodeHeavy ? 0.3 : this.escapeRate);
      else if (r < 8) this.spell(rng.pick(["object", "string", "integer", "</script> & <b>", "a"]));
      else if (r < 9) this.spell(this.randomChars(20, 120, [...'abc \u00e9\u4e2d\\\n"']));
      else this.spell(rng.pick(COMMON_NAMES));
    }
    this.out.text('"');
  }

  private invalidStringPart(): void {
    const rng = this.rng;
    switch (rng.int(6)) {
      case 0:
        this.out.raw(rng.pick(INVALID_UTF8));
        return;
      case 1:
        this.out.raw([rng.pick([0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1f])]);
        return;
      case 2:
        this.out.text(
          rng.pick([
            "\\ud800",
            "\\udc00",
            "\\uDBFF",
            "\\udc00\\ud800",
            "\\ud800\\u0041",
            "\\ud83d\\ud83d",
            "\\ud83d\\n",
            "\\ud83dx",
            "\\udfff",
          ]),
        );
        return;
      case 3:
        this.out.text(
          rng.pick(["\\x41", "\\u12", "\\u12g4", "\\U0041", "\\a", "\\'", "\\0", "\\"]),
        );
        return;
      case 4:
        this.out.text(rng.pick(["\\ud800\\u12", "\\ud800\\", "\\ud800\\u"]));
        return;
      default:
        this.out.raw([0xed, 0xa0, 0x80]);
    }
  }

  private invalidSnippet(): void {
    this.out.text(
      this.rng.pick([
        "NaN",
        "Infinity",
        "-Infinity",
        "undefined",
        "'x'",
        "tru",
        "nul",
        "True",
        "01",
        "-01",
        "1.",
        ".5",
        "+1",
        "1e",
        "1e+",
        "-",
        "0x10",
        "1.e5",
        "[1,]",
        '{"a":1,}',
        "/*c*/1",
        "//c\n1",
        '"abc',
        "[1 2]",
        '{"a" 1}',
        "{a:1}",
        "1e400",
        "-1e400",
        "1 2",
        "[",
        "}",
        ",",
        "",
      ]),
    );
  }

  // ---- values ----

  value(depth: number, unicodeHeavy: boolean): void {
    const rng = this.rng;
    if (rng.chance(this.bad)) {
      this.invalidSnippet();
      return;
    }
    const container = depth > 0 && rng.chance(0.45);
    if (!container) {
      this.scalar(unicodeHeavy);
      return;
    }
    if (rng.chance(0.55)) this.object(depth, unicodeHeavy);
    else this.array(depth, unicodeHeavy);
  }

  private scalar(unicodeHeavy: boolean): void {
    const r = this.rng.int(10);
    if (r < 4 || unicodeHeavy) this.stringValue(unicodeHeavy);
    else if (r < 8) this.out.text(this.numberText());
    else this.out.text(this.rng.pick(["true", "false", "null"]));
  }

  private array(depth: number, unicodeHeavy: boolean): void {
    const n = this.rng.range(0, this.maxWidth);
    this.out.text("[");
    this.ws();
    for (let i = 0; i < n && this.out.length < this.budget; i++) {
      if (i > 0) {
        this.ws();
        this.out.text(",");
        this.ws();
      }
      this.value(depth - 1, unicodeHeavy);
    }
    this.ws();
    if (n > 0 && this.rng.chance(this.bad)) this.out.text(",");
    this.out.text("]");
  }

  /** An object; `names` may be given (else random), duplicates injected at dupRate. */
  private object(depth: number, unicodeHeavy: boolean, names?: string[]): void {
    const rng = this.rng;
    const n = names ? names.length : rng.range(0, this.maxWidth);
    const used: string[] = [];
    this.out.text("{");
    this.ws();
    for (let i = 0; i < n && (i === 0 || this.out.length < this.budget); i++) {
      if (i > 0) {
        this.ws();
        this.out.text(",");
        this.ws();
      }
      let name: string;
      if (used.length > 0 && rng.chance(this.dupRate)) {
        name = rng.pick(used); // the same name again, probably spelled differently
      } else {
        name = names ? names[i] : this.randomName();
        for (let t = 0; t < 4 && used.includes(name); t++) name = this.randomName();
      }
      used.push(name);
      this.quoted(name, rng.chance(0.5) ? this.escapeRate : rng.pick([0, 0.5, 1]));
      this.ws();
      this.out.text(":");
      this.ws();
      this.value(depth - 1, unicodeHeavy);
    }
    this.ws();
    if (n > 0 && rng.chance(this.bad)) this.out.text(",");
    this.out.text("}");
  }

  // ---- numbers ----

  numberText(): string {
    const rng = this.rng;
    if (rng.chance(this.bad)) {
      return rng.pick([
        "01",
        "-01",
        "00",
        "1.",
        ".5",
        "+1",
        "1e",
        "1E+",
        "-",
        "0x10",
        "1e400",
        "-1e400",
        "1.7976931348623159e308",
        "9".repeat(310),
        "Infinity",
        "NaN",
        "1_000",
        "- 1",
        "1.5.2",
      ]);
    }
    switch (rng.int(12)) {
      case 0:
        return String(rng.range(-1000, 1000));
      case 1:
        return rng.pick([
          "9007199254740991",
          "-9007199254740991",
          "9007199254740992",
          "-9007199254740992",
          "9007199254740993",
          "9007199254740990",
          "9007199254740991.0",
          "9007199254740991.5",
          "9007199254740990.5",
          "4503599627370495.5",
          "4503599627370496.5",
          "9.007199254740991e15",
          "9.007199254740992e15",
          "90071992547409910e-1",
          "18014398509481984",
          "1e15",
          "1e16",
          "1e20",
          "1e21",
          "100000000000000000000",
          "999999999999999999999",
          "123456789012345678901234567890",
        ]);
      case 2:
        return rng.pick([
          "0",
          "-0",
          "-0.0",
          "0.0",
          "0e5",
          "0E-5",
          "-0e0",
          "-0E+00",
          "1.0",
          "1e3",
          "1E2",
          "10e-1",
          "100e-2",
          "1e-7",
          "1e-6",
          "0.000001",
          "0.0000001",
          "123.456",
          "0.1",
          "1.10",
          "0.30000000000000004",
          "0.1000000000000000055511151231257827",
          "5e-324",
          "-5e-324",
          "2.4703282292062327e-324",
          "2.4703282292062328e-324",
          "1e-400",
          "-1e-400",
          "2.2250738585072014e-308",
          "2.225073858507201e-308",
          "1.7976931348623157e308",
          "-1.7976931348623157e+308",
          "1.7976931348623158e308",
          "1e308",
          "1e309",
          "333333333.3333333",
          "1e-27",
          "295147905179352830000",
          "4.35",
          "0.5",
          "2.5",
          "1.5e300",
          "1E+2",
          "1e+0",
          "1e-0",
        ]);
      case 3:
      case 4: {
        // A random double written in one of its many forms.
        const x = this.randomDouble();
        const forms = [String(x), x.toExponential(), x.toPrecision(rng.range(1, 21))];
        if (Math.abs(x) < 1e21) forms.push(x.toFixed(rng.range(0, 20)));
        return this.respell(rng.pick(forms));
      }
      case 5: {
        // Random digit strings, possibly very long.
        let s = rng.chance(0.3) ? "-" : "";
        s += rng.chance(0.2) ? "0" : rng.range(1, 9) + this.digits(rng.range(0, 25));
        if (rng.chance(0.6)) s += "." + this.digits(rng.range(1, rng.pick([5, 20, 400])));
        if (rng.chance(0.5)) {
          s += rng.pick(["e", "E"]) + rng.pick(["", "+", "-"]) +
            rng.range(0, rng.pick([9, 30, 330, 400]));
        }
        return s;
      }
      case 6: {
        // Powers of two and their neighbours (asymmetric rounding intervals).
        const p = 2 ** rng.range(-1074, 1023);
        const x = rng.pick([p, p * (1 + Number.EPSILON), p * (1 - Number.EPSILON / 2)]);
        return this.respell(rng.chance(0.5) ? String(x) : x.toPrecision(rng.range(1, 17)));
      }
      case 7:
        // Integers around 2^53 and other powers.
        return String(
          rng.pick([2 ** 53, 2 ** 52, 2 ** 54, 2 ** 63, 2 ** 64, 10 ** 15, 10 ** 21]) +
            rng.range(-4, 4),
        );
      case 8: {
        // Short decimals: many ties and round trips in the fixed range.
        const digits = rng.range(1, 17);
        const int = this.digits(rng.range(1, 10)).replace(/^0+(?=\d)/, "");
        return (rng.chance(0.2) ? "-" : "") + int + "." + this.digits(digits);
      }
      case 9: {
        // Exponent boundaries of Number::toString: 1e-7 / 1e21 and neighbours.
        const m = rng.pick(["1", "1.5", "9.999999999999999", "123", "4.5", "12345678901234567"]);
        return m + "e" + rng.pick([-8, -7, -6, -5, 0, 15, 16, 20, 21, 22, -308, -323, -324, 307]);
      }
      default:
        return String(rng.range(-1e6, 1e6) / rng.pick([1, 2, 4, 8, 10, 100, 1000, 3]));
    }
  }

  private digits(n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += String.fromCharCode(0x30 + this.rng.int(10));
    return s;
  }

  private randomDouble(): number {
    const rng = this.rng;
    if (rng.chance(0.5)) {
      const view = new DataView(new ArrayBuffer(8));
      view.setUint32(0, rng.u32());
      view.setUint32(4, rng.u32());
      const x = view.getFloat64(0);
      return Number.isFinite(x) ? x : rng.float();
    }
    return (rng.float() - 0.5) * 10 ** rng.range(-30, 30);
  }

  /** Rewrites a JS number text into another valid JSON spelling (E, e+, trailing zeros). */
  private respell(s: string): string {
    const rng = this.rng;
    if (rng.chance(0.3)) s = s.replace("e", "E");
    if (rng.chance(0.2)) s = s.replace(/e\+?/i, (m) => m[0] + "+");
    if (rng.chance(0.2) && s.includes(".")) {
      s = s.replace(/(\.\d*)/, (m) => m + "0".repeat(rng.range(1, 5)));
    }
    return s;
  }

  private numbersDoc(): void {
    const rng = this.rng;
    const n = rng.range(1, 30);
    if (rng.chance(0.5)) {
      this.out.text("[");
      for (let i = 0; i < n; i++) {
        if (i > 0) this.out.text(",");
        this.ws();
        this.out.text(this.numberText());
      }
      this.out.text("]");
      return;
    }
    const names = ["minimum", "maximum", "default", "multipleOf", "const", "x", "y", "z"];
    this.out.text("{");
    for (let i = 0; i < Math.min(n, names.length); i++) {
      if (i > 0) this.out.text(",");
      this.quoted(names[i]);
      this.out.text(":");
      this.out.text(rng.chance(0.8) ? this.numberText() : `[${this.numberText()}]`);
    }
    this.out.text("}");
  }

  // ---- the V8 class: same-length names spelled with different escapes ----

  private escapeKeys(): void {
    const rng = this.rng;
    // A family of names: base with one (or two) characters replaced by escaped ones.
    const base = this.randomChars(0, rng.pick([0, 1, 3, 8, 24, 60]), [..."abxyz_p"]);
    // Observed trigger on Deno 2.9.6: an earlier name ending in a backslash character, then a
    // name of the same decoded length that ends in an escape — so mostly that shape.
    const at = rng.chance(0.6) ? base.length : rng.int(base.length + 1);
    const at2 = rng.chance(0.2) ? rng.int(base.length + 1) : -1;
    const chars = new Set<string>(rng.chance(0.8) ? ["\\"] : []);
    const count = rng.range(2, 5);
    for (let i = 0; i < 12 && chars.size < count; i++) chars.add(rng.pick(ESCAPE_CHARS));
    const family = [...chars].map((c) => {
      let name = base.slice(0, at) + c + base.slice(at);
      if (at2 >= 0) name = name.slice(0, at2) + rng.pick(ESCAPE_CHARS) + name.slice(at2);
      return name;
    });
    // V8 checks a name against the one transition of the previous object's hidden class;
    // a name seen in earlier documents has many transitions, so most first names are fresh.
    const fresh = rng.pick(["k", "p", "id", "_", "n\\"]) +
      rng.u32().toString(36).slice(0, rng.range(1, 7));
    const first = rng.chance(0.75)
      ? fresh
      : rng.pick(["x", "a", "b", "p", base || "k", base + "x"]);
    const plain = [first, rng.pick(["type", "y", fresh + "2"]), "z"];
    const groups = rng.range(2, 7);
    const top = rng.pick(["object", "array", "nested"]);
    this.out.text(top === "object" ? "{" : "[");
    for (let g = 0; g < groups && (g < 2 || this.out.length < this.budget); g++) {
      if (g > 0) this.out.text(",");
      if (top === "object") {
        this.quoted(rng.pick(["a", "b", "c", "d", "e", "f", "g"]) + g);
        this.out.text(":");
      }
      this.escapeGroup(family, plain, top === "nested" ? rng.range(0, 3) : rng.range(0, 1));
    }
    this.out.text(top === "object" ? "}" : "]");
  }

  /** One object holding plain names and one or two names of the family, maybe nested. */
  private escapeGroup(family: string[], plain: string[], nest: number): void {
    const rng = this.rng;
    const members: string[] = [];
    const plainCount = rng.weighted([[1, 0], [6, 1], [3, 2]] as const);
    for (let i = 0; i < plainCount; i++) members.push(plain[i]);
    const f1 = rng.chance(0.4) ? family[0] : rng.pick(family);
    members.splice(rng.int(members.length + 1), 0, f1);
    if (rng.chance(0.3)) {
      const f2 = rng.pick(family);
      if (!members.includes(f2)) members.splice(rng.int(members.length + 1), 0, f2);
    }
    this.out.text("{");
    members.forEach((name, i) => {
      if (i > 0) this.out.text(",");
      // Names of the family mostly with escapes; sometimes "/" or "é" literal.
      this.quoted(name, rng.pick([0, 0.5, 1]));
      this.out.text(":");
      if (nest > 0 && rng.chance(0.5)) {
        if (rng.chance(0.5)) this.escapeGroup(family, plain, nest - 1);
        else {
          this.out.text("[");
          this.escapeGroup(family, plain, nest - 1);
          this.out.text(",");
          this.escapeGroup(family, plain, nest - 1);
          this.out.text("]");
        }
      } else {
        this.out.text(rng.chance(0.5) ? String(rng.range(0, 3)) : `"${rng.range(0, 99)}"`);
      }
    });
    this.out.text("}");
  }

  // ---- depth near the limit ----

  private deep(): void {
    const rng = this.rng;
    const depth = rng.weighted(
      [
        [3, rng.range(990, 998)],
        [6, rng.range(999, 1001)],
        [1, rng.range(1002, 1010)],
        [1, rng.range(100, 900)],
      ] as const,
    );
    const closers: string[] = [];
    const mode = rng.pick(["arrays", "objects", "mixed"]);
    for (let d = 0; d < depth; d++) {
      const obj = mode === "objects" || (mode === "mixed" && rng.chance(0.5));
      const sibling = rng.chance(0.05);
      if (obj) {
        this.out.text("{");
        if (sibling) this.out.text('"s":1,');
        this.quoted(rng.pick(["k", "a", "\\", "\n", "__proto__"]));
        this.out.text(":");
        closers.push("}");
      } else {
        this.out.text("[");
        if (sibling) this.out.text("0,");
        closers.push("]");
      }
      if (rng.chance(0.02)) this.ws();
    }
    this.scalar(false);
    for (let d = closers.length - 1; d >= 0; d--) {
      if (rng.chance(0.02)) this.out.text(closers[d] === "}" ? ',"z":2' : ",[]");
      this.out.text(closers[d]);
    }
  }

  // ---- special names ----

  private specialKeys(level: number): void {
    const rng = this.rng;
    const n = rng.range(1, 6);
    const names = new Set<string>();
    for (let i = 0; i < n; i++) {
      names.add(rng.chance(0.7) ? rng.pick(SPECIAL_NAMES) : this.randomName());
    }
    const list = [...names];
    this.out.text("{");
    list.forEach((name, i) => {
      if (i > 0) this.out.text(",");
      if (rng.chance(this.dupRate) && i > 0) name = list[rng.int(i)];
      this.quoted(name, rng.pick([0, 0.2, 1]));
      this.out.text(":");
      if (level < 3 && rng.chance(0.4)) this.specialKeys(level + 1);
      else if (rng.chance(0.3)) this.out.text(rng.pick(["[]", "{}", "null", '{"polluted":true}']));
      else this.value(1, false);
    });
    this.out.text("}");
  }
}

// ---- mutations ----

const INTERESTING_BYTES = [
  0x22,
  0x5c,
  0x2c,
  0x3a,
  0x7b,
  0x7d,
  0x5b,
  0x5d,
  0x30,
  0x31,
  0x39,
  0x2d,
  0x2b,
  0x65,
  0x45,
  0x2e,
  0x20,
  0x0a,
  0x09,
  0x0d,
  0x0b,
  0x75,
  0x6e,
  0x74,
  0x66,
  0x2f,
  0x2a,
  0x00,
  0x1f,
  0x7f,
  0x80,
  0xa0,
  0xbf,
  0xc0,
  0xc1,
  0xc2,
  0xe0,
  0xed,
  0xef,
  0xf0,
  0xf4,
  0xf5,
  0xff,
];

const SNIPPETS: readonly (string | readonly number[])[] = [
  "\\u0061",
  "\\u005c",
  "\\u005C",
  "\\u0000",
  "\\ud800",
  "\\udc00",
  "\\ud83d\\ude00",
  "\\\\",
  "\\n",
  "\\t",
  '\\"',
  "\\/",
  '"a":1,',
  '"x":0,',
  '"\\\\":0,',
  '"\\n":0,',
  '"\\t":0,',
  '"__proto__":0,',
  ',{"x":1,"\\n":2}',
  ',{"x":1,"\\\\":2}',
  ",{}",
  "[]",
  "{}",
  "1e400",
  "-0",
  "9007199254740993",
  "0.1",
  "1e21",
  "null",
  "/**/",
  [0xef, 0xbb, 0xbf],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe0, 0x80, 0xaf],
  [0xc3, 0xa9],
  [0xf0, 0x9f, 0x98, 0x80],
];

/** Applies 1–4 (sometimes up to 12) random byte-level mutations. */
export function mutate(rng: Rng, input: Uint8Array): Uint8Array {
  let b = Array.from(input);
  const count = rng.chance(0.85) ? rng.range(1, 4) : rng.range(5, 12);
  for (let m = 0; m < count; m++) {
    const pos = rng.int(b.length + 1);
    switch (rng.int(10)) {
      case 0:
        if (b.length > 0) b[Math.min(pos, b.length - 1)] ^= 1 << rng.int(8);
        break;
      case 1:
        if (b.length > 0) b[Math.min(pos, b.length - 1)] = rng.pick(INTERESTING_BYTES);
        break;
      case 2:
        b.splice(pos, 0, rng.pick(INTERESTING_BYTES));
        break;
      case 3: {
        const s = rng.pick(SNIPPETS);
        b.splice(pos, 0, ...(typeof s === "string" ? encoder.encode(s) : s));
        break;
      }
      case 4:
        b.splice(pos, rng.range(1, 8));
        break;
      case 5: {
        // Copy a chunk elsewhere (repeats names, objects, escapes).
        const from = rng.int(b.length + 1);
        const chunk = b.slice(from, from + rng.range(1, 40));
        b.splice(rng.int(b.length + 1), 0, ...chunk);
        break;
      }
      case 6: {
        // Swap the escape after a backslash for another one of the same length.
        const slashes = b.flatMap((c, i) => (c === 0x5c ? [i] : []));
        if (slashes.length > 0) {
          const i = rng.pick(slashes);
          b[i + 1] = rng.pick([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
        }
        break;
      }
      case 7: {
        // Spell one ASCII letter as \u00XX (same character; may make a duplicate name).
        const letters = b.flatMap((c, i) =>
          (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f ? [i] : []
        );
        if (letters.length > 0) {
          const i = rng.pick(letters);
          const hex = b[i].toString(16).padStart(4, "0");
          b.splice(i, 1, ...encoder.encode("\\u" + (rng.chance(0.5) ? hex : hex.toUpperCase())));
        }
        break;
      }
      case 8:
        b = b.slice(0, pos);
        break;
      default: {
        // Duplicate a member: copy `"...":value,` shaped text after a '{'.
        const opens = b.flatMap((c, i) => (c === 0x7b ? [i] : []));
        const quotes = b.flatMap((c, i) => (c === 0x22 ? [i] : []));
        if (opens.length > 0 && quotes.length > 1) {
          const q = rng.pick(quotes);
          const end = b.indexOf(0x2c, q);
          if (end > q) b.splice(rng.pick(opens) + 1, 0, ...b.slice(q, end + 1));
        }
      }
    }
  }
  return Uint8Array.from(b);
}
