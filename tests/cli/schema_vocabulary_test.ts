// Issue 25 item 4 for the schema and skill commands: the domain a signed 1.4 document names is
// used when --domain is absent (a different --domain is a usage error), sign-schema --format
// (never switched silently; a file of the other format is not replaced without --force),
// sign-schema --batch --out-dir, and the old spellings kept for one release with a note.
// chooseSignatureFormat itself: tests/schema/sign_output_test.ts.
import assert from "node:assert/strict";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import { resolveSignedDomain } from "../../cli/commands/schema_report.ts";
import { signedDocumentDomain } from "../../lib/skill/document.ts";
import { discoveryFor, SIGNER, toolSchema } from "../schema/_fixtures.ts";
import { runInProcess, withTempDir } from "./run.ts";

const DOMAIN = "example.com";

async function inputs(dir: string): Promise<{ key: string; pub: string; schema: string }> {
  await Deno.writeTextFile(`${dir}/private.pem`, privateKeyToPem(SIGNER));
  await Deno.writeTextFile(`${dir}/public.pem`, SIGNER.publicKey.pem);
  await Deno.writeTextFile(`${dir}/schemapin.json`, JSON.stringify(discoveryFor(SIGNER)));
  await Deno.writeTextFile(`${dir}/tool.json`, JSON.stringify(toolSchema()));
  return { key: `${dir}/private.pem`, pub: `${dir}/public.pem`, schema: `${dir}/tool.json` };
}

Deno.test("resolveSignedDomain / signedDocumentDomain", () => {
  assert.equal(signedDocumentDomain({ schemapin_version: "1.4", domain: DOMAIN }), DOMAIN);
  assert.equal(signedDocumentDomain({ schemapin_version: "1.3", domain: DOMAIN }), undefined);
  assert.equal(signedDocumentDomain({ schemapin_version: "1.4" }), undefined);
  assert.equal(signedDocumentDomain("MEUCIQ=="), undefined);
  assert.equal(resolveSignedDomain("verify-schema", undefined, "Example.COM"), DOMAIN);
  assert.equal(resolveSignedDomain("verify-schema", "EXAMPLE.com", DOMAIN), DOMAIN);
  assert.equal(resolveSignedDomain("verify-schema", DOMAIN, undefined), DOMAIN);
  assert.throws(
    () => resolveSignedDomain("verify-schema", undefined, undefined),
    /verify-schema: --domain D is required: the signature does not name its domain/,
  );
  assert.throws(
    () => resolveSignedDomain("verify-skill", "other.example", DOMAIN),
    /verify-skill: --domain other\.example differs from the domain the signature document names \("example\.com"\)/,
  );
});

Deno.test("sign-schema: the inferred document format is never silent; --format bare with metadata is exit 2", async () => {
  await withTempDir(async (dir) => {
    const { key, schema } = await inputs(dir);
    const inferred = await runInProcess(["sign-schema", schema, "-k", key, "--domain", DOMAIN]);
    assert.equal(inferred.code, 0, inferred.stderr);
    assert.match(
      inferred.stderr,
      /note: sign-schema: writing a 1\.4 signature document \(--format document\); pass --format to choose\n/,
    );
    assert.equal(JSON.parse(inferred.stdout).domain, DOMAIN);
    const explicit = await runInProcess([
      ...["sign-schema", schema, "-k", key, "--domain", DOMAIN, "--format", "document"],
    ]);
    assert.equal(explicit.code, 0, explicit.stderr);
    assert.equal(explicit.stderr, "");
    const bare = await runInProcess(["sign-schema", schema, "-k", key]);
    assert.equal(bare.code, 0, bare.stderr);
    assert.equal(bare.stderr, "");
    assert.match(bare.stdout, /^[A-Za-z0-9+/]+=*\n?$/);
    const refused = await runInProcess([
      ...["sign-schema", schema, "-k", key, "--format", "bare", "--domain", DOMAIN],
    ]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /--format bare does not go with --domain/);
    // --document, the old spelling of --format document.
    const old = await runInProcess(["sign-schema", schema, "-k", key, "--document"]);
    assert.equal(old.code, 0, old.stderr);
    assert.equal(
      old.stderr,
      "note: sign-schema: --document is deprecated; use --format document\n",
    );
    assert.equal(JSON.parse(old.stdout).schemapin_version, "1.4");
  });
});

