/**
 * The oracle's two canonicalizers, written from the spec texts and sharing no code with
 * `lib/json`:
 *
 * - `schemapin-v1` (SchemaPin spec §4): names sorted by Unicode code point, minimal string
 *   escaping with lowercase `\u00xx`, |x| > 2^53 − 1 rejected, integral values as plain
 *   decimal, other numbers by ECMAScript `Number::toString`.
 * - `contractpin-canonical-json/1` (contractpin spec §3, RFC 8785): names sorted by UTF-16
 *   code unit, the same escaping, every finite double serialised by `Number::toString`.
 *
 * `Number::toString` is implemented here from its definition (contractpin §3.6): the shortest
 * round-tripping digit string is searched with `toPrecision` (correctly rounded p-digit
 * decimals) and `Number()` (the standard decimal-to-double conversion); the layout rules are
 * applied by hand. `String(number)` is not used.
 *
 * @module
 */
import { isObject, OracleReject, type OValue } from "./json.ts";

interface Rules {
  /** Sort key of a name: its code points (schemapin-v1) or UTF-16 code units (JCS). */
  sortKey(name: string): number[];
  /** The number text, or an OracleReject at stage "canonicalize". */
  number(x: number): string;
}

/** schemapin-v1 canonical text (§4) of a parsed value; throws {@linkcode OracleReject}. */
export function oracleSchemapinV1(v: OValue): string {
  return write(v, SCHEMAPIN_V1);
}

/** contractpin-canonical-json/1 (RFC 8785) text of a parsed value. */
export function oracleJcs(v: OValue): string {
  return write(v, JCS);
}

const SCHEMAPIN_V1: Rules = {
  sortKey: codePoints,
  number(x) {
    if (x > 9007199254740991 || x < -9007199254740991) {
      throw new OracleReject("canonicalize", "number-range", `|${x}| exceeds 2^53 - 1`);
    }
    // §4.6: integral values are plain decimal integers, no sign for zero.
    if (Number.isInteger(x)) return integerText(x);
    return ecmaNumberToString(x);
  },
};

const JCS: Rules = {
  sortKey: codeUnits,
  number: ecmaNumberToString,
};

function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}

function codeUnits(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i));
  return out;
}

function compareSequences(a: number[], b: number[]): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

function write(v: OValue, rules: Rules): string {
  if (v === null) return "null";
  if (v === true) return "true";
  if (v === false) return "false";
  if (typeof v === "number") return rules.number(v);
  if (typeof v === "string") return quote(v);
  if (Array.isArray(v)) return "[" + v.map((e) => write(e, rules)).join(",") + "]";
  if (!isObject(v)) throw new Error("oracle: not a JSON value");
  const members = [...v.keys()].map((name) => ({ name, key: rules.sortKey(name) }));
  members.sort((a, b) => compareSequences(a.key, b.key));
  const parts: string[] = [];
  for (const m of members) parts.push(quote(m.name) + ":" + write(v.get(m.name)!, rules));
  return "{" + parts.join(",") + "}";
}

const SHORT: Record<number, string> = {
  0x22: '\\"',
  0x5c: "\\\\",
  0x08: "\\b",
  0x0c: "\\f",
  0x0a: "\\n",
  0x0d: "\\r",
  0x09: "\\t",
};

/** §4.5 / §3.5: the minimal escaping; everything else literal; lone surrogates rejected. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      throw new OracleReject("canonicalize", "lone-surrogate", "lone surrogate in a string");
    }
    if (SHORT[cp] !== undefined) out += SHORT[cp];
    else if (cp < 0x20) out += "\\u00" + "0123456789abcdef"[cp >> 4] + "0123456789abcdef"[cp & 15];
    else out += ch;
  }
  return out + '"';
}

/** Decimal digits of an integral double of magnitude < 2^53 (exact arithmetic). */
function integerText(x: number): string {
  if (x === 0) return "0"; // also -0
  let n = Math.abs(x);
  let digits = "";
  while (n > 0) {
    const d = n % 10;
    digits = String.fromCharCode(0x30 + d) + digits;
    n = (n - d) / 10;
  }
  return (x < 0 ? "-" : "") + digits;
}

/**
 * ECMAScript `Number::toString(x)` for a finite double, from its definition (contractpin
 * §3.6, RFC 8785 §3.2.2.3, ECMA-262 Number::toString).
 */
export function ecmaNumberToString(x: number): string {
  if (!Number.isFinite(x)) {
    throw new OracleReject("canonicalize", "number-overflow", `${x} is not a JSON number`);
  }
  if (x === 0) return "0";
  if (x < 0) return "-" + ecmaNumberToString(-x);
  if (Number.isInteger(x) && x < 9007199254740992) return integerText(x); // k <= n <= 21
  const { s, n } = shortestDigits(x);
  const k = s.length;
  if (k <= n && n <= 21) return s + "0".repeat(n - k);
  if (0 < n && n <= 21) return s.slice(0, n) + "." + s.slice(n);
  if (-6 < n && n <= 0) return "0." + "0".repeat(-n) + s;
  const e = n - 1;
  return s[0] + (k > 1 ? "." + s.slice(1) : "") + "e" + (e < 0 ? "-" : "+") + Math.abs(e);
}

