/**
 * Signers: where a signature comes from when the private key is not in this process — an SSH
 * agent holding a YubiKey PIV or Secure Enclave key (`lib/ssh_agent/`), or any other device
 * that signs ECDSA P-256 with SHA-256.
 *
 * A {@linkcode Signer} has one operation, the one every such device offers: sign a message,
 * hashing it with SHA-256 itself. Both SchemaPin signing inputs are expressed with it:
 *
 * - a bare schema signature (§4.1) is ECDSA over `SHA-256(SHA-256(canonical))`: the message
 *   given to the signer is the 32-byte `SHA-256(canonical)` ({@linkcode signSchemaWithSigner});
 * - a signature document — 1.4 schema and skill documents (§4b.5), trust bundles (§21.3),
 *   lock signatures — is ECDSA over `SHA-256(canonical)`: the message is the canonical bytes
 *   themselves ({@linkcode signDocumentWithSigner}).
 *
 * What a signer returns is checked before it is used: strict DER, normalised to low-S (as
 * `signDigest` signs; §3 does not require it and our verifier accepts high-S, but one key then
 * always yields the same shape of signature, and verifiers that insist on low-S accept it), and
 * verified under the signer's public key — a device that signed with another key, or over other
 * bytes, is an error here rather than a signature that fails later at every client.
 *
 * @module
 */
import { p256 } from "@noble/curves/nist.js";
import { SchemaPinError } from "../errors.ts";
import { checkArg, checkKeyArg, checkSignerArg } from "../arguments.ts";
import { encodeBase64 } from "./base64.ts";
import { decodeEcdsaDer, encodeEcdsaDer } from "./der.ts";
import { signDigest, verifyDigest } from "./ecdsa.ts";
import { sha256 } from "./hash.ts";
import type { PrivateKey, PublicKey } from "./key_types.ts";

const N = p256.Point.Fn.ORDER;

/**
 * Something that signs ECDSA P-256 / SHA-256 with one key: an in-memory private key
 * ({@linkcode privateKeySigner}) or a key held elsewhere, such as in an SSH agent
 * (`sshAgentSigner`).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner, type Signer } from "./signer.ts";
 * const signer: Signer = privateKeySigner(generateKeyPair());
 * const der = await signer.signMessage(new TextEncoder().encode("hello"));
 * console.log(signer.publicKey.fingerprint, der[0]); // sha256:… 48
 * ```
 */
export interface Signer {
  /** The public key the signatures verify under. */
  readonly publicKey: PublicKey;
  /** Where the key is, for messages: `"private key"`, `"the SSH agent at /tmp/…"`. */
  readonly description?: string;
  /**
   * ECDSA P-256 over `SHA-256(message)` — the signer hashes the message — as a DER
   * `ECDSA-Sig-Value`.
   */
  signMessage(message: Uint8Array): Promise<Uint8Array>;
}

/**
 * A {@linkcode Signer} over a private key in memory: `signMessage` is `signDigest` of
 * `SHA-256(message)` (deterministic, RFC 6979, low-S).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner, signDocumentWithSigner } from "./signer.ts";
 * import { signDocument } from "./ecdsa.ts";
 * const key = generateKeyPair();
 * const bytes = new TextEncoder().encode('{"signature":""}');
 * // The same bytes as the synchronous function (RFC 6979 is deterministic)
 * (await signDocumentWithSigner(bytes, privateKeySigner(key))) === signDocument(bytes, key); // true
 * ```
 */
export function privateKeySigner(privateKey: PrivateKey): Signer {
  checkKeyArg("privateKeySigner", "privateKey", privateKey, "private");
  const key = privateKey;
  return Object.freeze({
    publicKey: key.publicKey,
    description: "private key",
    signMessage: (message: Uint8Array) => {
      checkArg("signMessage", "message", message, "bytes");
      return Promise.resolve(signDigest(sha256(message), key));
    },
  });
}

