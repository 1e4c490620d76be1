/**
 * Approving skills served over MCP one at a time (`contract approve --skill URI`,
 * docs/contractpin-skills.md, "Approve"): a skill that is new, changed or no longer served is
 * planned as a change with the line diffs `contract verify` prints and the hidden text of its
 * files, and an approval re-pins it from the very fetch that was shown — the lock item and the
 * snapshot entry are built from the bytes reviewed, never from a second read. A server whose
 * skills listing contradicts its own bytes is refused whole; a skill that changed between the
 * review and the write is refused with nothing written ({@linkcode recheckSkillChanges}).
 *
 * Pure: values in, values out; `approveLock` (approve_lock.ts) does the fetching and writing.
 *
 * @module
 */
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import type { ApproveTarget, PlannedChange } from "./approve_plan.ts";
import { findHiddenText, type HiddenTextFinding } from "../../lib/contractpin/hidden_text.ts";
import type { ContractLock, LockServer } from "../../lib/contractpin/lock.ts";
import type { ContractSnapshot, SnapshotSkill } from "../../lib/contractpin/snapshot.ts";
import type { ServerReport } from "../../lib/contractpin/report.ts";
import type { FetchedSkill, ServedSkills } from "../../lib/skill/served_fetch.ts";
import { sha256Digest, type SkillProblem } from "../../lib/skill/served_check.ts";
import { skillUriParts } from "../../lib/skill/served_entry.ts";
import { lockSkillItem, skillsKindDigest } from "../../lib/contractpin/skills_lock.ts";
import { skillProblemLine, utf8Text } from "../../lib/contractpin/skills_live.ts";
import {
  compareSkills,
  type DriftedSkill,
  removedSkillDiffs,
  skillDiffs,
  type SkillsReport,
  snapshotSkills,
} from "../../lib/contractpin/skills_verify.ts";

/** A planned change of one skill: a {@linkcode PlannedChange} whose `tool` is the skill's URI. */
export interface SkillChange extends PlannedChange {
  /** Always `skill`. */
  readonly kind: "skill";
  /**
   * The skill as fetched for the review (added and drifted): the diff and the hidden text were
   * drawn from it, and an approval pins exactly it.
   */
  readonly liveSkill?: FetchedSkill;
  /** The form the server serves now (`none`: it serves no skills any more). */
  readonly liveForm: ServedSkills["form"];
}

/**
 * Whether a planned change is about a skill.
 *
 * @example
 * ```ts
 * import { isSkillChange } from "./skills_approve.ts";
 * isSkillChange({
 *   server: "s", tool: "t", change: "added", locked: null, live: null, changedFields: null,
 *   diff: "", hiddenText: [],
 * }); // false
 * ```
 */
export function isSkillChange(c: PlannedChange): c is SkillChange {
  return c.kind === "skill";
}

/**
 * The `--skill URI` names as approve targets: each must be a skill's `SKILL.md` URI.
 *
 * @throws {SchemaPinError} a usage error naming the value that is not one
 *
 * @example
 * ```ts
 * import { skillTargets } from "./skills_approve.ts";
 * skillTargets(["skill://pdf/SKILL.md"]); // [{ kind: "skill", key: "skill://pdf/SKILL.md" }]
 * ```
 */
export function skillTargets(uris: readonly string[] | undefined): ApproveTarget[] {
  return (uris ?? []).map((key) => {
    const parts = key === "" ? "it is empty" : skillUriParts(key);
    if (typeof parts === "string") {
      throw usageError(`--skill needs a skill's SKILL.md URI (${JSON.stringify(key)}: ${parts})`, {
        option: "skill",
      });
    }
    return { kind: "skill" as const, key };
  });
}

/**
 * Why the skills of a verified server cannot be approved (one line each; none when they can):
 * every contradiction between its listing and its bytes (naming the skill and the file), a
 * changed form, or pinned skills that were not fetched (a dump without its skills).
 *
 * @example
 * ```ts
 * import { skillServerProblems } from "./skills_approve.ts";
 * skillServerProblems("srv", undefined, undefined); // []
 * ```
 */
