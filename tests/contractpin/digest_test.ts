/**
 * Contract projection and digests (§2–§4), the published vectors reproduced through the
 * library and through `schemapin contract digest`, and the dump shapes `digest` accepts.
 */
import assert from "node:assert/strict";
import { projectContract } from "../../lib/contractpin/contract.ts";
import {
  digestJson,
  digestToolList,
  fieldDigests,
  serverDigest,
  toolDigest,
} from "../../lib/contractpin/digest.ts";
import { canonicalizeJcs } from "../../lib/json/canonical_jcs.ts";
import type { JsonObject } from "../../lib/json/types.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { runCliProcess, runInProcess, withTempDir } from "./helpers.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";

interface Vector {
  name: string;
  input: unknown;
  project: boolean;
  canonical: string;
  digest: string;
}

const vectorsUrl = new URL("../../vectors/contractpin.json", import.meta.url);
const vectors: Vector[] = JSON.parse(await Deno.readTextFile(vectorsUrl));

Deno.test("vectors: the corpus is present and non-trivial", () => {
  assert.ok(vectors.length >= 10, `only ${vectors.length} vectors`);
  assert.ok(vectors.some((v) => v.project) && vectors.some((v) => !v.project));
});

Deno.test("vectors: library reproduces every canonical form and digest", () => {
  for (const v of vectors) {
    const subject = v.project ? projectContract(v.input as never) : v.input;
    assert.equal(canonicalizeJcs(subject), v.canonical, v.name);
    assert.equal(digestJson(subject), v.digest, v.name);
    assert.equal(v.digest.length, 71, v.name);
  }
});

Deno.test("vectors: `contract digest` reproduces every vector (--tool-definition / --raw, --canonical)", async () => {
  await withTempDir(async (dir) => {
    for (const v of vectors) {
      const file = `${dir}/${v.name}.json`;
      await Deno.writeTextFile(file, JSON.stringify(v.input));
      const mode = v.project ? "--tool-definition" : "--raw";
      const digest = await runInProcess(["contract", "digest", mode, file]);
      assert.equal(digest.code, 0, `${v.name}: ${digest.stderr}`);
      assert.equal(digest.stdout, v.digest + "\n", v.name);
      const canonical = await runInProcess(["contract", "digest", mode, "--canonical", file]);
      assert.equal(canonical.stdout, v.canonical, v.name);
      if (v.project) {
        // The same tool inside a tools/list dump gives the same tool digest.
        await Deno.writeTextFile(file, JSON.stringify({ tools: [v.input] }));
        const list = await runInProcess(["contract", "digest", file, "--json"]);
        assert.equal(list.code, 0, v.name);
        const name = (v.input as { name: string }).name;
        const listed = await assertJsonOutput(list.stdout);
        assert.equal(listed.format, "schemapin.contract.digest/1", v.name);
        assert.equal(listed.ok, true, v.name);
        assert.equal(
          (listed.tools as Record<string, { digest: string }>)[name].digest,
          v.digest,
          v.name,
        );
      }
    }
  });
});

Deno.test("vectors: the real CLI (task permissions) prints the same digests", async () => {
  await withTempDir(async (dir) => {
    const projected = vectors.filter((v) => v.project);
    await Deno.writeTextFile(
      `${dir}/tools.json`,
      JSON.stringify(projected.slice(0, 1).map((v) => ({ tools: [v.input] }))[0]),
    );
    const r = await runCliProcess(["contract", "digest", `${dir}/tools.json`]);
    assert.equal(r.code, 0, r.stderr);
    const name = (projected[0].input as { name: string }).name;
    assert.match(r.stdout, new RegExp(`^tool {4}${projected[0].digest} {2}${name}$`, "m"));
    const raw = vectors.find((v) => !v.project)!;
    await Deno.writeTextFile(`${dir}/raw.json`, JSON.stringify(raw.input));
    const rr = await runCliProcess(["contract", "digest", "--raw", `${dir}/raw.json`]);
    assert.equal(rr.stdout, raw.digest + "\n");
  });
});

Deno.test("projection: required fields always, optional only when non-null, rest ignored", () => {
  const tool = {
    name: "t",
    title: "T",
    _meta: { a: 1 },
    "x-vendor": true,
    outputSchema: null,
    annotations: { readOnlyHint: true },
  };
  assert.deepEqual(projectContract(tool), {
    name: "t",
    description: null,
    inputSchema: null,
    annotations: { readOnlyHint: true },
  });
  // Contents are never normalised: an empty object and key order survive as data.
  const schema = { type: "object", required: [], properties: {} };
  assert.equal(projectContract({ name: "t", inputSchema: schema }).inputSchema, schema);
});

