/**
 * Trust bundles (SchemaPin §13, §14, §21): a set of discovery and revocation documents for
 * many domains in one file, signed by a bundle authority (1.4) or unsigned (1.2): verifying a
 * signed bundle against an allow-list of authorities (pinned on first use by opt-in), and
 * using it as the resolver of `resolveTrustDocuments` (`./discovery`). Bundles are created,
 * signed and merged with `schemapin bundle`.
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
