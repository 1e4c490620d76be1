/**
 * The serializer shared by both canonicalizations. They differ in exactly two rules:
 * object-name order (Unicode code points for schemapin-v1 §4.3, UTF-16 code units for
 * RFC 8785 / contractpin §3.3) and the number range (schemapin-v1 §4.6 rejects
 * |x| > 2^53 − 1). Everything else — minimal string escaping, ECMAScript `Number::toString`,
 * rejection of non-JSON values — is one implementation.
 *
 * The serializer walks the value once and writes the canonical text directly; it never
 * builds sorted copies of objects (so a `__proto__` name is never materialised, §4 item 8).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { MAX_JSON_DEPTH } from "./parse.ts";

/** The two rules in which the canonicalizations differ. */
export interface CanonicalRules {
  /** Identifier used in error messages ("schemapin-v1", "contractpin-canonical-json/1"). */
  readonly id: string;
  /** Sort names by code point (true) or by UTF-16 code unit (false). */
  readonly codePointOrder: boolean;
  /** Reject numbers whose magnitude exceeds 2^53 − 1. */
  readonly safeIntegerRange: boolean;
}

/** Thrown while walking; `path` holds the names/indices from the root to the bad value. */
class CanonicalError extends Error {
  constructor(message: string, readonly path: string[]) {
    super(message);
  }
}

// A string needs the slow path when it holds a character to escape or a surrogate (a lone
// surrogate must be rejected; a paired one changes code-point vs UTF-16 name order).
// deno-lint-ignore no-control-regex
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;
const SURROGATE = /[\ud800-\udfff]/;
// deno-lint-ignore no-control-regex
const TO_ESCAPE = /["\\\u0000-\u001f]/g;
const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

function escapeChar(ch: string): string {
  return SHORT_ESCAPES[ch] ?? "\\u00" + ch.charCodeAt(0).toString(16).padStart(2, "0");
}

// Names repeat across schemas ("type", "properties", "description"…), so the verdict on
// each name is cached: its quoted form `"name":`, or null for a name that needs care (an
// escape or a surrogate). Bounded; cleared when full.
const nameCache = new Map<string, string | null>();
const NAME_CACHE_LIMIT = 4096;

function quotedName(k: string): string | null {
  let q = nameCache.get(k);
  if (q === undefined) {
    if (nameCache.size >= NAME_CACHE_LIMIT) nameCache.clear();
    q = NEEDS_CARE.test(k) ? null : '"' + k + '":';
    nameCache.set(k, q);
  }
  return q;
}

// Short string values repeat too ("object", "string", "integer"…); same bounded cache.
const SHORT_STRING = 24;
const valueCache = new Map<string, string>();

function quoteShort(s: string): string {
  let q = valueCache.get(s);
  if (q === undefined) {
    q = quote(s); // throws for a lone surrogate: nothing is cached then
    if (valueCache.size >= NAME_CACHE_LIMIT) valueCache.clear();
    valueCache.set(s, q);
  }
  return q;
}

function quote(s: string): string {
  if (!NEEDS_CARE.test(s)) return '"' + s + '"';
  if (!s.isWellFormed()) {
    const at = [...s].findIndex((ch) => ch.length === 1 && /[\ud800-\udfff]/.test(ch));
    throw new SchemaPinError(
      "SCHEMA_CANONICALIZATION_FAILED",
      `lone surrogate at character ${at} of a string has no canonical form`,
    );
  }
  return '"' + s.replace(TO_ESCAPE, escapeChar) + '"';
}

/** Compares by Unicode code point (equivalently, by UTF-8 bytes). */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!, y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * Sorts names by UTF-16 code units (JS `<` on strings). Insertion sort for the short name
 * lists of real schemas (measured faster than Array.prototype.sort there), else the builtin.
 */
function sortUtf16(keys: string[]): void {
  if (keys.length > 12) {
    keys.sort();
    return;
  }
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j];
      j--;
    }
    keys[j + 1] = k;
  }
}

function describeValue(v: unknown): string {
  if (v === undefined) return "undefined";
  if (typeof v === "function") return "a function";
  if (typeof v === "symbol") return "a symbol";
  if (typeof v === "bigint") return `a BigInt (${v}n)`;
  const name = (v as object).constructor?.name;
  return name ? `an instance of ${name}` : "an exotic object";
}

