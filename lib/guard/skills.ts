/**
 * The guard's checks of skills served over MCP (issue 35; docs/guard.md, "Skills served over
 * MCP"), against the `skills` member of the lock entry: transport-free judgements of the answers to
 *
 * - `skills/list` (page by page; a complete list tells removed skills at its last page) and
 *   `skills/get`: each SEP-2640 entry must be the pinned one — same frontmatter digest, same
 *   files with the same digests (and sizes, when listed), or the same dynamic skill;
 * - `resources/read` of a file of a pinned skill: the bytes must be the pinned file's
 *   (`checkPinnedSkillRead`); a file the pinned skill does not hold is refused; FastMCP's
 *   `skill://NAME/_manifest` must list exactly the pinned files; a read of a skill no pin
 *   covers (a `skill://` URI, or one ending in `/SKILL.md`) is an unpinned skill;
 * - `resources/directory/read` under a pinned skill root: every child must be a pinned file of
 *   the skill, or a folder holding one.
 *
 * The decisions (modes, messages, the log) stay in `core.ts`, as for the other kinds.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { canonicalizeJcsBytes } from "../json/canonical_jcs.ts";
import type { LockSkills } from "../contractpin/lock.ts";
import { findHiddenText } from "../contractpin/hidden_text.ts";
import { SchemaPinError } from "../errors.ts";
import {
  parseFastMcpManifest,
  parseSkillEntry,
  type ServedSkillEntry,
  skillUriParts,
} from "../skill/served_entry.ts";
import {
  checkPinnedSkillRead,
  type PinnedSkill,
  type PinnedSkillFile,
  sha256Digest,
  skillItemDigest,
  type SkillProblem,
  skillSetDigest,
} from "../skill/served_check.ts";
import { readContentBytes } from "../skill/served_fetch.ts";
import type { AuditEntry } from "./audit.ts";
import type { SeenTools, ToolProblem, ToolVerdict } from "./policy.ts";
import { NO_PINNED_SKILLS, unrecordedSkills, unsignedSkillVerdict } from "./skills_signature.ts";
import { badListPage } from "./surface.ts";

/**
 * The requests whose answers {@linkcode judgeSkillAnswer} judges.
 *
 * @example
 * ```ts
 * import { SKILL_METHODS } from "./skills.ts";
 * SKILL_METHODS.has("resources/read"); // true
 * ```
 */
export const SKILL_METHODS: ReadonlySet<string> = new Set([
  "skills/list",
  "skills/get",
  "resources/read",
  "resources/directory/read",
]);

/** A client request about skills, as the core remembers it. */
export interface SkillRequest {
  /** One of {@linkcode SKILL_METHODS}. */
  readonly method: string;
  /** `params.uri` (skills/get, resources/read, resources/directory/read). */
  readonly uri?: string;
  /** `params.cursor` (undefined: the first page). */
  readonly cursor?: string;
}

/** The judgement of one answer about skills. */
export interface SkillJudgement {
  /** What was asked, for messages: `skills/list`, `resources/read "skill://a/SKILL.md"`. */
  readonly what: string;
  /** The list method for the log (`skills/list`, `resources/read`, …). */
  readonly method: string;
  /** The answer is not what was asked: why (refused as an invalid answer). */
  readonly bad?: string;
  /** The lock pins no skills: a `skills/list` or `skills/get` answer passes unchecked. */
  readonly unpinned?: boolean;
  /** Every judged item (skills of a list; the read; directory children that failed). */
  readonly verdicts: readonly ToolVerdict[];
  /** The verdicts that fail, with removed skills at the end of a complete list. */
  readonly problems: readonly ToolVerdict[];
  /** Filter: the result with the failing items removed; absent when it cannot be partial. */
  readonly filtered?: JsonObject;
  /** Records to log whatever the mode (a read of a dynamic skill: nothing to compare with). */
  readonly notes: readonly AuditEntry[];
}

