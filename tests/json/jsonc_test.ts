/**
 * JSONC for MCP client configs: comments and trailing commas are blanked in place and the
 * rest goes through the strict parser; offsets in errors are those of the original file. And
 * JSONC stays confined to the client-config readers: locks, signatures and every other input
 * are strict JSON.
 */
import assert from "node:assert/strict";
import { blankJsoncText, parseJsonc } from "../../cli/json/jsonc.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { arrayElements, objectMembers, valueAt } from "../../cli/json/spans.ts";
import { parseLock } from "../../lib/contractpin/lock.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { ENTRY_POINTS } from "../entry_points.ts";

const enc = new TextEncoder();
const jsonc = (text: string) => parseJsonc(enc.encode(text), "mcp.json");

Deno.test("jsonc: comments and trailing commas outside strings", () => {
  const cases: [string, unknown][] = [
    ['{"a": 1, // one\n}', { a: 1 }],
    ['{"a": [1, 2,],}', { a: [1, 2] }],
    ['{"a": [1, 2, /* more */ ] /* end */ }', { a: [1, 2] }],
    ['// header\n{"a":\r\n1 // x\r\n}', { a: 1 }],
    ['{"a": 1,\n  // last member was removed\n}', { a: 1 }],
    ['{"a": /* ** / */ 1}', { a: 1 }],
    // Inside strings nothing is a comment, and an escaped quote does not end the string.
    ['{"url": "https://x//y", "c": "/* not */", "q": "a\\"//b"}', {
      url: "https://x//y",
      c: "/* not */",
      q: 'a"//b',
    }],
    ['{"a": ",]"}', { a: ",]" }],
    ['{"a": "\\\\", "b": 2,}', { a: "\\", b: 2 }],
    ['["é", /* é */ "ü",]', ["é", "ü"]],
  ];
  for (const [text, value] of cases) assert.deepEqual(jsonc(text), value, text);
});

Deno.test("jsonc: blanking keeps every position (line breaks included)", () => {
  const text = '{\n  // c1\n  "a": 1, /* c2\n c3 */\n}';
  const blank = blankJsoncText(text);
  assert.equal(blank.length, text.length);
  // ", /* c2" (7 units) and " c3 */" (6) become spaces; the line break stays.
  assert.equal(blank, '{\n       \n  "a": 1' + " ".repeat(7) + "\n" + " ".repeat(6) + "\n}");
  assert.equal(blank.split("\n").length, text.split("\n").length);
});

Deno.test("jsonc: errors name the file and the byte offset in the original file", () => {
  const cases: [string, RegExp][] = [
    // After a comment holding multi-byte characters, the offset is still the file's.
    [
      '{"a": /* ééé */ 1 1}',
      /^mcp\.json: unexpected '1' in object: expected ',' or '}' at byte 21 /,
    ],
    ['{\n// x\n"a": 1,\n"a": 2}', /^mcp\.json: duplicate name "a" in object at byte 15 \(line 4/],
    ["{'a': 1}", /single-quoted names are not JSON at byte 1/],
    ['{"a": 1 /* open', /^mcp\.json: a \/\* comment is never closed \(opened at byte 8\)$/],
    // Only a comma after a value is trailing: these stay errors.
    ['{"a": [1,,]}', /expected a value at byte 9/],
    ["{,}", /expected a quoted name at byte 1/],
    ["[,]", /expected a value at byte 1/],
    ['{"a":,}', /expected a value at byte 5/],
    ['\ufeff{"a": 1}', /byte order mark/],
    ['{"a": 1} # hash', /after the JSON value at byte 9/],
    ['{"a": "x\n// y"}', /control character|line break|U\+000A|byte 0x0a/i],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => jsonc(text),
      (e) => e instanceof SchemaPinError && e.code === "JSON_INVALID" && message.test(e.message),
      text,
    );
  }
});

Deno.test("jsonc: the strict parser and the lock reader still refuse comments", () => {
  assert.throws(() => parseJson(enc.encode('{"a": 1 // c\n}')), /comments are not JSON/);
  const lock = '{"contractpin": "1", // c\n "servers": {}}';
  assert.throws(() => parseLock(enc.encode(lock), "contractpin.lock"), /comments are not JSON/);
});

const IMPORTS_JSONC = /^(import|export)[^;]*from "[^"]*jsonc\.ts";/m;

Deno.test("jsonc: only the client-config readers import it", async () => {
  const root = new URL("../../", import.meta.url);
  const importers: string[] = [];
  const walk = async (dir: URL) => {
    for await (const e of Deno.readDir(dir)) {
      const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
      if (e.isDirectory) await walk(url);
      else if (e.name.endsWith(".ts") && IMPORTS_JSONC.test(await Deno.readTextFile(url))) {
        importers.push(url.pathname.slice(root.pathname.length));
      }
    }
  };
  await walk(new URL("lib/", root));
  await walk(new URL("cli/", root));
  for (const f of [...ENTRY_POINTS, "cli.ts"]) {
    if (IMPORTS_JSONC.test(await Deno.readTextFile(new URL(f, root)))) importers.push(f);
  }
  assert.deepEqual(importers.sort(), ["cli/mcp_config/read.ts", "cli/mcp_config/wrap_text.ts"]);
});

Deno.test("spans: members, elements and paths of a (blanked) document", () => {
  const text =
    '{ "mcpServers": {\n  "fs": {"command": "npx", "args": ["-y", "x"]},\n  "a\\u0062": {}\n} }';
  const fs = valueAt(text, ["mcpServers", "fs"])!;
  assert.equal(text.slice(fs.start, fs.end), '{"command": "npx", "args": ["-y", "x"]}');
  const members = objectMembers(text, fs.start);
  assert.deepEqual(members.map((m) => [m.name, text.slice(m.value.start, m.value.end)]), [
    ["command", '"npx"'],
    ["args", '["-y", "x"]'],
  ]);
  const args = members[1].value;
  assert.deepEqual(
    arrayElements(text, args.start).map((s) => text.slice(s.start, s.end)),
    ['"-y"', '"x"'],
  );
  // Escaped names are decoded; a missing member or a non-object on the way is undefined.
  assert.deepEqual(valueAt(text, ["mcpServers", "ab"]) !== undefined, true);
  assert.equal(valueAt(text, ["mcpServers", "nope"]), undefined);
  assert.equal(valueAt(text, ["mcpServers", "fs", "command", "x"]), undefined);
  assert.deepEqual(objectMembers("{}", 0), []);
  assert.deepEqual(arrayElements("[ ]", 0), []);
  assert.deepEqual(
    objectMembers('{"n": -1.5e3, "t": true, "z": null, "o": {"k": [{}]}}', 0).map((m) => m.name),
    ["n", "t", "z", "o"],
  );
});
