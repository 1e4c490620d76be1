/**
 * The values of the cap flags every skill command takes (`--max-entries N`, `--max-bytes SIZE`:
 * `LIMIT_FLAGS` of lib/cli/flag_groups.ts), as the library's `SkillLimits`.
 *
 * @module
 */
import type { SkillLimits } from "../skill/walk.ts";
import { UsageError } from "./command.ts";

const SIZE_UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/**
 * The caps given with `--max-entries N` and `--max-bytes SIZE` (`SIZE` in bytes or with a
 * `K`, `M` or `G` suffix, powers of 1024).
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
    if (!/^[1-9]\d{0,8}$/.test(entries)) {
      throw new UsageError(`${command}: --max-entries must be a positive integer`);
    }
    limits.maxEntries = Number(entries);
  }
  const bytes = values["max-bytes"];
  if (bytes !== undefined) {
    const m = /^([1-9]\d{0,15})([kmg]?)(?:i?b)?$/i.exec(bytes);
    const n = m ? Number(m[1]) * SIZE_UNITS[m[2].toLowerCase()] : NaN;
    if (!Number.isSafeInteger(n)) {
      throw new UsageError(
        `${command}: --max-bytes must be a size in bytes, or with K, M or G (e.g. 512M)`,
      );
    }
    limits.maxBytes = n;
  }
  return limits;
}
