/**
 * The chain check of two signatures (§18.3): `verifyChain`, pure metadata over already-verified
 * signature documents, and the helpers the lineage store (lib/pins/lineage.ts, §18.4) decides
 * with — the hash a document is about, whether its version can take part in lineage at all
 * (1.4 or later), and numeric `schema_version` comparison.
 *
 * Schema signature documents carry `schema_hash`, skill signature documents `skill_hash`;
 * either is "the hash" here.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { isSha256Ref } from "../crypto/fingerprint.ts";
import { checkArg } from "../arguments.ts";

/**
 * The fields of a signature document that lineage looks at: a schema signature document
 * (`signSchemaDocument`, `result.document` of `verifySchemaOffline`) or a skill one
 * (`.schemapin.sig`, `result.document` of `verifySkillOffline`) fits as it is.
 */
export interface LineageSignature {
  /** `"1.4"` or later for lineage; older documents are refused as anchors. */
  readonly schemapin_version: string;
  /** Hash of a schema signature document (`sha256:…`). */
  readonly schema_hash?: string;
  /** Hash of a skill signature document (`sha256:…`). */
  readonly skill_hash?: string;
  /** The hash of the previous signed version (§18.1). */
  readonly previous_hash?: string;
  /** Caller-supplied version tag (§18.1). */
  readonly schema_version?: string;
}

/**
 * The result of {@linkcode verifyChain}: valid (with the current hash), or why not —
 * `no_previous_hash` and `mismatch` (the two failures of §18.3, the mismatch with both
 * values), or `legacy` (a document below 1.4 cannot chain).
 */
export type ChainCheck =
  | { readonly valid: true; readonly hash: string }
  | {
    readonly valid: false;
    /**
     * A document below 1.4 (a legacy 1.3 skill signature): its `skill_hash` and
     * `previous_hash` are not covered by its signature, so it can neither anchor nor extend a
     * chain (§4b, §18.4).
     */
    readonly reason: "legacy";
    /** Which documents are legacy: `"current"`, `"previous"` or both, in that order. */
    readonly legacy: readonly ("current" | "previous")[];
    readonly message: string;
  }
  | { readonly valid: false; readonly reason: "no_previous_hash"; readonly message: string }
  | {
    readonly valid: false;
    readonly reason: "mismatch";
    /** The previous signature's hash — what `previous_hash` should have been. */
    readonly expected: string;
    /** The `previous_hash` the current signature carries. */
    readonly observed: string;
    readonly message: string;
  };

/**
 * The hash a signature document is about: `schema_hash`, else `skill_hash`. Throws
 * `SchemaPinError` `INPUT_INVALID` when neither is a `sha256:` value.
 *
 * @example
 * ```ts
 * import { signatureHash } from "./chain.ts";
 * signatureHash({ schemapin_version: "1.4", schema_hash: "sha256:" + "a".repeat(64) });
 * ```
 */
