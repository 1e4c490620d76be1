/**
 * Skill signatures in the guard (docs/guard.md, "Skills served over MCP"): with skill
 * signatures required, a pinned skill whose lock item records no verified SchemaPin signature
 * (the `signature` record `contract init` and `contract approve` write when they verified it,
 * docs/contractpin-skills.md "Signed skills") is refused — its listing entries, its
 * `skills/get` answers and every read of its files — and a lock entry that pins no skills
 * pins none that could pass.
 *
 * The guard does not verify signatures live: it never holds the bytes of a whole skill. Every
 * read is already bound to the pinned bytes, whose §4b hash was verified when they were
 * pinned; the record says that check was made. Only a signed lock makes the record
 * tamper-evident, so it is trustworthy together with the lock's signature check.
 *
 * @module
 */
import type { LockSkills } from "../contractpin/lock.ts";
import { skillsKindDigest } from "../contractpin/skills_lock.ts";
import type { ToolVerdict } from "./policy.ts";

/**
 * The skills of a lock entry that pins none, judged when signatures are required: every skill
 * served is then one the lock does not pin (refused).
 *
 * @example
 * ```ts
 * import { NO_PINNED_SKILLS } from "./skills_signature.ts";
 * NO_PINNED_SKILLS.count; // 0
 * ```
 */
export const NO_PINNED_SKILLS: LockSkills = Object.freeze({
  form: "sep-2640",
  count: 0,
  digest: skillsKindDigest({}),
  items: Object.freeze({}) as LockSkills["items"],
}) as LockSkills;

/**
 * The URIs of the pinned skills whose lock item records no verified signature (every dynamic
 * skill among them: it has no bytes to sign).
 *
 * @example
 * ```ts
 * import { unrecordedSkills } from "./skills_signature.ts";
 * unrecordedSkills({ form: "sep-2640", count: 0, digest: "", items: {} }).size; // 0
 * ```
 */
export function unrecordedSkills(skills: LockSkills): Set<string> {
  return new Set(Object.keys(skills.items).filter((uri) => !skills.items[uri].signature));
}

/**
 * The verdict that refuses a pinned skill without a recorded signature (`unsigned`), for one of
 * its listing entries, its `skills/get` answer or a read of `file`.
 *
 * @example
 * ```ts
 * import { unsignedSkillVerdict } from "./skills_signature.ts";
 * unsignedSkillVerdict("skill://a/SKILL.md").problems; // ["unsigned"]
 * ```
 */
export function unsignedSkillVerdict(skill: string, file?: string, digest?: string): ToolVerdict {
  return {
    name: skill,
    kind: "skill",
    ok: false,
    problems: ["unsigned"],
    ...(file !== undefined ? { file } : {}),
    ...(digest !== undefined ? { digest } : {}),
    detail: (file !== undefined ? `file ${file}: ` : "") +
      "the lock records no verified signature for the skill",
  };
}

/**
 * What the guard says at start-up when skill signatures are required but the lock entry lets
 * no skill, or not every skill, pass: none pinned, none with a recorded signature, or some
 * without one. `undefined` when every pinned skill has a record.
 *
 * @example
 * ```ts
 * import { skillSignatureStartNote } from "./skills_signature.ts";
 * skillSignatureStartNote(undefined); // "the lock entry pins no skills: every skill …"
 * ```
 */
export function skillSignatureStartNote(skills: LockSkills | undefined): string | undefined {
  const pinned = skills ? Object.keys(skills.items).length : 0;
  if (!skills || pinned === 0) {
    return "the lock entry pins no skills: every skill the server serves is refused";
  }
  const missing = unrecordedSkills(skills).size;
  if (missing === 0) return undefined;
  if (missing === pinned) {
    return `the lock pins ${pinned} skill${pinned === 1 ? "" : "s"} and records a verified ` +
      "signature for none: every one is refused (re-pin them with their signatures verified)";
  }
  return `${missing} of the ${pinned} skills the lock pins have no recorded verified ` +
    "signature: they are refused";
}
