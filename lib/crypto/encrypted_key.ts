/**
 * Encrypted PKCS #8 private keys (`ENCRYPTED PRIVATE KEY`, RFC 5958 §3 EncryptedPrivateKeyInfo
 * with RFC 8018 PBES2): SchemaPin §9 "Private Key Storage" asks for private keys encrypted at
 * rest.
 *
 * Written (one format, no knobs but the iteration count): PBES2 with PBKDF2-HMAC-SHA256, a
 * random 16-byte salt and {@linkcode DEFAULT_PBKDF2_ITERATIONS} (600,000, the OWASP 2023 figure
 * for PBKDF2-HMAC-SHA256) iterations, and AES-256-CBC with a random 16-byte IV — the format of
 * `openssl pkcs8 -topk8 -v2 aes-256-cbc -v2prf hmacWithSHA256 -iter 600000`, so
 * `openssl pkey -in key.pem -passin …` reads it.
 *
 * Read: PBES2 with PBKDF2 (PRF HMAC-SHA1 — RFC 8018's default, written by older tools —
 * HMAC-SHA256, -SHA384 or -SHA512) and AES-128/192/256 in CBC mode (what `openssl pkey -aes256`
 * and `openssl pkcs8 -topk8` write) or GCM mode (RFC 5084 parameters with a 16-byte tag;
 * OpenSSL 3 cannot write these, other toolkits can). Everything else — PBES1, PKCS #12 PBE, scrypt, DES, RC2, … — is
 * refused by name with the command that converts the key. At most
 * {@linkcode MAX_PBKDF2_ITERATIONS} iterations are run, so a hostile file cannot stall a
 * signer for hours.
 *
 * The passphrase is used as its UTF-8 bytes, without Unicode normalisation (as OpenSSL does).
 * A wrong passphrase and a damaged ciphertext give the same error, "wrong passphrase or
 * corrupted key", whatever failed (padding, GCM tag or the decrypted structure).
 *
 * Uses WebCrypto only (PBKDF2, AES-CBC, AES-GCM), so it runs in Deno, Node and browsers.
 *
 * @module
 */

import { type ErrorDetails, SchemaPinError } from "../errors.ts";
import {
  DER_TAG,
  type DerContext,
  derInteger,
  derNull,
  derOctetString,
  derOid,
  DerReader,
  derSequence,
} from "./der.ts";
import { type PrivateKey, privateKeyFromPkcs8Der, privateKeyToPkcs8Der } from "./keys.ts";
import { formatPem, parsePem } from "./pem.ts";
import { argumentError, checkArg, checkKeyArg } from "../arguments.ts";

/**
 * PBKDF2 iterations used when encrypting (HMAC-SHA256; OWASP's 2023 recommendation). About
 * 90 ms on a 2024 server core.
 *
 * @example
 * ```ts
 * import { DEFAULT_PBKDF2_ITERATIONS } from "./encrypted_key.ts";
 * DEFAULT_PBKDF2_ITERATIONS; // 600000
 * ```
 */
export const DEFAULT_PBKDF2_ITERATIONS = 600_000;

/**
 * The most PBKDF2 iterations a key file may ask for when it is read (about 1.3 s with
 * HMAC-SHA256); more is refused rather than run.
 *
 * @example
 * ```ts
 * import { MAX_PBKDF2_ITERATIONS } from "./encrypted_key.ts";
 * MAX_PBKDF2_ITERATIONS; // 10000000
 * ```
 */
export const MAX_PBKDF2_ITERATIONS = 10_000_000;

/** The PEM label of an encrypted PKCS #8 key (RFC 7468 §11). */
const LABEL = "ENCRYPTED PRIVATE KEY";

const PBES2 = "1.2.840.113549.1.5.13";
const PBKDF2 = "1.2.840.113549.1.5.12";

/** PBKDF2 PRFs WebCrypto can run (RFC 8018 appendix B.1.2), by OID. */
const PRFS: Record<string, PbkdfHash> = {
  "1.2.840.113549.2.7": "SHA-1",
  "1.2.840.113549.2.9": "SHA-256",
  "1.2.840.113549.2.10": "SHA-384",
  "1.2.840.113549.2.11": "SHA-512",
};
const PRF_OID_SHA256 = "1.2.840.113549.2.9";

