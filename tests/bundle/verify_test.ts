// Signed bundles (§21): the reference fixture, tampering, re-signing, each §21.4 step.
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import type { PrivateKey } from "../../lib/crypto/keys.ts";
import {
  parseTrustBundle,
  type TrustBundle,
  trustBundleSigningInput,
} from "../../lib/bundle/bundle.ts";
import { signTrustBundle } from "../../lib/bundle/sign.ts";
import {
  MemoryBundleAuthorityStore,
  seedBundleAuthority,
  seedBundleAuthorityFromPem,
} from "../../lib/bundle/authority.ts";
import { VerifiedTrustBundle, verifyTrustBundle } from "../../lib/bundle/verify.ts";
import { loadTrustBundle, TrustBundleResolver } from "../../lib/bundle/resolver.ts";
import {
  AUTH_1,
  AUTH_2,
  clone,
  DEV_A,
  DEV_B,
  raw,
  REFERENCE_KID,
  referenceBundle,
  referencePrivatePem,
  referencePublicPem,
  revocationDoc,
  unsignedBundle,
} from "./_helpers.ts";

const NOW = Date.UTC(2026, 5, 1); // 2026-06-01, after the fixture's signed_at

async function referenceStore(): Promise<MemoryBundleAuthorityStore> {
  const store = new MemoryBundleAuthorityStore();
  await seedBundleAuthorityFromPem(store, REFERENCE_KID, referencePublicPem());
  return store;
}

function signed(
  docs: Record<string, PrivateKey> = { "example.com": DEV_A },
  kid = "auth-1",
  key = AUTH_1,
  signedAt = "2026-05-20T00:00:00Z",
  expiresAt: string | undefined = "2027-01-01T00:00:00Z",
): Record<string, unknown> {
  return raw(signTrustBundle(unsignedBundle(docs), key, kid, signedAt, expiresAt));
}

async function storeWith(kid = "auth-1", key = AUTH_1): Promise<MemoryBundleAuthorityStore> {
  const store = new MemoryBundleAuthorityStore();
  await seedBundleAuthority(store, kid, key.publicKey.fingerprint);
  return store;
}

Deno.test("the reference signed bundle verifies with its seeded authority", async () => {
  const store = await referenceStore();
  const result = await verifyTrustBundle(referenceBundle(), store, { now: NOW });
  assert.equal(result.valid, true, result.errorMessage);
  assert.equal(result.kid, REFERENCE_KID);
  assert.equal(
    result.fingerprint,
    "sha256:8120d9001e5cb51e54e2910c0e5fe97bf1ed4e699587f5af94e285a9bbafa07d",
  );
  assert.equal(result.firstUse, false);
  assert.deepEqual(result.warnings, []);
  assert.equal(result.verified?.bundle.documents[0].domain, "example.com");
  const records = await store.list();
  assert.equal(records.length, 1);
  assert.equal(records[0].source, "seeded");
});

Deno.test("changing any signed field of the reference bundle fails the signature", async () => {
  const store = await referenceStore();
  const changes: [string, (b: Record<string, unknown>) => void][] = [
    ["document key", (b) => {
      (b.documents as Record<string, unknown>[])[0].public_key_pem = DEV_A.publicKey.pem;
    }],
    ["expires_at", (b) => (b.expires_at = "2098-01-01T00:00:00Z")],
    ["signed_at", (b) => (b.signed_at = "2026-05-14T00:00:00Z")],
    ["created_at", (b) => (b.created_at = "2026-05-16T00:00:00Z")],
    ["version", (b) => (b.schemapin_bundle_version = "1.3")],
    ["developer_name", (b) => {
      (b.documents as Record<string, unknown>[])[0].developer_name = "Evil Corp";
    }],
    ["contact removed", (b) => delete (b.documents as Record<string, unknown>[])[0].contact],
    ["revoked key added", (b) => {
      (b.documents as Record<string, unknown>[])[0].revoked_keys = [DEV_B.publicKey.fingerprint];
    }],
    ["revocation added", (b) => (b.revocations = [revocationDoc("example.com")])],
    ["expires_at removed", (b) => delete b.expires_at],
  ];
  for (const [name, change] of changes) {
    const b = referenceBundle();
    change(b);
    const result = await verifyTrustBundle(b, store, { now: NOW });
    assert.equal(result.errorCode, "SIGNATURE_INVALID", name);
    assert.equal(result.failedStep, 5, name);
    assert.equal(result.verified, undefined, name);
  }
  // The kid is signed too: the same key under another (seeded) kid does not verify.
  const b = referenceBundle();
  (b.bundle_authority as Record<string, unknown>).kid = "renamed-authority";
  await seedBundleAuthorityFromPem(store, "renamed-authority", referencePublicPem());
  const renamed = await verifyTrustBundle(b, store, { now: NOW });
  assert.equal(renamed.errorCode, "SIGNATURE_INVALID");
});

