/**
 * The canonicalization corpora: `vectors/canonicalization.json` (schemapin-v1, spec §4) and
 * `vectors/contractpin.json` (contractpin-canonical-json/1, contractpin spec §3 and §7).
 *
 * Every expected output below is written by hand from the specifications, not copied from
 * the implementation: `make_vectors.ts` refuses to write a corpus the implementation
 * disagrees with.
 *
 * @module
 */

/** One schemapin-v1 case: input bytes and either the canonical text or the expected rejection. */
export interface CanonicalCase {
  name: string;
  /** Input as text (encoded as UTF-8) … */
  text?: string;
  /** … or as raw bytes, for inputs that are not valid UTF-8. */
  bytes?: number[];
  canonical?: string;
  /** Where a rejection happens: the strict parser, or canonicalization of a parsed value. */
  reject?: { stage: "parse" | "canonicalize"; reason: string };
}

const ok = (name: string, text: string, canonical: string): CanonicalCase => ({
  name,
  text,
  canonical,
});
const parseReject = (name: string, text: string, reason: string): CanonicalCase => ({
  name,
  text,
  reject: { stage: "parse", reason },
});
const byteReject = (name: string, bytes: number[], reason: string): CanonicalCase => ({
  name,
  bytes,
  reject: { stage: "parse", reason },
});
const rangeReject = (name: string, text: string): CanonicalCase => ({
  name,
  text,
  reject: { stage: "canonicalize", reason: "number-range" },
});

const q = (s: string) => `"${s}"`;

