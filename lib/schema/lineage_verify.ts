/**
 * Lineage enforced by the verifiers (§18.4): a {@linkcode LineageStore} checked in the
 * verification flow's before-pin hook (read only, after the signature verified, before a
 * first-use pin is written) and moved forward only once the whole verification succeeded
 * ({@linkcode advanceLineage}, which decides again under the store's lock, so two verifiers
 * racing cannot both advance).
 *
 * @module
 */
import { SchemaPinError, type StepFailure } from "../errors.ts";
import type { LineageBatch, LineageOutcome, LineageStore } from "../pins/lineage.ts";
import type { LineageSignature } from "../pins/chain.ts";
import { type BeforePinHook, messageOf, type OfflineVerificationResult } from "./flow.ts";
import { checkArg, checkMethods } from "../arguments.ts";

/**
 * Where the verifiers take lineage decisions: a {@linkcode LineageStore}, or a
 * {@linkcode LineageBatch} over one (decisions against a snapshot, written by
 * {@linkcode commitLineage}).
 */
export type LineageDecider = Pick<LineageStore, "path" | "check" | "checkAndAdvance">;

/** What lineage decided for one verification, as the verifiers report it. */
export interface LineageReport {
  /** `anchored` (first sighting), `unchanged`, `advanced`, or `rejected`. */
  readonly status: "anchored" | "unchanged" | "advanced" | "rejected";
  /** The release's hash (`schema_hash` / `skill_hash`), when it has one. */
  readonly hash?: string;
  /** The latest known hash before this verification, when there was one. */
  readonly latestHash?: string;
  /**
   * Why it was rejected: `legacy` (no 1.4 document: a bare signature or a 1.3 document never
   * anchors), `missing_previous_hash`, `fork`, `rollback`, `version_not_increasing`,
   * `version_unparseable`.
   */
  readonly reason?: string;
  /** The lineage file. */
  readonly store?: string;
}

/** A verification result that lineage can look at. */
export interface LineageResultFields extends OfflineVerificationResult {
  /** The parsed, verified signature document (absent for a bare Base64 signature). */
  document?: unknown;
  /** False for a verified legacy skill document (never a lineage anchor). */
  lineageAnchor?: boolean;
  /** Filled by {@linkcode lineageBeforePinHook} and {@linkcode advanceLineage}. */
  lineage?: LineageReport;
}

/** The lineage fields of a verified document, or `undefined` when there is no 1.4 document. */
function signatureOf(result: LineageResultFields): LineageSignature | undefined {
  const doc = result.document as Partial<LineageSignature> | undefined;
  if (doc === undefined || doc === null || typeof doc !== "object") return undefined;
  if (result.lineageAnchor === false) return { ...doc, schemapin_version: "1.3" };
  return doc as LineageSignature;
}

function report(
  outcome: LineageOutcome,
  store: LineageDecider,
  hash: string | undefined,
): LineageReport {
  const where = store.path === undefined ? {} : { store: store.path };
  switch (outcome.status) {
    case "anchored":
    case "unchanged":
      return { status: outcome.status, hash: outcome.hash, ...where };
    case "advanced":
      return { status: "advanced", hash: outcome.to, latestHash: outcome.from, ...where };
    case "rejected":
      return {
        status: "rejected",
        ...(hash === undefined ? {} : { hash }),
        ...(outcome.latestHash === undefined ? {} : { latestHash: outcome.latestHash }),
        reason: outcome.reason,
        ...where,
      };
  }
}

const LEGACY: LineageOutcome = {
  status: "rejected",
  reason: "legacy",
  message: "a bare Base64 signature carries no signed schema_hash or previous_hash, so it " +
    "cannot anchor or extend a lineage (§18.4); have the publisher sign a 1.4 signature document",
};

/** The decision for `result` (read only with `advance` false). */
async function decide(
  store: LineageDecider,
  result: LineageResultFields,
  advance: boolean,
): Promise<{ outcome: LineageOutcome; hash?: string }> {
  const signature = signatureOf(result);
  if (signature === undefined) return { outcome: LEGACY };
  const hash = signature.schema_hash ?? signature.skill_hash;
  const outcome = advance
    ? await store.checkAndAdvance(result.toolId, result.domain!, signature)
    : await store.check(result.toolId, result.domain!, signature);
  return { outcome, hash };
}

function failure(outcome: LineageOutcome & { status: "rejected" }): StepFailure {
  return { errorCode: "LINEAGE_REJECTED", errorMessage: outcome.message };
}

