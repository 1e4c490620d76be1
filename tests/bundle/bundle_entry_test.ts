// The §21.4 operations on the ./bundle entry point (issue 36): an authority signs a bundle
// (signTrustBundle), an agent asks a peer for its bundle over the `schemapin/trustBundle`
// JSON-RPC envelope (buildTrustBundleRequest → buildTrustBundleResponse →
// parseTrustBundleResponse), verifies what came back, and merges verified bundles to re-sign
// (mergeTrustBundles) — through the entry points only, and what each refuses. The functions
// themselves are tested in jsonrpc_test.ts, merge_test.ts and verify_test.ts.
import assert from "node:assert/strict";
import {
  buildTrustBundleRequest,
  buildTrustBundleResponse,
  MemoryBundleAuthorityStore,
  mergeTrustBundles,
  parseTrustBundleResponse,
  seedBundleAuthority,
  signTrustBundle,
  TRUST_BUNDLE_METHOD,
  type TrustBundle,
  verifyTrustBundle,
} from "../../bundle.ts";
import { buildDiscoveryDocument } from "../../discovery.ts";
import { generateKeyPair, privateKeyToPem } from "../../keys.ts";
import { SchemaPinError } from "../../mod.ts";

const AUTHORITY = generateKeyPair();
const PARTNER = generateKeyPair();
const DEV_A = generateKeyPair();
const DEV_B = generateKeyPair();

function bundleOf(
  entries: [string, typeof DEV_A][],
  createdAt = "2026-05-01T00:00:00Z",
): TrustBundle {
  return {
    schemapin_bundle_version: "1.2",
    created_at: createdAt,
    documents: entries.map(([domain, key]) => ({
      domain,
      revoked_keys: [],
      ...buildDiscoveryDocument({ publicKey: key.publicKey, developerName: domain }),
    })),
    revocations: [],
  };
}

async function authorities(): Promise<MemoryBundleAuthorityStore> {
  const store = new MemoryBundleAuthorityStore();
  await seedBundleAuthority(store, "authority-2026", AUTHORITY.publicKey.fingerprint);
  await seedBundleAuthority(store, "partner-2026", PARTNER.publicKey.fingerprint);
  return store;
}

function isError(code: string, pattern: RegExp) {
  return (e: unknown) => e instanceof SchemaPinError && e.code === code && pattern.test(e.message);
}

// Positive

Deno.test("signTrustBundle: a bundle signed with a key or its PEM verifies against the allow-list", async () => {
  const store = await authorities();
  for (const key of [AUTHORITY, privateKeyToPem(AUTHORITY)]) {
    const signed = signTrustBundle(
      bundleOf([["example.com", DEV_A]]),
      key,
      "authority-2026",
      "2026-05-15T00:00:00Z",
      "2099-01-01T00:00:00Z",
    );
    assert.equal(signed.schemapin_bundle_version, "1.4");
    assert.deepEqual(signed.bundle_authority, {
      kid: "authority-2026",
      public_key_pem: AUTHORITY.publicKey.pem,
    });
    const verification = await verifyTrustBundle(signed, store);
    assert.equal(verification.valid, true, verification.errorMessage);
    assert.equal(verification.verified?.kid, "authority-2026");
  }
});

Deno.test("the schemapin/trustBundle envelope: ask, answer, read; the bundle arrives verifiable", async () => {
  const held = signTrustBundle(
    bundleOf([["example.com", DEV_A]]),
    AUTHORITY,
    "authority-2026",
    "2026-05-15T00:00:00Z",
  );
  // The asking agent.
  const request = buildTrustBundleRequest("req-1", { domains: ["Example.com"] });
  const wire = JSON.stringify(request);
  // The responding agent (its transport and dispatch are the host's).
  const incoming = JSON.parse(wire);
  assert.equal(incoming.method, TRUST_BUNDLE_METHOD);
  assert.deepEqual(incoming.params, { domains: ["example.com"] });
  const reply = JSON.stringify(buildTrustBundleResponse(incoming.id, held));
  // The asking agent again: text or bytes.
  for (const answer of [reply, new TextEncoder().encode(reply)]) {
    const bundle = parseTrustBundleResponse(answer, request.id);
    assert.deepEqual(bundle, held);
    const verification = await verifyTrustBundle(bundle, await authorities());
    assert.equal(verification.valid, true, verification.errorMessage);
  }
});

Deno.test("mergeTrustBundles: verified bundles merged by precedence, re-signed, verifiable", async () => {
  const store = await authorities();
  const ours = signTrustBundle(
    bundleOf([["example.com", DEV_A]]),
    AUTHORITY,
    "authority-2026",
    "2026-05-01T00:00:00Z",
  );
  const theirs = signTrustBundle(
    bundleOf([["example.com", DEV_B], ["partner.example", DEV_B]]),
    PARTNER,
    "partner-2026",
    "2026-06-01T00:00:00Z", // newer, but ranked below ours
  );
  const a = await verifyTrustBundle(ours, store);
  const b = await verifyTrustBundle(theirs, store);
  assert.ok(a.verified && b.verified);
  const merged = mergeTrustBundles([a.verified, b.verified], ["authority-2026"], {
    createdAt: "2026-07-01T00:00:00Z",
  });
  assert.equal(merged.schemapin_bundle_version, "1.2");
  assert.equal(merged.created_at, "2026-07-01T00:00:00Z");
  assert.deepEqual(merged.documents.map((d) => [d.domain, d.public_key_pem]), [
    ["example.com", DEV_A.publicKey.pem],
    ["partner.example", DEV_B.publicKey.pem],
  ]);
  const newest = mergeTrustBundles([a.verified, b.verified]);
  assert.equal(
    newest.documents[0].public_key_pem,
    DEV_B.publicKey.pem,
    "newer wins without precedence",
  );
  const resigned = signTrustBundle(merged, AUTHORITY, "authority-2026", "2026-07-01T00:00:00Z");
  assert.equal((await verifyTrustBundle(resigned, store)).valid, true);
});

