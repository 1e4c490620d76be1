/**
 * Fetching the skills a server serves over MCP, on an open session (`ListOptions.afterList`
 * of `lib/mcp/session.ts`): SEP-2640 (`skills/list` with its paging rules, or `skills/get` for
 * one skill, then `resources/read` of every listed file) on a server that declares
 * `io.modelcontextprotocol/skills`, else FastMCP 4's `skill://NAME/_manifest` resources. Caps
 * bound what is read: files and bytes per skill, bytes per server (docs/skills-over-mcp.md).
 * Each skill is then checked by {@linkcode checkServedSkill}.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { scanBase64 } from "../crypto/base64.ts";
import { SchemaPinError } from "../errors.ts";
import { ServerFailure } from "../mcp/errors.ts";
import { collectList, type ListedSession } from "../mcp/session.ts";
import {
  DEFAULT_SERVER_SKILL_BYTES,
  DEFAULT_SKILL_MAX_BYTES,
  DEFAULT_SKILL_MAX_FILES,
  parseFastMcpManifest,
  parseSkillEntry,
  type ServedSkillEntry,
  skillFilePath,
  SKILLS_EXTENSION,
  skillUriParts,
} from "./served_entry.ts";
import {
  type CheckedSkill,
  checkServedSkill,
  type SkillProblem,
  type SkillRead,
} from "./served_check.ts";

/** Caps and choices of a fetch. */
export interface SkillFetchOptions {
  /** Most files per skill (default 512). */
  maxFiles?: number;
  /** Most bytes per skill (default 16 MiB). */
  maxSkillBytes?: number;
  /** Most bytes over all the skills of the server (default 256 MiB). */
  maxServerBytes?: number;
  /** Fetch this one skill (its `SKILL.md` URI) with `skills/get` instead of listing them all. */
  only?: string;
}

/** A fetched and checked skill with the entry it was listed as. */
export interface FetchedSkill extends CheckedSkill {
  /** The listing's entry. */
  readonly entry: ServedSkillEntry;
}

/** What a server serves in skills, and how. */
export interface ServedSkills {
  /** `sep-2640` (declares the extension), `fastmcp` (serves `_manifest`s) or `none`. */
  readonly form: "sep-2640" | "fastmcp" | "none";
  /** Every skill found, checked. */
  readonly skills: FetchedSkill[];
}

/** True when the server declares the SEP-2640 extension. */
export function declaresSkills(capabilities: JsonObject): boolean {
  const ext = capabilities.extensions;
  return isJsonObject(ext) && Object.hasOwn(ext, SKILLS_EXTENSION) &&
    isJsonObject(ext[SKILLS_EXTENSION]);
}

function declaresDirectoryRead(capabilities: JsonObject): boolean {
  const ext = capabilities.extensions;
  if (!isJsonObject(ext)) return false;
  const skills = ext[SKILLS_EXTENSION];
  return isJsonObject(skills) && skills.directoryRead === true;
}

/**
 * Decodes a `resources/read` result for `uri` into bytes: exactly one content item, for that
 * URI, with `text` (UTF-8) or `blob` (strict Base64). Anything else is a reason string.
 *
 * @example
 * ```ts
 * import { readContentBytes } from "./served_fetch.ts";
 * readContentBytes({ contents: [{ uri: "skill://a/SKILL.md", text: "# a" }] }, "skill://a/SKILL.md");
 * ```
 */
export function readContentBytes(result: JsonValue, uri: string): Uint8Array | string {
  if (!isJsonObject(result) || !Array.isArray(result.contents)) {
    return "the read result has no contents array";
  }
  if (result.contents.length !== 1) {
    return `the read returned ${result.contents.length} contents, not 1`;
  }
  const c = result.contents[0];
  if (!isJsonObject(c)) return "the content is not an object";
  if (c.uri !== uri) return `the content is for ${JSON.stringify(c.uri)}, not the URI read`;
  const hasText = Object.hasOwn(c, "text");
  const hasBlob = Object.hasOwn(c, "blob");
  if (hasText === hasBlob) return "the content must have exactly one of text and blob";
  if (hasText) {
    if (typeof c.text !== "string" || !c.text.isWellFormed()) return "text is not a string";
    return new TextEncoder().encode(c.text);
  }
  if (typeof c.blob !== "string") return "blob is not a string";
  const bytes = scanBase64(c.blob);
  return bytes instanceof Uint8Array ? bytes : "blob is not valid Base64";
}

/** The running byte budget of one server. */
class Budget {
  used = 0;
  constructor(readonly max: number) {}
}

