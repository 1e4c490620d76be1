import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { decodeBase64Strict, encodeBase64 } from "../../lib/crypto/base64.ts";
import { decodeEcdsaDer, encodeEcdsaDer } from "../../lib/crypto/der.ts";
import {
  signDocument,
  signSchema,
  verifyDocumentSignature,
  verifySchemaSignature,
} from "../../lib/crypto/ecdsa.ts";
import {
  clearKeyCache,
  keyCacheStats,
  MAX_KEYS,
  MAX_PRECOMPUTED,
  PRECOMPUTE_AFTER,
} from "../../lib/crypto/key_cache.ts";
import {
  generateKeyPair,
  parsePublicKeyPem,
  type PrivateKey,
  publicKeyFromDer,
} from "../../lib/crypto/keys.ts";
import { p256 } from "@noble/curves/nist.js";
import { thrown } from "./openssl_keys.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);
const canonical = utf8('{"name":"cached"}');
const tampered = utf8('{"name":"cacheD"}');

/** Every verdict a key can give, to compare before and after caching/precomputation. */
function verdicts(sk: PrivateKey, pem: string): string[] {
  const pk = parsePublicKeyPem(pem);
  const sig = signSchema(canonical, sk);
  const { r, s } = decodeEcdsaDer(decodeBase64Strict(sig, "signature"));
  const high = encodeBase64(encodeEcdsaDer({ r, s: p256.Point.Fn.ORDER - s }));
  const doc = signDocument(canonical, sk);
  const label = (c: { valid: boolean; reason?: string }) => c.valid ? "valid" : c.reason!;
  return [
    label(verifySchemaSignature(canonical, sig, pk)),
    label(verifySchemaSignature(canonical, high, pk)),
    label(verifySchemaSignature(tampered, sig, pk)),
    label(verifySchemaSignature(canonical, doc, pk)),
    label(verifyDocumentSignature(canonical, doc, pk)),
    label(verifyDocumentSignature(tampered, doc, pk)),
  ];
}
const EXPECTED = ["valid", "valid", "mismatch", "single-hash", "valid", "mismatch"];

Deno.test("the same PEM or DER returns the same parsed key object", () => {
  clearKeyCache();
  const sk = generateKeyPair();
  const a = parsePublicKeyPem(sk.publicKey.pem, "a.pem");
  const b = parsePublicKeyPem(sk.publicKey.pem, "b.pem");
  assert.equal(a, b);
  assert.equal(publicKeyFromDer(a.spki), a);
  assert.ok(Object.isFrozen(a));
  assert.equal(keyCacheStats().keys, 2); // by PEM text and by DER
});

Deno.test("verdicts are identical before and after the key's table is precomputed", () => {
  clearKeyCache();
  const sk = generateKeyPair();
  const first = verdicts(sk, sk.publicKey.pem);
  assert.deepEqual(first, EXPECTED);
  assert.equal(keyCacheStats().precomputed, 0);
  for (let i = 0; i < PRECOMPUTE_AFTER; i++) verdicts(sk, sk.publicKey.pem);
  assert.equal(keyCacheStats().precomputed, 1);
  assert.deepEqual(verdicts(sk, sk.publicKey.pem), EXPECTED);
});

Deno.test("at most MAX_PRECOMPUTED keys keep tables; a key that lost its table still verifies", () => {
  clearKeyCache();
  const hot = Array.from({ length: MAX_PRECOMPUTED + 2 }, () => generateKeyPair());
  const pk = hot.map((sk) => parsePublicKeyPem(sk.publicKey.pem));
  const sigs = hot.map((sk) => signDocument(canonical, sk));
  for (const [i, key] of pk.entries()) {
    for (let n = 0; n < PRECOMPUTE_AFTER; n++) {
      assert.equal(verifyDocumentSignature(canonical, sigs[i], key).valid, true);
    }
  }
  assert.equal(keyCacheStats().precomputed, MAX_PRECOMPUTED);
  // key 0 was evicted from the precomputed set first
  assert.deepEqual(verdicts(hot[0], hot[0].publicKey.pem), EXPECTED);
  assert.equal(verifyDocumentSignature(canonical, sigs[1], pk[0]).valid, false);
});

Deno.test("the cache is bounded and evicted keys are parsed again", () => {
  clearKeyCache();
  const first = generateKeyPair();
  const fp = parsePublicKeyPem(first.publicKey.pem).fingerprint;
  for (let i = 0; i < MAX_KEYS; i++) publicKeyFromDer(generateKeyPair().publicKey.spki);
  assert.ok(keyCacheStats().keys <= MAX_KEYS);
  assert.equal(parsePublicKeyPem(first.publicKey.pem).fingerprint, fp);
  clearKeyCache();
  assert.deepEqual(keyCacheStats(), { keys: 0, precomputed: 0 });
});

Deno.test("failures are not cached: a bad PEM fails every time, naming the current source", () => {
  clearKeyCache();
  const bad = generateKeyPair().publicKey.pem.replace("PUBLIC KEY-----\n", "PUBLIC KEY-----\n!");
  for (const source of ["one.pem", "two.pem"]) {
    const e = thrown(() => parsePublicKeyPem(bad, source));
    assert.ok(e instanceof SchemaPinError);
    assert.equal(e.code, "KEY_INVALID");
    assert.equal(e.details.source, source);
  }
  assert.equal(keyCacheStats().keys, 0);
});

Deno.test("mutating input bytes after parsing changes neither the key nor later results", () => {
  clearKeyCache();
  const sk = generateKeyPair();
  const der = sk.publicKey.spki.slice();
  const pk = publicKeyFromDer(der);
  der[der.length - 1] ^= 1;
  assert.notEqual(pk.spki[pk.spki.length - 1], der[der.length - 1]);
  const e = thrown(() => publicKeyFromDer(der));
  assert.match(e.message, /not on the P-256 curve/);
  assert.equal(verifySchemaSignature(canonical, signSchema(canonical, sk), pk).valid, true);
});

Deno.test("a hand-built PublicKey whose point disagrees with its spki is refused", () => {
  const a = generateKeyPair();
  const b = generateKeyPair();
  const forged = { ...a.publicKey, point: b.publicKey.point };
  const e = thrown(() => verifySchemaSignature(canonical, signSchema(canonical, b), forged));
  assert.ok(e instanceof SchemaPinError);
  assert.equal(e.code, "KEY_INVALID");
  assert.match(e.message, /point does not match its spki/);
});
