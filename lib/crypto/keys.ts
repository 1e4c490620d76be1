/**
 * ECDSA P-256 keys (spec §3): parsing PEM/DER (SPKI, PKCS #8, SEC1), generation, export and
 * the §8.2 fingerprint. Anything that is not a P-256 key is refused with a message saying
 * what it is instead.
 *
 * Normalisation: a public key is always represented by its uncompressed-point SPKI. A key
 * given with a compressed point is accepted, and its `spki`, `pem` and `fingerprint` are those
 * of the uncompressed encoding, so one key has one fingerprint however it was written (this is
 * also what the reference SDKs export).
 *
 * @module
 */

import { p256 } from "@noble/curves/nist.js";
import { bytesToNumberBE, numberToBytesBE } from "@noble/curves/utils.js";
import { type ErrorDetails, SchemaPinError } from "../errors.ts";
import {
  curveName,
  DER_TAG,
  derBitString,
  type DerContext,
  derExplicit,
  derInteger,
  derOctetString,
  derOid,
  DerReader,
  derSequence,
  keyAlgorithmName,
  OID,
} from "./der.ts";
import { sha256Hex, toHex } from "./hash.ts";
import { type CachedKey, getCachedKey, type P256Point, putCachedKey } from "./key_cache.ts";
import type { PrivateKey, PublicKey } from "./key_types.ts";
import { formatPem, parsePem } from "./pem.ts";
import { checkArg, checkKeyArg } from "../arguments.ts";
import { KEY_KIND_HINT as HINT } from "../option_hints.ts";

export type { PrivateKey, PublicKey };

const { Point } = p256;
const N: bigint = Point.Fn.ORDER;
const P: bigint = Point.Fp.ORDER;

/** AlgorithmIdentifier { id-ecPublicKey, prime256v1 }. */
const P256_ALGORITHM: Uint8Array = derSequence(derOid(OID.ecPublicKey), derOid(OID.prime256v1));

interface Ctx extends DerContext {
  readonly details: ErrorDetails;
}

function context(kind: "public key" | "private key", source?: string): Ctx {
  return {
    what: source === undefined ? kind : `${kind} in ${source}`,
    code: "KEY_INVALID",
    details: source === undefined ? {} : { source },
  };
}

function fail(ctx: Ctx, message: string, details: ErrorDetails = {}): never {
  throw new SchemaPinError("KEY_INVALID", `${ctx.what}: ${message}`, {
    ...ctx.details,
    ...details,
  });
}

/** Human description of a non-P-256 key, e.g. "an RSA public key (2048-bit)". */
function describeForeignKey(
  kind: "public" | "private",
  algorithm: string,
  curve: string | undefined,
  rsaBits: number | undefined,
): { text: string; keyType: string } {
  if (algorithm === OID.ecPublicKey) {
    const name = curve === undefined ? "an unnamed curve" : (curveName(curve) ?? `curve ${curve}`);
    return { text: `an EC ${kind} key on ${name}, not P-256`, keyType: `EC ${name}` };
  }
  const name = keyAlgorithmName(algorithm);
  if (name === undefined) {
    return {
      text: `a ${kind} key of unknown algorithm ${algorithm}, not ECDSA P-256`,
      keyType: algorithm,
    };
  }
  const bits = rsaBits === undefined ? "" : ` (${rsaBits}-bit)`;
  const article = /^[AEIOUFHLMNRSX]/.test(name) ? "an" : "a";
  return { text: `${article} ${name} ${kind} key${bits}, not ECDSA P-256`, keyType: name };
}

/** Best effort: the modulus size of an RSA key, or undefined. */
function rsaModulusBits(bytes: Uint8Array, skipVersion: boolean): number | undefined {
  try {
    const r = new DerReader(bytes, { what: "rsa", code: "KEY_INVALID" });
    const seq = r.readSequence("RSA key");
    if (skipVersion) seq.readUnsignedInteger("version");
    return seq.readUnsignedInteger("modulus").toString(2).length;
  } catch {
    return undefined;
  }
}

