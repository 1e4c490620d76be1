/**
 * Skills in `contract verify` (docs/contractpin-skills.md, "Verify"): the skills a server
 * serves now compared with the ones its lock entry pins — skills added and removed, and per
 * skill the files added, removed and changed and a changed frontmatter — with the listing's own
 * contradictions (a digest that lies, an unlisted file …) reported as such; the snapshot of the
 * skills' UTF-8 files and frontmatter kept beside the lock, and the line diffs drawn from it.
 *
 * Pure: values in, values out.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";
import type { JsonObject } from "../json/types.ts";
import type { FetchedSkill, ServedSkills } from "../skill/served_fetch.ts";
import { sha256Digest } from "../skill/served_check.ts";
import { unifiedDiff } from "./diff.ts";
import { prettyJson } from "./pretty.ts";
import type { SnapshotSkill } from "./snapshot.ts";
import { type LockSkill, type LockSkills, skillsKindDigest } from "./skills_lock.ts";
import { utf8Text } from "./skills_live.ts";
import type { ToolDiff } from "./verify.ts";

/** One pinned skill that changed. */
export interface DriftedSkill {
  /** The skill's `SKILL.md` URI. */
  uri: string;
  /** Item digests: pinned and served. */
  locked: string;
  /** Served now. */
  live: string;
  /** The frontmatter digest differs. */
  frontmatter_changed: boolean;
  /** Files by URI: served but not pinned, pinned but not served, served with other bytes. */
  files: { added: string[]; removed: string[]; changed: string[] };
}

/** A contradiction between a listing and its bytes, as reports carry it. */
export interface SkillContradiction {
  /** The skill's `SKILL.md` URI. */
  skill: string;
  /** The file, when the contradiction is about one. */
  file?: string;
  /** `digest`, `size`, `unreadable`, `unlisted`, `frontmatter`, `dynamic` or `limit`. */
  kind: string;
  /** What was listed and what was served. */
  message: string;
}

/** The skills part of a server report (`schemapin.contract.verify/1`, additive). */
export interface SkillsReport {
  /**
   * `checked` (pinned and served), `unchecked` (pinned, the server serves none now: a
   * failure) or `unpinned` (served, not pinned: reported, not a failure).
   */
  status: "checked" | "unchecked" | "unpinned";
  /** Forms: pinned and served (null when none). */
  form: { locked: string | null; live: string | null };
  /** Kind digests: pinned and served. */
  digest: { locked: string | null; live: string | null };
  /** Skill counts: pinned and served. */
  count: { locked: number | null; live: number | null };
  /** Pinned skills whose content changed. */
  drifted: DriftedSkill[];
  /** Served, not pinned. */
  added: string[];
  /** Pinned, not served. */
  removed: string[];
  /** Pinned and unchanged. */
  unchanged: number;
  /** Listings that contradict their own bytes: a failure. */
  contradictions: SkillContradiction[];
  /** Dynamic skills served (pinned by their frontmatter only). */
  dynamic: string[];
  /**
   * With `--require-skill-signature` only (docs/contractpin-skills.md, "Signed skills"): the
   * SchemaPin signature of every skill served, verified afresh; one that is not `valid` fails.
   * `recorded` is what the lock item records of the check made when it was pinned.
   */
  signatures?: {
    uri: string;
    valid: boolean;
    domain: string;
    key_fingerprint: string | null;
    error_code: string | null;
    error_message: string | null;
    recorded: { domain: string; key_fingerprint: string } | null;
  }[];
}

function liveDigests(served: ServedSkills): Record<string, { digest: string }> {
  const out: Record<string, { digest: string }> = Object.create(null);
  for (const s of served.skills) out[s.pinned.uri] = { digest: s.pinned.digest };
  return out;
}

function fileDigests(item: { resources?: readonly { uri: string; digest: string }[] }) {
  return new Map((item.resources ?? []).map((r) => [r.uri, r.digest]));
}

function compareItem(uri: string, locked: LockSkill, live: FetchedSkill): DriftedSkill {
  const before = fileDigests(locked), after = fileDigests(live.pinned);
  const added = [...after.keys()].filter((u) => !before.has(u)).sort();
  const removed = [...before.keys()].filter((u) => !after.has(u)).sort();
  const changed = [...after.keys()].filter((u) => before.has(u) && before.get(u) !== after.get(u))
    .sort();
  return {
    uri,
    locked: locked.digest,
    live: live.pinned.digest,
    frontmatter_changed: locked.frontmatter !== live.pinned.frontmatter,
    files: { added, removed, changed },
  };
}

/**
 * Compares the pinned skills of a lock entry with the skills served now; `undefined` when the
 * entry pins none and the server serves none.
 *
 * @example
 * ```ts
 * import { compareSkills } from "./skills_verify.ts";
 * compareSkills(undefined, { form: "none", skills: [] }); // undefined
 * compareSkills(undefined, { form: "sep-2640", skills: [] })?.status; // "unpinned"
 * ```
 */
