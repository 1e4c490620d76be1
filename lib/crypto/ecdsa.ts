/**
 * ECDSA P-256 / SHA-256 signatures as SchemaPin transports them: Base64 of DER (spec §5).
 *
 * Two signing inputs exist, and both are needed:
 * - schema signatures (§4.1) sign the 32-byte SHA-256 of the canonical bytes as the message,
 *   so the ECDSA digest is `SHA-256(SHA-256(canonical))` ({@linkcode signSchema});
 * - documents — skill `.schemapin.sig` (§4b.5) and trust bundles (§21.3) — sign the canonical
 *   bytes, so the ECDSA digest is `SHA-256(canonical)` ({@linkcode signDocument}).
 *
 * Argument order, here and in every signing function of the package: what is signed first, then
 * (when verifying) the signature, then the key, then options — `signSchema(canonical, key)`,
 * `verifySchemaSignature(canonical, signature, publicKey)`, `signSchemaDocument(schema, key)`.
 *
 * Verification accepts high-S signatures: OpenSSL and WebCrypto produce them and they are valid
 * P-256 signatures. Signing is deterministic (RFC 6979) and produces low-S signatures.
 * Verification runs on noble-curves point arithmetic with the cached, precomputed public point
 * (see `key_cache.ts`), which measured faster here than WebCrypto and `node:crypto`.
 *
 * @module
 */

import { p256 } from "@noble/curves/nist.js";
import { bytesToNumberBE } from "@noble/curves/utils.js";
import { SchemaPinError } from "../errors.ts";
import { encodeBase64, scanBase64 } from "./base64.ts";
import { decodeEcdsaDer, type EcdsaSignatureScalars } from "./der.ts";
import { sha256 } from "./hash.ts";
import { baseForVerification, type CachedKey, pointForVerification } from "./key_cache.ts";
import { cachedKeyFromDer, type PrivateKey, type PublicKey } from "./keys.ts";
import { checkArg, checkKeyArg } from "../arguments.ts";

export { derToP1363, p1363ToDer } from "./der.ts";

const { Point } = p256;
const Fn = Point.Fn;
const Fp = Point.Fp;

/**
 * The outcome of a signature check. When it fails, `errorCode` is `SIGNATURE_INVALID` and
 * `errorMessage` says why, for people; `reason` says why, for programs: `malformed` (not Base64
 * of a strict DER P-256 signature), `mismatch` (well-formed but does not verify),
 * `single-hash` (a schema signature made over `SHA-256(canonical)` instead of §4.1's double
 * hash: a signer bug, not tampering — still invalid), `document` (a signature document was
 * given where a bare signature is expected: its signature covers the document, not the
 * schema — verify SchemaPin 1.4 documents with `verifySchemaOffline`).
 *
 * @example
 * ```ts
 * import type { SignatureCheck } from "jsr:@schemapin/schemapin/schema";
 * const check: SignatureCheck = {
 *   valid: false,
 *   reason: "mismatch",
 *   errorCode: "SIGNATURE_INVALID",
 *   errorMessage: "…",
 * };
 * ```
 */
export type SignatureCheck =
  | { readonly valid: true }
  | {
    readonly valid: false;
    /** Why, for programs. */
    readonly reason: "malformed" | "mismatch" | "single-hash" | "document";
    /** Always `SIGNATURE_INVALID`, like the `errorCode` of the verification results. */
    readonly errorCode: "SIGNATURE_INVALID";
    /** Why, for people. */
    readonly errorMessage: string;
  };

function invalid(
  reason: "malformed" | "mismatch" | "single-hash" | "document",
  errorMessage: string,
): SignatureCheck {
  return { valid: false, reason, errorCode: "SIGNATURE_INVALID", errorMessage };
}

function assertDigest(digest: Uint8Array): void {
  if (!(digest instanceof Uint8Array) || digest.length !== 32) {
    throw new SchemaPinError("INPUT_INVALID", "an ECDSA P-256 digest must be 32 bytes", {
      length: digest?.length,
    });
  }
}

