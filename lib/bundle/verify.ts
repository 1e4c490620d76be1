/**
 * Verifying signed trust bundles against the authority allow-list (§21.4
 * `verify_trust_bundle`), and the {@linkcode VerifiedTrustBundle} that only a successful
 * verification produces — the one input `mergeTrustBundles` accepts.
 *
 * @module
 */
import { type ErrorCode, SchemaPinError } from "../errors.ts";
import { parsePublicKeyPem, type PublicKey } from "../crypto/keys.ts";
import { verifyDocumentSignature } from "../crypto/ecdsa.ts";
import { isJsonObject, ownField } from "../json/object.ts";
import { formatRfc3339, parseRfc3339 } from "../time/rfc3339.ts";
import {
  addAuthorityIfAbsent,
  type BundleAuthorityStore,
  makeAuthorityRecord,
} from "./authority.ts";
import { parseTrustBundleFields, type TrustBundle, trustBundleSigningInput } from "./bundle.ts";

/** Clock-skew allowance for a bundle's `expires_at`, as for signatures (§16.2): 300 s. */
export const BUNDLE_EXPIRY_SKEW_MS = 300_000;

const TOKEN: unique symbol = Symbol("VerifiedTrustBundle");

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * A trust bundle whose signature verified against an allow-listed (or, with the opt-in,
 * first-use pinned) authority. Only {@linkcode verifyTrustBundle} can create one (the
 * constructor refuses any other caller, and the class is nominal because of its private
 * field), and its contents are deeply frozen, so holding one proves the contents were
 * verified — which is why `mergeTrustBundles` takes nothing else.
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { FileBundleAuthorityStore, verifyTrustBundle } from "jsr:@schemapin/schemapin/bundle";
 * const bundle = parseJson(await Deno.readFile("bundle.json"), "bundle.json");
 * const result = await verifyTrustBundle(bundle, new FileBundleAuthorityStore());
 * if (result.verified) console.log(result.verified.kid, result.verified.bundle.documents.length);
 * ```
 */
export class VerifiedTrustBundle {
  /** The bundle's known fields (frozen). */
  readonly bundle: Readonly<TrustBundle>;
  /** The authority kid it was verified under. */
  readonly kid: string;
  /** The authority key fingerprint it was verified with. */
  readonly fingerprint: string;
  readonly #verified = true;

  /** Not for use: only {@linkcode verifyTrustBundle} creates verified bundles. */
  constructor(token: symbol, bundle: TrustBundle, kid: string, fingerprint: string) {
    if (token !== TOKEN) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        "a VerifiedTrustBundle can only be obtained from verifyTrustBundle",
      );
    }
    this.bundle = deepFreeze(structuredClone(bundle));
    this.kid = kid;
    this.fingerprint = fingerprint;
    Object.freeze(this);
  }

  /**
   * True when `value` was created by {@linkcode verifyTrustBundle}.
   *
   * @example
   * ```ts
   * import { VerifiedTrustBundle } from "jsr:@schemapin/schemapin/bundle";
   * VerifiedTrustBundle.is({ bundle: {}, kid: "k", fingerprint: "f" }); // false
   * ```
   */
  static is(value: unknown): value is VerifiedTrustBundle {
    return typeof value === "object" && value !== null && #verified in value;
  }
}

/** Options of {@linkcode verifyTrustBundle}. */
export interface VerifyTrustBundleOptions {
  /**
   * Accept an authority whose kid is not in the allow-list, and pin it after the signature
   * verified (§21.4 step 4, 6). Default `false`: the authority must be seeded. Hosts that
   * opt in must surface `firstUse` to the operator (§21.1).
   */
  allowFirstUse?: boolean;
  /** The current time (default now), for `expires_at` and the first-use record. */
  now?: Date | number;
  /** A name for the bundle in messages (a file name). */
  source?: string;
}

/** The outcome of {@linkcode verifyTrustBundle}. */
export interface TrustBundleVerification {
  /** True when every step passed. */
  readonly valid: boolean;
  /** Why not (§21.4 codes). */
  readonly errorCode?: ErrorCode;
  /** A message naming the bundle, the field or the authority. */
  readonly errorMessage?: string;
  /** The §21.4 step (1–6) that failed. */
  readonly failedStep?: number;
  /** The authority kid the bundle claims (once known). */
  readonly kid?: string;
  /** The fingerprint of the authority key the bundle carries (once computed). */
  readonly fingerprint?: string;
  /** The fingerprint the allow-list expected, on `KEY_PIN_MISMATCH`. */
  readonly expectedFingerprint?: string;
  /** True when the authority was not allow-listed and was pinned by this call (opt-in). */
  readonly firstUse: boolean;
  /** `signed_at`, as written. */
  readonly signedAt?: string;
  /** `expires_at`, as written (when a string). */
  readonly expiresAt?: string;
  /** Notes, e.g. `unprotected_fields` when the bundle has fields its signature skips. */
  readonly warnings: readonly string[];
  /** Paths of fields not covered by the signature (ignored), e.g. `documents[0].note`. */
  readonly unprotectedFields?: readonly string[];
  /** The verified bundle (only when `valid`). */
  readonly verified?: VerifiedTrustBundle;
}

const TOP_FIELDS = [
  "schemapin_bundle_version",
  "created_at",
  "documents",
  "revocations",
  "bundle_authority",
  "signed_at",
  "expires_at",
  "signature",
];
const DOC_FIELDS = [
  "domain",
  "schema_version",
  "public_key_pem",
  "revoked_keys",
  "developer_name",
  "contact",
  "revocation_endpoint",
];
const REV_FIELDS = ["schemapin_version", "domain", "updated_at", "revoked_keys"];
const REV_KEY_FIELDS = ["fingerprint", "revoked_at", "reason"];

function unknownFields(obj: Record<string, unknown>, known: string[], prefix: string): string[] {
  return Object.keys(obj).filter((k) => !known.includes(k)).map((k) => prefix + k);
}

/** Paths of fields the §21.3 signing input does not cover. */
function unprotectedPaths(value: Record<string, unknown>): string[] {
  const out = unknownFields(value, TOP_FIELDS, "");
  const authority = ownField(value, "bundle_authority");
  if (isJsonObject(authority)) {
    out.push(...unknownFields(authority, ["kid", "public_key_pem"], "bundle_authority."));
  }
  const docs = ownField(value, "documents");
  if (Array.isArray(docs)) {
    docs.forEach((d, i) => {
      if (isJsonObject(d)) out.push(...unknownFields(d, DOC_FIELDS, `documents[${i}].`));
    });
  }
  const revs = ownField(value, "revocations");
  if (Array.isArray(revs)) {
    revs.forEach((r, i) => {
      if (!isJsonObject(r)) return;
      out.push(...unknownFields(r, REV_FIELDS, `revocations[${i}].`));
      const keys = ownField(r, "revoked_keys");
      if (Array.isArray(keys)) {
        keys.forEach((k, j) => {
          if (isJsonObject(k)) {
            out.push(...unknownFields(k, REV_KEY_FIELDS, `revocations[${i}].revoked_keys[${j}].`));
          }
        });
      }
    });
  }
  return out;
}

/** §21.4 step 1: the parts of a signature that `bundle` lacks (absent, null or empty). */
function unsignedParts(bundle: Record<string, unknown>): string[] {
  const authority = ownField(bundle, "bundle_authority");
  const signature = ownField(bundle, "signature");
  return [
    authority === undefined || authority === null ? "bundle_authority" : undefined,
    signature === undefined || signature === null || signature === "" ? "signature" : undefined,
  ].filter((m) => m !== undefined);
}

/**
 * §21.4 step 3: why the bundle counts as expired at `nowMs` (past `expires_at` plus the skew
 * allowance, or an `expires_at` that is not strict RFC 3339: fail closed), else `undefined`.
 */
function expiryProblem(
  parsed: ReturnType<typeof parseTrustBundleFields>,
  nowMs: number,
  source: string,
): string | undefined {
  if (!parsed.hasExpiresAt) return undefined;
  const expiresMs = parseRfc3339(parsed.expiresAtRaw);
  if (expiresMs === undefined) {
    return `${source}: expires_at ${
      JSON.stringify(parsed.expiresAtRaw)
    } is not a strict RFC 3339 timestamp; a malformed expiry is treated as expired`;
  }
  if (nowMs > expiresMs + BUNDLE_EXPIRY_SKEW_MS) {
    return `${source} expired at ${parsed.bundle.expires_at} (now ${
      formatRfc3339(nowMs)
    }, skew allowance 300 s)`;
  }
  return undefined;
}

/** §21.4 step 6: records an authority first used at `nowMs`, unless a record won the race. */
function pinFirstUse(
  store: BundleAuthorityStore,
  kid: string,
  fingerprint: string,
  nowMs: number,
): ReturnType<typeof addAuthorityIfAbsent> {
  return addAuthorityIfAbsent(
    store,
    makeAuthorityRecord({ kid, fingerprint, source: "first_use", pinnedAt: formatRfc3339(nowMs) }),
  );
}

/**
 * Verifies a signed trust bundle against the authority allow-list, running the six steps of
 * §21.4 in order:
 *
 * 1. `bundle_authority` and a non-empty `signature` are required — else `BUNDLE_UNSIGNED`;
 * 2. the bundle must be well formed, without duplicate domain entries, and carry a usable
 *    ECDSA P-256 authority key — else `DISCOVERY_INVALID`;
 * 3. `expires_at`, when present, must be strict RFC 3339 and not past (300 s skew, as §16.2)
 *    — else `BUNDLE_EXPIRED`;
 * 4. the authority key's fingerprint is looked up by `kid`: a different recorded fingerprint
 *    is `KEY_PIN_MISMATCH`; an unknown kid is `BUNDLE_AUTHORITY_UNTRUSTED` unless
 *    `allowFirstUse`;
 * 5. the signature must verify over the §21.3 signing input — else `SIGNATURE_INVALID`;
 * 6. only then, and only with `allowFirstUse`, an unknown authority is pinned (`firstUse`).
 *
 * Never writes the store unless all of 1–5 passed. Returns a structured result (it does not
 * throw for a bad bundle); throws `SchemaPinError` only when the store cannot be read or
 * written (`IO_FAILED`, `INPUT_INVALID` for a corrupt store).
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { parsePublicKeyPem } from "jsr:@schemapin/schemapin/keys";
 * import {
 *   MemoryBundleAuthorityStore,
 *   seedBundleAuthority,
 *   verifyTrustBundle,
 * } from "jsr:@schemapin/schemapin/bundle";
 * const store = new MemoryBundleAuthorityStore();
 * const authority = parsePublicKeyPem(await Deno.readTextFile("authority_public.pem"));
 * await seedBundleAuthority(store, "schemapin-bundle-authority-2026", authority.fingerprint);
 * const bundle = parseJson(await Deno.readFile("bundle.json"), "bundle.json");
 * const result = await verifyTrustBundle(bundle, store);
 * if (!result.valid) {
 *   console.error(`step ${result.failedStep}: ${result.errorCode}: ${result.errorMessage}`);
 *   Deno.exit(1);
 * }
 * ```
 */