export function compareSkills(
  locked: LockSkills | undefined,
  live: ServedSkills | undefined,
): SkillsReport | undefined {
  const served = live && live.form !== "none" ? live : undefined;
  if (!locked && !served) return undefined;
  const liveItems = served ? liveDigests(served) : undefined;
  const report: SkillsReport = {
    status: locked && served ? "checked" : locked ? "unchecked" : "unpinned",
    form: { locked: locked?.form ?? null, live: served?.form ?? null },
    digest: {
      locked: locked?.digest ?? null,
      live: liveItems ? skillsKindDigest(liveItems) : null,
    },
    count: { locked: locked?.count ?? null, live: served?.skills.length ?? null },
    drifted: [],
    added: [],
    removed: [],
    unchanged: 0,
    contradictions: [],
    dynamic: (served?.skills ?? []).filter((s) => s.pinned.resources === undefined)
      .map((s) => s.pinned.uri),
  };
  for (const s of served?.skills ?? []) {
    for (const p of s.problems) {
      if (p.kind === "dynamic") continue; // reported in `dynamic`, compared with the lock
      report.contradictions.push({
        skill: p.skill,
        ...(p.file !== undefined ? { file: p.file } : {}),
        kind: p.kind,
        message: p.message,
      });
    }
  }
  if (!locked || !served) return report;
  const byUri = new Map(served.skills.map((s) => [s.pinned.uri, s]));
  for (const uri of Object.keys(locked.items).sort()) {
    const now = byUri.get(uri);
    if (!now) report.removed.push(uri);
    else if (now.pinned.digest === locked.items[uri].digest) report.unchanged++;
    else report.drifted.push(compareItem(uri, locked.items[uri], now));
  }
  report.added = [...byUri.keys()].filter((u) => !Object.hasOwn(locked.items, u)).sort();
  return report;
}

/**
 * Whether the skills of a server pass: checked (not `unchecked`), the same form, nothing
 * drifted or removed, nothing added unless `allowNew`, no listing contradicting its bytes, and
 * (when `signatures` were checked) every signature valid.
 *
 * @example
 * ```ts
 * import { compareSkills, skillsPass } from "./skills_verify.ts";
 * skillsPass(compareSkills(undefined, { form: "sep-2640", skills: [] }), false); // true
 * ```
 */
export function skillsPass(report: SkillsReport | undefined, allowNew: boolean): boolean {
  checkArg("skillsPass", "allowNew", allowNew, "boolean");
  if (!report) return true;
  if (report.contradictions.length > 0) return false;
  // docs/contractpin-skills.md, "Signed skills": a skill whose signature did not verify fails.
  if (report.signatures?.some((s) => !s.valid)) return false;
  if (report.status === "unpinned") return true;
  if (report.status === "unchecked") return false;
  return report.form.locked === report.form.live && report.drifted.length === 0 &&
    report.removed.length === 0 && (allowNew || report.added.length === 0);
}

/**
 * The snapshot entry of the skills served: each skill's item digest, its frontmatter and the
 * text of its UTF-8 files (binary files are left out).
 *
 * @example
 * ```ts
 * import { snapshotSkills } from "./skills_verify.ts";
 * snapshotSkills({ form: "sep-2640", skills: [] }); // {}
 * ```
 */
export function snapshotSkills(served: ServedSkills): Record<string, SnapshotSkill> {
  const out: Record<string, SnapshotSkill> = Object.create(null);
  for (const s of served.skills) {
    const files: SnapshotSkill["files"] = Object.create(null);
    for (const f of s.files) {
      const text = utf8Text(f.content);
      const uri = s.entry.resources?.find((r) => r.path === f.path)?.uri;
      if (text !== undefined && uri) files[uri] = { digest: sha256Digest(f.content), text };
    }
    out[s.pinned.uri] = { digest: s.pinned.digest, frontmatter: s.frontmatter, files };
  }
  return out;
}

/** The pinned text of a file, only when the snapshot's text hashes to the pinned digest. */
function pinnedText(
  snap: SnapshotSkill | undefined,
  uri: string,
  lockedDigest: string | undefined,
): string | undefined {
  const f = snap && Object.hasOwn(snap.files, uri) ? snap.files[uri] : undefined;
  if (!f || lockedDigest === undefined) return undefined;
  return sha256Digest(new TextEncoder().encode(f.text)) === lockedDigest ? f.text : undefined;
}

function liveText(skill: FetchedSkill, uri: string): string | undefined {
  const path = skill.entry.resources?.find((r) => r.uri === uri)?.path;
  const file = skill.files.find((f) => f.path === path);
  return file ? utf8Text(file.content) : undefined;
}

function lines(text: string | undefined): string[] {
  return text === undefined || text === "" ? [] : text.replace(/\n$/, "").split(/\r\n|\r|\n/);
}

