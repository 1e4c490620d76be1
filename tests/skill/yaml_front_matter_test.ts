// The strict YAML front matter reader of SKILL.md (lib/skill/yaml_front_matter.ts) and the
// SEP-2640 field-by-field comparison with a listing's `frontmatter`. Expected values are written
// by hand from the YAML 1.2 spec (and agree with PyYAML's BaseLoader, which FastMCP uses).
import assert from "node:assert/strict";
import {
  compareFrontMatter,
  frontMatterJson,
  type FrontMatterNode,
  parseSkillFrontMatter,
  type SkillFrontMatter,
} from "../../lib/skill/yaml_front_matter.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { throwsWith } from "../schema_pin_error.ts";

/** The front matter of `---\n<yaml>---\n# Body\n`. */
function fm(yaml: string): SkillFrontMatter {
  const parsed = parseSkillFrontMatter(`---\n${yaml}---\n# Body\n`, "skills/pdf/SKILL.md");
  assert.ok(parsed);
  return parsed;
}

/** The front matter of `yaml` as JSON. */
function json(yaml: string): JsonObject {
  return frontMatterJson(fm(yaml));
}

/** `yaml` is refused, naming the source and line `line` of the file (the `---` is line 1). */
function refused(yaml: string, line: number, why: RegExp): void {
  const e = throwsWith(() => fm(yaml), "INPUT_INVALID", why);
  assert.match(e.message, new RegExp(`^skills/pdf/SKILL\\.md, line ${line}: `), e.message);
  assert.match(e.message, /uses YAML this reader does not accept/);
  assert.deepEqual(e.details, { source: "skills/pdf/SKILL.md", line });
}

const plain = (text: string): FrontMatterNode => ({ kind: "plain", text });
const quoted = (text: string): FrontMatterNode => ({ kind: "quoted", text });

// --- parsing: what is accepted ---

Deno.test("parseSkillFrontMatter: scalars keep how they were written; the body follows", () => {
  const parsed = fm("name: pdf-tools\ndescription: 'Reads PDFs'\nversion: \"1.0\"\n");
  assert.deepEqual([...parsed.fields], [
    ["name", plain("pdf-tools")],
    ["description", quoted("Reads PDFs")],
    ["version", quoted("1.0")],
  ]);
  assert.equal(parsed.body, "# Body\n");
});

Deno.test("parseSkillFrontMatter: no front matter is undefined; BOM and CRLF are fine", () => {
  assert.equal(parseSkillFrontMatter("# PDF\n---\nname: x\n---\n", "S"), undefined);
  assert.equal(parseSkillFrontMatter("", "S"), undefined);
  assert.equal(parseSkillFrontMatter("--- # c\nname: x\n---\n", "S"), undefined);
  const crlf = parseSkillFrontMatter("\ufeff---\r\nname: x\r\n---\r\nbody\r\n", "S")!;
  assert.deepEqual([...crlf.fields], [["name", plain("x")]]);
  assert.equal(crlf.body, "body\r\n");
  assert.equal(parseSkillFrontMatter("---\nname: x\n---", "S")!.body, "");
  assert.equal(parseSkillFrontMatter("---\n---\n", "S")!.fields.size, 0);
});

Deno.test("parseSkillFrontMatter: comments, blank lines and `#` inside plain text", () => {
  assert.deepEqual(
    json("# a comment\n\nname: pdf # trailing\nurl: http://x.test/a#frag\n  # indented\nk: a#b\n"),
    { name: "pdf", url: "http://x.test/a#frag", k: "a#b" },
  );
  assert.deepEqual(json("a: 'x' # c\nb: [y] # c\nc: {} # c\nd: # c\n"), {
    a: "x",
    b: ["y"],
    c: {},
    d: "",
  });
});

Deno.test("parseSkillFrontMatter: nested mappings and the forms of block sequences", () => {
  const yaml = 'metadata:\n  version: "2.1"\n  owner:\n    team: docs\n' +
    "allowed-tools:\n- Read\n- 'Bash(git:*)'\ntags:\n  - a\n  -\n    deep: 1\n" +
    "servers:\n  - name: one\n    url: u1\n  - name: two\n  - - x\n    - y\n";
  assert.deepEqual(json(yaml), {
    metadata: { version: "2.1", owner: { team: "docs" } },
    "allowed-tools": ["Read", "Bash(git:*)"],
    tags: ["a", { deep: "1" }],
    servers: [{ name: "one", url: "u1" }, { name: "two" }, ["x", "y"]],
  });
  const meta = fm(yaml).fields.get("metadata")!;
  assert.deepEqual(meta, {
    kind: "map",
    entries: [["version", quoted("2.1")], ["owner", {
      kind: "map",
      entries: [["team", plain("docs")]],
    }]],
  });
});

