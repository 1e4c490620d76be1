import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import {
  buildDiscoveryDocument,
  checkHttpsUrl,
  loadDiscoveryKey,
  parseDiscoveryDocument,
} from "../../lib/discovery/document.ts";
import { isSchemaPinError } from "../../lib/errors.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { discoveryFor, interopJson, OTHER, SIGNER } from "../schema/_fixtures.ts";

const invalid = (re: RegExp) => (e: unknown) =>
  isSchemaPinError(e, "DISCOVERY_INVALID") && re.test(e.message);

Deno.test("the reference discovery documents parse and yield the reference fingerprint", () => {
  const sigs = interopJson("schema_signatures.json") as Record<string, string>;
  for (const name of ["well_known.json", "well_known_revoked.json"]) {
    const { document, warnings } = parseDiscoveryDocument(interopJson(name), name);
    assert.deepEqual(warnings, []);
    assert.equal(document.developer_name, "Interop Fixture Developer");
    assert.equal(loadDiscoveryKey(document, name).fingerprint, sigs.public_key_fingerprint);
  }
  const revoked = parseDiscoveryDocument(interopJson("well_known_revoked.json")).document;
  assert.deepEqual(revoked.revoked_keys, [sigs.public_key_fingerprint]);
});

Deno.test("discovery documents 1.0–1.4 are accepted; newer 1.x warns; other majors fail", () => {
  for (const v of ["1.0", "1.1", "1.2", "1.3", "1.4"]) {
    assert.deepEqual(
      parseDiscoveryDocument(discoveryFor(SIGNER, { schema_version: v })).warnings,
      [],
    );
  }
  assert.deepEqual(
    parseDiscoveryDocument(discoveryFor(SIGNER, { schema_version: "1.7" })).warnings,
    ["discovery_schema_version_newer"],
  );
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { schema_version: "2.0" })),
    invalid(/major version/),
  );
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { schema_version: "latest" })),
    invalid(/not a version/),
  );
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { schema_version: 1.2 })),
    invalid(/must be a string/),
  );
  const noVersion = discoveryFor();
  delete noVersion.schema_version;
  assert.throws(
    () => parseDiscoveryDocument(noVersion, "wk.json"),
    invalid(/^wk\.json: schema_version is missing/),
  );
});

Deno.test("a missing, empty or non-PEM key makes the document invalid", () => {
  const noKey = discoveryFor();
  delete noKey.public_key_pem;
  assert.throws(() => parseDiscoveryDocument(noKey), invalid(/public_key_pem is missing/));
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { public_key_pem: "" })),
    invalid(/empty/),
  );
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { public_key_pem: "  \n" })),
    invalid(/empty/),
  );
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { public_key_pem: "MFkwEwYH" })),
    invalid(/BEGIN PUBLIC KEY/),
  );
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { public_key_pem: null })),
    invalid(/must be a string/),
  );
});

Deno.test("a key that is not ECDSA P-256 is refused at step 2", () => {
  const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" }).publicKey
    .export({ type: "spki", format: "pem" }) as string;
  const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey
    .export({ type: "spki", format: "pem" }) as string;
  const lines = SIGNER.publicKey.pem.trim().split("\n");
  const truncated = [lines[0], lines[1], lines[lines.length - 1]].join("\n") + "\n";
  assert.notEqual(truncated, SIGNER.publicKey.pem);
  for (const pem of [p384, rsa, truncated]) {
    const { document } = parseDiscoveryDocument(discoveryFor(SIGNER, { public_key_pem: pem }));
    assert.throws(
      () => loadDiscoveryKey(document, "wk.json"),
      invalid(/^wk\.json: public_key_pem is not a usable ECDSA P-256 key/),
    );
  }
});

Deno.test("revoked_keys must be a list of well-formed fingerprints (fail closed)", () => {
  const ok = parseDiscoveryDocument(discoveryFor(SIGNER, { revoked_keys: [] })).document;
  assert.deepEqual(ok.revoked_keys, []);
  for (
    const bad of [
      "sha256:abc",
      "sha256:" + "AB".repeat(32),
      "ab".repeat(32),
      42,
      null,
    ]
  ) {
    assert.throws(
      () => parseDiscoveryDocument(discoveryFor(SIGNER, { revoked_keys: [bad] })),
      invalid(/revoked_keys\[0\]/),
    );
  }
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { revoked_keys: "sha256:x" })),
    invalid(/must be an array/),
  );
});

