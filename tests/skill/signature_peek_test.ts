// The skill signature read before verifying (lib/skill/verify.ts): the folder's own
// .schemapin.sig peeked at for the domain it names (anything wrong with it is left to
// verification), and a signature document given as a file of its own, checked as an input.
import assert from "node:assert/strict";
import { rejectsWith } from "../schema_pin_error.ts";
import { peekFolderSignature, readSkillSignatureFile } from "../../lib/skill/verify.ts";
import { withTempDir } from "../cli/run.ts";
import { read, signed } from "./_signed.ts";

Deno.test("peekFolderSignature: the folder's own document, with or without a trailing slash", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/.schemapin.sig`, await signed(dir));
    const doc = peekFolderSignature(dir) as { domain?: string };
    assert.equal(doc.domain, "example.com");
    assert.deepEqual(peekFolderSignature(`${dir}/`), doc);
  });
});

Deno.test("peekFolderSignature: missing, not JSON or not a regular file is undefined", async () => {
  await withTempDir(async (dir) => {
    assert.equal(peekFolderSignature(dir), undefined);
    Deno.writeTextFileSync(`${dir}/.schemapin.sig`, "{not json");
    assert.equal(peekFolderSignature(dir), undefined);
    Deno.removeSync(`${dir}/.schemapin.sig`);
    Deno.writeTextFileSync(`${dir}/real.sig`, await signed(dir));
    Deno.symlinkSync(`${dir}/real.sig`, `${dir}/.schemapin.sig`);
    assert.equal(peekFolderSignature(dir), undefined, "a symbolic link is not read");
    assert.equal(peekFolderSignature(`${dir}/nope`), undefined);
  });
});

Deno.test("readSkillSignatureFile: a well-formed document is returned as parsed", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/skill.sig`, await signed(dir));
    const doc = await readSkillSignatureFile(`${dir}/skill.sig`, read) as { skill_name: string };
    assert.equal(doc.skill_name, "demo");
  });
});

Deno.test("readSkillSignatureFile: not JSON, or a malformed document, is an error naming the file", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/bad.sig`, "{not json");
    await rejectsWith(readSkillSignatureFile(`${dir}/bad.sig`, read), "JSON_INVALID", /bad\.sig/);
    Deno.writeTextFileSync(`${dir}/doc.sig`, JSON.stringify({ schemapin_version: "1.4" }));
    await rejectsWith(readSkillSignatureFile(`${dir}/doc.sig`, read), "INPUT_INVALID", /doc\.sig/);
  });
});