/**
 * Builds a canonicalizer for the given rules. The result maps a JSON value to its canonical
 * text, or throws `SchemaPinError` `SCHEMA_CANONICALIZATION_FAILED` naming the JSON Pointer
 * of the first value that has no canonical form.
 *
 * @example
 * ```ts
 * import { makeCanonicalizer } from "./canonical.ts";
 * const c = makeCanonicalizer({ id: "demo", codePointOrder: true, safeIntegerRange: true });
 * c({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 * ```
 */
export function makeCanonicalizer(rules: CanonicalRules): (value: unknown) => string {
  const { codePointOrder, safeIntegerRange } = rules;
  // The containers and member names on the path from the root, by depth. They name the bad
  // value in errors without a try/catch per member, and reveal cycles: a cycle is the only
  // way a finite value reaches the depth limit with the current container already on the path.
  const containers: object[] = [];
  const names: string[] = [];

  function fail(message: string, depth: number): never {
    throw new CanonicalError(message, names.slice(0, depth));
  }

  function number(n: number, depth: number): string {
    if (!Number.isFinite(n)) fail(`${n} is not a JSON number`, depth);
    if (safeIntegerRange && (n > Number.MAX_SAFE_INTEGER || n < -Number.MAX_SAFE_INTEGER)) {
      fail(`number ${n} exceeds 2^53 − 1 in magnitude and has no canonical form`, depth);
    }
    return String(n); // ECMAScript Number::toString: -0 → "0", 1e21 → "1e+21", 1e-7 → "1e-7"
  }

  function string(s: string, depth: number): string {
    try {
      return s.length <= SHORT_STRING ? quoteShort(s) : quote(s);
    } catch (e) {
      fail((e as Error).message, depth);
    }
  }

  function value(v: unknown, depth: number): string {
    switch (typeof v) {
      case "string":
        return string(v, depth);
      case "number":
        return number(v, depth);
      case "boolean":
        return v ? "true" : "false";
      case "object":
        if (v === null) return "null";
        if (depth >= MAX_JSON_DEPTH) {
          const seen = new Set<object>();
          for (let d = 0; d < depth; d++) {
            if (seen.has(containers[d])) fail("cyclic reference: a value contains itself", d);
            seen.add(containers[d]);
          }
          fail(`nesting deeper than ${MAX_JSON_DEPTH} levels`, depth);
        }
        containers[depth] = v;
        return Array.isArray(v) ? array(v, depth) : object(v, depth);
      default:
        fail(`${describeValue(v)} is not a JSON value`, depth);
    }
  }

  function array(a: unknown[], depth: number): string {
    let out = "[";
    for (let i = 0; i < a.length; i++) {
      names[depth] = String(i);
      if (!(i in a)) fail(`sparse array: index ${i} is a hole`, depth + 1);
      out += (i === 0 ? "" : ",") + value(a[i], depth + 1);
    }
    return out + "]";
  }

  function object(o: object, depth: number): string {
    const proto = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) {
      fail(`${describeValue(o)} is not a JSON value`, depth);
    }
    // Symbol-keyed properties are not JSON members; like JSON.stringify, they are not read.
    const keys = Object.keys(o);
    const record = o as Record<string, unknown>;
    // UTF-16 code-unit order is also code-point order unless a name holds a surrogate pair;
    // such a name needs care (quotedName → null), and then the object is sorted again by
    // code point and written from the start. Rare, so the common path pays nothing for it.
    sortUtf16(keys);
    let resorted = !codePointOrder;
    let out = "{";
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i];
      names[depth] = k;
      let name = quotedName(k);
      if (name === null) {
        if (!resorted && SURROGATE.test(k)) {
          keys.sort(compareCodePoints);
          resorted = true;
          out = "{";
          i = -1;
          continue;
        }
        name = string(k, depth + 1) + ":";
      }
      out += (i === 0 ? "" : ",") + name + value(record[k], depth + 1);
    }
    return out + "}";
  }

  return (input: unknown): string => {
    try {
      return value(input, 0);
    } catch (e) {
      if (!(e instanceof CanonicalError)) throw e;
      const pointer = e.path.map((p) => "/" + p.replace(/~/g, "~0").replace(/\//g, "~1")).join("");
      throw new SchemaPinError(
        "SCHEMA_CANONICALIZATION_FAILED",
        `${rules.id}: ${e.message} (at ${pointer || "the top level"})`,
        { pointer, canonicalization: rules.id },
      );
    } finally {
      containers.length = 0; // do not keep the caller's objects alive
    }
  };
}