/** Ciphers this module decrypts, by OID (NIST CSOR; RFC 3565, RFC 5084). */
const CIPHERS: Record<string, { name: CipherName; keyLength: number; mode: "CBC" | "GCM" }> = {
  "2.16.840.1.101.3.4.1.2": { name: "AES-128-CBC", keyLength: 16, mode: "CBC" },
  "2.16.840.1.101.3.4.1.22": { name: "AES-192-CBC", keyLength: 24, mode: "CBC" },
  "2.16.840.1.101.3.4.1.42": { name: "AES-256-CBC", keyLength: 32, mode: "CBC" },
  "2.16.840.1.101.3.4.1.6": { name: "AES-128-GCM", keyLength: 16, mode: "GCM" },
  "2.16.840.1.101.3.4.1.26": { name: "AES-192-GCM", keyLength: 24, mode: "GCM" },
  "2.16.840.1.101.3.4.1.46": { name: "AES-256-GCM", keyLength: 32, mode: "GCM" },
};
const AES_256_CBC = "2.16.840.1.101.3.4.1.42";

/** Names of schemes, KDFs, PRFs and ciphers that are recognised only to be refused. */
const KNOWN_UNSUPPORTED: Record<string, string> = {
  "1.2.840.113549.1.5.1": "PBES1 pbeWithMD2AndDES-CBC",
  "1.2.840.113549.1.5.3": "PBES1 pbeWithMD5AndDES-CBC",
  "1.2.840.113549.1.5.4": "PBES1 pbeWithMD2AndRC2-CBC",
  "1.2.840.113549.1.5.6": "PBES1 pbeWithMD5AndRC2-CBC",
  "1.2.840.113549.1.5.10": "PBES1 pbeWithSHA1AndDES-CBC",
  "1.2.840.113549.1.5.11": "PBES1 pbeWithSHA1AndRC2-CBC",
  "1.2.840.113549.1.12.1.1": "PKCS #12 pbeWithSHAAnd128BitRC4",
  "1.2.840.113549.1.12.1.2": "PKCS #12 pbeWithSHAAnd40BitRC4",
  "1.2.840.113549.1.12.1.3": "PKCS #12 pbeWithSHAAnd3-KeyTripleDES-CBC",
  "1.2.840.113549.1.12.1.4": "PKCS #12 pbeWithSHAAnd2-KeyTripleDES-CBC",
  "1.2.840.113549.1.12.1.5": "PKCS #12 pbeWithSHAAnd128BitRC2-CBC",
  "1.2.840.113549.1.12.1.6": "PKCS #12 pbeWithSHAAnd40BitRC2-CBC",
  "1.2.840.113549.1.5.14": "PBMAC1",
  "1.3.6.1.4.1.11591.4.11": "scrypt",
  "1.2.840.113549.2.8": "HMAC-SHA224",
  "1.2.840.113549.2.12": "HMAC-SHA512/224",
  "1.2.840.113549.2.13": "HMAC-SHA512/256",
  "2.16.840.1.101.3.4.2.13": "HMAC-SHA3-224",
  "2.16.840.1.101.3.4.2.14": "HMAC-SHA3-256",
  "2.16.840.1.101.3.4.2.15": "HMAC-SHA3-384",
  "2.16.840.1.101.3.4.2.16": "HMAC-SHA3-512",
  "1.3.14.3.2.7": "DES-CBC",
  "1.2.840.113549.3.7": "DES-EDE3-CBC",
  "1.2.840.113549.3.2": "RC2-CBC",
  "1.2.840.113549.3.9": "RC5-CBC-PAD",
  "2.16.840.1.101.3.4.1.1": "AES-128-ECB",
  "2.16.840.1.101.3.4.1.21": "AES-192-ECB",
  "2.16.840.1.101.3.4.1.41": "AES-256-ECB",
  "2.16.840.1.101.3.4.1.4": "AES-128-CFB",
  "2.16.840.1.101.3.4.1.44": "AES-256-CFB",
  "2.16.840.1.101.3.4.1.3": "AES-128-OFB",
  "2.16.840.1.101.3.4.1.43": "AES-256-OFB",
  "2.16.840.1.101.3.4.1.7": "AES-128-CCM",
  "2.16.840.1.101.3.4.1.47": "AES-256-CCM",
  "1.2.392.200011.61.1.1.1.2": "CAMELLIA-128-CBC",
  "1.2.392.200011.61.1.1.1.4": "CAMELLIA-256-CBC",
  "1.2.410.200046.1.1.2": "ARIA-128-CBC",
  "1.2.410.200046.1.1.12": "ARIA-256-CBC",
  "1.2.156.10197.1.104.2": "SM4-CBC",
};

