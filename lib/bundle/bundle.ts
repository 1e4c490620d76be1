/**
 * Trust bundles (§13): a pre-shared collection of discovery documents (each with its
 * `domain`) and standalone revocation documents, for offline verification. This module
 * creates, edits, parses and searches them, and builds the §21.3 signing input that signed
 * (v1.4) bundles are signed over.
 *
 * Parsing keeps the **known fields** only: unknown fields are not signed (§21.3) and so must
 * not influence anything a verifier does. Domains are compared after §9 validation (lower
 * case), and a bundle with two entries for one domain is rejected (`DISCOVERY_INVALID`): an
 * ambiguous bundle could otherwise resolve differently in different implementations.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { canonicalizeSchemapinV1Bytes } from "../json/canonical_schemapin.ts";
import { checkDomain } from "../dns/domain.ts";
import { isJsonObject, ownField, typeName } from "../json/object.ts";
import { type DiscoveryDocument, parseDiscoveryDocument } from "../discovery/document.ts";
import { parseRevocationDocument, type RevocationDocument } from "../revocation/document.ts";
import { formatRfc3339 } from "../time/rfc3339.ts";
import { checkArg } from "../arguments.ts";

/**
 * The `schemapin_bundle_version` of unsigned bundles this library writes (§13.1).
 *
 * @example
 * ```ts
 * import { UNSIGNED_BUNDLE_VERSION } from "./bundle.ts";
 * console.log(UNSIGNED_BUNDLE_VERSION); // "1.2"
 * ```
 */
export const UNSIGNED_BUNDLE_VERSION = "1.2";

/**
 * The `schemapin_bundle_version` a signed bundle carries (§21.2: signing sets it).
 *
 * @example
 * ```ts
 * import { SIGNED_BUNDLE_VERSION } from "./bundle.ts";
 * console.log(SIGNED_BUNDLE_VERSION); // "1.4"
 * ```
 */
export const SIGNED_BUNDLE_VERSION = "1.4";

/** A discovery document inside a bundle: the `.well-known` fields plus `domain` (§13.1). */
export interface BundleDocument {
  /** The domain, as written in the bundle (§9-valid; compared in lower case). */
  domain: string;
  /** Discovery `schema_version` (§12). */
  schema_version: string;
  /** The developer's public key, PEM. Parsed only when used for verification. */
  public_key_pem: string;
  /** Fingerprints of revoked keys; always present (empty when the entry had none, §21.3). */
  revoked_keys: string[];
  /** Developer name, when present. */
  developer_name?: string;
  /** Security contact, when present. */
  contact?: string;
  /** HTTPS URL of the standalone revocation document, when present. */
  revocation_endpoint?: string;
}

/** The authority that signed a bundle (§21.2). */
export interface BundleAuthority {
  /** The authority's key id; chosen by whoever made the bundle, so never trusted by itself. */
  kid: string;
  /** The authority's ECDSA P-256 public key, SPKI PEM. */
  public_key_pem: string;
}

/** A trust bundle with its known fields only (§13.1, §21.2). */
export interface TrustBundle {
  /** `"1.2"` for bundles made unsigned here, `"1.4"` once signed. */
  schemapin_bundle_version: string;
  /** When the bundle was assembled (RFC 3339 when made here). */
  created_at: string;
  /** Discovery documents, at most one per domain. */
  documents: BundleDocument[];
  /** Standalone revocation documents, at most one per domain. */
  revocations: RevocationDocument[];
  /** The signing authority (signed bundles only). */
  bundle_authority?: BundleAuthority;
  /** When the authority signed (signed bundles only). */
  signed_at?: string;
  /** When the signed bundle stops being acceptable (optional). */
  expires_at?: string;
  /** Base64 DER ECDSA signature over the §21.3 signing input (signed bundles only). */
  signature?: string;
}

/** A domain's entries in a bundle. */
export interface TrustBundleEntries {
  /** The domain's discovery document. */
  readonly discovery: BundleDocument;
  /** The domain's standalone revocation document, when the bundle has one. */
  readonly revocation?: RevocationDocument;
}