/**
 * Fetches and checks the skills the server of `session` serves. A server that declares
 * neither form yields `form: "none"` (or, when `options.only` names a skill, a failure).
 * Throws {@linkcode ServerFailure} for a listing the server cannot give (an error, a malformed
 * page) and `SchemaPinError` for an entry that is malformed; contradictions between a listing
 * and the bytes are in each skill's `problems`.
 *
 * @example
 * ```ts ignore
 * let skills: ServedSkills | undefined;
 * await listTools(transport, { afterList: async (s) => { skills = await fetchServedSkills(s); } });
 * ```
 */
export async function fetchServedSkills(
  session: ListedSession,
  options: SkillFetchOptions = {},
): Promise<ServedSkills> {
  const budget = new Budget(options.maxServerBytes ?? DEFAULT_SERVER_SKILL_BYTES);
  const entries = declaresSkills(session.capabilities)
    ? { form: "sep-2640" as const, list: await sepEntries(session, options.only) }
    : await fastMcpEntries(session, options.only);
  if (entries.form === "none" && options.only !== undefined) {
    throw new ServerFailure(
      "protocol",
      `${session.source}: serves no skills (it declares no ${SKILLS_EXTENSION} extension ` +
        `and serves no skill://NAME/_manifest)`,
    );
  }
  const skills: FetchedSkill[] = [];
  for (const entry of entries.list) {
    skills.push(await fetchOne(session, entry, options, budget));
  }
  return { form: entries.form, skills };
}

async function sepEntries(session: ListedSession, only?: string): Promise<ServedSkillEntry[]> {
  const where = `${session.source}: skills/${only === undefined ? "list" : "get"}`;
  if (only !== undefined) {
    const result = await session.request("skills/get", { uri: only });
    const entry = parseSkillEntry(result.skill, where);
    if (entry.uri !== only) {
      throw new SchemaPinError("INPUT_INVALID", `${where}: asked for ${only}, got ${entry.uri}`);
    }
    return [entry];
  }
  const { items } = await collectList(
    (cursor) => session.request("skills/list", cursor === undefined ? {} : { cursor }),
    session.maxPages,
    session.source,
    "skills/list",
    "skills",
  );
  const entries = items.map((item, i) => parseSkillEntry(item, `${where}, skills[${i}]`));
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.uri)) {
      throw new SchemaPinError("INPUT_INVALID", `${where}: lists ${e.uri} twice`);
    }
    seen.add(e.uri);
  }
  return entries;
}

const MANIFEST = /^skill:\/\/[^/]+\/_manifest$/;

async function fastMcpEntries(
  session: ListedSession,
  only?: string,
): Promise<{ form: "fastmcp" | "none"; list: ServedSkillEntry[] }> {
  let manifests = resourceUris(session.resources).filter((u) => MANIFEST.test(u));
  if (only !== undefined) {
    const parts = skillUriParts(only);
    const wanted = typeof parts === "string" ? undefined : `${parts.root}/_manifest`;
    manifests = manifests.filter((u) => u === wanted);
    // A skill served only through the template is read by its manifest URI all the same.
    if (manifests.length === 0 && wanted && MANIFEST.test(wanted) && session.resources) {
      manifests = [wanted];
    }
  }
  if (manifests.length === 0) return { form: "none", list: [] };
  const list: ServedSkillEntry[] = [];
  for (const uri of manifests.sort()) {
    const bytes = await readBytes(session, uri);
    if (typeof bytes === "string") {
      throw new ServerFailure("protocol", `${session.source}: ${uri}: ${bytes}`);
    }
    list.push(parseFastMcpManifest(bytes, uri));
  }
  return { form: "fastmcp", list };
}

function resourceUris(resources: JsonValue[] | undefined): string[] {
  return (resources ?? []).flatMap((r) =>
    isJsonObject(r) && typeof r.uri === "string" ? [r.uri] : []
  );
}

async function readBytes(session: ListedSession, uri: string): Promise<Uint8Array | string> {
  let result: JsonObject;
  try {
    result = await session.request("resources/read", { uri });
  } catch (e) {
    if (e instanceof ServerFailure && e.kind === "rpc_error") return e.message;
    throw e;
  }
  return readContentBytes(result, uri);
}

function limitProblem(entry: ServedSkillEntry, message: string): SkillProblem {
  return { skill: entry.uri, kind: "limit", message };
}

