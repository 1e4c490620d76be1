import assert from "node:assert/strict";
import { makeSchemaDocumentVectors } from "../../scripts/vectors_schema_documents.ts";

Deno.test("schema signature document vectors verify as they say (and regenerate identically)", async () => {
  const a = await makeSchemaDocumentVectors() as { documents: { name: string; expect: unknown }[] };
  const b = await makeSchemaDocumentVectors();
  assert.deepEqual(a, b, "RFC 6979 signing makes the corpus reproducible");
  assert.equal(a.documents.length, 12);
  const published = new URL("../../vectors/schema_signature_documents.json", import.meta.url);
  try {
    const text = await Deno.readTextFile(published);
    assert.equal(
      text,
      JSON.stringify(a, null, 2) + "\n",
      "vectors/schema_signature_documents.json is stale",
    );
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e; // not published yet
  }
});
