import assert from "node:assert/strict";
import { p256 } from "@noble/curves/nist.js";
import { numberToBytesBE } from "@noble/curves/utils.js";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  derBitString,
  derExplicit,
  derInteger,
  derOctetString,
  derOid,
  derSequence,
  OID,
} from "../../lib/crypto/der.ts";
import { sha256Hex, toHex } from "../../lib/crypto/hash.ts";
import {
  fingerprintPublicKey,
  generateKeyPair,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  privateKeyToPem,
  publicKeyFromDer,
  publicKeyToPem,
} from "../../lib/crypto/keys.ts";
import { formatPem, parsePem } from "../../lib/crypto/pem.ts";
import { makeKeys, openssl, run, thrown } from "./openssl_keys.ts";
import { INTEROP_JS } from "../fixtures/interop.ts";

const keys = await makeKeys();
const INTEROP = INTEROP_JS;
const N = p256.Point.Fn.ORDER;

function assertKeyInvalid(
  fn: () => unknown,
  pattern: RegExp,
  details: Record<string, unknown> = {},
): SchemaPinError {
  const e = thrown(fn);
  assert.ok(e instanceof SchemaPinError, `expected SchemaPinError, got ${e}`);
  assert.equal(e.code, "KEY_INVALID");
  assert.match(e.message, pattern);
  for (const [k, v] of Object.entries(details)) assert.deepEqual(e.details[k], v, `details.${k}`);
  return e;
}

async function opensslPublicDer(pubPemPath: string): Promise<Uint8Array> {
  return await openssl(["pkey", "-pubin", "-in", pubPemPath, "-outform", "DER"]);
}

function pkcs8(d: Uint8Array, publicPoint?: Uint8Array): string {
  const inner = publicPoint === undefined
    ? derSequence(derInteger(1n), derOctetString(d))
    : derSequence(derInteger(1n), derOctetString(d), derExplicit(1, derBitString(publicPoint)));
  const alg = derSequence(derOid(OID.ecPublicKey), derOid(OID.prime256v1));
  return formatPem("PRIVATE KEY", derSequence(derInteger(0n), alg, derOctetString(inner)));
}

// ---------------------------------------------------------------- accepted keys

Deno.test("P-256 SPKI from openssl: fingerprint equals `openssl pkey -pubin -outform DER | sha256sum`", async () => {
  const pk = parsePublicKeyPem(keys.text("p256_pub"), "p256_pub.pem");
  const der = await opensslPublicDer(keys.path("p256_pub"));
  assert.deepEqual(pk.spki, der);
  const sum = new TextDecoder().decode(
    await run("sh", [
      "-c",
      `openssl pkey -pubin -in '${keys.path("p256_pub")}' -outform DER | sha256sum`,
    ]),
  );
  assert.equal(pk.fingerprint, "sha256:" + sum.split(" ")[0]);
  assert.equal(pk.point.length, 65);
  assert.equal(pk.point[0], 4);
  assert.equal(pk.pem, keys.text("p256_pub"));
});

Deno.test("interop fixture: signer_public.pem fingerprint equals the reference's public_key_fingerprint", () => {
  const fixture = JSON.parse(Deno.readTextFileSync(`${INTEROP}/schema_signatures.json`));
  const pk = parsePublicKeyPem(Deno.readTextFileSync(`${INTEROP}/signer_public.pem`));
  assert.equal(pk.fingerprint, fixture.public_key_fingerprint);
  assert.equal(
    fingerprintPublicKey(Deno.readTextFileSync(`${INTEROP}/signer_public.pem`)),
    fixture.public_key_fingerprint,
  );
});

Deno.test("interop fixture: signer_private.pem parses, matches signer_public.pem, re-exports byte-identically", () => {
  const text = Deno.readTextFileSync(`${INTEROP}/signer_private.pem`);
  const sk = parsePrivateKeyPem(text, "signer_private.pem");
  const pk = parsePublicKeyPem(Deno.readTextFileSync(`${INTEROP}/signer_public.pem`));
  assert.equal(sk.publicKey.fingerprint, pk.fingerprint);
  assert.equal(privateKeyToPem(sk), text);
});

Deno.test("PKCS#8 and SEC1 private keys from openssl give the same scalar and public key", () => {
  const a = parsePrivateKeyPem(keys.text("p256"), "p256.pem");
  const b = parsePrivateKeyPem(keys.text("p256_sec1"), "p256_sec1.pem");
  assert.equal(a.scalar.length, 32);
  assert.deepEqual(a.scalar, b.scalar);
  assert.equal(a.publicKey.fingerprint, b.publicKey.fingerprint);
  assert.equal(a.publicKey.fingerprint, parsePublicKeyPem(keys.text("p256_pub")).fingerprint);
});