/** A PBKDF2 pseudo-random function, as a WebCrypto hash name. */
export type PbkdfHash = "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512";

/** A cipher this module decrypts. */
export type CipherName =
  | "AES-128-CBC"
  | "AES-192-CBC"
  | "AES-256-CBC"
  | "AES-128-GCM"
  | "AES-192-GCM"
  | "AES-256-GCM";

/** The parameters of an encrypted PKCS #8 key (nothing secret). */
export interface EncryptedKeyParameters {
  /** Always `"PBKDF2"` (the only key derivation function supported). */
  readonly kdf: "PBKDF2";
  /** The PBKDF2 PRF's hash. */
  readonly prf: PbkdfHash;
  /** PBKDF2 iteration count. */
  readonly iterations: number;
  /** Salt length in bytes. */
  readonly saltLength: number;
  /** The content cipher. */
  readonly cipher: CipherName;
}

/** Everything needed to decrypt, parsed from the DER. */
interface Parsed extends EncryptedKeyParameters {
  readonly salt: Uint8Array<ArrayBuffer>;
  readonly keyLength: number;
  readonly mode: "CBC" | "GCM";
  readonly iv: Uint8Array<ArrayBuffer>;
  readonly tagLength: number;
  readonly ciphertext: Uint8Array<ArrayBuffer>;
}

/** Options for {@linkcode encryptPrivateKeyPem}. */
export interface EncryptPrivateKeyOptions {
  /**
   * PBKDF2 iterations (default {@linkcode DEFAULT_PBKDF2_ITERATIONS}); at least 1000 and at most
   * {@linkcode MAX_PBKDF2_ITERATIONS}. Lower it only for tests.
   */
  readonly iterations?: number;
}

const CONVERT_HINT =
  "convert it with `openssl pkcs8 -topk8 -v2 aes-256-cbc -v2prf hmacWithSHA256 " +
  "-iter 600000 -in key.pem -out key-new.pem` (OpenSSL asks for the old and the new passphrase)";

interface Ctx extends DerContext {
  readonly details: ErrorDetails;
}

function context(source?: string): Ctx {
  return {
    what: source === undefined ? "encrypted private key" : `encrypted private key in ${source}`,
    code: "KEY_INVALID",
    details: source === undefined ? { encrypted: true } : { source, encrypted: true },
  };
}

function fail(ctx: Ctx, message: string, details: ErrorDetails = {}): never {
  throw new SchemaPinError("KEY_INVALID", `${ctx.what}: ${message}`, {
    ...ctx.details,
    ...details,
  });
}

function unsupported(ctx: Ctx, role: string, oid: string, offset: number): never {
  const name = KNOWN_UNSUPPORTED[oid];
  const what = name === undefined ? `unknown ${role} ${oid}` : `${role} ${name} (${oid})`;
  return fail(
    ctx,
    `${what} is not supported; supported: PBES2 with PBKDF2 (HMAC-SHA1/256/384/512) and ` +
      `AES-128/192/256-CBC or -GCM; ${CONVERT_HINT}`,
    { offset, algorithm: name ?? oid },
  );
}

/** Reads an AlgorithmIdentifier's parameters that must be NULL or absent (RFC 8018 B.1.2). */
function readNullOrAbsent(seq: DerReader, name: string): void {
  if (!seq.done) seq.readNull(`${name} parameters`);
  seq.finish(name);
}

