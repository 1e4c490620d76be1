// Verification with the trust of a plan (lib/trust/verify.ts), on real files and without the
// CLI: the trust is loaded once (a bad local input throws before anything is verified), and
// the verifier runs the flow of a schema, a batch or a skill folder with the pin store, the
// lineage check and the trust inputs the plan and options ask for.
import assert from "node:assert/strict";
import { rejectsWith } from "../schema_pin_error.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { LineageStore } from "../../lib/pins/lineage.ts";
import { schemaHash, signSchemaBase64, signSchemaDocument } from "../../lib/schema/document.ts";
import type { VerifiedBatchItem } from "../../lib/schema/batch.ts";
import { formatSkillSignatureDocument } from "../../lib/skill/document.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";
import { loadTrustedVerifier, type TrustedVerifierOptions } from "../../lib/trust/verify.ts";
import { discoveryFor, OTHER, SIGNER, toolSchema } from "../schema/_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const DOMAIN = "example.com";
const read = async (path: string) => {
  try {
    return await Deno.readFile(path);
  } catch {
    throw new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path });
  }
};

/** Options with a discovery file for SIGNER in `dir` and the pins in `dir/pins.json`. */
function optionsIn(dir: string, extra: Partial<TrustedVerifierOptions> = {}) {
  Deno.writeTextFileSync(`${dir}/d.json`, JSON.stringify(discoveryFor(SIGNER)));
  return {
    plan: { domain: DOMAIN, discovery: `${dir}/d.json`, chain: [] },
    env: { read },
    pinStore: `${dir}/pins.json`,
    trustFirstUse: true,
    ...extra,
  };
}

Deno.test("trusted verifier: a schema verifies, is pinned on first use and names its trust", async () => {
  await withTempDir(async (dir) => {
    const verifier = await loadTrustedVerifier(optionsIn(dir));
    const schema = toolSchema();
    const result = await verifier.verifySchema({
      schema,
      signature: signSchemaBase64(schema, SIGNER),
      toolId: "calculate_sum",
      signatureSource: "tool.json.sig",
    });
    assert.equal(result.valid, true, result.errorMessage);
    assert.equal(result.keyPinning, "first_use");
    assert.equal(result.discoverySource, `${dir}/d.json`);
    assert.match(Deno.readTextFileSync(`${dir}/pins.json`), /calculate_sum/);
  });
});

Deno.test("trusted verifier: a bad local trust input throws before anything is verified", async () => {
  await withTempDir(async (dir) => {
    await rejectsWith(
      loadTrustedVerifier({
        plan: { domain: DOMAIN, discovery: `${dir}/missing.json`, chain: [] },
        env: { read },
      }),
      "IO_FAILED",
    );
    Deno.writeTextFileSync(`${dir}/d.json`, "{not json");
    await rejectsWith(
      loadTrustedVerifier({
        plan: { domain: DOMAIN, discovery: `${dir}/d.json`, chain: [] },
        env: { read },
      }),
      "JSON_INVALID",
    );
  });
});

Deno.test("trusted verifier: a signature by another key fails and pins nothing", async () => {
  await withTempDir(async (dir) => {
    const verifier = await loadTrustedVerifier(optionsIn(dir));
    const schema = toolSchema();
    const result = await verifier.verifySchema({
      schema,
      signature: signSchemaBase64(schema, OTHER),
      toolId: "calculate_sum",
    });
    assert.equal(result.valid, false);
    assert.equal(result.errorCode, "SIGNATURE_INVALID");
    assert.throws(() => Deno.statSync(`${dir}/pins.json`));
  });
});

Deno.test("trusted verifier: first use without trustFirstUse asks, and a refusal pins nothing", async () => {
  await withTempDir(async (dir) => {
    const verifier = await loadTrustedVerifier(optionsIn(dir, { trustFirstUse: false }));
    const schema = toolSchema();
    const asked: string[] = [];
    const result = await verifier.verifySchema({
      schema,
      signature: signSchemaBase64(schema, SIGNER),
      toolId: "calculate_sum",
      confirmFirstUse: (info) => (asked.push(info.fingerprint), Promise.resolve(false)),
    });
    assert.equal(result.valid, false);
    assert.equal(result.keyPinning, "first_use_declined");
    assert.deepEqual(asked, [SIGNER.publicKey.fingerprint]);
    assert.throws(() => Deno.statSync(`${dir}/pins.json`));
  });
});