/** The pinned skills, indexed for the per-read lookup. */
interface SkillPins {
  readonly form: LockSkills["form"];
  /** By the URI of `SKILL.md`. */
  readonly byUri: ReadonlyMap<string, PinnedSkill>;
  /** By root, its scheme lower-cased (see {@linkcode normalScheme}). */
  readonly byRoot: ReadonlyMap<string, PinnedSkill[]>;
  /** The URIs of the skills whose item records no verified signature (./skills_signature.ts). */
  readonly unrecorded: ReadonlySet<string>;
}

const prepared = new WeakMap<LockSkills, SkillPins>();

/** A URI with its scheme lower-cased (RFC 3986: schemes are case-insensitive). */
function normalScheme(uri: string): string {
  const m = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(uri);
  return m ? m[0].toLowerCase() + uri.slice(m[0].length) : uri;
}

/**
 * The lock's `skills` as {@linkcode PinnedSkill}s, indexed by URI and root (cached per lock
 * object: a read costs a lookup per path segment, not a scan of every skill).
 */
function pinsOf(skills: LockSkills): SkillPins {
  const cached = prepared.get(skills);
  if (cached) return cached;
  const byUri = new Map<string, PinnedSkill>();
  const byRoot = new Map<string, PinnedSkill[]>();
  for (const [uri, item] of Object.entries(skills.items)) {
    const parts = skillUriParts(uri);
    if (typeof parts === "string") continue; // the lock parser refuses such keys
    const pinned: PinnedSkill = {
      uri,
      form: skills.form,
      name: parts.name,
      frontmatter: item.frontmatter,
      digest: item.digest,
      ...(item.resources ? { resources: item.resources } : {}),
      ...(item.set_digest !== undefined ? { setDigest: item.set_digest } : {}),
      ...(item.skill_hash !== undefined ? { skillHash: item.skill_hash } : {}),
    };
    byUri.set(uri, pinned);
    const root = normalScheme(parts.root);
    byRoot.set(root, [...(byRoot.get(root) ?? []), pinned]);
  }
  const pins = { form: skills.form, byUri, byRoot, unrecorded: unrecordedSkills(skills) };
  prepared.set(skills, pins);
  return pins;
}

/**
 * The pinned skills whose root is `uri` or a folder above it (nested skills: every enclosing
 * one), or whose `SKILL.md` is `uri`.
 */
function coveringSkills(pins: SkillPins, uri: string): PinnedSkill[] {
  const u = normalScheme(uri);
  const start = u.indexOf("://");
  if (start < 0) return [];
  const out: PinnedSkill[] = [];
  for (let i = u.indexOf("/", start + 3); i >= 0; i = u.indexOf("/", i + 1)) {
    out.push(...(pins.byRoot.get(u.slice(0, i)) ?? []));
  }
  out.push(...(pins.byRoot.get(u) ?? []));
  return out;
}

/** True when `uri` names a skill's file by its form: a `skill:` URI, or a `SKILL.md`. */
function looksLikeSkill(uri: string): boolean {
  return /^skill:/i.test(uri) || uri.endsWith("/SKILL.md");
}

/** `sha256:` hex of the canonical JSON of the frontmatter: the lock's `frontmatter`. */
function frontmatterDigest(frontmatter: JsonObject): string {
  return sha256Digest(canonicalizeJcsBytes(frontmatter));
}

type Verdict = { -readonly [K in keyof ToolVerdict]: ToolVerdict[K] };

function skillVerdict(
  skill: string,
  problems: ToolProblem[],
  extra: Partial<Verdict> = {},
): ToolVerdict {
  return { name: skill, kind: "skill", ok: problems.length === 0, problems, ...extra };
}

/** At most `n` items of a list, and how many more. */
function some(items: readonly string[], n = 5): string {
  return items.length <= n
    ? items.join(", ")
    : `${items.slice(0, n).join(", ")} and ${items.length - n} more`;
}

