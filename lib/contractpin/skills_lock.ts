/**
 * Skills served over MCP as a pinned kind of `contractpin.lock` (docs/contractpin-skills.md):
 * the `skills` member of a server entry read strictly (unknown members refused, `count` equal
 * to the items, every digest recomputed where the lock holds what it is computed from), and
 * built from the skills a live fetch checked (`lib/skill/served_fetch.ts`).
 *
 * Pure: values in, values out, or a `SchemaPinError` naming the lock and the JSON Pointer.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { checkArg } from "../arguments.ts";
import { DIGEST_PATTERN } from "./digest.ts";
import { surfaceKindDigest } from "./surface.ts";
import { LOCK_EDITED, LOCK_INCONSISTENT } from "../option_hints.ts";
import { skillItemDigest, skillSetDigest } from "../skill/served_check.ts";
import { skillFilePath, skillUriParts } from "../skill/served_entry.ts";
import { checkDomain } from "../dns/domain.ts";
import { isSha256Ref } from "../crypto/fingerprint.ts";
import type { FetchedSkill, ServedSkills } from "../skill/served_fetch.ts";

/**
 * One pinned skill served over MCP (docs/contractpin-skills.md): the SEP-2640 form of its files
 * with their sizes, and the digests built from the same bytes (lock.ts re-exports it).
 */
export interface LockSkill {
  /** Item digest. */
  digest: string;
  /** Frontmatter digest. */
  frontmatter: string;
  /** Every file, sorted by URI; absent when dynamic. */
  resources?: { uri: string; digest: string; size: number }[];
  /** Digest of the `{uri, digest}` set. */
  set_digest?: string;
  /** The §4b `skill_hash`. */
  skill_hash?: string;
  /** A dynamic skill. */
  dynamic?: true;
  /**
   * The SchemaPin signature verified when the skill was pinned (`--require-skill-signature`,
   * docs/contractpin-skills.md, "Signed skills"): the domain and the key's fingerprint. A
   * record of a check, not part of the item digest: only a signed lock makes it
   * tamper-evident.
   */
  signature?: { domain: string; key_fingerprint: string };
}

/** The `skills` member of a server entry: the same shape as a surface kind, plus the form. */
export interface LockSkills {
  /** The form served. */
  form: "sep-2640" | "fastmcp";
  /** Number of skills. */
  count: number;
  /** Kind digest. */
  digest: string;
  /** Skills by `SKILL.md` URI. */
  items: Record<string, LockSkill>;
}

const SKILLS_KEYS = ["form", "count", "digest", "items"];
const STATIC_KEYS = [
  "digest",
  "frontmatter",
  "resources",
  "set_digest",
  "skill_hash",
  "signature",
];
const SIGNATURE_KEYS = ["domain", "key_fingerprint"];
const DYNAMIC_KEYS = ["digest", "frontmatter", "dynamic"];

function invalid(source: string, message: string, field: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", `${source}: ${message}`, { source, field });
}

function ptrPart(p: string): string {
  return "/" + p.replace(/~/g, "~0").replace(/\//g, "~1");
}

function checkKeys(o: JsonObject, allowed: string[], source: string, at: string): void {
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) {
      throw invalid(
        source,
        `unknown member ${JSON.stringify(key)} at ${at} (allowed: ${allowed.join(", ")})`,
        `${at}${ptrPart(key)}`,
      );
    }
  }
}

function digestOf(o: JsonObject, key: string, source: string, at: string): string {
  const v = Object.hasOwn(o, key) ? o[key] : undefined;
  if (typeof v !== "string" || !DIGEST_PATTERN.test(v)) {
    throw invalid(
      source,
      `${at}/${key} must be a sha256 digest ("sha256:" + 64 lowercase hex)` +
        (v === undefined ? " (missing)" : ""),
      `${at}/${key}`,
    );
  }
  return v;
}

