// Unsigned bundles (§13): create, add, parse, validate, find; the §21.3 signing input.
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import {
  addDiscoveryToBundle,
  addRevocationToBundle,
  checkKid,
  createTrustBundle,
  findInTrustBundle,
  isSignedTrustBundle,
  parseTrustBundle,
  type TrustBundle,
  trustBundleSigningInput,
} from "../../lib/bundle/bundle.ts";
import {
  clone,
  DEV_A,
  DEV_B,
  raw,
  referenceBundle,
  revocationDoc,
  unsignedBundle,
  wellKnown,
} from "./_helpers.ts";

const dec = new TextDecoder();
const invalid = (re: RegExp) => (e: unknown) =>
  isSchemaPinError(e, "DISCOVERY_INVALID") && re.test((e as Error).message);

Deno.test("createTrustBundle makes an empty 1.2 bundle with the given created_at", () => {
  const b = createTrustBundle(Date.UTC(2026, 4, 15));
  assert.deepEqual(b, {
    schemapin_bundle_version: "1.2",
    created_at: "2026-05-15T00:00:00Z",
    documents: [],
    revocations: [],
  });
  assert.equal(isSignedTrustBundle(b), false);
});

Deno.test("add and find: documents and revocations by domain, case-insensitively", () => {
  let b = createTrustBundle("2026-05-15T00:00:00Z");
  b = addDiscoveryToBundle(b, "Example.com", { ...wellKnown(DEV_A), x_extra: 1 });
  b = addDiscoveryToBundle(b, "other.example", wellKnown(DEV_B));
  b = addRevocationToBundle(
    b,
    "example.com",
    revocationDoc("example.com", DEV_B.publicKey.fingerprint),
  );
  assert.equal(b.documents.length, 2);
  assert.equal(b.documents[0].domain, "example.com");
  assert.equal(Object.hasOwn(b.documents[0], "x_extra"), false, "unknown fields are dropped");
  assert.deepEqual(b.documents[0].revoked_keys, [], "revoked_keys is always present");
  const found = findInTrustBundle(b, "EXAMPLE.COM");
  assert.equal(found?.discovery.public_key_pem, DEV_A.publicKey.pem);
  assert.equal(found?.revocation?.revoked_keys[0].fingerprint, DEV_B.publicKey.fingerprint);
  assert.equal(findInTrustBundle(b, "other.example")?.revocation, undefined);
  assert.equal(findInTrustBundle(b, "missing.example"), undefined);
  // The round trip through parse keeps every known field.
  assert.deepEqual(parseTrustBundle(clone(b)), b);
});

