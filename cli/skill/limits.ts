/**
 * The skill caps of the commands, `--max-entries N` and `--max-bytes SIZE`, as the library's
 * typed `SkillLimits` (lib/skill/walk.ts, §4b.2): a count of files and a size in bytes written as
 * text (`512M`, `1G`), or a usage error naming the option.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { usageError } from "../../lib/errors.ts";
import type { SkillLimits } from "../../lib/skill/walk.ts";

const SIZE_UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/**
 * A positive count of files (`maxEntries`): 1 to 999,999,999 in plain decimal digits;
 * `undefined` for anything else.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a `text` that is not a string (misuse).
 *
 * @example
 * ```ts
 * import { parseEntryCount } from "./limits.ts";
 * parseEntryCount("500"); // 500
 * parseEntryCount("0"); // undefined
 * ```
 */
export function parseEntryCount(text: string): number | undefined {
  checkArg("parseEntryCount", "text", text, "string");
  return /^[1-9]\d{0,8}$/.test(text) ? Number(text) : undefined;
}

/**
 * A positive size in bytes (`maxBytes`): digits, optionally with a `K`, `M` or `G` suffix
 * (powers of 1024, any case) and then `B` or `iB` (`512M`, `1GiB`, `4096b`); `undefined` for
 * anything else or beyond `Number.MAX_SAFE_INTEGER`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a `text` that is not a string (misuse).
 *
 * @example
 * ```ts
 * import { parseByteSize } from "./limits.ts";
 * parseByteSize("1G"); // 1073741824
 * parseByteSize("1.5G"); // undefined
 * ```
 */
export function parseByteSize(text: string): number | undefined {
  checkArg("parseByteSize", "text", text, "string");
  const m = /^([1-9]\d{0,15})([kmg]?)(?:i?b)?$/i.exec(text);
  const n = m ? Number(m[1]) * SIZE_UNITS[m[2].toLowerCase()] : NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}

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