Deno.test("adding unknown fields does not break the reference signature, and is reported", async () => {
  const store = await referenceStore();
  const b = referenceBundle();
  b.x_note = "unsigned";
  (b.documents as Record<string, unknown>[])[0].x_doc = 1;
  (b.bundle_authority as Record<string, unknown>).x_auth = true;
  const result = await verifyTrustBundle(b, store, { now: NOW });
  assert.equal(result.valid, true, result.errorMessage);
  assert.deepEqual(result.warnings, ["unprotected_fields"]);
  assert.deepEqual(result.unprotectedFields, [
    "x_note",
    "bundle_authority.x_auth",
    "documents[0].x_doc",
  ]);
  assert.equal(
    Object.hasOwn(result.verified!.bundle.documents[0], "x_doc"),
    false,
    "unsigned fields never reach the verified bundle",
  );
});

Deno.test("re-signing the reference inputs gives byte-identical signing input", async () => {
  const ref = referenceBundle();
  const inputs = {
    schemapin_bundle_version: "1.2",
    created_at: ref.created_at,
    documents: clone(ref.documents),
  };
  const ours = signTrustBundle(
    inputs,
    referencePrivatePem(),
    REFERENCE_KID,
    "2026-05-15T00:00:00Z",
    "2099-01-01T00:00:00Z",
  );
  const refInput = trustBundleSigningInput(parseTrustBundle(ref));
  assert.deepEqual(trustBundleSigningInput(ours), refInput);
  // The bytes themselves (§21.3), so that a change to both sides cannot go unnoticed.
  const pem = (ref.bundle_authority as Record<string, string>).public_key_pem;
  const expected =
    '{"bundle_authority":{"kid":"schemapin-bundle-authority-2026","public_key_pem":' +
    JSON.stringify(pem) + '},"created_at":"2026-05-15T00:00:00Z","documents":[{"contact":' +
    '"security@example.com","developer_name":"Example Corp","domain":"example.com",' +
    '"public_key_pem":"-----BEGIN PUBLIC KEY-----\\nMOCK\\n-----END PUBLIC KEY-----",' +
    '"revoked_keys":[],"schema_version":"1.4"}],"expires_at":"2099-01-01T00:00:00Z",' +
    '"revocations":[],"schemapin_bundle_version":"1.4","signature":"","signed_at":' +
    '"2026-05-15T00:00:00Z"}';
  assert.equal(new TextDecoder().decode(trustBundleSigningInput(ours)), expected);
  assert.equal(ours.schemapin_bundle_version, "1.4");
  assert.equal(
    ours.bundle_authority?.public_key_pem,
    (ref.bundle_authority as Record<string, unknown>).public_key_pem,
  );
  const result = await verifyTrustBundle(raw(ours), await referenceStore(), { now: NOW });
  assert.equal(result.valid, true, result.errorMessage);
  // A different signed_at gives different bytes (the comparison above is not vacuous).
  const other = signTrustBundle(
    inputs,
    referencePrivatePem(),
    REFERENCE_KID,
    "2026-05-16T00:00:00Z",
  );
  assert.notDeepEqual(trustBundleSigningInput(other), refInput);
});

