import assert from "node:assert/strict";
import { p256 } from "@noble/curves/nist.js";
import { bytesToNumberBE, numberToBytesBE } from "@noble/curves/utils.js";
import { SchemaPinError } from "../../lib/errors.ts";
import { decodeBase64Strict, encodeBase64 } from "../../lib/crypto/base64.ts";
import { decodeEcdsaDer, derInteger, derSequence, encodeEcdsaDer } from "../../lib/crypto/der.ts";
import {
  derToP1363,
  p1363ToDer,
  type SignatureCheck,
  signDigest,
  signDocument,
  signSchema,
  verifyDigest,
  verifyDocumentSignature,
  verifySchemaSignature,
} from "../../lib/crypto/ecdsa.ts";
import { sha256 } from "../../lib/crypto/hash.ts";
import {
  generateKeyPair,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  type PrivateKey,
  privateKeyToPem,
  type PublicKey,
} from "../../lib/crypto/keys.ts";
import { parsePem } from "../../lib/crypto/pem.ts";
import { canonicalizeSchemapinV1Bytes } from "../../lib/json/canonical_schemapin.ts";
import { schemaSignatureSigningInput, signSchemaDocument } from "../../lib/schema/document.ts";
import { thrown } from "./openssl_keys.ts";
import { INTEROP_JS } from "../fixtures/interop.ts";

const N = p256.Point.Fn.ORDER;
const INTEROP = INTEROP_JS;
const utf8 = (s: string) => new TextEncoder().encode(s);
const sk = generateKeyPair();
const other = generateKeyPair();
const canonical = utf8(
  '{"description":"Calculates the sum","name":"calculate_sum","parameters":{"a":"integer","b":"integer"}}',
);

function webcryptoKeys(key: PrivateKey): Promise<[CryptoKey, CryptoKey]> {
  const alg = { name: "ECDSA", namedCurve: "P-256" };
  return Promise.all([
    crypto.subtle.importKey("pkcs8", parsePem(privateKeyToPem(key)).der, alg, false, ["sign"]),
    crypto.subtle.importKey("spki", key.publicKey.spki, alg, false, ["verify"]),
  ]);
}
const ECDSA_SHA256 = { name: "ECDSA", hash: "SHA-256" };

function assertRejected(check: SignatureCheck, reason: string, pattern?: RegExp): void {
  assert.equal(check.valid, false);
  if (check.valid) return;
  assert.equal(check.reason, reason, check.errorMessage);
  assert.equal(check.errorCode, "SIGNATURE_INVALID");
  if (pattern) assert.match(check.errorMessage, pattern);
}

/** The same signature with s replaced by n − s (the other valid s for the same r). */
function flipS(signatureB64: string): string {
  const { r, s } = decodeEcdsaDer(decodeBase64Strict(signatureB64, "signature"));
  return encodeBase64(encodeEcdsaDer({ r, s: N - s }));
}

// ---------------------------------------------------------------- valid signatures

Deno.test("schema signatures round-trip and are deterministic (RFC 6979)", () => {
  const sig = signSchema(canonical, sk);
  assert.deepEqual(verifySchemaSignature(canonical, sig, sk.publicKey), { valid: true });
  assert.equal(signSchema(canonical, sk), sig);
  // §4.1: the ECDSA digest is SHA-256(SHA-256(canonical))
  const der = decodeBase64Strict(sig, "signature");
  assert.deepEqual(verifyDigest(sha256(sha256(canonical)), der, sk.publicKey), { valid: true });
});

Deno.test("document signatures round-trip over SHA-256(canonical)", () => {
  const sig = signDocument(canonical, sk);
  assert.deepEqual(verifyDocumentSignature(canonical, sig, sk.publicKey), { valid: true });
  const der = decodeBase64Strict(sig, "signature");
  assert.deepEqual(verifyDigest(sha256(canonical), der, sk.publicKey), { valid: true });
});

Deno.test("interop: every reference signature with expect 'valid' verifies over SHA-256(canonical)", async () => {
  const fixture = JSON.parse(Deno.readTextFileSync(`${INTEROP}/schema_signatures.json`));
  const pk = parsePublicKeyPem(Deno.readTextFileSync(`${INTEROP}/signer_public.pem`));
  const webKey = await crypto.subtle.importKey(
    "spki",
    pk.spki,
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["verify"],
  );
  const valid = fixture.signatures.filter((s: { expect: string }) => s.expect === "valid");
  assert.ok(valid.length >= 3);
  for (const entry of valid) {
    const bytes = utf8(entry.canonical);
    assert.deepEqual(verifySchemaSignature(bytes, entry.signature, pk), { valid: true });
    // Independent check: WebCrypto hashes the message once more, so message = SHA-256(canonical).
    const raw = derToP1363(decodeBase64Strict(entry.signature, "signature"));
    assert.equal(await crypto.subtle.verify(ECDSA_SHA256, webKey, raw, sha256(bytes)), true);
    // …and it is not a document (single-hash) signature.
    assertRejected(verifyDocumentSignature(bytes, entry.signature, pk), "mismatch");
  }
});

