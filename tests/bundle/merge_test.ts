// Merging verified bundles: precedence, parsed timestamps, ties, determinism, verified only.
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import type { PrivateKey } from "../../lib/crypto/keys.ts";
import { type TrustBundle, trustBundleSigningInput } from "../../lib/bundle/bundle.ts";
import { signDocument } from "../../lib/crypto/ecdsa.ts";
import { signTrustBundle } from "../../lib/bundle/sign.ts";
import { MemoryBundleAuthorityStore, seedBundleAuthority } from "../../lib/bundle/authority.ts";
import { type VerifiedTrustBundle, verifyTrustBundle } from "../../lib/bundle/verify.ts";
import { mergeTrustBundles } from "../../lib/bundle/merge.ts";
import { AUTH_1, AUTH_2, DEV_A, DEV_B, raw, revocationDoc, unsignedBundle } from "./_helpers.ts";

const NOW = Date.UTC(2026, 5, 1);
const CREATED = "2026-06-01T00:00:00Z";

async function store(): Promise<MemoryBundleAuthorityStore> {
  const s = new MemoryBundleAuthorityStore();
  await seedBundleAuthority(s, "auth-1", AUTH_1.publicKey.fingerprint);
  await seedBundleAuthority(s, "auth-2", AUTH_2.publicKey.fingerprint);
  return s;
}

/** A verified bundle from `kid` holding `docs`, signed at `signedAt`. */
async function verified(
  kid: "auth-1" | "auth-2",
  docs: Record<string, PrivateKey>,
  signedAt: string,
  options: { createdAt?: string; revocations?: Record<string, unknown>[] } = {},
): Promise<VerifiedTrustBundle> {
  const base = raw(unsignedBundle(docs, options.createdAt ?? "2026-05-01T00:00:00Z"));
  if (options.revocations) base.revocations = options.revocations;
  const signed = raw(signTrustBundle(base, kid === "auth-1" ? AUTH_1 : AUTH_2, kid, signedAt));
  return await verifiedFrom(signed);
}

async function verifiedFrom(bundle: Record<string, unknown>): Promise<VerifiedTrustBundle> {
  const result = await verifyTrustBundle(bundle, await store(), { now: NOW });
  assert.equal(result.valid, true, result.errorMessage);
  return result.verified!;
}

/**
 * A bundle signed the way another SDK may sign it: `signed_at` absent or free text (§21.4
 * does not validate it). Built from the §21.3 signing input directly.
 */
async function foreign(
  kid: "auth-1" | "auth-2",
  dev: PrivateKey,
  createdAt: string,
  signedAt?: string,
): Promise<VerifiedTrustBundle> {
  const b: TrustBundle = unsignedBundle({ "example.com": dev }, createdAt);
  b.schemapin_bundle_version = "1.4";
  b.bundle_authority = { kid, public_key_pem: (kid === "auth-1" ? AUTH_1 : AUTH_2).publicKey.pem };
  if (signedAt !== undefined) b.signed_at = signedAt;
  b.signature = signDocument(trustBundleSigningInput(b), kid === "auth-1" ? AUTH_1 : AUTH_2);
  return await verifiedFrom(raw(b));
}

const keyOf = (b: TrustBundle, domain: string) =>
  b.documents.find((d) => d.domain === domain)?.public_key_pem;

Deno.test("merge: the newer signed_at wins when no precedence is given", async () => {
  const older = await verified("auth-1", { "example.com": DEV_A }, "2026-05-10T00:00:00Z");
  const newer = await verified("auth-2", { "example.com": DEV_B }, "2026-05-11T00:00:00Z");
  for (const order of [[older, newer], [newer, older]]) {
    const merged = mergeTrustBundles(order, [], { createdAt: CREATED });
    assert.equal(keyOf(merged, "example.com"), DEV_B.publicKey.pem);
  }
});