/** A bounded, positive INTEGER as a number. */
function readCount(seq: DerReader, ctx: Ctx, name: string, max: number): number {
  const offset = seq.offset;
  const value = seq.readUnsignedInteger(name);
  if (value < 1n) fail(ctx, `${name} is ${value}; it must be at least 1`, { offset });
  if (value > BigInt(max)) {
    fail(ctx, `${name} ${value} is more than the ${max} this reader accepts`, { offset });
  }
  return Number(value);
}

/** Parses EncryptedPrivateKeyInfo (RFC 5958 §3) with PBES2 parameters (RFC 8018 §6.2, A.4). */
function parseEncryptedDer(der: Uint8Array, ctx: Ctx): Parsed {
  const outer = new DerReader(der, ctx);
  const info = outer.readSequence("EncryptedPrivateKeyInfo");
  outer.finish("EncryptedPrivateKeyInfo");
  const alg = info.readSequence("encryptionAlgorithm");
  const schemeOffset = alg.offset;
  const scheme = alg.readOid("encryption scheme");
  if (scheme !== PBES2) unsupported(ctx, "encryption scheme", scheme, schemeOffset);
  const params = alg.readSequence("PBES2-params");
  alg.finish("encryptionAlgorithm");

  // keyDerivationFunc: PBKDF2 (RFC 8018 §5.2, A.2).
  const kdf = params.readSequence("keyDerivationFunc");
  const kdfOffset = kdf.offset;
  const kdfOid = kdf.readOid("key derivation function");
  if (kdfOid !== PBKDF2) unsupported(ctx, "key derivation function", kdfOid, kdfOffset);
  const pbkdf2 = kdf.readSequence("PBKDF2-params");
  kdf.finish("keyDerivationFunc");
  if (pbkdf2.peekTag() === DER_TAG.SEQUENCE) {
    fail(ctx, "a PBKDF2 salt given by an algorithm (otherSource) is not supported", {
      offset: pbkdf2.offset,
    });
  }
  const saltOffset = pbkdf2.offset;
  const salt = pbkdf2.readOctetString("PBKDF2 salt").slice();
  // RFC 8018 §4.1: at least eight octets.
  if (salt.length < 8 || salt.length > 1024) {
    fail(ctx, `the PBKDF2 salt is ${salt.length} bytes; 8 to 1024 are accepted`, {
      offset: saltOffset,
    });
  }
  const iterations = readCount(pbkdf2, ctx, "PBKDF2 iteration count", MAX_PBKDF2_ITERATIONS);
  let keyLength: number | undefined;
  if (pbkdf2.peekTag() === DER_TAG.INTEGER) {
    keyLength = readCount(pbkdf2, ctx, "PBKDF2 key length", 64);
  }
  let prf: PbkdfHash = "SHA-1"; // DEFAULT algid-hmacWithSHA1 (RFC 8018 A.2)
  if (!pbkdf2.done) {
    const prfSeq = pbkdf2.readSequence("PBKDF2 prf");
    const prfOffset = prfSeq.offset;
    const prfOid = prfSeq.readOid("PBKDF2 prf");
    const hash = PRFS[prfOid];
    if (hash === undefined) unsupported(ctx, "PBKDF2 PRF", prfOid, prfOffset);
    readNullOrAbsent(prfSeq, "PBKDF2 prf");
    prf = hash;
  }
  pbkdf2.finish("PBKDF2-params");

  // encryptionScheme: AES-CBC (IV, RFC 3565) or AES-GCM (GCMParameters, RFC 5084 §3.2).
  const enc = params.readSequence("encryptionScheme");
  params.finish("PBES2-params");
  const cipherOffset = enc.offset;
  const cipherOid = enc.readOid("encryption cipher");
  const cipher = CIPHERS[cipherOid];
  if (cipher === undefined) unsupported(ctx, "cipher", cipherOid, cipherOffset);
  let iv: Uint8Array<ArrayBuffer>;
  let tagLength = 0;
  if (cipher.mode === "CBC") {
    const ivOffset = enc.offset;
    iv = enc.readOctetString(`${cipher.name} IV`).slice();
    if (iv.length !== 16) {
      fail(ctx, `the ${cipher.name} IV is ${iv.length} bytes, not 16`, { offset: ivOffset });
    }
  } else {
    const gcm = enc.readSequence("GCMParameters");
    const nonceOffset = gcm.offset;
    iv = gcm.readOctetString("GCM nonce").slice();
    if (iv.length !== 12) {
      fail(ctx, `the ${cipher.name} nonce is ${iv.length} bytes, not 12`, {
        offset: nonceOffset,
      });
    }
    tagLength = 12; // aes-ICVlen DEFAULT 12
    const tagOffset = gcm.offset;
    if (!gcm.done) tagLength = Number(gcm.readUnsignedInteger("GCM ICV length"));
    // WebCrypto implementations differ on short tags (Deno accepts only 128 bits).
    if (tagLength !== 16) {
      fail(ctx, `the ${cipher.name} tag length is ${tagLength} bytes; only 16 is supported`, {
        offset: tagOffset,
      });
    }
    gcm.finish("GCMParameters");
  }
  enc.finish("encryptionScheme");
  if (keyLength !== undefined && keyLength !== cipher.keyLength) {
    fail(
      ctx,
      `the PBKDF2 key length ${keyLength} does not match ${cipher.name} ` +
        `(${cipher.keyLength} bytes)`,
    );
  }
  const dataOffset = info.offset;
  const ciphertext = info.readOctetString("encryptedData").slice();
  info.finish("EncryptedPrivateKeyInfo");
  const tooShort = cipher.mode === "CBC"
    ? ciphertext.length === 0 || ciphertext.length % 16 !== 0
    : ciphertext.length <= tagLength;
  if (tooShort) {
    fail(
      ctx,
      cipher.mode === "CBC"
        ? `the encrypted data is ${ciphertext.length} bytes, not a positive multiple of the ` +
          "AES block size (16); the file is corrupted"
        : `the encrypted data is ${ciphertext.length} bytes, too short for a ` +
          `${tagLength}-byte GCM tag; the file is corrupted`,
      { offset: dataOffset },
    );
  }
  return {
    kdf: "PBKDF2",
    prf,
    iterations,
    saltLength: salt.length,
    cipher: cipher.name,
    salt,
    keyLength: cipher.keyLength,
    mode: cipher.mode,
    iv,
    tagLength,
    ciphertext,
  };
}

