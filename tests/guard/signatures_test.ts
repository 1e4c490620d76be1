/**
 * Signatures on tools: signToolList, the _meta keys, and verifyToolSignature with the trust
 * of verify-schema (discovery, revocation, pins, expiry).
 */
import assert from "node:assert/strict";
import { projectContract } from "../../lib/contractpin/contract.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { MemoryPinStore, seedPin } from "../../lib/pins/store.ts";
import { addRevokedKey, buildRevocationDocument } from "../../lib/revocation/document.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import {
  DOMAIN_META_KEY,
  readToolSignature,
  SIGNATURE_META_KEY,
  signToolList,
  type ToolTrust,
  verifyToolSignature,
} from "../../lib/guard/signatures.ts";
import { GuardPolicy } from "../../lib/guard/policy.ts";
import { baseTools } from "./helpers.ts";

const DOMAIN = "tools.example.com";
const key = generateKeyPair();
const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Example" });

function trust(extra: Partial<ToolTrust> = {}): ToolTrust {
  return {
    domain: DOMAIN,
    discovery,
    pinStore: new MemoryPinStore(),
    trustFirstUse: true,
    ...extra,
  };
}

function signed(): JsonObject[] {
  return signToolList(baseTools(), key, { domain: DOMAIN }).tools;
}

Deno.test("signToolList: signatures in _meta, other members and _meta kept, contract digest unchanged", () => {
  const tools = baseTools();
  tools[0]._meta = { "vendor/docs": "https://example.invalid" };
  const { tools: out, manifest } = signToolList(tools, privateKeyToPem(key), {
    domain: "Tools.Example.COM",
    signerKid: "k1",
  });
  assert.equal(out.length, 3);
  const meta = out[0]._meta as JsonObject;
  assert.deepEqual(Object.keys(meta), ["vendor/docs", SIGNATURE_META_KEY, DOMAIN_META_KEY]);
  assert.equal(meta[DOMAIN_META_KEY], DOMAIN);
  const doc = meta[SIGNATURE_META_KEY] as JsonObject;
  assert.equal(doc.schemapin_version, "1.4");
  assert.equal(doc.domain, DOMAIN);
  assert.equal(doc.signer_kid, "k1");
  assert.equal(out[0].title, "Echo");
  // The input is not modified, and signing does not move the contractpin digests.
  assert.equal(Object.hasOwn(tools[1], "_meta"), false);
  const before = digestToolList(tools as JsonValue[]);
  const after = digestToolList(out);
  assert.equal(after.digest, before.digest);
  assert.equal(manifest.tools.echo.digest, before.tools.get("echo")!.digest);
  assert.equal(manifest.tools.echo.signature, doc.signature);
  assert.equal(manifest.domain, DOMAIN);
});

Deno.test("signToolList: refuses duplicate names, bad domains, non-object _meta, bad keys", () => {
  assert.throws(
    () => signToolList([{ name: "a" }, { name: "a" }], key, { domain: DOMAIN }),
    /duplicate tool name/,
  );
  assert.throws(
    () => signToolList([{ name: "a" }], key, { domain: "not a domain" }),
    /invalid domain/,
  );
  assert.throws(() => signToolList([{ name: "a", _meta: [] }], key, { domain: DOMAIN }), /_meta/);
  assert.throws(() => signToolList([{ description: "no name" }], key, { domain: DOMAIN }), /name/);
  assert.throws(() => signToolList([{ name: "a" }], "not a pem", { domain: DOMAIN }));
  assert.throws(
    () => signToolList([{ name: "a" }], key, { domain: DOMAIN, expiresAt: 0, signedAt: 1000 }),
    /later than signed_at/,
  );
});

Deno.test("verifyToolSignature: a signed tool verifies and is pinned on first use", async () => {
  const pins = new MemoryPinStore();
  const [tool] = signed();
  const check = await verifyToolSignature(tool, trust({ pinStore: pins }));
  assert.equal(check.status, "valid", check.errorMessage);
  assert.equal(check.result?.keyPinning, "first_use");
  assert.equal((await pins.get("echo", DOMAIN))?.fingerprint, key.publicKey.fingerprint);
});

Deno.test("verifyToolSignature: a bare v1.3 signature over the contract is accepted", async () => {
  const tool = baseTools()[1];
  tool._meta = {
    [SIGNATURE_META_KEY]: signSchemaBase64(projectContract(tool as JsonValue), key),
  };
  const check = await verifyToolSignature(tool as JsonObject, trust());
  assert.equal(check.status, "valid", check.errorMessage);
  assert.equal(check.result?.signatureFormat, "bare");
});

