/**
 * Skills served over MCP whose SchemaPin signature is required (docs/contractpin-skills.md,
 * "Signed skills"): every fetched skill's signature (§4b, over the bytes fetched) verified with
 * the trust of a plan (`TrustedVerifier.verifyServedSkill`, lib/trust/verify.ts: pins,
 * discovery, revocation, expiry, DNS as for `verify-skill`), one outcome per skill; the lines
 * that refuse a pin; the `signature` record a lock item keeps of a check that passed; and the
 * per-skill report, findings and human lines of `contract verify`.
 *
 * A dynamic skill (no `resources`) has no bytes a signature could cover: it always fails.
 * Verifications run one at a time, so first-use prompts and pin writes never interleave.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";
import type { FetchedSkill, ServedSkills } from "../skill/served_fetch.ts";
import type { ConfirmFirstUse, TrustedVerifier } from "../trust/verify.ts";
import type { LockSkill, LockSkills } from "./skills_lock.ts";
import type { ContractLock } from "./lock.ts";
import type { SkillsReport } from "./skills_verify.ts";
import { describeVerifyWarning } from "../schema/verify_notes.ts";

/** How the signature of one skill fared. */
export interface SkillSignatureOutcome {
  /** The skill's `SKILL.md` URI. */
  readonly uri: string;
  /** The signature verified. */
  readonly valid: boolean;
  /** The domain whose key had to sign it. */
  readonly domain: string;
  /** The fingerprint of the key that signed it (`sha256:…`), when it verified. */
  readonly keyFingerprint?: string;
  /** The SchemaPin error code, when it did not. */
  readonly errorCode?: string;
  /** Why it did not, for people. */
  readonly errorMessage?: string;
  /** The warnings of a signature that verified (an expired one accepted …), for people. */
  readonly warnings?: readonly string[];
}

/** Verifies the signatures of fetched skills for one domain ({@linkcode skillSignatureCheck}). */
export interface SkillSignatureCheck {
  /** The domain whose key must have signed every skill. */
  readonly domain: string;
  /** Verifies one fetched skill's signature over its bytes. */
  verify(skill: FetchedSkill): Promise<SkillSignatureOutcome>;
}

/** Inputs of {@linkcode skillSignatureCheck}. */
export interface SkillSignatureCheckOptions {
  /** The domain of the trust plan. */
  readonly domain: string;
  /**
   * The verifier (`loadTrustedVerifier`, lib/trust/verify.ts), asked for when the first skill
   * is verified: a caller may load it after the check is handed over, before any server is
   * contacted.
   */
  readonly verifier: () => Pick<TrustedVerifier, "verifyServedSkill">;
  /** Asks about a first-use key (a terminal); without it, first use needs trust-first-use. */
  readonly confirmFirstUse?: ConfirmFirstUse;
  /**
   * Words a warning code of an accepted verification (default: `describeVerifyWarning` of
   * lib/schema/verify_notes.ts, which names the verifier's options); a CLI names its flags.
   */
  readonly describeWarning?: (code: string, unprotectedFields?: readonly string[]) => string;
}

/**
 * The {@linkcode SkillSignatureCheck} of a verifier: each skill verified as `verify-skill`
 * verifies one served over MCP (pinned under the document's `skill_name`), one at a time; a
 * dynamic skill fails without a key being looked at.
 *
 * @example
 * ```ts ignore
 * import { skillSignatureCheck } from "./skills_signature.ts";
 * const verifier = await loadTrustedVerifier({ plan, env, trustFirstUse: true });
 * const check = skillSignatureCheck({ domain: plan.domain, verifier: () => verifier });
 * const outcome = await check.verify(fetched);
 * if (!outcome.valid) console.error(outcome.errorCode, outcome.errorMessage);
 * ```
 */
