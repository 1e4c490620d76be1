/**
 * The skills of a verify report as findings (the rules `contractpin/skill-drifted`,
 * `skill-added`, `skill-removed`, `skill-contradiction`, `skill-unsigned`) and as the lines of
 * the human report (docs/contractpin-skills.md, "Verify"). Pure.
 *
 * @module
 */
import type { SkillsReport } from "../../lib/contractpin/skills_verify.ts";
import {
  skillSignatureFindings,
  skillSignatureHumanLines,
  unsignedSkillCount,
} from "../../lib/contractpin/skills_signature.ts";

/** A finding about skills, in the shape of report_findings.ts's `Finding`. */
export interface SkillFinding {
  /** Stable rule id. */
  readonly rule:
    | "skill-drifted"
    | "skill-added"
    | "skill-removed"
    | "skill-contradiction"
    | "skill-unsigned"
    | "kind-unpinned"
    | "notice";
  /** `error` fails the run. */
  readonly level: "error" | "warning" | "note";
  /** Server name. */
  readonly server: string;
  /** The skill's `SKILL.md` URI. */
  readonly tool?: string;
  /** Always `skill`. */
  readonly kind?: "skill";
  /** One-line message. */
  readonly message: string;
}

/** The SARIF rule texts of the skill rules. */
export const SKILL_RULES: Readonly<Record<string, string>> = {
  "skill-drifted": "A pinned skill served over MCP changed: a file's bytes, its set of files " +
    "or its frontmatter.",
  "skill-added": "A skill that is not in the lock appeared on a pinned server.",
  "skill-removed": "A pinned skill is no longer served (or the server serves no skills now).",
  "skill-contradiction": "A skill listing contradicts its own bytes (a digest or size that " +
    "lies, an unlisted or unreadable file, a frontmatter that differs from SKILL.md).",
  "skill-unsigned": "Skill signatures are required and a skill served over MCP carries no " +
    "valid SchemaPin signature by the key of the domain: unsigned, invalid, signed for other " +
    "bytes, by a revoked or expired key, or dynamic.",
};

function changeText(d: SkillsReport["drifted"][number]): string {
  const parts: string[] = [];
  if (d.frontmatter_changed) parts.push("frontmatter changed");
  for (const [what, list] of Object.entries(d.files)) {
    for (const f of list) parts.push(`${f} ${what}`);
  }
  return parts.length ? parts.join(", ") : "changed";
}

/**
 * The findings of one server's skills.
 *
 * @example
 * ```ts
 * import { skillFindings } from "./skills_report.ts";
 * skillFindings("srv", undefined, false); // []
 * ```
 */
export function skillFindings(
  server: string,
  skills: SkillsReport | undefined,
  allowNew: boolean,
): SkillFinding[] {
  if (!skills) return [];
  const out: SkillFinding[] = [];
  const base = { server, kind: "skill" as const };
  for (const c of skills.contradictions) {
    out.push({
      ...base,
      rule: "skill-contradiction",
      level: "error",
      tool: c.skill,
      message: `server ${server}: skill ${c.skill}: ` + (c.file ? `file ${c.file}: ` : "") +
        c.message,
    });
  }
  if (skills.status === "unchecked") {
    out.push({
      ...base,
      rule: "skill-removed",
      level: "error",
      message: `${server}: the lock pins ${skills.count.locked} skill(s) (${skills.form.locked}) ` +
        `but the server serves no skills now, so they could not be checked`,
    });
  }
  if (skills.status === "unpinned") {
    out.push({
      server,
      rule: "kind-unpinned",
      level: "note",
      message: `${server}: serves ${skills.count.live} skill(s) (${skills.form.live}) that the ` +
        "lock does not pin (pin with `schemapin contract init --force`)",
    });
  }
  if (skills.status === "checked" && skills.form.locked !== skills.form.live) {
    out.push({
      ...base,
      rule: "skill-drifted",
      level: "error",
      message: `${server}: skills pinned in the ${skills.form.locked} form are served in the ` +
        `${skills.form.live} form now`,
    });
  }
  for (const d of skills.drifted) {
    out.push({
      ...base,
      rule: "skill-drifted",
      level: "error",
      tool: d.uri,
      message: `${server}/skill ${d.uri} drifted: ${changeText(d)}`,
    });
  }
  for (const uri of skills.added) {
    out.push({
      ...base,
      rule: "skill-added",
      level: allowNew ? "note" : "error",
      tool: uri,
      message: `${server}/skill ${uri} was added` + (allowNew ? " (allowed by --allow-new)" : ""),
    });
  }
  for (const uri of skills.removed) {
    out.push({
      ...base,
      rule: "skill-removed",
      level: "error",
      tool: uri,
      message: `${server}/skill ${uri} was removed`,
    });
  }
  out.push(...skillSignatureFindings(server, skills)); // docs/contractpin-skills.md, "Signed skills"
  return out;
}

