/**
 * Tool schemas (SchemaPin §4, §4.1, §15, §18–§20): the schemapin-v1 canonical form, bare
 * (1.3) signatures and 1.4 signature documents, offline verification and verification with a
 * resolver (§14, optional DNS TXT cross-check, §17), and A2A delegation scopes (§20).
 *
 * What is here and not in `jsr:@schemapin/schemapin`: the canonical form, bare signatures, the
 * signature document's parts (parse, format, hash, signing input), resolvers, A2A, and the
 * types shared by schema and skill verification. Discovery documents, resolvers and DNS are in
 * `./discovery`, pin stores in `./pins`.
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
 * @example Verify against the domain's `.well-known` document, with the DNS TXT cross-check
 * ```ts
 * import { verifySchemaWithResolver } from "jsr:@schemapin/schemapin/schema";
 * import { WellKnownResolver } from "jsr:@schemapin/schemapin/discovery";
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { type JsonObject, parseJson } from "jsr:@schemapin/schemapin";
 *
 * const result = await verifySchemaWithResolver({
 *   schema: parseJson(await Deno.readFile("tool.json"), "tool.json"),
 *   signature: parseJson(await Deno.readFile("tool.json.sig"), "tool.json.sig") as JsonObject,
 *   toolId: "add",
 *   domain: "example.com",
 *   resolver: new WellKnownResolver(),
 *   dns: true,
 *   pinStore: new FilePinStore(),
 * });
 * console.log(result.valid, result.discoverySource, result.dns?.state);
 * ```
 *
 * @module
 */

export {
  canonicalizeSchemapinV1,
  canonicalizeSchemapinV1Bytes,
  SCHEMAPIN_V1,
} from "./lib/json/canonical_schemapin.ts";
export { type SignatureCheck, signSchema, verifySchemaSignature } from "./lib/crypto/ecdsa.ts";
export { signSchemaWithSigner } from "./lib/crypto/signer.ts";
export {
  formatSchemaSignatureDocument,
  type ParsedSchemaSignature,
  parseSchemaSignatureDocument,
  SCHEMA_SIGNATURE_DOCUMENT_VERSION,
  type SchemaDocumentOptions,
  schemaHash,
  type SchemaSignatureDocument,
  schemaSignatureSigningInput,
  signSchemaDocument,
  signSchemaDocumentWithSigner,
} from "./lib/schema/document.ts";
export {
  type SchemaVerificationResult,
  verifySchemaOffline,
  type VerifySchemaOfflineOptions,
} from "./lib/schema/verify.ts";
export type { StepFailure } from "./lib/errors.ts";
export type {
  BeforePinHook,
  FirstUseInfo,
  KeyPinningStatus,
  OfflineFlowOptions,
  OfflineVerificationResult,
} from "./lib/schema/flow.ts";
export {
  type DnsVerifyOptions,
  type ResolverResultFields,
  type ResolverVerifyOptions,
  type SchemaResolverVerificationResult,
  verifySchemaWithResolver,
  type VerifySchemaWithResolverOptions,
} from "./lib/schema/resolver_verify.ts";
export {
  A2A_MAX_DELEGATION_DEPTH,
  type A2aVerificationContext,
  allows,
  intersect,
  isUnrestricted,
  verifySchemaForA2a,
} from "./lib/a2a/context.ts";
