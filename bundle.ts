/**
 * Trust bundles (SchemaPin §13, §14, §21): a set of discovery and revocation documents for
 * many domains in one file, signed by a bundle authority (1.4) or unsigned (1.2); creating,
 * signing, verifying (against an allow-list of authorities, pinned on first use by opt-in),
 * merging, loading as a resolver, and the `schemapin/trustBundle` JSON-RPC method.
 *
 * @example Build and sign a bundle, then verify it against an allow-listed authority
 * ```ts
 * import {
 *   addDiscoveryToBundle,
 *   createTrustBundle,
 *   MemoryBundleAuthorityStore,
 *   seedBundleAuthority,
 *   signTrustBundle,
 *   verifyTrustBundle,
 * } from "jsr:@schemapin/schemapin/bundle";
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 *
 * const publisher = generateKeyPair();
 * const authority = generateKeyPair();
 * const discovery = buildDiscoveryDocument({
 *   publicKey: publisher.publicKey,
 *   developerName: "Example",
 * });
 * const bundle = addDiscoveryToBundle(createTrustBundle(), "example.com", discovery);
 * const signed = signTrustBundle(bundle, authority, "authority-2026", new Date());
 *
 * const authorities = new MemoryBundleAuthorityStore();
 * await seedBundleAuthority(authorities, "authority-2026", authority.publicKey.fingerprint);
 * const verification = await verifyTrustBundle(signed, authorities);
 * console.log(verification.valid, verification.errorCode);
 * ```
 *
 * @module
 */

export {
  addDiscoveryToBundle,
  addRevocationToBundle,
  type AddToBundleOptions,
  type BundleAuthority,
  type BundleDocument,
  createTrustBundle,
  findInTrustBundle,
  isSignedTrustBundle,
  parseTrustBundle,
  SIGNED_BUNDLE_VERSION,
  type TrustBundle,
  type TrustBundleEntries,
  trustBundleSigningInput,
  UNSIGNED_BUNDLE_VERSION,
} from "./lib/bundle/bundle.ts";
export { signTrustBundle, signTrustBundleWithSigner } from "./lib/bundle/sign.ts";
export {
  type TrustBundleVerification,
  VerifiedTrustBundle,
  verifyTrustBundle,
  type VerifyTrustBundleOptions,
} from "./lib/bundle/verify.ts";
export { mergeTrustBundles, type MergeTrustBundlesOptions } from "./lib/bundle/merge.ts";
export {
  type AuthoritySource,
  type BundleAuthorityRecord,
  type BundleAuthorityStore,
  defaultBundleAuthorityStorePath,
  FileBundleAuthorityStore,
  MemoryBundleAuthorityStore,
  removeBundleAuthority,
  type SeedAuthorityOutcome,
  seedBundleAuthority,
  seedBundleAuthorityFromPem,
} from "./lib/bundle/authority.ts";
export {
  type LoadedTrustBundle,
  loadTrustBundle,
  type LoadTrustBundleOptions,
  TrustBundleResolver,
} from "./lib/bundle/resolver.ts";
export {
  buildTrustBundleErrorResponse,
  buildTrustBundleRequest,
  buildTrustBundleResponse,
  type JsonRpcId,
  parseTrustBundleRequest,
  parseTrustBundleResponse,
  TRUST_BUNDLE_METHOD,
  type TrustBundleErrorResponse,
  type TrustBundleRequest,
  type TrustBundleResponse,
} from "./lib/bundle/jsonrpc.ts";
