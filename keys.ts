/**
 * Keys (SchemaPin §3, §8.2, §9): ECDSA P-256 keys — generated, read from and written to PEM
 * (PKCS #8, SEC1 and SubjectPublicKeyInfo), passphrase-encrypted PKCS #8 (PBES2) at rest — and
 * their `sha256:` fingerprints (`publicKey.fingerprint`). Signing is done by the function of
 * each artefact (`signSchemaDocument`, `signSchema` and `signSkillDir`).
 *
 * `jsr:@schemapin/schemapin` exports `generateKeyPair` too.
 *
 * @example Keep a private key encrypted at rest
 * ```ts
 * import {
 *   decryptPrivateKeyPem,
 *   encryptPrivateKeyPem,
 *   generateKeyPair,
 * } from "jsr:@schemapin/schemapin/keys";
 *
 * const key = generateKeyPair();
 * const pem = await encryptPrivateKeyPem(key, "correct horse battery staple");
 * await Deno.writeTextFile("private.pem", pem, { mode: 0o600 });
 *
 * const again = await decryptPrivateKeyPem(
 *   await Deno.readTextFile("private.pem"),
 *   "correct horse battery staple",
 * );
 * console.log(again.publicKey.fingerprint === key.publicKey.fingerprint); // true
 * ```
 *
 * @module
 */

export {
  generateKeyPair,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  type PrivateKey,
  privateKeyToPem,
  type PublicKey,
  publicKeyToPem,
} from "./lib/crypto/keys.ts";
export {
  decryptPrivateKeyPem,
  type EncryptPrivateKeyOptions,
  encryptPrivateKeyPem,
} from "./lib/crypto/encrypted_key.ts";
