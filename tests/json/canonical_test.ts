import assert from "node:assert/strict";
import {
  canonicalizeSchemapinV1,
  canonicalizeSchemapinV1Bytes,
} from "../../lib/json/canonical_schemapin.ts";
import { canonicalizeJcs } from "../../lib/json/canonical_jcs.ts";
import { parseJson, parseJsonText } from "../../lib/json/parse.ts";
import { isSchemaPinError } from "../../lib/errors.ts";

function rejects(value: unknown, pattern: RegExp, pointer?: string): void {
  for (const canonicalize of [canonicalizeSchemapinV1, canonicalizeJcs]) {
    assert.throws(() => canonicalize(value), (e) => {
      assert.ok(isSchemaPinError(e, "SCHEMA_CANONICALIZATION_FAILED"), String(e));
      assert.match(e.message, pattern);
      if (pointer !== undefined) assert.equal(e.details.pointer, pointer);
      return true;
    });
  }
}

Deno.test("non-JSON values are rejected with their JSON Pointer", () => {
  rejects(undefined, /undefined is not a JSON value/, "");
  rejects({ a: undefined }, /undefined/, "/a");
  rejects({ a: [1, () => 1] }, /a function/, "/a/1");
  rejects({ s: Symbol("x") }, /a symbol/, "/s");
  rejects({ n: 10n }, /BigInt/, "/n");
  rejects({ d: new Date(0) }, /instance of Date/, "/d");
  rejects({ m: new Map() }, /instance of Map/, "/m");
  rejects({ s: new Set() }, /instance of Set/, "/s");
  rejects({ u: new Uint8Array(2) }, /instance of Uint8Array/, "/u");
  rejects({ x: new (class Tool {})() }, /instance of Tool/, "/x");
  // deno-lint-ignore no-sparse-arrays
  rejects([1, , 3], /sparse array: index 1/, "/1");
  rejects({ "a/b": { "c~d": NaN } }, /NaN is not a JSON number/, "/a~1b/c~0d");
  rejects([Infinity], /Infinity/, "/0");
  rejects({ s: "ok\ud800" }, /lone surrogate/, "/s");
  rejects({ ["k\udc00"]: 1 }, /lone surrogate/, "/k\udc00");
});

Deno.test("cycles are named as cycles, at the first repeat", () => {
  const o: Record<string, unknown> = { a: { b: {} } };
  (o.a as Record<string, Record<string, unknown>>).b.c = o;
  rejects(o, /cyclic reference/, "/a/b/c");
  const arr: unknown[] = [];
  arr.push(arr);
  rejects(arr, /cyclic reference/, "/0");
});

Deno.test("deep caller objects are rejected, not a stack overflow", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  rejects(deep, /nesting deeper than 1000/);
});

Deno.test("a shared (non-cyclic) sub-object is fine", () => {
  const shared = { x: 1 };
  assert.equal(canonicalizeSchemapinV1({ a: shared, b: shared }), '{"a":{"x":1},"b":{"x":1}}');
});

Deno.test("caller objects with a __proto__ own property keep it (spec §4 item 8)", () => {
  const o = {};
  Object.defineProperty(o, "__proto__", { value: 1, enumerable: true });
  assert.equal(canonicalizeSchemapinV1(o), '{"__proto__":1}');
  const bare = Object.create(null);
  bare.__proto__ = { x: 1 };
  bare.constructor = 2;
  assert.equal(canonicalizeSchemapinV1(bare), '{"__proto__":{"x":1},"constructor":2}');
});

Deno.test("a __proto__ name in the bytes changes the canonical form and so the signature", () => {
  const a = canonicalizeSchemapinV1(parseJsonText('{"name":"t","__proto__":{"x":1}}'));
  const b = canonicalizeSchemapinV1(parseJsonText('{"name":"t"}'));
  assert.notEqual(a, b);
});

Deno.test("schemapin-v1 and JCS differ exactly in key order and number range", () => {
  const astral = { "\uffff": 1, "\u{1F600}": 2 };
  assert.equal(canonicalizeSchemapinV1(astral), '{"\uffff":1,"\u{1F600}":2}');
  assert.equal(canonicalizeJcs(astral), '{"\u{1F600}":2,"\uffff":1}');
  assert.equal(canonicalizeJcs(1e21), "1e+21");
  assert.throws(() => canonicalizeSchemapinV1(1e21), (e) => isSchemaPinError(e));
  assert.equal(canonicalizeJcs(-0), "0");
  assert.equal(canonicalizeSchemapinV1(-0), "0");
});

Deno.test("many keys and integer-like keys sort by code point", () => {
  const keys = Array.from({ length: 40 }, (_, i) => `k${(i * 7919) % 40}`);
  const o = Object.fromEntries(keys.map((k) => [k, 0]));
  const out = canonicalizeSchemapinV1(o);
  const sorted = [...keys].sort();
  assert.equal(out, "{" + sorted.map((k) => `"${k}":0`).join(",") + "}");
  assert.equal(canonicalizeSchemapinV1({ "9": 1, "10": 2, "a": 3 }), '{"10":2,"9":1,"a":3}');
});

Deno.test("name cache does not leak escaping between names", () => {
  assert.equal(canonicalizeSchemapinV1({ 'a"b': 1 }), '{"a\\"b":1}');
  assert.equal(canonicalizeSchemapinV1({ 'a"b': 1, ab: 2 }), '{"a\\"b":1,"ab":2}');
  assert.equal(canonicalizeSchemapinV1(["a\nb", "a\nb"]), '["a\\nb","a\\nb"]');
});

Deno.test("bytes form is the UTF-8 of the text form", () => {
  const bytes = canonicalizeSchemapinV1Bytes({ a: "é\u2028" });
  assert.deepEqual(bytes, new TextEncoder().encode('{"a":"é\u2028"}'));
});

Deno.test("reference interop: canonical strings match for valid entries, astral entry differs", async () => {
  const path = new URL(
    "../fixtures/interop/reference-js/schema_signatures.json",
    import.meta.url,
  );
  const doc = parseJson(await Deno.readFile(path)) as {
    signatures: { expect: string; schema: unknown; canonical: string }[];
  };
  let valid = 0, differs = 0, rejected = 0;
  for (const entry of doc.signatures) {
    if (entry.expect === "valid") {
      assert.equal(canonicalizeSchemapinV1(entry.schema), entry.canonical);
      valid++;
    } else if (entry.expect.startsWith("reject")) {
      assert.throws(() => canonicalizeSchemapinV1(entry.schema), (e) => isSchemaPinError(e));
      rejected++;
    } else {
      assert.notEqual(canonicalizeSchemapinV1(entry.schema), entry.canonical);
      differs++;
    }
  }
  assert.ok(valid >= 3 && differs >= 1 && rejected >= 1);
});

Deno.test("an object with both plain and astral names is re-sorted by code point", () => {
  const o = { b: 1, "\u{1F600}": 2, "\uffff": 3, a: { "\u{10000}": 1, "\ue000": 2 } };
  assert.equal(
    canonicalizeSchemapinV1(o),
    '{"a":{"\ue000":2,"\u{10000}":1},"b":1,"\uffff":3,"\u{1F600}":2}',
  );
  assert.equal(
    canonicalizeJcs(o),
    '{"a":{"\u{10000}":1,"\ue000":2},"b":1,"\u{1F600}":2,"\uffff":3}',
  );
});