export function skillServerProblems(
  server: string,
  report: ServerReport["skills"],
  live: ServedSkills | undefined,
): string[] {
  checkArg("skillServerProblems", "server", server, "string");
  if (!report) return [];
  const out = report.contradictions.map((c) =>
    skillProblemLine(server, { ...c, kind: c.kind as SkillProblem["kind"] })
  );
  if (out.length > 0) {
    out.push(
      `server ${server}: its skills listing contradicts its own bytes; nothing on it is approved`,
    );
  }
  if (report.status === "checked" && report.form.locked !== report.form.live) {
    out.push(
      `server ${server}: skills pinned in the ${report.form.locked} form are served in the ` +
        `${report.form.live} form now; re-pin it with \`schemapin contract init --force\``,
    );
  }
  if (report.status === "unchecked" && live === undefined) {
    out.push(
      `server ${server}: the lock pins ${report.count.locked} skill(s) but none were fetched ` +
        "(a dump saved without its skills); they could not be checked",
    );
  }
  return out;
}

/** `frontmatter`, `URI changed`, `URI added` … of a drifted skill. */
function changedParts(d: DriftedSkill): string[] {
  const parts = d.frontmatter_changed ? ["frontmatter"] : [];
  for (const [what, list] of Object.entries(d.files)) {
    for (const f of list) parts.push(`${f} ${what}`);
  }
  return parts;
}

/** A line for each of `uris` that is binary in `skill` (no line diff can show it). */
function binaryNotes(skill: FetchedSkill, uris: readonly string[]): string[] {
  const out: string[] = [];
  for (const uri of uris) {
    const path = skill.entry.resources?.find((r) => r.uri === uri)?.path;
    const file = skill.files.find((f) => f.path === path);
    if (!file || utf8Text(file.content) !== undefined) continue;
    out.push(`binary ${uri}: ${sha256Digest(file.content)}, ${file.content.length} bytes`);
  }
  return out;
}

/** The hidden text of every UTF-8 file of a live skill, `pointer` the file's URI. */
function skillHiddenText(skill: FetchedSkill): HiddenTextFinding[] {
  const out: HiddenTextFinding[] = [];
  for (const f of skill.files) {
    const text = utf8Text(f.content);
    const uri = skill.entry.resources?.find((r) => r.path === f.path)?.uri;
    if (text === undefined || uri === undefined) continue;
    for (const h of findHiddenText({ text })) out.push({ ...h, pointer: uri });
  }
  return out;
}

/**
 * The skill changes of one server against its lock entry, drifted first, then added, then
 * removed (URIs sorted within each): each with the line diffs `contract verify` prints, the
 * hidden text of the live files and the live skill an approval pins. A server that now serves
 * no skills at all has each pinned skill removed. None when the entry pins no skills, when
 * the skills were not fetched, or when the listing contradicts its bytes or changed its form
 * ({@linkcode skillServerProblems} says why).
 *
 * @example
 * ```ts
 * import { planSkillChanges } from "./skills_approve.ts";
 * planSkillChanges("srv", { transport: "file", path: "d.json", tool_count: 0, digest: "", tools: {} },
 *   { form: "none", skills: [] }); // []
 * ```
 */
export function planSkillChanges(
  server: string,
  locked: LockServer,
  live: ServedSkills | undefined,
  snapshot?: ContractSnapshot,
): SkillChange[] {
  checkArg("planSkillChanges", "server", server, "string");
  checkArg("planSkillChanges", "locked", locked, "object");
  const pinned = locked.skills;
  if (!pinned || !live) return [];
  const servers = snapshot?.servers;
  const snap: Record<string, SnapshotSkill> | undefined = servers && Object.hasOwn(servers, server)
    ? servers[server].skills
    : undefined;
  const base = { server, kind: "skill" as const, liveForm: live.form, hiddenText: [] };
  const removed = (uri: string): SkillChange => ({
    ...base,
    tool: uri,
    change: "removed",
    locked: pinned.items[uri].digest,
    live: null,
    changedFields: null,
    diff: joinDiffs(removedSkillDiffs(uri, pinned.items[uri], snap, server)),
  });
  if (live.form === "none") return Object.keys(pinned.items).sort().map(removed);
  const report = compareSkills(pinned, live)!;
  if (report.contradictions.length > 0 || report.form.locked !== report.form.live) return [];
  const byUri = new Map(live.skills.map((s) => [s.pinned.uri, s]));
  const only = (part: Partial<SkillsReport>): SkillsReport => ({
    ...report,
    drifted: [],
    added: [],
    ...part,
  });
  const out: SkillChange[] = [];
  for (const d of report.drifted) {
    const skill = byUri.get(d.uri)!;
    const notes = binaryNotes(skill, [...d.files.changed, ...d.files.added]);
    out.push({
      ...base,
      tool: d.uri,
      change: "drifted",
      locked: d.locked,
      live: d.live,
      changedFields: changedParts(d),
      diff: joinDiffs(skillDiffs(only({ drifted: [d] }), pinned, live, snap, server), notes),
      hiddenText: skillHiddenText(skill),
      liveSkill: skill,
    });
  }
  for (const uri of report.added) {
    const skill = byUri.get(uri)!;
    const notes = binaryNotes(skill, (skill.entry.resources ?? []).map((r) => r.uri));
    if (skill.pinned.resources === undefined) {
      notes.push(`dynamic: ${uri} lists no resources (pinned by its frontmatter only)`);
    }
    out.push({
      ...base,
      tool: uri,
      change: "added",
      locked: null,
      live: skill.pinned.digest,
      changedFields: null,
      diff: joinDiffs(skillDiffs(only({ added: [uri] }), pinned, live, snap, server), notes),
      hiddenText: skillHiddenText(skill),
      liveSkill: skill,
    });
  }
  for (const uri of report.removed) out.push(removed(uri));
  return out;
}