/**
 * Signs a 32-byte digest `e` (no further hashing) and returns the DER signature. Deterministic
 * (RFC 6979), low-S.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` if the digest is not 32 bytes; `KEY_INVALID` if the
 *   scalar is not 32 bytes in 1 ≤ d < n.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { signDigest, verifyDigest } from "./ecdsa.ts";
 * import { sha256 } from "./hash.ts";
 * const sk = generateKeyPair();
 * const e = sha256(new TextEncoder().encode("hello"));
 * verifyDigest(e, signDigest(e, sk), sk.publicKey); // { valid: true }
 * ```
 */
export function signDigest(digest: Uint8Array, privateKey: PrivateKey): Uint8Array<ArrayBuffer> {
  assertDigest(digest);
  const sk = privateKey;
  const d = sk.scalar.length === 32 ? bytesToNumberBE(sk.scalar) : 0n;
  if (d === 0n || d >= Fn.ORDER) {
    throw new SchemaPinError("KEY_INVALID", "private key: the scalar is not 32 bytes in 1 ≤ d < n");
  }
  return p256.sign(digest, sk.scalar, { prehash: false, lowS: true, format: "der" });
}

/** r + n, when it is still a field element: the only other x with x mod n = r. */
const R_PLUS_N_LIMIT = Fp.ORDER - Fn.ORDER;

/**
 * ECDSA verification over digest `e` (SEC 1 §4.1.4) with the cached point: R = u1·G + u2·Q,
 * valid iff R ≠ O and x(R) mod n = r. noble's points are homogeneous projective (x = X/Z), so
 * the last test is done without the field inversion of `toAffine`: x(R) mod n = r exactly when
 * x(R) = r or x(R) = r + n (possible only while r + n < p), i.e. X = r·Z or X = (r + n)·Z.
 */
function verifyScalars(
  entry: CachedKey,
  e: bigint,
  sig: EcdsaSignatureScalars,
): boolean {
  const point = pointForVerification(entry);
  const w = Fn.inv(sig.s);
  const u1 = Fn.create(e * w);
  const u2 = Fn.create(sig.r * w);
  // G·u1 and Q·u2 each use a precomputed window table once the key is hot (key_cache.ts).
  const R = baseForVerification(entry).multiplyUnsafe(u1).add(point.multiplyUnsafe(u2));
  if (R.is0()) return false;
  if (Fp.eql(R.X, Fp.mul(sig.r, R.Z))) return true;
  return sig.r < R_PLUS_N_LIMIT && Fp.eql(R.X, Fp.mul(sig.r + Fn.ORDER, R.Z));
}

/**
 * The cache entry for `pk`. The key is identified by `pk.spki` (what the fingerprint covers);
 * a hand-built `PublicKey` whose `point` disagrees with its `spki` is refused, not guessed at.
 */
function entryFor(pk: PublicKey): CachedKey {
  const entry = cachedKeyFromDer(pk.spki);
  const a = entry.publicKey.point;
  const b = pk.point;
  let same = a.length === b?.length;
  for (let i = 0; same && i < a.length; i++) same = a[i] === b[i];
  if (!same) {
    throw new SchemaPinError(
      "KEY_INVALID",
      "public key: the PublicKey's point does not match its spki; build keys with " +
        "parsePublicKeyPem or publicKeyFromDer",
    );
  }
  return entry;
}

type Parsed = { ok: true; sig: EcdsaSignatureScalars } | { ok: false; check: SignatureCheck };

function parseDer(der: Uint8Array): Parsed {
  try {
    return { ok: true, sig: decodeEcdsaDer(der) };
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    return { ok: false, check: invalid("malformed", e.message) };
  }
}

