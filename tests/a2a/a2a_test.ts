import assert from "node:assert/strict";
import {
  A2A_MAX_DELEGATION_DEPTH,
  type A2aVerificationContext,
  allows,
  intersect,
  isUnrestricted,
  verifySchemaForA2a,
} from "../../lib/a2a/context.ts";
import type { VerifySchemaOfflineOptions } from "../../lib/schema/verify.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { discoveryFor, OTHER, SIGNER, toolSchema } from "../schema/_fixtures.ts";

function ctx(trustedDomains: string[], delegationDepth = 0): A2aVerificationContext {
  return {
    callerAgentId: "urn:agentpin:client.com:agent",
    delegationDepth,
    originatingDomain: "client.com",
    trustedDomains,
  };
}

function req(over: Partial<VerifySchemaOfflineOptions> = {}): VerifySchemaOfflineOptions {
  const schema = toolSchema();
  return {
    schema,
    signature: signSchemaBase64(schema, SIGNER),
    domain: "api.provider.com",
    toolId: "calculate_sum",
    discovery: discoveryFor(SIGNER),
    pinStore: new MemoryPinStore(),
    trustFirstUse: true,
    ...over,
  };
}

Deno.test("the delegation cap is 3", () => {
  assert.equal(A2A_MAX_DELEGATION_DEPTH, 3);
});

Deno.test("isUnrestricted: the empty list means unrestricted", () => {
  assert.equal(isUnrestricted([]), true);
  assert.equal(isUnrestricted(["a.com"]), false);
});

Deno.test("allows: exact entries and *. wildcards, which do not match the apex", () => {
  assert.equal(allows([], "anything.example"), true);
  assert.equal(allows(["provider.com"], "provider.com"), true);
  assert.equal(allows(["provider.com"], "api.provider.com"), false);
  assert.equal(allows(["*.client.com"], "api.client.com"), true);
  assert.equal(allows(["*.client.com"], "a.b.client.com"), true);
  assert.equal(allows(["*.client.com"], "client.com"), false);
  assert.equal(allows(["*.client.com"], "evilclient.com"), false);
  assert.equal(allows(["*.client.com"], "client.com.evil.com"), false);
  assert.equal(allows(["*.Client.COM"], "API.client.com"), true);
  assert.equal(allows(["other.com", "*.client.com"], "x.client.com"), true);
  assert.equal(allows(["other.com"], "x.client.com"), false);
  assert.equal(allows(["*"], "x.client.com"), false);
});

Deno.test("intersect: unrestricted short-circuits and the disjoint edge case", () => {
  assert.deepEqual(intersect([], ["a.com"]), ["a.com"]);
  assert.deepEqual(intersect(["a.com"], []), ["a.com"]);
  assert.deepEqual(intersect([], []), []);
  assert.deepEqual(intersect(["a.com", "b.com"], ["B.com", "c.com"]), ["b.com"]);
  // Documented edge case: disjoint non-empty lists give [], which reads as unrestricted.
  const disjoint = intersect(["a.com"], ["b.com"]);
  assert.deepEqual(disjoint, []);
  assert.equal(isUnrestricted(disjoint), true);
});

Deno.test("delegation depth above 3 (or not a non-negative integer) is refused before verifying", async () => {
  for (const depth of [0, 1, 2, 3]) {
    const r = await verifySchemaForA2a(ctx([], depth), req());
    assert.equal(r.valid, true, `depth ${depth}: ${r.errorMessage}`);
  }
  for (const depth of [4, 255, -1, 1.5, NaN]) {
    const store = new MemoryPinStore();
    const r = await verifySchemaForA2a(ctx([], depth), req({ pinStore: store }));
    assert.equal(r.valid, false);
    assert.equal(r.errorCode, "A2A_SCOPE_VIOLATION", String(depth));
    assert.deepEqual(await store.list(), []);
  }
});

Deno.test("a failed cryptographic verification is returned unchanged, whatever the scope", async () => {
  const bad = req({ signature: signSchemaBase64(toolSchema(), OTHER) });
  for (const trusted of [[], ["api.provider.com"], ["elsewhere.com"]]) {
    const r = await verifySchemaForA2a(ctx(trusted), bad);
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
  }
  const revoked = await verifySchemaForA2a(
    ctx(["elsewhere.com"]),
    req({ discovery: discoveryFor(SIGNER, { revoked_keys: [SIGNER.publicKey.fingerprint] }) }),
  );
  assert.equal(revoked.errorCode, "KEY_REVOKED");
});

Deno.test("out-of-scope providers are refused and never pinned", async () => {
  for (
    const trusted of [["other.com"], ["provider.com"], ["*.api.provider.com"], [
      "*.client.com",
      "client.com",
    ]]
  ) {
    const store = new MemoryPinStore();
    const r = await verifySchemaForA2a(ctx(trusted), req({ pinStore: store }));
    assert.equal(r.valid, false);
    assert.equal(r.errorCode, "A2A_SCOPE_VIOLATION", JSON.stringify(trusted));
    assert.match(r.errorMessage!, /api\.provider\.com/);
    assert.deepEqual(await store.list(), [], "no pin for an out-of-scope tool");
  }
});

Deno.test("the scope check uses allows directly, not intersect (disjoint lists stay restricted)", async () => {
  // intersect(["other.com"], ["api.provider.com"]) is [] = unrestricted; the check must not use it.
  const r = await verifySchemaForA2a(ctx(["other.com"]), req());
  assert.equal(r.errorCode, "A2A_SCOPE_VIOLATION");
});

Deno.test("in-scope providers verify and pin as usual", async () => {
  for (
    const trusted of [[], ["api.provider.com"], ["*.provider.com"], ["x.com", "API.Provider.com"]]
  ) {
    const store = new MemoryPinStore();
    const r = await verifySchemaForA2a(ctx(trusted), req({ pinStore: store }));
    assert.equal(r.valid, true, `${JSON.stringify(trusted)}: ${r.errorMessage}`);
    assert.equal(r.keyPinning, "first_use");
    assert.equal((await store.list()).length, 1);
  }
  // An already-pinned tool that falls out of scope is refused too.
  const store = new MemoryPinStore();
  await verifySchemaForA2a(ctx([]), req({ pinStore: store }));
  const r = await verifySchemaForA2a(ctx(["other.com"]), req({ pinStore: store }));
  assert.equal(r.errorCode, "A2A_SCOPE_VIOLATION");
});
