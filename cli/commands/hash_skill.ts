/**
 * `schemapin hash-skill`: the §4b manifest and `skill_hash` of a skill folder, no key needed.
 *
 * @module
 */
import { showPath } from "../../lib/skill/fs.ts";
import { hashSkillDir } from "../../lib/skill/hash.ts";
import { skillHashJson } from "../skill/hash_json.ts";
import { skillProgress } from "./progress.ts";
import { limitsFromArgs } from "./skill_limits.ts";
import { type Command, EXIT_OK, parseCommandArgs, requirePositionals } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { type FlagTable, optionList } from "../args/flags.ts";
import { jsonFlag, LIMIT_FLAGS, QUIET_FLAGS } from "./flag_groups.ts";

const FLAGS = {
  ...jsonFlag("schemapin.hash-skill/1: ok, skill_hash, files, total_bytes, file_manifest"),
  ...LIMIT_FLAGS,
  quiet: {
    ...QUIET_FLAGS.quiet,
    help: "print only the skill_hash line (no per-file lines, no progress)",
  },
} as const satisfies FlagTable;

const HELP = `schemapin hash-skill — hash a skill folder (SchemaPin §4b)

Usage: schemapin hash-skill DIR [--json] [-q] [--max-entries N] [--max-bytes SIZE]

Prints each file's entry digest and the folder's skill_hash, exactly as sign-skill would
sign them. Directories are not entries; the top-level .schemapin.sig is left out. A symbolic
link, FIFO, socket or device anywhere in the folder, a file name that is not UTF-8, more
than 10000 files or more than 256 MiB stop the command with an error naming the path.

Options:
${optionList(FLAGS)}

On a terminal, a progress line on stderr counts the files while the folder is listed, then
the files and bytes hashed (never in a pipe).

Exit codes: 0 hashed; 2 bad arguments, or a folder that cannot be hashed (the message names
the path).

Example:
  schemapin hash-skill ./pdf-tools
  schemapin hash-skill ./pdf-tools --json
`;

/** The `hash-skill` command. */
export const hashSkillCommand: Command = {
  name: "hash-skill",
  summary: "print a skill folder's file manifest and skill_hash (§4b), no key needed",
  help: HELP,
  flags: FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("hash-skill", args, FLAGS);
    const [dir] = requirePositionals("hash-skill", positionals, 1, "DIR");
    const limits = limitsFromArgs("hash-skill", values);
    const quiet = values.quiet === true;
    const progress = skillProgress(io, "hash-skill", quiet);
    let hash;
    try {
      hash = await hashSkillDir(dir, { ...limits, ...progress.options });
    } finally {
      progress.done();
    }
    if (values.json) {
      await io.stdout(jsonOutput("hash-skill", { ok: true, ...skillHashJson(hash) }));
    } else {
      const lines = quiet ? [] : hash.entries.map((e) => `${e.digest}  ${showPath(e.path)}\n`);
      lines.push(
        `skill_hash ${hash.skillHash} (${hash.entries.length} files, ${hash.totalBytes} bytes)\n`,
      );
      await io.stdout(lines.join(""));
    }
    return EXIT_OK;
  },
};