/**
 * Reads the ECParameters of an AlgorithmIdentifier or ECPrivateKey: only a named curve is
 * accepted. Returns the curve OID.
 */
function readCurve(reader: DerReader, ctx: Ctx): string {
  const tag = reader.peekTag();
  if (tag === DER_TAG.OID) return reader.readOid("namedCurve");
  if (tag === DER_TAG.SEQUENCE) {
    fail(
      ctx,
      "the EC key spells out explicit curve parameters instead of naming its curve; " +
        `re-export it with \`openssl pkey ${
          ctx.what.startsWith("public") ? "-pubin -pubout " : ""
        }-in key.pem -ec_param_enc named_curve\` (it must be P-256)`,
      { offset: reader.offset },
    );
  }
  if (tag === DER_TAG.NULL) {
    fail(ctx, "the EC key does not say which curve it is on (implicitCA parameters)", {
      offset: reader.offset,
    });
  }
  return fail(ctx, `the EC key does not say which curve it is on (byte ${reader.offset})`, {
    offset: reader.offset,
  });
}

function refuseForeign(
  ctx: Ctx,
  kind: "public" | "private",
  algorithm: string,
  curve: string | undefined,
  rsaBits?: number,
): never {
  const d = describeForeignKey(kind, algorithm, curve, rsaBits);
  return fail(ctx, `this is ${d.text}. ${HINT}`, { keyType: d.keyType });
}

/** Decodes a SEC1 point on P-256 (uncompressed or compressed), validating it. */
function decodePoint(bytes: Uint8Array, ctx: Ctx, offset: number): P256Point {
  const len = bytes.length;
  const prefix = bytes[0];
  if (len === 0) fail(ctx, `the EC point at byte ${offset} is empty`, { offset });
  if (len === 1 && prefix === 0) fail(ctx, "the EC point is the point at infinity", { offset });
  if (prefix === 0x06 || prefix === 0x07) {
    fail(ctx, "hybrid EC point encoding is not supported", { offset });
  }
  const ok = (prefix === 0x04 && len === 65) ||
    ((prefix === 0x02 || prefix === 0x03) && len === 33);
  if (!ok) {
    fail(
      ctx,
      `the EC point is ${len} bytes with prefix 0x${prefix.toString(16).padStart(2, "0")}; ` +
        "a P-256 point is 65 bytes (04‖x‖y) or 33 bytes compressed (02/03‖x)",
      { offset, length: len },
    );
  }
  const x = bytesToNumberBE(bytes.subarray(1, 33));
  const y = len === 65 ? bytesToNumberBE(bytes.subarray(33)) : 0n;
  if (x >= P || y >= P) {
    fail(ctx, "point is not on the P-256 curve (a coordinate is not less than p)", { offset });
  }
  try {
    return Point.fromBytes(bytes);
  } catch {
    return fail(ctx, "point is not on the P-256 curve", { offset });
  }
}

function publicKeyFromPoint(point: P256Point): PublicKey {
  const raw = point.toBytes(false);
  const spki = derSequence(P256_ALGORITHM, derBitString(raw));
  return Object.freeze({
    spki,
    point: raw,
    fingerprint: "sha256:" + sha256Hex(spki),
    pem: formatPem("PUBLIC KEY", spki),
  });
}

/** Parses a SubjectPublicKeyInfo (RFC 5280 §4.1, RFC 5480 §2) holding a P-256 key. */
function parseSpki(der: Uint8Array, ctx: Ctx): P256Point {
  const outer = new DerReader(der, ctx);
  const spki = outer.readSequence("SubjectPublicKeyInfo");
  const alg = spki.readSequence("AlgorithmIdentifier");
  const algorithm = alg.readOid("algorithm");
  if (algorithm !== OID.ecPublicKey) {
    let bits: number | undefined;
    if (algorithm === OID.rsaEncryption || algorithm === OID.rsassaPss) {
      try {
        bits = rsaModulusBits(spki.readBitString("subjectPublicKey"), false);
      } catch { /* best effort: the size is only for the message */ }
    }
    refuseForeign(ctx, "public", algorithm, undefined, bits);
  }
  const curve = readCurve(alg, ctx);
  if (curve !== OID.prime256v1) refuseForeign(ctx, "public", algorithm, curve);
  alg.finish("AlgorithmIdentifier");
  const pointOffset = spki.offset;
  const pointBytes = spki.readBitString("subjectPublicKey");
  spki.finish("SubjectPublicKeyInfo");
  outer.finish("SubjectPublicKeyInfo");
  return decodePoint(pointBytes, ctx, pointOffset);
}