/**
 * Line diffs of the skills that changed: for each changed file its pinned text (from the
 * snapshot, trusted only where it hashes to the lock) against the served text, an added file
 * whole, a removed one from the snapshot, and a changed frontmatter as JSON. Binary files get
 * no diff.
 *
 * @example
 * ```ts
 * import { skillDiffs } from "./skills_verify.ts";
 * skillDiffs(undefined, undefined, undefined, undefined, "srv"); // []
 * ```
 */
export function skillDiffs(
  report: SkillsReport | undefined,
  locked: LockSkills | undefined,
  live: ServedSkills | undefined,
  snapshot: Record<string, SnapshotSkill> | undefined,
  server: string,
): ToolDiff[] {
  if (!report || !locked || !live) return [];
  const out: ToolDiff[] = [];
  const byUri = new Map(live.skills.map((s) => [s.pinned.uri, s]));
  const diff = (
    uri: string,
    change: ToolDiff["change"],
    before: string | undefined,
    after: string | undefined,
    pinnedAsDigest = false,
  ) => {
    if (before === undefined && after === undefined) return;
    out.push({
      tool: uri,
      kind: "skill",
      change,
      text: unifiedDiff(
        lines(before),
        lines(after),
        `locked/${server}/${uri}` + (pinnedAsDigest ? " (pinned as a digest)" : ""),
        `live/${server}/${uri}`,
      ),
    });
  };
  for (const d of report.drifted) {
    const skill = byUri.get(d.uri)!;
    const item = locked.items[d.uri];
    const snap = snapshot && Object.hasOwn(snapshot, d.uri) ? snapshot[d.uri] : undefined;
    const pinned = fileDigests(item);
    if (d.frontmatter_changed) {
      const before = snap ? prettyJson(snap.frontmatter as JsonObject) : undefined;
      diff(`${d.uri} frontmatter`, "drifted", before, prettyJson(skill.frontmatter), !before);
    }
    for (const uri of d.files.changed) {
      const before = pinnedText(snap, uri, pinned.get(uri));
      const after = liveText(skill, uri);
      if (after !== undefined) diff(uri, "drifted", before ?? "", after, before === undefined);
    }
    for (const uri of d.files.added) diff(uri, "added", undefined, liveText(skill, uri));
    for (const uri of d.files.removed) {
      diff(uri, "removed", pinnedText(snap, uri, pinned.get(uri)), undefined);
    }
  }
  for (const uri of report.added) {
    const skill = byUri.get(uri)!;
    for (const r of skill.entry.resources ?? []) {
      diff(r.uri, "added", undefined, liveText(skill, r.uri));
    }
  }
  return out;
}

/**
 * The line diffs of a pinned skill that is no longer served: each of its files whose
 * snapshot text still hashes to the pinned digest, shown removed whole (a file pinned as a
 * digest only, or a binary one, gets none).
 *
 * @example
 * ```ts
 * import { removedSkillDiffs } from "./skills_verify.ts";
 * removedSkillDiffs("skill://a/SKILL.md", { digest: "", frontmatter: "" }, undefined, "srv"); // []
 * ```
 */
export function removedSkillDiffs(
  uri: string,
  item: LockSkill,
  snapshot: Record<string, SnapshotSkill> | undefined,
  server: string,
): ToolDiff[] {
  checkArg("removedSkillDiffs", "uri", uri, "string");
  const snap = snapshot && Object.hasOwn(snapshot, uri) ? snapshot[uri] : undefined;
  const out: ToolDiff[] = [];
  for (const r of item.resources ?? []) {
    const before = pinnedText(snap, r.uri, r.digest);
    if (before === undefined) continue;
    out.push({
      tool: r.uri,
      kind: "skill",
      change: "removed",
      text: unifiedDiff(lines(before), [], `locked/${server}/${r.uri}`, `live/${server}/${r.uri}`),
    });
  }
  return out;
}

/**
 * The skill changes of a verified server that `contract approve --skill` can pin: the drifted,
 * added and removed skills of a checked server whose listing does not contradict its bytes
 * and whose form did not change (otherwise none: the server is re-pinned whole).
 *
 * @example
 * ```ts
 * import { approvableSkillChanges, compareSkills } from "./skills_verify.ts";
 * approvableSkillChanges(compareSkills(undefined, { form: "sep-2640", skills: [] })); // []
 * ```
 */
export function approvableSkillChanges(
  report: SkillsReport | undefined,
): { tool: string; change: "drifted" | "added" | "removed"; kind: "skill" }[] {
  if (!report || report.status !== "checked" || report.contradictions.length > 0) return [];
  if (report.form.locked !== report.form.live) return [];
  return [
    ...report.drifted.map((d) => ({
      tool: d.uri,
      change: "drifted" as const,
      kind: "skill" as const,
    })),
    ...report.added.map((tool) => ({ tool, change: "added" as const, kind: "skill" as const })),
    ...report.removed.map((tool) => ({ tool, change: "removed" as const, kind: "skill" as const })),
  ];
}
