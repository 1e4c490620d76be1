/**
 * Skills served over MCP, as a listing describes them: the SEP-2640 skill entry
 * (`io.modelcontextprotocol/skills`: `{uri, frontmatter, resources: [{uri, digest, size?}]}` from
 * `skills/list` or `skills/get`) and FastMCP 4's older form (`skill://NAME/SKILL.md` with a
 * `skill://NAME/_manifest` resource, JSON `{skill, files: [{path, size, hash}]}`), both read into
 * one {@linkcode ServedSkillEntry}. Pure: values in, an entry out, or a `SchemaPinError` naming
 * the skill and the member that is wrong (docs/skills-over-mcp.md).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonObject } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { parseJson } from "../json/parse.ts";
import { checkSkillPath } from "./hash.ts";

/** The SEP-2640 extension identifier a server declares in `capabilities.extensions`. */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/**
 * The `_meta` key under which a skill entry may carry its SchemaPin signature document (§4b),
 * in schemapin's own reverse-domain prefix as SEP-2640 asks of intermediaries.
 */
export const SKILL_SIGNATURE_META_KEY = "dev.schemapin/signature";

/** Files and bytes per skill that SEP-2640 hosts are expected to read at most. */
export const DEFAULT_SKILL_MAX_FILES = 512;
/** 16 MiB per skill. */
export const DEFAULT_SKILL_MAX_BYTES: number = 16 * 1024 * 1024;
/** 256 MiB over all the skills of one server. */
export const DEFAULT_SERVER_SKILL_BYTES: number = 256 * 1024 * 1024;

/** `sha256:` and 64 lowercase hex digits: the SEP's digest form. */
export const SKILL_DIGEST_PATTERN: RegExp = /^sha256:[0-9a-f]{64}$/;

/** Which form the server serves the skill in. */
export type ServedSkillForm = "sep-2640" | "fastmcp";

/** One file of a skill as the listing gives it. */
export interface ServedSkillFile {
  /** Its resource URI. */
  readonly uri: string;
  /** Its path relative to the skill root (`scripts/run.sh`), decoded. */
  readonly path: string;
  /** `sha256:<hex>` of its raw bytes, as listed. */
  readonly digest: string;
  /** Its size in bytes, when listed. */
  readonly size?: number;
}

/** A skill as a listing describes it. */
export interface ServedSkillEntry {
  /** The form it was listed in. */
  readonly form: ServedSkillForm;
  /** The URI of its `SKILL.md`. */
  readonly uri: string;
  /** The skill root: `uri` without `/SKILL.md`. */
  readonly root: string;
  /** The skill name: the last segment of the skill path. */
  readonly name: string;
  /** The listed frontmatter (SEP-2640 only; FastMCP lists none). */
  readonly frontmatter?: JsonObject;
  /** Every file, sorted by URI; absent for a dynamic skill (SEP-2640 without `resources`). */
  readonly resources?: readonly ServedSkillFile[];
  /** The entry's `_meta`, when it has one. */
  readonly meta?: JsonObject;
}

function malformed(where: string, message: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", `${where}: ${message}`, { reason: "skill_entry" });
}

/**
 * Splits a skill's `SKILL.md` URI into its root and name, or says why it cannot be one.
 *
 * @example
 * ```ts
 * import { skillUriParts } from "./served_entry.ts";
 * skillUriParts("skill://acme/billing/refunds/SKILL.md"); // { root: "skill://acme/billing/refunds", name: "refunds" }
 * ```
 */
export function skillUriParts(uri: string): { root: string; name: string } | string {
  if (!uri.endsWith("/SKILL.md")) return `${JSON.stringify(uri)} does not end in /SKILL.md`;
  const root = uri.slice(0, -"/SKILL.md".length);
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(root);
  if (!scheme || root.length === scheme[0].length) {
    return `${JSON.stringify(uri)} has no skill path (scheme://PATH/SKILL.md)`;
  }
  const name = root.slice(root.lastIndexOf("/") + 1);
  return { root, name: decodeSegment(name) ?? name };
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The path of `uri` relative to the skill `root`, decoded, or `undefined` when `uri` is not a
 * file inside that skill (another skill, a traversal, a malformed escape).
 *
 * @example
 * ```ts
 * import { skillFilePath } from "./served_entry.ts";
 * skillFilePath("skill://pdf/scripts/a%20b.sh", "skill://pdf"); // "scripts/a b.sh"
 * skillFilePath("skill://other/SKILL.md", "skill://pdf"); // undefined
 * ```
 */
export function skillFilePath(uri: string, root: string): string | undefined {
  if (!uri.startsWith(root + "/")) return undefined;
  const segments = uri.slice(root.length + 1).split("/").map(decodeSegment);
  if (segments.some((s) => s === undefined || s.includes("/"))) return undefined;
  const path = segments.join("/");
  return checkSkillPath(path) === undefined ? path : undefined;
}

/** Percent-encodes a path as FastMCP does (Python's `quote(path, safe="/")`). */
export function quoteSkillPath(path: string): string {
  return path.split("/").map((s) =>
    encodeURIComponent(s).replace(
      /[!'()*]/g,
      (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase(),
    )
  ).join("/");
}

function sortFiles(files: ServedSkillFile[], where: string): ServedSkillFile[] {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.uri)) throw malformed(where, `lists ${f.uri} twice`);
    seen.add(f.uri);
  }
  return files.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

function readSize(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw malformed(where, "size must be a non-negative integer");
  }
  return value;
}

