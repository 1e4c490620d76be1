import assert from "node:assert/strict";
import { MAX_JSON_DEPTH, parseJson, parseJsonText } from "../../lib/json/parse.ts";
import { isSchemaPinError, type SchemaPinError } from "../../lib/errors.ts";

const enc = new TextEncoder();

function parseError(input: string | Uint8Array, source?: string): SchemaPinError {
  const bytes = typeof input === "string" ? enc.encode(input) : input;
  try {
    parseJson(bytes, source);
  } catch (e) {
    assert.ok(isSchemaPinError(e, "JSON_INVALID"), `expected JSON_INVALID, got ${e}`);
    return e;
  }
  assert.fail(`expected ${JSON.stringify(String(input))} to be rejected`);
}

Deno.test("values come out as plain objects, arrays and doubles", () => {
  const v = parseJsonText('{"a":[1,2.5,-0,"x",true,null],"b":{}}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(v, { a: [1, 2.5, -0, "x", true, null], b: {} });
  assert.ok(Object.is((v.a as number[])[2], -0));
});

Deno.test("__proto__, constructor and prototype are own data properties", () => {
  const v = parseJsonText('{"__proto__":{"polluted":1},"constructor":2,"prototype":3}') as Record<
    string,
    unknown
  >;
  assert.deepEqual(Object.keys(v), ["__proto__", "constructor", "prototype"]);
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(v, "__proto__")?.value, { polluted: 1 });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("errors name the byte offset, line and column", () => {
  const e = parseError('{\n  "a": 1,\n  "a": 2\n}', "tool.json");
  assert.equal(e.details.offset, 14);
  assert.equal(e.details.line, 3);
  assert.equal(e.details.column, 3);
  assert.equal(e.details.source, "tool.json");
  assert.match(
    e.message,
    /^tool\.json: duplicate name "a" in object at byte 14 \(line 3, column 3\)$/,
  );
});

Deno.test("columns count characters, not bytes", () => {
  const e = parseError('["é", x]');
  assert.equal(e.details.offset, 7);
  assert.equal(e.details.column, 7);
});

Deno.test("duplicate detection sees through escapes and long objects", () => {
  parseError('{"ab":1,"\\u0061\\u0062":2}');
  parseError('{"\\ud83d\\ude00":1,"\u{1F600}":2}');
  const many = Array.from({ length: 2000 }, (_, i) => `"k${i}":${i}`);
  assert.equal(Object.keys(parseJsonText(`{${many.join(",")}}`) as object).length, 2000);
  parseError(`{${many.join(",")},"k1999":0}`);
});

Deno.test("names with equal hashes but different text are not duplicates", () => {
  // Not a real collision search: checks the exact comparison path with many similar names.
  const names = Array.from({ length: 500 }, (_, i) => `"${String.fromCharCode(0x4e00 + i)}":1`);
  assert.equal(Object.keys(parseJsonText(`{${names.join(",")}}`) as object).length, 500);
});

Deno.test("100,000 nested arrays is a clean error, not a stack overflow", () => {
  const e = parseError("[".repeat(100_000) + "]".repeat(100_000));
  assert.match(e.message, new RegExp(`nesting deeper than ${MAX_JSON_DEPTH} levels`));
  assert.equal(e.details.offset, MAX_JSON_DEPTH);
});

Deno.test("100,000 nested objects is a clean error", () => {
  const e = parseError('{"a":'.repeat(100_000));
  assert.match(e.message, /nesting deeper/);
});

Deno.test("a leading BOM is rejected with an explanation", () => {
  const e = parseError(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]));
  assert.match(e.message, /byte order mark/);
  assert.equal(e.details.offset, 0);
});

Deno.test("invalid UTF-8 is reported at the offending byte", () => {
  assert.equal(parseError(new Uint8Array([0x5b, 0x22, 0xc0, 0x80, 0x22, 0x5d])).details.offset, 2);
  assert.match(parseError(new Uint8Array([0x22, 0xed, 0xb0, 0x80, 0x22])).message, /surrogate/);
  assert.match(parseError(new Uint8Array([0x22, 0xe0, 0x9f, 0xbf, 0x22])).message, /overlong/);
  assert.match(parseError(new Uint8Array([0xc3, 0xa9])).message, /expected a value/);
});

Deno.test("numbers: exactness and overflow", () => {
  assert.equal(parseJsonText("9007199254740993"), 9007199254740992);
  assert.equal(parseJsonText("1e308"), 1e308);
  assert.equal(parseJsonText("-123456789012345"), -123456789012345);
  assert.equal(parseJsonText("0.1e1"), 1);
  assert.match(parseError("1e309").message, /overflows/);
  assert.match(parseError("1" + "0".repeat(400)).message, /overflows/);
  assert.equal(parseJsonText("1e-400"), 0); // underflow is a valid double (zero)
});

Deno.test("each kind of malformed input gets its own message", () => {
  const cases: [string, RegExp][] = [
    ["[1,]", /trailing comma in array/],
    ['{"a":1,}', /trailing comma in object/],
    ["01", /leading zeros/],
    ["NaN", /NaN and Infinity/],
    ["-Infinity", /NaN and Infinity/],
    ["// x\n1", /comments/],
    ["[1 /* x */]", /comments/],
    ["'a'", /single-quoted strings/],
    ["{'a':1}", /single-quoted names/],
    ['"\\ud800"', /lone high surrogate/],
    ['"\\udc00"', /lone low surrogate/],
    ['"\u0001"', /control character U\+0001/],
    ['"abc', /unterminated string/],
    ["1 2", /after the JSON value/],
    ["tru", /invalid literal/],
    ['"\\u12g4"', /four hex digits/],
  ];
  for (const [input, pattern] of cases) assert.match(parseError(input).message, pattern, input);
});

Deno.test("parseJsonText rejects a JS string with a lone surrogate", () => {
  assert.throws(() => parseJsonText('"\ud800"'), (e) => isSchemaPinError(e, "JSON_INVALID"));
});
