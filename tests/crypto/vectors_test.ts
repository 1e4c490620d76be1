import assert from "node:assert/strict";
import { canonicalizeSchemapinV1 } from "../../lib/json/canonical_schemapin.ts";
import {
  type SignatureCheck,
  verifyDocumentSignature,
  verifySchemaSignature,
} from "../../lib/crypto/ecdsa.ts";
import { sha256, sha256Hex } from "../../lib/crypto/hash.ts";
import { parsePrivateKeyPem, parsePublicKeyPem } from "../../lib/crypto/keys.ts";
import { makeSignatureVectors } from "../../scripts/vectors_signatures.ts";

const VECTORS = new URL("../../vectors/signatures.json", import.meta.url);
const FIXTURE_KEY = new URL("../fixtures/vector_key.pem", import.meta.url);
const utf8 = (s: string) => new TextEncoder().encode(s);

interface Entry {
  name: string;
  expect: "valid" | "invalid";
  reason?: string;
  schema?: unknown;
  document?: unknown;
  canonical: string;
  canonical_sha256: string;
  ecdsa_digest: string;
  signature: string;
}
interface Vectors {
  key: { private_key_pem: string; public_key_pem: string; public_key_fingerprint: string };
  schema_signatures: Entry[];
  document_signatures: Entry[];
}

function verdict(check: SignatureCheck): string {
  return check.valid ? "valid" : `invalid/${check.reason}`;
}

/** Checks every entry against this implementation; returns how many were checked. */
function checkVectors(data: Vectors): number {
  const sk = parsePrivateKeyPem(data.key.private_key_pem);
  const pk = parsePublicKeyPem(data.key.public_key_pem);
  assert.equal(sk.publicKey.fingerprint, pk.fingerprint);
  assert.equal(pk.fingerprint, data.key.public_key_fingerprint);
  assert.equal(data.key.private_key_pem, Deno.readTextFileSync(FIXTURE_KEY));
  let n = 0;
  for (
    const [kind, entries] of [["schema", data.schema_signatures], [
      "document",
      data.document_signatures,
    ]] as const
  ) {
    assert.ok(entries.length > 0, `${kind} entries present`);
    assert.ok(entries.some((e) => e.expect === "valid"), `${kind}: some valid entries`);
    assert.ok(entries.some((e) => e.expect === "invalid"), `${kind}: some invalid entries`);
    for (const e of entries) {
      const value = kind === "schema" ? e.schema : e.document;
      assert.equal(canonicalizeSchemapinV1(value), e.canonical, `${e.name}: canonical`);
      const bytes = utf8(e.canonical);
      assert.equal(sha256Hex(bytes), e.canonical_sha256, `${e.name}: canonical_sha256`);
      const digest = kind === "schema" ? sha256Hex(sha256(bytes)) : sha256Hex(bytes);
      assert.equal(e.ecdsa_digest, digest, `${e.name}: ecdsa_digest`);
      const got = kind === "schema"
        ? verifySchemaSignature(bytes, e.signature, pk)
        : verifyDocumentSignature(bytes, e.signature, pk);
      const want = e.expect === "valid" ? "valid" : `invalid/${e.reason}`;
      assert.equal(verdict(got), want, `${e.name}: verdict`);
      n++;
    }
  }
  return n;
}

// The published corpus is committed: a checkout without it fails here (it used to skip
// quietly — a missing file is a broken checkout, not a missing tool).
const published: Vectors = JSON.parse(Deno.readTextFileSync(VECTORS));

Deno.test("the generator's signature vectors all check out", async () => {
  const data = await makeSignatureVectors() as Vectors;
  const n = checkVectors(data);
  assert.ok(n >= 15, `${n} entries`);
  // the expected kinds of negative entries are there
  const reasons = new Set(data.schema_signatures.map((e) => e.reason));
  for (const r of ["malformed", "mismatch", "single-hash"]) assert.ok(reasons.has(r), r);
  assert.ok(data.schema_signatures.some((e) => e.name === "high-s" && e.expect === "valid"));
});

Deno.test("the generator is deterministic (RFC 6979): two runs give identical vectors", async () => {
  assert.deepEqual(await makeSignatureVectors(), await makeSignatureVectors());
});

Deno.test({
  name: "vectors/signatures.json: every entry verifies as its `expect` says",
  fn(): void {
    checkVectors(published);
  },
});

Deno.test({
  name:
    "vectors/signatures.json is what scripts/vectors_signatures.ts generates (regenerate with `deno task vectors`)",
  async fn(): Promise<void> {
    assert.deepEqual(published, JSON.parse(JSON.stringify(await makeSignatureVectors())));
  },
});

Deno.test("a corrupted copy of the vectors fails the check (the check can fail)", async () => {
  const data = await makeSignatureVectors() as Vectors;
  const flip = (e: Entry) =>
    ({ ...e, expect: e.expect === "valid" ? "invalid" : "valid" }) as Entry;
  const bad = {
    ...data,
    schema_signatures: [flip(data.schema_signatures[0]), ...data.schema_signatures.slice(1)],
  };
  assert.throws(() => checkVectors(bad), /verdict/);
  const [first, ...rest] = data.document_signatures;
  const badDigest = {
    ...data,
    document_signatures: [{ ...first, ecdsa_digest: "0".repeat(64) }, ...rest],
  };
  assert.throws(() => checkVectors(badDigest), /ecdsa_digest/);
});
