/**
 * Discovery documents: the `.well-known/schemapin.json` a tool provider publishes (§6, §8.1,
 * §12). Building one, validating one (§15.1 step 1) and loading its key (step 2).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parsePublicKeyPem, type PublicKey } from "../crypto/keys.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import { isJsonObject, ownField, typeName } from "../json/object.ts";
import { checkArg } from "../arguments.ts";

/**
 * A `.well-known/schemapin.json` discovery document (§6). Unknown fields of a parsed document
 * are dropped by {@linkcode parseDiscoveryDocument}.
 */
export interface DiscoveryDocument {
  /** Compatibility version of the document, `"1.0"` … `"1.4"` (§12). */
  schema_version: string;
  /** Human-readable developer name. */
  developer_name: string;
  /** The developer's current ECDSA P-256 public key, SPKI PEM. */
  public_key_pem: string;
  /** Fingerprints (`sha256:…`) of revoked keys (§8.1); absent or empty means none. */
  revoked_keys?: string[];
  /** Security contact (optional). */
  contact?: string;
  /** HTTPS URL of the standalone revocation document (§8.5, optional). */
  revocation_endpoint?: string;
}

/**
 * The discovery `schema_version` this implementation writes.
 *
 * @example
 * ```ts
 * import { DISCOVERY_SCHEMA_VERSION } from "./document.ts";
 * console.log(DISCOVERY_SCHEMA_VERSION); // "1.4"
 * ```
 */
export const DISCOVERY_SCHEMA_VERSION = "1.4";

/** The highest discovery `schema_version` minor this implementation knows (1.4). */
const KNOWN_MINOR = 4;

/** A validated discovery document and the notes validation produced. */
export interface ParsedDiscovery {
  /** The document, with only its known fields. */
  readonly document: DiscoveryDocument;
  /** Warning codes, e.g. `discovery_schema_version_newer` for a 1.5+ document (§12). */
  readonly warnings: readonly string[];
}

function invalid(source: string, message: string, field?: string): SchemaPinError {
  return new SchemaPinError("DISCOVERY_INVALID", `${source}: ${message}`, { source, field });
}

/**
 * Validates a discovery document's structure (§15.1 step 1) and returns its known fields;
 * throws `SchemaPinError` `DISCOVERY_INVALID` naming `source` and the field otherwise.
 *
 * Rules: `schema_version` is `"1.x"` (1.0–1.4 as is; a newer 1.x is accepted with the warning
 * `discovery_schema_version_newer`, §12; another major version is rejected); `developer_name`
 * is a string; `public_key_pem` is a non-empty PEM public key block; `revoked_keys`, when
 * present, is an array of `sha256:` fingerprints (a malformed entry fails the whole document
 * rather than being skipped — skipping could hide a revocation); `contact` is a string;
 * `revocation_endpoint` is an `https:` URL.
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { parseDiscoveryDocument } from "./document.ts";
 * const bytes = await Deno.readFile("schemapin.json");
 * const { document, warnings } = parseDiscoveryDocument(
 *   parseJson(bytes, "schemapin.json"),
 *   "schemapin.json",
 * );
 * console.log(document.developer_name, document.revoked_keys ?? [], warnings);
 * ```
 */