/** What differs between the files listed and the files pinned, in words naming the files. */
function fileDifferences(
  listed: readonly { uri: string; digest: string; size?: number }[],
  pinned: readonly PinnedSkillFile[],
): string[] {
  const pinnedByUri = new Map(pinned.map((f) => [f.uri, f]));
  const listedUris = new Set(listed.map((f) => f.uri));
  const changed: string[] = [];
  const added: string[] = [];
  for (const f of listed) {
    const p = pinnedByUri.get(f.uri);
    if (!p) added.push(f.uri);
    else if (p.digest !== f.digest) {
      changed.push(`${f.uri} (pinned ${p.digest}, listed ${f.digest})`);
    } else if (f.size !== undefined && f.size !== p.size) {
      changed.push(`${f.uri} (pinned ${p.size} bytes, listed ${f.size})`);
    }
  }
  const removed = pinned.filter((f) => !listedUris.has(f.uri)).map((f) => f.uri);
  const out: string[] = [];
  if (changed.length) out.push(`file changed: ${some(changed)}`);
  if (added.length) out.push(`file not pinned: ${some(added)}`);
  if (removed.length) out.push(`pinned file missing: ${some(removed)}`);
  return out;
}

/** Judges one SEP-2640 entry (of `skills/list` or `skills/get`) against the pins. */
function judgeEntry(
  pins: SkillPins,
  item: JsonValue,
  where: string,
  seen: SeenTools,
  strictText: boolean,
  requireSignature: boolean,
): ToolVerdict {
  const rawUri = isJsonObject(item) && typeof item.uri === "string" ? item.uri : where;
  let entry: ServedSkillEntry;
  try {
    entry = parseSkillEntry(item, where);
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    return skillVerdict(rawUri, ["malformed"], { detail: e.message });
  }
  const fm = frontmatterDigest(entry.frontmatter ?? {});
  const listed = entry.resources;
  const sized = listed !== undefined && listed.every((f) => f.size !== undefined);
  const digest = listed === undefined || sized
    ? skillItemDigest(fm, listed as PinnedSkillFile[] | undefined)
    : skillSetDigest(listed as unknown as PinnedSkillFile[]);
  if (seen.has(entry.uri)) {
    return skillVerdict(entry.uri, ["malformed"], {
      digest,
      detail: `served twice in ${where}`,
    });
  }
  seen.set(entry.uri, digest);
  const problems: ToolProblem[] = [];
  const verdict: Verdict = { name: entry.uri, kind: "skill", ok: true, problems, digest };
  const pinned = pins.byUri.get(entry.uri);
  if (pinned === undefined) {
    problems.push("added");
    verdict.detail = "not pinned";
  } else {
    const why: string[] = [];
    if (fm !== pinned.frontmatter) why.push("frontmatter changed");
    if (listed === undefined || pinned.resources === undefined) {
      if (listed !== undefined) {
        why.push(`pinned as a dynamic skill, now listed with ${listed.length} file(s)`);
      } else if (pinned.resources !== undefined) {
        why.push(
          `now listed without resources (dynamic); pinned with ${pinned.resources.length} file(s)`,
        );
      }
      verdict.lockDigest = pinned.digest;
    } else if (sized) {
      verdict.lockDigest = pinned.digest;
      if (digest !== pinned.digest) why.push(...fileDifferences(listed, pinned.resources));
    } else {
      // SEP-2640 lists no sizes: the {uri, digest} set is what an approval binds to.
      verdict.lockDigest = pinned.setDigest ?? skillSetDigest(pinned.resources);
      if (digest !== verdict.lockDigest || listed.some((f) => f.size !== undefined)) {
        why.push(...fileDifferences(listed, pinned.resources));
      }
    }
    if (why.length > 0 || verdict.lockDigest !== digest) {
      problems.push("drifted");
      verdict.detail = why.join("; ") || "differs from the lock";
    }
    if (requireSignature && pins.unrecorded.has(entry.uri)) {
      problems.push("unsigned");
      const unsigned = unsignedSkillVerdict(entry.uri).detail;
      verdict.detail = verdict.detail === undefined ? unsigned : `${verdict.detail}; ${unsigned}`;
    }
  }
  const hidden = findHiddenText(entry.frontmatter ?? {});
  if (hidden.length > 0) {
    verdict.hiddenText = hidden;
    if (strictText) problems.push("hidden_text");
  }
  verdict.ok = problems.length === 0;
  return verdict;
}