function readBlock(pem: string, source: string | undefined): Uint8Array<ArrayBuffer> {
  const ctx = context(source);
  const block = parsePem(pem, { source, what: "encrypted private key", code: "KEY_INVALID" });
  if (block.label !== LABEL) {
    fail(ctx, `PEM label "${block.label}" is not "${LABEL}"`, { label: block.label });
  }
  return block.der;
}

function passphraseBytes(passphrase: string | Uint8Array): Uint8Array<ArrayBuffer> {
  if (typeof passphrase === "string") return new TextEncoder().encode(passphrase);
  if (passphrase instanceof Uint8Array) return new Uint8Array(passphrase);
  throw argumentError("passphrase", "passphrase", "a string or a Uint8Array", passphrase);
}

/** PBKDF2 (RFC 8018 §5.2) through WebCrypto. */
async function pbkdf2(
  passphrase: Uint8Array<ArrayBuffer>,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
  hash: PbkdfHash,
  length: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const base = await crypto.subtle.importKey("raw", passphrase, "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", salt, iterations, hash },
    base,
    length * 8,
  );
  return new Uint8Array(bits);
}

/**
 * True when `pem` is one `ENCRYPTED PRIVATE KEY` block (anything unreadable is `false`; the
 * key parsers then say what is wrong with it).
 *
 * @example
 * ```ts
 * import { isEncryptedPrivateKeyPem } from "./encrypted_key.ts";
 * isEncryptedPrivateKeyPem("-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n");
 * // false
 * ```
 */