function joinDiffs(diffs: readonly { text: string }[], notes: readonly string[] = []): string {
  const texts = [...notes.map((n) => n + "\n"), ...diffs.map((d) => d.text)].filter((t) => t);
  return texts.join("");
}

function stale(c: SkillChange, why: string): SchemaPinError {
  return new SchemaPinError(
    "INPUT_INVALID",
    `cannot approve ${c.change} ${c.server}/skill ${c.tool}: ${why} (plan the changes again)`,
    { server: c.server, skill: c.tool },
  );
}

function nullRecord<T>(from: Readonly<Record<string, T>> | undefined): Record<string, T> {
  const out: Record<string, T> = Object.create(null);
  for (const [k, v] of Object.entries(from ?? {})) out[k] = v;
  return out;
}

/**
 * Applies approved skill changes to a lock (and its snapshot): an added or drifted skill is
 * pinned from the live skill that was reviewed (`lockSkillItem` of those bytes; the snapshot
 * keeps their text), a removed one is deleted; each touched server's skill `count` and kind
 * digest are recomputed, and its `skills` member dropped when the server serves no skills any
 * more and none is left. Everything else is kept. The inputs are not modified.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when a change no longer fits the lock (planned
 *   against another lock, approved twice), its reviewed skill is missing, or that skill
 *   contradicts its bytes or was not read whole
 *
 * @example
 * ```ts ignore
 * import { applySkillApproval } from "./skills_approve.ts";
 * const { lock, snapshot } = applySkillApproval(lock0, snapshot0, approved.filter(isSkillChange));
 * ```
 */
export function applySkillApproval(
  lock: ContractLock,
  snapshot: ContractSnapshot | undefined,
  approved: readonly SkillChange[],
): { lock: ContractLock; snapshot: ContractSnapshot | undefined } {
  checkArg("applySkillApproval", "lock", lock, "object");
  checkArg("applySkillApproval", "approved", approved, "array");
  if (approved.length === 0) return { lock, snapshot };
  const servers = nullRecord(lock.servers);
  const snapServers = snapshot ? nullRecord(snapshot.servers) : undefined;
  const touched = new Map<string, ServedSkills["form"]>();
  const seen = new Set<string>();
  for (const c of approved) {
    const key = `${c.server}\u0000${c.tool}`;
    if (seen.has(key)) throw stale(c, "approved twice");
    seen.add(key);
    const entry = Object.hasOwn(servers, c.server) ? servers[c.server] : undefined;
    if (!entry?.skills) throw stale(c, "the lock entry pins no skills");
    if (!touched.has(c.server)) {
      servers[c.server] = {
        ...entry,
        skills: { ...entry.skills, items: nullRecord(entry.skills.items) },
      };
      if (snapServers) {
        const old = Object.hasOwn(snapServers, c.server) ? snapServers[c.server] : undefined;
        snapServers[c.server] = { tools: old?.tools ?? {}, skills: nullRecord(old?.skills) };
      }
    }
    touched.set(c.server, c.liveForm);
    const items = servers[c.server].skills!.items;
    const snapSkills = snapServers?.[c.server].skills;
    const pinned = Object.hasOwn(items, c.tool) ? items[c.tool] : undefined;
    if (c.change === "added" ? pinned !== undefined : pinned?.digest !== c.locked) {
      throw stale(c, "the lock entry is not the one the change was planned against");
    }
    if (c.change === "removed") {
      delete items[c.tool];
      if (snapSkills) delete snapSkills[c.tool];
      continue;
    }
    const live = c.liveSkill;
    if (!live || live.pinned.uri !== c.tool || live.pinned.digest !== c.live) {
      throw stale(c, "the reviewed skill is missing");
    }
    if (live.problems.some((p) => p.kind !== "dynamic")) {
      throw stale(c, "the reviewed skill contradicts its own bytes");
    }
    if (live.pinned.resources !== undefined && live.pinned.skillHash === undefined) {
      throw stale(c, "not every listed file was read");
    }
    // The bytes reviewed are the bytes pinned: the item and the snapshot from the same fetch.
    items[c.tool] = lockSkillItem(live);
    if (snapSkills) {
      snapSkills[c.tool] = snapshotSkills({ form: live.entry.form, skills: [live] })[c.tool];
    }
  }
  for (const [name, form] of touched) {
    const s = servers[name];
    const k = s.skills!;
    k.count = Object.keys(k.items).length;
    k.digest = skillsKindDigest(k.items);
    if (k.count === 0 && form === "none") {
      // The server serves no skills any more and none is pinned: the kind is not pinned.
      delete s.skills;
      if (snapServers) delete snapServers[name].skills;
    }
  }
  return {
    lock: { ...lock, servers },
    snapshot: snapshot && snapServers ? { ...snapshot, servers: snapServers } : undefined,
  };
}

