/**
 * `schemapin lineage …`: inspect the lineage store that `--lineage` keeps (§18.4) — list,
 * show — and `reset`, the operator's override after inspection (like `pins rotate` for a
 * key): the tool's lineage is forgotten and the next verified release anchors it anew.
 *
 * @module
 */
import { type LineageRecord, lineageRecordToJson, LineageStore } from "../../lib/pins/lineage.ts";
import { parsePinKey } from "../../lib/pins/store.ts";
import {
  type CliIO,
  type Command,
  EXIT_FAILED,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  runSubcommand,
  subcommandFlags,
  type Subcommands,
  UsageError,
} from "./command.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import { jsonFlag, PIN_FLAGS } from "./flag_groups.ts";
import { failureFields, jsonOutput, type JsonOutputFields } from "./json_output.ts";
import { lineageStorePath } from "./lineage_store.ts";

/** The store flags every subcommand takes. */
const STORE_FLAGS = {
  "lineage-store": valueFlag(
    "FILE",
    "lineage file (default: lineage.json beside the pin store, " +
      "$SCHEMAPIN_HOME/lineage.json or ~/.schemapin/lineage.json)",
  ),
  "pin-store": {
    ...PIN_FLAGS["pin-store"],
    help: "the pin file whose folder holds the default lineage.json",
  },
} as const satisfies FlagTable;

const TABLES = {
  list: { ...STORE_FLAGS, ...jsonFlag("schemapin.lineage.list/1") },
  show: { ...STORE_FLAGS, ...jsonFlag("schemapin.lineage.show/1") },
  reset: { ...STORE_FLAGS, ...jsonFlag("schemapin.lineage.reset/1") },
} as const satisfies Record<string, FlagTable>;
type Sub = keyof typeof TABLES;

const HELP = `schemapin lineage — the latest known release of each tool (SchemaPin §18.4)

Usage:
  schemapin lineage list [--lineage-store FILE | --pin-store FILE] [--json]
  schemapin lineage show TOOL_ID@DOMAIN [--lineage-store FILE | --pin-store FILE] [--json]
  schemapin lineage reset TOOL_ID@DOMAIN [--lineage-store FILE | --pin-store FILE] [--json]

\`verify-schema --lineage\`, \`verify-skill --lineage\` and \`guard --lineage\` keep, for each
TOOL_ID@DOMAIN, the hash of the latest release they accepted; a release that does not extend
it (a fork, a rollback, no previous_hash) is refused with LINEAGE_REJECTED. \`list\` and
\`show\` print the records (tool, latest hash, schema_version, when it last moved); \`reset\`
is the operator's override after inspection, as a TOFU key rotation is: it forgets the
tool's lineage, and the next verified release anchors it again. A reset is one locked,
atomic write, like every change of the store.

Options:
${optionList(TABLES.show)}

Exit codes: 0 done; 1 no lineage for TOOL_ID@DOMAIN (show, reset); 2 bad arguments or an
unreadable or malformed lineage file.

Examples:
  schemapin lineage list
  schemapin lineage show calculate_sum@example.com
  schemapin lineage reset calculate_sum@example.com --lineage-store ./lineage.json
`;

function line(r: LineageRecord): string {
  return `${r.toolId}@${r.domain}  ${r.latestHash}  ${r.schemaVersion ?? "-"}  ${r.updatedAt}`;
}

/** What every subcommand starts with: its flags parsed, the store they name, its output. */
function prepare(sub: Sub, args: string[], io: CliIO) {
  const { values, positionals } = parseCommandArgs(`lineage ${sub}`, args, TABLES[sub]);
  if (values["lineage-store"] !== undefined && values["pin-store"] !== undefined) {
    throw new UsageError(
      `lineage ${sub}: give --lineage-store FILE or --pin-store FILE (its folder), not both`,
    );
  }
  const json = values.json === true;
  const store = new LineageStore({ path: lineageStorePath(values) });
  const out = (fields: JsonOutputFields) =>
    io.stdout(jsonOutput(`lineage.${sub}`, { ...fields, lineage_store: store.path! }));
  /** The one TOOL_ID@DOMAIN of show and reset. */
  const target = () =>
    parsePinKey(requirePositionals(`lineage ${sub}`, positionals, 1, "TOOL_ID@DOMAIN")[0]);
  /** Exit 1 with `message` (and a LINEAGE_NOT_FOUND object with --json). */
  const missing = async (message: string) => {
    if (json) await out(failureFields("LINEAGE_NOT_FOUND", message));
    await io.stderr(message + "\n");
    return EXIT_FAILED;
  };
  return { positionals, json, store, out, target, missing };
}

async function runList(args: string[], io: CliIO): Promise<number> {
  const { positionals, json, store, out } = prepare("list", args, io);
  if (positionals.length) throw new UsageError("lineage list: takes no arguments");
  const records = await store.list();
  if (json) await out({ ok: true, lineage: records.map(lineageRecordToJson) });
  else if (records.length === 0) await io.stderr(`no lineage in ${store.path}\n`);
  else await io.stdout(records.map(line).join("\n") + "\n");
  return EXIT_OK;
}

async function runShow(args: string[], io: CliIO): Promise<number> {
  const { json, store, out, target, missing } = prepare("show", args, io);
  const { toolId, domain } = target();
  const record = await store.get(toolId, domain);
  if (!record) return await missing(`${toolId}@${domain} has no lineage in ${store.path}`);
  await (json
    ? out({ ok: true, record: lineageRecordToJson(record) })
    : io.stdout(line(record) + "\n"));
  return EXIT_OK;
}

async function runReset(args: string[], io: CliIO): Promise<number> {
  const { json, store, out, target, missing } = prepare("reset", args, io);
  const { toolId, domain } = target();
  const previous = await store.remove(toolId, domain);
  if (!previous) {
    return await missing(`${toolId}@${domain} has no lineage in ${store.path}; nothing to reset`);
  }
  if (json) await out({ ok: true, previous: lineageRecordToJson(previous) });
  await io.stderr(
    `reset the lineage of ${toolId}@${domain} (was ${previous.latestHash}); the next ` +
      `verified release anchors it\n`,
  );
  return EXIT_OK;
}

/** Each subcommand's run and flag table, in the order of the help. */
const SUBCOMMANDS = {
  list: { run: runList, flags: TABLES.list },
  show: { run: runShow, flags: TABLES.show },
  reset: { run: runReset, flags: TABLES.reset },
} as const satisfies Subcommands;

/** The `lineage` command. */
export const lineageCommand: Command = {
  name: "lineage",
  summary: "list, show and reset the lineage (latest known release) of each tool",
  help: HELP,
  flags: subcommandFlags(SUBCOMMANDS),
  run: (args, io) => runSubcommand("lineage", SUBCOMMANDS, args, io),
};
