/**
 * `schemapin contract dump`: save one server's definitions — every kind the lock pins (tools,
 * prompts, resources, resource templates, instructions; docs/contractpin-surface.md) — in the
 * shape `--file` reads (lib/mcp/file.ts), so a change can be simulated by editing a copy and
 * a server can be pinned or verified without running it. Written atomically; an existing file
 * is replaced only with --force.
 *
 * @module
 */
import { messageInCliWords } from "../library_words.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { dumpServer } from "../../lib/contractpin/run.ts";
import { dumpJsonFields } from "../contractpin/json_fields.ts";
import type { ToolListing } from "../../lib/mcp/session.ts";
import type { ServedSkills } from "../../lib/skill/served_fetch.ts";
import { asUsage, type CliIO, EXIT_FAILED, EXIT_OK, UsageError } from "./command.ts";
import { oneServerTarget } from "../contractpin/server_specs.ts";
import {
  commandLineServers,
  CONTRACT_SERVER_FLAGS,
  limitsFrom,
  MCP_LIMIT_FLAGS,
  MCP_TIMEOUT_FLAGS,
  parseContractArgs,
  printServerFailure,
  SKILL_CAP_FLAGS,
  skillOptionsFrom,
} from "./contract_shared.ts";
import { FORCE_FLAGS, jsonFlag } from "./flag_groups.ts";
import { type FlagTable, valueFlag } from "../args/flags.ts";
import { exists, writeFileAtomic } from "./io.ts";
import { jsonOutput } from "./json_output.ts";

const CMD = "contract dump";

/** The flags of `contract dump`: one server (as init takes it), the output, the limits. */
export const CONTRACT_DUMP_FLAGS = {
  ...CONTRACT_SERVER_FLAGS,
  out: valueFlag("FILE", "the dump to write (required; - : stdout)"),
  ...FORCE_FLAGS,
  ...jsonFlag("schemapin.contract.dump/1"),
  ...MCP_TIMEOUT_FLAGS,
  "max-pages": MCP_LIMIT_FLAGS["max-pages"],
  ...SKILL_CAP_FLAGS,
} as const satisfies FlagTable;

/** The usage lines of `contract dump` (in the contract help). */
export const CONTRACT_DUMP_USAGE =
  `  schemapin contract dump (--server NAME [--env NAME[=VALUE]]… [--cwd DIR] -- CMD ARGS… |
      --http NAME=URL [--header 'Name: value']… | --sse NAME=URL | --file NAME=PATH)
      [--client-capabilities roots,sampling,…] -o/--out FILE|- [-f/--force] [--json]
      [--startup-timeout SECONDS] [--timeout SECONDS] [--max-pages N] [--max-skill-files N]
      [--max-skill-bytes SIZE] [--max-server-skill-bytes SIZE]`;

/** `4 tools, 2 prompts, 1 resource, 0 resource templates, instructions` of a listing. */
function counts(listing: ToolListing): string {
  const n = (count: number, noun: string) => `${count} ${count === 1 ? noun : noun + "s"}`;
  const parts = [n(listing.tools.length, "tool")];
  if (listing.prompts) parts.push(n(listing.prompts.length, "prompt"));
  if (listing.resources) parts.push(n(listing.resources.length, "resource"));
  if (listing.resourceTemplates) {
    parts.push(n(listing.resourceTemplates.length, "resource template"));
  }
  if (typeof listing.instructions === "string") parts.push("instructions");
  else if (listing.instructions === null) parts.push("no instructions");
  return parts.join(", ");
}

/** `, 2 skills` when the server serves skills (docs/contractpin-skills.md, "Dumps"); else "". */
function skillCount(skills: ServedSkills | undefined): string {
  if (!skills || skills.form === "none") return "";
  const n = skills.skills.length;
  return `, ${n} skill${n === 1 ? "" : "s"}`;
}

/** Runs `schemapin contract dump`. */
export async function runContractDump(args: string[], io: CliIO): Promise<number> {
  const { values, tokens, command } = parseContractArgs(CMD, args, CONTRACT_DUMP_FLAGS, true);
  const limits = { ...limitsFrom(CMD, values), skills: skillOptionsFrom(CMD, values) };
  const out = values.out;
  if (out === undefined || out === "") {
    throw new UsageError(`${CMD}: give the file to write with -o/--out FILE (- : stdout)`);
  }
  if (out === "-" && values.json) {
    throw new UsageError(`${CMD}: --json prints a summary; with --out - stdout is the dump`);
  }
  const given = commandLineServers(CMD, { values, tokens }, command);
  const target = asUsage(CMD, () => oneServerTarget(given));
  // Refused before the server is started: nothing to learn from it when the file stays.
  if (out !== "-" && !values.force && await exists(out)) {
    throw new SchemaPinError(
      "IO_FAILED",
      `${out} already exists; refusing to overwrite it (use --force)`,
      { path: out },
    );
  }
  const live = await dumpServer(target, limits);
  if (!live.ok) {
    const message = `${messageInCliWords(live.failure.message)}; ${
      out === "-" ? "nothing" : out
    } was not written`;
    await printServerFailure(io, message, live.failure.stderr);
    if (values.json) {
      await io.stdout(jsonOutput("contract.dump", dumpJsonFields(target.name, out, live, message)));
    }
    return EXIT_FAILED;
  }
  const { listing } = live;
  for (const n of listing.notices) await io.stderr(`note: server ${target.name}: ${n}\n`);
  const { text } = live;
  if (out === "-") {
    await io.stdout(text);
  } else {
    await writeFileAtomic(out, text, { overwrite: values.force === true });
  }
  const summary = `saved ${target.name}: ${counts(listing)}${skillCount(live.skills)}`;
  if (values.json) {
    await io.stdout(jsonOutput("contract.dump", dumpJsonFields(target.name, out, live)));
  } else if (out === "-") {
    await io.stderr(`${summary}\n`);
  } else {
    await io.stdout(`${summary} → ${out}\n`);
  }
  return EXIT_OK;
}