export function parseDiscoveryDocument(
  value: unknown,
  source = "discovery document",
): ParsedDiscovery {
  if (!isJsonObject(value)) {
    throw invalid(source, `must be a JSON object, not ${typeName(value)}`);
  }
  const warnings: string[] = [];
  const version = ownField(value, "schema_version");
  if (version === undefined) throw invalid(source, "schema_version is missing", "schema_version");
  if (typeof version !== "string") {
    throw invalid(source, `schema_version must be a string, not ${typeName(version)}`);
  }
  const vm = /^(\d+)\.(\d+)(?:\.(\d+))?$/.exec(version);
  if (!vm) {
    throw invalid(source, `schema_version ${JSON.stringify(version)} is not a version like "1.2"`);
  }
  if (Number(vm[1]) !== 1) {
    throw invalid(
      source,
      `schema_version ${version} is a major version this implementation does not support (1.x)`,
      "schema_version",
    );
  }
  if (Number(vm[2]) > KNOWN_MINOR) warnings.push("discovery_schema_version_newer");

  const developerName = ownField(value, "developer_name");
  if (developerName === undefined) {
    throw invalid(source, "developer_name is missing", "developer_name");
  }
  if (typeof developerName !== "string") {
    throw invalid(source, `developer_name must be a string, not ${typeName(developerName)}`);
  }

  const pem = ownField(value, "public_key_pem");
  if (pem === undefined) throw invalid(source, "public_key_pem is missing", "public_key_pem");
  if (typeof pem !== "string") {
    throw invalid(source, `public_key_pem must be a string, not ${typeName(pem)}`);
  }
  if (pem.trim() === "") throw invalid(source, "public_key_pem is empty", "public_key_pem");
  if (!pem.includes("-----BEGIN PUBLIC KEY-----")) {
    throw invalid(
      source,
      "public_key_pem is not a PEM public key (no BEGIN PUBLIC KEY line)",
      "public_key_pem",
    );
  }

  const document: DiscoveryDocument = {
    schema_version: version,
    developer_name: developerName,
    public_key_pem: pem,
  };

  const revoked = ownField(value, "revoked_keys");
  if (revoked !== undefined) {
    if (!Array.isArray(revoked)) {
      throw invalid(source, `revoked_keys must be an array, not ${typeName(revoked)}`);
    }
    revoked.forEach((fp, i) => {
      if (!isSha256Ref(fp)) {
        throw invalid(
          source,
          `revoked_keys[${i}] is not a key fingerprint: it ${describeBadSha256Ref(fp)}`,
          "revoked_keys",
        );
      }
    });
    document.revoked_keys = [...revoked];
  }

  const contact = ownField(value, "contact");
  if (contact !== undefined) {
    if (typeof contact !== "string") {
      throw invalid(source, `contact must be a string, not ${typeName(contact)}`);
    }
    document.contact = contact;
  }

  const endpoint = ownField(value, "revocation_endpoint");
  if (endpoint !== undefined) {
    const reason = checkHttpsUrl(endpoint);
    if (reason) throw invalid(source, `revocation_endpoint ${reason}`, "revocation_endpoint");
    document.revocation_endpoint = endpoint as string;
  }
  return { document, warnings };
}

/**
 * Why `value` is not an absolute `https:` URL without credentials, or `undefined` when it is.
 *
 * @example
 * ```ts
 * import { checkHttpsUrl } from "./document.ts";
 * checkHttpsUrl("http://example.com/x"); // "must use https:, not http:"
 * ```
 */
export function checkHttpsUrl(value: unknown): string | undefined {
  if (typeof value !== "string") return `must be a string, not ${typeName(value)}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not an absolute URL`;
  }
  if (url.protocol !== "https:") return `must use https:, not ${url.protocol}`;
  if (url.username || url.password) return "must not carry credentials";
  return undefined;
}

// §15.1 step 2 cache: parsed keys by PEM text, so a discovery document verified many times is
// decoded once. Bounded; cleared wholesale when full (entries are cheap to rebuild).
const KEY_CACHE = new Map<string, PublicKey>();
const KEY_CACHE_MAX = 1024;

/**
 * Parses the document's `public_key_pem` (§15.1 step 2). A key that is not an ECDSA P-256
 * SPKI key makes the document invalid: `SchemaPinError` `DISCOVERY_INVALID` with the key
 * parser's reason. Parsed keys are cached by PEM text.
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { loadDiscoveryKey, parseDiscoveryDocument } from "./document.ts";
 * const { document } = parseDiscoveryDocument(
 *   parseJson(await Deno.readFile("schemapin.json")),
 *   "schemapin.json",
 * );
 * const key = loadDiscoveryKey(document, "schemapin.json");
 * console.log(key.fingerprint); // compare with the fingerprint published out of band
 * ```
 */