/**
 * The approved skill changes that cannot be written as reviewed: a dynamic skill without
 * `allowDynamic`, and — against `again`, the skills each server serves when fetched once more
 * just before writing — a skill whose digest is not the reviewed one (changed, or served again
 * after a reviewed removal), that now contradicts its bytes, or whose server could not be
 * fetched again. One problem each, naming the server and the skill; empty when all can.
 *
 * @example
 * ```ts
 * import { recheckSkillChanges } from "./skills_approve.ts";
 * recheckSkillChanges([], new Map(), false); // []
 * ```
 */
export function recheckSkillChanges(
  approved: readonly SkillChange[],
  again: ReadonlyMap<string, ServedSkills | undefined>,
  allowDynamic: boolean,
): { server: string; message: string }[] {
  checkArg("recheckSkillChanges", "approved", approved, "array");
  checkArg("recheckSkillChanges", "again", again, "map");
  checkArg("recheckSkillChanges", "allowDynamic", allowDynamic, "boolean");
  const out: { server: string; message: string }[] = [];
  const refuse = (c: SkillChange, why: string) =>
    out.push({
      server: c.server,
      message: `server ${c.server}: skill ${c.tool}${why}; nothing was written`,
    });
  for (const c of approved) {
    if (c.liveSkill && c.liveSkill.pinned.resources === undefined && !allowDynamic) {
      refuse(
        c,
        " is dynamic (it lists no resources): approve it with --allow-dynamic-skills to pin " +
          "its frontmatter only",
      );
      continue;
    }
    if (!again.has(c.server)) {
      refuse(c, ": the server could not be fetched again before writing");
      continue;
    }
    const now = again.get(c.server)?.skills.find((s) => s.pinned.uri === c.tool);
    const digest = now?.pinned.digest ?? null;
    if (digest !== c.live) {
      refuse(
        c,
        ` changed between the review and the write (reviewed ${c.live ?? "not served"}, ` +
          `served ${digest ?? "not served"} now): review it again`,
      );
    } else if (now && now.problems.some((p) => p.kind !== "dynamic")) {
      refuse(c, ": its listing contradicts its own bytes now");
    }
  }
  return out;
}

/**
 * Refuses `--skill` names that no selected server serves and the lock does not pin (when every
 * selected server could be fetched: an unreachable one might serve it).
 *
 * @throws {SchemaPinError} a usage error naming the first such URI
 *
 * @example
 * ```ts
 * import { checkSkillNames } from "./skills_approve.ts";
 * import { buildLock } from "../../lib/contractpin/lock.ts";
 * checkSkillNames([], buildLock({}), [], new Map(), "contractpin.lock"); // nothing to refuse
 * ```
 */
export function checkSkillNames(
  targets: readonly ApproveTarget[],
  lock: ContractLock,
  servers: readonly string[],
  lives: ReadonlyMap<string, ServedSkills | undefined>,
  lockPath: string,
): void {
  checkArg("checkSkillNames", "targets", targets, "array");
  if (servers.some((s) => !lives.has(s))) return;
  for (const t of targets) {
    if (t.kind !== "skill") continue;
    const known = servers.some((s) =>
      Object.hasOwn(lock.servers[s]?.skills?.items ?? {}, t.key) ||
      (lives.get(s)?.skills ?? []).some((k) => k.pinned.uri === t.key)
    );
    if (!known) {
      throw usageError(
        `--skill ${JSON.stringify(t.key)}: no selected server serves it and ${lockPath} does ` +
          "not pin it",
        { option: "skill", skill: t.key },
      );
    }
  }
}
