/**
 * The CLI side of `--require-skill-signature` (docs/contractpin-skills.md, "Signed skills"),
 * shared by `contract init`, `contract approve` and `contract verify`: its flag, the trust flags
 * it takes (verify-schema's key sources, as `--require-signed-lock` takes them:
 * LOCK_TRUST_FLAGS of cli/commands/lock_signature.ts; with both, they share `--domain` and the key
 * source), the plan checked before anything is read, and the verifier loaded from it
 * (`loadTrustedVerifier`, lib/trust/verify.ts) as the library's check
 * (lib/contractpin/skills_signature.ts).
 *
 * @module
 */
import { booleanFlag, type FlagTable } from "../args/flags.ts";
import {
  type SkillSignatureCheck,
  skillSignatureCheck,
} from "../../lib/contractpin/skills_signature.ts";
import type { LockSignaturePlan } from "../contractpin/lock_signature_check.ts";
import type { LoadedTrust } from "../../lib/trust/load.ts";
import type { TrustOptionValues } from "../trust/plan.ts";
import { loadTrustedVerifier } from "../../lib/trust/verify.ts";
import { describeVerifyWarning } from "../schema/verify_notes.ts";
import { type CliIO, UsageError } from "./command.ts";
import { LOCK_TRUST_FLAGS, planLockSignature } from "./lock_signature.ts";
import {
  checkTrustFlags,
  confirmFirstUseWith,
  reportInputFailure,
  requireDomainFlag,
  type TrustPlan,
} from "./schema_inputs.ts";
import { verifierOptions } from "./verifier_options.ts";

const FLAG = "--require-skill-signature";

/** `--require-skill-signature` of `contract init` and `contract approve`. */
export const PIN_SKILL_SIGNATURE_FLAGS = {
  "require-skill-signature": booleanFlag(
    "every skill pinned must carry a valid SchemaPin signature by the key of --domain, " +
      "verified before anything is written; the lock records each check (see Skill signatures)",
  ),
} as const satisfies FlagTable;

/** `--require-skill-signature` of `contract verify`. */
export const VERIFY_SKILL_SIGNATURE_FLAGS = {
  "require-skill-signature": booleanFlag(
    "every skill served must carry a valid SchemaPin signature by the key of --domain, " +
      "verified afresh (see Skill signatures)",
  ),
} as const satisfies FlagTable;

/** The trust flags of `contract init` and `contract approve` (those of a lock signature). */
export const SKILL_TRUST_FLAGS = {
  ...LOCK_TRUST_FLAGS,
  domain: {
    ...LOCK_TRUST_FLAGS.domain,
    help: "the publisher's domain (RFC 1123 host name): its key must have signed every skill " +
      "(required with --require-skill-signature; the pin key SKILL_NAME@DOMAIN)",
  },
} as const satisfies FlagTable;

/** The help section on skill signatures of `schemapin contract --help`. */
export const SKILL_SIGNATURE_HELP =
  `Skill signatures (contract init, approve and verify --require-skill-signature): every skill
served over MCP must carry a valid SchemaPin signature (its .schemapin.sig, or its entry's
_meta) by the key of --domain D, found as verify-skill finds it (the key source options of
Signed locks; with --require-signed-lock they share --domain and the key source). init and
approve verify each skill they pin before anything is written (one that is unsigned, invalid,
signed for other bytes or dynamic: exit 1, nothing written) and record the check in its lock
item; verify checks every skill served afresh (exit 1 for any that fails). Without
--require-skill-signature or --require-signed-lock these options are refused. See
docs/contractpin-skills.md "Signed skills".`;

/** The flag values a skill signature plan reads. */
type SkillTrustValues = TrustOptionValues & {
  domain?: string;
  "allow-expired"?: boolean;
  "require-skill-signature"?: boolean;
  "allow-dynamic-skills"?: boolean;
};

/** `values` without the trust flags (so a lock-signature plan checks only its own). */
function withoutTrust<V extends object>(values: V): V {
  const out = { ...values } as Record<string, unknown>;
  for (const k of Object.keys(LOCK_TRUST_FLAGS)) delete out[k];
  return out as V;
}

/** The first trust flag given, if any. */
function givenTrustFlag(values: object): string | undefined {
  const v = values as Record<string, unknown>;
  return Object.keys(LOCK_TRUST_FLAGS).find((k) => v[k] !== undefined);
}

