/**
 * The caps of a skill folder (`SkillLimits` of lib/skill/walk.ts, §4b.2) written as text, as
 * a command line or a configuration file gives them: a count of files, a size in bytes (the
 * CLI's options become `SkillLimits` in cli/skill/limits.ts).
 *
 * @module
 */
import { checkArg } from "../arguments.ts";

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
