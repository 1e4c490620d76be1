// The schemapin/trustBundle JSON-RPC envelope: round trips and malformed messages.
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import {
  buildTrustBundleErrorResponse,
  buildTrustBundleRequest,
  buildTrustBundleResponse,
  parseTrustBundleRequest,
  parseTrustBundleResponse,
  TRUST_BUNDLE_METHOD,
} from "../../lib/bundle/jsonrpc.ts";
import {
  MemoryBundleAuthorityStore,
  seedBundleAuthorityFromPem,
} from "../../lib/bundle/authority.ts";
import { verifyTrustBundle } from "../../lib/bundle/verify.ts";
import {
  DEV_A,
  raw,
  REFERENCE_KID,
  referenceBundle,
  referencePublicPem,
  unsignedBundle,
} from "./_helpers.ts";

const invalid = (re: RegExp) => (e: unknown) =>
  isSchemaPinError(e, "DISCOVERY_INVALID") && re.test((e as Error).message);

Deno.test("request round trip, with and without domains", () => {
  const req = buildTrustBundleRequest(42, { domains: ["Example.com", "other.example"] });
  assert.deepEqual(req, {
    jsonrpc: "2.0",
    id: 42,
    method: TRUST_BUNDLE_METHOD,
    params: { domains: ["example.com", "other.example"] },
  });
  assert.deepEqual(parseTrustBundleRequest(JSON.stringify(req)), {
    id: 42,
    domains: ["example.com", "other.example"],
  });
  assert.deepEqual(parseTrustBundleRequest(buildTrustBundleRequest("abc")), { id: "abc" });
  assert.equal(TRUST_BUNDLE_METHOD, "schemapin/trustBundle");
});

Deno.test("a signed bundle survives the response envelope byte for byte and still verifies", async () => {
  const bundle = referenceBundle();
  bundle.x_unknown = "kept";
  const text = JSON.stringify(buildTrustBundleResponse("req-1", bundle));
  const received = parseTrustBundleResponse(new TextEncoder().encode(text), "req-1");
  assert.deepEqual(received, bundle);
  const store = new MemoryBundleAuthorityStore();
  await seedBundleAuthorityFromPem(store, REFERENCE_KID, referencePublicPem());
  const result = await verifyTrustBundle(received, store, { now: Date.UTC(2026, 5, 1) });
  assert.equal(result.valid, true, result.errorMessage);
});

Deno.test("response parsing is strict about id, version, result and error", () => {
  const ok = buildTrustBundleResponse(7, raw(unsignedBundle({ "example.com": DEV_A })));
  const cases: [string, unknown, number | string, (e: unknown) => boolean][] = [
    ["wrong id", ok, 8, invalid(/id 7 does not match the request id 8/)],
    ["id type", ok, "7", invalid(/does not match/)],
    [
      "no id",
      (() => {
        const r = raw(ok);
        delete r.id;
        return r;
      })(),
      7,
      invalid(/no id/),
    ],
    ["null id", { ...ok, id: null }, 7, invalid(/does not match/)],
    ["version", { ...ok, jsonrpc: "1.0" }, 7, invalid(/jsonrpc must be "2\.0"/)],
    [
      "no version",
      (() => {
        const r = raw(ok);
        delete r.jsonrpc;
        return r;
      })(),
      7,
      invalid(/jsonrpc/),
    ],
    ["neither", { jsonrpc: "2.0", id: 7 }, 7, invalid(/neither result nor error/)],
    ["both", { ...ok, error: { code: 1, message: "x" } }, 7, invalid(/both result and error/)],
    ["result null", { ...ok, result: null }, 7, invalid(/result must be an object/)],
    ["no bundle", { ...ok, result: {} }, 7, invalid(/result\.bundle is missing/)],
    [
      "bundle array",
      { ...ok, result: { bundle: [] } },
      7,
      invalid(/result\.bundle must be an object/),
    ],
    [
      "extra member",
      { ...ok, method: TRUST_BUNDLE_METHOD },
      7,
      invalid(/unexpected members: method/),
    ],
    ["not object", [ok], 7, invalid(/must be a JSON object/)],
    [
      "error string",
      { jsonrpc: "2.0", id: 7, error: "boom" },
      7,
      invalid(/error must be an object/),
    ],
    [
      "error code",
      { jsonrpc: "2.0", id: 7, error: { code: 1.5, message: "x" } },
      7,
      invalid(/error\.code/),
    ],
    ["error message", { jsonrpc: "2.0", id: 7, error: { code: 1 } }, 7, invalid(/error\.message/)],
    [
      "text dup keys",
      '{"jsonrpc":"2.0","id":7,"id":7,"result":{"bundle":{}}}',
      7,
      (e) => isSchemaPinError(e, "JSON_INVALID"),
    ],
    ["text garbage", "not json", 7, (e) => isSchemaPinError(e, "JSON_INVALID")],
  ];
  for (const [name, input, id, check] of cases) {
    assert.throws(() => parseTrustBundleResponse(input, id), check, name);
  }
  assert.throws(
    () => parseTrustBundleResponse(ok, null as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});

Deno.test("an error response becomes DISCOVERY_FETCH_FAILED carrying the peer's code", () => {
  const err = buildTrustBundleErrorResponse(3, -32000, "no bundle available");
  assert.deepEqual(err, {
    jsonrpc: "2.0",
    id: 3,
    error: { code: -32000, message: "no bundle available" },
  });
  assert.throws(
    () => parseTrustBundleResponse(JSON.stringify(err), 3),
    (e) =>
      isSchemaPinError(e, "DISCOVERY_FETCH_FAILED") && e.details.rpcCode === -32000 &&
      /no bundle available/.test(e.message),
  );
  // An error for another request is an id mismatch, not the peer's error.
  assert.throws(() => parseTrustBundleResponse(err, 4), invalid(/does not match/));
});

Deno.test("builders reject bad ids, domains and bundles", () => {
  const input = (e: unknown) => isSchemaPinError(e, "INPUT_INVALID");
  for (const id of [null, 1.5, {}, true, Number.MAX_SAFE_INTEGER + 1]) {
    assert.throws(() => buildTrustBundleRequest(id as never), input, String(id));
  }
  assert.throws(() => buildTrustBundleRequest(1, { domains: ["https://example.com"] }), input);
  assert.throws(
    () => buildTrustBundleResponse(1, { documents: [] }),
    invalid(/schemapin_bundle_version/),
  );
  assert.throws(() => buildTrustBundleErrorResponse(1, 1.5, "x"), input);
});

Deno.test("request parsing is strict", () => {
  const req = buildTrustBundleRequest(1);
  const cases: [string, unknown, RegExp][] = [
    ["method", { ...req, method: "other" }, /method must be/],
    ["version", { ...req, jsonrpc: "2" }, /jsonrpc/],
    ["id", { ...req, id: null }, /request id/],
    ["params", { ...req, params: [] }, /params must be an object/],
    ["domains", { ...req, params: { domains: ["a b"] } }, /params\.domains\[0\]/],
    ["domains type", { ...req, params: { domains: "example.com" } }, /array of domains/],
  ];
  for (const [name, value, re] of cases) {
    assert.throws(() => parseTrustBundleRequest(value), invalid(re), name);
  }
});
