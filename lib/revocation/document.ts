/**
 * Key revocation (§8): the simple `revoked_keys` list of a discovery document (§8.1, §8.3),
 * the standalone revocation document with its four reasons (§8.5, §8.6), and the combined
 * check in which either source revokes (§8.7).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { checkDomain } from "../dns/domain.ts";
import { isJsonObject, ownField, typeName } from "../json/object.ts";
import { formatRfc3339, isRfc3339 } from "../time/rfc3339.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import { checkArg } from "../arguments.ts";

/**
 * The four revocation reasons of §8.6.
 *
 * @example
 * ```ts
 * import { REVOCATION_REASONS } from "jsr:@schemapin/schemapin/discovery";
 * console.log(REVOCATION_REASONS); // ["key_compromise", "superseded", …]
 * ```
 */
export const REVOCATION_REASONS = [
  "key_compromise",
  "superseded",
  "cessation_of_operation",
  "privilege_withdrawn",
] as const;

/** A revocation reason (§8.6). */
export type RevocationReason = typeof REVOCATION_REASONS[number];

/** One entry of a standalone revocation document (§8.5). */
export interface RevokedKey {
  /** `sha256:` fingerprint of the revoked key (§8.2). */
  fingerprint: string;
  /** When the key was revoked, RFC 3339. */
  revoked_at: string;
  /** Why (§8.6). */
  reason: RevocationReason;
}

/** A standalone revocation document (§8.5). */
export interface RevocationDocument {
  /** Document version, `"1.2"` or later. */
  schemapin_version: string;
  /** The domain whose keys it revokes. */
  domain: string;
  /** Last update, RFC 3339. */
  updated_at: string;
  /** The revoked keys. */
  revoked_keys: RevokedKey[];
}

/** The `schemapin_version` written into new revocation documents. */
export const REVOCATION_DOCUMENT_VERSION = "1.2";

/**
 * True when `value` is one of the four §8.6 reasons.
 *
 * @example
 * ```ts
 * import { isRevocationReason } from "./document.ts";
 * isRevocationReason("superseded"); // true
 * isRevocationReason("lost"); // false
 * ```
 */
export function isRevocationReason(value: unknown): value is RevocationReason {
  return typeof value === "string" && (REVOCATION_REASONS as readonly string[]).includes(value);
}

/**
 * Creates an empty revocation document for `domain` (validated, §9).
 *
 * @example
 * ```ts
 * import { buildRevocationDocument } from "./document.ts";
 * buildRevocationDocument("example.com", new Date("2026-02-11T00:00:00Z")).updated_at;
 * // "2026-02-11T00:00:00Z"
 * ```
 */
export function buildRevocationDocument(
  domain: string,
  now: Date | number = Date.now(),
): RevocationDocument {
  const check = checkDomain(domain);
  if (!check.ok) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `invalid domain ${JSON.stringify(domain)}: ${check.reason}`,
    );
  }
  return {
    schemapin_version: REVOCATION_DOCUMENT_VERSION,
    domain: check.domain,
    updated_at: formatRfc3339(now),
    revoked_keys: [],
  };
}

/**
 * Returns a copy of `document` with `fingerprint` revoked for `reason`, and `updated_at`
 * set to `now`. Throws `SchemaPinError` `INPUT_INVALID` for a malformed fingerprint, an
 * unknown reason, or a key that is already revoked in the document.
 *
 * @example
 * ```ts
 * import { addRevokedKey, buildRevocationDocument } from "./document.ts";
 * const doc = addRevokedKey(
 *   buildRevocationDocument("example.com"),
 *   "sha256:" + "0".repeat(64),
 *   "superseded",
 * );
 * doc.revoked_keys.length; // 1
 * ```
 */
