/**
 * Verification with the trust of a plan: what `verify-schema` (one schema or a batch) and
 * `verify-skill` run. {@linkcode loadTrustedVerifier} loads the trust inputs and the DNS TXT
 * record of a {@linkcode TrustPlan} once (lib/trust/load.ts: every local input is read before
 * the first request, and one that cannot be used throws before anything is verified); the
 * {@linkcode TrustedVerifier} it returns then runs the flow (§15.1) of a schema, a batch of
 * schemas, a skill folder or a skill served over MCP with everything around it: the pin store (an explicit key's pins
 * nothing and never opens the pin file), the DNS cross-check (§17) and the lineage check
 * (§18.4) before any pin is written, lineage moved forward once the verification passed, and
 * the result finished with where its trust came from.
 *
 * @module
 */
import type { DnsCrossCheck } from "../dns/check.ts";
import type { LineageStore } from "../pins/lineage.ts";
import type { FirstUseInfo, OfflineFlowOptions } from "../schema/flow.ts";
import type { VerifySchemaBatchOptions } from "../schema/batch.ts";
import type { LineageReport, LineageResultFields } from "../schema/lineage_verify.ts";
import { type SchemaVerificationResult, verifySchemaOfflineWithHook } from "../schema/verify.ts";
import type { SkillVerificationResult, VerifySkillOfflineOptions } from "../skill/verify.ts";
import type { CheckedSkill } from "../skill/served_check.ts";
import type { ServedSkillEntry } from "../skill/served_entry.ts";
import type { ServedSkillFields } from "../skill/served_verify.ts";
import {
  type LoadedTrust,
  loadTrustAndDnsHook,
  type TrustEnv,
  trustFlowOptions,
  type TrustInputs,
  type TrustPlan,
  withTrustInputs,
} from "./load.ts";

/** Inputs of {@linkcode loadTrustedVerifier}: the trust and what every verification shares. */
export interface TrustedVerifierOptions {
  /** The key sources, checked (the CLI builds the plan from its flags). */
  readonly plan: TrustPlan;
  /** What the plan is read with. */
  readonly env: TrustEnv;
  /** The pin file (default: `defaultPinStorePath()`); not opened with an explicit key. */
  readonly pinStore?: string;
  /** Enforce lineage (§18.4) with this store. */
  readonly lineage?: LineageStore;
  /** Pin an unknown key without asking. */
  readonly trustFirstUse?: boolean;
  /** Accept an expired signature, with a warning. */
  readonly allowExpired?: boolean;
  /**
   * The trust inputs of `plan` already loaded (`loadTrustAndDnsHook`): a caller that checks a
   * lock's signature with the same plan shares one load, so both judge the same documents.
   */
  readonly loaded?: LoadedTrust;
}

/** What a verification with trust adds to its result. */
export interface TrustedResultFields {
  /** The DNS TXT cross-check (§17), when the plan asks for it. */
  dns?: DnsCrossCheck;
  /** Where the discovery document came from. */
  discoverySource?: string;
  /** What lineage decided, when lineage is enforced. */
  lineage?: LineageReport;
}

/** A schema verified with trust. */
export type TrustedSchemaResult = SchemaVerificationResult & TrustedResultFields;

/** A skill folder verified with trust. */
export type TrustedSkillResult = SkillVerificationResult & TrustedResultFields;

/** Asks about a first-use key (a terminal); without it, first use needs `trustFirstUse`. */
export type ConfirmFirstUse = (info: FirstUseInfo) => Promise<boolean>;

/** One schema to verify with {@linkcode TrustedVerifier.verifySchema}. */
export interface TrustedSchemaInput {
  /** The tool schema (a parsed JSON value). */
  readonly schema: unknown;
  /** A bare Base64 signature or a parsed 1.4 schema signature document. */
  readonly signature: string | Record<string, unknown>;
  /** The tool id; the pin is `toolId@domain`. */
  readonly toolId: string;
  /** The name of the signature, for messages. */
  readonly signatureSource?: string;
  /** Asks about a first-use key. */
  readonly confirmFirstUse?: ConfirmFirstUse;
}

/** A batch to verify with {@linkcode TrustedVerifier.verifySchemaBatch}. */
export type TrustedBatchInput =
  & Omit<
    VerifySchemaBatchOptions,
    "flow" | "beforePin" | "pinStore" | "lineage" | "batchPins" | "finish"
  >
  & {
    /** Asks about a first-use key. */
    readonly confirmFirstUse?: ConfirmFirstUse;
  };

/** A skill folder to verify with {@linkcode TrustedVerifier.verifySkill}. */
export type TrustedSkillInput = Omit<VerifySkillOfflineOptions, keyof OfflineFlowOptions> & {
  /** The name of the signature file given instead of the folder's own, for messages. */
  readonly signatureSource?: string;
  /** Asks about a first-use key. */
  readonly confirmFirstUse?: ConfirmFirstUse;
};

/**
 * A skill fetched over MCP and checked against its listing (`fetchServedSkills`,
 * lib/skill/served_fetch.ts), to verify with {@linkcode TrustedVerifier.verifyServedSkill}.
 */
export interface TrustedServedSkillInput {
  /** The skill as fetched: its entry, its checked files, the signature it carries. */
  readonly skill: CheckedSkill & { readonly entry: ServedSkillEntry };
  /** Pin under this tool id instead of the document's `skill_name`. */
  readonly toolId?: string;
  /** Asks about a first-use key. */
  readonly confirmFirstUse?: ConfirmFirstUse;
}

