// The --json fields of the bundle commands, built beside the bundle operations.
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import { createTrustBundle, type TrustBundle } from "../../lib/bundle/bundle.ts";
import { signTrustBundle } from "../../lib/bundle/sign.ts";
import { MemoryBundleAuthorityStore, seedBundleAuthority } from "../../lib/bundle/authority.ts";
import { verifyTrustBundle } from "../../lib/bundle/verify.ts";
import {
  bundleContentsJson,
  bundleDomains,
  bundleVerificationJson,
} from "../../cli/bundle/json_fields.ts";
import { AUTH_1, DEV_A, DEV_B, raw, revocationDoc, unsignedBundle } from "./_helpers.ts";

const NOW = Date.UTC(2026, 5, 1);

function signed(): Record<string, unknown> {
  const base = raw(unsignedBundle({ "a.example": DEV_A, "b.example": DEV_B }));
  base.revocations = [revocationDoc("a.example")];
  return raw(signTrustBundle(base, AUTH_1, "auth-1", "2026-05-10T00:00:00Z"));
}

Deno.test("bundleDomains: the domains of documents and revocations, in the bundle's order", () => {
  const bundle = signed() as unknown as TrustBundle;
  assert.deepEqual(bundleDomains(bundle), {
    documents: ["a.example", "b.example"],
    revocations: ["a.example"],
  });
  assert.deepEqual(bundleDomains(createTrustBundle()), { documents: [], revocations: [] });
});

Deno.test("bundleDomains: anything but a parsed bundle is INPUT_INVALID", () => {
  for (const bad of [undefined, null, "bundle", { documents: [] }]) {
    assert.throws(
      () => bundleDomains(bad as unknown as TrustBundle),
      (e) => isSchemaPinError(e, "INPUT_INVALID"),
    );
  }
});

Deno.test("bundleVerificationJson: a verified bundle, fields in order, snake_case", async () => {
  const store = new MemoryBundleAuthorityStore();
  await seedBundleAuthority(store, "auth-1", AUTH_1.publicKey.fingerprint);
  const result = await verifyTrustBundle(signed(), store, { now: NOW, source: "b.json" });
  const fields = bundleVerificationJson("b.json", result);
  assert.deepEqual(Object.keys(fields), [
    "ok",
    "file",
    "kid",
    "fingerprint",
    "first_use",
    "signed_at",
    "documents",
    "revocations",
    "warnings",
  ]);
  assert.equal(fields.ok, true);
  assert.equal(fields.fingerprint, AUTH_1.publicKey.fingerprint);
  assert.deepEqual(fields.documents, ["a.example", "b.example"]);
});

Deno.test("bundleVerificationJson: a failure carries its error and no domains", async () => {
  const result = await verifyTrustBundle(signed(), new MemoryBundleAuthorityStore(), {
    now: NOW,
  });
  const fields = bundleVerificationJson("stdin", result);
  assert.equal(fields.ok, false);
  assert.deepEqual(fields.error, {
    code: "BUNDLE_AUTHORITY_UNTRUSTED",
    message: result.errorMessage,
  });
  assert.equal(fields.file, "stdin");
  assert.equal("documents" in fields, false);
  assert.equal(fields.failed_step, result.failedStep);
});

Deno.test("bundleVerificationJson: misuse is INPUT_INVALID", () => {
  const ok = { valid: true, firstUse: false, warnings: [] };
  assert.throws(
    () => bundleVerificationJson(undefined as unknown as string, ok),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  assert.throws(
    () => bundleVerificationJson("b.json", null as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});

Deno.test("bundleContentsJson: a signed bundle's authority and documents, not verified", () => {
  const value = signed();
  const contents = bundleContentsJson(value, value as unknown as TrustBundle);
  assert.equal(contents.signed, true);
  assert.equal(contents.verified, false);
  assert.deepEqual(contents.authority, {
    kid: "auth-1",
    fingerprint: AUTH_1.publicKey.fingerprint,
  });
  assert.equal(contents.signed_at, "2026-05-10T00:00:00Z");
  assert.equal(contents.documents[0].key_fingerprint, DEV_A.publicKey.fingerprint);
  assert.deepEqual(contents.revocations, [
    { domain: "a.example", updated_at: "2026-02-11T00:00:00Z", revoked_keys: 0 },
  ]);
});

Deno.test("bundleContentsJson: an unparseable key is null, an unsigned bundle has no authority", () => {
  const bundle = raw(unsignedBundle({ "a.example": DEV_A })) as unknown as TrustBundle;
  bundle.documents[0].public_key_pem = "not a key";
  const contents = bundleContentsJson(bundle, bundle);
  assert.equal(contents.signed, false);
  assert.equal(contents.authority, null);
  assert.equal(contents.documents[0].key_fingerprint, null);
  assert.equal("signed_at" in contents, false);
});

Deno.test("bundleContentsJson: anything but a parsed bundle is INPUT_INVALID", () => {
  for (const bad of [undefined, 42, { documents: [], revocations: "x" }]) {
    assert.throws(
      () => bundleContentsJson({}, bad as unknown as TrustBundle),
      (e) => isSchemaPinError(e, "INPUT_INVALID"),
    );
  }
});