export function signatureHash(signature: LineageSignature, what = "signature"): string {
  const h = signature.schema_hash ?? signature.skill_hash;
  if (!isSha256Ref(h)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${what} has no schema_hash or skill_hash of the form sha256:<64 hex>`,
    );
  }
  return h;
}

/**
 * §18.3 chain check — pure metadata, no cryptography: succeeds when
 * `current.previous_hash` equals the previous signature's hash. The two failures of §18.3
 * are distinct: `no_previous_hash` (absent or empty) and `mismatch` (naming both hashes).
 * Before either, a document whose `schemapin_version` is below 1.4 on either side fails
 * with `legacy`: §4b says verifiers "MUST NOT anchor lineage (Section 18)" on legacy
 * documents and §18.4 that a legacy 1.3 document "MUST be refused as a lineage anchor",
 * because its `skill_hash` and `previous_hash` are not covered by its signature — a chain
 * through one would rest on unsigned values. Both signatures must have been verified
 * independently first; otherwise the check means nothing.
 *
 * @example Check that release 2 names release 1 as its predecessor
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { signSchemaDocument } from "jsr:@schemapin/schemapin/schema";
 * import { verifyChain } from "jsr:@schemapin/schemapin/pins";
 *
 * const key = generateKeyPair();
 * const v1 = signSchemaDocument({ name: "calc", description: "v1" }, key, {
 *   schemaVersion: "1.0.0",
 * });
 * const v2 = signSchemaDocument({ name: "calc", description: "v2" }, key, {
 *   schemaVersion: "1.1.0",
 *   previousHash: v1.schema_hash,
 * });
 * // Both documents verified with verifySchemaOffline first: the chain check is metadata only.
 * const chain = verifyChain(v2, v1);
 * if (!chain.valid) console.error(chain.reason, chain.message);
 * console.log(chain.valid); // true
 * ```
 */
export function verifyChain(current: LineageSignature, previous: LineageSignature): ChainCheck {
  checkArg("verifyChain", "current", current, "object");
  checkArg("verifyChain", "previous", previous, "object");
  // §4b, §18.4: legacy documents never anchor or extend lineage, whatever their hashes say.
  const legacyDocs = ([["current", current], ["previous", previous]] as const)
    .filter(([, doc]) => !isLineageCapable(doc?.schemapin_version));
  if (legacyDocs.length > 0) {
    const legacy = legacyDocs.map(([which]) => which);
    const named = legacyDocs
      .map(([which, doc]) =>
        `the ${which} document (schemapin_version ${JSON.stringify(doc?.schemapin_version)})`
      )
      .join(" and ");
    return {
      valid: false,
      reason: "legacy",
      legacy,
      message: legacyDocs.length > 1
        ? `${named} are legacy signature documents (below 1.4): their skill_hash and ` +
          `previous_hash are not covered by their signatures, so they cannot anchor or extend ` +
          `a chain (§4b, §18.4); have the publisher re-sign with SchemaPin 1.4`
        : `${named} is a legacy signature document (below 1.4): its skill_hash and ` +
          `previous_hash are not covered by its signature, so it cannot anchor or extend a ` +
          `chain (§4b, §18.4); have the publisher re-sign with SchemaPin 1.4`,
    };
  }
  const expected = signatureHash(previous, "the previous signature");
  const observed = current.previous_hash;
  if (observed === undefined || observed === "") {
    return {
      valid: false,
      reason: "no_previous_hash",
      message: "the current signature has no previous_hash, so it does not chain to any version",
    };
  }
  if (observed !== expected) {
    return {
      valid: false,
      reason: "mismatch",
      expected,
      observed,
      message: `previous_hash mismatch: expected ${expected} (the previous signature's hash), ` +
        `found ${observed}`,
    };
  }
  return { valid: true, hash: signatureHash(current, "the current signature") };
}

/**
 * Parses a version tag as `major.minor.patch` numbers (one to three numeric components,
 * missing ones count as 0; a `-pre` or `+build` suffix is ignored). `undefined` otherwise.
 *
 * @example
 * ```ts
 * import { parseNumericVersion } from "./chain.ts";
 * parseNumericVersion("2.10.0"); // [2, 10, 0]
 * parseNumericVersion("v2"); // undefined
 * ```
 */
export function parseNumericVersion(tag: string): [number, number, number] | undefined {
  const m = /^(\d{1,9})(?:\.(\d{1,9}))?(?:\.(\d{1,9}))?(?:[-+][0-9A-Za-z.+-]*)?$/.exec(tag);
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

/**
 * Compares two version tags numerically: negative, zero or positive; `undefined` when either
 * does not parse (see {@linkcode parseNumericVersion}).
 *
 * @example
 * ```ts
 * import { compareVersions } from "./chain.ts";
 * compareVersions("1.10.0", "1.9.9")! > 0; // true (not a string comparison)
 * ```
 */
export function compareVersions(a: string, b: string): number | undefined {
  checkArg("compareVersions", "a", a, "string");
  checkArg("compareVersions", "b", b, "string");
  const pa = parseNumericVersion(a);
  const pb = parseNumericVersion(b);
  if (!pa || !pb) return undefined;
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/**
 * True for a `schemapin_version` of 1.4 or later: one whose hashes its signature covers, so it
 * can anchor or extend a lineage (§4b, §18.4).
 *
 * @example
 * ```ts
 * import { isLineageCapable } from "./chain.ts";
 * isLineageCapable("1.4"); // true
 * isLineageCapable("1.3"); // false
 * ```
 */
export function isLineageCapable(version: unknown): boolean {
  if (typeof version !== "string") return false;
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const major = Number(m[1]);
  return major > 1 || (major === 1 && Number(m[2]) >= 4);
}
