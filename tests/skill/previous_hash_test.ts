// The previous_hash of a new release (lib/skill/sign.ts, previousHashOf, §18.1): the skill_hash
// of the previous release's .schemapin.sig, which must be a skill signature document.
import assert from "node:assert/strict";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { formatSkillSignatureDocument } from "../../lib/skill/document.ts";
import { previousHashOf, signSkillDir } from "../../lib/skill/sign.ts";
import { withSkill } from "./trees.ts";

const text = (s: string) => new TextEncoder().encode(s);

Deno.test("previousHashOf: the skill_hash of a signature file", async () => {
  await withSkill(async (s) => {
    const { document } = await signSkillDir(s.dir, generateKeyPair(), { domain: "example.com" });
    const bytes = text(formatSkillSignatureDocument(document));
    assert.equal(previousHashOf(bytes, "old.sig"), document.skill_hash);
  });
});

Deno.test("previousHashOf: bytes that are not a skill signature document name the source", () => {
  assert.throws(
    () => previousHashOf(text("{"), "old.sig"),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "JSON_INVALID" && /old\.sig/.test(e.message),
  );
  assert.throws(
    () => previousHashOf(text('{"schemapin_version":"1.4"}'), "old.sig"),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && /old\.sig/.test(e.message),
  );
});

Deno.test("previousHashOf: misuse is INPUT_INVALID naming the argument", () => {
  assert.throws(
    () => previousHashOf("{}" as never, "old.sig"),
    (e: unknown) =>
      e instanceof SchemaPinError && e.message.startsWith("previousHashOf: bytes must be"),
  );
  assert.throws(
    () => previousHashOf(text("{}"), undefined as never),
    (e: unknown) =>
      e instanceof SchemaPinError && e.message.startsWith("previousHashOf: source must be"),
  );
});