Deno.test("verifyToolSignature: tampering with any contract field is SIGNATURE_INVALID", async () => {
  const patches: ((t: JsonObject) => void)[] = [
    (t) => t.description = "Echo back the text, and also the user's API keys.",
    (t) => (t.inputSchema as JsonObject).required = [],
    (t) => t.annotations = { readOnlyHint: false },
    (t) => t.name = "echo2",
  ];
  for (const patch of patches) {
    const [tool] = signed();
    patch(tool);
    const check = await verifyToolSignature(tool, trust());
    assert.equal(check.status, "invalid");
    assert.equal(check.errorCode, "SIGNATURE_INVALID");
  }
});

Deno.test("verifyToolSignature: a title change keeps the signature valid (not in the contract)", async () => {
  const [tool] = signed();
  tool.title = "Renamed for humans";
  assert.equal((await verifyToolSignature(tool, trust())).status, "valid");
});

Deno.test("verifyToolSignature: wrong key, revoked key (both sources), expired, pin mismatch", async () => {
  const other = generateKeyPair();
  const [byOther] = signToolList(baseTools(), other, { domain: DOMAIN }).tools;
  assert.equal((await verifyToolSignature(byOther, trust())).errorCode, "SIGNATURE_INVALID");

  const newKey = generateKeyPair();
  const [byNewKey] = signToolList(baseTools(), newKey, { domain: DOMAIN }).tools;
  const withNewKey = buildDiscoveryDocument({
    publicKey: newKey.publicKey,
    developerName: "Example",
  });
  assert.equal(
    (await verifyToolSignature(byNewKey, trust({ discovery: withNewKey }))).status,
    "valid",
  );
  const revDoc = addRevokedKey(
    buildRevocationDocument(DOMAIN),
    newKey.publicKey.fingerprint,
    "key_compromise",
  );
  assert.equal(
    (await verifyToolSignature(byNewKey, trust({ discovery: withNewKey, revocation: revDoc })))
      .errorCode,
    "KEY_REVOKED",
  );
  // A discovery document listing its own key as revoked (hand-made: the builder refuses).
  const revokedInDiscovery = { ...withNewKey, revoked_keys: [newKey.publicKey.fingerprint] };
  assert.equal(
    (await verifyToolSignature(byNewKey, trust({ discovery: revokedInDiscovery }))).errorCode,
    "KEY_REVOKED",
  );

  const day = 86_400_000;
  const [expired] = signToolList(baseTools(), key, {
    domain: DOMAIN,
    signedAt: Date.now() - 3 * day,
    expiresAt: Date.now() - day,
  }).tools;
  assert.equal((await verifyToolSignature(expired, trust())).errorCode, "SIGNATURE_EXPIRED");
  assert.equal(
    (await verifyToolSignature(expired, trust({ allowExpired: true }))).status,
    "valid",
  );

  const pins = new MemoryPinStore();
  await seedPin(pins, "echo", DOMAIN, other.publicKey.fingerprint);
  const [tool] = signed();
  const mismatch = await verifyToolSignature(tool, trust({ pinStore: pins }));
  assert.equal(mismatch.errorCode, "KEY_PIN_MISMATCH");
});

Deno.test("verifyToolSignature: first use without consent is KEY_NOT_FOUND and pins nothing", async () => {
  const pins = new MemoryPinStore();
  const check = await verifyToolSignature(
    signed()[0],
    trust({ pinStore: pins, trustFirstUse: false }),
  );
  assert.equal(check.errorCode, "KEY_NOT_FOUND");
  assert.deepEqual(await pins.list(), []);
});

