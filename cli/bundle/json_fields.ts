/**
 * The `--json` fields of the bundle commands: what a bundle (lib/bundle/bundle.ts) and a
 * bundle verification (lib/bundle/verify.ts) become in `bundle create`, `add`, `sign`,
 * `verify`, `merge` and `show`, every name snake_case like the spec's documents. The CLI adds
 * `format` and prints them (cli/commands/json_output.ts); the shapes are published in
 * `schemas/cli/`, as cli/contractpin/json_fields.ts does for the contract commands.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { verificationFields } from "../json/result_fields.ts";
import { parsePublicKeyPem } from "../../lib/crypto/keys.ts";
import { isSignedTrustBundle, type TrustBundle } from "../../lib/bundle/bundle.ts";
import type { TrustBundleVerification } from "../../lib/bundle/verify.ts";
import type { VerifiedMerge } from "./verify_merge.ts";

/** The domains a bundle holds documents for, and those it holds revocations for. */
export interface BundleDomains {
  /** The domain of each discovery document, in the bundle's order. */
  readonly documents: string[];
  /** The domain of each revocation document, in the bundle's order. */
  readonly revocations: string[];
}

function checkBundle(fn: string, bundle: TrustBundle): void {
  checkArg(fn, "bundle", bundle, "object");
  if (!Array.isArray(bundle.documents) || !Array.isArray(bundle.revocations)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${fn}: bundle must be a parsed trust bundle (with documents and revocations)`,
      { function: fn, argument: "bundle" },
    );
  }
}

/**
 * The domains of `bundle`'s discovery and revocation documents (`documents` and
 * `revocations` of every bundle command's `--json`).
 *
 * @example
 * ```ts
 * import { createTrustBundle } from "../../lib/bundle/bundle.ts";
 * import { bundleDomains } from "./json_fields.ts";
 * bundleDomains(createTrustBundle()); // { documents: [], revocations: [] }
 * ```
 */
export function bundleDomains(bundle: TrustBundle): BundleDomains {
  checkBundle("bundleDomains", bundle);
  return {
    documents: bundle.documents.map((d) => d.domain),
    revocations: bundle.revocations.map((r) => r.domain),
  };
}

/**
 * The `--json` fields of a bundle written by `bundle create` or `bundle add`: `ok`, `out` (the
 * file), its version, `created_at` and domains.
 *
 * @example
 * ```ts
 * import { createTrustBundle } from "../../lib/bundle/bundle.ts";
 * import { bundleSummaryJson } from "./json_fields.ts";
 * bundleSummaryJson(createTrustBundle("2026-01-01T00:00:00Z"), "b.json").documents; // []
 * ```
 */
export function bundleSummaryJson(
  bundle: TrustBundle,
  out: string,
): { ok: true } & Record<string, unknown> {
  checkBundle("bundleSummaryJson", bundle);
  checkArg("bundleSummaryJson", "out", out, "string");
  return {
    ok: true,
    out,
    schemapin_bundle_version: bundle.schemapin_bundle_version,
    created_at: bundle.created_at,
    ...bundleDomains(bundle),
  };
}

/**
 * The `--json` fields of `bundle sign`: `ok`, `out` (the file written), the authority's `kid`
 * and key `fingerprint`, `signed_at`, `expires_at` when set, and the domains.
 *
 * @example
 * ```ts
 * import { signedBundleJson } from "./json_fields.ts";
 * const signed = {
 *   schemapin_bundle_version: "1.4",
 *   created_at: "2026-01-01T00:00:00Z",
 *   documents: [],
 *   revocations: [],
 *   bundle_authority: { kid: "acme", public_key_pem: "…" },
 *   signed_at: "2026-01-02T00:00:00Z",
 * };
 * signedBundleJson("b.json", signed, "sha256:…").kid; // "acme"
 * ```
 */
export function signedBundleJson(
  out: string,
  signed: TrustBundle,
  fingerprint: string,
): { ok: true } & Record<string, unknown> {
  checkBundle("signedBundleJson", signed);
  checkArg("signedBundleJson", "out", out, "string");
  checkArg("signedBundleJson", "fingerprint", fingerprint, "string");
  if (signed.bundle_authority === undefined || signed.signed_at === undefined) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      "signedBundleJson: signed must be a signed trust bundle (with bundle_authority and " +
        "signed_at)",
      { function: "signedBundleJson", argument: "signed" },
    );
  }
  return {
    ok: true,
    out,
    kid: signed.bundle_authority.kid,
    fingerprint,
    signed_at: signed.signed_at,
    ...(signed.expires_at !== undefined ? { expires_at: signed.expires_at } : {}),
    ...bundleDomains(signed),
  };
}

/** The fields of a verification printed by `--json`, in order (snake_case in the output). */
const VERIFICATION_KEYS = [
  "failedStep",
  "kid",
  "fingerprint",
  "expectedFingerprint",
  "firstUse",
  "signedAt",
  "expiresAt",
] as const satisfies readonly (keyof TrustBundleVerification)[];

/**
 * The `--json` fields of a bundle verification (`bundle verify`, and each input of
 * `bundle merge`): `ok`, the `error` of a failure, `file` (the name `source` is reported
 * under), the §21.4 step's fields that are set, the verified bundle's domains, `warnings` and
 * `unprotected_fields`. The verified bundle itself is left out.
 *
 * @example
 * ```ts
 * import { bundleVerificationJson } from "./json_fields.ts";
 * bundleVerificationJson("b.json", {
 *   valid: false,
 *   errorCode: "BUNDLE_UNSIGNED",
 *   errorMessage: "b.json is not signed",
 *   failedStep: 1,
 *   firstUse: false,
 *   warnings: [],
 * });
 * // { ok: false, error: { code: "BUNDLE_UNSIGNED", … }, file: "b.json", failed_step: 1, … }
 * ```
 */
export function bundleVerificationJson(
  source: string,
  result: TrustBundleVerification,
): { ok: boolean } & Record<string, unknown> {
  checkArg("bundleVerificationJson", "source", source, "string");
  checkArg("bundleVerificationJson", "result", result, "object");
  const { ok, error, ...fields } = verificationFields(result, [...VERIFICATION_KEYS]);
  return {
    ok,
    ...(error !== undefined ? { error } : {}),
    file: source,
    ...fields,
    ...(result.verified ? bundleDomains(result.verified.bundle) : {}),
    warnings: result.warnings,
    ...(result.unprotectedFields ? { unprotected_fields: result.unprotectedFields } : {}),
  };
}

/**
 * The `--json` fields of `bundle merge`: `ok`, the `error` of the input that stopped the merge,
 * `out`, each input's verification (`sources[i]` the name of `merge.results[i]`'s bundle, as
 * {@linkcode bundleVerificationJson}) and, when merged, the merged bundle's domains.
 *
 * @example
 * ```ts
 * import { bundleMergeJson } from "./json_fields.ts";
 * import type { TrustBundleVerification } from "../../lib/bundle/verify.ts";
 * const failed: TrustBundleVerification = {
 *   valid: false,
 *   errorCode: "BUNDLE_UNSIGNED",
 *   errorMessage: "a.json is not signed",
 *   failedStep: 1,
 *   firstUse: false,
 *   warnings: [],
 * };
 * bundleMergeJson("m.json", ["a.json"], { results: [failed] }).ok; // false
 * ```
 */
export function bundleMergeJson(
  out: string,
  sources: readonly string[],
  merge: VerifiedMerge,
): { ok: boolean } & Record<string, unknown> {
  checkArg("bundleMergeJson", "out", out, "string");
  checkArg("bundleMergeJson", "sources", sources, "array");
  checkArg("bundleMergeJson", "merge", merge, "object");
  const { results, merged } = merge;
  const inputs = results.map((r, i) => bundleVerificationJson(sources[i], r));
  if (merged !== undefined) return { ok: true, out, inputs, ...bundleDomains(merged) };
  const failed = results[results.length - 1];
  const error = { code: failed.errorCode!, message: failed.errorMessage! };
  return { ok: false, error, out, inputs };
}

/** The fingerprint of a PEM key in a bundle, or null when it does not parse (not verified). */
function fingerprintOf(pem: string): string | null {
  try {
    return parsePublicKeyPem(pem).fingerprint;
  } catch {
    return null;
  }
}

/** What {@linkcode bundleContentsJson} says about a bundle, without verifying it. */
export interface BundleContents {
  /** `schemapin_bundle_version`, as written. */
  readonly schemapin_bundle_version: string;
  /** `created_at`, as written. */
  readonly created_at: string;
  /** Whether the bundle carries a signature (not whether it verifies). */
  readonly signed: boolean;
  /** Always false: the contents were only read. */
  readonly verified: false;
  /** The authority the bundle names, with its key's fingerprint (null: unparseable key). */
  readonly authority: { kid: string; fingerprint: string | null } | null;
  /** `signed_at` and `expires_at`, when written. */
  readonly signed_at?: string;
  readonly expires_at?: string;
  /** One entry per discovery document. */
  readonly documents: {
    domain: string;
    schema_version: string;
    developer_name?: string;
    key_fingerprint: string | null;
    revoked_keys: number;
    revocation_endpoint?: string;
  }[];
  /** One entry per revocation document. */
  readonly revocations: { domain: string; updated_at: string; revoked_keys: number }[];
}

/**
 * The contents of a bundle as `bundle show --json` prints them, NOT verified: `value` is the
 * bundle as read (whether it is signed), `bundle` the same parsed (`parseTrustBundleFile` of
 * lib/bundle/file.ts); the fingerprints are computed from the keys the bundle carries.
 *
 * @example
 * ```ts
 * import { createTrustBundle } from "../../lib/bundle/bundle.ts";
 * import { bundleContentsJson } from "./json_fields.ts";
 * const bundle = createTrustBundle("2026-01-01T00:00:00Z");
 * bundleContentsJson(bundle, bundle).signed; // false
 * ```
 */
export function bundleContentsJson(value: unknown, bundle: TrustBundle): BundleContents {
  checkBundle("bundleContentsJson", bundle);
  const authority = bundle.bundle_authority;
  return {
    schemapin_bundle_version: bundle.schemapin_bundle_version,
    created_at: bundle.created_at,
    signed: isSignedTrustBundle(value),
    verified: false,
    authority: authority
      ? { kid: authority.kid, fingerprint: fingerprintOf(authority.public_key_pem) }
      : null,
    ...(bundle.signed_at !== undefined ? { signed_at: bundle.signed_at } : {}),
    ...(bundle.expires_at !== undefined ? { expires_at: bundle.expires_at } : {}),
    documents: bundle.documents.map((d) => ({
      domain: d.domain,
      schema_version: d.schema_version,
      ...(d.developer_name !== undefined ? { developer_name: d.developer_name } : {}),
      key_fingerprint: fingerprintOf(d.public_key_pem),
      revoked_keys: d.revoked_keys.length,
      ...(d.revocation_endpoint !== undefined
        ? { revocation_endpoint: d.revocation_endpoint }
        : {}),
    })),
    revocations: bundle.revocations.map((r) => ({
      domain: r.domain,
      updated_at: r.updated_at,
      revoked_keys: r.revoked_keys.length,
    })),
  };
}