/** Longest accepted authority `kid`, in UTF-16 code units. */
export const MAX_KID_LENGTH = 256;

/**
 * Why `kid` is not a usable authority key id, or `undefined` when it is: a non-empty string
 * of at most {@linkcode MAX_KID_LENGTH} characters without control characters, lone
 * surrogates or leading/trailing whitespace.
 *
 * @example
 * ```ts
 * import { checkKid } from "./bundle.ts";
 * checkKid("schemapin-bundle-authority-2026"); // undefined
 * checkKid(""); // "the kid is empty"
 * ```
 */
export function checkKid(kid: unknown): string | undefined {
  if (typeof kid !== "string") return `the kid must be a string, not ${typeName(kid)}`;
  if (kid.length === 0) return "the kid is empty";
  if (kid.length > MAX_KID_LENGTH) return `the kid is longer than ${MAX_KID_LENGTH} characters`;
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f-\x9f]/.test(kid)) return "the kid contains control characters";
  if (!kid.isWellFormed()) return "the kid contains a lone surrogate";
  if (kid.trim() !== kid) return "the kid starts or ends with whitespace";
  return undefined;
}

function invalid(source: string, field: string, message: string): SchemaPinError {
  return new SchemaPinError("DISCOVERY_INVALID", `${source}: ${field} ${message}`, {
    source,
    field,
  });
}

/** The lower-case §9 form of a domain written in a bundle, or a `DISCOVERY_INVALID` error. */
function bundleDomain(value: unknown, source: string, field: string): string {
  if (value === undefined) throw invalid(source, field, "is missing");
  const dc = checkDomain(value);
  if (!dc.ok) throw invalid(source, field, `${JSON.stringify(value)} is not valid: ${dc.reason}`);
  return dc.domain;
}

function parseDocumentEntry(entry: unknown, source: string, where: string): BundleDocument {
  if (!isJsonObject(entry)) {
    throw invalid(source, where, `must be an object, not ${typeName(entry)}`);
  }
  const domain = ownField(entry, "domain");
  bundleDomain(domain, source, `${where}.domain`);
  // §21.3 lists developer_name as optional in bundle documents, while a discovery document
  // (§6) requires it: validate the other fields with the discovery parser, with a placeholder
  // name when the entry has none, and drop the placeholder again.
  const hasName = Object.hasOwn(entry, "developer_name");
  const probe = hasName ? entry : { ...entry, developer_name: "" };
  const { document } = parseDiscoveryDocument(probe, `${source}: ${where}`);
  return fromDiscovery(domain as string, document, hasName);
}

function fromDiscovery(
  domain: string,
  document: DiscoveryDocument,
  withName: boolean,
): BundleDocument {
  const out: BundleDocument = {
    domain,
    schema_version: document.schema_version,
    public_key_pem: document.public_key_pem,
    revoked_keys: [...(document.revoked_keys ?? [])],
  };
  if (withName) out.developer_name = document.developer_name;
  if (document.contact !== undefined) out.contact = document.contact;
  if (document.revocation_endpoint !== undefined) {
    out.revocation_endpoint = document.revocation_endpoint;
  }
  return out;
}

function parseRevocationEntry(entry: unknown, source: string, where: string): RevocationDocument {
  if (!isJsonObject(entry)) {
    throw invalid(source, where, `must be an object, not ${typeName(entry)}`);
  }
  const domain = ownField(entry, "domain");
  bundleDomain(domain, source, `${where}.domain`);
  const doc = parseRevocationDocument(entry, `${source}: ${where}`);
  // Keep the domain as written: it is part of the signed bytes (§21.3).
  return { ...doc, domain: domain as string };
}

function rejectDuplicates(
  entries: readonly { domain: string }[],
  source: string,
  field: string,
): void {
  const seen = new Map<string, number>();
  entries.forEach((e, i) => {
    const key = e.domain.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      // §21.4 step 2: an ambiguous bundle is rejected, never resolved first- or last-wins.
      throw invalid(
        source,
        `${field}[${i}].domain`,
        `repeats ${key}: more than one entry for one domain (also ${field}[${first}]); a ` +
          `bundle must not be ambiguous`,
      );
    }
    seen.set(key, i);
  });
}