Deno.test("compressed-point SPKI is accepted and normalised to the uncompressed SPKI and fingerprint", async () => {
  const compressed = parsePublicKeyPem(keys.text("p256_pub_compressed"));
  const plain = parsePublicKeyPem(keys.text("p256_pub"));
  const der = parsePem(keys.text("p256_pub_compressed")).der;
  assert.equal(der.length, 59); // really compressed on input
  assert.deepEqual(compressed.spki, plain.spki);
  assert.equal(compressed.fingerprint, plain.fingerprint);
  assert.deepEqual(compressed.spki, await opensslPublicDer(keys.path("p256_pub")));
  assert.equal(publicKeyFromDer(der).fingerprint, plain.fingerprint);
});

Deno.test("privateKeyToPem output is what `openssl pkey` writes and reads back", async () => {
  const sk = parsePrivateKeyPem(keys.text("p256_sec1"));
  const ours = privateKeyToPem(sk);
  // openssl normalises its own key to exactly our bytes
  const theirs = new TextDecoder().decode(await openssl(["pkey", "-in", keys.path("p256")]));
  assert.equal(ours, theirs);
  const fresh = generateKeyPair();
  const path = `${keys.dir}/generated.pem`;
  await Deno.writeTextFile(path, privateKeyToPem(fresh));
  const pub = new TextDecoder().decode(await openssl(["pkey", "-in", path, "-pubout"]));
  assert.equal(pub, publicKeyToPem(fresh.publicKey));
  const text = new TextDecoder().decode(await openssl(["pkey", "-in", path, "-noout", "-text"]));
  assert.match(text, /ASN1 OID: prime256v1/);
  assert.match(text, /NIST CURVE: P-256/);
});

Deno.test("generateKeyPair: fresh keys differ, round-trip through PEM, scalar in range", () => {
  const a = generateKeyPair();
  const b = generateKeyPair();
  assert.notEqual(a.publicKey.fingerprint, b.publicKey.fingerprint);
  const d = BigInt("0x" + toHex(a.scalar));
  assert.ok(d > 0n && d < N);
  const again = parsePrivateKeyPem(privateKeyToPem(a));
  assert.deepEqual(again.scalar, a.scalar);
  assert.equal(parsePublicKeyPem(a.publicKey.pem).fingerprint, a.publicKey.fingerprint);
  assert.equal(a.publicKey.fingerprint, "sha256:" + sha256Hex(a.publicKey.spki));
});

Deno.test("CRLF line endings, a leading BOM and surrounding whitespace are tolerated", () => {
  const text = keys.text("p256_pub");
  const crlf = "\ufeff\r\n  " + text.replaceAll("\n", "\r\n") + "\r\n\n";
  assert.equal(parsePublicKeyPem(crlf).fingerprint, parsePublicKeyPem(text).fingerprint);
});

// ---------------------------------------------------------------- refused keys

Deno.test("P-384 keys are refused, naming the curve", () => {
  assertKeyInvalid(
    () => parsePublicKeyPem(keys.text("p384_pub"), "p384_pub.pem"),
    /EC public key on secp384r1 \(P-384\), not P-256/,
    {
      source: "p384_pub.pem",
      keyType: "EC secp384r1 (P-384)",
    },
  );
  assertKeyInvalid(() => parsePrivateKeyPem(keys.text("p384")), /EC private key on secp384r1/);
  assertKeyInvalid(() => parsePrivateKeyPem(keys.text("p384_sec1")), /EC private key on secp384r1/);
});

Deno.test("secp256k1 keys are refused, naming the curve", () => {
  assertKeyInvalid(
    () => parsePublicKeyPem(keys.text("k1_pub")),
    /EC public key on secp256k1, not P-256/,
  );
  assertKeyInvalid(() => parsePrivateKeyPem(keys.text("k1")), /EC private key on secp256k1/);
  assertKeyInvalid(() => parsePrivateKeyPem(keys.text("k1_sec1")), /EC private key on secp256k1/);
});

Deno.test("Ed25519, Ed448 and X25519 keys are refused by name", () => {
  assertKeyInvalid(
    () => parsePublicKeyPem(keys.text("ed25519_pub")),
    /an Ed25519 public key, not ECDSA P-256/,
    {
      keyType: "Ed25519",
    },
  );
  assertKeyInvalid(() => parsePrivateKeyPem(keys.text("ed25519")), /an Ed25519 private key/);
  assertKeyInvalid(() => parsePublicKeyPem(keys.text("ed448_pub")), /an Ed448 public key/);
  assertKeyInvalid(() => parsePublicKeyPem(keys.text("x25519_pub")), /an X25519 public key/);
});