function parseSkillItem(uri: string, v: JsonValue, source: string, at: string): LockSkill {
  if (!isJsonObject(v)) throw invalid(source, `${at} must be an object`, at);
  const parts = skillUriParts(uri);
  if (typeof parts === "string") throw invalid(source, `${at}: ${parts}`, at);
  const dynamic = Object.hasOwn(v, "dynamic");
  checkKeys(v, dynamic ? DYNAMIC_KEYS : STATIC_KEYS, source, at);
  const frontmatter = digestOf(v, "frontmatter", source, at);
  const digest = digestOf(v, "digest", source, at);
  if (dynamic) {
    if (v.dynamic !== true) throw invalid(source, `${at}/dynamic must be true`, `${at}/dynamic`);
    if (skillItemDigest(frontmatter, undefined) !== digest) {
      throw invalid(
        source,
        `${at}/digest does not match the item (${LOCK_EDITED})`,
        `${at}/digest`,
      );
    }
    return { digest, frontmatter, dynamic: true };
  }
  const rat = `${at}/resources`;
  if (!Array.isArray(v.resources)) {
    throw invalid(source, `${rat} must be an array (or the item must be dynamic: true)`, rat);
  }
  const resources: { uri: string; digest: string; size: number }[] = [];
  v.resources.forEach((r, i) => {
    const fat = `${rat}/${i}`;
    if (!isJsonObject(r)) throw invalid(source, `${fat} must be an object`, fat);
    checkKeys(r, ["uri", "digest", "size"], source, fat);
    if (typeof r.uri !== "string" || skillFilePath(r.uri, parts.root) === undefined) {
      throw invalid(source, `${fat}/uri must be a file of the skill ${uri}`, `${fat}/uri`);
    }
    const prev = resources[resources.length - 1];
    if (prev && !(prev.uri < r.uri)) {
      throw invalid(source, `${rat} must be sorted by uri without duplicates`, fat);
    }
    const size = r.size;
    if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
      throw invalid(source, `${fat}/size must be a non-negative integer`, `${fat}/size`);
    }
    resources.push({ uri: r.uri, digest: digestOf(r, "digest", source, fat), size });
  });
  if (!resources.some((r) => r.uri === uri)) {
    throw invalid(source, `${rat} does not hold the skill's own ${uri}`, rat);
  }
  const setDigest = digestOf(v, "set_digest", source, at);
  if (skillSetDigest(resources) !== setDigest) {
    throw invalid(
      source,
      `${at}/set_digest does not match the resources (${LOCK_EDITED})`,
      `${at}/set_digest`,
    );
  }
  const skillHash = digestOf(v, "skill_hash", source, at);
  if (skillItemDigest(frontmatter, resources) !== digest) {
    throw invalid(source, `${at}/digest does not match the item (${LOCK_EDITED})`, `${at}/digest`);
  }
  const item: LockSkill = {
    digest,
    frontmatter,
    resources,
    set_digest: setDigest,
    skill_hash: skillHash,
  };
  if (Object.hasOwn(v, "signature")) {
    item.signature = parseSignatureRecord(v.signature, source, `${at}/signature`);
  }
  return item;
}

/**
 * The `signature` record of a static item: exactly `{domain, key_fingerprint}`, a lower-case
 * host name (§9) and a `sha256:` key fingerprint (§8.2). Not covered by the item digest.
 */
function parseSignatureRecord(
  v: JsonValue,
  source: string,
  at: string,
): { domain: string; key_fingerprint: string } {
  if (!isJsonObject(v)) throw invalid(source, `${at} must be an object`, at);
  checkKeys(v, SIGNATURE_KEYS, source, at);
  const domain = Object.hasOwn(v, "domain") ? v.domain : undefined;
  const checked = checkDomain(domain);
  if (!checked.ok || checked.domain !== domain) {
    throw invalid(
      source,
      `${at}/domain must be a lower-case host name` + (checked.ok ? "" : ` (${checked.reason})`),
      `${at}/domain`,
    );
  }
  const fingerprint = Object.hasOwn(v, "key_fingerprint") ? v.key_fingerprint : undefined;
  if (typeof fingerprint !== "string" || !isSha256Ref(fingerprint)) {
    throw invalid(
      source,
      `${at}/key_fingerprint must be a key fingerprint ("sha256:" + 64 lowercase hex)` +
        (fingerprint === undefined ? " (missing)" : ""),
      `${at}/key_fingerprint`,
    );
  }
  return { domain: checked.domain, key_fingerprint: fingerprint };
}