interface Digits {
  /** Exactly p digits (the first one nonzero). */
  d: string;
  /** The value is 0.d × 10^n. */
  n: number;
}

/**
 * The shortest digit string `s` (no trailing zeros) and exponent `n` with 𝔽(0.s × 10^n) = x;
 * among equally short ones the closest to x, and of two equally close the even one
 * (ECMA-262 Number::toString, step 5 and its note; RFC 8785 relies on the note).
 *
 * `x.toPrecision(p)` is the correctly rounded p-digit decimal, i.e. the closest one (a tie
 * goes up). Where the doubles around x are evenly spaced, "the closest p-digit decimal round
 * trips" is monotone in p, so a binary search finds the shortest p, and no other p-digit
 * decimal can round trip when the closest one does not. At a power of two the gap below is
 * half the gap above: there the next decimal on the wide side may round trip when the
 * closest does not, so every p is tried with both neighbours.
 */
function shortestDigits(x: number): { s: string; n: number } {
  const roundTrips = (c: Digits) => Number(`0.${c.d}e${c.n}`) === x;
  const nearest = (p: number) => decompose(x.toPrecision(p), p);
  if (isPowerOfTwo(x)) {
    for (let p = 1; p <= 17; p++) {
      const near = nearest(p);
      if (roundTrips(near)) return trim(breakTie(x, near, roundTrips));
      const up = step(near, 1), down = step(near, -1);
      if (roundTrips(up) && roundTrips(down)) throw new Error(`oracle: two candidates for ${x}`);
      if (roundTrips(up)) return trim(up);
      if (roundTrips(down)) return trim(down);
    }
    throw new Error(`oracle: no 17-digit round trip for ${x}`);
  }
  let lo = 1, hi = 17;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (roundTrips(nearest(mid))) hi = mid;
    else lo = mid + 1;
  }
  const near = nearest(lo);
  if (!roundTrips(near)) throw new Error(`oracle: no 17-digit round trip for ${x}`);
  return trim(breakTie(x, near, roundTrips));
}

/** If x lies exactly halfway between `near` and the decimal below it, the even one. */
function breakTie(x: number, near: Digits, roundTrips: (c: Digits) => boolean): Digits {
  const down = step(near, -1);
  if (!roundTrips(down)) return near;
  // 2x = near + down exactly?
  const p = near.d.length;
  const qNear = near.n - p, qDown = down.n - p, q = Math.min(qNear, qDown);
  const sum = BigInt(near.d) * 10n ** BigInt(qNear - q) + BigInt(down.d) * 10n ** BigInt(qDown - q);
  if (compareExact(x, 1, sum, q) !== 0) return near;
  return Number(near.d[p - 1]) % 2 === 0 ? near : down;
}

function isPowerOfTwo(x: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  return view.getUint32(4) === 0 && (view.getUint32(0) & 0xfffff) === 0 &&
    (view.getUint32(0) & 0x7ff00000) !== 0;
}

/** Sign of x·2^twoExp − a·10^q, computed exactly (x positive, finite). */
function compareExact(x: number, twoExp: number, a: bigint, q: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0), lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e = twoExp;
  if (biased === 0) e += -1074;
  else (m |= 1n << 52n), (e += biased - 1075);
  // m·2^e versus a·10^q: move negative exponents to the other side.
  let left = m, right = a;
  if (e >= 0) left <<= BigInt(e);
  else right <<= BigInt(-e);
  if (q >= 0) right *= 10n ** BigInt(q);
  else left *= 10n ** BigInt(-q);
  return left === right ? 0 : left > right ? 1 : -1;
}

/** Exactly `p` digits `d` and exponent `n` with value 0.d × 10^n, from toPrecision text. */
function decompose(text: string, p: number): Digits {
  let mantissa = text, exp = 0;
  const e = text.indexOf("e");
  if (e >= 0) {
    mantissa = text.slice(0, e);
    exp = Number(text.slice(e + 1));
  }
  const dot = mantissa.indexOf(".");
  const intPart = dot >= 0 ? mantissa.slice(0, dot) : mantissa;
  const all = intPart + (dot >= 0 ? mantissa.slice(dot + 1) : "");
  let lead = 0;
  while (lead < all.length - 1 && all[lead] === "0") lead++;
  const d = all.slice(lead);
  if (d.length !== p) throw new Error(`oracle: toPrecision(${p}) gave ${text}`);
  return { d, n: intPart.length + exp - lead };
}

/** The p-digit decimal one unit in the last place above (+1) or below (−1). */
function step(v: Digits, dir: 1 | -1): Digits {
  const p = v.d.length;
  const m = BigInt(v.d) + BigInt(dir);
  let d = m.toString(), n = v.n;
  if (d.length > p) {
    d = d.slice(0, p); // 999 + 1 = 1000: one more digit, drop the trailing zero
    n++;
  } else if (m < 10n ** BigInt(p - 1)) {
    d = "9".repeat(p); // 100 − 1 = 99: one digit fewer, so 999 one decade down
    n--;
  }
  return { d, n };
}

function trim(v: Digits): { s: string; n: number } {
  let end = v.d.length;
  while (end > 1 && v.d[end - 1] === "0") end--;
  return { s: v.d.slice(0, end), n: v.n };
}