Deno.test("trusted verifier: an explicit public key is never pinned and the pin file is not opened", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/public.pem`, SIGNER.publicKey.pem);
    const verifier = await loadTrustedVerifier({
      plan: { domain: DOMAIN, publicKey: `${dir}/public.pem`, chain: [] },
      env: { read },
      pinStore: `${dir}/pins.json`,
    });
    assert.equal(verifier.trust.explicitKey, SIGNER.publicKey.fingerprint);
    const schema = toolSchema();
    const result = await verifier.verifySchema({
      schema,
      signature: signSchemaBase64(schema, SIGNER),
      toolId: "calculate_sum",
    });
    assert.equal(result.valid, true, result.errorMessage);
    assert.equal(result.keyPinning, "not_checked");
    assert.throws(() => Deno.statSync(`${dir}/pins.json`));
  });
});

Deno.test("trusted verifier: lineage anchors, then refuses a fork (and moves only on success)", async () => {
  await withTempDir(async (dir) => {
    const lineage = new LineageStore({ path: `${dir}/lineage.json` });
    const verifier = await loadTrustedVerifier(optionsIn(dir, { lineage }));
    const v1 = toolSchema();
    const doc = (schema: Record<string, unknown>, previousHash?: string) =>
      signSchemaDocument(schema, SIGNER, {
        domain: DOMAIN,
        ...(previousHash ? { previousHash } : {}),
      }) as unknown as Record<string, unknown>;
    const first = await verifier.verifySchema({ schema: v1, signature: doc(v1), toolId: "calc" });
    assert.equal(first.valid, true, first.errorMessage);
    assert.equal(first.lineage?.status, "anchored");
    const fork = { ...v1, description: "fork" };
    const second = await verifier.verifySchema({
      schema: fork,
      signature: doc(fork, schemaHash(toolSchema("other"))),
      toolId: "calc",
    });
    assert.equal(second.valid, false);
    assert.equal(second.errorCode, "LINEAGE_REJECTED");
    assert.equal(second.lineage?.status, "rejected");
  });
});

Deno.test("trusted verifier: a batch verifies with the shared trust; an unsigned schema is an item error", async () => {
  await withTempDir(async (dir) => {
    const verifier = await loadTrustedVerifier(optionsIn(dir));
    Deno.mkdirSync(`${dir}/s`);
    const schema = toolSchema();
    Deno.writeTextFileSync(`${dir}/s/a.json`, JSON.stringify(schema));
    Deno.writeTextFileSync(`${dir}/s/a.json.sig`, signSchemaBase64(schema, SIGNER));
    Deno.writeTextFileSync(`${dir}/s/b.json`, JSON.stringify(toolSchema("other")));
    const items: VerifiedBatchItem[] = [];
    await verifier.verifySchemaBatch({
      dir: `${dir}/s`,
      files: ["a.json", "b.json"],
      sigDir: `${dir}/s`,
      read,
      threads: 0,
      onResults: (got) => Promise.resolve(void items.push(...got)),
    });
    assert.equal(items.length, 2);
    assert.equal(items[0].result?.valid, true, items[0].result?.errorMessage);
    assert.equal(
      (items[0].result as { discoverySource?: string }).discoverySource,
      `${dir}/d.json`,
    );
    assert.equal(items[1].error?.code, "SIGNATURE_INVALID");
  });
});

Deno.test("trusted verifier: a skill folder verifies; a changed file fails it", async () => {
  await withTempDir(async (dir) => {
    const verifier = await loadTrustedVerifier(optionsIn(dir));
    const skill = `${dir}/skill`;
    Deno.mkdirSync(skill);
    Deno.writeTextFileSync(`${skill}/SKILL.md`, "---\nname: demo\n---\nhello\n");
    const { document } = await signSkillDir(skill, SIGNER, { domain: DOMAIN });
    Deno.writeTextFileSync(`${skill}/.schemapin.sig`, formatSkillSignatureDocument(document));
    const ok = await verifier.verifySkill({ dir: skill });
    assert.equal(ok.valid, true, ok.errorMessage);
    assert.equal(ok.discoverySource, `${dir}/d.json`);
    Deno.writeTextFileSync(`${skill}/SKILL.md`, "---\nname: demo\n---\nchanged\n");
    const changed = await verifier.verifySkill({ dir: skill });
    assert.equal(changed.valid, false);
    assert.deepEqual(changed.changes?.modified, ["SKILL.md"]);
  });
});
