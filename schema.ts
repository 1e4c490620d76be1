/**
 * Tool schemas (SchemaPin §4, §4.1, §15, §16): the schemapin-v1 canonical bytes, bare (1.3)
 * signatures and 1.4 signature documents, and verification — {@linkcode verifySchemaOffline},
 * the seven steps of §15.1 over the documents you give it (from a file, or fetched with
 * `resolveTrustDocuments` of `./discovery`).
 *
 * What is here and not in `jsr:@schemapin/schemapin`: the canonical bytes and bare (1.3)
 * signatures, writing a signature document to a file, verification with the DNS TXT
 * cross-check of §17 ({@linkcode verifySchemaOfflineWithDns}, with a resolver you give), and
 * the option and result types of schema and skill verification (the skill ones extend them).
 * Where the documents come from (discovery, revocation, resolvers, DNS TXT resolvers) is
 * `./discovery`; pin stores are in `./pins`.
 *
 * Argument order of every signing function: what is signed, then (verifying) the signature,
 * then the key, then options.
 *
 * @example A bare §4.1 signature over the canonical bytes
 * ```ts
 * import {
 *   canonicalizeSchemapinV1Bytes,
 *   signSchema,
 *   verifySchemaSignature,
 * } from "jsr:@schemapin/schemapin/schema";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 *
 * const canonical = canonicalizeSchemapinV1Bytes({ name: "add", description: "Adds" });
 * const key = generateKeyPair();
 * const signature = signSchema(canonical, key); // Base64 DER over SHA-256(SHA-256(canonical))
 * const check = verifySchemaSignature(canonical, signature, key.publicKey);
 * if (!check.valid) console.error(check.errorCode, check.reason, check.errorMessage);
 * ```
 *
 * @example Verify against the domain's `.well-known` document
 * ```ts
 * import { verifySchemaOffline } from "jsr:@schemapin/schemapin/schema";
 * import { resolveTrustDocuments, WellKnownResolver } from "jsr:@schemapin/schemapin/discovery";
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { type JsonObject, parseJson } from "jsr:@schemapin/schemapin";
 *
 * // https://example.com/.well-known/schemapin.json and its revocation document, validated
 * const trust = await resolveTrustDocuments(new WellKnownResolver(), "example.com");
 * const result = await verifySchemaOffline({
 *   schema: parseJson(await Deno.readFile("tool.json"), "tool.json"),
 *   signature: parseJson(await Deno.readFile("tool.json.sig"), "tool.json.sig") as JsonObject,
 *   toolId: "add",
 *   domain: "example.com",
 *   discovery: trust.discovery,
 *   revocation: trust.revocation,
 *   pinStore: new FilePinStore(),
 * });
 * console.log(result.valid, trust.discoverySource, result.keyPinning);
 * ```
 *
 * @module
 */

// The canonical form (§4) and bare v1.3 signatures (§4.1)
export { canonicalizeSchemapinV1Bytes } from "./lib/json/canonical_schemapin.ts";
export { type SignatureCheck, signSchema, verifySchemaSignature } from "./lib/crypto/ecdsa.ts";

// 1.4 signature documents (§16)
export {
  formatSchemaSignatureDocument,
  type SchemaDocumentOptions,
  type SchemaSignatureDocument,
  signSchemaDocument,
} from "./lib/schema/document.ts";

// Verification (§15.1), and the option and result types skill verification shares
export {
  type SchemaVerificationResult,
  verifySchemaOffline,
  type VerifySchemaOfflineOptions,
} from "./lib/schema/verify.ts";
export type {
  BeforePinHook,
  FirstUseInfo,
  KeyPinningStatus,
  OfflineFlowOptions,
  OfflineVerificationResult,
} from "./lib/schema/flow.ts";
export type { StepFailure } from "./lib/errors.ts";

// Verification with the DNS TXT cross-check (§17), DNS looked up by a resolver you give
export { type DnsCrossCheckOptions, verifySchemaOfflineWithDns } from "./lib/schema/dns_verify.ts";
export type { DnsCrossCheck } from "./lib/dns/check.ts";