/** `skills/list` pages in progress, per session. */
interface SkillListing {
  readonly complete: boolean;
  readonly seen: SeenTools;
  expectCursor: string | undefined;
}

const listings = new WeakMap<object, SkillListing>();

/** `result` with `member` reduced to the items whose verdict passed. */
function filteredResult(result: JsonObject, member: string, keep: (i: number) => boolean) {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(result)) {
    out[k] = k === member ? (v as JsonValue[]).filter((_, i) => keep(i)) : v;
  }
  return out;
}

function judgeList(
  pins: SkillPins,
  state: object,
  request: SkillRequest,
  result: JsonValue,
  strictText: boolean,
  requireSignature: boolean,
): SkillJudgement {
  const base = { what: "skills/list", method: "skills/list", notes: [] };
  const bad = badListPage(result, "skills");
  if (bad !== undefined) {
    listings.delete(state);
    return { ...base, bad, verdicts: [], problems: [] };
  }
  const page = result as JsonObject;
  const items = page.skills as JsonValue[];
  const next = page.nextCursor as string | undefined;
  let listing = listings.get(state);
  if (request.cursor === undefined || !listing || listing.expectCursor !== request.cursor) {
    listing = { complete: request.cursor === undefined, seen: new Map(), expectCursor: undefined };
    listings.set(state, listing);
  }
  listing.expectCursor = next;
  const first = listing.seen.size;
  const verdicts = items.map((item, i) =>
    judgeEntry(
      pins,
      item,
      `skills/list skills[${first + i}]`,
      listing.seen,
      strictText,
      requireSignature,
    )
  );
  const removed: ToolVerdict[] = [];
  if (next === undefined) {
    listings.delete(state);
    if (listing.complete) {
      for (const [uri, p] of pins.byUri) {
        if (listing.seen.has(uri)) continue;
        removed.push(skillVerdict(uri, ["removed"], {
          lockDigest: p.digest,
          detail: "pinned, no longer listed",
        }));
      }
    }
  }
  return {
    ...base,
    verdicts,
    problems: [...verdicts.filter((v) => !v.ok), ...removed],
    filtered: filteredResult(page, "skills", (i) => verdicts[i].ok),
  };
}

function judgeGet(
  pins: SkillPins,
  request: SkillRequest,
  result: JsonValue,
  strictText: boolean,
  requireSignature: boolean,
): SkillJudgement {
  const what = `skills/get ${JSON.stringify(request.uri ?? "")}`;
  const base = { what, method: "skills/get", notes: [] };
  if (!isJsonObject(result) || !isJsonObject(result.skill)) {
    return { ...base, bad: 'the result has no "skill" object', verdicts: [], problems: [] };
  }
  if (result.skill.uri !== request.uri) {
    const v = skillVerdict(String(request.uri), ["malformed"], {
      detail: `skills/get ${request.uri} was answered with skill ${
        JSON.stringify(result.skill.uri)
      }`,
    });
    return { ...base, verdicts: [v], problems: [v] };
  }
  const v = judgeEntry(
    pins,
    result.skill,
    "skills/get skill",
    new Map(),
    strictText,
    requireSignature,
  );
  return { ...base, verdicts: [v], problems: v.ok ? [] : [v] };
}

/** The verdict of one read problem of `checkPinnedSkillRead`. */
function readVerdict(p: SkillProblem, pinned: PinnedSkill, digest: string): ToolVerdict {
  const problem: ToolProblem = p.kind === "unlisted"
    ? "added"
    : p.kind === "digest" || p.kind === "size"
    ? "drifted"
    : "malformed";
  const file = pinned.resources?.find((r) => r.uri === p.file);
  return skillVerdict(p.skill, [problem], {
    ...(p.file !== undefined ? { file: p.file } : {}),
    digest,
    ...(file ? { lockDigest: file.digest } : {}),
    detail: `file ${p.file ?? p.skill}: ${p.message}`,
  });
}