export function loadDiscoveryKey(
  document: DiscoveryDocument,
  source = "discovery document",
): PublicKey {
  checkArg("loadDiscoveryKey", "document", document, "object");
  checkArg("loadDiscoveryKey", "source", source, "string");
  const pem = document.public_key_pem;
  const cached = KEY_CACHE.get(pem);
  if (cached) return cached;
  let key: PublicKey;
  try {
    key = parsePublicKeyPem(pem, `${source} public_key_pem`);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw invalid(source, `public_key_pem is not a usable ECDSA P-256 key: ${why}`);
  }
  if (KEY_CACHE.size >= KEY_CACHE_MAX) KEY_CACHE.clear();
  KEY_CACHE.set(pem, key);
  return key;
}

/** Inputs of {@linkcode buildDiscoveryDocument}. */
export interface BuildDiscoveryOptions {
  /** The current public key (a parsed key or its PEM). */
  publicKey: PublicKey | string;
  /** Developer name shown to users. */
  developerName: string;
  /** Security contact. */
  contact?: string;
  /** HTTPS URL of the standalone revocation document. */
  revocationEndpoint?: string;
  /** Fingerprints of revoked keys. */
  revokedKeys?: readonly string[];
}

/**
 * Builds a discovery document (`schema_version` "1.4"); throws `SchemaPinError`
 * `INPUT_INVALID` for a bad name, URL or fingerprint, `KEY_INVALID` for a bad key, and
 * refuses to list the current key as revoked.
 *
 * @example
 * ```ts
 * import { parsePublicKeyPem } from "jsr:@schemapin/schemapin/keys";
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * const publicKey = parsePublicKeyPem(await Deno.readTextFile("public.pem"), "public.pem");
 * const document = buildDiscoveryDocument({
 *   publicKey,
 *   developerName: "Example Corp",
 *   contact: "security@example.com",
 *   revocationEndpoint: "https://example.com/.well-known/schemapin-revocations.json",
 * });
 * // serve it at https://example.com/.well-known/schemapin.json
 * await Deno.writeTextFile("schemapin.json", JSON.stringify(document, null, 2));
 * ```
 */
export function buildDiscoveryDocument(options: BuildDiscoveryOptions): DiscoveryDocument {
  checkArg("buildDiscoveryDocument", "options", options, "object");
  const key = typeof options.publicKey === "string"
    ? parsePublicKeyPem(options.publicKey, "public key")
    : options.publicKey;
  if (typeof options.developerName !== "string" || options.developerName.trim() === "") {
    throw new SchemaPinError("INPUT_INVALID", "the developer name must not be empty");
  }
  const doc: DiscoveryDocument = {
    schema_version: DISCOVERY_SCHEMA_VERSION,
    developer_name: options.developerName,
    public_key_pem: key.pem,
  };
  if (options.revokedKeys !== undefined) {
    const revoked: string[] = [];
    for (const fp of options.revokedKeys) {
      if (!isSha256Ref(fp)) {
        throw new SchemaPinError(
          "INPUT_INVALID",
          `revoked key ${JSON.stringify(fp)} is not a fingerprint: it ${describeBadSha256Ref(fp)}`,
        );
      }
      if (fp === key.fingerprint) {
        throw new SchemaPinError(
          "INPUT_INVALID",
          `refusing to publish the current key ${fp} as revoked; generate a new key first`,
        );
      }
      if (!revoked.includes(fp)) revoked.push(fp);
    }
    doc.revoked_keys = revoked;
  }
  if (options.contact !== undefined) {
    if (options.contact.trim() === "") {
      throw new SchemaPinError("INPUT_INVALID", "the contact must not be empty");
    }
    doc.contact = options.contact;
  }
  if (options.revocationEndpoint !== undefined) {
    const reason = checkHttpsUrl(options.revocationEndpoint);
    if (reason) {
      throw new SchemaPinError("INPUT_INVALID", `the revocation endpoint ${reason}`);
    }
    doc.revocation_endpoint = options.revocationEndpoint;
  }
  return doc;
}