export function addRevokedKey(
  document: RevocationDocument,
  fingerprint: string,
  reason: string,
  now: Date | number = Date.now(),
): RevocationDocument {
  if (!isSha256Ref(fingerprint)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `fingerprint ${JSON.stringify(fingerprint)} ${describeBadSha256Ref(fingerprint)}`,
    );
  }
  if (!isRevocationReason(reason)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `unknown revocation reason ${JSON.stringify(reason)}; use one of ${
        REVOCATION_REASONS.join(", ")
      }`,
    );
  }
  const existing = document.revoked_keys.find((k) => k.fingerprint === fingerprint);
  if (existing) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${fingerprint} is already revoked (${existing.reason}, ${existing.revoked_at})`,
    );
  }
  const at = formatRfc3339(now);
  return {
    ...document,
    updated_at: at,
    revoked_keys: [
      ...document.revoked_keys.map((k) => ({ ...k })),
      { fingerprint, revoked_at: at, reason },
    ],
  };
}

/**
 * Revokes `fingerprint` for `reason` in the revocation document of `domain`: in `existing`
 * (the parsed JSON of a document being extended, named `source`), or in a new document when
 * `existing` is `undefined` — what `schemapin revoke --out FILE` writes.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for an `existing` that is not a valid revocation
 *   document or is another domain's (naming `source`, `details.path`), an invalid domain, and
 *   as {@linkcode addRevokedKey}.
 *
 * @example
 * ```ts
 * import { extendRevocationDocument } from "./document.ts";
 * const doc = extendRevocationDocument(
 *   undefined,
 *   "example.com",
 *   "sha256:" + "0".repeat(64),
 *   "superseded",
 * );
 * doc.revoked_keys.length; // 1
 * ```
 */
export function extendRevocationDocument(
  existing: unknown,
  domain: string,
  fingerprint: string,
  reason: string,
  options: { readonly source?: string; readonly now?: Date | number } = {},
): RevocationDocument {
  const now = options.now ?? Date.now();
  if (existing === undefined) {
    return addRevokedKey(buildRevocationDocument(domain, now), fingerprint, reason, now);
  }
  const source = options.source ?? "revocation document";
  let document: RevocationDocument;
  try {
    document = parseRevocationDocument(existing, source);
  } catch (e) {
    throw new SchemaPinError("INPUT_INVALID", (e as Error).message, { path: source });
  }
  const check = checkDomain(domain);
  const wanted = check.ok ? check.domain : domain;
  if (document.domain !== wanted) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${source} is the revocation document of ${document.domain}, not ${wanted}`,
      { path: source },
    );
  }
  return addRevokedKey(document, fingerprint, reason, now);
}

function invalid(source: string, message: string): SchemaPinError {
  return new SchemaPinError("DISCOVERY_INVALID", `${source}: ${message}`, { source });
}

/**
 * Validates a standalone revocation document (§8.5, §8.6) and returns its known fields;
 * throws `SchemaPinError` `DISCOVERY_INVALID` naming `source` and the problem otherwise.
 * Every entry must carry a fingerprint, a strict RFC 3339 `revoked_at` and one of the four
 * reasons; one malformed entry fails the whole document (fail closed: a skipped entry could
 * hide a revoked key).
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { parseRevocationDocument } from "./document.ts";
 * const path = "revocations.json";
 * const document = parseRevocationDocument(parseJson(await Deno.readFile(path), path), path);
 * for (const k of document.revoked_keys) console.log(k.fingerprint, k.reason, k.revoked_at);
 * ```
 */
export function parseRevocationDocument(
  value: unknown,
  source = "revocation document",
): RevocationDocument {
  if (!isJsonObject(value)) throw invalid(source, `must be a JSON object, not ${typeName(value)}`);
  const version = ownField(value, "schemapin_version");
  if (typeof version !== "string" || !/^1\.\d+$/.test(version)) {
    throw invalid(
      source,
      version === undefined
        ? "schemapin_version is missing"
        : `schemapin_version ${JSON.stringify(version)} is not a 1.x version`,
    );
  }
  const domain = ownField(value, "domain");
  const dc = checkDomain(domain);
  if (!dc.ok) {
    throw invalid(
      source,
      domain === undefined ? "domain is missing" : `domain ${JSON.stringify(domain)}: ${dc.reason}`,
    );
  }
  const updatedAt = ownField(value, "updated_at");
  if (!isRfc3339(updatedAt)) {
    throw invalid(
      source,
      updatedAt === undefined
        ? "updated_at is missing"
        : `updated_at ${JSON.stringify(updatedAt)} is not a strict RFC 3339 timestamp`,
    );
  }
  const list = ownField(value, "revoked_keys");
  if (list === undefined) throw invalid(source, "revoked_keys is missing");
  if (!Array.isArray(list)) {
    throw invalid(source, `revoked_keys must be an array, not ${typeName(list)}`);
  }
  const revoked: RevokedKey[] = list.map((entry, i) => {
    const where = `revoked_keys[${i}]`;
    if (!isJsonObject(entry)) {
      throw invalid(source, `${where} must be an object, not ${typeName(entry)}`);
    }
    const fp = ownField(entry, "fingerprint");
    if (!isSha256Ref(fp)) {
      throw invalid(source, `${where}.fingerprint ${describeBadSha256Ref(fp)}`);
    }
    const at = ownField(entry, "revoked_at");
    if (!isRfc3339(at)) {
      throw invalid(source, `${where}.revoked_at is missing or not a strict RFC 3339 timestamp`);
    }
    const reason = ownField(entry, "reason");
    if (!isRevocationReason(reason)) {
      throw invalid(
        source,
        `${where}.reason ${
          reason === undefined ? "is missing" : JSON.stringify(reason) + " is not"
        } one of ${REVOCATION_REASONS.join(", ")} (§8.6)`,
      );
    }
    return { fingerprint: fp, revoked_at: at, reason };
  });
  return {
    schemapin_version: version,
    domain: dc.domain,
    updated_at: updatedAt,
    revoked_keys: revoked,
  };
}