/**
 * Reads the `skills` member of a lock server entry strictly (docs/contractpin-skills.md, "The
 * lock"): `form` one of `sep-2640` and `fastmcp`; `count` equal to the items; each item keyed
 * by its `SKILL.md` URI, either `{digest, frontmatter, resources, set_digest, skill_hash}` with
 * its files sorted by URI (each a file of that skill, its own `SKILL.md` among them) and an
 * optional `signature: {domain, key_fingerprint}` record, or
 * `{digest, frontmatter, dynamic: true}`; the item digests, the set digests and the kind digest
 * recomputed and compared. The §4b `skill_hash` is checked for its form only: it needs the
 * bytes.
 *
 * @param at the JSON Pointer of the member (`/servers/NAME/skills`)
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.field` the JSON Pointer at fault
 *
 * @example
 * ```ts
 * import { parseLockSkills } from "./skills_lock.ts";
 * import { surfaceKindDigest } from "./surface.ts";
 * const empty = { form: "sep-2640", count: 0, digest: surfaceKindDigest(new Map()), items: {} };
 * parseLockSkills(empty, "contractpin.lock", "/servers/s/skills").count; // 0
 * ```
 */
export function parseLockSkills(v: JsonValue, source: string, at: string): LockSkills {
  checkArg("parseLockSkills", "source", source, "string");
  checkArg("parseLockSkills", "at", at, "string");
  if (!isJsonObject(v)) throw invalid(source, `${at} must be an object`, at);
  checkKeys(v, SKILLS_KEYS, source, at);
  if (v.form !== "sep-2640" && v.form !== "fastmcp") {
    throw invalid(source, `${at}/form must be "sep-2640" or "fastmcp"`, `${at}/form`);
  }
  if (!isJsonObject(v.items)) throw invalid(source, `${at}/items must be an object`, `${at}/items`);
  const items: Record<string, LockSkill> = Object.create(null);
  for (const [uri, item] of Object.entries(v.items)) {
    items[uri] = parseSkillItem(uri, item, source, `${at}/items${ptrPart(uri)}`);
  }
  const n = Object.keys(items).length;
  const count = v.count;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) {
    throw invalid(source, `${at}/count must be a non-negative integer`, `${at}/count`);
  }
  if (count !== n) {
    throw invalid(
      source,
      `${at}/count is ${count} but ${n} skills are listed (${LOCK_INCONSISTENT})`,
      `${at}/count`,
    );
  }
  const digest = digestOf(v, "digest", source, at);
  const recomputed = skillsKindDigest(items);
  if (digest !== recomputed) {
    throw invalid(
      source,
      `${at}/digest does not match its items (expected ${recomputed}; ${LOCK_EDITED})`,
      `${at}/digest`,
    );
  }
  return { form: v.form, count, digest, items };
}

/**
 * The kind digest of pinned skills: the digest of `{uri: item digest}` (the construction of
 * the surface kinds, docs/contractpin-surface.md §3).
 *
 * @example
 * ```ts
 * import { skillsKindDigest } from "./skills_lock.ts";
 * skillsKindDigest({}).startsWith("sha256:"); // true
 * ```
 */
export function skillsKindDigest(items: Readonly<Record<string, { digest: string }>>): string {
  checkArg("skillsKindDigest", "items", items, "object");
  return surfaceKindDigest(new Map(Object.entries(items).map(([k, i]) => [k, i.digest])));
}