Deno.test("WebCrypto signatures (r‖s, converted to DER) verify; WebCrypto verifies ours", async () => {
  const [signKey, verifyKey] = await webcryptoKeys(sk);
  // schema: WebCrypto hashes its input, so give it SHA-256(canonical)
  const rawSchema = new Uint8Array(
    await crypto.subtle.sign(ECDSA_SHA256, signKey, sha256(canonical)),
  );
  const schemaSig = encodeBase64(p1363ToDer(rawSchema));
  assert.deepEqual(verifySchemaSignature(canonical, schemaSig, sk.publicKey), { valid: true });
  // document: WebCrypto signs the canonical bytes
  const rawDoc = new Uint8Array(await crypto.subtle.sign(ECDSA_SHA256, signKey, canonical));
  assert.deepEqual(
    verifyDocumentSignature(canonical, encodeBase64(p1363ToDer(rawDoc)), sk.publicKey),
    { valid: true },
  );
  // ours, checked by WebCrypto
  const ours = derToP1363(decodeBase64Strict(signSchema(canonical, sk), "signature"));
  assert.equal(await crypto.subtle.verify(ECDSA_SHA256, verifyKey, ours, sha256(canonical)), true);
  const ourDoc = derToP1363(decodeBase64Strict(signDocument(canonical, sk), "signature"));
  assert.equal(await crypto.subtle.verify(ECDSA_SHA256, verifyKey, ourDoc, canonical), true);
  assert.equal(await crypto.subtle.verify(ECDSA_SHA256, verifyKey, ourDoc, utf8("x")), false);
});

Deno.test("high-S signatures (s' = n − s) verify, for schemas and documents", async () => {
  const high = flipS(signSchema(canonical, sk));
  const { s } = decodeEcdsaDer(decodeBase64Strict(high, "signature"));
  assert.ok(s > N / 2n, "the flipped signature is high-S");
  assert.deepEqual(verifySchemaSignature(canonical, high, sk.publicKey), { valid: true });
  const highDoc = flipS(signDocument(canonical, sk));
  assert.deepEqual(verifyDocumentSignature(canonical, highDoc, sk.publicKey), { valid: true });
  // WebCrypto agrees that high-S is valid
  const [, verifyKey] = await webcryptoKeys(sk);
  const raw = derToP1363(decodeBase64Strict(high, "signature"));
  assert.equal(await crypto.subtle.verify(ECDSA_SHA256, verifyKey, raw, sha256(canonical)), true);
});

Deno.test("derToP1363 and p1363ToDer are inverse", () => {
  const der = decodeBase64Strict(signSchema(canonical, sk), "signature");
  const raw = derToP1363(der);
  assert.equal(raw.length, 64);
  assert.deepEqual(p1363ToDer(raw), der);
  // small r and s: DER integers are minimal, P1363 is left-padded
  const small = p1363ToDer(derToP1363(encodeEcdsaDer({ r: 1n, s: 0x80n })));
  assert.deepEqual(small, new Uint8Array([0x30, 7, 2, 1, 1, 2, 2, 0, 0x80]));
});

// ---------------------------------------------------------------- invalid signatures

Deno.test("a single-hash schema signature (Go reference SDK bug) is rejected as 'single-hash'", () => {
  const goStyle = encodeBase64(signDigest(sha256(canonical), sk));
  assertRejected(
    verifySchemaSignature(canonical, goStyle, sk.publicKey),
    "single-hash",
    /single-hash construction.*not tampering/,
  );
  // the same with the reference signer key
  const ref = parsePrivateKeyPem(Deno.readTextFileSync(`${INTEROP}/signer_private.pem`));
  const refSig = signDocument(canonical, ref); // = ECDSA over SHA-256(canonical)
  assertRejected(verifySchemaSignature(canonical, refSig, ref.publicKey), "single-hash");
  // tampered bytes under a single-hash signature are a plain mismatch
  assertRejected(verifySchemaSignature(utf8("{}"), goStyle, sk.publicKey), "mismatch");
});

