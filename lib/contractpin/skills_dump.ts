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
import { parseJson } from "../json/parse.ts";
import { encodeBase64, scanBase64 } from "../crypto/base64.ts";
import { ServerFailure } from "../mcp/errors.ts";
import { isNotFound, readFile } from "../runtime/fs.ts";
import { checkServedSkill, type SkillRead } from "../skill/served_check.ts";
import {
  parseFastMcpManifest,
  parseSkillEntry,
  type ServedSkillEntry,
  skillFilePath,
} from "../skill/served_entry.ts";
import type { FetchedSkill, ServedSkills } from "../skill/served_fetch.ts";
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

/**
 * Reads the `skills` member of a parsed dump back into checked skills, exactly as a live fetch
 * checks them: each listed file's bytes against the listing, the frontmatter against
 * `SKILL.md`, and a file the dump holds under a skill that its entry does not list is
 * "unlisted". `undefined` when the dump has no `skills` member (its skills were not saved).
 *
 * @throws {ServerFailure} `malformed`, naming the dump, for a member not of that shape
 *
 * @example
 * ```ts
 * import { skillsFromDump } from "./skills_dump.ts";
 * skillsFromDump({ tools: [], skills: { form: "sep-2640", items: [] } }, "saved")?.form; // "sep-2640"
 * ```
 */
export function skillsFromDump(dump: JsonValue, source: string): ServedSkills | undefined {
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
    const reads = new Map<string, SkillRead>();
    const unlisted: string[] = [];
    const listed = new Set((entry.resources ?? []).map((f) => f.uri));
    for (const [uri, content] of Object.entries(item.files as JsonObject)) {
      const bytes = contentBytes(content);
      if (typeof bytes === "string") throw malformed(source, `items[${i}].files[${uri}] ${bytes}`);
      if (listed.has(uri)) reads.set(uri, { bytes });
      else if (skillFilePath(uri, entry.root) !== undefined) unlisted.push(uri);
      else throw malformed(source, `items[${i}].files: ${uri} is not a file of ${entry.uri}`);
    }
    skills.push({ ...checkServedSkill(entry, reads, unlisted.sort()), entry });
  });
  return { form, skills };
}

/**
 * The skills a `--file` dump saved, read from the file at `path`.
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
): Promise<ServedSkills | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const reason = isNotFound(e) ? "no such file" : (e as Error).message;
    throw new ServerFailure("io", `${source}: cannot read ${path}: ${reason}`);
  }
  let value: JsonValue;
  try {
    value = parseJson(bytes, path);
  } catch (e) {
    throw new ServerFailure("malformed", `${source}: ${(e as Error).message}`);
  }
  return skillsFromDump(value, source);
}
