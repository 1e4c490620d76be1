// Version binding on the ./pins entry point (issue 36): verifyChain, the §18.3 helper every SDK
// MUST provide, and LineageStore with the spec's `check_and_advance` (checkAndAdvance), used
// as a library user does — on documents verifySchemaOffline verified first — and what they
// refuse. The rules themselves are tested in lineage_test.ts.
import assert from "node:assert/strict";
import {
  buildDiscoveryDocument,
  generateKeyPair,
  MemoryPinStore,
  SchemaPinError,
  signSchemaDocument,
  verifySchemaOffline,
} from "../../mod.ts";
import { type LineageSignature, LineageStore, verifyChain } from "../../pins.ts";
import type { SchemaSignatureDocument } from "../../schema.ts";

const key = generateKeyPair();
const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Ex" });

/** Release `n` of the tool "calc", chained to `previous` when given. */
function release(
  n: number,
  previous?: SchemaSignatureDocument,
  version = `${n}.0.0`,
): { schema: Record<string, unknown>; document: SchemaSignatureDocument } {
  const schema = { name: "calc", description: `release ${n}` };
  const document = signSchemaDocument(schema, key, {
    domain: "example.com",
    schemaVersion: version,
    ...(previous ? { previousHash: previous.schema_hash } : {}),
  });
  return { schema, document };
}

/** The document verifySchemaOffline accepted (its result's `document`). */
async function verified(r: ReturnType<typeof release>): Promise<SchemaSignatureDocument> {
  const result = await verifySchemaOffline({
    schema: r.schema,
    signature: r.document,
    toolId: "calc",
    domain: "example.com",
    discovery,
    pinStore: new MemoryPinStore(),
    trustFirstUse: true,
  });
  assert.equal(result.valid, true, result.errorMessage);
  return result.document!;
}

function invalid(pattern: RegExp) {
  return (e: unknown) =>
    e instanceof SchemaPinError && e.code === "INPUT_INVALID" && pattern.test(e.message);
}

// Positive

Deno.test("verifyChain: release 2 names release 1, both verified first", async () => {
  const r1 = release(1);
  const r2 = release(2, r1.document);
  const chain = verifyChain(await verified(r2), await verified(r1));
  assert.deepEqual(chain, { valid: true, hash: r2.document.schema_hash });
});

Deno.test("LineageStore.checkAndAdvance (check_and_advance): anchor, unchanged, advance, in a file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-lineage-entry-" });
  try {
    const r1 = release(1);
    const r2 = release(2, r1.document);
    const path = `${dir}/lineage.json`;
    const store = new LineageStore({ path });
    assert.equal(store.path, path);
    const v1 = await verified(r1);
    assert.deepEqual(await store.checkAndAdvance("calc", "example.com", v1), {
      status: "anchored",
      hash: v1.schema_hash,
    });
    assert.equal((await store.checkAndAdvance("calc", "example.com", v1)).status, "unchanged");
    const advanced = await store.checkAndAdvance("calc", "Example.COM", await verified(r2));
    assert.deepEqual(advanced, {
      status: "advanced",
      from: v1.schema_hash,
      to: r2.document.schema_hash,
    });
    const again = await new LineageStore({ path }).get("calc", "example.com");
    assert.equal(again?.latestHash, r2.document.schema_hash);
    assert.equal(again?.schemaVersion, "2.0.0");
    assert.deepEqual(again?.history, [v1.schema_hash]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LineageStore: a skill signature document (skill_hash) fits LineageSignature too", async () => {
  const a = "sha256:" + "a".repeat(64);
  const b = "sha256:" + "b".repeat(64);
  const skillV1: LineageSignature = { schemapin_version: "1.4", skill_hash: a };
  const skillV2: LineageSignature = { schemapin_version: "1.4", skill_hash: b, previous_hash: a };
  const store = new LineageStore({ memory: true });
  await store.checkAndAdvance("pdf-tools", "example.com", skillV1);
  assert.equal(
    (await store.checkAndAdvance("pdf-tools", "example.com", skillV2)).status,
    "advanced",
  );
  assert.equal(verifyChain(skillV2, skillV1).valid, true);
});

// Negative

Deno.test("verifyChain: no previous_hash, and a mismatch naming both hashes", async () => {
  const r1 = release(1);
  const unchained = release(2);
  const none = verifyChain(await verified(unchained), await verified(r1));
  assert.equal(none.valid, false);
  assert.equal(!none.valid && none.reason, "no_previous_hash");
  const other = release(7); // a release the verifier never saw
  const r2 = release(2, other.document);
  const mismatch = verifyChain(await verified(r2), await verified(r1));
  assert.ok(!mismatch.valid && mismatch.reason === "mismatch");
  assert.equal(mismatch.expected, r1.document.schema_hash);
  assert.equal(mismatch.observed, other.document.schema_hash);
  assert.match(
    mismatch.message,
    new RegExp(`${r1.document.schema_hash}.*${other.document.schema_hash}`),
  );
});

Deno.test("verifyChain: a legacy (1.3) document never anchors or extends a chain", () => {
  const a = "sha256:" + "a".repeat(64);
  const b = "sha256:" + "b".repeat(64);
  const chain = verifyChain(
    { schemapin_version: "1.4", schema_hash: b, previous_hash: a },
    { schemapin_version: "1.3", skill_hash: a },
  );
  assert.ok(!chain.valid && chain.reason === "legacy");
  assert.deepEqual(chain.legacy, ["previous"]);
});

Deno.test("LineageStore refuses a fork, a rollback and a version that does not increase", async () => {
  const store = new LineageStore({ memory: true });
  const r1 = release(1);
  const r2 = release(2, r1.document);
  await store.checkAndAdvance("calc", "example.com", await verified(r1));
  await store.checkAndAdvance("calc", "example.com", await verified(r2));
  const cases: [ReturnType<typeof release>, string][] = [
    [release(3), "missing_previous_hash"], // an unauthorized substitution omits previous_hash
    [release(3, release(9).document), "fork"],
    [r1, "rollback"],
    [release(3, r2.document, "1.5.0"), "version_not_increasing"],
  ];
  for (const [r, reason] of cases) {
    const outcome = await store.checkAndAdvance("calc", "example.com", await verified(r));
    assert.equal(outcome.status, "rejected", reason);
    assert.equal(outcome.status === "rejected" && outcome.reason, reason);
  }
  assert.equal((await store.get("calc", "example.com"))?.latestHash, r2.document.schema_hash);
});

Deno.test("./pins misuse: INPUT_INVALID for a missing document, a bad domain, no hash", async () => {
  assert.throws(
    () => verifyChain(undefined as never, {} as never),
    invalid(/^verifyChain: current/),
  );
  assert.throws(
    () =>
      verifyChain({ schemapin_version: "1.4", previous_hash: "x" }, { schemapin_version: "1.4" }),
    invalid(/no schema_hash or skill_hash/),
  );
  const store = new LineageStore({ memory: true });
  const doc = release(1).document;
  await assert.rejects(
    store.checkAndAdvance("calc", "http://example.com", doc),
    invalid(/invalid domain/),
  );
  await assert.rejects(store.checkAndAdvance("", "example.com", doc), invalid(/tool id/i));
  assert.throws(() => new LineageStore(null as never), invalid(/^LineageStore: options/));
});