Deno.test("tampered canonical bytes or another key give 'mismatch'", () => {
  const sig = signSchema(canonical, sk);
  const tampered = canonical.slice();
  tampered[10] ^= 1;
  assertRejected(verifySchemaSignature(tampered, sig, sk.publicKey), "mismatch", /does not match/);
  assertRejected(verifySchemaSignature(canonical, sig, other.publicKey), "mismatch");
  const doc = signDocument(canonical, sk);
  assertRejected(verifyDocumentSignature(tampered, doc, sk.publicKey), "mismatch");
  assertRejected(verifyDocumentSignature(canonical, doc, other.publicKey), "mismatch");
  // a schema signature is not a document signature
  assertRejected(verifyDocumentSignature(canonical, sig, sk.publicKey), "mismatch");
});

Deno.test("malformed Base64 gives 'malformed' with the offset, never an exception", () => {
  const sig = signSchema(canonical, sk);
  const cases: [string, RegExp][] = [
    ["", /expected SEQUENCE|missing/],
    ["!!!!", /not valid Base64: "!" at offset 0/],
    [sig.slice(0, 10) + " " + sig.slice(10), /a space at offset 10/],
    [sig + "\n", /line break/],
    // (the key is random per run, so these are built to differ from `sig` every time)
    [sig.endsWith("=") ? sig.replace(/=+$/, "") : sig + "=", /padding|multiple of 4/],
    ["-" + sig.slice(1), /URL-safe Base64 is not accepted/],
    [sig.slice(0, 8) + "_" + sig.slice(9), /URL-safe Base64 is not accepted/],
    ["MEU=" + sig, /padding "=" before the end|after padding/],
  ];
  for (const [text, pattern] of cases) {
    for (const verify of [verifySchemaSignature, verifyDocumentSignature]) {
      assertRejected(verify(canonical, text, sk.publicKey), "malformed", pattern);
    }
  }
  // non-canonical trailing bits: "MA==" is 0x30, "MB==" decodes to the same byte
  assertRejected(
    verifySchemaSignature(canonical, "MB==", sk.publicKey),
    "malformed",
    /trailing bits/,
  );
});

Deno.test("malformed DER gives 'malformed': non-minimal, trailing bytes, r = 0, s ≥ n, …", () => {
  const der = decodeBase64Strict(signSchema(canonical, sk), "signature");
  const { r, s } = decodeEcdsaDer(der);
  const int = (v: bigint) => derInteger(v);
  const rawInt = (bytes: number[]) => new Uint8Array([2, bytes.length, ...bytes]);
  const rBytes = [...numberToBytesBE(r, 32)];
  const cases: [Uint8Array, RegExp][] = [
    [new Uint8Array([...der, 0]), /trailing bytes/],
    [new Uint8Array([0x30, 0x81, ...der.subarray(1)]), /non-minimal length/],
    // a redundant leading zero byte in r
    [derSequence(rawInt([0, 0, ...rBytes]), int(s)), /non-minimal INTEGER r/],
    [derSequence(int(r), rawInt([0, 0x01])), /non-minimal INTEGER s/],
    [derSequence(int(0n), int(s)), /r is zero/],
    [derSequence(int(r), int(0n)), /s is zero/],
    [derSequence(int(r), int(N)), /s is not less than/],
    [derSequence(int(r), int(N + 5n)), /s is not less than/],
    [derSequence(int(N), int(s)), /r is not less than/],
    [derSequence(rawInt([0xff]), int(s)), /negative INTEGER r/],
    [derSequence(int(r)), /truncated|missing/],
    [derSequence(int(r), int(s), int(1n)), /trailing bytes after s/],
    [new Uint8Array([0x30, 0x80, ...der.subarray(2), 0, 0]), /indefinite length/],
    [der.subarray(0, der.length - 1), /truncated DER/],
    // raw r‖s is not DER (whatever byte r starts with, it never parses as this signature)
    [derToP1363(der), /SEQUENCE|truncated|trailing|length|tag/],
  ];
  for (const [bytes, pattern] of cases) {
    const text = encodeBase64(bytes);
    assertRejected(verifySchemaSignature(canonical, text, sk.publicKey), "malformed", pattern);
    assertRejected(verifyDocumentSignature(canonical, text, sk.publicKey), "malformed", pattern);
    assertRejected(verifyDigest(sha256(canonical), bytes, sk.publicKey), "malformed", pattern);
  }
});

Deno.test("u1·G + u2·P at infinity is a mismatch, not a crash", () => {
  // With P = d·G, choosing e ≡ −r·d makes R = (e + r·d)/s · G the point at infinity.
  const d = bytesToNumberBE(sk.scalar);
  const r = 12345n;
  const e = (N - (r * d) % N) % N;
  const der = encodeEcdsaDer({ r, s: 777n });
  assertRejected(verifyDigest(numberToBytesBE(e, 32), der, sk.publicKey), "mismatch");
});

