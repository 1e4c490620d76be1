/**
 * `schemapin contract digest FILE`: tool and server digests of a saved `tools/list` result
 * (or, with `--tool-definition`, of one tool definition; with `--raw`, of any JSON value).
 *
 * @module
 */
import { canonicalizeJcs } from "../../lib/json/canonical_jcs.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { projectContract } from "../../lib/contractpin/contract.ts";
import { digestJson, digestSavedToolList } from "../../lib/contractpin/digest.ts";
import { digestSubjectOf } from "../contractpin/digest_subject.ts";
import { toolListDigestJson } from "../contractpin/json_fields.ts";
import { asUsage, type CliIO, EXIT_OK, parseCommandArgs, UsageError } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { booleanFlag, type FlagTable } from "../args/flags.ts";
import { jsonFlag } from "./flag_groups.ts";
import { readInput } from "./io.ts";

const CMD = "contract digest";

/** The flags of `contract digest`. */
export const CONTRACT_DIGEST_FLAGS = {
  "tool-definition": booleanFlag("FILE is one tool definition: print its contract digest"),
  raw: booleanFlag("FILE is any JSON value: print its digest"),
  canonical: booleanFlag(
    "print the canonical bytes instead of the digest (with --tool-definition or --raw)",
  ),
  ...jsonFlag("schemapin.contract.digest/1"),
  // Old spelling, kept for one release: --tool names one tool (NAME) in contract approve.
  tool: { type: "boolean", help: "", deprecated: "tool-definition" },
} as const satisfies FlagTable;

/** Runs `schemapin contract digest`. */
export async function runContractDigest(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs(CMD, args, CONTRACT_DIGEST_FLAGS);
  if (positionals.length !== 1) {
    throw new UsageError(
      `${CMD}: expected FILE (or - for stdin), got ${positionals.length} arguments`,
    );
  }
  const toolDefinition = values["tool-definition"];
  const kind = asUsage(CMD, () => digestSubjectOf({ ...values, toolDefinition }));
  const [file] = positionals;
  const source = file === "-" ? "stdin" : file;
  const value = parseJson(await readInput(file, io), source);

  if (kind !== "list") {
    const subject = kind === "tool" ? projectContract(value, source) : value;
    if (values.canonical) {
      await io.stdout(canonicalizeJcs(subject));
      return EXIT_OK;
    }
    const digest = digestJson(subject);
    await io.stdout(
      values.json
        ? jsonOutput("contract.digest", {
          ok: true,
          file: source,
          kind,
          digest,
        })
        : digest + "\n",
    );
    return EXIT_OK;
  }

  const { list, notices } = await digestSavedToolList(value, source);
  for (const n of notices) await io.stderr(`warning: ${n}\n`);
  if (values.json) {
    await io.stdout(jsonOutput("contract.digest", toolListDigestJson(source, list)));
  } else {
    let text = "";
    for (const t of list.tools.values()) text += `tool    ${t.digest}  ${t.name}\n`;
    text += `server  ${list.digest}  ${list.tools.size} tools\n`;
    await io.stdout(text);
  }
  return EXIT_OK;
}
