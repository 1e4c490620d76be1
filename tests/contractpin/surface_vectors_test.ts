/**
 * vectors/contractpin-surface.json (docs/contractpin-surface.md): every vector reproduced by
 * lib/contractpin/surface.ts AND by the independent oracle (tests/oracle: its own strict parser
 * and RFC 8785 canonicalizer, no code shared with lib/), with the projection rules written
 * again here from the document and SHA-256 from node:crypto. The file must also be what
 * scripts/vectors_surface.ts writes (not stale).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type OObject, oracleParse, type OValue } from "../oracle/json.ts";
import { oracleJcs } from "../oracle/canonical.ts";
import {
  digestSurfaceList,
  instructionsDigest,
  projectSurfaceItem,
  type SurfaceKind,
} from "../../lib/contractpin/surface.ts";
import { canonicalizeJcs } from "../../lib/json/canonical_jcs.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { buildSurfaceVectors } from "../../scripts/vectors_surface.ts";

const FILE = new URL("../../vectors/contractpin-surface.json", import.meta.url);
const bytes = Deno.readFileSync(FILE);
const lib = JSON.parse(new TextDecoder().decode(bytes));
const oracle = oracleParse(bytes) as OObject;

const sha = (text: string) =>
  "sha256:" + createHash("sha256").update(new TextEncoder().encode(text)).digest("hex");

// docs/contractpin-surface.md §2, written again for the oracle.
const RULES: Record<string, { key: string; required: string[]; optional: string[] }> = {
  prompts: { key: "name", required: ["name", "description", "arguments"], optional: [] },
  resources: { key: "uri", required: ["uri", "name", "description"], optional: ["mimeType"] },
  resource_templates: {
    key: "uriTemplate",
    required: ["uriTemplate", "name", "description"],
    optional: ["mimeType"],
  },
};

function oracleProject(kind: string, item: OValue): OObject {
  if (!(item instanceof Map)) throw new Error("not-object");
  const rule = RULES[kind];
  const key = item.get(rule.key);
  if (typeof key !== "string" || key.length === 0) throw new Error("key");
  const out: OObject = new Map();
  for (const f of rule.required) out.set(f, item.has(f) ? item.get(f)! : null);
  for (const f of rule.optional) {
    const v = item.get(f);
    if (v !== undefined && v !== null) out.set(f, v);
  }
  return out;
}

function oracleKindDigest(kind: string, items: OValue[]): string {
  const map: OObject = new Map();
  for (const item of items) {
    const contract = oracleProject(kind, item);
    const key = contract.get(RULES[kind].key) as string;
    if (map.has(key)) throw new Error("duplicate");
    map.set(key, sha(oracleJcs(contract)));
  }
  return sha(oracleJcs(map));
}

const list = (name: string) => oracle.get(name) as OValue[];
const get = (o: OValue, k: string) => (o as OObject).get(k)!;

Deno.test("surface vectors: the file is what scripts/vectors_surface.ts writes", () => {
  assert.equal(buildSurfaceVectors(), new TextDecoder().decode(bytes));
});

Deno.test("surface vectors: the file covers every kind, absent-vs-null, non-ASCII, UTF-16 order", () => {
  const names = [...lib.items, ...lib.lists, ...lib.instructions, ...lib.reject].map((v) => v.name);
  for (
    const n of [
      "prompt-absent-fields",
      "prompt-null-fields",
      "resource-mimetype-absent",
      "resource-mimetype-null",
      "resource-non-ascii",
      "template-full",
      "prompts-key-order-utf16",
      "instructions-none",
      "instructions-text",
      "prompt-duplicate-name",
    ]
  ) assert.ok(names.includes(n), n);
  assert.equal(lib.canonicalization, "contractpin-canonical-json/1");
});

Deno.test("surface vectors: item contracts, digests and field digests — lib", () => {
  for (const v of lib.items) {
    const contract = projectSurfaceItem(v.kind as SurfaceKind, v.input);
    assert.equal(canonicalizeJcs(contract), v.canonical, v.name);
    const item = [...digestSurfaceList(v.kind, [v.input]).items.values()][0];
    assert.equal(item.digest, v.digest, v.name);
    assert.deepEqual(item.fields, v.fields, v.name);
  }
});

Deno.test("surface vectors: item contracts, digests and field digests — oracle", () => {
  for (const v of list("items")) {
    const name = get(v, "name") as string;
    const contract = oracleProject(get(v, "kind") as string, get(v, "input"));
    assert.equal(oracleJcs(contract), get(v, "canonical"), name);
    assert.equal(sha(oracleJcs(contract)), get(v, "digest"), name);
    for (const [f, d] of get(v, "fields") as OObject) {
      assert.equal(sha(oracleJcs(contract.get(f)!)), d, `${name} ${f}`);
    }
    assert.equal((get(v, "fields") as OObject).size, contract.size, name);
  }
});

Deno.test("surface vectors: absent and null members give the same digest", () => {
  const byName = new Map(lib.items.map((v: { name: string; digest: string }) => [v.name, v]));
  const d = (n: string) => (byName.get(n) as { digest: string }).digest;
  assert.equal(d("prompt-absent-fields"), d("prompt-null-fields"));
  assert.equal(d("resource-mimetype-absent"), d("resource-mimetype-null"));
});

Deno.test("surface vectors: kind digests — lib and oracle", () => {
  for (const v of lib.lists) {
    assert.equal(digestSurfaceList(v.kind, v.input).digest, v.digest, v.name);
    const got = digestSurfaceList(v.kind, v.input);
    assert.deepEqual(Object.fromEntries([...got.items].map(([k, i]) => [k, i.digest])), {
      ...v.items,
    });
  }
  for (const v of list("lists")) {
    const name = get(v, "name") as string;
    const digest = oracleKindDigest(get(v, "kind") as string, get(v, "input") as OValue[]);
    assert.equal(digest, get(v, "digest"), name);
    assert.equal(sha(get(v, "canonical") as string), digest, name);
    // The file lists items in canonical (UTF-16) order.
    const keys = [...(get(v, "items") as OObject).keys()];
    const canonicalOrder = [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(keys, canonicalOrder, name);
  }
});

Deno.test("surface vectors: instructions digests — lib and oracle", () => {
  for (const v of lib.instructions) {
    assert.equal(instructionsDigest(v.input), v.digest, v.name);
  }
  for (const v of list("instructions")) {
    const input = get(v, "input");
    assert.equal(oracleJcs(input), get(v, "canonical"));
    assert.equal(sha(oracleJcs(input)), get(v, "digest"));
  }
  const none = lib.instructions.find((v: { name: string }) => v.name === "instructions-none");
  const empty = lib.instructions.find((v: { name: string }) => v.name === "instructions-empty");
  assert.notEqual(none.digest, empty.digest);
});

Deno.test("surface vectors: rejected lists — lib and oracle refuse each", () => {
  for (const v of lib.reject) {
    assert.throws(
      () => digestSurfaceList(v.kind, v.input as JsonValue[]),
      (e: unknown) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
      v.name,
    );
  }
  for (const v of list("reject")) {
    assert.throws(
      () => oracleKindDigest(get(v, "kind") as string, get(v, "input") as OValue[]),
      (e: unknown) => e instanceof Error && e.message === get(v, "reason"),
      get(v, "name") as string,
    );
  }
});