/** What {@linkcode parseTrustBundleFields} found, before any judgement of `expires_at`. */
export interface ParsedBundleFields {
  /** The known fields (`expires_at` only when it is a string). */
  readonly bundle: TrustBundle;
  /** Whether the bundle has an `expires_at` field (not null). */
  readonly hasExpiresAt: boolean;
  /** The raw `expires_at` value, whatever its type. */
  readonly expiresAtRaw: unknown;
}

/**
 * Parses a bundle's known fields without judging `expires_at` (whose type and format are
 * checked by verification, §21.4 step 3, as `BUNDLE_EXPIRED`). Most callers want
 * {@linkcode parseTrustBundle}.
 *
 * @example
 * ```ts ignore
 * const { bundle, expiresAtRaw } = parseTrustBundleFields(value, "bundle.json");
 * ```
 */
export function parseTrustBundleFields(
  value: unknown,
  source = "trust bundle",
): ParsedBundleFields {
  if (!isJsonObject(value)) {
    throw new SchemaPinError(
      "DISCOVERY_INVALID",
      `${source}: a trust bundle must be a JSON object, not ${typeName(value)}`,
      { source },
    );
  }
  const version = ownField(value, "schemapin_bundle_version");
  if (version === undefined) throw invalid(source, "schemapin_bundle_version", "is missing");
  if (typeof version !== "string" || !/^1\.\d+$/.test(version)) {
    throw invalid(
      source,
      "schemapin_bundle_version",
      `${JSON.stringify(version)} is not a 1.x version string`,
    );
  }
  const createdAt = ownField(value, "created_at");
  if (createdAt === undefined) throw invalid(source, "created_at", "is missing");
  if (typeof createdAt !== "string") {
    throw invalid(source, "created_at", `must be a string, not ${typeName(createdAt)}`);
  }
  const documents = ownField(value, "documents");
  if (documents === undefined) throw invalid(source, "documents", "is missing");
  if (!Array.isArray(documents)) {
    throw invalid(source, "documents", `must be an array, not ${typeName(documents)}`);
  }
  const docs = documents.map((d, i) => parseDocumentEntry(d, source, `documents[${i}]`));
  const revocations = ownField(value, "revocations") ?? [];
  if (!Array.isArray(revocations)) {
    throw invalid(source, "revocations", `must be an array, not ${typeName(revocations)}`);
  }
  const revs = revocations.map((r, i) => parseRevocationEntry(r, source, `revocations[${i}]`));
  rejectDuplicates(docs, source, "documents");
  rejectDuplicates(revs, source, "revocations");

  const bundle: TrustBundle = {
    schemapin_bundle_version: version,
    created_at: createdAt,
    documents: docs,
    revocations: revs,
  };
  const authority = ownField(value, "bundle_authority");
  if (authority !== undefined && authority !== null) {
    if (!isJsonObject(authority)) {
      throw invalid(source, "bundle_authority", `must be an object, not ${typeName(authority)}`);
    }
    const kid = ownField(authority, "kid");
    const kidProblem = checkKid(kid);
    if (kidProblem) throw invalid(source, "bundle_authority.kid", `is not usable: ${kidProblem}`);
    const pem = ownField(authority, "public_key_pem");
    if (typeof pem !== "string" || pem.trim() === "") {
      throw invalid(
        source,
        "bundle_authority.public_key_pem",
        pem === undefined ? "is missing" : "must be a non-empty PEM string",
      );
    }
    bundle.bundle_authority = { kid: kid as string, public_key_pem: pem };
  }
  const signedAt = ownField(value, "signed_at");
  if (signedAt !== undefined && signedAt !== null) {
    if (typeof signedAt !== "string") {
      throw invalid(source, "signed_at", `must be a string, not ${typeName(signedAt)}`);
    }
    bundle.signed_at = signedAt;
  }
  const expiresAtRaw = ownField(value, "expires_at");
  const hasExpiresAt = expiresAtRaw !== undefined && expiresAtRaw !== null;
  if (typeof expiresAtRaw === "string") bundle.expires_at = expiresAtRaw;
  const signature = ownField(value, "signature");
  if (signature !== undefined && signature !== null) {
    if (typeof signature !== "string") {
      throw invalid(source, "signature", `must be a Base64 string, not ${typeName(signature)}`);
    }
    bundle.signature = signature;
  }
  return { bundle, hasExpiresAt, expiresAtRaw };
}

