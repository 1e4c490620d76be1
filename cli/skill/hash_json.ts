/**
 * A skill folder's hash (§4b, lib/skill/hash.ts) as JSON fields, as `schemapin hash-skill
 * --json` prints them.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import type { SkillHash } from "../../lib/skill/hash.ts";

/**
 * The JSON fields of a folder's hash: `skill_hash`, `files` (how many), `total_bytes` and
 * `file_manifest` (path → `sha256:` digest of the entry).
 *
 * @example
 * ```ts ignore
 * import { skillHashJson } from "./hash_json.ts";
 * skillHashJson(await hashSkillDir("pdf-tools")); // { skill_hash: "sha256:…", files: 3, … }
 * ```
 */
export function skillHashJson(hash: SkillHash): {
  skill_hash: string;
  files: number;
  total_bytes: number;
  file_manifest: Record<string, string>;
} {
  checkArg("skillHashJson", "hash", hash, "object");
  return {
    skill_hash: hash.skillHash,
    files: hash.entries.length,
    total_bytes: hash.totalBytes,
    file_manifest: hash.manifest,
  };
}