export function isEncryptedPrivateKeyPem(pem: string): boolean {
  try {
    return parsePem(pem).label === LABEL;
  } catch {
    return false;
  }
}

/**
 * Reads the encryption parameters of an `ENCRYPTED PRIVATE KEY` PEM without decrypting it,
 * checking that this module can decrypt it (so a caller can refuse a key before asking for
 * its passphrase).
 *
 * @param pem The PEM text.
 * @param source Where the text came from (a file name), for messages and `details.source`.
 * @throws {SchemaPinError} `KEY_INVALID` for malformed DER (naming the byte offset), or an
 *   unsupported scheme, KDF, PRF or cipher (naming it, with the command that converts the key).
 *
 * @example
 * ```ts
 * import { encryptedPrivateKeyParameters } from "./encrypted_key.ts";
 * import { encryptPrivateKeyPem, generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * const pem = await encryptPrivateKeyPem(generateKeyPair(), "correct horse");
 * encryptedPrivateKeyParameters(pem).cipher; // "AES-256-CBC"
 * ```
 */
export function encryptedPrivateKeyParameters(
  pem: string,
  source?: string,
): EncryptedKeyParameters {
  checkArg("encryptedPrivateKeyParameters", "pem", pem, "string");
  checkArg("encryptedPrivateKeyParameters", "source", source, "string", true);
  const p = parseEncryptedDer(readBlock(pem, source), context(source));
  return {
    kdf: p.kdf,
    prf: p.prf,
    iterations: p.iterations,
    saltLength: p.saltLength,
    cipher: p.cipher,
  };
}

/**
 * Decrypts an `ENCRYPTED PRIVATE KEY` PEM (PBES2: PBKDF2 + AES-CBC/GCM) and parses the
 * P-256 key inside, with the same checks as an unencrypted key.
 *
 * @param pem The PEM text.
 * @param passphrase The passphrase (a string is used as its UTF-8 bytes).
 * @param source Where the text came from (a file name), for messages and `details.source`.
 * @throws {SchemaPinError} `KEY_INVALID`: "wrong passphrase or corrupted key" when decryption
 *   fails or does not yield a PKCS #8 structure; otherwise as
 *   {@linkcode encryptedPrivateKeyParameters}, or as an unencrypted key that is not P-256.
 *
 * @example
 * ```ts
 * import {
 *   decryptPrivateKeyPem,
 *   encryptPrivateKeyPem,
 *   generateKeyPair,
 * } from "jsr:@schemapin/schemapin/keys";
 * const key = generateKeyPair();
 * const pem = await encryptPrivateKeyPem(key, "correct horse");
 * (await decryptPrivateKeyPem(pem, "correct horse")).publicKey.fingerprint ===
 *   key.publicKey.fingerprint; // true
 * ```
 */
export async function decryptPrivateKeyPem(
  pem: string,
  passphrase: string | Uint8Array,
  source?: string,
): Promise<PrivateKey> {
  checkArg("decryptPrivateKeyPem", "pem", pem, "string");
  checkArg("decryptPrivateKeyPem", "passphrase", passphrase, ["string", "bytes"]);
  checkArg("decryptPrivateKeyPem", "source", source, "string", true);
  const ctx = context(source);
  const p = parseEncryptedDer(readBlock(pem, source), ctx);
  const secret = passphraseBytes(passphrase);
  const keyBytes = await pbkdf2(secret, p.salt, p.iterations, p.prf, p.keyLength);
  secret.fill(0);
  let plain: Uint8Array<ArrayBuffer> | undefined;
  try {
    const name = p.mode === "CBC" ? "AES-CBC" : "AES-GCM";
    const aesKey = await crypto.subtle.importKey("raw", keyBytes, name, false, ["decrypt"]);
    const algorithm = p.mode === "CBC"
      ? { name, iv: p.iv }
      : { name, iv: p.iv, tagLength: p.tagLength * 8 };
    plain = new Uint8Array(await crypto.subtle.decrypt(algorithm, aesKey, p.ciphertext));
  } catch {
    plain = undefined;
  } finally {
    keyBytes.fill(0);
  }
  try {
    // A wrong key fails the padding (or the tag) almost always; when it does not, the
    // plaintext is not one DER SEQUENCE. Both get the same message: no oracle.
    if (plain === undefined || !isOneSequence(plain)) {
      fail(ctx, "wrong passphrase or corrupted key");
    }
    return privateKeyFromPkcs8Der(plain, source);
  } finally {
    plain?.fill(0);
  }
}

