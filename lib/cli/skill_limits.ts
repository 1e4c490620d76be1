/**
 * The values of the cap flags every skill command takes (`--max-entries N`, `--max-bytes SIZE`:
 * `LIMIT_FLAGS` of lib/cli/flag_groups.ts), as the library's `SkillLimits`.
 *
 * @module
 */
import { parseByteSize, parseEntryCount } from "../skill/limits.ts";
import type { SkillLimits } from "../skill/walk.ts";
import { UsageError } from "./command.ts";

/**
 * The caps given with `--max-entries N` and `--max-bytes SIZE` (`parseEntryCount` and
 * `parseByteSize` of lib/skill/limits.ts); a usage error naming the flag otherwise.
 *
 * @example
 * ```ts
 * import { limitsFromArgs } from "./skill_limits.ts";
 * limitsFromArgs("hash-skill", { "max-bytes": "1G" }); // { maxBytes: 1073741824 }
 * ```
 */
export function limitsFromArgs(
  command: string,
  values: { "max-entries"?: string; "max-bytes"?: string },
): SkillLimits {
  const limits: SkillLimits = {};
  const entries = values["max-entries"];
  if (entries !== undefined) {
    limits.maxEntries = parseEntryCount(entries);
    if (limits.maxEntries === undefined) {
      throw new UsageError(`${command}: --max-entries must be a positive integer`);
    }
  }
  const bytes = values["max-bytes"];
  if (bytes !== undefined) {
    limits.maxBytes = parseByteSize(bytes);
    if (limits.maxBytes === undefined) {
      throw new UsageError(
        `${command}: --max-bytes must be a size in bytes, or with K, M or G (e.g. 512M)`,
      );
    }
  }
  return limits;
}
