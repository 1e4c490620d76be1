/**
 * Reading an unsigned trust bundle (§13.1) for offline verification: find a domain's
 * discovery document and revocation document. Signed bundles (§21) are not accepted here —
 * their authority must be checked against an allow-list first — so a bundle carrying
 * `signature` or `bundle_authority` is refused, never read as if unsigned.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { isJsonObject, ownField, typeName } from "../json/object.ts";
import { checkDomain } from "../dns/domain.ts";

/** A domain's entries in a bundle. */
export interface BundleEntries {
  /** The discovery document entry (it also carries `domain`). */
  readonly discovery: Record<string, unknown>;
  /** The revocation document for the domain, when the bundle has one. */
  readonly revocation?: Record<string, unknown>;
}

function invalid(source: string, message: string): SchemaPinError {
  return new SchemaPinError("DISCOVERY_INVALID", `${source}: ${message}`, { source });
}

function indexByDomain(
  list: unknown,
  field: string,
  source: string,
): Map<string, Record<string, unknown>> {
  const map = new Map<string, Record<string, unknown>>();
  if (list === undefined) return map;
  if (!Array.isArray(list)) {
    throw invalid(source, `${field} must be an array, not ${typeName(list)}`);
  }
  list.forEach((entry, i) => {
    if (!isJsonObject(entry)) {
      throw invalid(source, `${field}[${i}] must be an object, not ${typeName(entry)}`);
    }
    const dc = checkDomain(ownField(entry, "domain"));
    if (!dc.ok) throw invalid(source, `${field}[${i}].domain: ${dc.reason}`);
    if (map.has(dc.domain)) {
      throw invalid(
        source,
        `${field} has more than one entry for ${dc.domain}; a bundle must not be ambiguous`,
      );
    }
    map.set(dc.domain, entry);
  });
  return map;
}

/**
 * Finds `domain`'s discovery and revocation documents in an unsigned bundle.
 *
 * Throws `SchemaPinError`: `BUNDLE_AUTHORITY_UNTRUSTED` for a signed bundle (it carries
 * `signature` or `bundle_authority`: verifying it needs the authority allow-list);
 * `DISCOVERY_INVALID` for a malformed bundle or duplicate domain entries (in `documents` or
 * `revocations`); `KEY_NOT_FOUND` when the bundle has no document for `domain`.
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { findInUnsignedBundle } from "./unsigned_bundle.ts";
 * const bundle = parseJson(await Deno.readFile("bundle.json"), "bundle.json");
 * const { discovery, revocation } = findInUnsignedBundle(bundle, "example.com", "bundle.json");
 * console.log(discovery.developer_name, revocation !== undefined); // then verify with them
 * ```
 */
export function findInUnsignedBundle(
  bundle: unknown,
  domain: string,
  source = "trust bundle",
): BundleEntries {
  if (!isJsonObject(bundle)) {
    throw invalid(source, `must be a JSON object, not ${typeName(bundle)}`);
  }
  if (Object.hasOwn(bundle, "signature") || Object.hasOwn(bundle, "bundle_authority")) {
    throw new SchemaPinError(
      "BUNDLE_AUTHORITY_UNTRUSTED",
      `${source} is a signed trust bundle (it carries signature/bundle_authority); verifying ` +
        `it needs the bundle authority allow-list, which this command does not have yet — ` +
        `refusing to use it unverified`,
      { source },
    );
  }
  const version = ownField(bundle, "schemapin_bundle_version");
  if (typeof version !== "string" || !/^1\.\d+$/.test(version)) {
    throw invalid(
      source,
      version === undefined
        ? "schemapin_bundle_version is missing"
        : `schemapin_bundle_version ${JSON.stringify(version)} is not a 1.x version`,
    );
  }
  const documents = ownField(bundle, "documents");
  if (documents === undefined) throw invalid(source, "documents is missing");
  const docs = indexByDomain(documents, "documents", source);
  const revs = indexByDomain(ownField(bundle, "revocations"), "revocations", source);
  const dc = checkDomain(domain);
  if (!dc.ok) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `invalid domain ${JSON.stringify(domain)}: ${dc.reason}`,
    );
  }
  const discovery = docs.get(dc.domain);
  if (!discovery) {
    throw new SchemaPinError(
      "KEY_NOT_FOUND",
      `${source} has no discovery document for ${dc.domain}`,
      { source, domain: dc.domain },
    );
  }
  const revocation = revs.get(dc.domain);
  return revocation ? { discovery, revocation } : { discovery };
}