function newEntry(point: P256Point): CachedKey {
  return { publicKey: publicKeyFromPoint(point), point, uses: 0 };
}

/** Caches `entry` under `id` and under its normalised SPKI. */
function remember(id: string, entry: CachedKey): CachedKey {
  putCachedKey(id, entry);
  putCachedKey("der:" + toHex(entry.publicKey.spki), entry);
  return entry;
}

/**
 * The cache entry for a DER SPKI, parsing and validating it on a miss. The building block of
 * {@linkcode publicKeyFromDer} and of signature verification.
 *
 * @throws {SchemaPinError} `KEY_INVALID` as {@linkcode publicKeyFromDer}.
 *
 * @example
 * ```ts
 * import { cachedKeyFromDer, generateKeyPair } from "./keys.ts";
 * const { publicKey } = generateKeyPair();
 * cachedKeyFromDer(publicKey.spki).publicKey.fingerprint === publicKey.fingerprint; // true
 * ```
 */
export function cachedKeyFromDer(spki: Uint8Array, source?: string): CachedKey {
  const id = "der:" + toHex(spki);
  const hit = getCachedKey(id);
  if (hit !== undefined) return hit;
  return remember(id, newEntry(parseSpki(spki, context("public key", source))));
}

/**
 * Parses a DER SubjectPublicKeyInfo holding an ECDSA P-256 key (uncompressed or compressed
 * point; the result is always normalised to the uncompressed SPKI). Results are cached.
 *
 * @param spki DER bytes.
 * @param source Where the bytes came from, for messages and `details.source`.
 * @throws {SchemaPinError} `KEY_INVALID` saying what the bytes are instead (an RSA key, an EC
 *   key on secp384r1, truncated DER at byte N, a point not on the curve, …).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { publicKeyFromDer } from "./keys.ts";
 * const { publicKey } = generateKeyPair();
 * publicKeyFromDer(publicKey.spki).fingerprint === publicKey.fingerprint; // true
 * ```
 */
export function publicKeyFromDer(spki: Uint8Array, source?: string): PublicKey {
  checkArg("publicKeyFromDer", "spki", spki, "bytes");
  checkArg("publicKeyFromDer", "source", source, "string", true);
  return cachedKeyFromDer(spki, source).publicKey;
}

/** PEM texts longer than this are parsed but not cached by text (a key PEM is ~180 chars). */
const MAX_CACHED_PEM = 4096;

/**
 * Parses a `PUBLIC KEY` PEM block holding an ECDSA P-256 key. Results are cached by text.
 *
 * @param pem The PEM text (surrounding whitespace, CRLF and a leading BOM are tolerated).
 * @param source Where the text came from (a file name), for messages and `details.source`.
 * @throws {SchemaPinError} `KEY_INVALID` saying what was given instead: not a PEM block, a
 *   private key, a certificate, an RSA / Ed25519 / other-curve key, truncated DER, a point not
 *   on the P-256 curve, …
 *
 * @example
 * ```ts
 * import { generateKeyPair, parsePublicKeyPem } from "jsr:@schemapin/schemapin/keys";
 * const { publicKey } = generateKeyPair();
 * parsePublicKeyPem(publicKey.pem, "signer.pem").fingerprint; // "sha256:…"
 * ```
 */