Deno.test("signTrustBundle drops unknown fields, replaces old signatures, validates inputs", () => {
  const base = raw(unsignedBundle({ "example.com": DEV_A }));
  base.x_top = 1;
  const s1 = signTrustBundle(base, AUTH_1, "auth-1", "2026-05-20T00:00:00Z");
  assert.equal(Object.hasOwn(s1, "x_top"), false);
  assert.equal(s1.expires_at, undefined);
  assert.equal(s1.bundle_authority?.public_key_pem, AUTH_1.publicKey.pem);
  const s2 = signTrustBundle(s1, AUTH_2, "auth-2", "2026-05-21T00:00:00Z");
  assert.equal(s2.bundle_authority?.kid, "auth-2");
  assert.notEqual(s2.signature, s1.signature);
  assert.equal(base.signature, undefined, "the input is not modified");
  const bad = (e: unknown) => isSchemaPinError(e, "INPUT_INVALID");
  assert.throws(() => signTrustBundle(base, AUTH_1, "", "2026-05-20T00:00:00Z"), bad);
  assert.throws(() => signTrustBundle(base, AUTH_1, "k", "2026-05-20"), bad);
  assert.throws(
    () => signTrustBundle(base, AUTH_1, "k", "2026-05-20T00:00:00Z", "2026-05-19T00:00:00Z"),
    (e) => isSchemaPinError(e, "INPUT_INVALID") && /not later than signed_at/.test(e.message),
  );
  assert.throws(
    () => signTrustBundle(base, AUTH_1.publicKey.pem, "k", "2026-05-20T00:00:00Z"),
    (e) => isSchemaPinError(e, "KEY_INVALID"),
  );
  const dup = raw(unsignedBundle({ "example.com": DEV_A }));
  (dup.documents as unknown[]).push((dup.documents as unknown[])[0]);
  assert.throws(
    () => signTrustBundle(dup, AUTH_1, "k", "2026-05-20T00:00:00Z"),
    (e) => isSchemaPinError(e, "DISCOVERY_INVALID"),
  );
});

Deno.test("step 1: a bundle without authority or signature is BUNDLE_UNSIGNED", async () => {
  const store = await storeWith();
  const cases: [string, Record<string, unknown>][] = [
    ["unsigned", raw(unsignedBundle({ "example.com": DEV_A }))],
    [
      "no signature",
      (() => {
        const b = signed();
        delete b.signature;
        return b;
      })(),
    ],
    ["empty signature", { ...signed(), signature: "" }],
    ["null signature", { ...signed(), signature: null }],
    [
      "no authority",
      (() => {
        const b = signed();
        delete b.bundle_authority;
        return b;
      })(),
    ],
    // Step 1 comes before step 2: a duplicate-domain unsigned bundle is still "unsigned".
    [
      "unsigned with duplicates",
      (() => {
        const b = raw(unsignedBundle({ "example.com": DEV_A }));
        (b.documents as unknown[]).push((b.documents as unknown[])[0]);
        return b;
      })(),
    ],
  ];
  for (const [name, b] of cases) {
    const result = await verifyTrustBundle(b, store, { now: NOW });
    assert.equal(result.errorCode, "BUNDLE_UNSIGNED", name);
    assert.equal(result.failedStep, 1, name);
  }
});