/**
 * True when `fingerprint` appears in a simple `revoked_keys` list (§8.3). A missing list
 * means nothing is revoked (§8.4).
 *
 * @example
 * ```ts
 * import { isRevokedInList } from "./document.ts";
 * isRevokedInList("sha256:aa", ["sha256:aa"]); // true
 * isRevokedInList("sha256:aa", undefined); // false
 * ```
 */
export function isRevokedInList(
  fingerprint: string,
  revokedKeys: readonly string[] | undefined,
): boolean {
  checkArg("isRevokedInList", "fingerprint", fingerprint, "string");
  checkArg("isRevokedInList", "revokedKeys", revokedKeys, "array", true);
  return revokedKeys !== undefined && revokedKeys.includes(fingerprint);
}

/**
 * The entry revoking `fingerprint` in a standalone revocation document, if any (§8.5).
 *
 * @example
 * ```ts ignore
 * const entry = findRevokedKey(doc, key.fingerprint);
 * if (entry) console.log(entry.reason);
 * ```
 */
export function findRevokedKey(
  document: RevocationDocument,
  fingerprint: string,
): RevokedKey | undefined {
  checkArg("findRevokedKey", "document", document, "object");
  checkArg("findRevokedKey", "fingerprint", fingerprint, "string");
  return document.revoked_keys.find((k) => k.fingerprint === fingerprint);
}

/** The outcome of {@linkcode checkRevocation}. */
export type RevocationStatus =
  | { readonly revoked: false }
  | {
    readonly revoked: true;
    /** Which source revoked the key (the discovery list is checked first). */
    readonly source: "discovery" | "revocation_document";
    /** The §8.6 reason, when the standalone document gave one. */
    readonly reason?: RevocationReason;
    /** When, per the standalone document. */
    readonly revokedAt?: string;
  };

/**
 * The combined check of §8.7: `fingerprint` is revoked when it appears in the discovery
 * document's `revoked_keys` or in the standalone revocation document (either source revokes).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { addRevokedKey, buildRevocationDocument, checkRevocation } from "./document.ts";
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * const old = generateKeyPair();
 * const discovery = buildDiscoveryDocument({
 *   publicKey: generateKeyPair().publicKey,
 *   developerName: "Example",
 * });
 * const revocations = addRevokedKey(
 *   buildRevocationDocument("example.com"),
 *   old.publicKey.fingerprint,
 *   "superseded",
 * );
 * const status = checkRevocation(old.publicKey.fingerprint, discovery, revocations);
 * if (status.revoked) console.log(status.source); // "revocation_document"
 * ```
 */
export function checkRevocation(
  fingerprint: string,
  discovery: { readonly revoked_keys?: readonly string[] } | undefined,
  revocation?: RevocationDocument,
): RevocationStatus {
  checkArg("checkRevocation", "fingerprint", fingerprint, "string");
  checkArg("checkRevocation", "discovery", discovery, "object", true);
  checkArg("checkRevocation", "revocation", revocation, "object", true);
  if (isRevokedInList(fingerprint, discovery?.revoked_keys)) {
    return { revoked: true, source: "discovery" };
  }
  if (revocation) {
    const entry = findRevokedKey(revocation, fingerprint);
    if (entry) {
      return {
        revoked: true,
        source: "revocation_document",
        reason: entry.reason,
        revokedAt: entry.revoked_at,
      };
    }
  }
  return { revoked: false };
}
