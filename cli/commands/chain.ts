/**
 * `schemapin chain CURRENT PREVIOUS`: the §18.3 chain check between two signature documents.
 *
 * @module
 */
import { checkChainFiles } from "../schema/chain_files.ts";
import { chainCheckJson } from "../schema/lineage_json.ts";
import {
  type Command,
  EXIT_FAILED,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
} from "./command.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { jsonOutput } from "./json_output.ts";
import { readInput } from "./io.ts";
import { type FlagTable, optionList } from "../args/flags.ts";
import { jsonFlag } from "./flag_groups.ts";

const FLAGS = {
  ...jsonFlag("schemapin.chain/1: ok, error?, hash | reason, …"),
} as const satisfies FlagTable;

const HELP = `schemapin chain — check that one signature document succeeds another (§18.3)

Usage: schemapin chain CURRENT.sig PREVIOUS.sig [--json]

Succeeds when CURRENT's previous_hash equals PREVIOUS's schema_hash (or skill_hash for skill
signature documents). Two failures are told apart: CURRENT has no previous_hash, and a
mismatch (both hashes are printed). A legacy (1.3) skill signature document on either side is
refused: its skill_hash and previous_hash are not covered by its signature, so it never
anchors or extends a chain (§4b, §18.4). This is a metadata check only: verify both
signatures first (verify-schema / verify-skill), or the chain proves nothing.

Options:
${optionList(FLAGS)}

Exit codes: 0 chained; 1 legacy document, no previous_hash or mismatch; 2 unreadable or
malformed documents.

Example:
  schemapin chain tool-v2.json.sig tool-v1.json.sig
`;

/** The `chain` command. */
export const chainCommand: Command = {
  name: "chain",
  summary: "check that a signature document's previous_hash names the previous version",
  help: HELP,
  flags: FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("chain", args, FLAGS);
    const [currentPath, previousPath] = requirePositionals(
      "chain",
      positionals,
      2,
      "CURRENT.sig PREVIOUS.sig",
    );
    const check = await checkChainFiles(currentPath, previousPath, (p) => readInput(p, io));
    if (values.json) {
      await io.stdout(jsonOutput("chain", chainCheckJson(check)));
    } else if (check.valid) {
      await io.stdout(`OK ${sourceName(currentPath)} follows ${sourceName(previousPath)}\n`);
      await io.stderr("note: metadata only; both signatures must be verified separately\n");
    } else {
      await io.stdout(`FAIL ${check.reason}\n`);
      await io.stderr(`error: ${check.message}\n`);
    }
    return check.valid ? EXIT_OK : EXIT_FAILED;
  },
};
