/**
 * The checks SEP-2640 asks of a host that fetched a skill over MCP, and the pinned form of
 * the skill built from the same bytes (docs/skills-over-mcp.md):
 *
 * - every listed file was read, and its bytes match the listed `digest` and `size`;
 * - no file of the skill is served that the listing leaves out ("unlisted");
 * - `SKILL.md`'s YAML frontmatter equals the listed `frontmatter`, field by field;
 * - a skill without `resources` (a dynamic skill) cannot be content-bound: it is reported.
 *
 * The pinned form ({@linkcode PinnedSkill}) holds the skill's URI, a frontmatter digest, every
 * file's `{uri, digest, size}`, the digest of the `{uri, digest}` set an approval binds to, the
 * SchemaPin §4b `skill_hash` rebuilt from the same bytes, and one digest over all of it. Pure:
 * bytes in, results out.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { canonicalizeJcsBytes } from "../json/canonical_jcs.ts";
import { parseJson } from "../json/parse.ts";
import { sha256Hex } from "../crypto/hash.ts";
import { SchemaPinError } from "../errors.ts";
import { hashSkillFiles, type SkillFileContent } from "./hash.ts";
import { SIGNATURE_FILE_NAME } from "./walk.ts";
import {
  compareFrontMatter,
  frontMatterJson,
  parseSkillFrontMatter,
  type SkillFrontMatter,
} from "./yaml_front_matter.ts";
import {
  type ServedSkillEntry,
  type ServedSkillForm,
  SKILL_SIGNATURE_META_KEY,
} from "./served_entry.ts";

/** What a fetch of one listed file gave: its bytes, or why there are none. */
export type SkillRead = { readonly bytes: Uint8Array } | { readonly error: string };

/** Kinds of contradiction between a listing and what the server served. */
export type SkillProblemKind =
  | "digest"
  | "size"
  | "unreadable"
  | "unlisted"
  | "frontmatter"
  | "dynamic"
  | "limit";

/** One contradiction, naming the skill and, where there is one, the file. */
export interface SkillProblem {
  /** The skill's `SKILL.md` URI. */
  readonly skill: string;
  /** The file's URI. */
  readonly file?: string;
  /** What is wrong. */
  readonly kind: SkillProblemKind;
  /** For people: what was listed and what was served. */
  readonly message: string;
}

/** One file of a pinned skill: the SEP's form with its size. */
export interface PinnedSkillFile {
  /** Its resource URI. */
  readonly uri: string;
  /** `sha256:<hex>` of its raw bytes. */
  readonly digest: string;
  /** Its size in bytes. */
  readonly size: number;
}

/** A skill as pinned in a lock: what `contract verify` and the guard compare with. */
export interface PinnedSkill {
  /** The URI of its `SKILL.md`. */
  readonly uri: string;
  /** The form the server serves it in. */
  readonly form: ServedSkillForm;
  /** The skill name (the last segment of the skill path). */
  readonly name: string;
  /** Digest of the frontmatter as canonical JSON. */
  readonly frontmatter: string;
  /** Every file, sorted by URI; absent for a dynamic skill. */
  readonly resources?: readonly PinnedSkillFile[];
  /** Digest of the `{uri, digest}` set (SEP-2640's unit of approval); absent when dynamic. */
  readonly setDigest?: string;
  /** The SchemaPin §4b `skill_hash` of the same bytes (top-level `.schemapin.sig` excluded). */
  readonly skillHash?: string;
  /** Digest over the frontmatter digest and the files: changes when anything changes. */
  readonly digest: string;
}

/** The outcome of {@linkcode checkServedSkill}. */
export interface CheckedSkill {
  /** The pinned form, built from the verified bytes (or the listing where a read failed). */
  readonly pinned: PinnedSkill;
  /** Every contradiction found; empty when listing and bytes agree. */
  readonly problems: readonly SkillProblem[];
  /** The files as verified, by path relative to the skill root. */
  readonly files: readonly SkillFileContent[];
  /** The frontmatter as JSON (the listing's, or FastMCP's parsed from `SKILL.md`). */
  readonly frontmatter: JsonObject;
  /** The signature document the skill carries: its `.schemapin.sig` file or its `_meta`. */
  readonly signature?: unknown;
  /** Where {@linkcode CheckedSkill.signature} came from. */
  readonly signatureSource?: "file" | "meta";
}

/**
 * `sha256:` and the lowercase hex SHA-256 of `bytes`: the SEP's digest of a file.
 *
 * @example
 * ```ts
 * import { sha256Digest } from "./served_check.ts";
 * sha256Digest(new Uint8Array()); // "sha256:e3b0c442…b855"
 * ```
 */
export function sha256Digest(bytes: Uint8Array): string {
  return "sha256:" + sha256Hex(bytes);
}

/** `sha256:` hex of the canonical JSON (RFC 8785) of `value`. */
function digestOf(value: unknown): string {
  return sha256Digest(canonicalizeJcsBytes(value));
}