/**
 * The lock item of one fetched skill: its pinned form (`lib/skill/served_check.ts`) in the
 * lock's snake_case names; a dynamic skill as `{digest, frontmatter, dynamic: true}`.
 *
 * @example
 * ```ts ignore
 * import { lockSkillItem } from "./skills_lock.ts";
 * lockSkillItem(fetched).set_digest;
 * ```
 */
export function lockSkillItem(skill: Pick<FetchedSkill, "pinned">): LockSkill {
  checkArg("lockSkillItem", "skill", skill, "object");
  const p = skill.pinned;
  if (p.resources === undefined) {
    return { digest: p.digest, frontmatter: p.frontmatter, dynamic: true };
  }
  return {
    digest: p.digest,
    frontmatter: p.frontmatter,
    resources: p.resources.map((r) => ({ uri: r.uri, digest: r.digest, size: r.size })),
    set_digest: p.setDigest!,
    skill_hash: p.skillHash!,
  };
}

/**
 * The `skills` member of a server entry from what a fetch found: none when the server serves
 * no skills (`form: "none"`: the kind is not pinned), an empty kind (`count` 0) for a SEP-2640
 * server that declares the extension and lists none. The caller has refused any skill with a
 * problem (a dynamic skill is pinned as dynamic only when it was allowed).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a static skill whose §4b hash could not be
 *   rebuilt (a file was not read: the fetch has a problem the caller should have refused)
 *
 * @example
 * ```ts
 * import { lockSkillsMember } from "./skills_lock.ts";
 * lockSkillsMember({ form: "none", skills: [] }); // undefined
 * lockSkillsMember({ form: "sep-2640", skills: [] })?.count; // 0
 * ```
 */
export function lockSkillsMember(served: ServedSkills): LockSkills | undefined {
  checkArg("lockSkillsMember", "served", served, "object");
  if (served.form === "none") return undefined;
  const items: Record<string, LockSkill> = Object.create(null);
  for (const s of served.skills) {
    if (s.pinned.resources !== undefined && s.pinned.skillHash === undefined) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `skill ${s.pinned.uri}: not every listed file was read, so it cannot be pinned`,
        { skill: s.pinned.uri },
      );
    }
    items[s.pinned.uri] = lockSkillItem(s);
  }
  return {
    form: served.form,
    count: Object.keys(items).length,
    digest: skillsKindDigest(items),
    items,
  };
}

/** One pinned skill as the `--json` outputs of `contract init` and `contract dump` list it. */
export interface SkillJson {
  /** The skill's `SKILL.md` URI. */
  uri: string;
  /** The item digest. */
  digest: string;
  /** The number of files pinned (`null` for a dynamic skill). */
  file_count: number | null;
  /** The §4b `skill_hash` (`null` for a dynamic skill). */
  skill_hash: string | null;
  /** Pinned by its frontmatter only. */
  dynamic: boolean;
  /** The signature verified when it was pinned (`--require-skill-signature`), when recorded. */
  signature?: { domain: string; key_fingerprint: string };
}

/**
 * The `skills` member of the `--json` outputs of `contract init` (per server pinned) and
 * `contract dump`: the form, the count, the kind digest and each skill, sorted by URI.
 *
 * @example
 * ```ts
 * import { lockSkillsJson, lockSkillsMember } from "./skills_lock.ts";
 * lockSkillsJson(lockSkillsMember({ form: "sep-2640", skills: [] })!).count; // 0
 * ```
 */
export function lockSkillsJson(
  member: LockSkills,
): { form: LockSkills["form"]; count: number; digest: string; items: SkillJson[] } {
  checkArg("lockSkillsJson", "member", member, "object");
  return {
    form: member.form,
    count: member.count,
    digest: member.digest,
    items: Object.keys(member.items).sort().map((uri) => {
      const item = member.items[uri];
      return {
        uri,
        digest: item.digest,
        file_count: item.resources?.length ?? null,
        skill_hash: item.skill_hash ?? null,
        dynamic: item.dynamic === true,
        ...(item.signature ? { signature: { ...item.signature } } : {}),
      };
    }),
  };
}