Deno.test("projection: a tool that is not an object, or has no string name, is rejected", () => {
  for (const bad of [null, [], "t", 1, {}, { name: 1 }, { name: null }, { description: "x" }]) {
    assert.throws(
      () => projectContract(bad as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
      JSON.stringify(bad),
    );
  }
});

Deno.test("digests: tool digest is 71 chars and independent of member order and title", () => {
  const a = toolDigest(
    projectContract({ name: "x", description: "d", inputSchema: { b: 1, a: 2 } }),
  );
  const b = toolDigest(
    projectContract({ inputSchema: { a: 2, b: 1 }, title: "X", description: "d", name: "x" }),
  );
  assert.equal(a, b);
  assert.match(a, /^sha256:[0-9a-f]{64}$/);
  assert.notEqual(
    a,
    toolDigest(projectContract({ name: "x", description: "d ", inputSchema: { b: 1, a: 2 } })),
  );
});

Deno.test("digests: field digests cover exactly the contract members and never the tool digest", () => {
  const contract = projectContract({ name: "x", annotations: { readOnlyHint: false } });
  const fields = fieldDigests(contract);
  assert.deepEqual(Object.keys(fields), ["annotations", "description", "inputSchema", "name"]);
  assert.equal(fields.description, digestJson(null));
  assert.ok(!Object.values(fields).includes(toolDigest(contract)));
});

Deno.test("digests: server digest is over {name: digest}; order of tools does not matter", () => {
  const one = digestToolList([{ name: "a" }, { name: "b", description: "B" }]);
  const two = digestToolList([{ name: "b", description: "B" }, { name: "a" }]);
  assert.equal(one.digest, two.digest);
  const map = new Map([...one.tools.values()].map((t) => [t.name, t.digest]));
  assert.equal(one.digest, serverDigest(map));
  assert.equal(one.digest, digestJson(Object.fromEntries(map)));
  assert.notEqual(one.digest, digestToolList([{ name: "a" }]).digest);
});

Deno.test("digests: a tool named __proto__ is an ordinary member of the server digest", () => {
  const list = digestToolList(JSON.parse('[{"name":"__proto__"},{"name":"a"}]'));
  assert.equal(list.tools.size, 2);
  const expected = digestJson(
    JSON.parse(
      `{"__proto__":"${list.tools.get("__proto__")!.digest}","a":"${list.tools.get("a")!.digest}"}`,
    ),
  );
  assert.equal(list.digest, expected);
});

Deno.test("digests: duplicate tool names fail (§4.4)", () => {
  assert.throws(
    () => digestToolList([{ name: "a" }, { name: "b" }, { name: "a", description: "other" }]),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      /duplicate tool name "a" \(tools\[2\]\)/.test(e.message),
  );
});

Deno.test("digest CLI: pages of a dump give the same digests as one page", async () => {
  await withTempDir(async (dir) => {
    const tools = [{ name: "a" }, { name: "b", inputSchema: { type: "object" } }, { name: "c" }];
    await Deno.writeTextFile(`${dir}/one.json`, JSON.stringify({ tools }));
    await Deno.writeTextFile(
      `${dir}/pages.json`,
      JSON.stringify([
        { tools: tools.slice(0, 1), nextCursor: "p2" },
        { jsonrpc: "2.0", id: 3, result: { tools: tools.slice(1, 2), nextCursor: "p3" } },
        { tools: tools.slice(2) },
      ]),
    );
    const one = await runInProcess(["contract", "digest", `${dir}/one.json`]);
    const pages = await runInProcess(["contract", "digest", `${dir}/pages.json`]);
    assert.equal(one.code, 0);
    assert.equal(pages.code, 0, pages.stderr);
    assert.equal(one.stdout, pages.stdout);
    assert.match(one.stdout, /^server {2}sha256:[0-9a-f]{64} {2}3 tools$/m);
  });
});

const badDumps: [string, string, RegExp][] = [
  ["not JSON", "{tools: []}", /JSON_INVALID/],
  ["duplicate keys", '{"tools":[{"name":"a","name":"b"}]}', /JSON_INVALID.*[Dd]uplicate/],
  ["duplicate tool names", '{"tools":[{"name":"a"},{"name":"a"}]}', /duplicate tool name/],
  ["no tools array", '{"result":[]}', /no "tools" array/],
  ["tool without name", '{"tools":[{"description":"x"}]}', /no string "name"/],
  ["empty page array", "[]", /empty array/],
  ["page chain broken", '[{"tools":[]},{"tools":[]}]', /no nextCursor but 2 pages/],
  [
    "cursor loop",
    '[{"tools":[],"nextCursor":"x"},{"tools":[],"nextCursor":"x"},{"tools":[]}]',
    /cursor loop/,
  ],
  ["empty cursor", '[{"tools":[],"nextCursor":""},{"tools":[]}]', /empty nextCursor/],
  [
    "JSON-RPC error",
    '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}',
    /JSON-RPC error response/,
  ],
  ["BOM", '\ufeff{"tools":[]}', /JSON_INVALID/],
  ["lone surrogate", '{"tools":[{"name":"\\ud800"}]}', /JSON_INVALID/],
];

for (const [label, text, message] of badDumps) {
  Deno.test(`digest CLI: ${label} → exit 2`, async () => {
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/bad.json`, text);
      const r = await runInProcess(["contract", "digest", `${dir}/bad.json`]);
      assert.equal(r.code, 2, r.stdout + r.stderr);
      assert.equal(r.stdout, "");
      assert.match(r.stderr, message);
    });
  });
}

Deno.test("digest CLI: a dump whose last page names nextCursor is digested with a warning", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/d.json`, '{"tools":[{"name":"a"}],"nextCursor":"more"}');
    const r = await runInProcess(["contract", "digest", `${dir}/d.json`]);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /may be incomplete/);
  });
});