function problem(
  entry: ServedSkillEntry,
  kind: SkillProblemKind,
  message: string,
  file?: string,
): SkillProblem {
  return { skill: entry.uri, kind, message, ...(file !== undefined ? { file } : {}) };
}

/** Parses SKILL.md's frontmatter; a problem instead when it cannot be read. */
function frontMatterOf(
  entry: ServedSkillEntry,
  bytes: Uint8Array,
): SkillFrontMatter | SkillProblem | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return problem(entry, "frontmatter", "SKILL.md is not UTF-8 text", entry.uri);
  }
  try {
    return parseSkillFrontMatter(text, entry.uri);
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    return problem(entry, "frontmatter", e.message, entry.uri);
  }
}

/**
 * Compares the frontmatter of the served `SKILL.md` with the listing's, field by field (the
 * SEP's host rule). FastMCP lists no frontmatter: there, the file's own is pinned.
 */
function checkFrontMatter(
  entry: ServedSkillEntry,
  skillMd: Uint8Array | undefined,
  problems: SkillProblem[],
): JsonObject {
  const parsed = skillMd === undefined ? undefined : frontMatterOf(entry, skillMd);
  if (parsed !== undefined && "kind" in parsed) problems.push(parsed);
  const fm = parsed !== undefined && !("kind" in parsed) ? parsed : undefined;
  if (entry.frontmatter === undefined) return fm ? frontMatterJson(fm) : {};
  if (skillMd !== undefined && parsed === undefined) {
    problems.push(problem(entry, "frontmatter", "SKILL.md has no frontmatter block", entry.uri));
  }
  if (fm) {
    for (const d of compareFrontMatter(entry.frontmatter, fm)) {
      problems.push(problem(
        entry,
        "frontmatter",
        `frontmatter.${d.field}: listed ${d.listed}, SKILL.md has ${d.file}`,
        entry.uri,
      ));
    }
  }
  return entry.frontmatter;
}

/** The signature the skill carries, from its files or its entry's `_meta`. */
function signatureOf(
  entry: ServedSkillEntry,
  files: readonly SkillFileContent[],
): Pick<CheckedSkill, "signature" | "signatureSource"> {
  const file = files.find((f) => f.path === SIGNATURE_FILE_NAME);
  if (file) {
    try {
      return {
        signature: parseJson(file.content, `${entry.root}/${SIGNATURE_FILE_NAME}`),
        signatureSource: "file",
      };
    } catch (e) {
      if (!(e instanceof SchemaPinError)) throw e;
      return { signature: file.content, signatureSource: "file" };
    }
  }
  const meta = entry.meta?.[SKILL_SIGNATURE_META_KEY];
  return meta === undefined ? {} : { signature: meta, signatureSource: "meta" };
}

/**
 * Checks a skill fetched over MCP against its listing: each listed file's bytes against its
 * digest and size, `SKILL.md`'s frontmatter against the listed one, and the files the server
 * serves under the skill but does not list (`unlisted`, URIs). Builds the pinned form from the
 * same bytes; a dynamic skill (no `resources`) is one `dynamic` problem, which the caller may
 * accept.
 *
 * @example
 * ```ts
 * import { checkServedSkill, sha256Digest } from "./served_check.ts";
 * import { parseSkillEntry } from "./served_entry.ts";
 * const md = new TextEncoder().encode("---\nname: pdf\ndescription: PDFs\n---\n# PDF\n");
 * const entry = parseSkillEntry({
 *   uri: "skill://pdf/SKILL.md",
 *   frontmatter: { name: "pdf", description: "PDFs" },
 *   resources: [{ uri: "skill://pdf/SKILL.md", digest: sha256Digest(md) }],
 * }, "demo");
 * const checked = checkServedSkill(entry, new Map([["skill://pdf/SKILL.md", { bytes: md }]]), []);
 * checked.problems.length; // 0
 * ```
 */