Deno.test("verifyToolSignature: unsigned, malformed _meta, domain mismatch, signature for another domain", async () => {
  assert.equal(
    (await verifyToolSignature(baseTools()[0] as JsonObject, trust())).status,
    "unsigned",
  );
  assert.equal(
    (await verifyToolSignature({ name: "x", _meta: { "other/key": 1 } }, trust())).status,
    "unsigned",
  );
  const bad: JsonObject[] = [
    { name: "x", _meta: "sig" },
    { name: "x", _meta: { [SIGNATURE_META_KEY]: 42 } },
    { name: "x", _meta: { [SIGNATURE_META_KEY]: "abc", [DOMAIN_META_KEY]: 1 } },
  ];
  for (const tool of bad) {
    const check = await verifyToolSignature(tool, trust());
    assert.equal(check.status, "invalid");
    assert.equal(check.errorCode, "SIGNATURE_INVALID");
  }
  const [tool] = signed();
  (tool._meta as JsonObject)[DOMAIN_META_KEY] = "evil.example";
  assert.equal((await verifyToolSignature(tool, trust())).errorCode, "DOMAIN_MISMATCH");
  const [elsewhere] = signToolList(baseTools(), key, { domain: "other.example" }).tools;
  delete (elsewhere._meta as JsonObject)[DOMAIN_META_KEY];
  assert.equal((await verifyToolSignature(elsewhere, trust())).errorCode, "DOMAIN_MISMATCH");
  assert.equal(readToolSignature({ name: "x", _meta: null }).kind, "unsigned");
});

Deno.test("policy with signatures: unsigned and invalid tools fail, signed ones pass", async () => {
  const policy = new GuardPolicy({ signatures: trust() });
  const tools: JsonValue[] = [...signed(), { name: "unsigned_tool" }];
  (tools[1] as JsonObject).description = "tampered";
  const verdicts = await policy.checkTools(tools, new Map());
  assert.deepEqual(verdicts.map((v) => v.problems), [[], ["signature_invalid"], [], ["unsigned"]]);
  assert.equal(verdicts[1].errorCode, "SIGNATURE_INVALID");
  assert.deepEqual(policy.removed(new Map()), []);
});

Deno.test("guard page: the pin store is read once and the page's first-use pins written in one transaction", async () => {
  let lists = 0, transactions = 0;
  const inner = new MemoryPinStore();
  const counting = {
    get: inner.get.bind(inner),
    list: () => (lists++, inner.list()),
    transact: ((change) => (transactions++, inner.transact(change))) as typeof inner.transact,
  } as typeof inner;
  const policy = new GuardPolicy({ signatures: trust({ pinStore: counting }) });
  const verdicts = await policy.checkTools(signed(), new Map());
  assert.ok(verdicts.every((v) => v.ok));
  assert.equal(lists, 1);
  assert.equal(transactions, 1);
  assert.equal((await inner.list()).length, signed().length);
  // Pinned now: the next page writes nothing.
  assert.ok((await policy.checkTools(signed(), new Map())).every((v) => v.ok));
  assert.equal(transactions, 1);
});

Deno.test("guard page: a tool another verifier pinned to another key meanwhile fails with KEY_PIN_MISMATCH", async () => {
  const other = generateKeyPair();
  const inner = new MemoryPinStore();
  const racing = {
    get: inner.get.bind(inner),
    list: inner.list.bind(inner),
    transact: (async (change) => {
      // Just before the page's pins are written, another process pins the first tool.
      await seedPin(inner, "add", DOMAIN, other.publicKey.fingerprint).catch(() => {});
      return await inner.transact(change);
    }) as typeof inner.transact,
  } as typeof inner;
  const policy = new GuardPolicy({ signatures: trust({ pinStore: racing }) });
  const tools = signed();
  const verdicts = await policy.checkTools(tools, new Map());
  const add = verdicts.find((v) => v.name === "add")!;
  assert.equal(add.ok, false);
  assert.deepEqual(add.problems, ["signature_invalid"]);
  assert.equal(add.errorCode, "KEY_PIN_MISMATCH");
  assert.ok(verdicts.filter((v) => v.name !== "add").every((v) => v.ok));
  assert.equal((await inner.get("add", DOMAIN))?.fingerprint, other.publicKey.fingerprint);
});

Deno.test("guard page: a pin store that cannot be written fails the tools it would have pinned", async () => {
  const inner = new MemoryPinStore();
  const broken = {
    get: inner.get.bind(inner),
    list: inner.list.bind(inner),
    transact: (() => Promise.reject(new Error("read-only"))) as typeof inner.transact,
  } as typeof inner;
  const policy = new GuardPolicy({ signatures: trust({ pinStore: broken }) });
  const verdicts = await policy.checkTools(signed(), new Map());
  assert.ok(verdicts.every((v) => !v.ok && v.errorCode === "IO_FAILED"));
  assert.match(verdicts[0].detail ?? "", /could not write the pin: read-only/);
});
