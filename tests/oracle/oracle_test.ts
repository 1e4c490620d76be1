// The oracle itself (./json.ts, ./canonical.ts) checked against every published vector, the
// spec texts and hand-written cases — and shown able to fail: the differential comparison
// flags a wrong canonical text, and the issue-12 V8 example has the oracle's answer.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { MAX_JSON_DEPTH } from "../../lib/json/parse.ts";
import { isObject, type OObject, oracleParse, OracleReject, type OValue } from "./json.ts";
import { ORACLE_MAX_DEPTH } from "./json.ts";
import { ecmaNumberToString, oracleJcs, oracleSchemapinV1 } from "./canonical.ts";
import {
  evaluateFresh,
  mismatchCategory,
  oracleOutcome,
  runtimeJsonParseJcs,
  shrink,
} from "./differential.ts";
import { generateCase } from "./generate.ts";
import { Rng } from "./prng.ts";

const enc = new TextEncoder();
const bytesOf = (s: string) => enc.encode(s);
const root = new URL("../../vectors/", import.meta.url);
const load = async (name: string) => oracleParse(await Deno.readFile(new URL(name, root)));
const sha256 = (s: string) => createHash("sha256").update(enc.encode(s)).digest("hex");
const fromBase64 = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

function get(v: OValue, ...path: (string | number)[]): OValue {
  let cur = v;
  for (const p of path) {
    if (typeof p === "number") {
      assert.ok(Array.isArray(cur), `expected an array at ${p}`);
      cur = cur[p];
    } else {
      assert.ok(cur !== null && isObject(cur), `expected an object at ${p}`);
      assert.ok(cur.has(p), `missing ${p}`);
      cur = cur.get(p)!;
    }
  }
  return cur;
}
const str = (v: OValue, ...path: (string | number)[]) => get(v, ...path) as string;
const arr = (v: OValue, ...path: (string | number)[]) => get(v, ...path) as OValue[];
const has = (v: OValue, key: string) => isObject(v) && v.has(key);

/** Oracle verdict on bytes: canonical schemapin-v1 text, or "stage/reason". */
function schemapin(bytes: Uint8Array): string {
  try {
    return oracleSchemapinV1(oracleParse(bytes));
  } catch (e) {
    if (e instanceof OracleReject) return `${e.stage}/${e.reason}`;
    throw e;
  }
}

function jcs(bytes: Uint8Array): string {
  try {
    return oracleJcs(oracleParse(bytes));
  } catch (e) {
    if (e instanceof OracleReject) return `${e.stage}/${e.reason}`;
    throw e;
  }
}

