/**
 * The `skills` member of a `--file` dump (docs/contractpin-skills.md, "Dumps"): written by
 * `contract dump` from the skills a server served, read back by a `--file` target and checked
 * exactly as a live fetch is, so CI can verify a saved dump without running the server.
 *
 * ```json
 * "skills": {
 *   "form": "sep-2640",
 *   "items": [{ "entry": { "uri": "skill://pdf/SKILL.md", "frontmatter": {…}, "resources": […] },
 *               "files": { "skill://pdf/SKILL.md": { "text": "---\nname: pdf…" } } }]
 * }
 * ```
 *
 * For FastMCP (`form: "fastmcp"`) an item's `entry` is `{uri: "skill://NAME/_manifest",
 * manifest}`. A file is `{text}` (UTF-8) or `{blob}` (Base64).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { encodeBase64, scanBase64 } from "../crypto/base64.ts";
import { ServerFailure } from "../mcp/errors.ts";
import { readDumpJson } from "../mcp/file.ts";
import { checkServedSkill, type SkillRead } from "../skill/served_check.ts";
import {
  DEFAULT_SERVER_SKILL_BYTES,
  DEFAULT_SKILL_MAX_BYTES,
  DEFAULT_SKILL_MAX_FILES,
  parseFastMcpManifest,
  parseSkillEntry,
  type ServedSkillEntry,
  skillFilePath,
} from "../skill/served_entry.ts";
import type { FetchedSkill, ServedSkills, SkillFetchOptions } from "../skill/served_fetch.ts";
import type { SkillProblem } from "../skill/served_check.ts";
import { utf8Text } from "./skills_live.ts";

/** The raw entry of a fetched skill, as a dump holds it. */
function rawEntry(entry: ServedSkillEntry): JsonObject {
  if (entry.form === "fastmcp") {
    return {
      uri: `${entry.root}/_manifest`,
      manifest: {
        skill: entry.name,
        files: (entry.resources ?? []).map((f) => ({
          path: f.path,
          ...(f.size !== undefined ? { size: f.size } : {}),
          hash: f.digest,
        })),
      },
    };
  }
  const out: JsonObject = { uri: entry.uri, frontmatter: entry.frontmatter ?? {} };
  if (entry.resources) {
    out.resources = entry.resources.map((f) => ({
      uri: f.uri,
      digest: f.digest,
      ...(f.size !== undefined ? { size: f.size } : {}),
    }));
  }
  if (entry.meta) out._meta = entry.meta;
  return out;
}

/**
 * The `skills` member of a dump: `{form, items}`; `undefined` when the server serves none.
 *
 * @example
 * ```ts
 * import { skillsDumpMember } from "./skills_dump.ts";
 * skillsDumpMember({ form: "sep-2640", skills: [] }); // { form: "sep-2640", items: [] }
 * ```
 */
export function skillsDumpMember(served: ServedSkills | undefined): JsonObject | undefined {
  if (!served || served.form === "none") return undefined;
  const items: JsonValue[] = served.skills.map((s) => {
    const files: JsonObject = {};
    for (const f of s.files) {
      const listed = s.entry.resources?.find((r) => r.path === f.path);
      if (!listed) continue;
      const text = utf8Text(f.content);
      files[listed.uri] = text !== undefined ? { text } : { blob: encodeBase64(f.content) };
    }
    return { entry: rawEntry(s.entry), files };
  });
  return { form: served.form, items };
}

function malformed(source: string, message: string): ServerFailure {
  return new ServerFailure("malformed", `${source}: skills: ${message}`);
}

function contentBytes(content: JsonValue): Uint8Array | string {
  if (!isJsonObject(content) || Object.keys(content).length !== 1) {
    return "must be {text} or {blob}";
  }
  if (typeof content.text === "string") return new TextEncoder().encode(content.text);
  if (typeof content.blob === "string") {
    const b = scanBase64(content.blob);
    return b instanceof Uint8Array ? b : "blob is not valid Base64";
  }
  return "must be {text: string} or {blob: string}";
}

function entryOf(form: string, item: JsonObject, source: string, i: number): ServedSkillEntry {
  try {
    if (form === "fastmcp") {
      const e = item.entry as JsonObject;
      if (typeof e.uri !== "string" || !isJsonObject(e.manifest)) {
        throw malformed(source, `items[${i}].entry must be {uri, manifest}`);
      }
      return parseFastMcpManifest(new TextEncoder().encode(JSON.stringify(e.manifest)), e.uri);
    }
    return parseSkillEntry(item.entry, `${source}: skills.items[${i}]`);
  } catch (e) {
    if (e instanceof SchemaPinError) throw malformed(source, e.message);
    throw e;
  }
}

/** The caps of a fetch, and the bytes already read from one server. */
interface DumpBudget {
  readonly maxFiles: number;
  readonly maxSkillBytes: number;
  readonly maxServerBytes: number;
  used: number;
}

/**
 * The listed files of one skill a dump holds, read within the caps exactly as
 * `fetchServedSkills` reads them live (lib/skill/served_fetch.ts): the listing's file count and
 * sizes first, then each file's bytes in listing order against the skill's and the server's
 * byte caps. A problem of `limit` kind (nothing read) or the reads.
 */