/**
 * The before-pin hook that refuses a release lineage would refuse (read only: nothing is
 * written, so a failure later in the flow leaves the store as it was), then runs `next`.
 * Pair it with {@linkcode advanceLineage} once the verification succeeded.
 *
 * @example
 * ```ts ignore
 * const store = new LineageStore({ path: "./lineage.json" });
 * const result = await verifySchemaOfflineWithHook(options, lineageBeforePinHook(store));
 * await advanceLineage(store, result);
 * ```
 */
export function lineageBeforePinHook<R extends LineageResultFields>(
  store: LineageDecider,
  next?: BeforePinHook<R>,
): BeforePinHook<R> {
  checkMethods(
    "lineageBeforePinHook",
    "store",
    store,
    ["check", "checkAndAdvance"],
    "a LineageStore",
  );
  checkArg("lineageBeforePinHook", "next", next, "function", true);
  return async (result) => {
    const { outcome, hash } = await decide(store, result, false);
    if (outcome.status === "rejected") {
      result.lineage = report(outcome, store, hash);
      return failure(outcome);
    }
    return await next?.(result);
  };
}

/**
 * After a verification: when `result` is valid, moves the lineage of its tool forward
 * atomically (anchor, unchanged or advance, decided under the store's lock) and records the
 * decision in `result.lineage`; a rejection (another verifier advanced meanwhile, or no
 * {@linkcode lineageBeforePinHook} ran) makes `result` invalid with `LINEAGE_REJECTED`. An
 * invalid result is left alone: a failed verification never moves lineage.
 *
 * @example
 * ```ts ignore
 * await advanceLineage(new LineageStore(), result);
 * if (!result.valid) console.error(result.errorMessage);
 * ```
 */
export async function advanceLineage<R extends LineageResultFields>(
  store: LineageDecider,
  result: R,
): Promise<R> {
  if (!result.valid) return result;
  const { outcome, hash } = await decide(store, result, true);
  return applyOutcome(store, result, outcome, hash);
}

/** Records `outcome` in `result.lineage`; a rejection makes `result` invalid. */
function applyOutcome<R extends LineageResultFields>(
  store: LineageDecider,
  result: R,
  outcome: LineageOutcome,
  hash: string | undefined,
): R {
  result.lineage = report(outcome, store, hash);
  if (outcome.status === "rejected") {
    result.valid = false;
    result.errorCode = "LINEAGE_REJECTED";
    result.errorMessage = outcome.message;
  }
  return result;
}

/**
 * The end of a batch's group of verifications: writes the lineage advances of the `results`
 * that are still valid (their {@linkcode advanceLineage} ran against `batch`'s snapshot) in
 * one transaction that decides each again under the store's lock, in order, and records the
 * final decision in each result — a release another verifier moved the lineage past meanwhile
 * becomes invalid with `LINEAGE_REJECTED`. When the store cannot be written, those results
 * fail with the error's code (`IO_FAILED`, …): nothing they reported as accepted is lost.
 *
 * @example
 * ```ts ignore
 * const lineage = new LineageBatch(new LineageStore({ path: "lineage.json" }));
 * for (const item of group) results.push(await advanceLineage(lineage, await verify(item)));
 * await commitLineage(lineage, results);
 * ```
 */
export async function commitLineage<R extends LineageResultFields>(
  batch: LineageBatch,
  results: readonly (R | undefined)[],
): Promise<void> {
  const staged: { result: R; signature: LineageSignature }[] = [];
  for (const result of results) {
    if (result?.valid !== true || result.lineage === undefined) continue;
    const signature = signatureOf(result);
    if (signature !== undefined) staged.push({ result, signature });
  }
  if (staged.length === 0) return;
  let outcomes: LineageOutcome[];
  try {
    outcomes = await batch.commit(staged.map(({ result, signature }) => ({
      toolId: result.toolId,
      domain: result.domain!,
      signature,
    })));
  } catch (e) {
    for (const { result } of staged) {
      result.valid = false;
      result.errorCode = e instanceof SchemaPinError ? e.code : "IO_FAILED";
      result.errorMessage = `could not write the lineage store: ${messageOf(e)}`;
      delete result.lineage;
    }
    return;
  }
  staged.forEach(({ result, signature }, i) =>
    applyOutcome(batch, result, outcomes[i], signature.schema_hash ?? signature.skill_hash)
  );
}
