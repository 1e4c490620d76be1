/**
 * Where keys and trust come from (SchemaPin §6, §8, §9, §12–§14, §17): discovery documents
 * (`/.well-known/schemapin.json`), domain validation, resolvers (`.well-known` over HTTPS,
 * local files and unsigned bundles, a chain of both), revocation documents, and the DNS TXT
 * record `_schemapin.{domain}`.
 *
 * Verification with a resolver is in `./schema` (`verifySchemaWithResolver`) and `./skill`
 * (`verifySkillWithResolver`); signed trust bundles and their resolver are in `./bundle`.
 *
 * @example Publish a key, revoke an old one
 * ```ts
 * import {
 *   addRevokedKey,
 *   buildDiscoveryDocument,
 *   buildRevocationDocument,
 * } from "jsr:@schemapin/schemapin/discovery";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 *
 * const old = generateKeyPair();
 * const current = generateKeyPair();
 * const discovery = buildDiscoveryDocument({
 *   publicKey: current.publicKey,
 *   developerName: "Example Corp",
 *   revokedKeys: [old.publicKey.fingerprint],
 * });
 * const revocation = addRevokedKey(
 *   buildRevocationDocument("example.com"),
 *   old.publicKey.fingerprint,
 *   "key_compromise",
 * );
 * await Deno.writeTextFile("schemapin.json", JSON.stringify(discovery, null, 2));
 * await Deno.writeTextFile("revocations.json", JSON.stringify(revocation, null, 2));
 * ```
 *
 * @example Resolve a domain's documents: local files first, then `.well-known`
 * ```ts
 * import {
 *   ChainResolver,
 *   LocalFileResolver,
 *   parseDiscoveryDocument,
 *   resolveTrustDocuments,
 *   WellKnownResolver,
 * } from "jsr:@schemapin/schemapin/discovery";
 *
 * const resolver = new ChainResolver([new LocalFileResolver("./trust"), new WellKnownResolver()]);
 * const trust = await resolveTrustDocuments(resolver, "example.com");
 * const { document } = parseDiscoveryDocument(trust.discovery, trust.discoverySource);
 * console.log(trust.discoverySource, document.developer_name);
 * ```
 *
 * @module
 */

export {
  buildDiscoveryDocument,
  type BuildDiscoveryOptions,
  DISCOVERY_SCHEMA_VERSION,
  type DiscoveryDocument,
  loadDiscoveryKey,
  type ParsedDiscovery,
  parseDiscoveryDocument,
} from "./lib/discovery/document.ts";
export { checkDomain, type DomainCheck, validateDomain } from "./lib/dns/domain.ts";
export type { HttpsFetchOptions } from "./lib/discovery/http.ts";
export {
  WELL_KNOWN_PATH,
  WellKnownResolver,
  type WellKnownResolverOptions,
  wellKnownUrl,
} from "./lib/discovery/well_known.ts";
export {
  ChainResolver,
  LocalFileResolver,
  type ResolvedTrust,
  resolveTrustDocuments,
  type ResolveTrustOptions,
  type SchemaResolver,
} from "./lib/discovery/resolvers.ts";
export { type BundleEntries, findInUnsignedBundle } from "./lib/discovery/unsigned_bundle.ts";
export {
  addRevokedKey,
  buildRevocationDocument,
  checkRevocation,
  parseRevocationDocument,
  REVOCATION_REASONS,
  type RevocationDocument,
  type RevocationReason,
  type RevocationStatus,
  type RevokedKey,
} from "./lib/revocation/document.ts";
export {
  DNS_TXT_VERSION,
  dnsLookupName,
  type DnsTxtRecord,
  formatDnsTxtRecord,
  parseDnsTxtRecord,
} from "./lib/dns/txt.ts";
export {
  crossCheckDnsTxt,
  type DnsCrossCheck,
  type DnsDecision,
  type DnsFailurePolicy,
  type DnsTxtLookup,
  lookupDnsTxt,
} from "./lib/dns/check.ts";
export type { DnsLookupOptions, DnsServer } from "./lib/dns/resolve.ts";
export type { StepFailure } from "./lib/errors.ts";
