/**
 * The skill caps of the commands, `--max-entries N` and `--max-bytes SIZE`, as the library's
 * typed `SkillLimits` (lib/skill/walk.ts): a count and a size parsed by lib/skill/limits.ts, or a
 * usage error naming the option.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { usageError } from "../../lib/errors.ts";
import { parseByteSize, parseEntryCount } from "../../lib/skill/limits.ts";
import type { SkillLimits } from "../../lib/skill/walk.ts";

/**
 * The caps given as the options `--max-entries N` and `--max-bytes SIZE`
 * ({@linkcode parseEntryCount}, {@linkcode parseByteSize}); the others are left out.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` naming the option whose value
 *   is not a count or a size.
 *
 * @example
 * ```ts
 * import { skillLimitsFrom } from "./limits.ts";
 * skillLimitsFrom({ "max-bytes": "1G" }); // { maxBytes: 1073741824 }
 * ```
 */
export function skillLimitsFrom(
  values: { readonly "max-entries"?: string; readonly "max-bytes"?: string },
): SkillLimits {
  checkArg("skillLimitsFrom", "values", values, "object");
  const limits: SkillLimits = {};
  const entries = values["max-entries"];
  if (entries !== undefined) {
    limits.maxEntries = parseEntryCount(entries);
    if (limits.maxEntries === undefined) {
      throw usageError("--max-entries must be a positive integer", { option: "max-entries" });
    }
  }
  const bytes = values["max-bytes"];
  if (bytes !== undefined) {
    limits.maxBytes = parseByteSize(bytes);
    if (limits.maxBytes === undefined) {
      throw usageError("--max-bytes must be a size in bytes, or with K, M or G (e.g. 512M)", {
        option: "max-bytes",
      });
    }
  }
  return limits;
}