export async function verifyTrustBundle(
  bundle: unknown,
  store: BundleAuthorityStore,
  options: VerifyTrustBundleOptions = {},
): Promise<TrustBundleVerification> {
  if (store === null || typeof store !== "object" || typeof store.get !== "function") {
    throw new SchemaPinError("INPUT_INVALID", "verifyTrustBundle needs a BundleAuthorityStore");
  }
  const source = options.source ?? "trust bundle";
  const allowFirstUse = options.allowFirstUse === true;
  const nowMs = options.now === undefined
    ? Date.now()
    : typeof options.now === "number"
    ? options.now
    : options.now.getTime();
  const fail = (
    step: number,
    errorCode: ErrorCode,
    errorMessage: string,
    extra: Partial<TrustBundleVerification> = {},
  ): TrustBundleVerification => ({
    valid: false,
    errorCode,
    errorMessage,
    failedStep: step,
    firstUse: false,
    warnings: [],
    ...extra,
  });

  if (!isJsonObject(bundle)) {
    return fail(2, "DISCOVERY_INVALID", `${source}: a trust bundle must be a JSON object`);
  }
  // Step 1: signed at all?
  const missing = unsignedParts(bundle);
  if (missing.length > 0) {
    return fail(
      1,
      "BUNDLE_UNSIGNED",
      `${source} is not a signed trust bundle: ${missing.join(" and ")} ${
        missing.length > 1 ? "are" : "is"
      } missing or empty`,
    );
  }

  // Step 2: structure, duplicate domains, the authority key.
  let parsed: ReturnType<typeof parseTrustBundleFields>;
  let authorityKey: PublicKey;
  try {
    parsed = parseTrustBundleFields(bundle, source);
  } catch (e) {
    if (e instanceof SchemaPinError) return fail(2, "DISCOVERY_INVALID", e.message);
    throw e;
  }
  const parsedBundle = parsed.bundle;
  const authority = parsedBundle.bundle_authority!;
  const kid = authority.kid;
  try {
    authorityKey = parsePublicKeyPem(authority.public_key_pem, `${source} bundle_authority`);
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    return fail(
      2,
      "DISCOVERY_INVALID",
      `${source}: bundle_authority.public_key_pem is not a usable ECDSA P-256 key: ${e.message}`,
      { kid },
    );
  }
  const fingerprint = authorityKey.fingerprint;
  const signedAt = parsedBundle.signed_at;
  const expiresAt = parsedBundle.expires_at;
  const known = { kid, fingerprint, signedAt, expiresAt };

  // Step 3: expiry, fail closed on anything that is not strict RFC 3339.
  const expired = expiryProblem(parsed, nowMs, source);
  if (expired !== undefined) return fail(3, "BUNDLE_EXPIRED", expired, known);

  // Step 4: the allow-list, read only.
  const recorded = await store.get(kid);
  if (recorded && recorded.fingerprint !== fingerprint) {
    return fail(
      4,
      "KEY_PIN_MISMATCH",
      `${source} is signed by authority ${JSON.stringify(kid)} with key ${fingerprint}, but ` +
        `the allow-list expects ${recorded.fingerprint} for that kid`,
      { ...known, expectedFingerprint: recorded.fingerprint },
    );
  }
  if (!recorded && !allowFirstUse) {
    return fail(
      4,
      "BUNDLE_AUTHORITY_UNTRUSTED",
      `${source} is signed by authority ${JSON.stringify(kid)} (key ${fingerprint}), which is ` +
        `not in the authority allow-list; seed it after checking the fingerprint out of band`,
      known,
    );
  }

  // Step 5: the signature over the §21.3 signing input.
  const check = verifyDocumentSignature(
    trustBundleSigningInput(parsedBundle),
    parsedBundle.signature!,
    authorityKey,
  );
  if (!check.valid) {
    return fail(
      5,
      "SIGNATURE_INVALID",
      `${source}: the bundle signature does not verify: ${check.errorMessage}`,
      known,
    );
  }

  // Step 6: pin on first use, only now.
  let firstUse = false;
  if (!recorded) {
    const outcome = await pinFirstUse(store, kid, fingerprint, nowMs);
    if (outcome.record.fingerprint !== fingerprint) {
      // Another writer recorded a different key for this kid since step 4.
      return fail(
        6,
        "KEY_PIN_MISMATCH",
        `authority ${JSON.stringify(kid)} was recorded with ${outcome.record.fingerprint} ` +
          `while ${source} was being verified; it carries ${fingerprint}`,
        { ...known, expectedFingerprint: outcome.record.fingerprint },
      );
    }
    firstUse = outcome.status === "added";
  }
  const unprotected = unprotectedPaths(bundle);
  const result: TrustBundleVerification = {
    valid: true,
    ...known,
    firstUse,
    warnings: [
      ...(firstUse ? ["bundle_authority_first_use"] : []),
      ...(unprotected.length > 0 ? ["unprotected_fields"] : []),
    ],
    ...(unprotected.length > 0 ? { unprotectedFields: unprotected } : {}),
    verified: new VerifiedTrustBundle(TOKEN, parsedBundle, kid, fingerprint),
  };
  return result;
}