export function skillSignatureCheck(options: SkillSignatureCheckOptions): SkillSignatureCheck {
  checkArg("skillSignatureCheck", "options", options, "object");
  checkArg("skillSignatureCheck", "options.domain", options.domain, "string");
  const { domain, confirmFirstUse } = options;
  const describeWarning = options.describeWarning ??
    ((code: string, fields?: readonly string[]) => describeVerifyWarning(code, fields));
  let queue: Promise<unknown> = Promise.resolve();
  const one = async (skill: FetchedSkill): Promise<SkillSignatureOutcome> => {
    const uri = skill.entry.uri;
    if (skill.pinned.resources === undefined) {
      return {
        uri,
        valid: false,
        domain,
        errorCode: "SIGNATURE_INVALID",
        errorMessage: `${uri} is dynamic (it lists no resources): there are no bytes a ` +
          "signature could cover",
      };
    }
    const result = await options.verifier().verifyServedSkill({
      skill,
      ...(confirmFirstUse ? { confirmFirstUse } : {}),
    });
    if (result.valid && result.keyFingerprint !== undefined) {
      const warnings = result.warnings.map((w) => describeWarning(w, result.unprotectedFields));
      return {
        uri,
        valid: true,
        domain,
        keyFingerprint: result.keyFingerprint,
        ...(warnings.length > 0 ? { warnings } : {}),
      };
    }
    return {
      uri,
      valid: false,
      domain,
      errorCode: result.errorCode ?? "SIGNATURE_INVALID",
      errorMessage: result.errorMessage ?? "the signature did not verify",
    };
  };
  return {
    domain,
    verify: (skill) => {
      const run = queue.then(() => one(skill));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/**
 * Verifies the signature of every skill `served` holds, in order; none when it serves none.
 *
 * @example
 * ```ts ignore
 * const outcomes = await verifySkillSignatures(live.skills, check);
 * const failed = outcomes.filter((o) => !o.valid);
 * ```
 */
export async function verifySkillSignatures(
  served: ServedSkills | undefined,
  check: SkillSignatureCheck,
): Promise<SkillSignatureOutcome[]> {
  checkArg("verifySkillSignatures", "check", check, "object");
  const out: SkillSignatureOutcome[] = [];
  for (const skill of served?.skills ?? []) out.push(await check.verify(skill));
  return out;
}

/**
 * A signature that did not verify as the line that refuses it: `server S: skill URI:
 * signature: CODE message`.
 *
 * @example
 * ```ts
 * import { skillSignatureLine } from "./skills_signature.ts";
 * skillSignatureLine("s", {
 *   uri: "skill://a/SKILL.md",
 *   valid: false,
 *   domain: "example.com",
 *   errorCode: "SIGNATURE_INVALID",
 *   errorMessage: "skill://a/SKILL.md is unsigned",
 * }); // "server s: skill skill://a/SKILL.md: signature: SIGNATURE_INVALID skill://a/SKILL.md is unsigned"
 * ```
 */
export function skillSignatureLine(server: string, outcome: SkillSignatureOutcome): string {
  checkArg("skillSignatureLine", "outcome", outcome, "object");
  return `server ${server}: skill ${outcome.uri}: signature: ` +
    `${outcome.errorCode ?? "SIGNATURE_INVALID"} ${outcome.errorMessage ?? ""}`.trimEnd();
}

/**
 * The lock item of a skill whose signature verified, with the record of that check
 * (`{domain, key_fingerprint}`); the item unchanged otherwise (a failed outcome, a dynamic
 * item). The item digest does not cover the record.
 *
 * @example
 * ```ts ignore
 * const item = withSignatureRecord(lockSkillItem(fetched), outcome);
 * item.signature?.key_fingerprint;
 * ```
 */
export function withSignatureRecord(item: LockSkill, outcome: SkillSignatureOutcome): LockSkill {
  checkArg("withSignatureRecord", "item", item, "object");
  checkArg("withSignatureRecord", "outcome", outcome, "object");
  if (!outcome.valid || outcome.keyFingerprint === undefined || item.dynamic) return item;
  return {
    ...item,
    signature: { domain: outcome.domain, key_fingerprint: outcome.keyFingerprint },
  };
}

/**
 * The `skills` member with the record of each verified signature in its item (the kind and
 * item digests do not change: they do not cover the records).
 *
 * @example
 * ```ts
 * import { withSignatureRecords } from "./skills_signature.ts";
 * import { lockSkillsMember } from "./skills_lock.ts";
 * withSignatureRecords(lockSkillsMember({ form: "sep-2640", skills: [] })!, []).count; // 0
 * ```
 */
export function withSignatureRecords(
  member: LockSkills,
  outcomes: readonly SkillSignatureOutcome[],
): LockSkills {
  checkArg("withSignatureRecords", "member", member, "object");
  checkArg("withSignatureRecords", "outcomes", outcomes, "array");
  const items: Record<string, LockSkill> = Object.create(null);
  for (const [uri, item] of Object.entries(member.items)) items[uri] = item;
  for (const o of outcomes) {
    if (Object.hasOwn(items, o.uri)) items[o.uri] = withSignatureRecord(items[o.uri], o);
  }
  return { ...member, items };
}

/**
 * The lock after `contract approve` pinned skills whose signatures verified: each approved
 * skill's item (`server`, `tool` its URI) gets the record of its check. Other entries are kept
 * as they are; the inputs are not modified.
 *
 * @example
 * ```ts
 * import { withApprovedSignatures } from "./skills_signature.ts";
 * import { buildLock } from "./lock.ts";
 * withApprovedSignatures(buildLock({}), new Map()).servers; // {}
 * ```
 */
export function withApprovedSignatures(
  lock: ContractLock,
  signed: ReadonlyMap<{ readonly server: string; readonly tool: string }, SkillSignatureOutcome>,
): ContractLock {
  checkArg("withApprovedSignatures", "lock", lock, "object");
  checkArg("withApprovedSignatures", "signed", signed, "map");
  if (signed.size === 0) return lock;
  const servers: ContractLock["servers"] = Object.create(null);
  for (const [name, entry] of Object.entries(lock.servers)) servers[name] = entry;
  for (const [c, outcome] of signed) {
    const entry = Object.hasOwn(servers, c.server) ? servers[c.server] : undefined;
    if (!entry?.skills || !Object.hasOwn(entry.skills.items, c.tool)) continue;
    servers[c.server] = { ...entry, skills: withSignatureRecords(entry.skills, [outcome]) };
  }
  return { ...lock, servers };
}

/** One skill's signature in a verify report (`skills.signatures[]`). */
type SignatureJson = NonNullable<SkillsReport["signatures"]>[number];

/**
 * The `signatures` of a verify report's skills: each outcome with the record its lock item
 * keeps (`null` when it keeps none or the skill is not pinned).
 *
 * @example
 * ```ts
 * import { skillSignaturesReport } from "./skills_signature.ts";
 * skillSignaturesReport([], undefined); // []
 * ```
 */
export function skillSignaturesReport(
  outcomes: readonly SkillSignatureOutcome[],
  locked: LockSkills | undefined,
): SignatureJson[] {
  checkArg("skillSignaturesReport", "outcomes", outcomes, "array");
  const items = locked?.items ?? {};
  return outcomes.map((o) => {
    const record = Object.hasOwn(items, o.uri) ? items[o.uri].signature : undefined;
    return {
      uri: o.uri,
      valid: o.valid,
      domain: o.domain,
      key_fingerprint: o.keyFingerprint ?? null,
      error_code: o.valid ? null : o.errorCode ?? "SIGNATURE_INVALID",
      error_message: o.valid ? null : o.errorMessage ?? null,
      recorded: record ? { ...record } : null,
    };
  });
}

/** `, signed by K (the lock records K' of D')` when the record differs from the live check. */
function recordNote(s: SignatureJson): string | undefined {
  const r = s.recorded;
  if (!s.valid || !r || (r.domain === s.domain && r.key_fingerprint === s.key_fingerprint)) {
    return undefined;
  }
  return `skill ${s.uri} is signed by ${s.key_fingerprint} of ${s.domain}; the lock records ` +
    `${r.key_fingerprint} of ${r.domain} (re-pin it to record the new key)`;
}

/**
 * The findings of a verify report's skill signatures: rule `skill-unsigned` (an error) for
 * each that did not verify, a `notice` when a valid one was made by another key than the lock
 * records.
 *
 * @example
 * ```ts
 * import { skillSignatureFindings } from "./skills_signature.ts";
 * skillSignatureFindings("srv", undefined); // []
 * ```
 */
export function skillSignatureFindings(
  server: string,
  skills: SkillsReport | undefined,
): {
  rule: "skill-unsigned" | "notice";
  level: "error" | "note";
  server: string;
  tool: string;
  kind: "skill";
  message: string;
}[] {
  const out: ReturnType<typeof skillSignatureFindings> = [];
  for (const s of skills?.signatures ?? []) {
    if (!s.valid) {
      out.push({
        rule: "skill-unsigned",
        level: "error",
        server,
        tool: s.uri,
        kind: "skill",
        message: `${server}/skill ${s.uri}: signature: ${s.error_code} ${s.error_message ?? ""}`
          .trimEnd(),
      });
      continue;
    }
    const note = recordNote(s);
    if (note) {
      out.push({
        rule: "notice",
        level: "note",
        server,
        tool: s.uri,
        kind: "skill",
        message: `${server}: ${note}`,
      });
    }
  }
  return out;
}

/**
 * The lines of the human report for a server's skill signatures (indented like the other
 * changes): `  unsigned skill URI: CODE message`, and a note for a key the lock does not
 * record.
 *
 * @example
 * ```ts
 * import { skillSignatureHumanLines } from "./skills_signature.ts";
 * skillSignatureHumanLines(undefined); // []
 * ```
 */
export function skillSignatureHumanLines(skills: SkillsReport | undefined): string[] {
  const lines: string[] = [];
  for (const s of skills?.signatures ?? []) {
    if (!s.valid) {
      lines.push(`  unsigned skill ${s.uri}: ${s.error_code} ${s.error_message ?? ""}`.trimEnd());
      continue;
    }
    const note = recordNote(s);
    if (note) lines.push(`  note     ${note}`);
  }
  return lines;
}

/**
 * The notes of the signatures that verified with warnings (an expired signature accepted, fields
 * the signature does not cover): one per warning, naming the skill.
 *
 * @example
 * ```ts
 * import { skillSignatureNotices } from "./skills_signature.ts";
 * skillSignatureNotices([]); // []
 * ```
 */
export function skillSignatureNotices(
  outcomes: readonly SkillSignatureOutcome[],
): { kind: "listing"; tool: string; message: string }[] {
  return outcomes.flatMap((o) =>
    (o.valid ? o.warnings ?? [] : []).map((w) => ({
      kind: "listing" as const,
      tool: o.uri,
      message: `skill ${o.uri}: signature: ${w}`,
    }))
  );
}

/**
 * How many skill signatures of a report did not verify.
 *
 * @example
 * ```ts
 * import { unsignedSkillCount } from "./skills_signature.ts";
 * unsignedSkillCount([{}]); // 0
 * ```
 */
export function unsignedSkillCount(servers: readonly { skills?: SkillsReport }[]): number {
  return servers.reduce(
    (n, s) => n + (s.skills?.signatures ?? []).filter((x) => !x.valid).length,
    0,
  );
}
