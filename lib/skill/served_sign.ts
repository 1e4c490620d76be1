/**
 * For server authors: a signed skill folder as the SEP-2640 skill entry a server lists
 * (`skills/list`, `skills/get`): `{uri, frontmatter, resources: [{uri, digest, size}], _meta}`,
 * with the folder's SchemaPin signature document (§4b) in `_meta["dev.schemapin/signature"]`
 * (docs/skills-over-mcp.md, "Signatures over MCP"), so that a host can verify it with
 * `verifyServedSkill` or `schemapin verify-skill skill://…`. The folder is read with the same
 * hostile-input-safe walk as signing, and the entry is checked before it is returned: its
 * signature covers exactly these bytes, and it reads back as a valid entry whose frontmatter
 * matches `SKILL.md`.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";
import { SchemaPinError } from "../errors.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { parseSkillSignatureDocument } from "./document.ts";
import { readRegularFile, showPath } from "./fs.ts";
import { isNotFound, lstatSync } from "../runtime/fs.ts";
import { hashSkillFiles, type SkillFileContent } from "./hash.ts";
import { checkServedSkill, sha256Digest, type SkillRead } from "./served_check.ts";
import { parseSkillEntry, quoteSkillPath, SKILL_SIGNATURE_META_KEY } from "./served_entry.ts";
import { MAX_SIGNATURE_FILE_BYTES } from "./verify.ts";
import {
  resolveLimits,
  SIGNATURE_FILE_NAME,
  type SkillLimits,
  skillSignaturePath,
  walkSkillDir,
} from "./walk.ts";
import { frontMatterJson, parseSkillFrontMatter } from "./yaml_front_matter.ts";

/** Options of {@linkcode skillEntryFromFolder}. */
export interface SkillEntryFromFolderOptions extends SkillLimits {
  /**
   * What comes before the skill name in its URIs (default `"skill://"`): the skill's
   * `SKILL.md` is `<uriPrefix><name>/SKILL.md`. Must be `scheme://` optionally followed by a
   * path ending in `/` (`"skill://acme/billing/"`).
   */
  uriPrefix?: string;
  /**
   * Also list the folder's `.schemapin.sig` among `resources`, for a server that serves it as
   * a file too (default false: the signature travels in `_meta` only).
   */
  includeSignatureFile?: boolean;
}

/** A SEP-2640 skill entry with the SchemaPin signature in its `_meta`. */
export interface SkillEntry {
  /** The URI of the skill's `SKILL.md`. */
  uri: string;
  /** `SKILL.md`'s YAML frontmatter as JSON (every scalar a string). */
  frontmatter: JsonObject;
  /**
   * Every file of the skill, sorted by URI: its resource URI (path segments percent-encoded),
   * `sha256:` and the lowercase hex SHA-256 of its raw bytes, and its size in bytes.
   */
  resources: { uri: string; digest: string; size: number }[];
  /** `{"dev.schemapin/signature": <the signature document>}`. */
  _meta: { [key: string]: JsonValue };
}