/** FastMCP's `_manifest`: its files must be the pinned ones, digests and sizes. */
function judgeManifest(pinned: PinnedSkill, uri: string, bytes: Uint8Array): ToolVerdict[] {
  let entry: ServedSkillEntry;
  try {
    entry = parseFastMcpManifest(bytes, uri);
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    return [skillVerdict(pinned.uri, ["malformed"], {
      file: uri,
      detail: `file ${uri}: ${e.message}`,
    })];
  }
  const why = fileDifferences(entry.resources ?? [], pinned.resources ?? []);
  if (why.length === 0) return [];
  return [skillVerdict(pinned.uri, ["drifted"], {
    file: uri,
    digest: sha256Digest(bytes),
    detail: `file ${uri}: the manifest differs from the lock: ${why.join("; ")}`,
  })];
}

function judgeRead(
  pins: SkillPins,
  request: SkillRequest,
  result: JsonValue,
  requireSignature: boolean,
): SkillJudgement | undefined {
  const uri = request.uri;
  if (uri === undefined) return undefined;
  const what = `resources/read ${JSON.stringify(uri)}`;
  const base = { what, method: "resources/read" };
  const covering = coveringSkills(pins, uri);
  if (covering.length === 0) {
    if (!looksLikeSkill(uri)) return undefined;
    const v = skillVerdict(uri, ["added"], {
      file: uri,
      detail: `file ${uri}: no pinned skill holds it`,
    });
    return { ...base, verdicts: [v], problems: [v], notes: [] };
  }
  const bytes = readContentBytes(result, uri);
  if (typeof bytes === "string") {
    const v = skillVerdict(covering[0].uri, ["malformed"], {
      file: uri,
      detail: `file ${uri}: the answer cannot be checked: ${bytes}`,
    });
    return { ...base, verdicts: [v], problems: [v], notes: [] };
  }
  const digest = sha256Digest(bytes);
  const verdicts: ToolVerdict[] = [];
  const notes: AuditEntry[] = [];
  for (const pinned of covering) {
    // Skill signatures required: a skill without a recorded signature is refused whatever the
    // bytes (a dynamic one always: it has nothing to sign).
    if (requireSignature && pins.unrecorded.has(pinned.uri)) {
      verdicts.push(unsignedSkillVerdict(pinned.uri, uri, digest));
      if (pinned.resources === undefined) continue;
    }
    const root = pinned.uri.slice(0, -"/SKILL.md".length);
    if (pinned.form === "fastmcp" && normalScheme(uri) === normalScheme(`${root}/_manifest`)) {
      verdicts.push(...judgeManifest(pinned, uri, bytes));
      continue;
    }
    if (pinned.resources === undefined) {
      notes.push({
        decision: "skill_unchecked",
        kind: "skill",
        tool: pinned.uri,
        digest,
        message: `skill ${pinned.uri}, file ${uri}: a dynamic skill (pinned without files): ` +
          `nothing to compare the read with; passed`,
      });
      continue;
    }
    const p = checkPinnedSkillRead(pinned, uri, bytes);
    if (p) verdicts.push(readVerdict(p, pinned, digest));
  }
  return { ...base, verdicts, problems: verdicts, notes };
}