/** A skill served over MCP verified with trust. */
export type TrustedServedSkillResult = TrustedSkillResult & ServedSkillFields;

/** Verifies schemas and skill folders with the trust loaded by {@linkcode loadTrustedVerifier}. */
export interface TrustedVerifier {
  /** The trust inputs (`explicitKey` is set for an explicit public key). */
  readonly trust: TrustInputs;
  /** Verifies one schema. */
  verifySchema(input: TrustedSchemaInput): Promise<TrustedSchemaResult>;
  /** Verifies a batch of schemas (lib/schema/batch.ts); the results go to `onResults`. */
  verifySchemaBatch(input: TrustedBatchInput): Promise<void>;
  /** Verifies a skill folder (§4b). */
  verifySkill(input: TrustedSkillInput): Promise<TrustedSkillResult>;
  /**
   * Verifies a skill served over MCP (§4b over the fetched bytes): a contradiction between its
   * listing and its bytes, or no signature, fails before any key is looked at; otherwise
   * exactly {@linkcode TrustedVerifier.verifySkill} over its files and the signature it
   * carries (lib/skill/served_verify.ts).
   */
  verifyServedSkill(input: TrustedServedSkillInput): Promise<TrustedServedSkillResult>;
}

/**
 * Loads the trust inputs of `options.plan` and, when it asks for DNS, the TXT record
 * (`loadTrustAndDnsHook`, lib/trust/load.ts), and returns the verifier of schemas, batches
 * and skill folders with that trust. Verification results report failures; the verifier
 * throws only what the flows throw (a skill folder that cannot be hashed safely).
 *
 * @throws {SchemaPinError} when a trust input cannot be used: a local file (naming it), or a
 *   document fetched from the network (`details.remote`).
 *
 * @example
 * ```ts ignore
 * import { loadTrustedVerifier } from "./verify.ts";
 * const verifier = await loadTrustedVerifier({
 *   plan: { domain: "example.com", discovery: "schemapin.json", chain: [] },
 *   env: { read: (p) => Deno.readFile(p) },
 *   trustFirstUse: true,
 * });
 * const result = await verifier.verifySchema({ schema, signature, toolId: "calculate_sum" });
 * ```
 */
export async function loadTrustedVerifier(
  options: TrustedVerifierOptions,
): Promise<TrustedVerifier> {
  const { plan, lineage } = options;
  const { trust, dnsHook } = options.loaded ?? await loadTrustAndDnsHook(plan, options.env);
  // An explicit key is the anchor: nothing is pinned, the pin file is not opened.
  const base = trustFlowOptions(plan.domain, trust, {
    ...options,
    allowMissingRevocation: plan.allowMissingRevocation,
  });
  const { pinStore } = base;
  const flow = (confirmFirstUse: ConfirmFirstUse | undefined, signature?: string) => ({
    ...base,
    confirmFirstUse,
    sources: { ...base.sources, signature },
  });
  // Lineage is checked before any pin is written and moved forward once verification passed
  // (its code is loaded only when lineage is enforced: start-up, issue 36).
  const lineageFlow = lineage ? await import("../schema/lineage_verify.ts") : undefined;
  const hook = lineage && lineageFlow
    ? lineageFlow.lineageBeforePinHook(lineage, dnsHook)
    : dnsHook;
  const finish = async <R extends LineageResultFields>(result: R): Promise<R> =>
    withTrustInputs(
      lineage && lineageFlow ? await lineageFlow.advanceLineage(lineage, result) : result,
      trust,
    );
  const verifySkill: TrustedVerifier["verifySkill"] = async (
    { confirmFirstUse, signatureSource, ...input },
  ) =>
    await finish(
      await (await import("../skill/verify.ts")).verifySkillOfflineWithHook(
        { ...flow(confirmFirstUse, signatureSource), ...input },
        hook,
      ),
    );
  return {
    trust,
    verifySchema: async ({ confirmFirstUse, signatureSource, ...input }) =>
      await finish(
        await verifySchemaOfflineWithHook(
          { ...flow(confirmFirstUse, signatureSource), ...input },
          hook,
        ),
      ),
    // A batch's code (reading ahead, worker threads, signing's twin) is loaded only for a batch.
    verifySchemaBatch: async ({ confirmFirstUse, ...input }) =>
      await (await import("../schema/batch.ts")).verifySchemaBatch({
        ...input,
        flow: flow(confirmFirstUse),
        ...(dnsHook ? { beforePin: dnsHook } : {}),
        // The batch checks lineage against one snapshot and writes its advances together.
        ...(lineage ? { lineage } : {}),
        pinStore,
        batchPins: trust.explicitKey === undefined,
        finish: (result) => void withTrustInputs(result, trust),
      }),
    // The skill flow is loaded only when a skill is verified: its folder walk and hashing
    // load node: modules a schema verification does not need (start-up, issue 14).
    verifySkill,
    verifyServedSkill: async ({ skill, toolId, confirmFirstUse }) =>
      await (await import("../skill/served_verify.ts")).verifyCheckedSkill(
        skill,
        toolId,
        (served) =>
          verifySkill({
            files: served.files,
            signature: served.signature,
            toolId,
            confirmFirstUse,
            signatureSource: served.signatureName,
          }),
      ),
  };
}