/**
 * Reads one SEP-2640 skill entry (an element of `skills/list`'s `skills`, or `skills/get`'s
 * `skill`). Checks what the SEP requires of its shape: a `uri` ending in `/SKILL.md`, a
 * `frontmatter` object whose `name` equals the last segment of the skill path, and, when
 * `resources` is present, a complete list of files inside the skill, each once, with
 * `sha256:<hex>` digests, the entry's own `SKILL.md` among them.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming `where` and the member.
 *
 * @example
 * ```ts
 * import { parseSkillEntry } from "./served_entry.ts";
 * const d = "sha256:" + "0".repeat(64);
 * const e = parseSkillEntry({
 *   uri: "skill://pdf/SKILL.md",
 *   frontmatter: { name: "pdf", description: "PDFs" },
 *   resources: [{ uri: "skill://pdf/SKILL.md", digest: d }],
 * }, "server files");
 * e.resources?.[0].path; // "SKILL.md"
 * ```
 */
export function parseSkillEntry(value: unknown, where: string): ServedSkillEntry {
  if (!isJsonObject(value)) throw malformed(where, "a skill entry must be an object");
  const uri = value.uri;
  if (typeof uri !== "string") throw malformed(where, "a skill entry needs a string uri");
  const at = `${where}, skill ${uri}`;
  const parts = skillUriParts(uri);
  if (typeof parts === "string") throw malformed(at, parts);
  const fm = value.frontmatter;
  if (!isJsonObject(fm)) throw malformed(at, "frontmatter must be an object");
  if (fm.name !== parts.name) {
    throw malformed(
      at,
      `frontmatter.name ${JSON.stringify(fm.name)} is not the last segment of the skill ` +
        `path (${JSON.stringify(parts.name)})`,
    );
  }
  if (value._meta !== undefined && !isJsonObject(value._meta)) {
    throw malformed(at, "_meta must be an object");
  }
  const base = {
    form: "sep-2640" as const,
    uri,
    ...parts,
    frontmatter: fm,
    ...(value._meta !== undefined ? { meta: value._meta as JsonObject } : {}),
  };
  if (value.resources === undefined) return base;
  if (!Array.isArray(value.resources)) throw malformed(at, "resources must be an array");
  const files = value.resources.map((r, i) => {
    const w = `${at}, resources[${i}]`;
    if (!isJsonObject(r) || typeof r.uri !== "string") throw malformed(w, "needs a string uri");
    const path = skillFilePath(r.uri, parts.root);
    if (path === undefined) throw malformed(w, `${r.uri} is not a file of the skill`);
    if (typeof r.digest !== "string" || !SKILL_DIGEST_PATTERN.test(r.digest)) {
      throw malformed(w, "digest must be sha256: and 64 lowercase hex digits");
    }
    const size = readSize(r.size, w);
    return { uri: r.uri, path, digest: r.digest, ...(size !== undefined ? { size } : {}) };
  });
  if (!files.some((f) => f.uri === uri)) {
    throw malformed(at, "resources does not list the skill's own SKILL.md");
  }
  return { ...base, resources: sortFiles(files, at) };
}

/**
 * Reads a FastMCP `skill://NAME/_manifest` resource into an entry: each `files[]` item
 * `{path, size, hash}` becomes the file `skill://NAME/<path>` (percent-encoded as FastMCP
 * does). A manifest that names another skill, lists no `SKILL.md`, or a path outside the skill
 * is refused.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` or `JSON_INVALID` naming `where`.
 *
 * @example
 * ```ts
 * import { parseFastMcpManifest } from "./served_entry.ts";
 * const m = JSON.stringify({
 *   skill: "pdf",
 *   files: [{ path: "SKILL.md", size: 3, hash: "sha256:" + "0".repeat(64) }],
 * });
 * parseFastMcpManifest(new TextEncoder().encode(m), "skill://pdf/_manifest").uri; // "skill://pdf/SKILL.md"
 * ```
 */
export function parseFastMcpManifest(bytes: Uint8Array, manifestUri: string): ServedSkillEntry {
  const m = /^skill:\/\/([^/]+)\/_manifest$/.exec(manifestUri);
  if (!m) throw malformed(manifestUri, "a FastMCP manifest is skill://NAME/_manifest");
  const root = `skill://${m[1]}`;
  const name = decodeSegment(m[1]) ?? m[1];
  const doc = parseJson(bytes, manifestUri);
  if (!isJsonObject(doc) || !Array.isArray(doc.files)) {
    throw malformed(manifestUri, "the manifest must be an object with a files array");
  }
  if (doc.skill !== undefined && doc.skill !== name) {
    throw malformed(manifestUri, `the manifest names skill ${JSON.stringify(doc.skill)}`);
  }
  const files = doc.files.map((f, i) => {
    const w = `${manifestUri}, files[${i}]`;
    if (!isJsonObject(f) || typeof f.path !== "string" || checkSkillPath(f.path) !== undefined) {
      throw malformed(w, "needs a relative path inside the skill");
    }
    if (typeof f.hash !== "string" || !SKILL_DIGEST_PATTERN.test(f.hash)) {
      throw malformed(w, "hash must be sha256: and 64 lowercase hex digits");
    }
    const size = readSize(f.size, w);
    const uri = `${root}/${quoteSkillPath(f.path)}`;
    return { uri, path: f.path, digest: f.hash, ...(size !== undefined ? { size } : {}) };
  });
  const uri = `${root}/SKILL.md`;
  if (!files.some((f) => f.uri === uri)) throw malformed(manifestUri, "lists no SKILL.md");
  return { form: "fastmcp", uri, root, name, resources: sortFiles(files, manifestUri) };
}