Deno.test("step 2: duplicate domains and malformed signed bundles are DISCOVERY_INVALID", async () => {
  const store = await storeWith();
  // Duplicates are rejected before expiry (step 3) and before the allow-list (step 4).
  const dup = signed(
    { "example.com": DEV_A },
    "unknown-kid",
    AUTH_2,
    "2020-01-01T00:00:00Z",
    "2020-02-01T00:00:00Z",
  );
  (dup.documents as Record<string, unknown>[]).push({
    ...(dup.documents as Record<string, unknown>[])[0],
    domain: "Example.COM",
  });
  const d = await verifyTrustBundle(dup, store, { now: NOW, source: "dup.json" });
  assert.equal(d.errorCode, "DISCOVERY_INVALID");
  assert.equal(d.failedStep, 2);
  assert.match(d.errorMessage!, /dup\.json: documents\[1\]\.domain/);
  const dupRev = signed();
  dupRev.revocations = [revocationDoc("example.com"), revocationDoc("example.com")];
  assert.equal(
    (await verifyTrustBundle(dupRev, store, { now: NOW })).errorCode,
    "DISCOVERY_INVALID",
  );
  const badKey = signed();
  (badKey.bundle_authority as Record<string, unknown>).public_key_pem = DEV_A.publicKey.pem.replace(
    "A",
    "B",
  );
  const k = await verifyTrustBundle(badKey, store, { now: NOW });
  assert.equal(k.errorCode, "DISCOVERY_INVALID");
  assert.match(k.errorMessage!, /bundle_authority\.public_key_pem/);
  const notObject = await verifyTrustBundle("bundle", store, { now: NOW });
  assert.equal(notObject.errorCode, "DISCOVERY_INVALID");
  const docs = signed();
  docs.documents = {};
  assert.equal((await verifyTrustBundle(docs, store, { now: NOW })).errorCode, "DISCOVERY_INVALID");
});

Deno.test("step 3: expired or non-RFC-3339 expires_at is BUNDLE_EXPIRED, before the allow-list", async () => {
  const store = await storeWith();
  const b = signed(undefined, undefined, undefined, "2026-05-20T00:00:00Z", "2026-05-25T00:00:00Z");
  const after = Date.UTC(2026, 4, 25, 0, 6); // 6 minutes past expiry
  const expired = await verifyTrustBundle(b, store, { now: after });
  assert.equal(expired.errorCode, "BUNDLE_EXPIRED");
  assert.equal(expired.failedStep, 3);
  assert.equal(expired.expiresAt, "2026-05-25T00:00:00Z");
  // Within the 300 s skew allowance it still verifies.
  const skew = await verifyTrustBundle(b, store, { now: Date.UTC(2026, 4, 25, 0, 4) });
  assert.equal(skew.valid, true, skew.errorMessage);
  // Expiry is checked before the authority: an untrusted, expired bundle reports expiry.
  const untrusted = await verifyTrustBundle(b, new MemoryBundleAuthorityStore(), { now: after });
  assert.equal(untrusted.errorCode, "BUNDLE_EXPIRED");
  for (
    const value of [
      "2099-01-01",
      "2099-01-01 00:00:00Z",
      "2099-01-01T00:00:00",
      "soon",
      4102444800,
      true,
    ]
  ) {
    const m = signed();
    m.expires_at = value;
    const r = await verifyTrustBundle(m, store, { now: NOW });
    assert.equal(r.errorCode, "BUNDLE_EXPIRED", JSON.stringify(value));
    assert.match(r.errorMessage!, /not a strict RFC 3339/);
  }
});