/** Reads every listed file of one skill within the caps, then checks it. */
async function fetchOne(
  session: ListedSession,
  entry: ServedSkillEntry,
  options: SkillFetchOptions,
  budget: Budget,
): Promise<FetchedSkill> {
  const maxFiles = options.maxFiles ?? DEFAULT_SKILL_MAX_FILES;
  const maxBytes = options.maxSkillBytes ?? DEFAULT_SKILL_MAX_BYTES;
  const files = entry.resources ?? [{ uri: entry.uri }];
  const reads = new Map<string, SkillRead>();
  const limits: SkillProblem[] = [];
  if (files.length > maxFiles) {
    limits.push(limitProblem(entry, `lists ${files.length} files, over the cap of ${maxFiles}`));
  }
  const listedBytes = (entry.resources ?? []).reduce((n, f) => n + (f.size ?? 0), 0);
  if (listedBytes > maxBytes) {
    limits.push(limitProblem(entry, `lists ${listedBytes} bytes, over the cap of ${maxBytes}`));
  }
  let used = 0;
  for (const f of limits.length === 0 ? files : []) {
    const bytes = await readBytes(session, f.uri);
    if (typeof bytes === "string") {
      reads.set(f.uri, { error: bytes });
      continue;
    }
    used += bytes.length;
    budget.used += bytes.length;
    if (used > maxBytes || budget.used > budget.max) {
      const cap = used > maxBytes
        ? `the skill's cap of ${maxBytes} bytes`
        : `the server's cap of ${budget.max} bytes for all skills`;
      limits.push(limitProblem(entry, `reading ${f.uri} went over ${cap}`));
      break;
    }
    reads.set(f.uri, { bytes });
  }
  const unlisted = entry.resources === undefined
    ? []
    : await unlistedFiles(session, entry, maxFiles);
  const checked = checkServedSkill(entry, limits.length > 0 ? new Map() : reads, unlisted);
  const problems = limits.length > 0 ? limits : checked.problems;
  return { ...checked, problems, entry };
}

/**
 * Files the server serves under the skill's root that the entry does not list: from
 * `resources/list`, and from `resources/directory/read` when the server declares
 * `directoryRead` (bounded by the file cap).
 */
async function unlistedFiles(
  session: ListedSession,
  entry: ServedSkillEntry,
  maxFiles: number,
): Promise<string[]> {
  const listed = new Set((entry.resources ?? []).map((f) => f.uri));
  const found = new Set<string>();
  for (const uri of resourcesUnder(session.resources).get(entry.root) ?? []) {
    if (entry.form === "fastmcp" && uri === `${entry.root}/_manifest`) continue;
    if (!listed.has(uri) && skillFilePath(uri, entry.root) !== undefined) found.add(uri);
  }
  if (entry.form === "sep-2640" && declaresDirectoryRead(session.capabilities)) {
    for (const uri of await walkDirectory(session, entry.root, maxFiles * 4)) {
      if (!listed.has(uri)) found.add(uri);
    }
  }
  return [...found].sort();
}

const underCache = new WeakMap<JsonValue[], Map<string, string[]>>();

/**
 * The URIs of `resources/list` by every folder prefix that holds them (`skill://a/b/c.md` under
 * `skill://a` and `skill://a/b`), built once per listing: each skill then looks up its root
 * instead of scanning the whole listing (skills × resources for a large catalog).
 */
function resourcesUnder(resources: JsonValue[] | undefined): Map<string, string[]> {
  if (resources === undefined) return new Map();
  const cached = underCache.get(resources);
  if (cached) return cached;
  const under = new Map<string, string[]>();
  for (const uri of resourceUris(resources)) {
    for (let i = uri.indexOf("/", uri.indexOf("://") + 3); i > 0; i = uri.indexOf("/", i + 1)) {
      const prefix = uri.slice(0, i);
      const list = under.get(prefix);
      if (list) list.push(uri);
      else under.set(prefix, [uri]);
    }
  }
  underCache.set(resources, under);
  return under;
}

/** Every file under `root` by `resources/directory/read`, at most `maxCalls` requests. */
async function walkDirectory(
  session: ListedSession,
  root: string,
  maxCalls: number,
): Promise<string[]> {
  const files: string[] = [];
  const queue = [root];
  let calls = 0;
  for (let next = 0; next < queue.length; next++) {
    const dir = queue[next];
    if (++calls > maxCalls) {
      throw new ServerFailure(
        "protocol",
        `${session.source}: resources/directory/read under ${root} needs more than ${maxCalls} requests`,
      );
    }
    const { items } = await collectList(
      (cursor) =>
        session.request(
          "resources/directory/read",
          cursor === undefined ? { uri: dir } : { uri: dir, cursor },
        ),
      session.maxPages,
      session.source,
      "resources/directory/read",
      "resources",
    );
    for (const item of items) {
      if (!isJsonObject(item) || typeof item.uri !== "string") continue;
      if (skillFilePath(item.uri, root) === undefined) continue;
      (item.mimeType === "inode/directory" ? queue : files).push(item.uri);
    }
  }
  return files;
}