function parseBase64(signature: string): Parsed {
  if (typeof signature !== "string") {
    return { ok: false, check: invalid("malformed", "signature is not a string") };
  }
  const bytes = scanBase64(signature);
  if (!(bytes instanceof Uint8Array)) {
    if (/^\s*\{/.test(signature)) {
      return {
        ok: false,
        check: invalid(
          "document",
          "the signature is JSON text, not Base64 — a signature document? A bare signature " +
            "is the Base64 DER string; a SchemaPin 1.4 signature document is verified as a " +
            "whole with verifySchemaOffline (jsr:@schemapin/schemapin), not by its signature field",
        ),
      };
    }
    return {
      ok: false,
      check: invalid(
        "malformed",
        `signature is not valid Base64: ${bytes.problem} at offset ${bytes.offset}`,
      ),
    };
  }
  return parseDer(bytes);
}

/** A SchemaPin signature document (a 1.4 schema one, or a skill one) given as the signature. */
function documentGiven(what: string, signature: unknown): SignatureCheck | undefined {
  if (typeof signature !== "object" || signature === null || Array.isArray(signature)) {
    return undefined;
  }
  if (!Object.hasOwn(signature, "schemapin_version") && !Object.hasOwn(signature, "signature")) {
    return undefined;
  }
  return invalid(
    "document",
    `${what}: a signature document was given, not a bare Base64 signature; its signature ` +
      "covers the document (schema_hash, signed_at, …), not the canonical bytes — verify a " +
      "SchemaPin 1.4 schema signature document with verifySchemaOffline " +
      "(jsr:@schemapin/schemapin), a skill signature with verifySkillOffline",
  );
}

function digestToScalar(digest: Uint8Array): bigint {
  // For P-256 and SHA-256, bits2int takes all 256 bits; reduce mod n (SEC 1 §4.1.4 step 4–5).
  return Fn.create(bytesToNumberBE(digest));
}

/**
 * Verifies a DER signature over a 32-byte digest `e` (no further hashing). Malformed DER is a
 * result (`reason: "malformed"`), not an exception.
 *
 * @throws {SchemaPinError} only on misuse: a digest that is not 32 bytes, or a `PublicKey`
 *   whose `spki` is not a P-256 key (`KEY_INVALID`).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { signDigest, verifyDigest } from "./ecdsa.ts";
 * const sk = generateKeyPair();
 * const e = new Uint8Array(32).fill(7);
 * verifyDigest(e, signDigest(e, sk), sk.publicKey).valid; // true
 * ```
 */
export function verifyDigest(
  digest: Uint8Array,
  signatureDer: Uint8Array,
  publicKey: PublicKey,
): SignatureCheck {
  assertDigest(digest);
  const entry = entryFor(publicKey);
  const parsed = parseDer(signatureDer);
  if (!parsed.ok) return parsed.check;
  if (verifyScalars(entry, digestToScalar(digest), parsed.sig)) {
    return { valid: true };
  }
  return invalid("mismatch", "the signature does not match this digest and key");
}

/**
 * Signs a schema's canonical bytes per §4.1: ECDSA P-256 over `SHA-256(SHA-256(canonical))`.
 * Returns Base64 of the DER signature.
 *
 * @example
 * ```ts
 * import { signSchema, verifySchemaSignature } from "jsr:@schemapin/schemapin/schema";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * const sk = generateKeyPair();
 * const canonical = new TextEncoder().encode('{"name":"tool"}');
 * verifySchemaSignature(canonical, signSchema(canonical, sk), sk.publicKey); // { valid: true }
 * ```
 */
export function signSchema(canonical: Uint8Array, privateKey: PrivateKey): string {
  checkArg("signSchema", "canonical", canonical, "bytes");
  checkKeyArg("signSchema", "privateKey", privateKey, "private");
  return encodeBase64(signDigest(sha256(sha256(canonical)), privateKey));
}

/**
 * Verifies a §4.1 schema signature (Base64 DER over `SHA-256(SHA-256(canonical))`).
 *
 * When that fails but the signature verifies over the single hash `SHA-256(canonical)` — what
 * the Go reference SDK signs — the result is `reason: "single-hash"`: still invalid, but the
 * message says it is a signer bug rather than tampering. A signature document (or its JSON
 * text) given as `signature` is `reason: "document"`: its signature covers the document, which
 * `verifySchemaOffline` verifies.
 *
 * @throws {SchemaPinError} only on misuse (a `PublicKey` that is not P-256: `KEY_INVALID`).
 *
 * @example
 * ```ts
 * import { signSchema, verifySchemaSignature } from "jsr:@schemapin/schemapin/schema";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * const sk = generateKeyPair();
 * const sig = signSchema(new TextEncoder().encode("{}"), sk);
 * const check = verifySchemaSignature(new TextEncoder().encode('{"a":1}'), sig, sk.publicKey);
 * if (!check.valid) console.log(check.errorCode, check.reason); // SIGNATURE_INVALID mismatch
 * ```
 */
export function verifySchemaSignature(
  canonical: Uint8Array,
  signature: string,
  publicKey: PublicKey,
): SignatureCheck {
  checkArg("verifySchemaSignature", "canonical", canonical, "bytes");
  const document = documentGiven("verifySchemaSignature", signature);
  if (document) return document;
  checkArg("verifySchemaSignature", "signature", signature, "string");
  checkKeyArg("verifySchemaSignature", "publicKey", publicKey, "public");
  const entry = entryFor(publicKey);
  const parsed = parseBase64(signature);
  if (!parsed.ok) return parsed.check;
  const single = sha256(canonical);
  if (verifyScalars(entry, digestToScalar(sha256(single)), parsed.sig)) return { valid: true };
  if (verifyScalars(entry, digestToScalar(single), parsed.sig)) {
    return invalid(
      "single-hash",
      "the signature matches the single-hash construction ECDSA(SHA-256(canonical)): " +
        "a signer bug (the Go reference SDK's), not tampering; §4.1 requires ECDSA over " +
        "SHA-256(SHA-256(canonical)), so the schema must be re-signed with a conforming signer",
    );
  }
  return invalid(
    "mismatch",
    "the signature does not match this schema and key " +
      "(the schema changed after signing, or another key signed it)",
  );
}

/**
 * Signs a document's canonical bytes directly — skill signature documents (§4b.5) and trust
 * bundles (§21.3): ECDSA P-256 over `SHA-256(canonical)`. Returns Base64 of the DER signature.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { signDocument, verifyDocumentSignature } from "./ecdsa.ts";
 * const sk = generateKeyPair();
 * const canonical = new TextEncoder().encode('{"signature":""}');
 * verifyDocumentSignature(canonical, signDocument(canonical, sk), sk.publicKey); // { valid: true }
 * ```
 */
export function signDocument(canonical: Uint8Array, privateKey: PrivateKey): string {
  checkArg("signDocument", "canonical", canonical, "bytes");
  checkKeyArg("signDocument", "privateKey", privateKey, "private");
  return encodeBase64(signDigest(sha256(canonical), privateKey));
}

/**
 * Verifies a document signature (Base64 DER over `SHA-256(canonical)`; §4b.5, §21.3).
 *
 * @throws {SchemaPinError} only on misuse (a `PublicKey` that is not P-256: `KEY_INVALID`).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { verifyDocumentSignature } from "./ecdsa.ts";
 * const sk = generateKeyPair();
 * verifyDocumentSignature(new Uint8Array(), "bm90IERFUg==", sk.publicKey);
 * // { valid: false, reason: "malformed", errorCode: "SIGNATURE_INVALID", errorMessage: "…" }
 * ```
 */
export function verifyDocumentSignature(
  canonical: Uint8Array,
  signature: string,
  publicKey: PublicKey,
): SignatureCheck {
  checkArg("verifyDocumentSignature", "canonical", canonical, "bytes");
  checkArg("verifyDocumentSignature", "signature", signature, "string");
  checkKeyArg("verifyDocumentSignature", "publicKey", publicKey, "public");
  const entry = entryFor(publicKey);
  const parsed = parseBase64(signature);
  if (!parsed.ok) return parsed.check;
  if (verifyScalars(entry, digestToScalar(sha256(canonical)), parsed.sig)) {
    return { valid: true };
  }
  return invalid(
    "mismatch",
    "the signature does not match this document and key " +
      "(the document changed after signing, or another key signed it)",
  );
}