Deno.test("revocation_endpoint must be https without credentials; contact a string", () => {
  const ok = parseDiscoveryDocument(discoveryFor(SIGNER, {
    revocation_endpoint: "https://example.com/.well-known/schemapin-revocations.json",
    contact: "security@example.com",
  })).document;
  assert.equal(ok.contact, "security@example.com");
  for (
    const url of [
      "http://example.com/r.json",
      "ftp://example.com/r",
      "/relative",
      "https://u:p@example.com/r",
    ]
  ) {
    assert.throws(
      () => parseDiscoveryDocument(discoveryFor(SIGNER, { revocation_endpoint: url })),
      invalid(/revocation_endpoint/),
      url,
    );
  }
  assert.throws(
    () => parseDiscoveryDocument(discoveryFor(SIGNER, { contact: ["a"] })),
    invalid(/contact must be a string/),
  );
  assert.equal(checkHttpsUrl("https://example.com/x"), undefined);
});

Deno.test("unknown fields are dropped; __proto__ is an ordinary ignored field", () => {
  const bytes = new TextEncoder().encode(
    JSON.stringify(discoveryFor()).slice(0, -1) +
      ',"__proto__":{"revoked_keys":[]},"extra":1}',
  );
  const { document } = parseDiscoveryDocument(parseJson(bytes));
  assert.deepEqual(Object.keys(document).sort(), [
    "developer_name",
    "public_key_pem",
    "schema_version",
  ]);
  assert.equal(({} as Record<string, unknown>).revoked_keys, undefined);
  assert.throws(() => parseDiscoveryDocument([]), invalid(/must be a JSON object/));
  assert.throws(() => parseDiscoveryDocument(null), invalid(/must be a JSON object/));
});

Deno.test("buildDiscoveryDocument builds a valid 1.4 document", () => {
  const doc = buildDiscoveryDocument({
    publicKey: SIGNER.publicKey.pem,
    developerName: "Example Corp",
    contact: "security@example.com",
    revocationEndpoint: "https://example.com/rev.json",
    revokedKeys: [OTHER.publicKey.fingerprint, OTHER.publicKey.fingerprint],
  });
  assert.equal(doc.schema_version, "1.4");
  assert.deepEqual(doc.revoked_keys, [OTHER.publicKey.fingerprint]);
  const parsed = parseDiscoveryDocument(JSON.parse(JSON.stringify(doc)));
  assert.deepEqual(parsed.document, doc);
  assert.equal(loadDiscoveryKey(parsed.document).fingerprint, SIGNER.publicKey.fingerprint);
});

Deno.test("buildDiscoveryDocument refuses bad inputs", () => {
  const base = { publicKey: SIGNER.publicKey, developerName: "X" };
  const inputInvalid = (e: unknown) => isSchemaPinError(e, "INPUT_INVALID");
  assert.throws(() => buildDiscoveryDocument({ ...base, developerName: " " }), inputInvalid);
  assert.throws(
    () => buildDiscoveryDocument({ ...base, revocationEndpoint: "http://x.com/r" }),
    inputInvalid,
  );
  assert.throws(
    () => buildDiscoveryDocument({ ...base, revokedKeys: ["sha256:nothex"] }),
    inputInvalid,
  );
  assert.throws(
    () => buildDiscoveryDocument({ ...base, revokedKeys: [SIGNER.publicKey.fingerprint] }),
    (e) => isSchemaPinError(e, "INPUT_INVALID") && /current key/.test(e.message),
  );
  assert.throws(() => buildDiscoveryDocument({ ...base, contact: "" }), inputInvalid);
  assert.throws(
    () => buildDiscoveryDocument({ ...base, publicKey: "not a pem" }),
    (e) => isSchemaPinError(e, "KEY_INVALID"),
  );
});
