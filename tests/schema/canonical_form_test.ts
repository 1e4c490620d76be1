// The canonical form canonicalize prints (cli/schema/canonical_form.ts): schemapin-v1 or
// RFC 8785, the JSON fields with the SHA-256, and values with no canonical form refused.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { canonicalForm, canonicalFormJson } from "../../cli/schema/canonical_form.ts";
import { throwsWith } from "../schema_pin_error.ts";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("canonicalForm: schemapin-v1 by default, RFC 8785 for a contract", () => {
  const value = { b: 1, a: [true, null, "x"] };
  const schema = canonicalForm(value, false);
  assert.equal(schema.canonicalization, "schemapin-v1");
  assert.equal(text(schema.bytes), '{"a":[true,null,"x"],"b":1}');
  const contract = canonicalForm(value, true);
  assert.equal(contract.canonicalization, "contractpin-canonical-json/1");
  assert.equal(text(contract.bytes), '{"a":[true,null,"x"],"b":1}');
});

Deno.test("canonicalFormJson: the text and its sha256", () => {
  const form = canonicalForm({ name: "é" }, false);
  const hex = createHash("sha256").update(form.bytes).digest("hex");
  assert.deepEqual(canonicalFormJson(form), {
    canonicalization: "schemapin-v1",
    canonical: '{"name":"é"}',
    sha256: `sha256:${hex}`,
  });
});

Deno.test("canonicalForm: a value with no canonical form is refused", () => {
  throwsWith(() => canonicalForm({ n: Infinity }, false), "SCHEMA_CANONICALIZATION_FAILED", /\/n/);
  throwsWith(() => canonicalForm({ n: Number.NaN }, true), "SCHEMA_CANONICALIZATION_FAILED", /\/n/);
});

Deno.test("canonicalFormJson refuses what is not a canonical form", () => {
  for (const bad of [undefined, "{}", { canonicalization: "schemapin-v1", bytes: "{}" }]) {
    throwsWith(() => canonicalFormJson(bad as never), "INPUT_INVALID", /canonicalFormJson: form/);
  }
});