/** `--domain` and a key source of `--require-skill-signature`, as a plan. */
function requiredPlan(command: string, values: SkillTrustValues, args: readonly string[]) {
  if (values["allow-dynamic-skills"] === true) {
    throw new UsageError(
      `${command}: --allow-dynamic-skills contradicts ${FLAG}: a dynamic skill has no bytes ` +
        "a signature could cover",
    );
  }
  if (values.domain === undefined) {
    throw new UsageError(`${command}: ${FLAG} needs --domain D and a key source`);
  }
  const domain = requireDomainFlag(command, values.domain);
  // An MCP `--timeout` of the command is not a network deadline: it stays out of the plan.
  return checkTrustFlags(command, { ...values, timeout: undefined }, domain, args);
}

/**
 * The plan of `--require-skill-signature` of `contract init` or `contract approve`, checked
 * without reading anything: `--domain` and a key source when it is given (and not with
 * `--allow-dynamic-skills`); without it every trust flag is a usage error.
 *
 * @example
 * ```ts ignore
 * const plan = planSkillSignature("contract init", values, args); // undefined without the flag
 * ```
 */
export function planSkillSignature(
  command: string,
  values: SkillTrustValues,
  args: readonly string[],
): TrustPlan | undefined {
  if (values["require-skill-signature"] !== true) {
    const given = givenTrustFlag(values);
    if (given !== undefined) throw new UsageError(`${command}: --${given} goes with ${FLAG}`);
    return undefined;
  }
  return requiredPlan(command, values, args);
}

/**
 * The plans of `contract verify`'s two signature checks: the lock's (`--require-signed-lock`,
 * `planLockSignature`) and the skills' (`--require-skill-signature`), which share `--domain`
 * and the key source when both are given. A trust flag without either is a usage error naming
 * both.
 *
 * @example
 * ```ts ignore
 * const { lock, skills } = planVerifySignatures("contract verify", values, args, lockPath);
 * ```
 */
export function planVerifySignatures(
  command: string,
  values: SkillTrustValues & { "require-signed-lock"?: boolean; signature?: string },
  args: readonly string[],
  lockPath: string,
): { lock: LockSignaturePlan<TrustPlan>; skills?: TrustPlan } {
  const signedLock = values["require-signed-lock"] === true;
  const skills = values["require-skill-signature"] === true;
  if (!signedLock && !skills) {
    const given = givenTrustFlag(values);
    if (given !== undefined) {
      throw new UsageError(`${command}: --${given} goes with --require-signed-lock or ${FLAG}`);
    }
  }
  if (signedLock) {
    const lock = planLockSignature(command, "--require-signed-lock", true, values, args, lockPath);
    return { lock, ...(skills ? { skills: lock.plan } : {}) };
  }
  // Without a signed lock its own option (--signature) is still refused.
  const lock = planLockSignature(
    command,
    "--require-signed-lock",
    false,
    withoutTrust(values),
    args,
    lockPath,
  );
  return { lock, ...(skills ? { skills: requiredPlan(command, values, args) } : {}) };
}

/**
 * Loads the verifier of `plan` (its local trust files first, then the network) and returns the
 * library's check of skill signatures with it, or the exit code of a trust input that could
 * not be used (reported: a bad local file is exit 2, a network document that failed exit 1).
 * `ask` asks about a first-use key (a terminal); `loaded` shares the trust already loaded for
 * the lock's signature.
 *
 * @example
 * ```ts ignore
 * const check = await loadSkillSignatureCheck(plan, values, io, { json: false });
 * if (typeof check === "number") return check;
 * ```
 */
export async function loadSkillSignatureCheck(
  plan: TrustPlan,
  values: SkillTrustValues,
  io: CliIO,
  options: {
    json: boolean;
    ask?: (question: string) => Promise<string | undefined>;
    loaded?: LoadedTrust;
  },
): Promise<SkillSignatureCheck | number> {
  let verifier;
  try {
    verifier = await loadTrustedVerifier({
      ...verifierOptions(plan, values, io),
      ...(options.loaded ? { loaded: options.loaded } : {}),
    });
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return await reportInputFailure(e, options.json, io);
  }
  return skillSignatureCheck({
    domain: plan.domain,
    verifier: () => verifier,
    describeWarning: describeVerifyWarning,
    ...(options.ask ? { confirmFirstUse: confirmFirstUseWith(options.ask) } : {}),
  });
}
