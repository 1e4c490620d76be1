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
 * const signature = signSchema(canonical, key); // Base64 DER, ECDSA over SHA-256(SHA-256(c))
 * verifySchemaSignature(canonical, signature, key.publicKey); // { valid: true }
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
  type LockServer,
  parseLock,
  pinServers,
  projectContract,
  serializeLock,
  serverDigest,
  toolDigest,
  verifyLock,
  type VerifyReport,
} from "./contractpin.ts";

// Schema signatures and offline verification (spec §4.1, §15, §16, §18, §19)
export {
  formatSchemaSignatureDocument,
  type ParsedSchemaSignature,
  parseSchemaSignatureDocument,
  SCHEMA_SIGNATURE_DOCUMENT_VERSION,
  SCHEMA_SIGNATURE_FIELDS,
  type SchemaDocumentOptions,
  schemaHash,
  type SchemaSignatureDocument,
  schemaSignatureSigningInput,
  signSchemaBase64,
  signSchemaDocument,
} from "./lib/schema/document.ts";
export {
  clearSignatureCheckCache,
  EXPIRY_SKEW_MS,
  type FirstUseInfo,
  type KeyPinningStatus,
  type SchemaVerificationResult,
  verifySchemaOffline,
  type VerifySchemaOfflineOptions,
} from "./lib/schema/verify.ts";
// Discovery documents, domains, unsigned bundles (spec §6, §9, §12, §13.1)
export { checkDomain, type DomainCheck, validateDomain } from "./lib/dns/domain.ts";
export {
  buildDiscoveryDocument,
  type BuildDiscoveryOptions,
  DISCOVERY_SCHEMA_VERSION,
  type DiscoveryDocument,
  loadDiscoveryKey,
  type ParsedDiscovery,
  parseDiscoveryDocument,
} from "./lib/discovery/document.ts";
export { type BundleEntries, findInUnsignedBundle } from "./lib/discovery/unsigned_bundle.ts";
// Revocation (spec §8)
export {
  addRevokedKey,
  buildRevocationDocument,
  checkRevocation,
  findRevokedKey,
  isRevocationReason,
  isRevokedInList,
  parseRevocationDocument,
  REVOCATION_REASONS,
  type RevocationDocument,
  type RevocationReason,
  type RevocationStatus,
  type RevokedKey,
} from "./lib/revocation/document.ts";
// Pins and lineage (spec §7.2, §15.1, §18)
export {
  addPinIfAbsent,
  type AddPinOutcome,
  defaultPinStorePath,
  FilePinStore,
  type ImportOutcome,
  importPins,
  MemoryPinStore,
  parsePinKey,
  pinKey,
  type PinRecord,
  type PinSource,
  type PinStore,
  removePin,
  rotatePin,
  seedPin,
} from "./lib/pins/store.ts";
export {
  type ChainCheck,
  compareVersions,
  defaultLineageStorePath,
  type LineageOutcome,
  type LineageRecord,
  type LineageSignature,
  LineageStore,
  type LineageStoreOptions,
  verifyChain,
} from "./lib/pins/lineage.ts";
// A2A (spec §20)
export {
  A2A_MAX_DELEGATION_DEPTH,
  type A2aVerificationContext,
  allows,
  intersect,
  isUnrestricted,
  verifySchemaForA2a,
} from "./lib/a2a/context.ts";
// Strict RFC 3339 and durations (spec §16)
export { formatRfc3339, parseDuration, parseRfc3339 } from "./lib/time/rfc3339.ts";

// Skill folders (spec §4b, §15, §16, §18)
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_ENTRIES,
  SIGNATURE_FILE_NAME,
  type SkillFile,
  type SkillLimits,
  type SkillWalk,
  walkSkillDir,
  type WalkSkillOptions,
} from "./lib/skill/walk.ts";
export {
  checkSkillPath,
  hashSkillDir,
  hashSkillFiles,
  type HashSkillOptions,
  type SkillAlgorithm,
  type SkillEntryHash,
  type SkillFileContent,
  type SkillHash,
  type SkillHashProgress,
} from "./lib/skill/hash.ts";
export {
  formatSkillSignatureDocument,
  type ParsedSkillSignature,
  parseSkillSignatureDocument,
  signSkillDocument,
  SKILL_SIGNATURE_FIELDS,
  SKILL_SIGNATURE_VERSION,
  skillAlgorithmFor,
  type SkillSignatureDocument,
  skillSigningInput,
  type SkillSignOptions,
} from "./lib/skill/document.ts";
export {
  readSkillName,
  type SignedSkill,
  signSkillDir,
  type SignSkillDirOptions,
} from "./lib/skill/sign.ts";
export { compareManifests, type ManifestChanges } from "./lib/skill/manifest.ts";
export { skillNameFromFrontMatter } from "./lib/skill/front_matter.ts";
export {
  MAX_SIGNATURE_FILE_BYTES,
  type SkillVerificationResult,
  verifySkillOffline,
  type VerifySkillOfflineOptions,
  verifySkillOfflineWithHook,
} from "./lib/skill/verify.ts";
export type {
  BeforePinHook,
  OfflineFlowOptions,
  OfflineVerificationResult,
  StepFailure,
} from "./lib/schema/flow.ts";