Deno.test("parseSkillFrontMatter: flow sequences on one line, empty flows, empty values", () => {
  assert.deepEqual(fm("t: [a, \"b c\", 'd', ]\n").fields.get("t"), {
    kind: "seq",
    items: [plain("a"), quoted("b c"), quoted("d")],
  });
  assert.deepEqual(json("e: []\nf: { }\ng:\nh: ~\n"), { e: [], f: {}, g: "", h: "~" });
  assert.deepEqual(fm("g:\nh: 1\n").fields.get("g"), plain(""));
});

Deno.test("parseSkillFrontMatter: quoted scalars and their escapes", () => {
  assert.deepEqual(
    json(`a: 'it''s'\nb: "q\\" b\\\\ s\\/ n\\n t\\t \\u00e9"\n"quoted key": v\n'k2' : w\n`),
    { a: "it's", b: 'q" b\\ s/ n\n t\t é', "quoted key": "v", k2: "w" },
  );
  assert.deepEqual(json('a: "# not a comment"\nb: \'x: y\'\nc: ""\n'), {
    a: "# not a comment",
    b: "x: y",
    c: "",
  });
  assert.deepEqual(fm("c: ''\n").fields.get("c"), quoted(""));
});

Deno.test("parseSkillFrontMatter: literal and folded block scalars, chomping, indentation", () => {
  const cases: [string, string][] = [
    ["d: |\n  line1\n  line2\n\n  line4\n\n\nnext: x\n", "line1\nline2\n\nline4\n"],
    ["d: >\n  a\n  b\n\n  c\n    more\n  d\n\nnext: x\n", "a b\nc\n  more\nd\n"],
    ["d: |-\n  a\n  b\n\n", "a\nb"],
    ["d: |+\n  a\n  b\n\n\nnext: x\n", "a\nb\n\n\n"],
    ["d: >-\n  folded\n  text\n", "folded text"],
    ["d: |2\n    indented\n  base\n", "  indented\nbase\n"],
    ["d: >\n\n  a\n  b\n", "\na b\n"],
    ["d: |  # a comment\n  a\n   # kept\n", "a\n # kept\n"],
    ["d: |\nnext: x\n", ""],
  ];
  for (const [yaml, text] of cases) assert.deepEqual(fm(yaml).fields.get("d"), quoted(text), yaml);
  assert.deepEqual(json("m:\n  d: |\n    x\n     y\n  e: 1\n"), { m: { d: "x\n y\n", e: "1" } });
  assert.deepEqual(json("l:\n  - |\n    a\n  - b\n"), { l: ["a\n", "b"] });
});

Deno.test("frontMatterJson: every scalar is a string; __proto__ is an own key", () => {
  const out = json("a: 1.10\nb: 0x1F\nc: .inf\nd: True\ne: null\n__proto__: p\n");
  assert.deepEqual(Object.keys(out), ["a", "b", "c", "d", "e", "__proto__"]);
  assert.equal(out.d, "True");
  assert.ok(Object.hasOwn(out, "__proto__"));
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(JSON.stringify(out.__proto__), '"p"');
});

// --- parsing: what is refused ---

Deno.test("parseSkillFrontMatter refuses anchors, aliases, tags, directives, complex keys", () => {
  refused("name: &a pdf\n", 2, /anchor or alias/);
  refused("name: x\nother: *a\n", 3, /anchor or alias/);
  refused("&a name: x\n", 2, /anchor or alias/);
  refused("name: !!str 1\n", 2, /a tag/);
  refused("tools: [!x a]\n", 2, /a tag/);
  refused("%YAML 1.2\nname: x\n", 2, /a directive/);
  refused("? name\n: x\n", 2, /complex key/);
  refused("<<: x\n", 2, /merge key/);
  refused("name: @x\n", 2, /reserved indicator/);
});