/** schemapin-v1 cases, one or more per rule of spec §4. */
export const SCHEMAPIN_CASES: CanonicalCase[] = [
  // §4 example
  ok(
    "spec-example",
    '{ "description": "Calculates the sum", "name": "calculate_sum", "parameters": { "b": "integer", "a": "integer"} }',
    '{"description":"Calculates the sum","name":"calculate_sum","parameters":{"a":"integer","b":"integer"}}',
  ),
  // §4.2 whitespace
  ok("whitespace-removed", ' \t\r\n{ "a" :\n[ 1 , 2 ] ,\r\n"b":{ } }\n', '{"a":[1,2],"b":{}}'),
  ok("empty-containers", '[{},[],""]', '[{},[],""]'),
  ok("literals", "[true,false,null]", "[true,false,null]"),
  ok("array-order-preserved", '[3,1,2,"b","a"]', '[3,1,2,"b","a"]'),
  ok("scalar-top-level", '"x"', '"x"'),
  // §4.3 key order by code point
  ok(
    "key-order-astral-after-bmp",
    '{"\\uffff":1,"\\ud83d\\ude00":2,"z":3}',
    '{"z":3,"\uffff":1,"\u{1F600}":2}',
  ),
  ok("key-order-non-ascii", '{"é":1,"f":2,"e":3}', '{"e":3,"f":2,"é":1}'),
  ok("key-order-prefix", '{"ab":1,"a":2,"b":3,"":4}', '{"":4,"a":2,"ab":1,"b":3}'),
  ok(
    "key-order-integer-like",
    '{"b":1,"10":2,"9":3,"$schema":4}',
    '{"$schema":4,"10":2,"9":3,"b":1}',
  ),
  ok("key-order-case", '{"b":1,"B":2,"a":3,"A":4}', '{"A":4,"B":2,"a":3,"b":1}'),
  ok(
    "key-order-nested",
    '{"b":{"d":1,"c":2},"a":[{"f":1,"e":2}]}',
    '{"a":[{"e":2,"f":1}],"b":{"c":2,"d":1}}',
  ),
  // §4 item 8 special-looking keys
  ok(
    "proto-constructor-prototype-keys",
    '{"prototype":2,"__proto__":{"polluted":true},"constructor":1,"toString":3}',
    '{"__proto__":{"polluted":true},"constructor":1,"prototype":2,"toString":3}',
  ),
  ok("proto-key-nested", '{"a":{"__proto__":[]}}', '{"a":{"__proto__":[]}}'),
  // §4.4 duplicates
  parseReject("duplicate-key", '{"a":1,"a":2}', "duplicate-key"),
  parseReject("duplicate-key-escaped", '{"a":1,"\\u0061":2}', "duplicate-key"),
  parseReject("duplicate-key-same-value", '{"a":1,"b":0,"a":1}', "duplicate-key"),
  parseReject("duplicate-key-nested", '{"x":{"k":1,"k":1}}', "duplicate-key"),
  parseReject("duplicate-proto-key", '{"__proto__":1,"__proto__":2}', "duplicate-key"),
  parseReject("duplicate-key-non-ascii-escaped", '{"é":1,"\\u00e9":2}', "duplicate-key"),
  ok("similar-keys-not-duplicates", '{"a":1,"A":2,"a ":3}', '{"A":2,"a":1,"a ":3}'),
  // Escaped names across objects (issue 12). The V8 in Deno 2.9.6 reads such a name with
  // JSON.parse as an earlier, differently escaped name of the same length: renamed, or merged
  // so that a member disappears. Each expected output here is the bytes' meaning, by hand.
  ok(
    "escaped-name-rename",
    '{"a":{"x":0,"\\\\":0},"b":{"x":1,"\\n":2}}',
    '{"a":{"\\\\":0,"x":0},"b":{"\\n":2,"x":1}}',
  ),
  ok(
    "escaped-name-rename-short-prefix",
    '{"a":{"x":0,"p\\\\":0},"b":{"x":1,"p\\n":2}}',
    '{"a":{"p\\\\":0,"x":0},"b":{"p\\n":2,"x":1}}',
  ),
  ok(
    "escaped-name-rename-long",
    '{"a":{"x":0,"description_of_the_tool\\\\":0},"b":{"x":1,"description_of_the_tool\\n":2}}',
    '{"a":{"description_of_the_tool\\\\":0,"x":0},"b":{"description_of_the_tool\\n":2,"x":1}}',
  ),
  ok(
    "escaped-name-merge-drops-member",
    '{"a":{"x":0,"\\\\":0,"y":0},"b":{"x":1,"\\n":2,"\\\\":3}}',
    '{"a":{"\\\\":0,"x":0,"y":0},"b":{"\\n":2,"\\\\":3,"x":1}}',
  ),
  ok(
    "escaped-name-in-arrays-of-objects",
    '{"a":[{"x":0,"\\\\":0}],"b":[{"x":1,"\\n":2}]}',
    '{"a":[{"\\\\":0,"x":0}],"b":[{"\\n":2,"x":1}]}',
  ),
  ok(
    "escaped-name-three-objects",
    '{"a":{"x":0,"\\\\":0},"b":{"x":1,"\\n":2},"c":{"x":1,"\\t":2}}',
    '{"a":{"\\\\":0,"x":0},"b":{"\\n":2,"x":1},"c":{"\\t":2,"x":1}}',
  ),
  ok(
    "escaped-name-quote-and-unicode",
    '{"a":{"x":0,"\\\\":0},"b":{"x":1,"\\"":2},"c":[{"x":0,"\\u0041":1},{"x":0,"\\n":2}]}',
    '{"a":{"\\\\":0,"x":0},"b":{"\\"":2,"x":1},"c":[{"A":1,"x":0},{"\\n":2,"x":0}]}',
  ),
  ok(
    "escaped-name-injected-property",
    '{"_meta":{"x":0,"\\\\":0},"inputSchema":{"properties":{"x":{"type":"string"},' +
      '"\\u0007":{"description":"injected"}}}}',
    '{"_meta":{"\\\\":0,"x":0},"inputSchema":{"properties":{"\\u0007":{"description":"injected"},' +
      '"x":{"type":"string"}}}}',
  ),
  ok(
    "escaped-name-not-a-duplicate",
    '{"a":{"x":0,"\\\\":0},"b":{"x":1,"\\n":2,"\\u005c":3}}',
    '{"a":{"\\\\":0,"x":0},"b":{"\\n":2,"\\\\":3,"x":1}}',
  ),
  parseReject(
    "escaped-name-duplicate-after-trigger",
    '{"a":{"x":0,"\\\\":0},"b":{"x":1,"\\\\":2,"\\u005c":3}}',
    "duplicate-key",
  ),
  // §4.5 strings
  ok(
    "short-escapes",
    q('\\"\\\\\\/\\b\\f\\n\\r\\t'),
    q('\\"\\\\/\\b\\f\\n\\r\\t'),
  ),
  ok(
    "control-characters-lowercase-hex",
    q("\\u0000\\u0001\\u0007\\u000B\\u000e\\u001F"),
    q("\\u0000\\u0001\\u0007\\u000b\\u000e\\u001f"),
  ),
  ok("del-and-line-separators-literal", q("\\u007f\\u2028\\u2029"), q("\u007f\u2028\u2029")),
  ok("html-characters-literal", q("</script> & <b>"), q("</script> & <b>")),
  ok("escaped-non-ascii-becomes-literal", q("\\u00e9\\u4E2D"), q("é中")),
  ok("surrogate-pair-escaped", q("\\ud83d\\ude00"), q("\u{1F600}")),
  ok("surrogate-pair-literal", q("\u{1F600}"), q("\u{1F600}")),
  parseReject("lone-high-surrogate-escaped", q("\\ud800"), "lone-surrogate"),
  parseReject("lone-low-surrogate-escaped", q("\\udc00"), "lone-surrogate"),
  parseReject("reversed-surrogate-pair", q("\\udc00\\ud800"), "lone-surrogate"),
  parseReject("high-surrogate-then-bmp", q("\\ud800\\u0041"), "lone-surrogate"),
  parseReject("raw-control-character", '"a\u0001b"', "control-character"),
  parseReject("raw-tab-in-string", '"a\tb"', "control-character"),
  parseReject("raw-newline-in-string", '"a\nb"', "control-character"),
  parseReject("invalid-escape", q("\\x41"), "syntax"),
  parseReject("short-unicode-escape", q("\\u12"), "syntax"),
  // §4.1 encoding (raw bytes)
  byteReject("utf8-overlong-slash", [0x22, 0xc0, 0xaf, 0x22], "invalid-utf8"),
  byteReject("utf8-overlong-3-byte", [0x22, 0xe0, 0x80, 0xaf, 0x22], "invalid-utf8"),
  byteReject("utf8-encoded-surrogate", [0x22, 0xed, 0xa0, 0x80, 0x22], "invalid-utf8"),
  byteReject("utf8-truncated-sequence", [0x22, 0xe2, 0x82, 0x22], "invalid-utf8"),
  byteReject("utf8-stray-continuation", [0x22, 0x80, 0x22], "invalid-utf8"),
  byteReject("utf8-above-u10ffff", [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22], "invalid-utf8"),
  byteReject("utf8-invalid-lead-f5", [0x22, 0xf5, 0x80, 0x80, 0x80, 0x22], "invalid-utf8"),
  byteReject("latin1-byte-in-string", [0x22, 0xe9, 0x22], "invalid-utf8"),
  byteReject("utf8-bom", [0xef, 0xbb, 0xbf, 0x7b, 0x7d], "bom"),
  byteReject("utf16-le-bom", [0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00], "syntax"),
  // §4.6 numbers
  ok("integral-forms", "[1.0,1e3,1E2,10e-1,-0,-0.0,0e5,100]", "[1,1000,100,1,0,0,0,100]"),
  ok(
    "non-integral-number-to-string",
    "[0.1,1e-7,0.000001,123.456,-1.5,2.5e-3,0.30000000000000004,5e-324]",
    "[0.1,1e-7,0.000001,123.456,-1.5,0.0025,0.30000000000000004,5e-324]",
  ),
  ok("shortest-round-trip", "[1.10,0.1000000000000000055511151231257827]", "[1.1,0.1]"),
  ok(
    "max-safe-integer",
    "[9007199254740991,-9007199254740991]",
    "[9007199254740991,-9007199254740991]",
  ),
  ok("large-safe-fraction", "[4503599627370495.5]", "[4503599627370495.5]"),
  rangeReject("two-pow-53", "9007199254740992"),
  rangeReject("minus-two-pow-53", "-9007199254740992"),
  rangeReject("two-pow-53-plus-one-rounds", "9007199254740993"),
  rangeReject("1e20-in-schema", '{"maximum":1e20}'),
  rangeReject("1e21", "1e21"),
  rangeReject("max-double", "1.7976931348623157e308"),
  parseReject("overflow-to-infinity", "1e400", "number-overflow"),
  parseReject("negative-overflow", "-1e400", "number-overflow"),
  parseReject("leading-zero", "01", "syntax"),
  parseReject("leading-zero-negative", "-01", "syntax"),
  parseReject("leading-plus", "+1", "syntax"),
  parseReject("bare-decimal-point", ".5", "syntax"),
  parseReject("trailing-decimal-point", "1.", "syntax"),
  parseReject("empty-exponent", "1e", "syntax"),
  parseReject("hex-number", "0x10", "syntax"),
  parseReject("nan", "NaN", "syntax"),
  parseReject("infinity", "Infinity", "syntax"),
  parseReject("negative-infinity", "-Infinity", "syntax"),
  // JSON grammar
  parseReject("trailing-garbage", '{"a":1} x', "syntax"),
  parseReject("two-values", "1 2", "syntax"),
  parseReject("trailing-comma-array", "[1,2,]", "syntax"),
  parseReject("trailing-comma-object", '{"a":1,}', "syntax"),
  parseReject("line-comment", '{"a":1 // c\n}', "syntax"),
  parseReject("block-comment", '/* c */ {"a":1}', "syntax"),
  parseReject("single-quotes", "{'a':1}", "syntax"),
  parseReject("unquoted-key", "{a:1}", "syntax"),
  parseReject("missing-colon", '{"a" 1}', "syntax"),
  parseReject("missing-comma", "[1 2]", "syntax"),
  parseReject("unterminated-string", '"abc', "syntax"),
  parseReject("unterminated-array", "[1,2", "syntax"),
  parseReject("uppercase-literal", "True", "syntax"),
  parseReject("empty-input", "", "syntax"),
  parseReject("whitespace-only", " \n ", "syntax"),
  parseReject("vertical-tab-whitespace", "[1,\u000b2]", "syntax"),
  // nesting limit (MAX_JSON_DEPTH = 1000)
  ok(
    "depth-1000-accepted",
    "[".repeat(1000) + "]".repeat(1000),
    "[".repeat(1000) + "]".repeat(1000),
  ),
  parseReject("depth-1001-rejected", "[".repeat(1001) + "]".repeat(1001), "depth"),
  parseReject(
    "depth-1001-objects-rejected",
    '{"a":'.repeat(1001) + "1" + "}".repeat(1001),
    "depth",
  ),
];