/**
 * The lines of the human report for one server's skills (indented like the other changes).
 *
 * @example
 * ```ts
 * import { skillHumanLines } from "./skills_report.ts";
 * skillHumanLines(undefined, false); // []
 * ```
 */
export function skillHumanLines(skills: SkillsReport | undefined, allowNew: boolean): string[] {
  if (!skills) return [];
  const lines: string[] = [];
  for (const c of skills.contradictions) {
    lines.push(
      `  contradiction  skill ${c.skill}: ` + (c.file ? `file ${c.file}: ` : "") + c.message,
    );
  }
  if (skills.status === "unchecked") {
    lines.push(
      `  not checked: ${skills.count.locked} pinned skill(s) (the server serves no skills now)`,
    );
  }
  if (skills.status === "unpinned") {
    lines.push(
      `  not pinned: ${skills.count.live} skill(s) (served; re-run \`schemapin contract init ` +
        "--force` to pin)",
    );
  }
  if (skills.status === "checked" && skills.form.locked !== skills.form.live) {
    lines.push(`  drifted  skills form: pinned ${skills.form.locked}, served ${skills.form.live}`);
  }
  for (const d of skills.drifted) lines.push(`  drifted  skill ${d.uri}: ${changeText(d)}`);
  for (const uri of skills.added) {
    lines.push(`  added    skill ${uri}` + (allowNew ? " (allowed by --allow-new)" : ""));
  }
  for (const uri of skills.removed) lines.push(`  removed  skill ${uri}`);
  for (const uri of skills.dynamic) {
    lines.push(`  note     skill ${uri} is dynamic: pinned by its frontmatter only`);
  }
  lines.push(...skillSignatureHumanLines(skills));
  return lines;
}

/**
 * `; 1 drifted, 0 added, 0 removed skills` for the last line of the human report (with the
 * contradictions when there are some) — "" when no server pins or serves skills, so reports
 * without skills read exactly as before.
 *
 * @example
 * ```ts
 * import { skillsSummary } from "./skills_report.ts";
 * skillsSummary([{}]); // ""
 * ```
 */
export function skillsSummary(servers: readonly { skills?: SkillsReport }[]): string {
  const reports = servers.flatMap((s) => s.skills ? [s.skills] : []);
  if (reports.length === 0) return "";
  const sum = (f: (r: SkillsReport) => number) => reports.reduce((n, r) => n + f(r), 0);
  const contradictions = sum((r) => r.contradictions.length);
  const unsigned = unsignedSkillCount(servers);
  return `; ${sum((r) => r.drifted.length)} drifted, ${sum((r) => r.added.length)} added, ` +
    `${sum((r) => r.removed.length)} removed skills` +
    (contradictions ? `, ${contradictions} listing contradiction(s)` : "") +
    (unsigned ? `, ${unsigned} without a valid signature` : "");
}