/**
 * Validates a trust bundle (§13.1, §21.2) and returns its known fields; unknown fields are
 * dropped. Throws `SchemaPinError` `DISCOVERY_INVALID` naming `source` and the field for a
 * malformed bundle, including two entries for one domain in `documents` or `revocations`.
 * Document keys are checked to be PEM public-key blocks but not decoded (a bundle may carry
 * keys that are only decoded when used). A signed bundle is parsed, not verified: use
 * `verifyTrustBundle`.
 *
 * @example
 * ```ts
 * import { createTrustBundle, parseTrustBundle } from "./bundle.ts";
 * const bundle = parseTrustBundle(createTrustBundle("2026-05-15T00:00:00Z"), "bundle.json");
 * bundle.documents.length; // 0
 * ```
 */
export function parseTrustBundle(value: unknown, source = "trust bundle"): TrustBundle {
  const parsed = parseTrustBundleFields(value, source);
  if (parsed.hasExpiresAt && typeof parsed.expiresAtRaw !== "string") {
    throw invalid(source, "expires_at", `must be a string, not ${typeName(parsed.expiresAtRaw)}`);
  }
  return parsed.bundle;
}

/**
 * True when the bundle carries a signature or an authority (§21.2), i.e. it must be
 * verified against the authority allow-list before use.
 *
 * @example
 * ```ts
 * import { createTrustBundle, isSignedTrustBundle } from "./bundle.ts";
 * isSignedTrustBundle(createTrustBundle("2026-05-15T00:00:00Z")); // false
 * ```
 */
export function isSignedTrustBundle(value: unknown): boolean {
  if (!isJsonObject(value)) return false;
  const has = (k: string) => {
    const v = ownField(value, k);
    return v !== undefined && v !== null;
  };
  return has("signature") || has("bundle_authority");
}

/**
 * A new, empty unsigned bundle (`schemapin_bundle_version` "1.2", §13.1).
 *
 * @example
 * ```ts
 * import { createTrustBundle } from "./bundle.ts";
 * createTrustBundle("2026-05-15T00:00:00Z");
 * // { schemapin_bundle_version: "1.2", created_at: "2026-05-15T00:00:00Z", documents: [], revocations: [] }
 * ```
 */
export function createTrustBundle(createdAt: string | Date | number = Date.now()): TrustBundle {
  checkArg("createTrustBundle", "createdAt", createdAt, ["string", "date", "number"]);
  return {
    schemapin_bundle_version: UNSIGNED_BUNDLE_VERSION,
    created_at: typeof createdAt === "string" ? createdAt : formatRfc3339(createdAt),
    documents: [],
    revocations: [],
  };
}

function assertUnsigned(bundle: TrustBundle, what: string): void {
  if (bundle.signature !== undefined || bundle.bundle_authority !== undefined) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `cannot ${what} a signed trust bundle: it would invalidate the signature. Verify it and ` +
        `merge it into an unsigned bundle instead, then sign the result`,
    );
  }
}

/** Options of {@linkcode addDiscoveryToBundle} and {@linkcode addRevocationToBundle}. */
export interface AddToBundleOptions {
  /** Replace an existing entry for the domain (default: an existing entry is an error). */
  replace?: boolean;
  /** Where the document came from, for messages. */
  source?: string;
}

