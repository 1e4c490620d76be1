/**
 * Helpers of the guard's skills tests: skill folders written to disk, and the lock's `skills`
 * member built by hand from the folder bytes with the shared core (`parseSkillEntry`,
 * `parseFastMcpManifest`, `checkServedSkill`), the way `contract init` pins them.
 */
import { digestToolList } from "../../lib/contractpin/digest.ts";
import {
  buildLock,
  type LockServer,
  lockServerEntry,
  type LockSkill,
  type LockSkills,
  serializeLock,
} from "../../lib/contractpin/lock.ts";
import { surfaceKindDigest } from "../../lib/contractpin/surface.ts";
import type { JsonObject } from "../../lib/json/types.ts";
import { checkServedSkill, type PinnedSkill } from "../../lib/skill/served_check.ts";
import { parseFastMcpManifest, parseSkillEntry } from "../../lib/skill/served_entry.ts";
import { entryOf, manifestOf, readSkills } from "./fixtures/skills_server.ts";

/** The fixture server. */
export const SKILLS_SERVER = new URL("./fixtures/skills_server.ts", import.meta.url).pathname;

/** argv of the fixture over stdio, or its args over HTTP (prefix with deno). */
export function skillsServerArgs(root: string, mode: "stdio" | "http", extra: string[] = []) {
  return [
    "run",
    "--quiet",
    "--allow-read",
    ...(mode === "http" ? ["--allow-net=127.0.0.1"] : []),
    SKILLS_SERVER,
    root,
    mode,
    ...extra,
  ];
}

/** The text of a SKILL.md. */
export function skillMd(name: string, description: string, body = `# ${name}\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

/** Writes a skill folder `root/path` with `files` (path → text). */
export async function writeSkillFolder(
  root: string,
  path: string,
  files: Record<string, string>,
): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    const file = `${root}/${path}/${rel}`;
    await Deno.mkdir(file.slice(0, file.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(file, text);
  }
}

/** The lock item of a pinned skill (snake_case, as the lock holds it). */
export function lockItem(p: PinnedSkill): LockSkill {
  if (p.resources === undefined) {
    return { digest: p.digest, frontmatter: p.frontmatter, dynamic: true };
  }
  return {
    digest: p.digest,
    frontmatter: p.frontmatter,
    resources: p.resources.map((r) => ({ ...r })),
    set_digest: p.setDigest!,
    skill_hash: p.skillHash!,
  };
}

/** The `skills` member for pinned skills. */
export function lockSkillsOf(form: LockSkills["form"], pinned: PinnedSkill[]): LockSkills {
  const items: Record<string, LockSkill> = {};
  for (const p of pinned) items[p.uri] = lockItem(p);
  return {
    form,
    count: pinned.length,
    digest: surfaceKindDigest(new Map(Object.entries(items).map(([k, i]) => [k, i.digest]))),
    items,
  };
}

/** Pins every skill of a folder as the fixture serves it (SEP-2640 or FastMCP form). */
export async function pinFolder(root: string, form: LockSkills["form"]): Promise<LockSkills> {
  const pinned: PinnedSkill[] = [];
  for (const s of await readSkills(root)) {
    const entry = form === "fastmcp"
      ? parseFastMcpManifest(await manifestOf(s), `${s.root}/_manifest`)
      : parseSkillEntry(await entryOf(s, true), "fixture");
    const reads = new Map(
      [...s.files].map(([path, bytes]) => [`${s.root}/${path}`, { bytes }] as const),
    );
    const checked = checkServedSkill(entry, reads, []);
    if (checked.problems.length > 0) throw new Error(JSON.stringify(checked.problems));
    pinned.push(checked.pinned);
  }
  return lockSkillsOf(form, pinned);
}

/** A lock server entry with no tools and these skills. */
export function skillsEntry(skills: LockSkills | undefined): LockServer {
  const entry = lockServerEntry({ transport: "stdio", command: ["fixture"] }, digestToolList([]));
  if (skills) entry.skills = skills;
  return entry;
}

/** Writes a lock file holding server `name` with `skills`. */
export async function writeSkillsLock(
  path: string,
  name: string,
  skills: LockSkills,
): Promise<void> {
  await Deno.writeTextFile(path, serializeLock(buildLock({ [name]: skillsEntry(skills) })));
}

/** The frontmatter as the fixture lists it. */
export function fm(name: string, description: string): JsonObject {
  return { name, description };
}