Deno.test("step 4: unknown authority is BUNDLE_AUTHORITY_UNTRUSTED, another key KEY_PIN_MISMATCH", async () => {
  const empty = new MemoryBundleAuthorityStore();
  const untrusted = await verifyTrustBundle(signed(), empty, { now: NOW });
  assert.equal(untrusted.errorCode, "BUNDLE_AUTHORITY_UNTRUSTED");
  assert.equal(untrusted.failedStep, 4);
  assert.equal(untrusted.fingerprint, AUTH_1.publicKey.fingerprint);
  assert.deepEqual(await empty.list(), [], "first use without opt-in writes nothing");
  // An attacker signs with its own key under a seeded kid.
  const store = await storeWith("auth-1", AUTH_1);
  const forged = signed(undefined, "auth-1", AUTH_2);
  const mismatch = await verifyTrustBundle(forged, store, { now: NOW });
  assert.equal(mismatch.errorCode, "KEY_PIN_MISMATCH");
  assert.equal(mismatch.expectedFingerprint, AUTH_1.publicKey.fingerprint);
  assert.equal(mismatch.fingerprint, AUTH_2.publicKey.fingerprint);
  // Step 4 comes before the signature: a broken signature under an unknown kid is "untrusted".
  const broken = signed();
  broken.signature = "MEUCIQ" + "A".repeat(90);
  assert.equal(
    (await verifyTrustBundle(broken, empty, { now: NOW })).errorCode,
    "BUNDLE_AUTHORITY_UNTRUSTED",
  );
  const brokenForged = { ...forged, signature: broken.signature as string };
  assert.equal(
    (await verifyTrustBundle(brokenForged, store, { now: NOW })).errorCode,
    "KEY_PIN_MISMATCH",
  );
});

Deno.test("step 5: a bad signature from a trusted authority is SIGNATURE_INVALID", async () => {
  const store = await storeWith();
  const a = signed({ "example.com": DEV_A });
  const b = signed({ "example.com": DEV_B });
  const swapped = { ...a, signature: b.signature };
  const r = await verifyTrustBundle(swapped, store, { now: NOW });
  assert.equal(r.errorCode, "SIGNATURE_INVALID");
  assert.equal(r.failedStep, 5);
  for (const sig of ["not base64!", "AAAA", "MEUC"]) {
    const x = await verifyTrustBundle({ ...a, signature: sig }, store, { now: NOW });
    assert.equal(x.errorCode, "SIGNATURE_INVALID", sig);
  }
  assert.equal((await verifyTrustBundle(a, store, { now: NOW })).valid, true);
});

Deno.test("step 6: first use needs the opt-in and pins only after the signature verified", async () => {
  const store = new MemoryBundleAuthorityStore();
  // A self-signed bundle under a fresh kid (the §21.1 attack) is refused by default.
  const fresh = signed(undefined, "fresh-kid", AUTH_2);
  assert.equal(
    (await verifyTrustBundle(fresh, store, { now: NOW })).errorCode,
    "BUNDLE_AUTHORITY_UNTRUSTED",
  );
  // Opted in, but the signature is bad: no pin.
  const bad = { ...fresh, signature: signed(undefined, "fresh-kid", AUTH_1).signature };
  const r1 = await verifyTrustBundle(bad, store, { now: NOW, allowFirstUse: true });
  assert.equal(r1.errorCode, "SIGNATURE_INVALID");
  assert.deepEqual(await store.list(), [], "a failed verification never leaves a pin");
  // Opted in, good signature: pinned, reported as first use.
  const r2 = await verifyTrustBundle(fresh, store, { now: NOW, allowFirstUse: true });
  assert.equal(r2.valid, true, r2.errorMessage);
  assert.equal(r2.firstUse, true);
  assert.deepEqual(r2.warnings, ["bundle_authority_first_use"]);
  const [rec] = await store.list();
  assert.deepEqual(rec, {
    kid: "fresh-kid",
    fingerprint: AUTH_2.publicKey.fingerprint,
    pinnedAt: "2026-06-01T00:00:00Z",
    source: "first_use",
  });
  // Later: the pin holds without the opt-in, and a different key for the kid is refused.
  const r3 = await verifyTrustBundle(fresh, store, { now: NOW });
  assert.equal(r3.valid, true);
  assert.equal(r3.firstUse, false);
  const other = signed(undefined, "fresh-kid", AUTH_1);
  const r4 = await verifyTrustBundle(other, store, { now: NOW, allowFirstUse: true });
  assert.equal(r4.errorCode, "KEY_PIN_MISMATCH");
});