/**
 * Checks what a signer returned for `digest` (strict DER, 1 ≤ r, s < n), normalises s to
 * low-S (s > n/2 → n − s, the same signature's other valid form) and verifies it under the
 * signer's public key.
 */
async function checkedSignature(
  signer: Signer,
  message: Uint8Array,
  digest: Uint8Array,
): Promise<Uint8Array> {
  const where = signer.description ?? "the signer";
  const returned = await signer.signMessage(message);
  if (!(returned instanceof Uint8Array)) {
    throw new SchemaPinError(
      "KEY_INVALID",
      `${where}: the signer returned no signature bytes`,
    );
  }
  let scalars;
  try {
    scalars = decodeEcdsaDer(returned, "the signer's signature");
  } catch (e) {
    throw new SchemaPinError(
      "KEY_INVALID",
      `${where}: the signer returned a malformed signature: ${(e as Error).message}`,
    );
  }
  const der = encodeEcdsaDer(
    scalars.s > N >> 1n ? { r: scalars.r, s: N - scalars.s } : scalars,
  );
  if (!verifyDigest(digest, der, signer.publicKey).valid) {
    throw new SchemaPinError(
      "KEY_INVALID",
      `${where}: the signature it returned does not verify under its public key ` +
        `${signer.publicKey.fingerprint} (it signed with another key, or other bytes)`,
      { fingerprint: signer.publicKey.fingerprint },
    );
  }
  return der;
}

/**
 * {@linkcode signSchema} with a {@linkcode Signer}: a bare §4.1 schema signature, ECDSA P-256
 * over `SHA-256(SHA-256(canonical))`, as Base64 DER. The signer hashes what it is given, so it
 * is given the 32-byte `SHA-256(canonical)` — the §4.1 "message". Checked as the module
 * documentation says.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` on misuse; `KEY_INVALID` when the signer's
 *   signature is malformed or does not verify; whatever the signer throws (an SSH agent:
 *   `IO_FAILED`).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner } from "./signer.ts";
 * import { verifySchemaSignature } from "jsr:@schemapin/schemapin/schema";
 * import { signSchemaWithSigner } from "./signer.ts";
 * const key = generateKeyPair();
 * const canonical = new TextEncoder().encode('{"name":"tool"}');
 * const signature = await signSchemaWithSigner(canonical, privateKeySigner(key));
 * verifySchemaSignature(canonical, signature, key.publicKey); // { valid: true }
 * ```
 */
export async function signSchemaWithSigner(canonical: Uint8Array, signer: Signer): Promise<string> {
  checkArg("signSchemaWithSigner", "canonical", canonical, "bytes");
  checkSignerArg("signSchemaWithSigner", "signer", signer);
  const message = sha256(canonical); // §4.1: the message is SHA-256(canonical)
  return encodeBase64(await checkedSignature(signer, message, sha256(message)));
}

/**
 * {@linkcode signDocument} with a {@linkcode Signer}: a document signature (§4b.5, §21.3),
 * ECDSA P-256 over `SHA-256(canonical)`, as Base64 DER. The signer is given the canonical
 * bytes themselves. Checked as the module documentation says.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` on misuse; `KEY_INVALID` when the signer's
 *   signature is malformed or does not verify; whatever the signer throws (an SSH agent:
 *   `IO_FAILED`).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner, signDocumentWithSigner } from "./signer.ts";
 * import { verifyDocumentSignature } from "./ecdsa.ts";
 * const key = generateKeyPair();
 * const canonical = new TextEncoder().encode('{"signature":""}');
 * const signature = await signDocumentWithSigner(canonical, privateKeySigner(key));
 * verifyDocumentSignature(canonical, signature, key.publicKey); // { valid: true }
 * ```
 */
export async function signDocumentWithSigner(
  canonical: Uint8Array,
  signer: Signer,
): Promise<string> {
  checkArg("signDocumentWithSigner", "canonical", canonical, "bytes");
  checkSignerArg("signDocumentWithSigner", "signer", signer);
  return encodeBase64(await checkedSignature(signer, canonical, sha256(canonical)));
}
