/**
 * The §14.2 WellKnownResolver: a domain's discovery document from
 * `https://{domain}/.well-known/schemapin.json` and, when it declares one, its standalone
 * revocation document from `revocation_endpoint` — both fetched with the hardened HTTPS GET
 * of `http.ts` (HTTPS only, no redirects, connect/read timeouts, 64 KiB cap while streaming).
 *
 * The domain is validated (§9, RFC 1123) before the URL is built: `http://…`, `https://…`,
 * ports, paths, userinfo and IP literals are refused (`INPUT_INVALID`) without any
 * connection. A 404/410 for the discovery document is "not found" (`details.notFound`; a
 * `ChainResolver` may ask the next resolver); every other failure stops. A declared
 * revocation endpoint that cannot be fetched or parsed fails closed
 * (`DISCOVERY_FETCH_FAILED` / `DISCOVERY_INVALID`), a 404 included: it is never "not
 * revoked" (§9 "Revocation Availability").
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonValue } from "../json/types.ts";
import type { DiscoveryDocument } from "./document.ts";
import { checkDomain } from "../dns/domain.ts";
import { checkFetchUrl, fetchHttpsJson, type HttpsFetchOptions } from "./http.ts";
import { checkArg } from "../arguments.ts";

/**
 * The discovery path of §6 (RFC 8615).
 *
 * @example
 * ```ts
 * import { WELL_KNOWN_PATH } from "./well_known.ts";
 * console.log(WELL_KNOWN_PATH); // "/.well-known/schemapin.json"
 * ```
 */
export const WELL_KNOWN_PATH = "/.well-known/schemapin.json";

/**
 * Validates `domain` for a network lookup; `http://` gets its own message (§9 refuses it).
 * Throws `SchemaPinError` `INPUT_INVALID`.
 *
 * @example
 * ```ts
 * import { requireNetworkDomain } from "./well_known.ts";
 * requireNetworkDomain("Tools.Example.com"); // "tools.example.com"
 * ```
 */
export function requireNetworkDomain(domain: unknown): string {
  const check = checkDomain(domain);
  if (check.ok) return check.domain;
  const http = typeof domain === "string" && /^http:\/\//i.test(domain);
  throw new SchemaPinError(
    "INPUT_INVALID",
    http
      ? `refusing ${JSON.stringify(domain)}: discovery is HTTPS only and takes a bare domain ` +
        `(§9); give ${JSON.stringify(domain.replace(/^http:\/\//i, "").replace(/[/:].*$/, ""))}`
      : `invalid domain ${JSON.stringify(domain)}: ${check.reason}`,
    { domain },
  );
}

/**
 * The discovery URL of a (validated) domain.
 *
 * @example
 * ```ts
 * import { wellKnownUrl } from "./well_known.ts";
 * wellKnownUrl("Example.com"); // "https://example.com/.well-known/schemapin.json"
 * ```
 */
export function wellKnownUrl(domain: string): string {
  return `https://${requireNetworkDomain(domain)}${WELL_KNOWN_PATH}`;
}

/** Options of {@linkcode WellKnownResolver}: those of the hardened fetch. */
export type WellKnownResolverOptions = HttpsFetchOptions;

/**
 * Resolves discovery and revocation documents over HTTPS (see the module documentation).
 *
 * @example
 * ```ts
 * import { resolveTrustDocuments, WellKnownResolver } from "jsr:@schemapin/schemapin/discovery";
 * const resolver = new WellKnownResolver({ connectTimeoutMs: 3000 });
 * // https://example.com/.well-known/schemapin.json, and its revocation_endpoint if it has one
 * const trust = await resolveTrustDocuments(resolver, "example.com");
 * console.log(trust.discoverySource);
 * ```
 */
export class WellKnownResolver {
  readonly #options: HttpsFetchOptions;

  /** A resolver with the given fetch options (timeouts, cap, HTTP client). */
  constructor(options: WellKnownResolverOptions = {}) {
    checkArg("WellKnownResolver", "options", options, "object");
    this.#options = { ...options };
  }

  /** Where the discovery document of `domain` is looked up. */
  sourceName(domain: string): string {
    return wellKnownUrl(domain);
  }

  /** Where the revocation document of `domain` is fetched from. */
  revocationSourceName(
    domain: string,
    discovery: Pick<DiscoveryDocument, "revocation_endpoint">,
  ): string {
    return discovery.revocation_endpoint ?? `${wellKnownUrl(domain)} (no revocation_endpoint)`;
  }

  /**
   * The parsed (not yet validated) discovery document. Rejects with `SchemaPinError`:
   * `INPUT_INVALID` (domain), `DISCOVERY_FETCH_FAILED` (with `details.notFound` on 404/410),
   * `DISCOVERY_INVALID` (not JSON).
   */
  async resolveDiscovery(domain: string): Promise<JsonValue> {
    const url = wellKnownUrl(domain);
    return await fetchHttpsJson(url, "discovery document", this.#options);
  }

  /**
   * The parsed revocation document from `discovery.revocation_endpoint`, or `undefined` when
   * none is declared. Fails closed: any failure — a 404 too — rejects
   * (`DISCOVERY_FETCH_FAILED`, `DISCOVERY_INVALID`; never `details.notFound`).
   */
  async resolveRevocation(
    domain: string,
    discovery: Pick<DiscoveryDocument, "revocation_endpoint">,
  ): Promise<JsonValue | undefined> {
    requireNetworkDomain(domain);
    const endpoint = discovery?.revocation_endpoint;
    if (endpoint === undefined) return undefined;
    if (typeof endpoint !== "string" || checkFetchUrl(endpoint) !== undefined) {
      throw new SchemaPinError(
        "DISCOVERY_INVALID",
        `revocation_endpoint ${JSON.stringify(endpoint)}: ${
          typeof endpoint === "string" ? checkFetchUrl(endpoint) : "must be a string"
        }`,
        { remote: true },
      );
    }
    try {
      return await fetchHttpsJson(endpoint, "revocation document", this.#options);
    } catch (e) {
      if (e instanceof SchemaPinError && e.details.notFound) {
        // A declared endpoint that is missing is unavailable, not "no revocations".
        const { notFound: _n, ...details } = e.details;
        throw new SchemaPinError(
          e.code,
          `${e.message}: the declared revocation endpoint is unavailable, which is not ` +
            `"not revoked" (§9)`,
          details,
        );
      }
      throw e;
    }
  }
}
