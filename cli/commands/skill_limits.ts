/**
 * The values of the cap flags every skill command takes (`--max-entries N`, `--max-bytes SIZE`:
 * `LIMIT_FLAGS` of cli/commands/flag_groups.ts), as the library's `SkillLimits`.
 *
 * @module
 */
import { skillLimitsFrom } from "../skill/limits.ts";
import type { SkillLimits } from "../../lib/skill/walk.ts";
import { asUsage } from "./command.ts";

/**
 * The caps given with `--max-entries N` and `--max-bytes SIZE` (`skillLimitsFrom` of
 * lib/skill/limits.ts); a usage error naming the flag otherwise.
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
  return asUsage(command, () => skillLimitsFrom(values));
}