Deno.test("digest CLI: usage errors are exit 2", async () => {
  for (
    const args of [
      [],
      ["a.json", "b.json"],
      ["--tool-definition", "--raw", "x.json"],
      ["--canonical", "x.json"],
      ["--tool-definition", "--canonical", "--json", "x.json"],
      ["--bogus", "x.json"],
      ["/nonexistent/file.json"],
    ]
  ) {
    const r = await runInProcess(["contract", "digest", ...args]);
    assert.equal(r.code, 2, args.join(" "));
  }
});

Deno.test("digest CLI: stdin with -", async () => {
  // (with the old spelling --tool: kept for one release, with a note)
  const r = await runInProcess(["contract", "digest", "--tool", "-"], '{"name":"ping"}');
  assert.equal(r.code, 0);
  assert.match(r.stderr, /contract digest: --tool is deprecated; use --tool-definition/);
  assert.equal(r.stdout, digestJson({ name: "ping", description: null, inputSchema: null }) + "\n");
});

// digestToolList canonicalizes each contract once (member texts joined, RFC 8785 order) and
// computes field digests when first read: both must equal the one-step constructions.
Deno.test("digestToolList: tool and field digests equal toolDigest/fieldDigests (issue 14)", () => {
  const tools: JsonObject[] = [
    { name: "a" },
    { name: "é-ü", description: "naïve \u2028 \ud83d\ude00", inputSchema: { z: 1, a: [1, "x"] } },
    {
      name: "full",
      title: "ignored",
      description: null,
      inputSchema: { type: "object", properties: { "\ud83d\ude00": {}, "\uff61": {} } },
      outputSchema: { type: "string" },
      annotations: { readOnlyHint: true, title: "T" },
    },
  ];
  const list = digestToolList(tools);
  for (const t of tools) {
    const contract = projectContract(t);
    const got = list.tools.get(t.name as string)!;
    assert.equal(got.digest, toolDigest(contract), String(t.name));
    assert.deepEqual(got.fields, fieldDigests(contract), String(t.name));
    assert.equal(got.fields, got.fields, "computed once, then kept");
    assert.deepEqual(Object.keys(JSON.parse(JSON.stringify(got))).sort(), [
      "contract",
      "digest",
      "fields",
      "name",
      "raw",
    ]);
  }
  assert.notEqual(list.tools.get("a")!.digest, list.tools.get("full")!.digest);
});

Deno.test("digestToolList: a contract without a canonical form names the member", () => {
  const bads: JsonObject[] = [{ name: "n", inputSchema: { x: NaN } }, {
    name: "s",
    description: "\ud800",
  }];
  for (const bad of bads) {
    assert.throws(
      () => digestToolList([bad]),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "SCHEMA_CANONICALIZATION_FAILED" &&
        /at \/(inputSchema\/x|description)\)/.test(e.message),
    );
  }
});
