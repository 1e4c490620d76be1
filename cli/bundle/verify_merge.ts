/**
 * Verifying several trust bundles against one authority allow-list and merging them (§21.4:
 * only verified bundles may be merged), as `schemapin bundle merge` does.
 *
 * @module
 */
import { checkArg, checkMethods } from "../../lib/arguments.ts";
import type { BundleAuthorityStore } from "../../lib/bundle/authority.ts";
import type { TrustBundle } from "../../lib/bundle/bundle.ts";
import { mergeTrustBundles } from "../../lib/bundle/merge.ts";
import {
  type TrustBundleVerification,
  type VerifiedTrustBundle,
  verifyTrustBundle,
} from "../../lib/bundle/verify.ts";

/** One bundle to verify: its parsed JSON value and the name it is reported under. */
export interface BundleInput {
  /** The bundle as read (a parsed JSON value). */
  readonly value: unknown;
  /** A name for the bundle in messages (a file name). */
  readonly source: string;
}

/** Options of {@linkcode verifyAndMergeTrustBundles}. */
export interface VerifyAndMergeOptions {
  /** Accept (and record) an authority not in the allow-list (explicit opt-in, §21.4). */
  readonly allowFirstUse?: boolean;
  /** Authority kids, highest precedence first (`mergeTrustBundles` of lib/bundle/merge.ts). */
  readonly precedence?: readonly string[];
  /** `created_at` of the merged bundle (default now). */
  readonly createdAt?: string | Date | number;
}

/** The outcome of {@linkcode verifyAndMergeTrustBundles}. */
export interface VerifiedMerge {
  /**
   * The verification of each input, in order, up to and including the first one that failed
   * (the inputs after it are not verified).
   */
  readonly results: readonly TrustBundleVerification[];
  /** The merged, unsigned bundle, when every input verified. */
  readonly merged?: TrustBundle;
}

/**
 * Verifies each of `inputs` against `store` in order (`verifyTrustBundle`), stopping at the
 * first failure — one bundle that does not verify stops the merge (§21.4) — and merges them
 * into one unsigned bundle when all verified.
 *
 * @example
 * ```ts ignore
 * import { verifyAndMergeTrustBundles } from "./verify_merge.ts";
 * const { results, merged } = await verifyAndMergeTrustBundles(
 *   [{ value: a, source: "a.json" }, { value: b, source: "b.json" }],
 *   store,
 *   { precedence: ["acme"] },
 * );
 * if (merged === undefined) console.error(results.at(-1)!.errorMessage);
 * ```
 */
export async function verifyAndMergeTrustBundles(
  inputs: readonly BundleInput[],
  store: BundleAuthorityStore,
  options: VerifyAndMergeOptions = {},
): Promise<VerifiedMerge> {
  checkArg("verifyAndMergeTrustBundles", "inputs", inputs, "array");
  checkMethods("verifyAndMergeTrustBundles", "store", store, ["get"], "a BundleAuthorityStore");
  checkArg("verifyAndMergeTrustBundles", "options", options, "object");
  const results: TrustBundleVerification[] = [];
  const verified: VerifiedTrustBundle[] = [];
  for (const input of inputs) {
    const result = await verifyTrustBundle(input.value, store, {
      allowFirstUse: options.allowFirstUse === true,
      source: input.source,
    });
    results.push(result);
    if (!result.valid) return { results };
    verified.push(result.verified!);
  }
  const merged = mergeTrustBundles(verified, options.precedence ?? [], {
    ...(options.createdAt !== undefined ? { createdAt: options.createdAt } : {}),
  });
  return { results, merged };
}