export function parsePublicKeyPem(pem: string, source?: string): PublicKey {
  checkArg("parsePublicKeyPem", "pem", pem, "string");
  checkArg("parsePublicKeyPem", "source", source, "string", true);
  const cacheable = pem.length <= MAX_CACHED_PEM;
  const id = "pem:" + pem;
  if (cacheable) {
    const hit = getCachedKey(id);
    if (hit !== undefined) return hit.publicKey;
  }
  const ctx = context("public key", source);
  const block = parsePem(pem, { source, what: "public key", code: "KEY_INVALID" });
  const label = block.label;
  switch (label) {
    case "PUBLIC KEY":
      break;
    case "PRIVATE KEY":
    case "EC PRIVATE KEY":
    case "ENCRYPTED PRIVATE KEY":
    case "RSA PRIVATE KEY":
    case "DSA PRIVATE KEY":
    case "OPENSSH PRIVATE KEY":
      fail(
        ctx,
        `a private key ("${label}") was given where a public key was expected; ` +
          "give the public key (`openssl pkey -in key.pem -pubout`) and keep the private key secret",
        { label, keyType: "private key" },
      );
      break;
    case "RSA PUBLIC KEY":
      fail(ctx, `this is an RSA public key (PKCS #1), not ECDSA P-256. ${HINT}`, {
        label,
        keyType: "RSA",
      });
      break;
    case "CERTIFICATE":
      fail(
        ctx,
        "this is an X.509 certificate, not a public key; extract its key with " +
          "`openssl x509 -pubkey -noout -in cert.pem` (it must be a P-256 key)",
        { label, keyType: "certificate" },
      );
      break;
    default:
      fail(ctx, `PEM label "${label}" is not a public key; expected "PUBLIC KEY"`, { label });
  }
  const entry = newEntry(parseSpki(block.der, ctx));
  if (cacheable) remember(id, entry);
  return entry.publicKey;
}

function makePrivateKey(d: bigint): PrivateKey {
  const publicKey = publicKeyFromPoint(Point.BASE.multiply(d));
  return Object.freeze({ scalar: numberToBytesBE(d, 32), publicKey });
}

/** The scalar and the optional embedded public key of an ECPrivateKey (RFC 5915). */
interface EcPrivateKeyParts {
  readonly d: Uint8Array;
  readonly dOffset: number;
  readonly curve?: string;
  readonly publicKey?: { bytes: Uint8Array; offset: number };
}

function readEcPrivateKey(reader: DerReader, ctx: Ctx): EcPrivateKeyParts {
  const seq = reader.readSequence("ECPrivateKey");
  reader.finish("ECPrivateKey");
  const version = seq.readUnsignedInteger("ECPrivateKey version");
  if (version !== 1n) fail(ctx, `unsupported ECPrivateKey version ${version}`);
  const dOffset = seq.offset;
  const d = seq.readOctetString("privateKey");
  let curve: string | undefined;
  if (seq.peekTag() === 0xa0) {
    const params = seq.readExplicit(0, "parameters");
    curve = readCurve(params, ctx);
    params.finish("parameters");
  }
  let publicKey: { bytes: Uint8Array; offset: number } | undefined;
  if (seq.peekTag() === 0xa1) {
    const wrapper = seq.readExplicit(1, "publicKey");
    const offset = wrapper.offset;
    publicKey = { bytes: wrapper.readBitString("publicKey"), offset };
    wrapper.finish("publicKey");
  }
  seq.finish("ECPrivateKey");
  return { d, dOffset, curve, publicKey };
}