Deno.test("oracle shares no code with lib/ and never calls JSON.parse", async () => {
  for (const file of ["json.ts", "canonical.ts"]) {
    const src = (await Deno.readTextFile(new URL(file, import.meta.url)))
      .replace(/\/\*[\s\S]*?\*\//g, "") // comments may name JSON.parse
      .replace(/^\s*\/\/.*$/gm, "");
    assert.doesNotMatch(src, /JSON\s*\.\s*parse/, `${file} calls JSON.parse`);
    assert.doesNotMatch(src, /JSON\s*\.\s*stringify/, `${file} calls JSON.stringify`);
    for (const m of src.matchAll(/from\s+["']([^"']+)["']/g)) {
      assert.ok(m[1] === "./json.ts", `${file} imports ${m[1]}`);
    }
  }
  assert.equal(ORACLE_MAX_DEPTH, MAX_JSON_DEPTH, "the oracle's depth limit is the library's");
});

// ---- the published vectors ----

const canonicalization = await load("canonicalization.json");
const contractpin = await load("contractpin.json");
const signatures = await load("signatures.json");
const documents = await load("schema_signature_documents.json");
const skill = await load("skill/expected.json");

Deno.test("oracle agrees with every vector of vectors/canonicalization.json", () => {
  assert.equal(str(canonicalization, "canonicalization"), "schemapin-v1");
  const vectors = arr(canonicalization, "vectors");
  assert.ok(vectors.length >= 80);
  const failures: string[] = [];
  for (const v of vectors) {
    const name = str(v, "name");
    const got = schemapin(fromBase64(str(v, "input_base64")));
    const want = has(v, "canonical")
      ? str(v, "canonical")
      : `${str(v, "reject", "stage")}/${str(v, "reject", "reason")}`;
    if (got !== want) failures.push(`${name}: oracle ${got}, vector ${want}`);
  }
  assert.deepEqual(failures, []);
});

Deno.test("the vectors catch a schemapin-v1 canonicalizer with JCS rules (sanity)", () => {
  // Feeding the JCS canonicalizer through the same check must fail on the UTF-16 name order
  // and on the 2^53 range: the corpus can tell the two apart, so agreement above means something.
  const wrong: string[] = [];
  for (const v of arr(canonicalization, "vectors")) {
    const got = jcs(fromBase64(str(v, "input_base64")));
    const want = has(v, "canonical")
      ? str(v, "canonical")
      : `${str(v, "reject", "stage")}/${str(v, "reject", "reason")}`;
    if (got !== want) wrong.push(str(v, "name"));
  }
  assert.ok(wrong.includes("key-order-astral-after-bmp"), wrong.join(", "));
  assert.ok(wrong.includes("two-pow-53"), wrong.join(", "));
});

Deno.test("oracle agrees with every vector of vectors/contractpin.json", () => {
  const vectors = contractpin as OValue[];
  assert.ok(vectors.length >= 10);
  for (const v of vectors) {
    let input = get(v, "input");
    if (get(v, "project") === true) {
      // contractpin spec §2: name, description or null, inputSchema or null, and
      // outputSchema / annotations only when present and not null.
      const tool = input as OObject;
      const contract: OObject = new Map();
      contract.set("name", tool.get("name")!);
      contract.set("description", tool.get("description") ?? null);
      contract.set("inputSchema", tool.get("inputSchema") ?? null);
      for (const k of ["outputSchema", "annotations"]) {
        const x = tool.get(k);
        if (x !== undefined && x !== null) contract.set(k, x);
      }
      input = contract;
    }
    const canonical = oracleJcs(input);
    assert.equal(canonical, str(v, "canonical"), str(v, "name"));
    assert.equal(`sha256:${sha256(canonical)}`, str(v, "digest"), str(v, "name"));
  }
});

Deno.test("oracle reproduces the canonical texts of vectors/signatures.json", () => {
  const s = signatures;
  let checked = 0;
  for (const group of ["schema_signatures", "document_signatures"]) {
    for (const v of arr(s, group)) {
      const canonical = str(v, "canonical");
      assert.equal(sha256(canonical), str(v, "canonical_sha256"), str(v, "name"));
      const input = get(v, group === "schema_signatures" ? "schema" : "document");
      // "tampered" entries carry the canonical text of what was signed, not of the input.
      if (has(v, "reason") && str(v, "reason") === "mismatch") continue;
      assert.equal(oracleSchemapinV1(input), canonical, str(v, "name"));
      checked++;
    }
  }
  assert.ok(checked >= 10);
});

Deno.test("oracle reproduces hashes and signing inputs of the 1.4 signature documents", () => {
  const d = documents;
  const known = arr(d, "known_fields") as string[];
  for (const v of arr(d, "documents")) {
    const name = str(v, "name");
    const doc = get(v, "document") as OObject;
    const signed: OObject = new Map();
    for (const k of known) if (doc.has(k)) signed.set(k, doc.get(k)!);
    signed.set("signature", "");
    assert.equal(oracleSchemapinV1(signed), str(v, "signing_input"), name);
    if (name === "schema-changed") continue; // the schema was changed after signing
    assert.equal(
      `sha256:${sha256(oracleSchemapinV1(get(v, "schema")))}`,
      str(doc.get("schema_hash")!),
      name,
    );
  }
  const doc = new Map(get(skill, "signature_document") as OObject);
  doc.set("signature", "");
  assert.equal(oracleSchemapinV1(doc), str(skill, "signing_input"), "skill signing input");
});

// ---- the spec texts and hand-written cases ----

Deno.test("issue 12: the V8 escaped-name example reads as its bytes say", () => {
  const input = String.raw`{"a":{"x":0,"\\":0},"b":{"x":1,"\n":2}}`;
  const want = String.raw`{"a":{"\\":0,"x":0},"b":{"\n":2,"x":1}}`;
  assert.equal(schemapin(bytesOf(input)), want);
  assert.equal(jcs(bytesOf(input)), want);
  // The same with the trigger in an earlier document, in arrays, long names and merges.
  const cases: [string, string][] = [
    [String.raw`{"x":1,"\n":2}`, String.raw`{"\n":2,"x":1}`],
    [String.raw`{"x":1,"\u0079":2}`, String.raw`{"x":1,"y":2}`],
    [String.raw`[{"a\\":0},{"a\n":1}]`, String.raw`[{"a\\":0},{"a\n":1}]`],
    [
      String.raw`{"a":{"x":0,"\\":0},"b":{"x":1,"\n":2,"\u005c":3}}`,
      String.raw`{"a":{"\\":0,"x":0},"b":{"\n":2,"\\":3,"x":1}}`,
    ],
    [String.raw`{"a":{"x":0,"\\":0},"b":{"x":1,"\\":2,"\u005c":3}}`, "parse/duplicate-key"],
  ];
  for (const [input, want] of cases) assert.equal(schemapin(bytesOf(input)), want, input);
});

Deno.test("spec §4 example and key order: code points (schemapin-v1) vs UTF-16 (JCS)", () => {
  assert.equal(
    schemapin(bytesOf(
      '{ "description": "Calculates the sum", "name": "calculate_sum", "parameters": { "b": "integer", "a": "integer"} }',
    )),
    '{"description":"Calculates the sum","name":"calculate_sum","parameters":{"a":"integer","b":"integer"}}',
  );
  const keys = String.raw`{"\uffff":1,"\ud83d\ude00":2,"z":3,"\ufb00":4,"é":5}`;
  assert.equal(schemapin(bytesOf(keys)), '{"z":3,"é":5,"\ufb00":4,"\uffff":1,"😀":2}');
  // UTF-16: U+1F600 is D83D DE00, below U+FB00 and U+FFFF.
  assert.equal(jcs(bytesOf(keys)), '{"z":3,"é":5,"😀":2,"\ufb00":4,"\uffff":1}');
  assert.equal(
    schemapin(bytesOf('{"b":1,"B":2,"a":3,"":4,"ab":5}')),
    '{"":4,"B":2,"a":3,"ab":5,"b":1}',
  );
});

Deno.test("special names are data; duplicates are found after decoding escapes", () => {
  assert.equal(
    schemapin(bytesOf('{"prototype":2,"__proto__":{"polluted":true},"constructor":1}')),
    '{"__proto__":{"polluted":true},"constructor":1,"prototype":2}',
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(schemapin(bytesOf(String.raw`{"\u005f_proto__":[]}`)), '{"__proto__":[]}');
  for (
    const dup of [
      '{"a":1,"a":1}',
      String.raw`{"a":1,"\u0061":2}`,
      String.raw`{"é":1,"\u00e9":2}`,
      String.raw`{"😀":1,"\ud83d\ude00":2}`,
      String.raw`{"\/":1,"/":2}`,
      String.raw`{"__proto__":1,"\u005F_proto__":2}`,
      String.raw`{"\n":1,"\u000A":2}`,
    ]
  ) assert.equal(schemapin(bytesOf(dup)), "parse/duplicate-key", dup);
  assert.equal(schemapin(bytesOf('{"a":1,"A":2,"a ":3}')), '{"A":2,"a":1,"a ":3}');
});

Deno.test("strings: minimal escaping, surrogates, control characters", () => {
  assert.equal(
    schemapin(bytesOf(String.raw`"\"\\\/\b\f\n\r\t\u0000\u001F\u007f\u2028\u2029\u00e9</>&"`)),
    '"\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\u007f\u2028\u2029é</>&"',
  );
  assert.equal(schemapin(bytesOf(String.raw`"\ud83d\ude00"`)), '"😀"');
  for (const bad of [String.raw`"\ud800"`, String.raw`"\udc00"`, String.raw`"\ud800\u0041"`]) {
    assert.equal(schemapin(bytesOf(bad)), "parse/lone-surrogate", bad);
  }
  assert.equal(schemapin(bytesOf(String.raw`"\udc00\ud800"`)), "parse/lone-surrogate");
  assert.equal(schemapin(bytesOf('"a\tb"')), "parse/control-character");
  assert.equal(schemapin(bytesOf(String.raw`"\x41"`)), "parse/syntax");
  assert.equal(schemapin(bytesOf(String.raw`"\u12"`)), "parse/syntax");
});

Deno.test("UTF-8: overlong, encoded surrogates, above U+10FFFF, truncated, BOM", () => {
  const q = (...b: number[]) => Uint8Array.of(0x22, ...b, 0x22);
  for (
    const bad of [
      q(0xc0, 0xaf),
      q(0xe0, 0x80, 0xaf),
      q(0xf0, 0x80, 0x80, 0xaf),
      q(0xed, 0xa0, 0x80),
      q(0xf4, 0x90, 0x80, 0x80),
      q(0xf5, 0x80, 0x80, 0x80),
      q(0xe2, 0x82),
      q(0x80),
      q(0xff),
    ]
  ) assert.equal(schemapin(bad), "parse/invalid-utf8", String(bad));
  assert.equal(schemapin(q(0xf4, 0x8f, 0xbf, 0xbf)), '"\u{10ffff}"');
  assert.equal(schemapin(q(0xed, 0x9f, 0xbf)), '"\ud7ff"');
  assert.equal(schemapin(Uint8Array.of(0xef, 0xbb, 0xbf, 0x31)), "parse/bom");
  assert.equal(schemapin(Uint8Array.of(0x31, 0x20, 0xef, 0xbb, 0xbf)), "parse/syntax");
});

Deno.test("grammar: whitespace, literals, commas, comments, trailing text", () => {
  assert.equal(schemapin(bytesOf(' \t\r\n[ 1 , { "a" : null } ]\n')), '[1,{"a":null}]');
  for (
    const bad of [
      "",
      " ",
      "[1,]",
      '{"a":1,}',
      "[1 2]",
      "1 2",
      "/*c*/1",
      "[1]//",
      "True",
      "nul",
      "{a:1}",
      "{'a':1}",
      '{"a" 1}',
      "[",
      "\u000b1",
      "\u00a01",
    ]
  ) assert.equal(schemapin(bytesOf(bad)), "parse/syntax", JSON.stringify(bad));
});

Deno.test("numbers: §4.6 and §3.6 forms, the 2^53 boundary, overflow", () => {
  const cases: [string, string, string][] = [
    ["[1.0,1e3,1E2,10e-1,-0,-0.0,0e5,100]", "[1,1000,100,1,0,0,0,100]", "same"],
    ["[0.1,1e-7,0.000001,123.456,-1.5,5e-324]", "[0.1,1e-7,0.000001,123.456,-1.5,5e-324]", "same"],
    ["[1.10,0.1000000000000000055511151231257827]", "[1.1,0.1]", "same"],
    ["[9007199254740991,-9007199254740991]", "[9007199254740991,-9007199254740991]", "same"],
    ["9007199254740992", "canonicalize/number-range", "9007199254740992"],
    ["-9007199254740993", "canonicalize/number-range", "-9007199254740992"],
    ["1e21", "canonicalize/number-range", "1e+21"],
    ["1e20", "canonicalize/number-range", "100000000000000000000"],
    ["[4503599627370495.5]", "[4503599627370495.5]", "same"],
    ["1.7976931348623157e308", "canonicalize/number-range", "1.7976931348623157e+308"],
    ["1e400", "parse/number-overflow", "parse/number-overflow"],
    ["-1e400", "parse/number-overflow", "parse/number-overflow"],
    ["1e-400", "0", "0"],
    ["[333333333.3333333,1e-27]", "[333333333.3333333,1e-27]", "same"],
    ["295147905179352830000", "canonicalize/number-range", "295147905179352830000"],
  ];
  for (const [input, sp, j] of cases) {
    assert.equal(schemapin(bytesOf(input)), sp, input);
    assert.equal(jcs(bytesOf(input)), j === "same" ? sp : j, input);
  }
  for (const bad of ["01", "-01", "+1", ".5", "1.", "1e", "1e+", "0x10", "NaN", "-Infinity", "-"]) {
    assert.equal(schemapin(bytesOf(bad)), "parse/syntax", bad);
  }
});

Deno.test("the oracle's Number::toString matches the runtime's on 100,000 doubles", () => {
  // Two independent routes to the same spec text: ours (toPrecision search + layout rules)
  // and the engine's. A disagreement would be a bug in one of them.
  const rng = new Rng(0x0badcafe);
  const view = new DataView(new ArrayBuffer(8));
  const specials = [5e-324, 2 ** -1022, 2 ** -1074 * 3, 1e21, 1e-7, 1e-6, 2 ** 53, 2 ** 63];
  for (let i = 0; i < 100_000 + specials.length; i++) {
    let x: number;
    if (i < specials.length) x = specials[i];
    else if (i % 3 === 0) {
      view.setUint32(0, rng.u32());
      view.setUint32(4, rng.u32());
      x = view.getFloat64(0);
      if (!Number.isFinite(x)) continue;
    } else if (i % 3 === 1) x = 2 ** rng.range(-1074, 1023) * rng.pick([1, 1 + Number.EPSILON]);
    else x = Number((rng.float() * 10 ** rng.range(-8, 22)).toPrecision(rng.range(1, 17)));
    assert.equal(ecmaNumberToString(x), x === 0 ? "0" : String(x), `${x}`);
  }
});

Deno.test("depth: 1000 levels accepted, 1001 rejected", () => {
  const nest = (n: number, o: string, c: string) => o.repeat(n) + "1" + c.repeat(n);
  assert.equal(schemapin(bytesOf(nest(1000, "[", "]"))), nest(1000, "[", "]"));
  assert.equal(schemapin(bytesOf(nest(1001, "[", "]"))), "parse/depth");
  assert.equal(schemapin(bytesOf(nest(1001, '{"a":', "}"))), "parse/depth");
  assert.equal(schemapin(bytesOf(nest(100000, "[", "]"))), "parse/depth");
});

// ---- the comparison can fail ----

Deno.test("the differential comparison flags wrong texts, wrong stages and crashes", () => {
  const bytes = bytesOf(String.raw`{"\uffff":1,"\ud83d\ude00":2}`);
  const oracle = oracleOutcome(bytes);
  const good = { kind: "text" as const, text: '{"\uffff":1,"😀":2}' };
  assert.deepEqual(oracle.schemapin, good);
  const lib = { parse: "accept" as const, schemapin: good, jcs: oracle.jcs };
  assert.equal(mismatchCategory(lib, oracle), null);
  // A schemapin-v1 canonicalizer sorting by UTF-16 (the JCS order) is caught:
  assert.equal(
    mismatchCategory({ ...lib, schemapin: oracle.jcs }, oracle),
    "schemapin-v1: canonical texts differ",
  );
  assert.equal(
    mismatchCategory({ ...lib, jcs: { kind: "reject", message: "x" } }, oracle),
    "jcs: library reject, oracle text",
  );
  assert.equal(
    mismatchCategory({ parse: "reject" }, oracle),
    "parse: library rejects, oracle accepts",
  );
  assert.equal(
    mismatchCategory({ parse: "crash" }, { parse: "reject" }),
    "parse: library crashes, oracle rejects",
  );
});

Deno.test("the runtime's JSON.parse misreads the issue example in a fresh isolate (if defective)", async () => {
  // On Deno 2.9.6 the V8 defect makes JSON.parse disagree with the oracle here; this is what
  // the differential test would report for a library that let JSON.parse build its values.
  const example = bytesOf(String.raw`{"a":{"x":0,"\\":0},"b":{"x":1,"\n":2}}`);
  const [runtime] = await evaluateFresh([example], "runtime");
  const oracleText = oracleJcs(oracleParse(example));
  if (Deno.version.deno === "2.9.6") {
    assert.notEqual(runtime, oracleText, "expected the V8 defect on Deno 2.9.6");
    assert.equal(runtime, String.raw`{"a":{"\\":0,"x":0},"b":{"\\":2,"x":1}}`);
  }
  assert.equal(runtimeJsonParseJcs(bytesOf('{"b":[1,{"a":null}]}')), '{"b":[1,{"a":null}]}');
});

Deno.test("shrink finds a small input for a synthetic failure", async () => {
  const big = bytesOf(
    '{"type":"object","properties":{"a":{"type":"string"},"b":[1,2,{"x\\\\":3}],"c":[[[[' +
      '{"k":"v","m\\n":0}]]]]},"required":["a"]}',
  );
  const fails = (b: Uint8Array) => {
    const text = new TextDecoder().decode(b);
    return text.includes("\\n") && schemapin(b).startsWith("{");
  };
  assert.ok(fails(big));
  const small = await shrink(big, fails, 2000);
  assert.ok(fails(small));
  assert.ok(small.length <= 10, new TextDecoder().decode(small));
});

Deno.test("generated cases are a pure function of (seed, index)", () => {
  for (let i = 0; i < 200; i++) {
    assert.deepEqual(generateCase(42, i), generateCase(42, i));
  }
  assert.notDeepEqual(generateCase(42, 1).bytes, generateCase(43, 1).bytes);
});