Deno.test("merge: timestamps are compared parsed, not as strings", async () => {
  // "2026-05-10T23:00:00-05:00" is 2026-05-11T04:00Z: newer, though smaller as a string.
  const offset = await verified("auth-1", { "example.com": DEV_A }, "2026-05-10T23:00:00-05:00");
  const utc = await verified("auth-2", { "example.com": DEV_B }, "2026-05-11T01:00:00Z");
  const merged = mergeTrustBundles([utc, offset], [], { createdAt: CREATED });
  assert.equal(keyOf(merged, "example.com"), DEV_A.publicKey.pem);
});

Deno.test("merge: authority precedence beats timestamps; unlisted kids rank last", async () => {
  const older = await verified("auth-1", { "example.com": DEV_A }, "2026-05-10T00:00:00Z");
  const newer = await verified("auth-2", { "example.com": DEV_B }, "2026-05-11T00:00:00Z");
  const pref1 = mergeTrustBundles([newer, older], ["auth-1"], { createdAt: CREATED });
  assert.equal(keyOf(pref1, "example.com"), DEV_A.publicKey.pem);
  const pref2 = mergeTrustBundles([newer, older], ["auth-2", "auth-1"], { createdAt: CREATED });
  assert.equal(keyOf(pref2, "example.com"), DEV_B.publicKey.pem);
  const unlisted = mergeTrustBundles([older, newer], ["someone-else"], { createdAt: CREATED });
  assert.equal(keyOf(unlisted, "example.com"), DEV_B.publicKey.pem, "falls back to time");
});

Deno.test("merge: equal timestamps go to the earlier bundle; revocations are chosen too", async () => {
  const a = await verified("auth-1", { "example.com": DEV_A }, "2026-05-10T00:00:00Z", {
    revocations: [revocationDoc("example.com", DEV_B.publicKey.fingerprint)],
  });
  const b = await verified("auth-2", { "example.com": DEV_B }, "2026-05-10T00:00:00.000Z", {
    revocations: [revocationDoc("example.com")],
  });
  const ab = mergeTrustBundles([a, b], [], { createdAt: CREATED });
  assert.equal(keyOf(ab, "example.com"), DEV_A.publicKey.pem);
  assert.equal(ab.revocations[0].revoked_keys.length, 1);
  const ba = mergeTrustBundles([b, a], [], { createdAt: CREATED });
  assert.equal(keyOf(ba, "example.com"), DEV_B.publicKey.pem);
  assert.equal(ba.revocations[0].revoked_keys.length, 0);
});

Deno.test("merge: created_at stands in for a missing signed_at; unparseable ranks oldest", async () => {
  const noStampOld = await foreign("auth-1", DEV_A, "2026-05-01T00:00:00Z");
  const noStampNew = await foreign("auth-2", DEV_B, "2026-05-02T00:00:00Z");
  for (const order of [[noStampOld, noStampNew], [noStampNew, noStampOld]]) {
    assert.equal(
      keyOf(mergeTrustBundles(order, [], { createdAt: CREATED }), "example.com"),
      DEV_B.publicKey.pem,
    );
  }
  // An unparseable signed_at ranks oldest, even listed first and "larger" as a string.
  const garbage = await foreign("auth-1", DEV_A, "2030-01-01T00:00:00Z", "zzzz-garbage");
  const dated = await foreign("auth-2", DEV_B, "2020-01-01T00:00:00Z", "2020-01-01T00:00:00Z");
  assert.equal(
    keyOf(mergeTrustBundles([garbage, dated], [], { createdAt: CREATED }), "example.com"),
    DEV_B.publicKey.pem,
  );
  // signed_at is preferred over created_at when both parse.
  const createdNewer = await foreign(
    "auth-1",
    DEV_A,
    "2027-01-01T00:00:00Z",
    "2026-01-01T00:00:00Z",
  );
  const signedNewer = await foreign(
    "auth-2",
    DEV_B,
    "2025-01-01T00:00:00Z",
    "2026-02-01T00:00:00Z",
  );
  assert.equal(
    keyOf(
      mergeTrustBundles([createdNewer, signedNewer], [], { createdAt: CREATED }),
      "example.com",
    ),
    DEV_B.publicKey.pem,
  );
  // Two unparseable stamps tie: the earlier bundle wins.
  const g2 = await foreign("auth-2", DEV_B, "nope", "also nope");
  const g1 = await foreign("auth-1", DEV_A, "nope", "nope");
  assert.equal(
    keyOf(mergeTrustBundles([g2, g1], [], { createdAt: CREATED }), "example.com"),
    DEV_B.publicKey.pem,
  );
});