Deno.test("RSA keys are refused, with their size", () => {
  const e = assertKeyInvalid(
    () => parsePublicKeyPem(keys.text("rsa_pub"), "rsa.pem"),
    /^public key in rsa\.pem: this is an RSA public key \(2048-bit\), not ECDSA P-256/,
  );
  assert.match(e.message, /openssl genpkey -algorithm EC/);
  assertKeyInvalid(() => parsePrivateKeyPem(keys.text("rsa")), /an RSA private key \(2048-bit\)/);
  assertKeyInvalid(
    () => parsePublicKeyPem(keys.text("rsa_pub_pkcs1")),
    /RSA public key \(PKCS #1\)/,
  );
  assertKeyInvalid(() => parsePrivateKeyPem(keys.text("rsa_pkcs1")), /RSA private key \(PKCS #1\)/);
});

Deno.test("garbage, JSON, bare Base64 and OpenSSH keys are 'not a PEM block'", () => {
  assertKeyInvalid(
    () => parsePublicKeyPem("hello world", "x.pem"),
    /^public key in x\.pem: not a PEM block/,
  );
  assertKeyInvalid(() => parsePublicKeyPem('{"a":1}'), /not a PEM block.*JSON/);
  assertKeyInvalid(() => parsePublicKeyPem(""), /not a PEM block/);
  const body = keys.text("p256_pub").split("\n").slice(1, -2).join("");
  assertKeyInvalid(() => parsePublicKeyPem(body), /bare Base64/);
  assertKeyInvalid(
    () => parsePublicKeyPem("ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY= me@host"),
    /OpenSSH public key.*ssh-keygen -e -m PKCS8/,
  );
  assertKeyInvalid(() => parsePrivateKeyPem("\x00\x01binary\ufffd"), /not a PEM block.*binary/);
});

Deno.test("truncated DER names the byte where it ends", () => {
  const der = parsePem(keys.text("p256_pub")).der;
  assertKeyInvalid(
    () => parsePublicKeyPem(formatPem("PUBLIC KEY", der.subarray(0, 60))),
    /truncated DER at byte 60/,
    { offset: 60 },
  );
  assertKeyInvalid(() => publicKeyFromDer(der.subarray(0, 1)), /truncated DER at byte 1/);
  assertKeyInvalid(() => publicKeyFromDer(new Uint8Array()), /truncated DER at byte 0/);
  const sk = parsePem(keys.text("p256")).der;
  assertKeyInvalid(
    () => parsePrivateKeyPem(formatPem("PRIVATE KEY", sk.subarray(0, 100))),
    /^private key: truncated DER at byte 100/,
  );
});

Deno.test("a point off the curve, at infinity, of the wrong length, or hybrid is refused", () => {
  const der = parsePem(keys.text("p256_pub")).der.slice();
  der[der.length - 1] ^= 1; // y no longer matches x
  assertKeyInvalid(() => publicKeyFromDer(der), /point is not on the P-256 curve/);
  const alg = derSequence(derOid(OID.ecPublicKey), derOid(OID.prime256v1));
  const spki = (point: Uint8Array) => derSequence(alg, derBitString(point));
  assertKeyInvalid(() => publicKeyFromDer(spki(new Uint8Array([0]))), /point at infinity/);
  assertKeyInvalid(() => publicKeyFromDer(spki(new Uint8Array(64).fill(4))), /64 bytes/);
  const hybrid = parsePem(keys.text("p256_pub")).der.slice(-65);
  hybrid[0] = 6;
  assertKeyInvalid(() => publicKeyFromDer(spki(hybrid)), /hybrid/);
  const xTooBig = new Uint8Array(33).fill(0xff);
  xTooBig[0] = 2;
  assertKeyInvalid(() => publicKeyFromDer(spki(xTooBig)), /not on the P-256 curve/);
});

Deno.test("wrong PEM labels are refused, saying what the block is", () => {
  const body = keys.text("p256_pub").replaceAll("PUBLIC KEY", "FOO BAR");
  assertKeyInvalid(() => parsePublicKeyPem(body), /PEM label "FOO BAR" is not a public key/, {
    label: "FOO BAR",
  });
  assertKeyInvalid(
    () => parsePublicKeyPem(keys.text("p256_cert")),
    /X\.509 certificate.*openssl x509 -pubkey/,
  );
  assertKeyInvalid(
    () => parsePrivateKeyPem(keys.text("p256").replaceAll("PRIVATE KEY", "SECRET THING")),
    /PEM label "SECRET THING" is not a private key/,
  );
});

Deno.test("a private key given where a public key is expected, and vice versa", () => {
  for (const name of ["p256", "p256_sec1", "p256_enc", "rsa_pkcs1"]) {
    assertKeyInvalid(
      () => parsePublicKeyPem(keys.text(name)),
      /a private key \(".*PRIVATE KEY"\) was given where a public key was expected/,
    );
  }
  assertKeyInvalid(
    () => parsePrivateKeyPem(keys.text("p256_pub")),
    /a public key was given where a private key was expected/,
  );
});

Deno.test("two PEM blocks are refused; `openssl ecparam -genkey` output gets a hint", () => {
  const two = keys.text("p256_pub") + keys.text("p384_pub");
  assertKeyInvalid(() => parsePublicKeyPem(two), /found 2 PEM blocks/, { blocks: 2 });
  assertKeyInvalid(() => parsePrivateKeyPem(keys.text("p256_ecparam")), /EC PARAMETERS.*-noout/);
});

Deno.test("encrypted keys need their passphrase; legacy PEM encryption is refused", () => {
  assertKeyInvalid(
    () => parsePrivateKeyPem(keys.text("p256_enc"), "enc.pem"),
    /the key is encrypted and needs its passphrase.*decryptPrivateKeyPem/,
    {
      encrypted: true,
      source: "enc.pem",
    },
  );
  assertKeyInvalid(
    () => parsePrivateKeyPem(keys.text("p256_legacy_enc")),
    /Proc-Type: 4,ENCRYPTED.*not supported; convert it to encrypted PKCS #8/,
    {
      encrypted: true,
    },
  );
});

Deno.test("explicit curve parameters are refused with a re-export hint", () => {
  assertKeyInvalid(
    () => parsePublicKeyPem(keys.text("p256_explicit_pub")),
    /explicit curve parameters.*named_curve/,
  );
  assertKeyInvalid(
    () => parsePrivateKeyPem(keys.text("p256_explicit")),
    /explicit curve parameters/,
  );
});

Deno.test("private scalars 0 and ≥ n, oversized scalars and mismatched embedded public keys are refused", () => {
  assertKeyInvalid(() => parsePrivateKeyPem(pkcs8(new Uint8Array(32))), /private scalar is zero/);
  assertKeyInvalid(
    () => parsePrivateKeyPem(pkcs8(numberToBytesBE(N, 32))),
    /not less than the P-256 group order/,
  );
  assertKeyInvalid(() => parsePrivateKeyPem(pkcs8(new Uint8Array(33).fill(1))), /33 bytes/);
  const a = generateKeyPair();
  const b = generateKeyPair();
  assertKeyInvalid(
    () => parsePrivateKeyPem(pkcs8(a.scalar, b.publicKey.point)),
    /does not match its private scalar/,
  );
  // the matching one is accepted (control)
  assert.equal(
    parsePrivateKeyPem(pkcs8(a.scalar, a.publicKey.point)).publicKey.fingerprint,
    a.publicKey.fingerprint,
  );
  // SEC1 without curve parameters cannot be placed on a curve
  const sec1 = formatPem("EC PRIVATE KEY", derSequence(derInteger(1n), derOctetString(a.scalar)));
  assertKeyInvalid(() => parsePrivateKeyPem(sec1), /does not say which curve/);
});

Deno.test("trailing bytes and non-minimal lengths in key DER are refused", () => {
  const der = parsePem(keys.text("p256_pub")).der;
  const trailing = new Uint8Array([...der, 0]);
  assertKeyInvalid(
    () => publicKeyFromDer(trailing),
    /trailing bytes after SubjectPublicKeyInfo at byte 91/,
    {
      offset: 91,
    },
  );
  // 30 59 → 30 81 59: same content, non-minimal length
  const longForm = new Uint8Array([0x30, 0x81, ...der.subarray(1)]);
  assertKeyInvalid(() => publicKeyFromDer(longForm), /non-minimal length/);
});

Deno.test("publicKeyToPem and privateKeyToPem refuse inconsistent hand-built objects", () => {
  const a = generateKeyPair();
  const b = generateKeyPair();
  assertKeyInvalid(
    () => privateKeyToPem({ scalar: a.scalar, publicKey: b.publicKey }),
    /does not belong/,
  );
  assertKeyInvalid(
    () => privateKeyToPem({ scalar: new Uint8Array(32), publicKey: a.publicKey }),
    /out of range/,
  );
  assertKeyInvalid(
    () => publicKeyToPem({ ...a.publicKey, spki: new Uint8Array([1, 2, 3]) }),
    /expected SEQUENCE/,
  );
});
