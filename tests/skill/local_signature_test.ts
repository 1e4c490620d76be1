// The local inputs of a skill verification (cli/skill/local_signature.ts): the folder must be
// one; its own .schemapin.sig is only looked at for the domain, a file given instead is read
// and checked now.
import assert from "node:assert/strict";
import { rejectsWith } from "../schema_pin_error.ts";
import { readLocalSkillSignature } from "../../cli/skill/local_signature.ts";
import { withTempDir } from "../cli/run.ts";
import { read, signed } from "./_signed.ts";

Deno.test("readLocalSkillSignature: the folder's own document gives its domain, or what is wrong with it", async () => {
  await withTempDir(async (dir) => {
    const missing = await readLocalSkillSignature(dir, undefined, read);
    assert.equal(missing.domain, undefined);
    assert.match(missing.problem?.message ?? "", /unsigned/);
    Deno.writeTextFileSync(`${dir}/.schemapin.sig`, await signed(dir));
    const good = await readLocalSkillSignature(dir, undefined, read);
    assert.equal(good.domain, "example.com");
    assert.equal(good.problem, undefined);
    assert.equal(good.signature, undefined); // only looked at: verification reads it again
    Deno.writeTextFileSync(`${dir}/.schemapin.sig`, "{broken");
    const broken = await readLocalSkillSignature(dir, undefined, read);
    assert.equal(broken.domain, undefined);
    assert.equal(broken.problem?.code, "JSON_INVALID");
  });
});

Deno.test("readLocalSkillSignature: a file given instead is read and returned", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/other.sig`, await signed(dir));
    const local = await readLocalSkillSignature(dir, `${dir}/other.sig`, read);
    assert.equal(local.domain, "example.com");
    assert.equal((local.signature as { domain: string }).domain, "example.com");
  });
});

Deno.test("readLocalSkillSignature: a missing folder or a folder that is a file is refused", async () => {
  await withTempDir(async (dir) => {
    await assert.rejects(() => readLocalSkillSignature(`${dir}/none`, undefined, read));
    Deno.writeTextFileSync(`${dir}/file`, "x");
    await assert.rejects(() => readLocalSkillSignature(`${dir}/file`, undefined, read));
    await rejectsWith(readLocalSkillSignature("", undefined, read), "INPUT_INVALID", /empty/);
  });
});

Deno.test("readLocalSkillSignature: a malformed or missing file given is an input error", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/bad.sig`, "{not json");
    await rejectsWith(readLocalSkillSignature(dir, `${dir}/bad.sig`, read), "JSON_INVALID");
    Deno.writeTextFileSync(`${dir}/doc.sig`, JSON.stringify({ schemapin_version: "1.4" }));
    await rejectsWith(readLocalSkillSignature(dir, `${dir}/doc.sig`, read), "INPUT_INVALID");
    await assert.rejects(() => readLocalSkillSignature(dir, `${dir}/missing.sig`, read));
  });
});