Deno.test("misuse throws: bad digest length, bad private scalar, a PublicKey that is not P-256", () => {
  const e1 = thrown(() => signDigest(new Uint8Array(31), sk));
  assert.ok(e1 instanceof SchemaPinError && e1.code === "INPUT_INVALID");
  const e2 = thrown(() => verifyDigest(new Uint8Array(33), new Uint8Array(), sk.publicKey));
  assert.ok(e2 instanceof SchemaPinError && e2.code === "INPUT_INVALID");
  const bad: PrivateKey = { scalar: numberToBytesBE(N, 32), publicKey: sk.publicKey };
  const e3 = thrown(() => signSchema(canonical, bad));
  assert.ok(e3 instanceof SchemaPinError && e3.code === "KEY_INVALID");
  const notP256: PublicKey = { ...sk.publicKey, spki: new Uint8Array([0x30, 0]) };
  const e4 = thrown(() => verifySchemaSignature(canonical, signSchema(canonical, sk), notP256));
  assert.ok(e4 instanceof SchemaPinError && e4.code === "KEY_INVALID");
});

Deno.test("p1363ToDer refuses wrong lengths and out-of-range scalars", () => {
  for (const len of [0, 63, 65]) {
    const e = thrown(() => p1363ToDer(new Uint8Array(len)));
    assert.ok(e instanceof SchemaPinError && e.code === "INPUT_INVALID");
    assert.match(e.message, /64 bytes/);
  }
  const zero = thrown(() => p1363ToDer(new Uint8Array(64)));
  assert.match(zero.message, /r is zero/);
  const big = new Uint8Array(64).fill(0xff);
  assert.match(thrown(() => p1363ToDer(big)).message, /not less than/);
  assert.match(thrown(() => derToP1363(new Uint8Array([1, 2]))).message, /SEQUENCE/);
});

Deno.test("verification agrees with noble's p256.verify on random inputs, cold and hot keys", () => {
  const key = generateKeyPair();
  const wrong = generateKeyPair();
  // 100 rounds: the key becomes hot (its own table, and the precomputed copy of G) after 32.
  for (let i = 0; i < 100; i++) {
    const e = sha256(utf8(`message ${i}`));
    const der = signDigest(e, key);
    const { r, s } = decodeEcdsaDer(der);
    const high = encodeEcdsaDer({ r, s: N - s }); // the high-S twin is valid too
    const tampered = sha256(utf8(`message ${i}!`));
    for (
      const [pk, digest, sig] of [
        [key.publicKey, e, der],
        [key.publicKey, e, high],
        [key.publicKey, tampered, der],
        [wrong.publicKey, e, der],
      ] as const
    ) {
      const ours = verifyDigest(digest, sig, pk).valid;
      const noble = p256.verify(sig, digest, pk.point, {
        prehash: false,
        lowS: false,
        format: "der",
      });
      assert.equal(ours, noble, `round ${i}`);
    }
  }
});

Deno.test("a failed check says why: errorCode, errorMessage, and a 1.4 signature document named as such", () => {
  const schema = { name: "calculate_sum", description: "Calculates the sum" };
  const schemaBytes = canonicalizeSchemapinV1Bytes(schema);
  const document = signSchemaDocument(schema, sk, { signedAt: Date.UTC(2026, 0, 1) });
  // The document itself, or its JSON text, where a bare signature is expected
  for (const given of [document, JSON.stringify(document), ` ${JSON.stringify(document)}`]) {
    const check = verifySchemaSignature(schemaBytes, given as string, sk.publicKey);
    assert.equal(check.valid, false);
    if (check.valid) continue;
    assert.equal(check.reason, "document");
    assert.equal(check.errorCode, "SIGNATURE_INVALID");
    assert.match(check.errorMessage, /signature document/);
    assert.match(check.errorMessage, /verifySchemaOffline/);
  }
  // The document's signature field: it covers the document, not the schema
  const field = verifySchemaSignature(schemaBytes, document.signature, sk.publicKey);
  assert.deepEqual(
    field.valid ? undefined : [field.reason, field.errorCode],
    ["mismatch", "SIGNATURE_INVALID"],
  );
  // ... and it does verify as the document signature it is
  assert.deepEqual(
    verifyDocumentSignature(
      schemaSignatureSigningInput(document),
      document.signature,
      sk.publicKey,
    ),
    { valid: true },
  );
  // Any other object is misuse, not a result
  const e = thrown(() => verifySchemaSignature(schemaBytes, {} as never, sk.publicKey));
  assert.ok(e instanceof SchemaPinError && e.code === "INPUT_INVALID");
  assert.match(e.message, /verifySchemaSignature: signature must be a string/);
});
