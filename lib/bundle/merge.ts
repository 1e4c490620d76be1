/**
 * Merging verified trust bundles (§21.4 `merge_trust_bundles`).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { formatRfc3339, parseRfc3339 } from "../time/rfc3339.ts";
import { checkKid, type TrustBundle, UNSIGNED_BUNDLE_VERSION } from "./bundle.ts";
import { VerifiedTrustBundle } from "./verify.ts";

/** Options of {@linkcode mergeTrustBundles}. */
export interface MergeTrustBundlesOptions {
  /** `created_at` of the merged bundle (default now). */
  createdAt?: string | Date | number;
}

interface Candidate {
  rank: number;
  time: number;
  order: number;
}

function better(a: Candidate, b: Candidate): boolean {
  if (a.rank !== b.rank) return a.rank < b.rank;
  if (a.time !== b.time) return a.time > b.time;
  return a.order < b.order;
}

function byDomain<T extends { domain: string }>(a: T, b: T): number {
  const x = a.domain.toLowerCase();
  const y = b.domain.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * §21.4 `merge_trust_bundles`: merges verified bundles (say, the ones several peers sent) into
 * one UNSIGNED bundle (to be re-signed with `signTrustBundle` before redistribution), keeping
 * one discovery document and one revocation document per domain.
 *
 * The winner for a domain is chosen, in order, by: authority precedence (the position of the
 * bundle's verified kid in `authorityPrecedence`; unlisted kids rank last); then the newer
 * **parsed** RFC 3339 timestamp of the bundle (`signed_at`, else `created_at`; an
 * unparseable one ranks oldest); then the earlier bundle in `bundles`. Documents and
 * revocations are chosen independently. The output lists them by domain (code point order
 * of the lower-case name), so the same inputs always give the same bytes.
 *
 * Only bundles returned by `verifyTrustBundle` are accepted (`result.verified`): anything
 * else throws `SchemaPinError` `INPUT_INVALID`, as do an empty list and a malformed or
 * repeated precedence kid.
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { parsePrivateKeyPem } from "jsr:@schemapin/schemapin/keys";
 * import {
 *   FileBundleAuthorityStore,
 *   mergeTrustBundles,
 *   signTrustBundle,
 *   verifyTrustBundle,
 * } from "jsr:@schemapin/schemapin/bundle";
 *
 * const store = new FileBundleAuthorityStore();
 * const read = async (path: string) => parseJson(await Deno.readFile(path), path);
 * const a = await verifyTrustBundle(await read("a.bundle.json"), store);
 * const b = await verifyTrustBundle(await read("b.bundle.json"), store);
 * if (!a.verified || !b.verified) {
 *   console.error("both bundles must verify first");
 *   Deno.exit(1);
 * }
 * const merged = mergeTrustBundles([a.verified, b.verified], ["authority-primary"]);
 * const key = parsePrivateKeyPem(await Deno.readTextFile("authority.pem"), "authority.pem");
 * const resigned = signTrustBundle(merged, key, "authority-primary", new Date());
 * await Deno.writeTextFile("merged.bundle.json", JSON.stringify(resigned, null, 2));
 * ```
 */
export function mergeTrustBundles(
  bundles: readonly VerifiedTrustBundle[],
  authorityPrecedence: readonly string[] = [],
  options: MergeTrustBundlesOptions = {},
): TrustBundle {
  if (!Array.isArray(bundles) || bundles.length === 0) {
    throw new SchemaPinError("INPUT_INVALID", "mergeTrustBundles: no bundles to merge");
  }
  bundles.forEach((b, i) => {
    if (!VerifiedTrustBundle.is(b)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `mergeTrustBundles: bundle ${i} is not a verified bundle; pass the \`verified\` of a ` +
          `successful verifyTrustBundle result (only verified bundles may be merged, §21.4)`,
      );
    }
  });
  const precedence = new Map<string, number>();
  authorityPrecedence.forEach((kid, i) => {
    const problem = checkKid(kid);
    if (problem) {
      throw new SchemaPinError("INPUT_INVALID", `authority precedence entry ${i}: ${problem}`);
    }
    if (precedence.has(kid)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `authority precedence lists ${JSON.stringify(kid)} twice`,
      );
    }
    precedence.set(kid, i);
  });

  type Doc = TrustBundle["documents"][number];
  type Rev = TrustBundle["revocations"][number];
  const docs = new Map<string, { c: Candidate; entry: Doc }>();
  const revs = new Map<string, { c: Candidate; entry: Rev }>();
  bundles.forEach((v, order) => {
    const stamp = v.bundle.signed_at ?? v.bundle.created_at;
    const c: Candidate = {
      rank: precedence.get(v.kid) ?? Number.POSITIVE_INFINITY,
      time: parseRfc3339(stamp) ?? Number.NEGATIVE_INFINITY,
      order,
    };
    for (const d of v.bundle.documents) {
      const key = d.domain.toLowerCase();
      const held = docs.get(key);
      if (!held || better(c, held.c)) docs.set(key, { c, entry: d });
    }
    for (const r of v.bundle.revocations) {
      const key = r.domain.toLowerCase();
      const held = revs.get(key);
      if (!held || better(c, held.c)) revs.set(key, { c, entry: r });
    }
  });
  const createdAt = options.createdAt ?? Date.now();
  return {
    schemapin_bundle_version: UNSIGNED_BUNDLE_VERSION,
    created_at: typeof createdAt === "string" ? createdAt : formatRfc3339(createdAt),
    documents: [...docs.values()].map((x) => structuredClone(x.entry)).sort(byDomain),
    revocations: [...revs.values()].map((x) => structuredClone(x.entry)).sort(byDomain),
  };
}
