// The ./a2a entry point (issue 36): the §20 names every SDK must expose, reached the way a
// library user reaches them — verifySchemaForA2a with a 1.4 signature document, the
// AllowedDomains helpers, the delegation cap — and what they refuse. The algorithm itself is
// tested in tests/a2a/a2a_test.ts.
import assert from "node:assert/strict";
import * as a2a from "../../a2a.ts";
import {
  A2A_MAX_DELEGATION_DEPTH,
  type A2aVerificationContext,
  allows,
  intersect,
  isUnrestricted,
  verifySchemaForA2a,
} from "../../a2a.ts";
import * as internal from "../../lib/a2a/context.ts";
import {
  buildDiscoveryDocument,
  generateKeyPair,
  MemoryPinStore,
  SchemaPinError,
  signSchemaDocument,
} from "../../mod.ts";

const key = generateKeyPair();
const schema = { name: "add", description: "Adds two numbers" };

function caller(trustedDomains: string[], delegationDepth = 1): A2aVerificationContext {
  return {
    callerAgentId: "urn:agentpin:client.example:planner",
    delegationDepth,
    originatingDomain: "client.example",
    trustedDomains,
  };
}

function request(domain: string, pinStore = new MemoryPinStore()) {
  return {
    schema,
    signature: signSchemaDocument(schema, key, { domain }),
    toolId: "add",
    domain,
    discovery: buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Ex" }),
    pinStore,
    trustFirstUse: true,
  };
}

// Positive

Deno.test("./a2a exports the §20 names, the same functions the library runs", () => {
  assert.deepEqual(Object.keys(a2a).sort(), [
    "A2A_MAX_DELEGATION_DEPTH",
    "allows",
    "intersect",
    "isUnrestricted",
    "verifySchemaForA2a",
  ]);
  assert.equal(a2a.verifySchemaForA2a, internal.verifySchemaForA2a);
  assert.equal(a2a.allows, internal.allows);
  assert.equal(A2A_MAX_DELEGATION_DEPTH, 3);
});

Deno.test("verifySchemaForA2a: a 1.4 document in the caller's scope verifies and pins", async () => {
  for (const depth of [0, A2A_MAX_DELEGATION_DEPTH]) {
    const pins = new MemoryPinStore();
    const result = await verifySchemaForA2a(
      caller(["*.example.com"], depth),
      request("tools.example.com", pins),
    );
    assert.equal(result.valid, true, result.errorMessage);
    assert.equal(result.signatureFormat, "document");
    assert.equal(result.keyPinning, "first_use");
    assert.equal((await pins.list()).length, 1);
  }
  const open = await verifySchemaForA2a(caller([]), request("anything.example"));
  assert.equal(open.valid, true, "an empty list is unrestricted");
});

Deno.test("AllowedDomains helpers: narrow a delegated list, then check a provider with allows", () => {
  const mine = ["*.example.com", "partner.example"];
  const delegated = intersect(mine, ["partner.example", "other.example"]);
  assert.deepEqual(delegated, ["partner.example"]);
  assert.equal(isUnrestricted(delegated), false);
  assert.equal(allows(delegated, "PARTNER.example"), true);
  assert.deepEqual(intersect([], mine), mine, "unrestricted ∩ X = X");
});

// Negative

Deno.test("verifySchemaForA2a: a provider outside the scope is A2A_SCOPE_VIOLATION, unpinned", async () => {
  for (const domain of ["example.com", "tools.other.example", "example.com.evil.test"]) {
    const pins = new MemoryPinStore();
    const result = await verifySchemaForA2a(caller(["*.example.com"]), request(domain, pins));
    assert.equal(result.valid, false, domain);
    assert.equal(result.errorCode, "A2A_SCOPE_VIOLATION");
    assert.deepEqual(await pins.list(), []);
  }
});

Deno.test("verifySchemaForA2a: a delegation deeper than A2A_MAX_DELEGATION_DEPTH is refused", async () => {
  const result = await verifySchemaForA2a(
    caller(["*.example.com"], A2A_MAX_DELEGATION_DEPTH + 1),
    request("tools.example.com"),
  );
  assert.equal(result.errorCode, "A2A_SCOPE_VIOLATION");
  assert.match(result.errorMessage!, /delegation depth 4 exceeds the maximum of 3/);
});

Deno.test("two disjoint lists intersect to [] (unrestricted): the scope check never widens", async () => {
  const disjoint = intersect(["a.example"], ["b.example"]);
  assert.equal(isUnrestricted(disjoint), true);
  assert.equal(allows(["a.example"], "b.example"), false);
  const result = await verifySchemaForA2a(caller(["a.example"]), request("b.example"));
  assert.equal(result.errorCode, "A2A_SCOPE_VIOLATION");
});

Deno.test("verifySchemaForA2a: a failed signature stays failed, whatever the scope", async () => {
  const forged = { ...request("tools.example.com"), schema: { ...schema, description: "evil" } };
  for (const trusted of [[], ["*.example.com"]]) {
    const result = await verifySchemaForA2a(caller(trusted), forged);
    assert.equal(result.errorCode, "SIGNATURE_INVALID");
  }
});

Deno.test("./a2a misuse: INPUT_INVALID naming the function and the argument", async () => {
  const invalid = (pattern: RegExp) => (e: unknown) =>
    e instanceof SchemaPinError && e.code === "INPUT_INVALID" && pattern.test(e.message);
  assert.throws(() => allows("example.com" as never, "example.com"), invalid(/^allows: list/));
  assert.throws(() => allows([], undefined as never), invalid(/^allows: domain/));
  assert.throws(() => intersect(["a"], null as never), invalid(/^intersect: rhs/));
  assert.throws(() => isUnrestricted(undefined as never), invalid(/^isUnrestricted: list/));
  await assert.rejects(
    verifySchemaForA2a({ ...caller([]), trustedDomains: "*" as never }, request("a.example")),
    invalid(/^verifySchemaForA2a: context\.trustedDomains/),
  );
});