/** Checks d and the embedded public key, then builds the key. */
function finishPrivateKey(
  parts: EcPrivateKeyParts,
  extraPublic: { bytes: Uint8Array; offset: number } | undefined,
  ctx: Ctx,
): PrivateKey {
  if (parts.d.length === 0 || parts.d.length > 32) {
    fail(ctx, `the private scalar is ${parts.d.length} bytes; a P-256 scalar is 32 bytes`, {
      offset: parts.dOffset,
    });
  }
  // RFC 5915 writes d in exactly 32 bytes; like OpenSSL, a shorter big-endian value is read as is.
  const d = bytesToNumberBE(parts.d);
  if (d === 0n) fail(ctx, "the private scalar is zero", { offset: parts.dOffset });
  if (d >= N) {
    fail(ctx, "the private scalar is not less than the P-256 group order n", {
      offset: parts.dOffset,
    });
  }
  const key = makePrivateKey(d);
  for (const embedded of [parts.publicKey, extraPublic]) {
    if (embedded === undefined) continue;
    const point = decodePoint(embedded.bytes, ctx, embedded.offset);
    if (toHex(point.toBytes(false)) !== toHex(key.publicKey.point)) {
      fail(
        ctx,
        "the public key stored in the file does not match its private scalar " +
          "(the file is corrupt or was tampered with)",
        { offset: embedded.offset },
      );
    }
  }
  return key;
}

/** PKCS #8 PrivateKeyInfo / OneAsymmetricKey (RFC 5208, RFC 5958). */
function parsePkcs8(der: Uint8Array, ctx: Ctx): PrivateKey {
  const outer = new DerReader(der, ctx);
  const info = outer.readSequence("PrivateKeyInfo");
  outer.finish("PrivateKeyInfo");
  const version = info.readUnsignedInteger("version");
  if (version > 1n) fail(ctx, `unsupported PKCS #8 version ${version}`);
  const alg = info.readSequence("privateKeyAlgorithm");
  const algorithm = alg.readOid("algorithm");
  if (algorithm !== OID.ecPublicKey) {
    let bits: number | undefined;
    if (algorithm === OID.rsaEncryption || algorithm === OID.rsassaPss) {
      try {
        bits = rsaModulusBits(info.readOctetString("privateKey"), true);
      } catch { /* best effort */ }
    }
    refuseForeign(ctx, "private", algorithm, undefined, bits);
  }
  const curve = readCurve(alg, ctx);
  if (curve !== OID.prime256v1) refuseForeign(ctx, "private", algorithm, curve);
  alg.finish("privateKeyAlgorithm");
  const inner = info.read("privateKey", DER_TAG.OCTET_STRING);
  const parts = readEcPrivateKey(
    new DerReader(der, ctx, inner.contentOffset, inner.contentOffset + inner.content.length),
    ctx,
  );
  if (parts.curve !== undefined && parts.curve !== OID.prime256v1) {
    fail(ctx, "the ECPrivateKey names a different curve than its PKCS #8 wrapper");
  }
  if (info.peekTag() === 0xa0) info.read("attributes");
  let extraPublic: { bytes: Uint8Array; offset: number } | undefined;
  if (info.peekTag() === 0x81) {
    if (version !== 1n) fail(ctx, "a PKCS #8 v1 key must not carry a [1] public key");
    const el = info.read("publicKey");
    if (el.content.length === 0 || el.content[0] !== 0) {
      fail(ctx, `malformed [1] publicKey at byte ${el.offset}`, { offset: el.offset });
    }
    extraPublic = { bytes: el.content.subarray(1), offset: el.offset };
  }
  info.finish("PrivateKeyInfo");
  return finishPrivateKey(parts, extraPublic, ctx);
}

/**
 * Parses DER PKCS #8 (PrivateKeyInfo / OneAsymmetricKey) holding an ECDSA P-256 key, with the
 * checks of {@linkcode parsePrivateKeyPem}. Used for the plaintext of encrypted keys.
 *
 * @throws {SchemaPinError} `KEY_INVALID` as {@linkcode parsePrivateKeyPem}.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeyFromPkcs8Der, privateKeyToPkcs8Der } from "./keys.ts";
 * const sk = generateKeyPair();
 * privateKeyFromPkcs8Der(privateKeyToPkcs8Der(sk)).publicKey.fingerprint ===
 *   sk.publicKey.fingerprint; // true
 * ```
 */