Deno.test("add refuses duplicates (unless replace), mismatched domains, signed bundles", () => {
  const b = addDiscoveryToBundle(createTrustBundle(), "example.com", wellKnown(DEV_A));
  assert.throws(
    () => addDiscoveryToBundle(b, "EXAMPLE.com", wellKnown(DEV_B)),
    (e) => isSchemaPinError(e, "INPUT_INVALID") && /already has a discovery/.test(e.message),
  );
  const replaced = addDiscoveryToBundle(b, "example.com", wellKnown(DEV_B), { replace: true });
  assert.equal(replaced.documents.length, 1);
  assert.equal(replaced.documents[0].public_key_pem, DEV_B.publicKey.pem);
  assert.equal(b.documents[0].public_key_pem, DEV_A.publicKey.pem, "the input is not modified");
  assert.throws(
    () => addRevocationToBundle(b, "example.com", revocationDoc("other.example")),
    (e) =>
      isSchemaPinError(e, "INPUT_INVALID") && /other\.example, not example\.com/.test(e.message),
  );
  assert.throws(
    () => addDiscoveryToBundle(b, "x.example", { ...wellKnown(DEV_A), domain: "y.example" }),
    (e) => isSchemaPinError(e, "INPUT_INVALID") && /names domain y\.example/.test(e.message),
  );
  assert.throws(
    () => addDiscoveryToBundle(b, "https://x.example", wellKnown(DEV_A)),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  const signedLike = {
    ...b,
    signature: "MEUC",
    bundle_authority: { kid: "k", public_key_pem: "x" },
  };
  assert.throws(
    () => addDiscoveryToBundle(signedLike, "z.example", wellKnown(DEV_A)),
    (e) => isSchemaPinError(e, "INPUT_INVALID") && /signed trust bundle/.test(e.message),
  );
  assert.throws(
    () => addDiscoveryToBundle(b, "z.example", { ...wellKnown(DEV_A), public_key_pem: "nope" }),
    invalid(/public_key_pem/),
  );
});

Deno.test("parseTrustBundle rejects duplicate domains in documents and in revocations", () => {
  const dupDocs = clone(unsignedBundle({ "example.com": DEV_A })) as TrustBundle;
  dupDocs.documents.push({ ...dupDocs.documents[0], domain: "EXAMPLE.com" });
  assert.throws(
    () => parseTrustBundle(dupDocs, "b.json"),
    invalid(/b\.json: documents\[1\]\.domain repeats example\.com: more than one entry/),
  );
  const dupRevs = raw(unsignedBundle({ "example.com": DEV_A }));
  dupRevs.revocations = [revocationDoc("example.com"), revocationDoc("example.com")];
  assert.throws(() => parseTrustBundle(dupRevs, "b.json"), invalid(/revocations\[1\]\.domain/));
});

Deno.test("parseTrustBundle names the file and field of each malformation", () => {
  const base = () => raw(unsignedBundle({ "example.com": DEV_A }));
  const cases: [string, (b: Record<string, unknown>) => void, RegExp][] = [
    ["no version", (b) => delete b.schemapin_bundle_version, /schemapin_bundle_version is missing/],
    ["version 2", (b) => (b.schemapin_bundle_version = "2.0"), /schemapin_bundle_version "2\.0"/],
    ["numeric version", (b) => (b.schemapin_bundle_version = 1.2), /schemapin_bundle_version/],
    ["no created_at", (b) => delete b.created_at, /created_at is missing/],
    ["created_at number", (b) => (b.created_at = 5), /created_at must be a string/],
    ["no documents", (b) => delete b.documents, /documents is missing/],
    ["documents object", (b) => (b.documents = {}), /documents must be an array/],
    ["document string", (b) => (b.documents = ["x"]), /documents\[0\] must be an object/],
    [
      "bad domain",
      (b) => ((b.documents as Record<string, unknown>[])[0].domain = "https://example.com"),
      /documents\[0\]\.domain/,
    ],
    [
      "no domain",
      (b) => delete (b.documents as Record<string, unknown>[])[0].domain,
      /documents\[0\]\.domain is missing/,
    ],
    [
      "bad revoked key",
      (b) => ((b.documents as Record<string, unknown>[])[0].revoked_keys = ["md5:x"]),
      /documents\[0\].*revoked_keys\[0\]/,
    ],
    ["revocations object", (b) => (b.revocations = {}), /revocations must be an array/],
    [
      "revocation without updated_at",
      (b) => (b.revocations = [{ ...revocationDoc("example.com"), updated_at: "yesterday" }]),
      /revocations\[0\].*updated_at/,
    ],
    ["authority string", (b) => (b.bundle_authority = "me"), /bundle_authority must be an object/],
    [
      "authority empty kid",
      (b) => (b.bundle_authority = { kid: "", public_key_pem: "x" }),
      /bundle_authority\.kid/,
    ],
    [
      "authority no key",
      (b) => (b.bundle_authority = { kid: "k" }),
      /bundle_authority\.public_key_pem is missing/,
    ],
    ["signed_at number", (b) => (b.signed_at = 1), /signed_at must be a string/],
    ["expires_at number", (b) => (b.expires_at = 1), /expires_at must be a string/],
    ["signature number", (b) => (b.signature = 1), /signature must be a Base64 string/],
  ];
  for (const [name, mutate, re] of cases) {
    const b = base();
    mutate(b);
    assert.throws(
      () => parseTrustBundle(b, "in.json"),
      invalid(new RegExp("in\\.json: .*" + re.source)),
      name,
    );
  }
  assert.throws(() => parseTrustBundle([], "in.json"), invalid(/in\.json: .*JSON object/));
  assert.throws(() => parseTrustBundle(null), invalid(/JSON object/));
});

Deno.test("parseTrustBundle keeps optional document fields and accepts a missing developer_name", () => {
  const b = raw(unsignedBundle({ "example.com": DEV_A }));
  const doc = (b.documents as Record<string, unknown>[])[0];
  delete doc.developer_name;
  delete doc.revoked_keys;
  doc.contact = "sec@example.com";
  doc.revocation_endpoint = "https://example.com/rev.json";
  doc.unknown = true;
  delete b.revocations;
  const parsed = parseTrustBundle(b);
  assert.deepEqual(parsed.documents[0], {
    domain: "example.com",
    schema_version: "1.4",
    public_key_pem: DEV_A.publicKey.pem,
    revoked_keys: [],
    contact: "sec@example.com",
    revocation_endpoint: "https://example.com/rev.json",
  });
  assert.deepEqual(parsed.revocations, []);
  doc.revocation_endpoint = "http://example.com/rev.json";
  assert.throws(() => parseTrustBundle(b), invalid(/revocation_endpoint/));
});

Deno.test("signing input: known fields only, revoked_keys always present, signature empty", () => {
  const ref = referenceBundle();
  const input = dec.decode(trustBundleSigningInput(parseTrustBundle(ref)));
  assert.ok(input.includes('"signature":""'));
  assert.ok(input.includes('"revoked_keys":[]'));
  assert.ok(!input.includes(ref.signature as string));
  // Unknown fields anywhere do not change the signing input.
  const noisy = clone(ref);
  noisy.x_top = 1;
  (noisy.documents as Record<string, unknown>[])[0].x_doc = "y";
  (noisy.bundle_authority as Record<string, unknown>).x_auth = true;
  assert.equal(dec.decode(trustBundleSigningInput(parseTrustBundle(noisy))), input);
  // A document without revoked_keys signs the same as one with an empty list (§21.3).
  const without = clone(ref);
  delete (without.documents as Record<string, unknown>[])[0].revoked_keys;
  assert.equal(dec.decode(trustBundleSigningInput(parseTrustBundle(without))), input);
  // Every known field does change it.
  const changes: ((b: Record<string, unknown>) => void)[] = [
    (b) => (b.created_at = "2026-05-16T00:00:00Z"),
    (b) => (b.schemapin_bundle_version = "1.3"),
    (b) => ((b.documents as Record<string, unknown>[])[0].contact = "other@example.com"),
    (b) => delete (b.documents as Record<string, unknown>[])[0].developer_name,
    (b) => (b.revocations = [revocationDoc("example.com")]),
    (b) => delete b.expires_at,
    (b) => ((b.bundle_authority as Record<string, unknown>).kid = "other"),
  ];
  for (const change of changes) {
    const b = clone(ref);
    change(b);
    assert.notEqual(dec.decode(trustBundleSigningInput(parseTrustBundle(b))), input);
  }
});

Deno.test("the signing input of an unsigned bundle has no authority fields", () => {
  assert.equal(
    dec.decode(trustBundleSigningInput(createTrustBundle("2026-05-15T00:00:00Z"))),
    '{"created_at":"2026-05-15T00:00:00Z","documents":[],"revocations":[],' +
      '"schemapin_bundle_version":"1.2","signature":""}',
  );
});

Deno.test("checkKid accepts ordinary ids and rejects empty, control, padded, long ones", () => {
  assert.equal(checkKid("schemapin-bundle-authority-2026"), undefined);
  assert.equal(checkKid("__proto__"), undefined);
  for (const bad of ["", " k", "k\n", "a\u0000b", "x".repeat(257), 5, null, "\ud800"]) {
    assert.equal(typeof checkKid(bad), "string", JSON.stringify(bad));
  }
});
