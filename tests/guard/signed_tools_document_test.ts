// signedToolListDocument (lib/guard/signatures.ts): the tools/list document sign-tools writes.
import assert from "node:assert/strict";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import {
  MANIFEST_META_KEY,
  readToolSignature,
  signedToolListDocument,
  signToolList,
} from "../../lib/guard/signatures.ts";
import type { JsonObject } from "../../lib/json/types.ts";

const TOOLS = [
  { name: "add", description: "Adds", inputSchema: { type: "object" } },
  { name: "sub", description: "Subtracts", inputSchema: { type: "object" } },
];

Deno.test("signedToolListDocument: the signed tools, then the manifest under _meta", () => {
  const signed = signToolList(TOOLS, generateKeyPair(), { domain: "example.com" });
  const doc = signedToolListDocument(signed);
  assert.deepEqual(Object.keys(doc), ["tools", "_meta"]);
  assert.equal(doc.tools, signed.tools);
  const meta = doc._meta as JsonObject;
  assert.deepEqual(Object.keys(meta), [MANIFEST_META_KEY]);
  assert.equal(meta[MANIFEST_META_KEY], signed.manifest as unknown as JsonObject);
  // Every tool keeps its signature; no tool is left out or added.
  const tools = doc.tools as JsonObject[];
  assert.deepEqual(tools.map((t) => t.name), ["add", "sub"]);
  assert.ok(tools.every((t) => readToolSignature(t).kind === "signed"));
});

Deno.test("signedToolListDocument of an empty list has no tools and an empty manifest", () => {
  const doc = signedToolListDocument(signToolList([], generateKeyPair(), { domain: "a.example" }));
  assert.deepEqual(doc.tools, []);
  assert.deepEqual(
    Object.keys(((doc._meta as JsonObject)[MANIFEST_META_KEY] as JsonObject).tools as JsonObject),
    [],
  );
});