export function privateKeyFromPkcs8Der(der: Uint8Array, source?: string): PrivateKey {
  checkArg("privateKeyFromPkcs8Der", "der", der, "bytes");
  checkArg("privateKeyFromPkcs8Der", "source", source, "string", true);
  return parsePkcs8(der, context("private key", source));
}

/** SEC1 `EC PRIVATE KEY` (RFC 5915): the curve must be named. */
function parseSec1(der: Uint8Array, ctx: Ctx): PrivateKey {
  const parts = readEcPrivateKey(new DerReader(der, ctx), ctx);
  if (parts.curve === undefined) {
    fail(ctx, "the EC PRIVATE KEY does not say which curve it is on (no [0] parameters)");
  }
  if (parts.curve !== OID.prime256v1) {
    refuseForeign(ctx, "private", OID.ecPublicKey, parts.curve);
  }
  return finishPrivateKey(parts, undefined, ctx);
}

/**
 * Parses an ECDSA P-256 private key from PEM: PKCS #8 (`PRIVATE KEY`) or SEC1
 * (`EC PRIVATE KEY`). The scalar must satisfy 1 ≤ d < n, and a public key embedded in the
 * file must equal d·G.
 *
 * @param pem The PEM text.
 * @param source Where the text came from (a file name), for messages and `details.source`.
 * @throws {SchemaPinError} `KEY_INVALID` saying what was given instead: an encrypted key
 *   (`details.encrypted`; decrypt it with `decryptPrivateKeyPem` from `encrypted_key.ts`), a
 *   public key, an RSA / Ed25519 / other-curve key, malformed DER, …
 *
 * @example
 * ```ts
 * import {
 *   generateKeyPair,
 *   parsePrivateKeyPem,
 *   privateKeyToPem,
 * } from "jsr:@schemapin/schemapin/keys";
 * const sk = generateKeyPair();
 * parsePrivateKeyPem(privateKeyToPem(sk)).publicKey.fingerprint === sk.publicKey.fingerprint;
 * // true
 * ```
 */
export function parsePrivateKeyPem(pem: string, source?: string): PrivateKey {
  checkArg("parsePrivateKeyPem", "pem", pem, "string");
  checkArg("parsePrivateKeyPem", "source", source, "string", true);
  const ctx = context("private key", source);
  const block = parsePem(pem, { source, what: "private key", code: "KEY_INVALID" });
  const label = block.label;
  switch (label) {
    case "PRIVATE KEY":
      return parsePkcs8(block.der, ctx);
    case "EC PRIVATE KEY":
      return parseSec1(block.der, ctx);
    case "ENCRYPTED PRIVATE KEY":
      // §9: decrypting needs a passphrase and WebCrypto (async): decryptPrivateKeyPem.
      return fail(
        ctx,
        "the key is encrypted and needs its passphrase: decrypt it with " +
          "decryptPrivateKeyPem(). Where only the public key is needed, give the public key",
        { label, encrypted: true },
      );
    case "PUBLIC KEY":
      return fail(ctx, "a public key was given where a private key was expected", {
        label,
        keyType: "public key",
      });
    case "RSA PRIVATE KEY":
      return fail(ctx, `this is an RSA private key (PKCS #1), not ECDSA P-256. ${HINT}`, {
        label,
        keyType: "RSA",
      });
    case "OPENSSH PRIVATE KEY":
      return fail(
        ctx,
        "this is an OpenSSH private key; if it is an ECDSA P-256 key, convert it in place with " +
          "`ssh-keygen -p -m PKCS8 -f key`",
        { label, keyType: "OpenSSH" },
      );
    default:
      return fail(ctx, `PEM label "${label}" is not a private key; expected "PRIVATE KEY"`, {
        label,
      });
  }
}

/**
 * Generates a new random ECDSA P-256 key pair (WebCrypto randomness).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * const sk = generateKeyPair();
 * sk.scalar.length; // 32
 * sk.publicKey.fingerprint.startsWith("sha256:"); // true
 * ```
 */
export function generateKeyPair(): PrivateKey {
  return makePrivateKey(bytesToNumberBE(p256.utils.randomSecretKey()));
}

