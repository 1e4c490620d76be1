// The skill signature file (lib/skill/walk.ts skillSignaturePath, lib/skill/sign.ts
// writeSkillSignature) and the domain a signed document names (lib/skill/document.ts
// signedDocumentDomain).
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { formatSkillSignatureDocument, signedDocumentDomain } from "../../lib/skill/document.ts";
import { signSkillDir, writeSkillSignature } from "../../lib/skill/sign.ts";
import { skillSignaturePath } from "../../lib/skill/walk.ts";
import { withTempDir } from "../cli/run.ts";

Deno.test("skillSignaturePath: DIR/.schemapin.sig, trailing slashes ignored", () => {
  assert.equal(skillSignaturePath("pdf-tools"), "pdf-tools/.schemapin.sig");
  assert.equal(skillSignaturePath("pdf-tools//"), "pdf-tools/.schemapin.sig");
  assert.equal(skillSignaturePath("/"), "/.schemapin.sig");
  assert.equal(skillSignaturePath("."), "./.schemapin.sig");
});

Deno.test("writeSkillSignature writes the formatted document atomically, replacing an older one", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/SKILL.md`, "# hi\n");
    const { document } = await signSkillDir(`${dir}/`, generateKeyPair(), {
      domain: "example.com",
    });
    await Deno.writeTextFile(`${dir}/.schemapin.sig`, "old");
    assert.equal(await writeSkillSignature(`${dir}/`, document), `${dir}/.schemapin.sig`);
    assert.equal(
      await Deno.readTextFile(`${dir}/.schemapin.sig`),
      formatSkillSignatureDocument(document),
    );
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      ".schemapin.sig",
      "SKILL.md",
    ]);
    await assert.rejects(
      writeSkillSignature(`${dir}/missing`, document),
      (e) => e instanceof SchemaPinError && e.code === "IO_FAILED" && /missing/.test(e.message),
    );
  });
});

Deno.test("signedDocumentDomain: only a 1.4 (or later 1.x) document's string domain", () => {
  assert.equal(
    signedDocumentDomain({ schemapin_version: "1.4", domain: "a.example" }),
    "a.example",
  );
  assert.equal(
    signedDocumentDomain({ schemapin_version: "1.9", domain: "a.example" }),
    "a.example",
  );
  assert.equal(signedDocumentDomain({ schemapin_version: "1.3", domain: "a.example" }), undefined);
  assert.equal(signedDocumentDomain({ schemapin_version: "2.0", domain: "a.example" }), undefined);
  assert.equal(signedDocumentDomain({ schemapin_version: "1.4", domain: 7 }), undefined);
  assert.equal(signedDocumentDomain({ schemapin_version: "1.4" }), undefined);
  assert.equal(signedDocumentDomain("MEUCIQ…"), undefined);
  assert.equal(signedDocumentDomain(null), undefined);
});
