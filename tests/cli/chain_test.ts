// `schemapin chain` with skill signature documents: 1.4 documents chain; a legacy (1.3) one on
// either side is refused with exit 1 and the reason. Expectations come from the spec text:
// §4b "MUST NOT anchor lineage (Section 18) on them", §18.4 "A legacy 1.3 document MUST be
// refused as a lineage anchor", and from the reference JavaScript SDK's legacy fixture.
import assert from "node:assert/strict";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";
import { INTEROP_JS } from "../fixtures/interop.ts";
import { makeSkill } from "../skill/trees.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import { runCliProcess, runInProcess, withTempDir } from "./run.ts";

const key = generateKeyPair();
const LEGACY_SIG = `${INTEROP_JS}/legacy_skill/.schemapin.sig`;
const legacyDoc = JSON.parse(await Deno.readTextFile(LEGACY_SIG));

/** Writes two 1.4 skill documents, v2 chained to v1, and returns their paths and hashes. */
async function chainedPair(dir: string, previousHash?: string) {
  const s = await makeSkill();
  try {
    const v1 = await signSkillDir(s.dir, key, { domain: "example.com", schemaVersion: "1.0.0" });
    await Deno.writeTextFile(`${s.dir}/scripts/run.sh`, "#!/bin/sh\necho v2\n");
    const v2 = await signSkillDir(s.dir, key, {
      domain: "example.com",
      schemaVersion: "2.0.0",
      previousHash: previousHash ?? v1.document.skill_hash,
    });
    await Deno.writeTextFile(`${dir}/v1.sig`, JSON.stringify(v1.document));
    await Deno.writeTextFile(`${dir}/v2.sig`, JSON.stringify(v2.document));
    return { v1: `${dir}/v1.sig`, v2: `${dir}/v2.sig`, h1: v1.document.skill_hash };
  } finally {
    await s.cleanup();
  }
}

Deno.test("chain: two 1.4 skill documents chain (exit 0)", async () => {
  await withTempDir(async (dir) => {
    const { v1, v2 } = await chainedPair(dir);
    const r = await runInProcess(["chain", v2, v1]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `OK ${v2} follows ${v1}\n`);
    const j = await runInProcess(["chain", v2, v1, "--json"]);
    assert.equal(j.code, 0, j.stderr);
    const out = await assertJsonOutput(j.stdout);
    assert.equal(out.format, "schemapin.chain/1");
    assert.equal(out.ok, true);
    assert.equal(out.error, undefined);
    assert.equal(out.hash, JSON.parse(await Deno.readTextFile(v2)).skill_hash);
  });
});

Deno.test("chain: a 1.4 document chained to the reference legacy document is refused (exit 1)", async () => {
  await withTempDir(async (dir) => {
    // The current document's previous_hash names the legacy skill_hash exactly: before the
    // fix this printed OK.
    const { v2 } = await chainedPair(dir, legacyDoc.skill_hash);
    const r = await runInProcess(["chain", v2, LEGACY_SIG]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.stdout, "FAIL legacy\n");
    assert.match(r.stderr, /the previous document \(schemapin_version "1\.3"\)/);
    assert.match(r.stderr, /not covered by its signature/);
    assert.match(r.stderr, /§4b, §18\.4/);
    assert.doesNotMatch(r.stdout, /OK/);
  });
});

Deno.test("chain: a legacy current document is refused even when its previous_hash matches", async () => {
  await withTempDir(async (dir) => {
    const { v1, h1 } = await chainedPair(dir);
    const current = `${dir}/legacy-next.sig`;
    await Deno.writeTextFile(current, JSON.stringify({ ...legacyDoc, previous_hash: h1 }));
    const r = await runInProcess(["chain", current, v1, "--json"]);
    assert.equal(r.code, 1);
    const out = await assertJsonOutput(r.stdout);
    assert.equal(out.ok, false);
    const error = out.error as { code: string; message: string };
    assert.equal(error.code, "CHAIN_LEGACY");
    assert.equal(out.reason, "legacy");
    assert.deepEqual(out.legacy, ["current"]);
    assert.match(error.message, /the current document \(schemapin_version "1\.3"\)/);
    assert.equal(out.message, undefined);
    assert.equal(out.valid, undefined);
  });
});

Deno.test("chain: two legacy documents are refused and both are named", async () => {
  await withTempDir(async (dir) => {
    const current = `${dir}/legacy-next.sig`;
    await Deno.writeTextFile(
      current,
      JSON.stringify({
        ...legacyDoc,
        skill_hash: "sha256:" + "b".repeat(64),
        previous_hash: legacyDoc.skill_hash,
      }),
    );
    const r = await runInProcess(["chain", current, LEGACY_SIG, "--json"]);
    assert.equal(r.code, 1);
    const out = await assertJsonOutput(r.stdout);
    assert.equal(out.ok, false);
    assert.equal((out.error as { code: string }).code, "CHAIN_LEGACY");
    assert.deepEqual(out.legacy, ["current", "previous"]);
  });
});

Deno.test("chain: a legacy document without previous_hash is refused as legacy, not 'no_previous_hash'", async () => {
  await withTempDir(async (dir) => {
    const { v1 } = await chainedPair(dir);
    const r = await runInProcess(["chain", LEGACY_SIG, v1, "--json"]);
    assert.equal(r.code, 1);
    const out = await assertJsonOutput(r.stdout);
    assert.equal(out.reason, "legacy");
    assert.equal((out.error as { code: string }).code, "CHAIN_LEGACY");
  });
});

Deno.test("chain: the real CLI refuses a legacy anchor with exit 1 and says why", async () => {
  await withTempDir(async (dir) => {
    const { v2 } = await chainedPair(dir, legacyDoc.skill_hash);
    const r = await runCliProcess(["chain", v2, LEGACY_SIG], {
      env: { DENO_NO_UPDATE_CHECK: "1" },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "FAIL legacy\n");
    assert.match(r.stderr, /^error: the previous document .* legacy signature document/m);
  });
});