Deno.test("VerifiedTrustBundle: only verification makes one, and it is frozen", async () => {
  const result = await verifyTrustBundle(signed(), await storeWith(), { now: NOW });
  const v = result.verified!;
  assert.ok(VerifiedTrustBundle.is(v));
  assert.equal(VerifiedTrustBundle.is({ ...v }), false, "a copy is not verified");
  assert.equal(v.kid, "auth-1");
  assert.throws(() => {
    (v.bundle.documents as TrustBundle["documents"]).push(v.bundle.documents[0]);
  }, TypeError);
  assert.throws(() => {
    (v.bundle.documents[0] as { public_key_pem: string }).public_key_pem = "x";
  }, TypeError);
  assert.throws(
    () => new VerifiedTrustBundle(Symbol("VerifiedTrustBundle"), v.bundle as TrustBundle, "k", "f"),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});

Deno.test("verifyTrustBundle throws only on misuse", async () => {
  await assert.rejects(
    () => verifyTrustBundle(signed(), undefined as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});

Deno.test("loadTrustBundle: unsigned as is, signed only verified, no downgrade when required", async () => {
  const store = await storeWith();
  const unsigned = raw(unsignedBundle({ "example.com": DEV_A }));
  const u = await loadTrustBundle(unsigned, store);
  assert.equal(u.signed, false);
  assert.equal(u.bundle.documents.length, 1);
  await assert.rejects(
    () => loadTrustBundle(unsigned, store, { requireSigned: true }),
    (e) => isSchemaPinError(e, "BUNDLE_UNSIGNED"),
  );
  const s = await loadTrustBundle(signed(), store, { now: NOW });
  assert.equal(s.signed, true);
  assert.equal(s.verification?.kid, "auth-1");
  await assert.rejects(
    () => loadTrustBundle(signed(undefined, "auth-2", AUTH_2), store, { now: NOW }),
    (e) =>
      isSchemaPinError(e, "BUNDLE_AUTHORITY_UNTRUSTED") &&
      (e.details.verification as { failedStep: number }).failedStep === 4,
  );
  // Half-signed (a signature but no authority) is not mistaken for unsigned.
  const half = raw(unsignedBundle({ "example.com": DEV_A }));
  half.signature = "MEUC";
  await assert.rejects(
    () => loadTrustBundle(half, store),
    (e) => isSchemaPinError(e, "BUNDLE_UNSIGNED"),
  );
});

Deno.test("TrustBundleResolver resolves from verified or unsigned bundles only", async () => {
  const store = await storeWith();
  const bundle = signed({ "example.com": DEV_A, "other.example": DEV_B });
  bundle.revocations = [revocationDoc("other.example", DEV_A.publicKey.fingerprint)];
  const resigned = raw(signTrustBundle(bundle, AUTH_1, "auth-1", "2026-05-20T00:00:00Z"));
  const result = await verifyTrustBundle(resigned, store, { now: NOW });
  const resolver = TrustBundleResolver.fromVerified(result.verified!);
  assert.equal(
    (await resolver.resolveDiscovery("Example.com"))?.public_key_pem,
    DEV_A.publicKey.pem,
  );
  assert.equal(await resolver.resolveRevocation("example.com"), undefined);
  assert.equal((await resolver.resolveRevocation("other.example"))?.revoked_keys.length, 1);
  assert.equal(await resolver.resolveDiscovery("missing.example"), undefined);
  assert.throws(
    () => TrustBundleResolver.fromUnsigned(resigned, "b.json"),
    (e) => isSchemaPinError(e, "BUNDLE_AUTHORITY_UNTRUSTED"),
  );
  assert.throws(
    () => TrustBundleResolver.fromVerified(result as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  const plain = TrustBundleResolver.fromUnsigned(raw(unsignedBundle({ "example.com": DEV_B })));
  assert.equal((await plain.resolveDiscovery("example.com"))?.public_key_pem, DEV_B.publicKey.pem);
  await assert.rejects(
    () => plain.resolveDiscovery("not a domain"),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});
