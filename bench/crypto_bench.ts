/**
 * Signature throughput, side by side (`deno task bench`, or
 * `deno bench bench/crypto_bench.ts`): ECDSA P-256 verification with the cached,
 * precomputed noble point (what `verifySchemaSignature` does) against plain `p256.verify`,
 * WebCrypto and `node:crypto`; and signing.
 *
 * @module
 */

import {
  createPrivateKey,
  createPublicKey,
  sign as nodeSign,
  verify as nodeVerify,
} from "node:crypto";
import { p256 } from "@noble/curves/nist.js";
import { decodeBase64Strict } from "../lib/crypto/base64.ts";
import {
  derToP1363,
  signDigest,
  signSchema,
  verifyDigest,
  verifySchemaSignature,
} from "../lib/crypto/ecdsa.ts";
import { sha256 } from "../lib/crypto/hash.ts";
import { generateKeyPair, parsePublicKeyPem, privateKeyToPem } from "../lib/crypto/keys.ts";
import { PRECOMPUTE_AFTER } from "../lib/crypto/key_cache.ts";
import { parsePem } from "../lib/crypto/pem.ts";

const sk = generateKeyPair();
const pk = parsePublicKeyPem(sk.publicKey.pem);
const canonical = new TextEncoder().encode(
  '{"description":"Calculates the sum","name":"calculate_sum","parameters":{"a":"integer","b":"integer"}}',
);
const message = sha256(canonical); // §4.1: ECDSA signs SHA-256 of this
const digest = sha256(message);
const signature = signSchema(canonical, sk);
const der = decodeBase64Strict(signature, "signature");
const raw = derToP1363(der);

const alg = { name: "ECDSA", namedCurve: "P-256" };
const webPublic = await crypto.subtle.importKey("spki", pk.spki, alg, false, ["verify"]);
const webPrivate = await crypto.subtle.importKey(
  "pkcs8",
  parsePem(privateKeyToPem(sk)).der,
  alg,
  false,
  ["sign"],
);
const ECDSA_SHA256 = { name: "ECDSA", hash: "SHA-256" };
const nodePublic = createPublicKey({ key: Buffer.from(pk.spki), format: "der", type: "spki" });
const nodePrivate = createPrivateKey(privateKeyToPem(sk));

// Cold path: more distinct keys than the cache holds, so every verification parses its key.
const cold = Array.from({ length: 256 }, () => {
  const key = generateKeyPair();
  return { pem: key.publicKey.pem, signature: signSchema(canonical, key) };
});
let coldIndex = 0;

// Build the key's precomputed table before timing (it happens after PRECOMPUTE_AFTER uses).
for (let i = 0; i <= PRECOMPUTE_AFTER; i++) verifySchemaSignature(canonical, signature, pk);

// Sanity: every backend agrees the signature is valid before anything is timed.
if (!verifySchemaSignature(canonical, signature, pk).valid) throw new Error("noble path");
if (!p256.verify(der, digest, pk.point, { prehash: false, lowS: false, format: "der" })) {
  throw new Error("p256.verify");
}
if (!await crypto.subtle.verify(ECDSA_SHA256, webPublic, raw, message)) {
  throw new Error("webcrypto");
}
if (!nodeVerify("sha256", message, nodePublic, der)) throw new Error("node:crypto");

Deno.bench({
  name: "verify: noble, cached precomputed point (verifySchemaSignature)",
  group: "verify",
  baseline: true,
  fn() {
    verifySchemaSignature(canonical, signature, pk);
  },
});

Deno.bench({
  name: "verify: noble, cached precomputed point (verifyDigest core)",
  group: "verify",
  fn() {
    verifyDigest(digest, der, pk);
  },
});

Deno.bench({
  name: "verify: noble, cold key each time (parse PEM + verify)",
  group: "verify",
  fn() {
    const c = cold[coldIndex++ % cold.length];
    verifySchemaSignature(canonical, c.signature, parsePublicKeyPem(c.pem));
  },
});

Deno.bench({
  name: "verify: noble p256.verify (plain, key bytes)",
  group: "verify",
  fn() {
    p256.verify(der, digest, pk.point, { prehash: false, lowS: false, format: "der" });
  },
});

Deno.bench({
  name: "verify: WebCrypto, serial",
  group: "verify",
  async fn() {
    await crypto.subtle.verify(ECDSA_SHA256, webPublic, raw, message);
  },
});

Deno.bench({
  name: "verify: WebCrypto, 64 in parallel (time is per 64)",
  group: "verify-batch",
  async fn() {
    const all = [];
    for (let i = 0; i < 64; i++) {
      all.push(crypto.subtle.verify(ECDSA_SHA256, webPublic, raw, message));
    }
    await Promise.all(all);
  },
});

Deno.bench({
  name: "verify: node:crypto",
  group: "verify",
  fn() {
    nodeVerify("sha256", message, nodePublic, der);
  },
});

Deno.bench({
  name: "sign: noble (signSchema, RFC 6979)",
  group: "sign",
  baseline: true,
  fn() {
    signSchema(canonical, sk);
  },
});

Deno.bench({
  name: "sign: noble (signDigest core)",
  group: "sign",
  fn() {
    signDigest(digest, sk);
  },
});

Deno.bench({
  name: "sign: WebCrypto",
  group: "sign",
  async fn() {
    await crypto.subtle.sign(ECDSA_SHA256, webPrivate, message);
  },
});

Deno.bench({
  name: "sign: node:crypto",
  group: "sign",
  fn() {
    nodeSign("sha256", message, nodePrivate);
  },
});
