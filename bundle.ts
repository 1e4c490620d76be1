/**
 * Trust bundles (SchemaPin §13, §14, §21): a set of discovery and revocation documents for
 * many domains in one file, signed by a bundle authority (1.4) or unsigned (1.2): verifying a
 * signed bundle against an allow-list of authorities (pinned on first use by opt-in), and
 * using it as the resolver of `resolveTrustDocuments` (`./discovery`). The §21.4 operations of
 * an authority and of agents exchanging bundles: {@linkcode signTrustBundle},
 * {@linkcode mergeTrustBundles} (verified bundles into one, to re-sign), and the
 * `schemapin/trustBundle` JSON-RPC envelope ({@linkcode buildTrustBundleRequest},
 * {@linkcode buildTrustBundleResponse}, {@linkcode parseTrustBundleResponse}); the transport
 * is the host's. `schemapin bundle` creates, signs and merges bundle files.
 *
 * @example Verify a bundle against an allow-listed authority, then use its documents
 * ```ts
 * import {
 *   MemoryBundleAuthorityStore,
 *   seedBundleAuthority,
 *   TrustBundleResolver,
 *   verifyTrustBundle,
 * } from "jsr:@schemapin/schemapin/bundle";
 * import { resolveTrustDocuments } from "jsr:@schemapin/schemapin/discovery";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 *
 * // The authority's fingerprint, obtained out of band
 * const authorities = new MemoryBundleAuthorityStore();
 * await seedBundleAuthority(authorities, "authority-2026", "sha256:" + "ab".repeat(32));
 *
 * const bundle = parseJson(await Deno.readFile("bundle.json"), "bundle.json");
 * const verification = await verifyTrustBundle(bundle, authorities, { source: "bundle.json" });
 * if (!verification.verified) {
 *   throw new Error(`${verification.errorCode}: ${verification.errorMessage}`);
 * }
 * const resolver = TrustBundleResolver.fromVerified(verification.verified);
 * const trust = await resolveTrustDocuments(resolver, "example.com");
 * console.log(trust.discoverySource); // for verifySchemaOffline's `discovery`
 * ```
 *
 * @module
 */

// A bundle (§13.1, §21.2)
export {
  type BundleAuthority,
  type BundleDocument,
  type TrustBundle,
} from "./lib/bundle/bundle.ts";

// Verify against the authority allow-list (§21.4), then resolve from it (§14.2)
export {
  type TrustBundleVerification,
  VerifiedTrustBundle,
  verifyTrustBundle,
  type VerifyTrustBundleOptions,
} from "./lib/bundle/verify.ts";
export {
  type AuthoritySource,
  type BundleAuthorityRecord,
  type BundleAuthorityStore,
  FileBundleAuthorityStore,
  MemoryBundleAuthorityStore,
  type SeedAuthorityOutcome,
  seedBundleAuthority,
} from "./lib/bundle/authority.ts";
export { TrustBundleResolver } from "./lib/bundle/resolver.ts";

// The authority's operations (§21.4): sign, and merge verified bundles to re-sign
export { signTrustBundle } from "./lib/bundle/sign.ts";
export { mergeTrustBundles, type MergeTrustBundlesOptions } from "./lib/bundle/merge.ts";

// The `schemapin/trustBundle` JSON-RPC envelope (§21.4): ask a peer, answer, read the answer
export {
  buildTrustBundleRequest,
  buildTrustBundleResponse,
  type JsonRpcId,
  parseTrustBundleResponse,
  TRUST_BUNDLE_METHOD,
  type TrustBundleRequest,
  type TrustBundleResponse,
} from "./lib/bundle/jsonrpc.ts";
