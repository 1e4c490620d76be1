/**
 * Keys (SchemaPin §3, §8.2, §9): ECDSA P-256 keys in every form they are met in — PEM, DER
 * SubjectPublicKeyInfo and PKCS #8, passphrase-encrypted PKCS #8 (PBES2) at rest — their
 * `sha256:` fingerprints, the two raw signing inputs (§4.1 schema signatures are in `./schema`;
 * documents — skill signatures, trust bundles — are signed here), and conversion between DER
 * signatures and the raw `r ‖ s` (IEEE P1363) form WebCrypto uses.
 *
 * `jsr:@schemapin/schemapin` exports the common key functions too (generate, parse, PEM,
 * fingerprint).
 *
 * @example Keep a private key encrypted at rest
 * ```ts
 * import {
 *   decryptPrivateKeyPem,
 *   encryptPrivateKeyPem,
 *   generateKeyPair,
 *   isEncryptedPrivateKeyPem,
 * } from "jsr:@schemapin/schemapin/keys";
 *
 * const key = generateKeyPair();
 * const pem = await encryptPrivateKeyPem(key, "correct horse battery staple");
 * await Deno.writeTextFile("private.pem", pem, { mode: 0o600 });
 *
 * const text = await Deno.readTextFile("private.pem");
 * const again = isEncryptedPrivateKeyPem(text)
 *   ? await decryptPrivateKeyPem(text, "correct horse battery staple")
 *   : undefined;
 * console.log(again?.publicKey.fingerprint === key.publicKey.fingerprint); // true
 * ```
 *
 * @module
 */

export {
  fingerprintPublicKey,
  generateKeyPair,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  type PrivateKey,
  privateKeyFromPkcs8Der,
  privateKeyToPem,
  privateKeyToPkcs8Der,
  type PublicKey,
  publicKeyFromDer,
  publicKeyToPem,
} from "./lib/crypto/keys.ts";
export {
  type CipherName,
  decryptPrivateKeyPem,
  DEFAULT_PBKDF2_ITERATIONS,
  type EncryptedKeyParameters,
  encryptedPrivateKeyParameters,
  type EncryptPrivateKeyOptions,
  encryptPrivateKeyPem,
  isEncryptedPrivateKeyPem,
  MAX_PBKDF2_ITERATIONS,
  type PbkdfHash,
} from "./lib/crypto/encrypted_key.ts";
export {
  derToP1363,
  p1363ToDer,
  type SignatureCheck,
  signDocument,
  verifyDocumentSignature,
} from "./lib/crypto/ecdsa.ts";
export { privateKeySigner, signDocumentWithSigner, type Signer } from "./lib/crypto/signer.ts";
export { type SshAgentOptions, sshAgentSigner } from "./lib/ssh_agent/client.ts";
export { parseSshPublicKey, type SshPublicKey } from "./lib/ssh_agent/public_key.ts";