const PREFIX = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/(?:[^/?#]+\/)*$/;

function invalid(message: string, details: Record<string, unknown> = {}): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", message, details);
}

/** The folder's files with their bytes (the top-level `.schemapin.sig` left out). */
function readFiles(dir: string, limits: SkillLimits): SkillFileContent[] {
  const { maxBytes } = resolveLimits(limits);
  const walk = walkSkillDir(dir, limits);
  let left = maxBytes;
  return walk.files.map((f) => {
    const content = readRegularFile(f.fsPath, Math.max(0, left), "skill file");
    left -= content.length;
    return { path: f.path, content };
  });
}

/**
 * Turns a signed skill folder (`sign-skill`, `signSkillDir`) into its SEP-2640 entry, the
 * signature document in `_meta["dev.schemapin/signature"]`. The name in the URI is `SKILL.md`'s
 * frontmatter `name` (SEP-2640: it is the last segment of the skill path); the digests are
 * SHA-256 of each file's raw bytes.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a folder that is unsigned, whose signature does
 *   not cover its current bytes (re-sign it), whose `SKILL.md` is missing or has no frontmatter
 *   `name`, or a bad `uriPrefix`; what the folder walk throws (a symbolic link, the caps,
 *   `IO_FAILED`).
 *
 * @example Serve a signed folder as a SEP-2640 skill
 * ```ts
 * import { skillEntryFromFolder } from "jsr:@schemapin/schemapin/skill";
 * const entry = skillEntryFromFolder("./pdf-tools"); // signed with `schemapin sign-skill`
 * console.log(entry.uri); // "skill://pdf-tools/SKILL.md"
 * console.log(entry._meta["dev.schemapin/signature"]); // the folder's .schemapin.sig, parsed
 * // Answer skills/get with { skill: entry }, and resources/read of each resources[i].uri.
 * for (const file of entry.resources) console.log(file.uri, file.digest, file.size);
 * ```
 */
export function skillEntryFromFolder(
  dir: string,
  options: SkillEntryFromFolderOptions = {},
): SkillEntry {
  checkArg("skillEntryFromFolder", "dir", dir, "string");
  checkArg("skillEntryFromFolder", "options", options, "object");
  checkArg("skillEntryFromFolder", "options.uriPrefix", options.uriPrefix, "string", true);
  const prefix = options.uriPrefix ?? "skill://";
  if (!PREFIX.test(prefix)) {
    throw invalid(
      `skillEntryFromFolder: options.uriPrefix ${JSON.stringify(prefix)} must be scheme:// ` +
        `optionally followed by a path ending in /`,
      { function: "skillEntryFromFolder", argument: "options.uriPrefix" },
    );
  }
  const limits = { maxEntries: options.maxEntries, maxBytes: options.maxBytes };
  const files = readFiles(dir, limits);
  const sigPath = skillSignaturePath(dir);
  try {
    lstatSync(sigPath);
  } catch (e) {
    // Another failure is reported by the read below (IO_FAILED naming the file).
    if (isNotFound(e)) {
      throw invalid(
        `${showPath(dir)} is not signed: ${showPath(sigPath)} does not exist (sign it with ` +
          `sign-skill)`,
        { path: sigPath },
      );
    }
  }
  const sigBytes = readRegularFile(sigPath, MAX_SIGNATURE_FILE_BYTES, "signature file");
  const signature = parseJson(sigBytes, sigPath);
  const { document, algorithm } = parseSkillSignatureDocument(signature, sigPath);
  // The signature must cover exactly the bytes the entry describes.
  const hash = hashSkillFiles(files, algorithm);
  if (hash.skillHash !== document.skill_hash) {
    throw invalid(
      `${showPath(sigPath)} covers skill_hash ${document.skill_hash}, but the folder hashes to ` +
        `${hash.skillHash}: it changed after signing (re-sign it with sign-skill)`,
      { path: sigPath },
    );
  }
  const skillMd = files.find((f) => f.path === "SKILL.md");
  if (!skillMd) throw invalid(`${showPath(dir)} has no SKILL.md`, { path: dir });
  const source = `${showPath(dir)}/SKILL.md`;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(skillMd.content);
  } catch {
    throw invalid(`${source} is not UTF-8 text`, { path: source });
  }
  const parsed = parseSkillFrontMatter(text, source);
  const frontmatter = parsed === undefined ? undefined : frontMatterJson(parsed);
  const name = frontmatter?.name;
  if (typeof name !== "string" || name === "" || name.includes("/")) {
    throw invalid(`${source} has no frontmatter name (a skill name without "/")`, {
      path: source,
    });
  }
  const root = prefix + quoteSkillPath(name);
  const served = options.includeSignatureFile
    ? [...files, { path: SIGNATURE_FILE_NAME, content: sigBytes }]
    : files;
  const resources = served
    .map((f) => ({
      uri: `${root}/${quoteSkillPath(f.path)}`,
      digest: sha256Digest(f.content),
      size: f.content.length,
    }))
    .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  const entry: SkillEntry = {
    uri: `${root}/SKILL.md`,
    frontmatter: frontmatter!,
    resources,
    _meta: { [SKILL_SIGNATURE_META_KEY]: signature },
  };
  // Read back as a host would: a valid entry whose bytes and frontmatter agree.
  const reads = new Map<string, SkillRead>(
    served.map((f) => [`${root}/${quoteSkillPath(f.path)}`, { bytes: f.content }]),
  );
  const problems = checkServedSkill(parseSkillEntry(entry, showPath(dir)), reads, []).problems;
  if (problems.length > 0) {
    throw invalid(
      `${showPath(dir)}: the entry does not read back: ` +
        problems.map((p) => `${p.file ?? p.skill}: ${p.message}`).join("; "),
      { path: dir },
    );
  }
  return entry;
}