/**
 * The `PUBLIC KEY` PEM of a key (uncompressed-point SPKI, 64-character lines).
 *
 * @example
 * ```ts
 * import { generateKeyPair, publicKeyToPem } from "jsr:@schemapin/schemapin/keys";
 * publicKeyToPem(generateKeyPair().publicKey).startsWith("-----BEGIN PUBLIC KEY-----\n"); // true
 * ```
 */
export function publicKeyToPem(pk: PublicKey): string {
  checkKeyArg("publicKeyToPem", "pk", pk, "public");
  return publicKeyFromDer(pk.spki).pem;
}

/**
 * The private key as an unencrypted PKCS #8 `PRIVATE KEY` PEM. The DER is built
 * deterministically — the same bytes OpenSSL writes for a P-256 key: the ECPrivateKey holds
 * the 32-byte scalar and, in its `[1]` field, the uncompressed public key.
 *
 * @throws {SchemaPinError} `KEY_INVALID` if the scalar is out of range or `publicKey` does not
 *   belong to it.
 *
 * @example
 * ```ts
 * import { generateKeyPair, privateKeyToPem } from "jsr:@schemapin/schemapin/keys";
 * privateKeyToPem(generateKeyPair()).startsWith("-----BEGIN PRIVATE KEY-----\n"); // true
 * ```
 */
export function privateKeyToPem(sk: PrivateKey): string {
  checkKeyArg("privateKeyToPem", "sk", sk, "private");
  return formatPem("PRIVATE KEY", privateKeyToPkcs8Der(sk));
}

/**
 * The private key as unencrypted DER PKCS #8 (the body of {@linkcode privateKeyToPem}).
 *
 * @throws {SchemaPinError} `KEY_INVALID` as {@linkcode privateKeyToPem}.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeyToPkcs8Der } from "./keys.ts";
 * privateKeyToPkcs8Der(generateKeyPair())[0]; // 0x30
 * ```
 */
export function privateKeyToPkcs8Der(sk: PrivateKey): Uint8Array<ArrayBuffer> {
  checkKeyArg("privateKeyToPkcs8Der", "sk", sk, "private");
  const ctx = context("private key");
  if (sk.scalar.length !== 32) fail(ctx, `the private scalar is ${sk.scalar.length} bytes, not 32`);
  const d = bytesToNumberBE(sk.scalar);
  if (d === 0n || d >= N) fail(ctx, "the private scalar is out of range (1 ≤ d < n)");
  const point = Point.BASE.multiply(d).toBytes(false);
  if (toHex(point) !== toHex(sk.publicKey.point)) {
    fail(ctx, "the PrivateKey's publicKey does not belong to its scalar");
  }
  const ecPrivateKey = derSequence(
    derInteger(1n),
    derOctetString(sk.scalar),
    derExplicit(1, derBitString(point)),
  );
  return derSequence(derInteger(0n), P256_ALGORITHM, derOctetString(ecPrivateKey));
}

/**
 * The §8.2 fingerprint, `"sha256:" + hex(SHA-256(DER SPKI))`, of a key or of a `PUBLIC KEY`
 * PEM text. Always computed over the uncompressed-point SPKI.
 *
 * @throws {SchemaPinError} `KEY_INVALID` if the PEM text is not a P-256 public key.
 *
 * @example
 * ```ts
 * import { fingerprintPublicKey } from "./keys.ts";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * const { publicKey } = generateKeyPair();
 * fingerprintPublicKey(publicKey.pem) === publicKey.fingerprint; // true
 * ```
 */
export function fingerprintPublicKey(key: PublicKey | string, source?: string): string {
  if (typeof key !== "string") checkKeyArg("fingerprintPublicKey", "key", key, "public");
  checkArg("fingerprintPublicKey", "source", source, "string", true);
  if (typeof key === "string") return parsePublicKeyPem(key, source).fingerprint;
  return publicKeyFromDer(key.spki, source).fingerprint;
}
