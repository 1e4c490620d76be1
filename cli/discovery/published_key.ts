/**
 * The key a domain publishes in its discovery document, read from a saved copy or fetched
 * from `.well-known` (`schemapin dns check --discovery/--well-known`, `schemapin pins add` and
 * `pins rotate --discovery`): the document validated, its key parsed, and the keys it revokes;
 * and the key `dns check` compares a record with.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import type { ExpectedDnsKey } from "../dns/check_fields.ts";
import type { DnsCheckOptions } from "../dns/options.ts";
import { loadDiscoveryKey, parseDiscoveryDocument } from "../../lib/discovery/document.ts";
import type { HttpsFetchOptions } from "../../lib/discovery/http.ts";
import { WellKnownResolver } from "../../lib/discovery/well_known.ts";

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

/** How {@linkcode expectedDnsKey} reads the key sources (the caller's files and prompts). */
export interface DnsKeySources {
  /** The fingerprint of the key file at `path` (public or private PEM). */
  keyFingerprint(path: string): Promise<string>;
  /** The parsed JSON of the discovery document at `path`. */
  readJson(path: string): Promise<unknown>;
  /** The options of the `.well-known` fetch (its `client` is closed after the fetch). */
  https(): Promise<HttpsFetchOptions>;
  /** How a file is named in messages and as the key's source. */
  name(path: string): string;
}

/**
 * The key a domain's DNS record is compared with (`dns check`), from the one source given in
 * `options` — a key file, a fingerprint, a discovery document file, or the domain's live
 * `.well-known` document — or `undefined` when none is given. Check `options` first
 * (`checkDnsCheckOptions` of cli/dns/options.ts).
 *
 * @throws {SchemaPinError} what `sources` throw; as {@linkcode discoveryKeyOf} and
 *   {@linkcode fetchDiscoveryKey}; `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { expectedDnsKey } from "./published_key.ts";
 * const expected = await expectedDnsKey({ discovery: "schemapin.json" }, "example.com", {
 *   keyFingerprint: () => Promise.reject(new Error("not asked")),
 *   readJson: async (p) => JSON.parse(await Deno.readTextFile(p)),
 *   https: () => Promise.resolve({}),
 *   name: (p) => p,
 * });
 * expected?.source; // "schemapin.json"
 * ```
 */
export async function expectedDnsKey(
  options: DnsCheckOptions,
  domain: string,
  sources: DnsKeySources,
): Promise<ExpectedDnsKey | undefined> {
  checkArg("expectedDnsKey", "options", options, "object");
  checkArg("expectedDnsKey", "domain", domain, "string");
  checkArg("expectedDnsKey", "sources", sources, "object");
  if (options.key !== undefined) {
    return {
      fingerprint: await sources.keyFingerprint(options.key),
      source: sources.name(options.key),
    };
  }
  if (options.fingerprint !== undefined) {
    return { fingerprint: options.fingerprint, source: "--fingerprint" };
  }
  if (options.discovery !== undefined) {
    return discoveryKeyOf(
      await sources.readJson(options.discovery),
      sources.name(options.discovery),
    );
  }
  if (!options["well-known"]) return undefined;
  const https = await sources.https();
  try {
    return await fetchDiscoveryKey(domain, https);
  } finally {
    https.client?.close();
  }
}