// Trust bundles (spec §13, §14, §21)
export * from "./lib/bundle/bundle.ts";
export * from "./lib/bundle/sign.ts";
export * from "./lib/bundle/authority.ts";
export * from "./lib/bundle/verify.ts";
export * from "./lib/bundle/merge.ts";
export * from "./lib/bundle/jsonrpc.ts";
export * from "./lib/bundle/resolver.ts";

// Private keys at rest (spec §9)
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
export { privateKeyFromPkcs8Der, privateKeyToPkcs8Der } from "./lib/crypto/keys.ts";

// Discovery over the network, resolvers, DNS TXT (spec §6, §9, §14, §17)
export {
  checkFetchUrl,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_READ_TIMEOUT_MS,
  fetchHttpsJson,
  type HttpsFetchOptions,
  MAX_DISCOVERY_BYTES,
} from "./lib/discovery/http.ts";
export {
  WELL_KNOWN_PATH,
  WellKnownResolver,
  type WellKnownResolverOptions,
  wellKnownUrl,
} from "./lib/discovery/well_known.ts";
export {
  ChainResolver,
  LocalFileResolver,
  MAX_LOCAL_DOCUMENT_BYTES,
  type ResolvedTrust,
  resolveTrustDocuments,
  type ResolveTrustOptions,
  type SchemaResolver,
} from "./lib/discovery/resolvers.ts";
export {
  dnsBeforePinHook,
  type DnsVerifyOptions,
  type ResolverResultFields,
  type ResolverVerifyOptions,
  type SchemaResolverVerificationResult,
  verifySchemaWithResolver,
  type VerifySchemaWithResolverOptions,
  type WithDnsCheck,
} from "./lib/schema/resolver_verify.ts";
export {
  type SkillResolverVerificationResult,
  verifySkillWithResolver,
  type VerifySkillWithResolverOptions,
} from "./lib/skill/resolver_verify.ts";
export {
  checkDnsKid,
  DNS_TXT_VERSION,
  dnsLookupName,
  type DnsTxtRecord,
  type DnsTxtSelection,
  formatDnsTxtRecord,
  isSchemapinRecord,
  parseDnsTxtRecord,
  selectDnsTxtRecord,
} from "./lib/dns/txt.ts";
export {
  crossCheckDnsTxt,
  type DnsCrossCheck,
  type DnsDecision,
  type DnsFailurePolicy,
  type DnsTxtLookup,
  lookupDnsTxt,
} from "./lib/dns/check.ts";
export {
  DEFAULT_DNS_TIMEOUT_MS,
  type DnsLookupOptions,
  type DnsLookupResult,
  type DnsServer,
  lookupTxt,
  parseDnsServer,
} from "./lib/dns/resolve.ts";

// Live guard between MCP client and server, tool signatures in _meta
export {
  DOMAIN_META_KEY,
  MANIFEST_META_KEY,
  readToolSignature,
  SIGNATURE_META_KEY,
  type SignedToolList,
  signToolList,
  type SignToolListOptions,
  SnapshotPinStore,
  type ToolSignatureCheck,
  type ToolSignatureEntry,
  type ToolSignatureField,
  type ToolSignatureManifest,
  type ToolTrust,
  verifyToolSignature,
} from "./lib/guard/signatures.ts";
export {
  describeProblems,
  type GuardMode,
  GuardPolicy,
  type GuardPolicyOptions,
  type LockPolicy,
  type SeenTools,
  type ToolProblem,
  type ToolVerdict,
} from "./lib/guard/policy.ts";
export {
  type ClientDecision,
  errorResponse,
  type FetchTools,
  GUARD_REFUSED,
  GUARD_SERVER_FAILED,
  GuardCore,
  type GuardCoreOptions,
  type GuardListing,
  GuardSession,
  idKey,
  type ServerDecision,
} from "./lib/guard/core.ts";
export {
  type AuditDecision,
  type AuditEntry,
  AuditLog,
  type AuditSink,
  formatAuditEntry,
  openAuditSink,
} from "./lib/guard/audit.ts";
export { runStdioGuard, type StdioGuardOptions } from "./lib/guard/stdio.ts";
export {
  type HttpGuard,
  type HttpGuardOptions,
  isLoopbackHost,
  startHttpGuard,
} from "./lib/guard/http.ts";
