// lineageSignatureOf (cli/schema/lineage_document.ts): the lineage fields (§18) of a schema or
// skill signature document, as `schemapin chain` reads them.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { signSchemaDocument } from "../../lib/schema/document.ts";
import { lineageSignatureOf } from "../../cli/schema/lineage_document.ts";

const H1 = "sha256:" + "1".repeat(64);
const H2 = "sha256:" + "2".repeat(64);

function inputInvalid(pattern: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, "INPUT_INVALID");
    assert.match(e.message, pattern);
    assert.equal(e.details.source, "x.sig");
    return true;
  };
}

Deno.test("lineageSignatureOf: a schema signature document in full, a skill one's lineage fields", () => {
  const doc = signSchemaDocument({ name: "add" }, generateKeyPair(), {
    domain: "example.com",
    previousHash: H1,
    schemaVersion: "2.0.0",
  });
  const schema = lineageSignatureOf(JSON.parse(JSON.stringify(doc)), "s.sig");
  assert.equal(schema.schema_hash, doc.schema_hash);
  assert.equal(schema.previous_hash, H1);
  assert.equal(schema.schema_version, "2.0.0");
  assert.deepEqual(
    lineageSignatureOf({
      schemapin_version: "1.4",
      skill_hash: H2,
      previous_hash: H1,
      schema_version: "3",
      extra: true,
    }, "k.sig"),
    { schemapin_version: "1.4", skill_hash: H2, previous_hash: H1, schema_version: "3" },
  );
  // A legacy (1.3) skill document is read, so verifyChain can refuse it by name.
  assert.deepEqual(lineageSignatureOf({ schemapin_version: "1.3", skill_hash: H2 }, "k.sig"), {
    schemapin_version: "1.3",
    skill_hash: H2,
  });
});

Deno.test("lineageSignatureOf refuses what is not a signature document and a malformed previous_hash", () => {
  assert.throws(() => lineageSignatureOf([], "x.sig"), inputInvalid(/^x\.sig is not a signature/));
  assert.throws(
    () => lineageSignatureOf({ skill_hash: H1 }, "x.sig"),
    inputInvalid(/no schemapin_version and schema_hash\/skill_hash/),
  );
  assert.throws(
    () => lineageSignatureOf({ schemapin_version: "1.4", skill_hash: "sha256:12" }, "x.sig"),
    inputInvalid(/not a signature document/),
  );
  assert.throws(
    () =>
      lineageSignatureOf(
        { schemapin_version: "1.4", skill_hash: H1, previous_hash: "md5:x" },
        "x.sig",
      ),
    inputInvalid(/^x\.sig: previous_hash is malformed$/),
  );
  // A schema document goes through the schema document's parser.
  assert.throws(() => lineageSignatureOf({ schema_hash: 1 }, "x.sig"), SchemaPinError);
});
