// Loops over the published corpora in vectors/: every case must behave as recorded.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { parseJson } from "../../lib/json/parse.ts";
import { canonicalizeSchemapinV1 } from "../../lib/json/canonical_schemapin.ts";
import { canonicalizeJcs } from "../../lib/json/canonical_jcs.ts";
import { projectContract } from "../../lib/contractpin/contract.ts";
import { isSchemaPinError } from "../../lib/errors.ts";
import type { JsonValue } from "../../lib/json/types.ts";

const root = new URL("../../vectors/", import.meta.url);
const load = async (name: string) =>
  parseJson(await Deno.readFile(new URL(name, root)), name) as Record<string, unknown>;

interface SchemapinVector {
  name: string;
  input_base64: string;
  canonical?: string;
  reject?: { stage: "parse" | "canonicalize"; reason: string };
}

const corpus = await load("canonicalization.json");
const vectors = corpus.vectors as SchemapinVector[];

Deno.test("canonicalization.json covers accepts and rejects", () => {
  assert.equal(corpus.canonicalization, "schemapin-v1");
  const rejects = vectors.filter((v) => v.reject).length;
  assert.ok(vectors.length - rejects >= 20, "at least 20 accepted cases");
  assert.ok(rejects >= vectors.length - rejects, "at least as many rejections as accepts");
});

for (const v of vectors) {
  Deno.test(`schemapin-v1 vector ${v.name}`, () => {
    const bytes = Uint8Array.from(atob(v.input_base64), (c) => c.charCodeAt(0));
    if (v.canonical !== undefined) {
      assert.equal(canonicalizeSchemapinV1(parseJson(bytes)), v.canonical);
      return;
    }
    const expectedCode = v.reject!.stage === "parse"
      ? "JSON_INVALID"
      : "SCHEMA_CANONICALIZATION_FAILED";
    assert.throws(
      () => canonicalizeSchemapinV1(parseJson(bytes)),
      (e) => isSchemaPinError(e, expectedCode),
    );
  });
}

interface ContractVector {
  name: string;
  input: JsonValue;
  project: boolean;
  canonical: string;
  digest: string;
}

const contractVectors = (await load("contractpin.json")) as unknown as ContractVector[];

Deno.test("contractpin.json has the key-order-utf16 case the spec names", () => {
  assert.ok(contractVectors.some((v) => v.name === "key-order-utf16"));
});

for (const v of contractVectors) {
  Deno.test(`contractpin vector ${v.name}`, () => {
    const value = v.project ? projectContract(v.input) : v.input;
    const canonical = canonicalizeJcs(value);
    assert.equal(canonical, v.canonical);
    const digest = "sha256:" + createHash("sha256").update(canonical).digest("hex");
    assert.equal(digest, v.digest);
    assert.equal(digest.length, 71);
  });
}

Deno.test("vectors/ is up to date with scripts/make_vectors.ts (deno task vectors)", async () => {
  const { buildVectors } = await import("../../scripts/make_vectors.ts");
  const files = await buildVectors();
  for (const [name, text] of Object.entries(files)) {
    assert.equal(await Deno.readTextFile(new URL(name, root)), text, `vectors/${name} is stale`);
  }
});