/** One contractpin-canonical-json/1 case (contractpin spec §7): `canonical` handwritten. */
export interface ContractCase {
  name: string;
  input: unknown;
  project: boolean;
  canonical: string;
}

/** contractpin cases: RFC 8785 rules and the §2 projection. */
export const CONTRACTPIN_CASES: ContractCase[] = [
  {
    name: "key-order-utf16",
    input: { "\uffff": 1, "\u{1F600}": 2, "z": 3 },
    project: false,
    canonical: '{"z":3,"\u{1F600}":2,"\uffff":1}',
  },
  {
    name: "numbers-rfc8785",
    input: [1e21, 1e20, 1e-7, 1e-6, -0, 1.0, 4.5, 9007199254740992, 1e300, 5e-324, 0.1, 123.456],
    project: false,
    canonical:
      "[1e+21,100000000000000000000,1e-7,0.000001,0,1,4.5,9007199254740992,1e+300,5e-324,0.1,123.456]",
  },
  {
    name: "numbers-rfc8785-appendix-b",
    input: [333333333.3333333, 1e-27, 295147905179352830000, 1.7976931348623157e308],
    project: false,
    canonical: "[333333333.3333333,1e-27,295147905179352830000,1.7976931348623157e+308]",
  },
  {
    name: "string-escapes",
    input: '\u0000\u001f"\\/\b\f\n\r\t\u007f\u2028é',
    project: false,
    canonical: '"\\u0000\\u001f\\"\\\\/\\b\\f\\n\\r\\t\u007f\u2028é"',
  },
  {
    name: "nested-objects-sorted-arrays-kept",
    input: { b: [3, 1, { y: 1, x: 2 }], a: null, c: true },
    project: false,
    canonical: '{"a":null,"b":[3,1,{"x":2,"y":1}],"c":true}',
  },
  {
    name: "project-minimal-tool",
    input: { name: "echo", description: "Echo back", inputSchema: { type: "object" } },
    project: true,
    canonical: '{"description":"Echo back","inputSchema":{"type":"object"},"name":"echo"}',
  },
  {
    name: "project-absent-description-is-null",
    input: { name: "echo", inputSchema: { type: "object" } },
    project: true,
    canonical: '{"description":null,"inputSchema":{"type":"object"},"name":"echo"}',
  },
  {
    name: "project-explicit-null-description",
    input: { name: "echo", description: null, inputSchema: { type: "object" } },
    project: true,
    canonical: '{"description":null,"inputSchema":{"type":"object"},"name":"echo"}',
  },
  {
    name: "project-absent-input-schema-is-null",
    input: { name: "ping" },
    project: true,
    canonical: '{"description":null,"inputSchema":null,"name":"ping"}',
  },
  {
    name: "project-ignores-title-meta-vendor",
    input: {
      name: "echo",
      title: "Echo tool",
      description: "Echo back",
      inputSchema: { type: "object" },
      _meta: { "vendor/x": 1 },
      "x-vendor": true,
      icons: [],
    },
    project: true,
    canonical: '{"description":"Echo back","inputSchema":{"type":"object"},"name":"echo"}',
  },
  {
    name: "project-null-optional-fields-dropped",
    input: {
      name: "echo",
      description: "d",
      inputSchema: {},
      outputSchema: null,
      annotations: null,
    },
    project: true,
    canonical: '{"description":"d","inputSchema":{},"name":"echo"}',
  },
  {
    name: "project-optional-fields-kept",
    input: {
      name: "search",
      description: "Search",
      inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      outputSchema: { type: "object" },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    project: true,
    canonical:
      '{"annotations":{"openWorldHint":false,"readOnlyHint":true},"description":"Search","inputSchema":{"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"},"name":"search","outputSchema":{"type":"object"}}',
  },
  {
    name: "project-contents-not-normalised",
    input: {
      name: "t",
      description: "",
      inputSchema: { type: "object", properties: {}, required: [], additionalProperties: true },
      annotations: {},
    },
    project: true,
    canonical:
      '{"annotations":{},"description":"","inputSchema":{"additionalProperties":true,"properties":{},"required":[],"type":"object"},"name":"t"}',
  },
];
