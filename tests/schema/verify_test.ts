import assert from "node:assert/strict";
import {
  EXPIRY_SKEW_MS,
  type SchemaVerificationResult,
  verifySchemaOffline,
  type VerifySchemaOfflineOptions,
} from "../../lib/schema/verify.ts";
import { signSchemaBase64, signSchemaDocument } from "../../lib/schema/document.ts";
import {
  FilePinStore,
  makePinRecord,
  MemoryPinStore,
  type PinRecord,
} from "../../lib/pins/store.ts";
import { signDigest } from "../../lib/crypto/ecdsa.ts";
import { encodeBase64 } from "../../lib/crypto/base64.ts";
import { sha256 } from "../../lib/crypto/hash.ts";
import { canonicalizeSchemapinV1Bytes } from "../../lib/json/canonical_schemapin.ts";
import { parseJson } from "../../lib/json/parse.ts";
import {
  discoveryFor,
  interopJson,
  OTHER,
  SIGNER,
  SpyPinStore,
  tempDir,
  toolSchema,
} from "./_fixtures.ts";

const T0 = Date.UTC(2026, 4, 1, 10);
const DAY = 86_400_000;

function pin(fingerprint: string, toolId = "calculate_sum"): PinRecord {
  return makePinRecord({ toolId, domain: "example.com", fingerprint, source: "seeded" });
}

function options(over: Partial<VerifySchemaOfflineOptions> = {}): VerifySchemaOfflineOptions {
  const schema = over.schema ?? toolSchema();
  return {
    schema,
    signature: over.signature ?? signSchemaBase64(schema, SIGNER),
    domain: "example.com",
    toolId: "calculate_sum",
    discovery: discoveryFor(SIGNER),
    pinStore: new MemoryPinStore(),
    trustFirstUse: true,
    ...over,
  };
}

function expectFailure(r: SchemaVerificationResult, code: string) {
  assert.equal(r.valid, false, `expected ${code}, got valid`);
  assert.equal(r.errorCode, code, r.errorMessage);
  assert.ok(r.errorMessage && r.errorMessage.length > 0);
}

Deno.test("interop: reference signatures behave as schema_signatures.json says", async () => {
  const fixture = interopJson("schema_signatures.json") as {
    domain: string;
    public_key_fingerprint: string;
    signatures: { expect: string; schema: unknown; canonical: string; signature: string }[];
  };
  const discovery = interopJson("well_known.json");
  let valid = 0, rejected = 0, invalid = 0;
  for (const entry of fixture.signatures) {
    const store = new MemoryPinStore();
    const r = await verifySchemaOffline({
      schema: entry.schema,
      signature: entry.signature,
      domain: fixture.domain,
      toolId: "interop",
      discovery,
      pinStore: store,
      trustFirstUse: true,
    });
    if (entry.expect === "valid") {
      valid++;
      assert.equal(r.valid, true, r.errorMessage);
      assert.equal(
        new TextDecoder().decode(canonicalizeSchemapinV1Bytes(entry.schema)),
        entry.canonical,
      );
      assert.equal(r.keyFingerprint, fixture.public_key_fingerprint);
      assert.equal(r.keyPinning, "first_use");
      assert.equal(r.developerName, "Interop Fixture Developer");
    } else if (entry.expect.startsWith("reject")) {
      rejected++;
      expectFailure(r, "SCHEMA_CANONICALIZATION_FAILED");
      assert.equal((await store.list()).length, 0);
    } else {
      invalid++;
      assert.ok(entry.expect.startsWith("invalid"));
      expectFailure(r, "SIGNATURE_INVALID");
      assert.equal((await store.list()).length, 0);
    }
  }
  assert.deepEqual([valid, rejected, invalid], [3, 1, 1]);
});

Deno.test("a valid bare signature verifies, pins on first use, then matches the pin", async () => {
  const store = new MemoryPinStore();
  const first = await verifySchemaOffline(options({ pinStore: store }));
  assert.equal(first.valid, true, first.errorMessage);
  assert.equal(first.keyPinning, "first_use");
  assert.equal(first.domain, "example.com");
  assert.equal(first.signatureFormat, "bare");
  assert.equal(first.keyFingerprint, SIGNER.publicKey.fingerprint);
  const stored = await store.get("calculate_sum", "example.com");
  assert.equal(stored?.fingerprint, SIGNER.publicKey.fingerprint);
  assert.equal(stored?.source, "first_use");
  const second = await verifySchemaOffline(options({ pinStore: store, trustFirstUse: false }));
  assert.equal(second.valid, true);
  assert.equal(second.keyPinning, "pinned");
});