function readWithinCaps(
  entry: ServedSkillEntry,
  files: ReadonlyMap<string, Uint8Array>,
  budget: DumpBudget,
): { limits: SkillProblem[]; reads: Map<string, SkillRead> } {
  const limit = (message: string): SkillProblem => ({ skill: entry.uri, kind: "limit", message });
  const listed = entry.resources ?? [{ uri: entry.uri }];
  const limits: SkillProblem[] = [];
  const reads = new Map<string, SkillRead>();
  if (listed.length > budget.maxFiles) {
    limits.push(limit(`lists ${listed.length} files, over the cap of ${budget.maxFiles}`));
  }
  const listedBytes = (entry.resources ?? []).reduce((n, f) => n + (f.size ?? 0), 0);
  if (listedBytes > budget.maxSkillBytes) {
    limits.push(limit(`lists ${listedBytes} bytes, over the cap of ${budget.maxSkillBytes}`));
  }
  let used = 0;
  for (const f of limits.length === 0 ? listed : []) {
    const bytes = files.get(f.uri);
    if (bytes === undefined) continue; // not saved: "unreadable", as a read that failed
    used += bytes.length;
    budget.used += bytes.length;
    if (used > budget.maxSkillBytes || budget.used > budget.maxServerBytes) {
      const cap = used > budget.maxSkillBytes
        ? `the skill's cap of ${budget.maxSkillBytes} bytes`
        : `the server's cap of ${budget.maxServerBytes} bytes for all skills`;
      limits.push(limit(`reading ${f.uri} went over ${cap}`));
      break;
    }
    reads.set(f.uri, { bytes });
  }
  return { limits, reads: limits.length > 0 ? new Map() : reads };
}

/**
 * Reads the `skills` member of a parsed dump back into checked skills, exactly as a live fetch
 * checks them: within the same caps (`options`: files and bytes per skill, bytes per server;
 * a skill over one is a `limit` problem), each listed file's bytes against the listing, the
 * frontmatter against `SKILL.md`, and a file the dump holds under a skill that its entry does
 * not list is "unlisted". `undefined` when the dump has no `skills` member (its skills were
 * not saved).
 *
 * @throws {ServerFailure} `malformed`, naming the dump, for a member not of that shape
 *
 * @example
 * ```ts
 * import { skillsFromDump } from "./skills_dump.ts";
 * skillsFromDump({ tools: [], skills: { form: "sep-2640", items: [] } }, "saved")?.form; // "sep-2640"
 * ```
 */
export function skillsFromDump(
  dump: JsonValue,
  source: string,
  options: SkillFetchOptions = {},
): ServedSkills | undefined {
  const first = Array.isArray(dump) ? dump[0] : dump;
  const page = isJsonObject(first) && first.jsonrpc === "2.0" && isJsonObject(first.result)
    ? first.result
    : first;
  if (!isJsonObject(page) || !Object.hasOwn(page, "skills")) return undefined;
  const member = page.skills;
  if (!isJsonObject(member) || !Array.isArray(member.items)) {
    throw malformed(source, "must be an object {form, items: [...]}");
  }
  const extra = Object.keys(member).filter((k) => k !== "form" && k !== "items");
  if (extra.length) throw malformed(source, `unknown member ${JSON.stringify(extra[0])}`);
  const form = member.form;
  if (form !== "sep-2640" && form !== "fastmcp") {
    throw malformed(source, `form must be "sep-2640" or "fastmcp"`);
  }
  const skills: FetchedSkill[] = [];
  const seen = new Set<string>();
  const budget: DumpBudget = {
    maxFiles: options.maxFiles ?? DEFAULT_SKILL_MAX_FILES,
    maxSkillBytes: options.maxSkillBytes ?? DEFAULT_SKILL_MAX_BYTES,
    maxServerBytes: options.maxServerBytes ?? DEFAULT_SERVER_SKILL_BYTES,
    used: 0,
  };
  member.items.forEach((item, i) => {
    if (!isJsonObject(item) || !isJsonObject(item.entry) || !isJsonObject(item.files)) {
      throw malformed(source, `items[${i}] must be {entry: {...}, files: {...}}`);
    }
    const extraItem = Object.keys(item).filter((k) => k !== "entry" && k !== "files");
    if (extraItem.length) {
      throw malformed(source, `items[${i}] has unknown member ${JSON.stringify(extraItem[0])}`);
    }
    const entry = entryOf(form, item, source, i);
    if (seen.has(entry.uri)) throw malformed(source, `lists ${entry.uri} twice`);
    seen.add(entry.uri);
    const saved = new Map<string, Uint8Array>();
    const unlisted: string[] = [];
    const listed = new Set((entry.resources ?? []).map((f) => f.uri));
    for (const [uri, content] of Object.entries(item.files as JsonObject)) {
      const bytes = contentBytes(content);
      if (typeof bytes === "string") throw malformed(source, `items[${i}].files[${uri}] ${bytes}`);
      if (listed.has(uri)) saved.set(uri, bytes);
      else if (skillFilePath(uri, entry.root) !== undefined) unlisted.push(uri);
      else throw malformed(source, `items[${i}].files: ${uri} is not a file of ${entry.uri}`);
    }
    // The caps of a live fetch (docs/contractpin-skills.md, "Fetching"), in the same order.
    const { limits, reads } = readWithinCaps(entry, saved, budget);
    const checked = checkServedSkill(entry, reads, unlisted.sort());
    skills.push({ ...checked, problems: limits.length > 0 ? limits : checked.problems, entry });
  });
  return { form, skills };
}

/**
 * The skills a `--file` dump saved, read from the file at `path` and checked within the caps
 * of `options` as a live fetch is.
 *
 * @throws {ServerFailure} `io` when the file cannot be read, `malformed` for a bad member
 *
 * @example
 * ```ts ignore
 * const served = await readDumpSkills("saved.json", "server saved");
 * ```
 */
export async function readDumpSkills(
  path: string,
  source: string,
  options: SkillFetchOptions = {},
): Promise<ServedSkills | undefined> {
  return skillsFromDump(await readDumpJson(path, source), source, options);
}
