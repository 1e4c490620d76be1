/**
 * Using a trust bundle for verification: {@linkcode loadTrustBundle} (an unsigned bundle is
 * used as is, a signed one only after `verifyTrustBundle` passed) and the §14.2
 * {@linkcode TrustBundleResolver}.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { RevocationDocument } from "../revocation/document.ts";
import type { BundleAuthorityStore } from "./authority.ts";
import {
  type BundleDocument,
  findInTrustBundle,
  isSignedTrustBundle,
  parseTrustBundle,
  type TrustBundle,
} from "./bundle.ts";
import {
  type TrustBundleVerification,
  VerifiedTrustBundle,
  verifyTrustBundle,
  type VerifyTrustBundleOptions,
} from "./verify.ts";
import { checkArg } from "../arguments.ts";

/** A bundle ready for use, and how it was accepted. */
export interface LoadedTrustBundle {
  /** The bundle's known fields. */
  readonly bundle: Readonly<TrustBundle>;
  /** `true` for a signed bundle that verified; `false` for an unsigned (§13) bundle. */
  readonly signed: boolean;
  /** The verification result (signed bundles only). */
  readonly verification?: TrustBundleVerification;
}

/** Options of {@linkcode loadTrustBundle}. */
export interface LoadTrustBundleOptions extends VerifyTrustBundleOptions {
  /** Refuse unsigned bundles (`BUNDLE_UNSIGNED`), e.g. when the caller named authorities. */
  requireSigned?: boolean;
}

/**
 * Accepts a bundle for verification use. An unsigned bundle (§13.1: no `signature`, no
 * `bundle_authority`) is parsed and returned as the caller's own trust input. A signed bundle
 * must pass {@linkcode verifyTrustBundle} against `store` first; a failure throws
 * `SchemaPinError` with the §21.4 code (`BUNDLE_EXPIRED`, `BUNDLE_AUTHORITY_UNTRUSTED`,
 * `KEY_PIN_MISMATCH`, `SIGNATURE_INVALID`, `DISCOVERY_INVALID`; `BUNDLE_UNSIGNED` for a
 * half-signed one) and `details.verification`. A malformed bundle: `DISCOVERY_INVALID`;
 * an unsigned bundle with `requireSigned`: `BUNDLE_UNSIGNED`.
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { FileBundleAuthorityStore } from "jsr:@schemapin/schemapin/bundle";
 * import { findInTrustBundle } from "./bundle.ts";
 * import { loadTrustBundle } from "./resolver.ts";
 * const value = parseJson(await Deno.readFile("bundle.json"), "bundle.json");
 * const { bundle, signed } = await loadTrustBundle(value, new FileBundleAuthorityStore(), {
 *   source: "bundle.json",
 * });
 * const entries = findInTrustBundle(bundle, "example.com");
 * console.log(signed, entries?.discovery.developer_name);
 * ```
 */
export async function loadTrustBundle(
  value: unknown,
  store: BundleAuthorityStore,
  options: LoadTrustBundleOptions = {},
): Promise<LoadedTrustBundle> {
  checkArg("loadTrustBundle", "options", options, "object");
  const source = options.source ?? "trust bundle";
  if (!isSignedTrustBundle(value)) {
    const bundle = parseTrustBundle(value, source);
    if (options.requireSigned) {
      // A caller that expects an authority must not accept a bundle whose signature was
      // stripped: that would be a silent downgrade to unauthenticated documents.
      throw new SchemaPinError(
        "BUNDLE_UNSIGNED",
        `${source} is not signed, but a signed bundle from an allow-listed authority is required`,
        { source },
      );
    }
    return { bundle, signed: false };
  }
  const verification = await verifyTrustBundle(value, store, options);
  if (!verification.valid) {
    throw new SchemaPinError(verification.errorCode!, verification.errorMessage!, {
      source,
      verification,
    });
  }
  return { bundle: verification.verified!.bundle, signed: true, verification };
}

/**
 * The §14.2 TrustBundleResolver: resolves a domain's discovery and revocation documents from
 * an in-memory bundle. Build it from a {@linkcode VerifiedTrustBundle} or from an unsigned
 * bundle; a signed bundle that was not verified is refused (`BUNDLE_AUTHORITY_UNTRUSTED`).
 *
 * @example
 * ```ts
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import {
 *   FileBundleAuthorityStore,
 *   TrustBundleResolver,
 *   verifyTrustBundle,
 * } from "jsr:@schemapin/schemapin/bundle";
 * import { resolveTrustDocuments } from "jsr:@schemapin/schemapin/discovery";
 * import { verifySchemaOffline } from "jsr:@schemapin/schemapin/schema";
 * const read = async (path: string) => parseJson(await Deno.readFile(path), path);
 * const result = await verifyTrustBundle(
 *   await read("bundle.json"),
 *   new FileBundleAuthorityStore(),
 * );
 * if (!result.verified) {
 *   console.error(`${result.errorCode}: ${result.errorMessage}`);
 *   Deno.exit(1);
 * }
 * const resolver = TrustBundleResolver.fromVerified(result.verified);
 * const trust = await resolveTrustDocuments(resolver, "example.com");
 * const check = await verifySchemaOffline({
 *   schema: await read("tool.json"),
 *   signature: await read("tool.json.sig") as Record<string, unknown>,
 *   toolId: "calculate_sum",
 *   domain: "example.com",
 *   discovery: trust.discovery,
 *   revocation: trust.revocation,
 *   pinStore: new FilePinStore(),
 * });
 * console.log(check.valid, trust.discoverySource);
 * ```
 */
export class TrustBundleResolver {
  readonly #bundle: Readonly<TrustBundle>;

  private constructor(bundle: Readonly<TrustBundle>) {
    checkArg("TrustBundleResolver", "bundle", bundle, "object");
    this.#bundle = bundle;
  }

  /** A resolver over a verified signed bundle. */
  static fromVerified(verified: VerifiedTrustBundle): TrustBundleResolver {
    if (!VerifiedTrustBundle.is(verified)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        "TrustBundleResolver.fromVerified needs the `verified` of a verifyTrustBundle result",
      );
    }
    return new TrustBundleResolver(verified.bundle);
  }

  /** A resolver over an unsigned bundle (validated; signed bundles are refused). */
  static fromUnsigned(value: unknown, source = "trust bundle"): TrustBundleResolver {
    if (isSignedTrustBundle(value)) {
      throw new SchemaPinError(
        "BUNDLE_AUTHORITY_UNTRUSTED",
        `${source} is signed; verify it with verifyTrustBundle and use fromVerified`,
        { source },
      );
    }
    return new TrustBundleResolver(parseTrustBundle(value, source));
  }

  /** The domain's discovery document, or `undefined`. Invalid domain: `INPUT_INVALID`. */
  resolveDiscovery(domain: string): Promise<BundleDocument | undefined> {
    try {
      return Promise.resolve(findInTrustBundle(this.#bundle, domain)?.discovery);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The domain's standalone revocation document, or `undefined`. */
  resolveRevocation(domain: string): Promise<RevocationDocument | undefined> {
    try {
      return Promise.resolve(findInTrustBundle(this.#bundle, domain)?.revocation);
    } catch (e) {
      return Promise.reject(e);
    }
  }
}