Deno.test("step order: §19 canonicalization check runs before discovery, keys or pins", async () => {
  const schema = toolSchema();
  const doc = signSchemaDocument(schema, SIGNER, { signedAt: T0 }) as unknown as Record<
    string,
    unknown
  >;
  const touched: string[] = [];
  const discovery = new Proxy(discoveryFor(SIGNER, { public_key_pem: "garbage" }), {
    get(target, key, receiver) {
      touched.push(String(key));
      return Reflect.get(target, key, receiver);
    },
    getOwnPropertyDescriptor(target, key) {
      touched.push(String(key));
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    has(target, key) {
      touched.push(String(key));
      return Reflect.has(target, key);
    },
  });
  for (const canonicalization of ["jcs", "schemapin-v2", "", 1, null]) {
    const store = new SpyPinStore();
    const r = await verifySchemaOffline(options({
      schema,
      signature: { ...doc, canonicalization },
      discovery,
      pinStore: store,
    }));
    expectFailure(r, "CANONICALIZATION_UNSUPPORTED");
    assert.deepEqual(touched, [], "the discovery document was not read");
    assert.deepEqual(store.calls, [], "the pin store was not read");
    assert.equal(r.keyFingerprint, undefined, "no key was loaded");
  }
  // The verifier parameter (§19.1) for bare signatures.
  const r = await verifySchemaOffline(options({ canonicalization: "jcs", discovery }));
  expectFailure(r, "CANONICALIZATION_UNSUPPORTED");
  assert.deepEqual(touched, []);
  // "schemapin-v1" explicitly is fine.
  const ok = await verifySchemaOffline(
    options({ signature: { ...doc, canonicalization: "schemapin-v1" }, schema }),
  );
  // (the document was not re-signed with the field, so the signature must fail — but not on §19)
  expectFailure(ok, "SIGNATURE_INVALID");
});

Deno.test("step order: 1 discovery → 2 key → 3 revocation → 4 pin → 5 canonical → 6 signature", async () => {
  const schema = toolSchema();
  const bad = { ...schema, n: 2 ** 53 }; // no canonical form
  // 1 before 3: an invalid discovery document wins over revocation.
  expectFailure(
    await verifySchemaOffline(
      options({
        discovery: {
          ...discoveryFor(SIGNER),
          schema_version: undefined,
          revoked_keys: [SIGNER.publicKey.fingerprint],
        },
      }),
    ),
    "DISCOVERY_INVALID",
  );
  // 2: a non-P-256 key fails before revocation and pins.
  const store2 = new SpyPinStore();
  expectFailure(
    await verifySchemaOffline(
      options({
        discovery: discoveryFor(SIGNER, {
          public_key_pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n",
        }),
        pinStore: store2,
      }),
    ),
    "DISCOVERY_INVALID",
  );
  assert.deepEqual(store2.calls, []);
  // 3 before 4: revoked key and a mismatching pin → KEY_REVOKED, pin store untouched.
  const store3 = new SpyPinStore([pin(OTHER.publicKey.fingerprint)]);
  const r3 = await verifySchemaOffline(options({
    discovery: discoveryFor(SIGNER, { revoked_keys: [SIGNER.publicKey.fingerprint] }),
    pinStore: store3,
  }));
  expectFailure(r3, "KEY_REVOKED");
  assert.deepEqual(store3.calls, []);
  // 4 before 5: pin mismatch and a schema with no canonical form → KEY_PIN_MISMATCH.
  const r4 = await verifySchemaOffline(options({
    schema: bad,
    signature: "MEUCIQ==",
    pinStore: new MemoryPinStore([pin(OTHER.publicKey.fingerprint)]),
  }));
  expectFailure(r4, "KEY_PIN_MISMATCH");
  assert.equal(r4.keyPinning, "mismatch");
  assert.equal(r4.pinnedFingerprint, OTHER.publicKey.fingerprint);
  assert.equal(r4.schemaHash, undefined, "canonicalization did not run");
  // 5 before 6: no canonical form and a garbage signature → SCHEMA_CANONICALIZATION_FAILED.
  expectFailure(
    await verifySchemaOffline(options({ schema: bad, signature: "not base64!" })),
    "SCHEMA_CANONICALIZATION_FAILED",
  );
  // 6 before expiry: a tampered expired document → SIGNATURE_INVALID, not SIGNATURE_EXPIRED.
  const doc = signSchemaDocument(schema, SIGNER, { signedAt: T0, expiresAt: T0 + DAY });
  expectFailure(
    await verifySchemaOffline(
      options({ schema, signature: { ...doc, schema_version: "9" }, now: T0 + 10 * DAY }),
    ),
    "SIGNATURE_INVALID",
  );
});

Deno.test("the pin store is read at step 4 and written only after everything passed", async () => {
  const store = new SpyPinStore();
  const ok = await verifySchemaOffline(options({ pinStore: store }));
  assert.equal(ok.valid, true);
  assert.deepEqual(store.calls, ["get calculate_sum@example.com", "transact"]);
  const store2 = new SpyPinStore();
  const bad = await verifySchemaOffline(
    options({ pinStore: store2, signature: signSchemaBase64({ x: 1 }, SIGNER) }),
  );
  expectFailure(bad, "SIGNATURE_INVALID");
  assert.equal(bad.keyPinning, "not_pinned");
  assert.deepEqual(
    store2.calls,
    ["get calculate_sum@example.com"],
    "a failed verification never writes",
  );
});

Deno.test("no failure ever leaves a pin behind", async () => {
  const schema = toolSchema();
  const doc = signSchemaDocument(schema, SIGNER, { signedAt: T0, expiresAt: T0 + DAY });
  const failures: [Partial<VerifySchemaOfflineOptions>, string][] = [
    [{ signature: signSchemaBase64(schema, OTHER) }, "SIGNATURE_INVALID"],
    [
      { schema: { ...schema, description: "evil" }, signature: signSchemaBase64(schema, SIGNER) },
      "SIGNATURE_INVALID",
    ],
    [{ signature: "garbage" }, "SIGNATURE_INVALID"],
    [
      { discovery: discoveryFor(SIGNER, { revoked_keys: [SIGNER.publicKey.fingerprint] }) },
      "KEY_REVOKED",
    ],
    [{ signature: doc, now: T0 + 2 * DAY }, "SIGNATURE_EXPIRED"],
    [{ signature: { ...doc, domain: "other.example" } }, "SIGNATURE_INVALID"],
    [
      { discovery: discoveryFor(SIGNER, { revocation_endpoint: "https://example.com/r.json" }) },
      "DISCOVERY_FETCH_FAILED",
    ],
    [{ trustFirstUse: false }, "KEY_NOT_FOUND"],
    [{ trustFirstUse: false, confirmFirstUse: () => false }, "KEY_NOT_FOUND"],
  ];
  for (const [over, code] of failures) {
    const store = new MemoryPinStore();
    const r = await verifySchemaOffline(options({ schema, pinStore: store, now: T0, ...over }));
    expectFailure(r, code);
    assert.deepEqual(await store.list(), [], code);
  }
});

Deno.test("first use needs an opt-in or a confirmation that sees the fingerprint", async () => {
  const store = new MemoryPinStore();
  const refused = await verifySchemaOffline(options({ pinStore: store, trustFirstUse: false }));
  expectFailure(refused, "KEY_NOT_FOUND");
  assert.equal(refused.keyPinning, "first_use_declined");
  assert.match(refused.errorMessage!, new RegExp(SIGNER.publicKey.fingerprint));
  const asked: string[] = [];
  const declined = await verifySchemaOffline(options({
    pinStore: store,
    trustFirstUse: false,
    confirmFirstUse: (info) => {
      asked.push(`${info.toolId}@${info.domain} ${info.fingerprint} ${info.developerName}`);
      return false;
    },
  }));
  expectFailure(declined, "KEY_NOT_FOUND");
  assert.deepEqual(asked, [
    `calculate_sum@example.com ${SIGNER.publicKey.fingerprint} Test Developer`,
  ]);
  const threw = await verifySchemaOffline(
    options({
      pinStore: store,
      trustFirstUse: false,
      confirmFirstUse: () => {
        throw new Error("no tty");
      },
    }),
  );
  expectFailure(threw, "KEY_NOT_FOUND");
  // The prompt is not shown for a signature that does not verify.
  let prompted = false;
  await verifySchemaOffline(
    options({
      pinStore: store,
      trustFirstUse: false,
      signature: signSchemaBase64({}, SIGNER),
      confirmFirstUse: () => (prompted = true),
    }),
  );
  assert.equal(prompted, false);
  assert.deepEqual(await store.list(), []);
  const confirmed = await verifySchemaOffline(
    options({
      pinStore: store,
      trustFirstUse: false,
      confirmFirstUse: async () => await Promise.resolve(true),
    }),
  );
  assert.equal(confirmed.valid, true);
  assert.equal(confirmed.keyPinning, "first_use");
  assert.equal((await store.get("calculate_sum", "example.com"))?.source, "confirmed");
});

Deno.test("a seeded fingerprint is honoured; a changed key is KEY_PIN_MISMATCH", async () => {
  const seeded = new MemoryPinStore([pin(SIGNER.publicKey.fingerprint)]);
  const ok = await verifySchemaOffline(options({ pinStore: seeded, trustFirstUse: false }));
  assert.equal(ok.valid, true);
  assert.equal(ok.keyPinning, "pinned");
  const changed = new MemoryPinStore([pin(OTHER.publicKey.fingerprint)]);
  const r = await verifySchemaOffline(options({ pinStore: changed }));
  expectFailure(r, "KEY_PIN_MISMATCH");
  assert.match(r.errorMessage!, /rotate/);
  assert.equal(
    (await changed.get("calculate_sum", "example.com"))?.fingerprint,
    OTHER.publicKey.fingerprint,
  );
});

Deno.test("a pin written concurrently with another key is reported, never replaced", async () => {
  // get() says "no pin", but by the time of the write another verifier pinned another key.
  const inner = new MemoryPinStore([pin(OTHER.publicKey.fingerprint)]);
  const racing = {
    get: () => Promise.resolve(undefined),
    list: () => inner.list(),
    transact: inner.transact.bind(inner),
  };
  const r = await verifySchemaOffline(options({ pinStore: racing }));
  expectFailure(r, "KEY_PIN_MISMATCH");
  assert.equal(
    (await inner.get("calculate_sum", "example.com"))?.fingerprint,
    OTHER.publicKey.fingerprint,
  );
});

Deno.test("revocation: the discovery list and the standalone document each revoke", async () => {
  const fp = SIGNER.publicKey.fingerprint;
  const revDoc = (fingerprint: string, domain = "example.com") => ({
    schemapin_version: "1.2",
    domain,
    updated_at: "2026-02-11T00:00:00Z",
    revoked_keys: [{ fingerprint, revoked_at: "2026-02-10T00:00:00Z", reason: "key_compromise" }],
  });
  expectFailure(
    await verifySchemaOffline(options({ discovery: discoveryFor(SIGNER, { revoked_keys: [fp] }) })),
    "KEY_REVOKED",
  );
  const r = await verifySchemaOffline(options({ revocation: revDoc(fp) }));
  expectFailure(r, "KEY_REVOKED");
  assert.match(r.errorMessage!, /key_compromise/);
  const fine = await verifySchemaOffline(
    options({ revocation: revDoc(OTHER.publicKey.fingerprint) }),
  );
  assert.equal(fine.valid, true);
  expectFailure(
    await verifySchemaOffline(options({ revocation: revDoc(fp, "other.example") })),
    "DOMAIN_MISMATCH",
  );
  expectFailure(
    await verifySchemaOffline(
      options({ revocation: { ...revDoc(fp), revoked_keys: [{ fingerprint: fp }] } }),
    ),
    "DISCOVERY_INVALID",
  );
  // A declared revocation endpoint must be checked (§9), unless explicitly opted out.
  const declared = discoveryFor(SIGNER, { revocation_endpoint: "https://example.com/r.json" });
  expectFailure(
    await verifySchemaOffline(options({ discovery: declared })),
    "DISCOVERY_FETCH_FAILED",
  );
  const supplied = await verifySchemaOffline(
    options({ discovery: declared, revocation: revDoc(OTHER.publicKey.fingerprint) }),
  );
  assert.equal(supplied.valid, true);
  const optedOut = await verifySchemaOffline(
    options({ discovery: declared, allowMissingRevocation: true }),
  );
  assert.equal(optedOut.valid, true);
  assert.deepEqual(optedOut.warnings, ["revocation_document_missing"]);
});

Deno.test("interop: reference revocation documents revoke the reference signer", async () => {
  const fixture = interopJson("schema_signatures.json") as {
    signatures: { schema: unknown; signature: string }[];
  };
  const base = {
    schema: fixture.signatures[0].schema,
    signature: fixture.signatures[0].signature,
    domain: "example.com",
    toolId: "calculate_sum",
    pinStore: new MemoryPinStore(),
    trustFirstUse: true,
  };
  expectFailure(
    await verifySchemaOffline({ ...base, discovery: interopJson("well_known_revoked.json") }),
    "KEY_REVOKED",
  );
  expectFailure(
    await verifySchemaOffline({
      ...base,
      discovery: interopJson("well_known.json"),
      revocation: interopJson("revocations_signer_revoked.json"),
    }),
    "KEY_REVOKED",
  );
  const ok = await verifySchemaOffline({
    ...base,
    discovery: interopJson("well_known.json"),
    revocation: interopJson("revocations.json"),
  });
  assert.equal(ok.valid, true, ok.errorMessage);
});

Deno.test("expiry fails closed 300 s after expires_at, at the boundary exactly", async () => {
  const schema = toolSchema();
  const expires = T0 + DAY;
  const doc = signSchemaDocument(schema, SIGNER, { signedAt: T0, expiresAt: expires });
  const at = (now: number, extra: Partial<VerifySchemaOfflineOptions> = {}) =>
    verifySchemaOffline(options({ schema, signature: doc, now, ...extra }));
  for (const now of [T0, expires, expires + EXPIRY_SKEW_MS - 1, expires + EXPIRY_SKEW_MS]) {
    const r = await at(now);
    assert.equal(r.valid, true, `${now - expires} ms after expiry`);
    assert.equal(r.expired, false);
    assert.equal(r.expiresAt, "2026-05-02T10:00:00Z");
  }
  const store = new MemoryPinStore();
  const late = await at(expires + EXPIRY_SKEW_MS + 1, { pinStore: store });
  expectFailure(late, "SIGNATURE_EXPIRED");
  assert.equal(late.expired, true);
  assert.equal(late.expiresAt, "2026-05-02T10:00:00Z");
  assert.deepEqual(await store.list(), []);
  const allowed = await at(expires + DAY, { allowExpired: true });
  assert.equal(allowed.valid, true);
  assert.equal(allowed.expired, true);
  assert.deepEqual(allowed.warnings, ["signature_expired"]);
});

Deno.test("an expires_at that is not strict RFC 3339 fails with SIGNATURE_EXPIRED", async () => {
  const schema = toolSchema();
  // Sign documents whose expires_at is malformed (bypassing the builder's validation).
  const { signDocument } = await import("../../lib/crypto/ecdsa.ts");
  const { schemaSignatureSigningInput } = await import("../../lib/schema/document.ts");
  for (const bad of ["2099-01-01 00:00:00Z", "2099-01-01", "tomorrow", 4102444800, null]) {
    const doc = signSchemaDocument(schema, SIGNER, { signedAt: T0 });
    const withBad = { ...doc, expires_at: bad as never };
    withBad.signature = signDocument(schemaSignatureSigningInput(withBad), SIGNER);
    const r = await verifySchemaOffline(options({ schema, signature: withBad as never, now: T0 }));
    expectFailure(r, "SIGNATURE_EXPIRED");
    assert.equal(r.expired, true);
    const allowed = await verifySchemaOffline(
      options({ schema, signature: withBad as never, now: T0, allowExpired: true }),
    );
    assert.equal(allowed.valid, true);
    assert.deepEqual(allowed.warnings, ["signature_expires_at_unparseable"]);
  }
  // Stripping expires_at from a signed document breaks the signature (it is covered, §16.2).
  const doc = signSchemaDocument(schema, SIGNER, { signedAt: T0, expiresAt: T0 + DAY });
  const { expires_at: _gone, ...stripped } = doc;
  expectFailure(
    await verifySchemaOffline(
      options({ schema, signature: stripped as never, now: T0 + 10 * DAY }),
    ),
    "SIGNATURE_INVALID",
  );
});

Deno.test("1.4 documents: every field is covered; schema_hash must match the schema", async () => {
  const schema = toolSchema();
  const doc = signSchemaDocument(schema, SIGNER, {
    signedAt: T0,
    domain: "example.com",
    signerKid: "k1",
    schemaVersion: "2.1.0",
    previousHash: "sha256:" + "a".repeat(64),
  });
  const ok = await verifySchemaOffline(options({ schema, signature: doc }));
  assert.equal(ok.valid, true, ok.errorMessage);
  assert.equal(ok.signatureFormat, "document");
  assert.equal(ok.schemaVersion, "2.1.0");
  assert.equal(ok.previousHash, "sha256:" + "a".repeat(64));
  assert.equal(ok.signerKid, "k1");
  assert.equal(ok.signedAt, "2026-05-01T10:00:00Z");
  assert.equal(ok.schemaHash, doc.schema_hash);
  const tampers: Record<string, unknown>[] = [
    { schema_version: "2.1.1" },
    { previous_hash: "sha256:" + "b".repeat(64) },
    { signer_kid: "k2" },
    { signed_at: "2026-05-01T10:00:01Z" },
    { expires_at: "2099-01-01T00:00:00Z" },
    { canonicalization: "schemapin-v1" },
    { schema_hash: "sha256:" + "c".repeat(64) },
  ];
  for (const t of tampers) {
    expectFailure(
      await verifySchemaOffline(options({ schema, signature: { ...doc, ...t } })),
      "SIGNATURE_INVALID",
    );
  }
  const r = await verifySchemaOffline(
    options({ schema: { ...schema, description: "changed" }, signature: doc }),
  );
  expectFailure(r, "SIGNATURE_INVALID");
  assert.match(r.errorMessage!, /schema changed after signing/);
  assert.equal(r.schemaVersion, undefined, "nothing unauthenticated is reported");
  const extra = await verifySchemaOffline(options({ schema, signature: { ...doc, note: "x" } }));
  assert.equal(extra.valid, true);
  assert.deepEqual(extra.warnings, ["unprotected_fields"]);
  assert.deepEqual(extra.unprotectedFields, ["note"]);
  const malformed = await verifySchemaOffline(
    options({ schema, signature: { ...doc, schemapin_version: "1.3" } }),
  );
  expectFailure(malformed, "SIGNATURE_INVALID");
});

Deno.test("the domain argument is validated and is the only source of the pin key", async () => {
  for (
    const domain of [
      "https://example.com",
      "example.com:443",
      "localhost",
      "127.0.0.1",
      "example.com.",
      "../x.com",
    ]
  ) {
    const store = new SpyPinStore();
    const r = await verifySchemaOffline(options({ domain, pinStore: store }));
    expectFailure(r, "INPUT_INVALID");
    assert.equal(r.domain, undefined);
    assert.deepEqual(store.calls, []);
  }
  const schema = toolSchema();
  const doc = signSchemaDocument(schema, SIGNER, { signedAt: T0, domain: "example.com" });
  const store = new MemoryPinStore();
  const ok = await verifySchemaOffline(
    options({ schema, signature: doc, domain: "EXAMPLE.com", pinStore: store }),
  );
  assert.equal(ok.valid, true);
  assert.equal(ok.domain, "example.com");
  assert.equal((await store.list())[0].domain, "example.com");
  // A document signed for another domain does not verify for this one, and pins nothing.
  const store2 = new MemoryPinStore();
  const elsewhere = signSchemaDocument(schema, SIGNER, { signedAt: T0, domain: "evil.example" });
  const r = await verifySchemaOffline(options({ schema, signature: elsewhere, pinStore: store2 }));
  expectFailure(r, "DOMAIN_MISMATCH");
  assert.equal(r.domain, "example.com", "the reported domain is the caller's");
  assert.deepEqual(await store2.list(), []);
  expectFailure(await verifySchemaOffline(options({ toolId: "" })), "INPUT_INVALID");
});

Deno.test("a single-hash signature (Go SDK bug) is invalid and says so", async () => {
  const schema = toolSchema();
  const single = encodeBase64(signDigest(sha256(canonicalizeSchemapinV1Bytes(schema)), SIGNER));
  const r = await verifySchemaOffline(options({ schema, signature: single }));
  expectFailure(r, "SIGNATURE_INVALID");
  assert.match(r.errorMessage!, /single-hash/);
});

Deno.test("__proto__ keys are signed and tool ids like __proto__ pin normally (file store)", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const schema = parseJson(
      new TextEncoder().encode('{"name":"x","__proto__":{"polluted":true},"constructor":1}'),
    );
    const store = new FilePinStore(`${dir}/pins.json`);
    for (const toolId of ["__proto__", "constructor"]) {
      const r = await verifySchemaOffline(
        options({ schema, signature: signSchemaBase64(schema, SIGNER), toolId, pinStore: store }),
      );
      assert.equal(r.valid, true, r.errorMessage);
      assert.equal(r.keyPinning, "first_use");
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const without = parseJson(new TextEncoder().encode('{"name":"x","constructor":1}'));
    expectFailure(
      await verifySchemaOffline(
        options({
          schema: without,
          signature: signSchemaBase64(schema, SIGNER),
          toolId: "__proto__",
          pinStore: store,
        }),
      ),
      "SIGNATURE_INVALID",
    );
    assert.equal((await store.list()).length, 2);
  } finally {
    await cleanup();
  }
});