Deno.test("merge: union of domains, sorted output, unsigned 1.2, re-signable", async () => {
  const a = await verified(
    "auth-1",
    { "zeta.example": DEV_A, "alpha.example": DEV_B },
    "2026-05-10T00:00:00Z",
  );
  const b = await verified("auth-2", { "mid.example": DEV_A }, "2026-05-11T00:00:00Z", {
    revocations: [revocationDoc("zeta.example"), revocationDoc("alpha.example")],
  });
  const merged = mergeTrustBundles([a, b], ["auth-2"], { createdAt: CREATED });
  assert.deepEqual(merged.documents.map((d) => d.domain), [
    "alpha.example",
    "mid.example",
    "zeta.example",
  ]);
  assert.deepEqual(merged.revocations.map((r) => r.domain), ["alpha.example", "zeta.example"]);
  assert.equal(merged.schemapin_bundle_version, "1.2");
  assert.equal(merged.created_at, CREATED);
  for (const f of ["bundle_authority", "signed_at", "expires_at", "signature"]) {
    assert.equal(Object.hasOwn(merged, f), false, f);
  }
  // Same inputs, same bytes; and the merged bundle can be re-signed and verified.
  assert.equal(
    JSON.stringify(mergeTrustBundles([a, b], ["auth-2"], { createdAt: CREATED })),
    JSON.stringify(merged),
  );
  const resigned = raw(signTrustBundle(merged, AUTH_1, "auth-1", "2026-05-30T00:00:00Z"));
  assert.equal((await verifyTrustBundle(resigned, await store(), { now: NOW })).valid, true);
  // The merged output does not alias the (frozen) verified inputs.
  merged.documents[0].contact = "changed@example.com";
  assert.equal(a.bundle.documents.some((d) => d.contact !== undefined), false);
});

Deno.test("merge accepts only verified bundles", async () => {
  const v = await verified("auth-1", { "example.com": DEV_A }, "2026-05-10T00:00:00Z");
  const notVerified = (e: unknown) =>
    isSchemaPinError(e, "INPUT_INVALID") && /not a verified bundle/.test((e as Error).message);
  assert.throws(() => mergeTrustBundles([{ ...v } as VerifiedTrustBundle]), notVerified);
  assert.throws(() => mergeTrustBundles([v, v.bundle as never]), notVerified);
  assert.throws(
    () => mergeTrustBundles([raw(unsignedBundle({ "example.com": DEV_B })) as never]),
    notVerified,
  );
  const result = await verifyTrustBundle(
    raw(
      signTrustBundle(
        unsignedBundle({ "example.com": DEV_A }),
        AUTH_1,
        "auth-1",
        "2026-05-10T00:00:00Z",
      ),
    ),
    await store(),
    { now: NOW },
  );
  assert.throws(() => mergeTrustBundles([result as never]), notVerified);
  assert.throws(
    () => mergeTrustBundles([]),
    (e) => isSchemaPinError(e, "INPUT_INVALID") && /no bundles/.test((e as Error).message),
  );
});

Deno.test("merge rejects a malformed or repeated precedence list", async () => {
  const v = await verified("auth-1", { "example.com": DEV_A }, "2026-05-10T00:00:00Z");
  const input = (e: unknown) => isSchemaPinError(e, "INPUT_INVALID");
  assert.throws(() => mergeTrustBundles([v], ["auth-1", "auth-1"]), input);
  assert.throws(() => mergeTrustBundles([v], [""]), input);
  assert.throws(() => mergeTrustBundles([v], [" auth-1"]), input);
  assert.equal(mergeTrustBundles([v], ["auth-1"]).documents.length, 1);
});
