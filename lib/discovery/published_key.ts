/**
 * The key a domain publishes in its discovery document, read from a saved copy or fetched
 * from `.well-known` (`schemapin dns check --discovery/--well-known`, `schemapin pins add` and
 * `pins rotate --discovery`): the document validated, its key parsed, and the keys it revokes.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { loadDiscoveryKey, parseDiscoveryDocument } from "./document.ts";
import type { HttpsFetchOptions } from "./http.ts";
import { WellKnownResolver } from "./well_known.ts";

/** A discovery document's key. */
export interface DiscoveryKey {
  /** The fingerprint of `public_key_pem`. */
  readonly fingerprint: string;
  /** The document's `revoked_keys` (fingerprints; empty when it has none). */
  readonly revokedKeys: readonly string[];
  /** Where the document came from (a file name or its URL). */
  readonly source: string;
}

/**
 * The key of a parsed discovery document read from `source`.
 *
 * @throws {SchemaPinError} `DISCOVERY_INVALID` naming `source` for a malformed document or key.
 *
 * @example
 * ```ts ignore
 * import { discoveryKeyOf } from "./published_key.ts";
 * const key = discoveryKeyOf(JSON.parse(await Deno.readTextFile("schemapin.json")), "schemapin.json");
 * key.fingerprint; // "sha256:…"
 * ```
 */
export function discoveryKeyOf(value: unknown, source: string): DiscoveryKey {
  const { document } = parseDiscoveryDocument(value, source);
  return {
    fingerprint: loadDiscoveryKey(document, source).fingerprint,
    revokedKeys: document.revoked_keys ?? [],
    source,
  };
}

/**
 * The key of `https://DOMAIN/.well-known/schemapin.json` (HTTPS only, no redirects, the size
 * cap of `options`). Every failure is about the published document: its `SchemaPinError`
 * carries `details.remote: true`.
 *
 * @example
 * ```ts ignore
 * import { fetchDiscoveryKey } from "./published_key.ts";
 * const key = await fetchDiscoveryKey("example.com", { timeoutMs: 5000 });
 * ```
 */
export async function fetchDiscoveryKey(
  domain: string,
  options: HttpsFetchOptions = {},
): Promise<DiscoveryKey> {
  try {
    const resolver = new WellKnownResolver(options);
    return discoveryKeyOf(await resolver.resolveDiscovery(domain), resolver.sourceName(domain));
  } catch (e) {
    if (e instanceof SchemaPinError) {
      throw new SchemaPinError(e.code, e.message, { ...e.details, remote: true });
    }
    throw e;
  }
}