/**
 * Returns a copy of an unsigned bundle with `discovery` (a `.well-known/schemapin.json`
 * document, §6) added for `domain`. The discovery document is validated (§15.1 step 1) and
 * only its known fields are kept; a `domain` field inside it must agree with `domain`.
 * Throws `SchemaPinError`: `INPUT_INVALID` for a bad domain, a signed bundle or an existing
 * entry (unless `replace`); `DISCOVERY_INVALID` for a malformed document.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { addDiscoveryToBundle, createTrustBundle } from "./bundle.ts";
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * const discovery = buildDiscoveryDocument({
 *   publicKey: generateKeyPair().publicKey,
 *   developerName: "Example",
 * });
 * const bundle = addDiscoveryToBundle(createTrustBundle(), "example.com", discovery);
 * console.log(bundle.documents.length); // 1
 * ```
 */
export function addDiscoveryToBundle(
  bundle: TrustBundle,
  domain: string,
  discovery: unknown,
  options: AddToBundleOptions = {},
): TrustBundle {
  checkArg("addDiscoveryToBundle", "bundle", bundle, "object");
  checkArg("addDiscoveryToBundle", "domain", domain, "string");
  checkArg("addDiscoveryToBundle", "options", options, "object");
  assertUnsigned(bundle, "add documents to");
  const source = options.source ?? `discovery document for ${domain}`;
  const name = requireDomain(domain);
  const { document } = parseDiscoveryDocument(discovery, source);
  const inner = isJsonObject(discovery) ? ownField(discovery, "domain") : undefined;
  if (inner !== undefined) {
    const dc = checkDomain(inner);
    if (!dc.ok) {
      throw invalid(source, "domain", `${JSON.stringify(inner)} is not valid: ${dc.reason}`);
    }
    if (dc.domain !== name) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${source} names domain ${dc.domain}, not ${name}`,
        {
          source,
        },
      );
    }
  }
  const entry = fromDiscovery(name, document, true);
  return withEntry(bundle, "documents", entry, options.replace ?? false);
}

/**
 * Returns a copy of an unsigned bundle with a standalone revocation document (§8.5) added;
 * its `domain` must equal `domain`. Throws like {@linkcode addDiscoveryToBundle}.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { addRevocationToBundle, createTrustBundle } from "./bundle.ts";
 * import { addRevokedKey, buildRevocationDocument } from "../revocation/document.ts";
 * const old = generateKeyPair().publicKey.fingerprint;
 * const revocations = addRevokedKey(buildRevocationDocument("example.com"), old, "key_compromise");
 * const bundle = addRevocationToBundle(createTrustBundle(), "example.com", revocations);
 * console.log(bundle.revocations.length); // 1
 * ```
 */
export function addRevocationToBundle(
  bundle: TrustBundle,
  domain: string,
  revocation: unknown,
  options: AddToBundleOptions = {},
): TrustBundle {
  checkArg("addRevocationToBundle", "bundle", bundle, "object");
  checkArg("addRevocationToBundle", "domain", domain, "string");
  checkArg("addRevocationToBundle", "options", options, "object");
  assertUnsigned(bundle, "add documents to");
  const source = options.source ?? `revocation document for ${domain}`;
  const name = requireDomain(domain);
  const doc = parseRevocationDocument(revocation, source);
  if (doc.domain !== name) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${source} is the revocation document of ${doc.domain}, not ${name}`,
      { source },
    );
  }
  return withEntry(bundle, "revocations", doc, options.replace ?? false);
}

function requireDomain(domain: string): string {
  const dc = checkDomain(domain);
  if (!dc.ok) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `invalid domain ${JSON.stringify(domain)}: ${dc.reason}`,
      { domain },
    );
  }
  return dc.domain;
}

function withEntry<K extends "documents" | "revocations">(
  bundle: TrustBundle,
  field: K,
  entry: TrustBundle[K][number],
  replace: boolean,
): TrustBundle {
  const list = bundle[field] as { domain: string }[];
  const key = entry.domain.toLowerCase();
  const at = list.findIndex((e) => e.domain.toLowerCase() === key);
  if (at >= 0 && !replace) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `the bundle already has ${field === "documents" ? "a discovery" : "a revocation"} ` +
        `document for ${key}; use replace to overwrite it`,
      { domain: key },
    );
  }
  const next = at >= 0 ? list.map((e, i) => (i === at ? entry : e)) : [...list, entry];
  return { ...bundle, [field]: next } as TrustBundle;
}

/**
 * Finds `domain`'s discovery document and revocation document in a parsed bundle, or
 * `undefined` when it has no discovery document for the domain. Throws `INPUT_INVALID` for
 * an invalid domain (§9).
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { findInTrustBundle, parseTrustBundle } from "./bundle.ts";
 * const bundle = parseTrustBundle(parseJson(await Deno.readFile("bundle.json"), "bundle.json"));
 * const entries = findInTrustBundle(bundle, "example.com");
 * if (entries) console.log(entries.discovery.public_key_pem);
 * ```
 */
export function findInTrustBundle(
  bundle: Pick<TrustBundle, "documents" | "revocations">,
  domain: string,
): TrustBundleEntries | undefined {
  const name = requireDomain(domain);
  const discovery = bundle.documents.find((d) => d.domain.toLowerCase() === name);
  if (!discovery) return undefined;
  const revocation = bundle.revocations.find((r) => r.domain.toLowerCase() === name);
  return revocation ? { discovery, revocation } : { discovery };
}

/**
 * The §21.3 signing input: the `schemapin-v1` canonical bytes (§4) of the bundle's known
 * fields with `signature` set to `""`. Each document contributes `domain`, `schema_version`,
 * `public_key_pem`, `revoked_keys` (always, possibly empty) and `developer_name`, `contact`,
 * `revocation_endpoint` when present; `revocations` is always present; `bundle_authority`,
 * `signed_at` and `expires_at` when present. Unknown fields never enter it.
 *
 * @example
 * ```ts
 * import { createTrustBundle, trustBundleSigningInput } from "./bundle.ts";
 * new TextDecoder().decode(trustBundleSigningInput(createTrustBundle("2026-05-15T00:00:00Z")));
 * // '{"created_at":"2026-05-15T00:00:00Z","documents":[],"revocations":[],"schemapin_bundle_version":"1.2","signature":""}'
 * ```
 */
export function trustBundleSigningInput(bundle: TrustBundle): Uint8Array {
  checkArg("trustBundleSigningInput", "bundle", bundle, "object");
  checkArg("trustBundleSigningInput", "bundle.documents", bundle.documents, "array");
  checkArg("trustBundleSigningInput", "bundle.revocations", bundle.revocations, "array");
  const input: Record<string, unknown> = {
    schemapin_bundle_version: bundle.schemapin_bundle_version,
    created_at: bundle.created_at,
    documents: bundle.documents.map((d) => {
      const doc: Record<string, unknown> = {
        domain: d.domain,
        schema_version: d.schema_version,
        public_key_pem: d.public_key_pem,
        revoked_keys: [...(d.revoked_keys ?? [])], // §21.3: always present
      };
      if (d.developer_name !== undefined) doc.developer_name = d.developer_name;
      if (d.contact !== undefined) doc.contact = d.contact;
      if (d.revocation_endpoint !== undefined) doc.revocation_endpoint = d.revocation_endpoint;
      return doc;
    }),
    revocations: bundle.revocations.map((r) => ({
      schemapin_version: r.schemapin_version,
      domain: r.domain,
      updated_at: r.updated_at,
      revoked_keys: r.revoked_keys.map((k) => ({
        fingerprint: k.fingerprint,
        revoked_at: k.revoked_at,
        reason: k.reason,
      })),
    })),
    signature: "",
  };
  if (bundle.bundle_authority !== undefined) {
    input.bundle_authority = {
      kid: bundle.bundle_authority.kid,
      public_key_pem: bundle.bundle_authority.public_key_pem,
    };
  }
  if (bundle.signed_at !== undefined) input.signed_at = bundle.signed_at;
  if (bundle.expires_at !== undefined) input.expires_at = bundle.expires_at;
  return canonicalizeSchemapinV1Bytes(input);
}
