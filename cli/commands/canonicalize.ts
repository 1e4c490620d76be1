/**
 * `schemapin canonicalize [--contract] FILE|-`: prints the canonical bytes of a JSON document.
 *
 * @module
 */
import { parseJson } from "../../lib/json/parse.ts";
import { canonicalForm, canonicalFormJson } from "../schema/canonical_form.ts";
import { type Command, EXIT_OK, parseCommandArgs, requirePositionals } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { readInput } from "./io.ts";
import { booleanFlag, type FlagTable, optionList } from "../args/flags.ts";
import { jsonFlag } from "./flag_groups.ts";

const FLAGS = {
  contract: booleanFlag("use contractpin-canonical-json/1 instead of schemapin-v1"),
  ...jsonFlag(
    "schemapin.canonicalize/1: ok, canonicalization, canonical, sha256; instead of the bytes",
  ),
} as const satisfies FlagTable;

const HELP = `schemapin canonicalize — print the canonical bytes of a JSON document

Usage: schemapin canonicalize [--contract] [--json] FILE|-

Parses FILE (or stdin for -) with the strict parser and prints its canonical form to stdout
with no trailing newline: schemapin-v1 (SchemaPin spec §4, what schema signatures cover), or
contractpin-canonical-json/1 (RFC 8785, what contract digests cover) with --contract.

Options:
${optionList(FLAGS)}

Exit codes: 0 printed; 2 unreadable file, input that is not strict JSON or has no canonical
form (the message names the byte offset or JSON Pointer).

Examples:
  schemapin canonicalize tool.json | sha256sum
  echo '{"b":1,"a":2}' | schemapin canonicalize --contract -
`;

/** The `canonicalize` command. */
export const canonicalizeCommand: Command = {
  name: "canonicalize",
  summary: "print the canonical bytes of a JSON file (schemapin-v1, or RFC 8785 with --contract)",
  help: HELP,
  flags: FLAGS,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs("canonicalize", args, FLAGS);
    const [file] = requirePositionals("canonicalize", positionals, 1, "FILE or -");
    const value = parseJson(await readInput(file, io), sourceName(file));
    const form = canonicalForm(value, values.contract === true);
    await io.stdout(
      values.json
        ? jsonOutput("canonicalize", { ok: true, ...canonicalFormJson(form) })
        : form.bytes,
    );
    return EXIT_OK;
  },
};