Deno.test("parseSkillFrontMatter refuses duplicate keys at the same level", () => {
  refused("name: a\ndescription: d\nname: b\n", 4, /duplicate key "name" \(line 2\)/);
  refused("name: a\n'name': b\n", 3, /duplicate key "name"/);
  refused("m:\n  v: 1\n  v: 2\n", 4, /duplicate key "v"/);
  refused("l:\n  - k: 1\n    k: 2\n", 4, /duplicate key "k"/);
  // the same key at different levels is fine
  assert.deepEqual(json("v: 1\nm:\n  v: 2\n"), { v: "1", m: { v: "2" } });
});

Deno.test("parseSkillFrontMatter refuses tabs outside quoted and block scalars", () => {
  refused("m:\n\tv: 1\n", 3, /a tab in indentation/);
  refused("name: a\n\t\nnext: b\n", 3, /a tab in indentation/);
  refused("name:\tpdf\n", 2, /a tab after `:`/);
  refused("name: a\tb\n", 2, /a tab outside/);
  refused("name: a\t# c\n", 2, /a tab outside/);
  refused("l:\n  -\tx\n", 3, /a tab after `-`/);
  refused("d: |\n  a\n\tb\n", 4, /a tab in a block scalar's indentation/);
  assert.deepEqual(json("q: 'a\tb'\nd: |\n  x\ty\n"), { q: "a\tb", d: "x\ty\n" });
});

Deno.test("parseSkillFrontMatter refuses unterminated and multi-line scalars", () => {
  refused('name: "pdf\n', 2, /unterminated or multi-line quoted scalar/);
  refused("name: 'pdf\n  tools'\n", 2, /unterminated or multi-line quoted scalar/);
  refused('name: "pdf\\"\n', 2, /unterminated/);
  refused("name: 'it''\n", 2, /after a quoted value/);
  refused("description: a long\n  text on two lines\n", 3, /indented deeper than its block/);
  refused("tools: [a, b\n", 2, /flow sequence not closed on its line/);
  refused('tools: [a, "b\n', 2, /unterminated/);
  refused('name: "a" b\n', 2, /text after a quoted value/);
  refused("tools: [a] b\n", 2, /text after a quoted value or `]`/);
});

Deno.test("parseSkillFrontMatter refuses escapes outside the subset", () => {
  refused('a: "\\x41"\n', 2, /the escape \\x/);
  refused('a: "\\U0001F600"\n', 2, /the escape \\U/);
  refused('a: "\\u12"\n', 2, /the escape \\u12/);
  refused('a: "\\ud83d\\ude00"\n', 2, /the escape \\ud83d/);
  refused('a: "\\a"\n', 2, /the escape \\a/);
});

Deno.test("parseSkillFrontMatter refuses flow mappings, nested flows and odd flow entries", () => {
  refused("meta: {a: 1}\n", 2, /a flow mapping/);
  refused("tools: [a, [b]]\n", 2, /starting with `\[`/);
  refused("tools: [a, {b: 1}]\n", 2, /starting with `\{`/);
  refused("tools: [a, , b]\n", 2, /empty flow sequence entry/);
  refused("tools: [a: b]\n", 2, /`: ` inside a plain scalar/);
  refused("tools: [a #c]\n", 2, /comment in a flow sequence/);
});

Deno.test("parseSkillFrontMatter refuses malformed structure", () => {
  refused("name pdf\n", 2, /a line with no `key:`/);
  refused("name: x\njust text\n", 3, /a line with no `key:`/);
  refused("key:\n  value on its own line\n", 3, /a line with no `key:`/);
  refused("a: b: c\n", 2, /`: ` inside a plain scalar/);
  refused(": x\n", 2, /an empty key/);
  refused("- a\n- b\n", 2, /a sequence instead of a mapping/);
  refused("  a: 1\nb: 2\n", 3, /indented less than the first key/);
  refused("m:\n    a: 1\n  b: 2\n", 4, /indented deeper than its block/);
  refused("name: x\n- y\n", 3, /a sequence item where a key was expected/);
  refused("l:\n  - a\n  b: 1\n", 4, /indented deeper than its block/);
  refused("name: - x\n", 2, /`-` where a scalar was expected/);
  refused("name: |x\n  a\n", 2, /block scalar header/);
  refused("name: |0\n  a\n", 2, /block scalar header/);
  refused("d: |\n\n    \n  a\n", 5, /leading blank line/);
  refused("name: ]\n", 2, /starting with `\]`/);
});

Deno.test("parseSkillFrontMatter refuses nesting deeper than 32 levels", () => {
  refused("a:\n" + "- ".repeat(40) + "x\n", 3, /nesting deeper than 32 levels/);
  let v = json("a:\n" + "- ".repeat(20) + "x\n").a;
  for (let depth = 0; depth < 20; depth++) v = (v as JsonValue[])[0];
  assert.equal(v, "x");
});

Deno.test("parseSkillFrontMatter refuses a second document and an unclosed block", () => {
  refused("name: x\n...\n", 3, /a document marker/);
  refused("name: x\n--- more\n", 3, /a document marker/);
  refused("d: |\n  a\n...\n", 4, /a document marker/);
  const e = throwsWith(
    () => parseSkillFrontMatter("---\nname: x\n# Body\n", "SKILL.md"),
    "INPUT_INVALID",
    /^SKILL\.md, line 1: .*no closing `---` line/,
  );
  assert.equal(e.details.line, 1);
});

Deno.test("parseSkillFrontMatter refuses characters YAML does not allow or reads as breaks", () => {
  refused("name: a\u2028b\n", 2, /U\+2028/);
  refused("name: x\ndesc: a\u0085b\n", 3, /U\+0085/);
  refused("name: a\rb\n", 2, /U\+000D/);
  refused("name: a\u0007\n", 2, /U\+0007/);
  refused("name: a\ufeff\n", 2, /U\+FEFF/);
  refused("name: '\ud800'\n", 2, /U\+D800/);
});

Deno.test("parseSkillFrontMatter, frontMatterJson and compareFrontMatter check their arguments", () => {
  throwsWith(() => parseSkillFrontMatter(42 as never, "S"), "INPUT_INVALID", /text must be/);
  throwsWith(() => parseSkillFrontMatter("---\n---\n", undefined as never), "INPUT_INVALID");
  throwsWith(() => frontMatterJson({} as never), "INPUT_INVALID", /fm must be a SkillFrontMatter/);
  throwsWith(() => compareFrontMatter([] as never, fm("a: 1\n")), "INPUT_INVALID", /listed/);
  throwsWith(() => compareFrontMatter({}, undefined as never), "INPUT_INVALID", /fm must be/);
});

// --- compareFrontMatter ---

Deno.test("compareFrontMatter: identical content, in any key order, is []", () => {
  const file = fm(
    'name: pdf\ndescription: "Reads PDFs"\nmetadata:\n  version: "2.1"\n  tags: [a, b]\n',
  );
  assert.deepEqual(
    compareFrontMatter({
      metadata: { tags: ["a", "b"], version: "2.1" },
      description: "Reads PDFs",
      name: "pdf",
    }, file),
    [],
  );
  assert.deepEqual(compareFrontMatter(frontMatterJson(file), file), []);
  assert.deepEqual(compareFrontMatter({}, fm("")), []);
});

Deno.test("compareFrontMatter: plain scalars match their YAML 1.2 core-schema values", () => {
  const file = fm(
    "i: 1\nn: -3\nh: 0x1F\no: 0o17\nf: 1.5\ne: 1e3\np: +.5\n" +
      "t: true\nT: True\nF: FALSE\nz: null\nz2: ~\nz3:\nz4: Null\n",
  );
  const listed = {
    i: 1,
    n: -3,
    h: 31,
    o: 15,
    f: 1.5,
    e: 1000,
    p: 0.5,
    t: true,
    T: true,
    F: false,
    z: null,
    z2: null,
    z3: null,
    z4: null,
  };
  assert.deepEqual(compareFrontMatter(listed, file), []);
  // each also matches its own text as a string (FastMCP's BaseLoader gives strings)
  assert.deepEqual(compareFrontMatter(frontMatterJson(file), file), []);
});

Deno.test('compareFrontMatter: plain 1.10 is the float 1.1 and the string "1.10", not "1.1"', () => {
  const file = fm("version: 1.10\n");
  assert.deepEqual(compareFrontMatter({ version: 1.1 }, file), []);
  assert.deepEqual(compareFrontMatter({ version: "1.10" }, file), []);
  assert.deepEqual(compareFrontMatter({ version: "1.1" }, file), [
    { field: "version", listed: '"1.1"', file: '"1.10"' },
  ]);
  // quoted, it is only the string
  assert.deepEqual(compareFrontMatter({ version: 1.1 }, fm("version: '1.10'\n")), [
    { field: "version", listed: "1.1", file: '"1.10"' },
  ]);
});

Deno.test("compareFrontMatter: type mismatches are differences", () => {
  const file = fm(
    "q: \"true\"\nn: '1'\nz: ''\ninf: .inf\ny: yes\no: 010\nbig: 9007199254740993\nm: x\n",
  );
  const diffs = compareFrontMatter({
    q: true,
    n: 1,
    z: null,
    inf: 1e308,
    y: true,
    o: 8,
    big: 9007199254740992,
    m: { x: "" },
  }, file);
  assert.deepEqual(diffs.map((d) => d.field), ["q", "n", "z", "inf", "y", "o", "big", "m"]);
  assert.deepEqual(diffs[0], { field: "q", listed: "true", file: '"true"' });
  assert.deepEqual(diffs[7], { field: "m", listed: '{"x":""}', file: '"x"' });
  // `.inf` matches only its own text as a string; 010 is decimal 10 in YAML 1.2
  assert.deepEqual(compareFrontMatter({ inf: ".inf", o: 10 }, fm("inf: .inf\no: 010\n")), []);
});

Deno.test("compareFrontMatter: a key on one side only is a difference", () => {
  const file = fm('name: pdf\nlicense: MIT\nmetadata:\n  version: "2"\n');
  assert.deepEqual(
    compareFrontMatter({ name: "pdf", metadata: { version: "2", author: "me" }, extra: [1] }, file),
    [
      { field: "license", listed: "(absent)", file: '"MIT"' },
      { field: "metadata.author", listed: '"me"', file: "(absent)" },
      { field: "extra", listed: "[1]", file: "(absent)" },
    ],
  );
});

Deno.test("compareFrontMatter: differences name the dotted path and the index", () => {
  const file = fm(
    'metadata:\n  version: "2.1"\n  owner:\n    team: docs\nallowed-tools: [Read, Write]\n' +
      'servers:\n  - name: one\n  - name: two\n"odd.key":\n  a b: c\n',
  );
  const listed = {
    metadata: { version: "2.2", owner: { team: "ops" } },
    "allowed-tools": ["Read", "Bash"],
    servers: [{ name: "one" }, { name: "2" }],
    "odd.key": { "a b": "c!" },
  };
  assert.deepEqual(compareFrontMatter(listed, file), [
    { field: "metadata.version", listed: '"2.2"', file: '"2.1"' },
    { field: "metadata.owner.team", listed: '"ops"', file: '"docs"' },
    { field: "allowed-tools[1]", listed: '"Bash"', file: '"Write"' },
    { field: "servers[1].name", listed: '"2"', file: '"two"' },
    { field: '"odd.key"."a b"', listed: '"c!"', file: '"c"' },
  ]);
});

Deno.test("compareFrontMatter: sequences of another length or kind differ as a whole", () => {
  const file = fm("tools: [a, b]\nm:\n  k: v\nempty: []\n");
  assert.deepEqual(compareFrontMatter({ tools: ["a"], m: ["k"], empty: {} }, file), [
    { field: "tools", listed: '["a"]', file: '["a","b"]' },
    { field: "m", listed: '["k"]', file: '{"k":"v"}' },
    { field: "empty", listed: "{}", file: "[]" },
  ]);
  assert.deepEqual(compareFrontMatter({ tools: "a, b", m: { k: "v" }, empty: [] }, file), [
    { field: "tools", listed: '"a, b"', file: '["a","b"]' },
  ]);
});

Deno.test("compareFrontMatter: block scalars are strings, compared exactly", () => {
  const file = fm("d: |\n  line one\n  line two\n");
  assert.deepEqual(compareFrontMatter({ d: "line one\nline two\n" }, file), []);
  assert.deepEqual(compareFrontMatter({ d: "line one\nline two" }, file), [
    { field: "d", listed: '"line one\\nline two"', file: '"line one\\nline two\\n"' },
  ]);
});
