// Verifying several bundles against one allow-list, then merging them (§21.4).
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import { signTrustBundle } from "../../lib/bundle/sign.ts";
import {
  type BundleAuthorityStore,
  MemoryBundleAuthorityStore,
  seedBundleAuthority,
} from "../../lib/bundle/authority.ts";
import { verifyAndMergeTrustBundles } from "../../cli/bundle/verify_merge.ts";
import { AUTH_1, AUTH_2, DEV_A, DEV_B, raw, unsignedBundle } from "./_helpers.ts";

const CREATED = "2026-06-01T00:00:00Z";

function signedBy(kid: "auth-1" | "auth-2", domain: string, signedAt: string) {
  const base = raw(unsignedBundle({ [domain]: kid === "auth-1" ? DEV_A : DEV_B }));
  return raw(signTrustBundle(base, kid === "auth-1" ? AUTH_1 : AUTH_2, kid, signedAt));
}

async function store(...kids: ("auth-1" | "auth-2")[]): Promise<BundleAuthorityStore> {
  const s = new MemoryBundleAuthorityStore();
  for (const kid of kids) {
    await seedBundleAuthority(s, kid, (kid === "auth-1" ? AUTH_1 : AUTH_2).publicKey.fingerprint);
  }
  return s;
}

Deno.test("verifyAndMergeTrustBundles: every input verified, one merged unsigned bundle", async () => {
  const { results, merged } = await verifyAndMergeTrustBundles(
    [
      { value: signedBy("auth-1", "a.example", "2026-05-10T00:00:00Z"), source: "a.json" },
      { value: signedBy("auth-2", "b.example", "2026-05-11T00:00:00Z"), source: "b.json" },
    ],
    await store("auth-1", "auth-2"),
    { createdAt: CREATED, precedence: ["auth-2"] },
  );
  assert.deepEqual(results.map((r) => r.valid), [true, true]);
  assert.ok(merged);
  assert.equal(merged.created_at, CREATED);
  assert.equal(merged.signature, undefined);
  assert.deepEqual(merged.documents.map((d) => d.domain), ["a.example", "b.example"]);
});

Deno.test("verifyAndMergeTrustBundles: the first failure stops, later inputs are not verified", async () => {
  const { results, merged } = await verifyAndMergeTrustBundles(
    [
      { value: signedBy("auth-2", "b.example", "2026-05-11T00:00:00Z"), source: "b.json" },
      { value: signedBy("auth-1", "a.example", "2026-05-10T00:00:00Z"), source: "a.json" },
    ],
    await store("auth-1"),
  );
  assert.equal(merged, undefined);
  assert.equal(results.length, 1);
  assert.equal(results[0].errorCode, "BUNDLE_AUTHORITY_UNTRUSTED");
  assert.match(results[0].errorMessage!, /b\.json/);
});

Deno.test("verifyAndMergeTrustBundles: an unsigned bundle is never merged", async () => {
  const { results, merged } = await verifyAndMergeTrustBundles(
    [{ value: raw(unsignedBundle({ "a.example": DEV_A })), source: "u.json" }],
    await store("auth-1"),
  );
  assert.equal(merged, undefined);
  assert.equal(results[0].errorCode, "BUNDLE_UNSIGNED");
});

Deno.test("verifyAndMergeTrustBundles: an unknown authority is accepted only on opt-in", async () => {
  const input = { value: signedBy("auth-2", "b.example", "2026-05-11T00:00:00Z"), source: "b" };
  const s = await store();
  const { results, merged } = await verifyAndMergeTrustBundles([input], s, {
    allowFirstUse: true,
  });
  assert.ok(merged);
  assert.equal(results[0].firstUse, true);
  assert.equal((await s.get("auth-2"))?.fingerprint, AUTH_2.publicKey.fingerprint);
});

Deno.test("verifyAndMergeTrustBundles: misuse and an empty list are INPUT_INVALID", async () => {
  const s = await store("auth-1");
  await assert.rejects(
    verifyAndMergeTrustBundles("a.json" as never, s),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  await assert.rejects(
    verifyAndMergeTrustBundles([], undefined as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  await assert.rejects(
    verifyAndMergeTrustBundles([], s),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  const input = { value: signedBy("auth-1", "a.example", "2026-05-10T00:00:00Z"), source: "a" };
  await assert.rejects(
    verifyAndMergeTrustBundles([input], s, { precedence: ["auth-1", "auth-1"] }),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});