function judgeDirectory(
  pins: SkillPins,
  request: SkillRequest,
  result: JsonValue,
): SkillJudgement | undefined {
  const dir = request.uri;
  if (dir === undefined) return undefined;
  const covering = coveringSkills(pins, dir);
  if (covering.length === 0) return undefined;
  const what = `resources/directory/read ${JSON.stringify(dir)}`;
  const base = { what, method: "resources/directory/read" };
  const fixed = covering.filter((p) => p.resources !== undefined);
  if (fixed.length === 0) {
    return {
      ...base,
      verdicts: [],
      problems: [],
      notes: [{
        decision: "skill_unchecked",
        kind: "skill",
        tool: covering[0].uri,
        message: `skill ${covering[0].uri}, directory ${dir}: a dynamic skill (pinned ` +
          `without files): nothing to compare the listing with; passed`,
      }],
    };
  }
  const bad = badListPage(result, "resources");
  if (bad !== undefined) return { ...base, bad, verdicts: [], problems: [], notes: [] };
  const files = new Set(fixed.flatMap((p) => p.resources!.map((r) => normalScheme(r.uri))));
  const d = normalScheme(dir);
  const children = (result as JsonObject).resources as JsonValue[];
  const verdicts = children.map((child, i): ToolVerdict => {
    const skill = fixed[0].uri;
    const c = isJsonObject(child) && typeof child.uri === "string" ? child.uri : undefined;
    if (c === undefined) {
      return skillVerdict(skill, ["malformed"], {
        detail: `directory ${dir}: resources[${i}] has no string uri`,
      });
    }
    const n = normalScheme(c);
    const direct = n.startsWith(d + "/") && !n.slice(d.length + 1).includes("/") &&
      n.length > d.length + 1;
    const held = files.has(n) || [...files].some((f) => f.startsWith(n + "/"));
    if (direct && held) return skillVerdict(skill, []);
    return skillVerdict(skill, ["added"], {
      file: c,
      detail: `directory ${dir} lists ${c}, ` +
        (direct ? "which the pinned skill does not hold" : "which is not a direct child"),
    });
  });
  return {
    ...base,
    verdicts,
    problems: verdicts.filter((v) => !v.ok),
    filtered: filteredResult(result as JsonObject, "resources", (i) => verdicts[i].ok),
    notes: [],
  };
}

/**
 * Judges the answer (`result`) to a client's request about skills against the lock's pinned
 * `skills` (undefined: the lock pins none). Returns undefined when the answer concerns no
 * pinned skill (a read of another resource: it passes, nothing logged). `state` keys the
 * paging state of `skills/list` (the session). `strictText` makes hidden text in a listed
 * frontmatter a failure. `requireSignature` refuses every pinned skill whose
 * item records no verified signature — its entries, `skills/get` answers and every read of its
 * files (`unsigned`, ./skills_signature.ts) — and a lock without skills then pins none.
 *
 * @example
 * ```ts
 * import { judgeSkillAnswer } from "./skills.ts";
 * const skills = { form: "sep-2640" as const, count: 0, digest: "", items: {} };
 * const j = judgeSkillAnswer(skills, { method: "skills/list" }, { skills: [] }, {});
 * j?.problems.length; // 0
 * judgeSkillAnswer(skills, { method: "resources/read", uri: "file:///x" }, {}, {}); // undefined
 * ```
 */
export function judgeSkillAnswer(
  skills: LockSkills | undefined,
  request: SkillRequest,
  result: JsonValue,
  state: object,
  strictText = false,
  requireSignature = false,
): SkillJudgement | undefined {
  const listing = request.method === "skills/list" || request.method === "skills/get";
  // Skill signatures required: a lock that pins no skills lets none pass.
  if (skills === undefined && requireSignature) skills = NO_PINNED_SKILLS;
  if (skills === undefined) {
    if (!listing) return undefined;
    return {
      what: request.method,
      method: request.method,
      unpinned: true,
      verdicts: [],
      problems: [],
      notes: [],
    };
  }
  const pins = pinsOf(skills);
  switch (request.method) {
    case "skills/list":
      return judgeList(pins, state, request, result, strictText, requireSignature);
    case "skills/get":
      return judgeGet(pins, request, result, strictText, requireSignature);
    case "resources/read":
      return judgeRead(pins, request, result, requireSignature);
    case "resources/directory/read":
      return judgeDirectory(pins, request, result);
    default:
      return undefined;
  }
}
