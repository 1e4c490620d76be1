/**
 * The skill options of the live `contract` subcommands (docs/contractpin-skills.md):
 * `--max-skill-files N`, `--max-skill-bytes SIZE`, `--max-server-skill-bytes SIZE` and
 * `--allow-dynamic-skills` as the library's typed `SkillRunOptions`
 * (lib/contractpin/skills_live.ts): a count as `--max-entries` takes it, sizes as `--max-bytes`
 * does (`512M`, `1G`; lib/skill/limits.ts), or a usage error naming the option.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { usageError } from "../../lib/errors.ts";
import type { SkillRunOptions } from "../../lib/contractpin/skills_live.ts";
import { parseByteSize, parseEntryCount } from "../skill/limits.ts";

/** The skill options of a command line, as text by option name. */
export interface SkillRunText {
  /** `--max-skill-files N`. */
  readonly "max-skill-files"?: string;
  /** `--max-skill-bytes SIZE`. */
  readonly "max-skill-bytes"?: string;
  /** `--max-server-skill-bytes SIZE`. */
  readonly "max-server-skill-bytes"?: string;
  /** `--allow-dynamic-skills`. */
  readonly "allow-dynamic-skills"?: boolean;
}

/**
 * The `SkillRunOptions` of a command line: a count as `--max-entries` takes it, sizes as
 * `--max-bytes` does (`512M`, `1G`; lib/skill/limits.ts).
 *
 * @throws {SchemaPinError} a usage error naming the option whose value is not a count or size
 *
 * @example
 * ```ts
 * import { skillRunOptions } from "./skill_run_options.ts";
 * skillRunOptions({ "max-skill-bytes": "1M" }).maxSkillBytes; // 1048576
 * ```
 */
export function skillRunOptions(values: SkillRunText): SkillRunOptions {
  checkArg("skillRunOptions", "values", values, "object");
  const out: SkillRunOptions = {};
  const files = values["max-skill-files"];
  if (files !== undefined) {
    out.maxFiles = parseEntryCount(files);
    if (out.maxFiles === undefined) {
      throw usageError(`--max-skill-files must be a positive integer (got ${files})`, {
        option: "max-skill-files",
      });
    }
  }
  for (
    const [flag, key] of [
      ["max-skill-bytes", "maxSkillBytes"],
      ["max-server-skill-bytes", "maxServerBytes"],
    ] as const
  ) {
    const text = values[flag];
    if (text === undefined) continue;
    const n = parseByteSize(text);
    if (n === undefined) {
      throw usageError(`--${flag} must be a size such as 16M or 1G (got ${text})`, {
        option: flag,
      });
    }
    out[key] = n;
  }
  if (values["allow-dynamic-skills"] === true) out.allowDynamic = true;
  return out;
}
