// The published signed-lock corpus vectors/contractpin-lock-signature/
// (scripts/vectors_lock_signature.ts): the canonical bytes, hash and signing input are
// recomputed independently (the oracle's schemapin-v1 canonicalizer, node:crypto SHA-256 and ECDSA), and every
// case must get its published verdict from verifyLockSignature.
import assert from "node:assert/strict";
import { oracleSchemapinV1 } from "../oracle/canonical.ts";
import { oracleParse } from "../oracle/json.ts";
import { createHash, verify as nodeVerify } from "node:crypto";
import { parseJson } from "../../lib/json/parse.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { verifyLockSignature } from "../../cli/contractpin/lock_signature.ts";
import { buildLockSignatureVectors } from "../../scripts/vectors_lock_signature.ts";

const root = new URL("../../vectors/contractpin-lock-signature/", import.meta.url);
const text = (name: string) => Deno.readTextFileSync(new URL(name, root));
const expected = JSON.parse(text("expected.json")) as {
  tool_id: string;
  canonical: string;
  schema_hash: string;
  signing_input: string;
  public_key_fingerprint: string;
  cases: {
    name: string;
    lock_text?: string;
    signature: unknown;
    domain: string;
    discovery: unknown;
    verify_at: string;
    expect: string;
  }[];
};

/** schemapin-v1 canonical text by the project's independent oracle (tests/oracle: no lib/ code). */
const oracleCanonical = (value: unknown) =>
  oracleSchemapinV1(oracleParse(new TextEncoder().encode(JSON.stringify(value))));

const sha256 = (s: string) => "sha256:" + createHash("sha256").update(s).digest("hex");

Deno.test("lock signature vectors: canonical bytes and schema_hash recomputed independently", () => {
  // The lock file's own bytes, parsed and canonicalized by the oracle.
  const bytes = Deno.readFileSync(new URL("contractpin.lock", root));
  assert.equal(oracleSchemapinV1(oracleParse(bytes)), expected.canonical);
  assert.equal(sha256(expected.canonical), expected.schema_hash);
  const sig = JSON.parse(text("contractpin.lock.sig"));
  assert.equal(sig.schema_hash, expected.schema_hash);
  assert.equal(oracleCanonical({ ...sig, signature: "" }), expected.signing_input);
  assert.equal(expected.tool_id, "contractpin:lock");
});

Deno.test("lock signature vectors: node:crypto verifies the published signature (DER, P-256)", () => {
  const sig = JSON.parse(text("contractpin.lock.sig"));
  const der = Uint8Array.from(atob(sig.signature), (c) => c.charCodeAt(0));
  const ok = nodeVerify(
    "sha256",
    new TextEncoder().encode(expected.signing_input),
    text("TEST-ONLY-public.pem"),
    der,
  );
  assert.equal(ok, true);
  // The same signature over the lock's canonical bytes (not the signing input) must fail.
  assert.equal(
    nodeVerify(
      "sha256",
      new TextEncoder().encode(expected.canonical),
      text("TEST-ONLY-public.pem"),
      der,
    ),
    false,
  );
});

for (const c of expected.cases) {
  Deno.test(`lock signature vectors: case ${c.name} is ${c.expect}`, async () => {
    const lockText = c.lock_text ?? text("contractpin.lock");
    const r = await verifyLockSignature({
      lock: parseJson(new TextEncoder().encode(lockText)),
      signature: c.signature,
      domain: c.domain,
      discovery: c.discovery,
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
      now: Date.parse(c.verify_at),
    });
    assert.equal(r.valid ? "valid" : r.errorCode, c.expect, r.errorMessage);
    if (r.valid) assert.equal(r.keyFingerprint, expected.public_key_fingerprint);
  });
}

Deno.test("lock signature vectors: every failure kind the format promises is covered", () => {
  const verdicts = new Set(expected.cases.map((c) => c.expect));
  for (
    const v of [
      "valid",
      "SIGNATURE_INVALID",
      "SIGNATURE_EXPIRED", // §16.2
      "KEY_REVOKED",
      "DOMAIN_MISMATCH",
      "CANONICALIZATION_UNSUPPORTED", // §19.3
    ]
  ) {
    assert.ok(verdicts.has(v), v);
  }
  const negatives = expected.cases.filter((c) => c.expect !== "valid").length;
  assert.ok(negatives >= expected.cases.length - negatives);
});

Deno.test("lock signature vectors: vectors/contractpin-lock-signature/ is up to date", async () => {
  const files = await buildLockSignatureVectors();
  for (const [path, bytes] of Object.entries(files)) {
    assert.deepEqual(
      await Deno.readFile(new URL(path, root)),
      bytes,
      `vectors/contractpin-lock-signature/${path} is stale: run ` +
        "deno run --allow-read --allow-write=vectors scripts/vectors_lock_signature.ts",
    );
  }
});
