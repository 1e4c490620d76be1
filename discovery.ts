/**
 * Where keys and trust come from (SchemaPin §6, §8, §9, §12–§14): discovery documents
 * (`/.well-known/schemapin.json`), revocation documents, and {@linkcode resolveTrustDocuments},
 * which fetches a domain's documents for `verifySchemaOffline` / `verifySkillOffline` from a
 * resolver — {@linkcode WellKnownResolver} (HTTPS) or `TrustBundleResolver` (`./bundle`): the
 * domain validated first, the discovery document and its key validated, the revocation document
 * from the same source, fail-closed rules applied. Standalone revocation documents are written
 * with `schemapin revoke`. The second channel of §17, DNS TXT: a {@linkcode DnsTxtResolver}
 * (any function that looks TXT records up, `resolveTxt` of `node:dns/promises` among them) or
 * {@linkcode dnsTxtResolver}, the library's own DNS client, for `verifySchemaOfflineWithDns`
 * (`./schema`) and `verifySkillOfflineWithDns` (`./skill`).
 *
 * @example Publish a key, and revoke the previous one in the same document
 * ```ts
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 *
 * const old = generateKeyPair();
 * const current = generateKeyPair();
 * const discovery = buildDiscoveryDocument({
 *   publicKey: current.publicKey,
 *   developerName: "Example Corp",
 *   revokedKeys: [old.publicKey.fingerprint],
 * });
 * // Served at https://example.com/.well-known/schemapin.json
 * await Deno.writeTextFile("schemapin.json", JSON.stringify(discovery, null, 2));
 * ```
 *
 * @example Verify a schema with the documents of the domain's `.well-known`
 * ```ts
 * import { resolveTrustDocuments, WellKnownResolver } from "jsr:@schemapin/schemapin/discovery";
 * import { verifySchemaOffline } from "jsr:@schemapin/schemapin/schema";
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { type JsonObject, parseJson } from "jsr:@schemapin/schemapin";
 *
 * const read = async (path: string) => parseJson(await Deno.readFile(path), path);
 * const trust = await resolveTrustDocuments(new WellKnownResolver(), "example.com");
 * const result = await verifySchemaOffline({
 *   schema: await read("tool.json"),
 *   signature: await read("tool.json.sig") as JsonObject,
 *   toolId: "add",
 *   domain: "example.com",
 *   discovery: trust.discovery,
 *   revocation: trust.revocation,
 *   sources: { discovery: trust.discoverySource, revocation: trust.revocationSource },
 *   pinStore: new FilePinStore(),
 * });
 * console.log(result.valid, trust.discoverySource, result.developerName);
 * ```
 *
 * @module
 */

// Discovery documents (§6)
export {
  buildDiscoveryDocument,
  type BuildDiscoveryOptions,
  type DiscoveryDocument,
} from "./lib/discovery/document.ts";

// Revocation documents (§8.5)
export {
  REVOCATION_REASONS,
  type RevocationDocument,
  type RevocationReason,
  type RevokedKey,
} from "./lib/revocation/document.ts";

// Resolving a domain's documents (§14): `.well-known` over HTTPS (a signed trust bundle is
// the other resolver, in ./bundle)
export type { HttpsFetchOptions } from "./lib/discovery/http.ts";
export { WellKnownResolver, type WellKnownResolverOptions } from "./lib/discovery/well_known.ts";
export {
  type ResolvedTrust,
  resolveTrustDocuments,
  type ResolveTrustOptions,
  type SchemaResolver,
} from "./lib/discovery/resolvers.ts";

// The DNS TXT records of the cross-check (§17): who looks them up
export { type DnsTxtResolver, dnsTxtResolver } from "./lib/dns/txt_resolver.ts";