/** True when `bytes` is exactly one DER SEQUENCE (its header and length, not its content). */
function isOneSequence(bytes: Uint8Array): boolean {
  try {
    const r = new DerReader(bytes, { what: "decrypted key", code: "KEY_INVALID" });
    r.readSequence("PrivateKeyInfo");
    r.finish("PrivateKeyInfo");
    return true;
  } catch {
    return false;
  }
}

/**
 * Encrypts a private key as an `ENCRYPTED PRIVATE KEY` PEM: PKCS #8 inside PBES2 with
 * PBKDF2-HMAC-SHA256 (random 16-byte salt, {@linkcode DEFAULT_PBKDF2_ITERATIONS} iterations)
 * and AES-256-CBC (random IV). OpenSSL reads it (`openssl pkey -in key.pem -passin …`).
 *
 * @param key The key to encrypt.
 * @param passphrase A non-empty passphrase (a string is used as its UTF-8 bytes).
 * @param options `iterations` (tests only).
 * @throws {SchemaPinError} `INPUT_INVALID` for an empty passphrase or an iteration count out
 *   of range; `KEY_INVALID` if `key` is inconsistent.
 *
 * @example
 * ```ts
 * import { encryptPrivateKeyPem, generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * const pem = await encryptPrivateKeyPem(generateKeyPair(), "correct horse");
 * pem.startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"); // true
 * ```
 */
export async function encryptPrivateKeyPem(
  key: PrivateKey,
  passphrase: string | Uint8Array,
  options: EncryptPrivateKeyOptions = {},
): Promise<string> {
  checkKeyArg("encryptPrivateKeyPem", "key", key, "private");
  checkArg("encryptPrivateKeyPem", "passphrase", passphrase, ["string", "bytes"]);
  checkArg("encryptPrivateKeyPem", "options", options, "object");
  const iterations = options.iterations ?? DEFAULT_PBKDF2_ITERATIONS;
  if (
    !Number.isSafeInteger(iterations) || iterations < 1000 || iterations > MAX_PBKDF2_ITERATIONS
  ) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `encryptPrivateKeyPem: iterations must be an integer from 1000 to ${MAX_PBKDF2_ITERATIONS}`,
      { iterations },
    );
  }
  const secret = passphraseBytes(passphrase);
  if (secret.length === 0) {
    throw new SchemaPinError("INPUT_INVALID", "encryptPrivateKeyPem: the passphrase is empty");
  }
  const pkcs8 = privateKeyToPkcs8Der(key);
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(16));
  const keyBytes = await pbkdf2(secret, salt, iterations, "SHA-256", 32);
  secret.fill(0);
  let ciphertext: Uint8Array;
  try {
    const aesKey = await crypto.subtle.importKey("raw", keyBytes, "AES-CBC", false, ["encrypt"]);
    ciphertext = new Uint8Array(
      await crypto.subtle.encrypt({ name: "AES-CBC", iv }, aesKey, pkcs8),
    );
  } finally {
    keyBytes.fill(0);
    pkcs8.fill(0);
  }
  const der = derSequence(
    derSequence(
      derOid(PBES2),
      derSequence(
        derSequence(
          derOid(PBKDF2),
          // keyLength is left out: AES-256 has one key size (as OpenSSL writes it).
          derSequence(
            derOctetString(salt),
            derInteger(BigInt(iterations)),
            derSequence(derOid(PRF_OID_SHA256), derNull()),
          ),
        ),
        derSequence(derOid(AES_256_CBC), derOctetString(iv)),
      ),
    ),
    derOctetString(ciphertext),
  );
  return formatPem(LABEL, der);
}