export function checkServedSkill(
  entry: ServedSkillEntry,
  reads: ReadonlyMap<string, SkillRead>,
  unlisted: readonly string[],
): CheckedSkill {
  const problems: SkillProblem[] = [];
  const files: SkillFileContent[] = [];
  const pinnedFiles: PinnedSkillFile[] = [];
  for (const f of entry.resources ?? []) {
    const read = reads.get(f.uri);
    if (read === undefined || "error" in read) {
      const why = read === undefined ? "it was not read" : read.error;
      problems.push(problem(entry, "unreadable", `listed file cannot be read: ${why}`, f.uri));
      pinnedFiles.push({ uri: f.uri, digest: f.digest, size: f.size ?? 0 });
      continue;
    }
    const digest = sha256Digest(read.bytes);
    if (digest !== f.digest) {
      problems.push(problem(entry, "digest", `listed ${f.digest}, served ${digest}`, f.uri));
    }
    if (f.size !== undefined && f.size !== read.bytes.length) {
      problems.push(
        problem(entry, "size", `listed ${f.size} bytes, served ${read.bytes.length}`, f.uri),
      );
    }
    files.push({ path: f.path, content: read.bytes });
    pinnedFiles.push({ uri: f.uri, digest, size: read.bytes.length });
  }
  for (const uri of unlisted) {
    problems.push(problem(entry, "unlisted", "served under the skill but not listed", uri));
  }
  const skillMdRead = reads.get(entry.uri);
  const skillMd = skillMdRead && "bytes" in skillMdRead ? skillMdRead.bytes : undefined;
  const frontmatter = checkFrontMatter(entry, skillMd, problems);
  const fmDigest = digestOf(frontmatter);
  const base = { uri: entry.uri, form: entry.form, name: entry.name, frontmatter: fmDigest };
  if (entry.resources === undefined) {
    problems.push(problem(
      entry,
      "dynamic",
      "the skill lists no resources (a dynamic skill): its content cannot be pinned",
    ));
    const pinned = { ...base, digest: digestOf({ dynamic: true, frontmatter: fmDigest }) };
    return { pinned, problems, files, frontmatter, ...signatureOf(entry, files) };
  }
  const pinned = pinnedSkillOf(base, pinnedFiles, files);
  return { pinned, problems, files, frontmatter, ...signatureOf(entry, files) };
}

/** The digests of a pinned skill from its files. */
function pinnedSkillOf(
  base: Pick<PinnedSkill, "uri" | "form" | "name" | "frontmatter">,
  resources: readonly PinnedSkillFile[],
  files: readonly SkillFileContent[],
): PinnedSkill {
  const setDigest = skillSetDigest(resources);
  const complete = files.length === resources.length;
  return {
    ...base,
    resources,
    setDigest,
    ...(complete ? { skillHash: hashSkillFiles(files).skillHash } : {}),
    digest: skillItemDigest(base.frontmatter, resources),
  };
}

/**
 * Digest of the `{uri, digest}` set of a skill's files: the unit a SEP-2640 approval binds to.
 *
 * @example
 * ```ts
 * import { skillSetDigest } from "./served_check.ts";
 * skillSetDigest([{ uri: "skill://a/SKILL.md", digest: "sha256:" + "0".repeat(64), size: 1 }]);
 * ```
 */
export function skillSetDigest(resources: readonly PinnedSkillFile[]): string {
  return digestOf(resources.map((r) => ({ uri: r.uri, digest: r.digest })));
}

/**
 * The digest of a whole pinned skill: its frontmatter digest and every file's
 * `{uri, digest, size}`.
 *
 * @example
 * ```ts
 * import { skillItemDigest } from "./served_check.ts";
 * skillItemDigest("sha256:" + "1".repeat(64), []);
 * ```
 */
export function skillItemDigest(
  frontmatter: string,
  resources: readonly PinnedSkillFile[] | undefined,
): string {
  if (resources === undefined) return digestOf({ dynamic: true, frontmatter });
  const files: JsonValue[] = resources.map((r) => ({ uri: r.uri, digest: r.digest, size: r.size }));
  return digestOf({ frontmatter, resources: files });
}

/**
 * Checks one `resources/read` of a file of a pinned skill, as the guard does before relaying
 * it: the file must be one the pinned skill holds, with the pinned digest. Returns the
 * contradiction, or `undefined` when the bytes are the pinned ones.
 *
 * @example
 * ```ts
 * import { checkPinnedSkillRead, sha256Digest } from "./served_check.ts";
 * const bytes = new TextEncoder().encode("# hi\n");
 * const pinned = {
 *   uri: "skill://a/SKILL.md", form: "sep-2640" as const, name: "a",
 *   frontmatter: "sha256:" + "1".repeat(64), digest: "sha256:" + "2".repeat(64),
 *   resources: [{ uri: "skill://a/SKILL.md", digest: sha256Digest(bytes), size: 5 }],
 * };
 * checkPinnedSkillRead(pinned, "skill://a/SKILL.md", bytes); // undefined
 * checkPinnedSkillRead(pinned, "skill://a/evil.md", bytes)?.kind; // "unlisted"
 * ```
 */
export function checkPinnedSkillRead(
  pinned: PinnedSkill,
  uri: string,
  bytes: Uint8Array,
): SkillProblem | undefined {
  const entry = { uri: pinned.uri } as ServedSkillEntry;
  if (pinned.resources === undefined) return undefined; // dynamic: nothing to compare with
  const file = pinned.resources.find((r) => r.uri === uri);
  if (!file) {
    return problem(entry, "unlisted", "the pinned skill holds no such file", uri);
  }
  const digest = sha256Digest(bytes);
  if (digest !== file.digest) {
    return problem(entry, "digest", `pinned ${file.digest}, served ${digest}`, uri);
  }
  if (bytes.length !== file.size) {
    return problem(entry, "size", `pinned ${file.size} bytes, served ${bytes.length}`, uri);
  }
  return undefined;
}