Deno.test("an unreadable pin store fails verification instead of being treated as empty", async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await Deno.writeTextFile(`${dir}/pins.json`, "{not json");
    const r = await verifySchemaOffline(
      options({ pinStore: new FilePinStore(`${dir}/pins.json`) }),
    );
    expectFailure(r, "INPUT_INVALID");
    assert.equal(await Deno.readTextFile(`${dir}/pins.json`), "{not json");
  } finally {
    await cleanup();
  }
});

Deno.test("misuse throws", async () => {
  await assert.rejects(
    () => verifySchemaOffline(options({ pinStore: undefined as never })),
    { name: "SchemaPinError", code: "INPUT_INVALID", message: /options\.pinStore/ },
  );
  await assert.rejects(() => verifySchemaOffline(options({ signature: 5 as never })), {
    name: "SchemaPinError",
    code: "INPUT_INVALID",
    message: /options\.signature must be .*, got a number \(5\)/,
  });
  expectFailure(await verifySchemaOffline(options({ signature: "  " })), "SIGNATURE_INVALID");
});

Deno.test("the signature-check cache never turns another input valid nor skips other steps", async () => {
  const { clearSignatureCheckCache } = await import("../../lib/schema/verify.ts");
  clearSignatureCheckCache();
  const schema = toolSchema();
  const sig = signSchemaBase64(schema, SIGNER);
  const doc = signSchemaDocument(schema, SIGNER, { signedAt: T0, expiresAt: T0 + DAY });
  assert.equal((await verifySchemaOffline(options({ schema, signature: sig }))).valid, true);
  assert.equal(
    (await verifySchemaOffline(options({ schema, signature: doc, now: T0 }))).valid,
    true,
  );
  // Cached now. Each differing input is still checked in full.
  expectFailure(
    await verifySchemaOffline(options({ schema: { ...schema, x: 1 }, signature: sig })),
    "SIGNATURE_INVALID",
  );
  expectFailure(
    await verifySchemaOffline(options({ schema, signature: sig, discovery: discoveryFor(OTHER) })),
    "SIGNATURE_INVALID",
  );
  expectFailure(
    await verifySchemaOffline(options({ schema, signature: signSchemaBase64({ a: 1 }, SIGNER) })),
    "SIGNATURE_INVALID",
  );
  expectFailure(
    await verifySchemaOffline(
      options({ schema, signature: { ...doc, schema_version: "1" }, now: T0 }),
    ),
    "SIGNATURE_INVALID",
  );
  expectFailure(
    await verifySchemaOffline(options({ schema, signature: { ...doc, signature: sig }, now: T0 })),
    "SIGNATURE_INVALID",
  );
  // Revocation, pins and expiry still run on a cached signature.
  expectFailure(
    await verifySchemaOffline(
      options({
        schema,
        signature: sig,
        discovery: discoveryFor(SIGNER, { revoked_keys: [SIGNER.publicKey.fingerprint] }),
      }),
    ),
    "KEY_REVOKED",
  );
  expectFailure(
    await verifySchemaOffline(
      options({
        schema,
        signature: sig,
        pinStore: new MemoryPinStore([pin(OTHER.publicKey.fingerprint)]),
      }),
    ),
    "KEY_PIN_MISMATCH",
  );
  expectFailure(
    await verifySchemaOffline(options({ schema, signature: doc, now: T0 + 2 * DAY })),
    "SIGNATURE_EXPIRED",
  );
  expectFailure(
    await verifySchemaOffline(options({ schema, signature: sig, trustFirstUse: false })),
    "KEY_NOT_FOUND",
  );
  clearSignatureCheckCache();
});
