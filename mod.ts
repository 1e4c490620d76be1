/**
 * schemapin — sign and verify MCP tool schemas and skill folders (SchemaPin 1.4), and pin
 * MCP tool contracts in a lock file (contractpin.lock v1, see `./contractpin`).
 *
 * Quick start:
 *
 * ```ts
 * import {
 *   canonicalizeSchemapinV1Bytes,
 *   generateKeyPair,
 *   parseJson,
 *   signSchema,
 *   verifySchemaSignature,
 * } from "./mod.ts";
 *
 * const schema = parseJson(new TextEncoder().encode('{"name":"add","description":"Adds"}'));
 * const canonical = canonicalizeSchemapinV1Bytes(schema); // spec §4
 * const key = generateKeyPair();
 * const signature = signSchema(key, canonical); // Base64 DER, ECDSA over SHA-256(SHA-256(c))
 * verifySchemaSignature(key.publicKey, canonical, signature); // { valid: true }
 * ```
 *
 * @module
 */

export {
  type ErrorCode,
  type ErrorDetails,
  isSchemaPinError,
  SchemaPinError,
} from "./lib/errors.ts";
export { VERSION } from "./lib/version.ts";

// Strict JSON and canonicalization (spec §4, contractpin §3)
export type { JsonObject, JsonValue } from "./lib/json/types.ts";
export { MAX_JSON_DEPTH, parseJson, parseJsonText } from "./lib/json/parse.ts";
export {
  canonicalizeSchemapinV1,
  canonicalizeSchemapinV1Bytes,
  SCHEMAPIN_V1,
} from "./lib/json/canonical_schemapin.ts";
export {
  canonicalizeJcs,
  canonicalizeJcsBytes,
  CONTRACTPIN_CANONICAL_JSON_1,
} from "./lib/json/canonical_jcs.ts";

// Keys and signatures (spec §3, §4.1, §4b, §8.2)
export {
  fingerprintPublicKey,
  generateKeyPair,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  type PrivateKey,
  privateKeyToPem,
  type PublicKey,
  publicKeyFromDer,
  publicKeyToPem,
} from "./lib/crypto/keys.ts";
export {
  derToP1363,
  p1363ToDer,
  type SignatureCheck,
  signDocument,
  signSchema,
  verifyDocumentSignature,
  verifySchemaSignature,
} from "./lib/crypto/ecdsa.ts";
export { sha256, sha256Hex } from "./lib/crypto/hash.ts";
export { decodeBase64Strict, encodeBase64 } from "./lib/crypto/base64.ts";

// contractpin.lock (also available on its own as "./contractpin")
export {
  type ContractLock,
  digestToolList,
  parseLock,
  pinServers,
  projectContract,
  serializeLock,
  serverDigest,
  toolDigest,
  verifyLock,
  type VerifyReport,
} from "./contractpin.ts";