Deno.test("sign-schema: an existing output of the other format is refused naming both; --force replaces it", async () => {
  await withTempDir(async (dir) => {
    const { key, schema } = await inputs(dir);
    const out = `${dir}/tool.json.sig`;
    const doc = await runInProcess([
      ...["sign-schema", schema, "-k", key, "--domain", DOMAIN, "--format", "document"],
      ...["--out", out],
    ]);
    assert.equal(doc.code, 0, doc.stderr);
    const before = await Deno.readTextFile(out);
    // The rerun without the metadata would write bare Base64 over the 1.4 document.
    const rerun = await runInProcess(["sign-schema", schema, "-k", key, "--out", out]);
    assert.equal(rerun.code, 2);
    assert.match(
      rerun.stderr,
      /tool\.json\.sig holds a 1\.4 signature document \(--format document\) and this run writes a bare Base64 signature \(--format bare\); nothing was written/,
    );
    assert.equal(await Deno.readTextFile(out), before);
    const forced = await runInProcess(["sign-schema", schema, "-k", key, "--out", out, "-f"]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.doesNotMatch(await Deno.readTextFile(out), /^\{/);
    // And the other way round, in a batch.
    await Deno.mkdir(`${dir}/schemas`);
    await Deno.copyFile(schema, `${dir}/schemas/tool.json`);
    const first = await runInProcess([
      ...["sign-schema", "--batch", `${dir}/schemas`, "--out-dir", `${dir}/sigs`, "-k", key],
    ]);
    assert.equal(first.code, 0, first.stderr);
    const switched = await runInProcess([
      ...["sign-schema", "--batch", `${dir}/schemas`, "--out-dir", `${dir}/sigs`, "-k", key],
      ...["--format", "document"],
    ]);
    assert.equal(switched.code, 2);
    assert.match(
      switched.stderr,
      /sigs\/tool\.json\.sig holds a bare Base64 signature \(--format bare\) and this run writes a 1\.4 signature document/,
    );
  });
});

Deno.test("verify-schema and verify-skill: the document's domain is used without --domain; a different --domain is exit 2", async () => {
  await withTempDir(async (dir) => {
    const { key, pub, schema } = await inputs(dir);
    const sig = `${dir}/tool.json.sig`;
    const signed = await runInProcess([
      ...["sign-schema", schema, "-k", key, "--domain", DOMAIN, "--format", "document"],
      ...["--out", sig],
    ]);
    assert.equal(signed.code, 0, signed.stderr);
    const ok = await runInProcess([
      ...["verify-schema", schema, "--signature", sig, "--discovery", `${dir}/schemapin.json`],
      ...["--pin-store", `${dir}/pins.json`, "--trust-first-use"],
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^OK calculate_sum@example\.com: valid signature/);
    const differs = await runInProcess([
      ...["verify-schema", schema, "--signature", sig, "--public-key", pub],
      ...["--domain", "other.example"],
    ]);
    assert.equal(differs.code, 2, differs.stderr);
    assert.match(differs.stderr, /--domain other\.example differs from the domain/);
    // A bare signature names no domain.
    const bare = `${dir}/bare.sig`;
    await runInProcess(["sign-schema", schema, "-k", key, "--out", bare]);
    const noDomain = await runInProcess([
      ...["verify-schema", schema, "--signature", bare, "--public-key", pub],
    ]);
    assert.equal(noDomain.code, 2);
    assert.match(
      noDomain.stderr,
      /verify-schema: --domain D is required: the signature does not name its domain/,
    );

    await Deno.mkdir(`${dir}/skill`);
    await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: pdf-tools\n---\nHi\n");
    const skill = await runInProcess([
      ...["sign-skill", `${dir}/skill`, "-k", key, "--domain", DOMAIN],
    ]);
    assert.equal(skill.code, 0, skill.stderr);
    const vk = await runInProcess(["verify-skill", `${dir}/skill`, "--public-key", pub]);
    assert.equal(vk.code, 0, vk.stderr);
    assert.match(vk.stdout, /^OK pdf-tools@example\.com/);
    const vkDiffers = await runInProcess([
      ...["verify-skill", `${dir}/skill`, "--public-key", pub, "--domain", "other.example"],
    ]);
    assert.equal(vkDiffers.code, 2, vkDiffers.stderr);
    assert.match(vkDiffers.stderr, /verify-skill: --domain other\.example differs/);
    const unsigned = `${dir}/unsigned`;
    await Deno.mkdir(unsigned);
    // Unsigned is the verdict (issue 37), not a missing --domain; the folder's name names it.
    const vkNone = await runInProcess(["verify-skill", unsigned, "--public-key", pub]);
    assert.equal(vkNone.code, 1);
    assert.equal(vkNone.stdout, "FAIL unsigned: SIGNATURE_INVALID\n");
    assert.match(vkNone.stderr, /the skill is unsigned: .*\.schemapin\.sig does not exist/);
    assert.doesNotMatch(vkNone.stderr, /--domain D is required/);
  });
});