// Negative

Deno.test("parseTrustBundleResponse: another id, an error answer, a malformed answer are refused", () => {
  const held = signTrustBundle(bundleOf([]), AUTHORITY, "authority-2026", new Date());
  const reply = buildTrustBundleResponse(7, held);
  assert.throws(
    () => parseTrustBundleResponse(reply, "7"),
    isError("DISCOVERY_INVALID", /does not match/),
  );
  assert.throws(
    () =>
      parseTrustBundleResponse(
        { jsonrpc: "2.0", id: 7, error: { code: -32601, message: "no bundle here" } },
        7,
      ),
    (e: unknown) =>
      isError("DISCOVERY_FETCH_FAILED", /no bundle here/)(e) &&
      (e as SchemaPinError).details.rpcCode === -32601,
  );
  assert.throws(
    () => parseTrustBundleResponse('{"jsonrpc":"2.0","id":7}', 7),
    isError("DISCOVERY_INVALID", /neither/),
  );
  assert.throws(
    () => parseTrustBundleResponse('{"id":7,"id":8}', 7),
    isError("JSON_INVALID", /.*/),
  );
  assert.throws(
    () => parseTrustBundleResponse({ ...reply, extra: true }, 7),
    isError("DISCOVERY_INVALID", /unexpected members: extra/),
  );
});

Deno.test("a bundle changed on the way still parses, and then fails verification", async () => {
  const held = signTrustBundle(
    bundleOf([["example.com", DEV_A]]),
    AUTHORITY,
    "authority-2026",
    new Date(),
  );
  const reply = buildTrustBundleResponse(1, held);
  (reply.result.bundle.documents as { public_key_pem: string }[])[0].public_key_pem =
    DEV_B.publicKey.pem;
  const bundle = parseTrustBundleResponse(JSON.stringify(reply), 1);
  const verification = await verifyTrustBundle(bundle, await authorities());
  assert.equal(verification.valid, false);
  assert.equal(verification.errorCode, "SIGNATURE_INVALID");
});

Deno.test("the envelope builders refuse bad ids, domains and bundles", () => {
  assert.throws(() => buildTrustBundleRequest(1.5), isError("INPUT_INVALID", /request id/));
  assert.throws(
    () => buildTrustBundleRequest(1, { domains: ["http://example.com"] }),
    isError("INPUT_INVALID", /domains\[0\]/),
  );
  const duplicate = bundleOf([["example.com", DEV_A], ["EXAMPLE.com", DEV_B]]);
  assert.throws(
    () => buildTrustBundleResponse(1, duplicate),
    isError("DISCOVERY_INVALID", /example\.com/i),
  );
  assert.throws(
    () => buildTrustBundleResponse(null as never, bundleOf([])),
    isError("INPUT_INVALID", /response id/),
  );
});

Deno.test("signTrustBundle refuses expiry before signing, a bad kid, a bad key", () => {
  const bundle = bundleOf([]);
  assert.throws(
    () =>
      signTrustBundle(
        bundle,
        AUTHORITY,
        "authority-2026",
        "2026-05-15T00:00:00Z",
        "2026-05-14T00:00:00Z",
      ),
    isError("INPUT_INVALID", /not later than signed_at/),
  );
  assert.throws(
    () => signTrustBundle(bundle, AUTHORITY, "authority-2026", "15 May 2026"),
    isError("INPUT_INVALID", /strict RFC 3339/),
  );
  assert.throws(
    () => signTrustBundle(bundle, AUTHORITY, "", new Date()),
    isError("INPUT_INVALID", /kid/),
  );
  assert.throws(
    () => signTrustBundle(bundle, "not a pem", "authority-2026", new Date()),
    (e: unknown) => e instanceof SchemaPinError && e.code === "KEY_INVALID",
  );
});

Deno.test("mergeTrustBundles refuses unverified bundles and a bad precedence; its result is unsigned", async () => {
  const signed = signTrustBundle(bundleOf([]), AUTHORITY, "authority-2026", new Date());
  assert.throws(
    () => mergeTrustBundles([signed as never]),
    isError("INPUT_INVALID", /not a verified bundle/),
  );
  assert.throws(() => mergeTrustBundles([]), isError("INPUT_INVALID", /no bundles/));
  const verified = (await verifyTrustBundle(signed, await authorities())).verified!;
  assert.throws(
    () => mergeTrustBundles([verified], ["authority-2026", "authority-2026"]),
    isError("INPUT_INVALID", /twice/),
  );
  const merged = mergeTrustBundles([verified]);
  const again = await verifyTrustBundle(merged, await authorities());
  assert.equal(again.errorCode, "BUNDLE_UNSIGNED", "re-sign before redistribution (§21.4)");
});
