/**
 * `schemapin pins …`: inspect and manage the TOFU pin store — list, show, add (seed),
 * remove, rotate, export, import.
 *
 * @module
 */
import { sourceName } from "../../lib/schema/input.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { discoveryKeyOf } from "../discovery/published_key.ts";
import { type PinKey, pinKeyFrom } from "../pins/key_source.ts";
import { importPins, parsePinExport, pinExportDocument } from "../pins/pin_export.ts";
import { checkDomain } from "../../lib/dns/domain.ts";
import {
  defaultPinStorePath,
  domainPatternOf,
  FilePinStore,
  parsePinKey,
  type PinRecord,
  pinRecordToJson,
  removePin,
  rotateDomainPins,
  rotatePin,
  seedPin,
} from "../../lib/pins/store.ts";
import {
  asUsage,
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
import { documentText, failureFields, jsonOutput } from "./json_output.ts";
import { loadKeyForPublicKey } from "./private_key.ts";
import { booleanFlag, type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import { jsonFlag, PASSPHRASE_FLAGS, PIN_FLAGS } from "./flag_groups.ts";
import { writeFileAtomic } from "./io.ts";
import { readJsonFile } from "./schema_inputs.ts";

/** `--pin-store FILE`, which every subcommand takes. */
const STORE_FLAGS = { "pin-store": PIN_FLAGS["pin-store"] } as const satisfies FlagTable;

/** Where add and rotate take the key's fingerprint from (exactly one of them). */
const FINGERPRINT_FLAGS = {
  fingerprint: valueFlag(
    "FP",
    "the key's fingerprint (sha256: and 64 lower-case hex digits), obtained out of band",
  ),
  key: valueFlag(
    "KEY.pem",
    "the key itself: a public key, or a private key (its public half is pinned)",
  ),
  discovery: valueFlag(
    "FILE",
    "the domain's .well-known/schemapin.json, saved locally (its public key is pinned)",
  ),
  ...PASSPHRASE_FLAGS,
} as const satisfies FlagTable;

/** `--json` of list and show. */
const JSON_FLAGS = jsonFlag(
  "schemapin.pins.list/1: ok, pin_store, pins; schemapin.pins.show/1: ok, pin_store, pin",
);

const EXPORT_OWN_FLAGS = {
  out: valueFlag("FILE", "write the export to FILE (default: stdout)"),
  force: booleanFlag("replace an existing --out file"),
} as const satisfies FlagTable;

const IMPORT_OWN_FLAGS = {
  force: booleanFlag(
    "replace the pins that conflict with the export (default: refuse, import nothing)",
  ),
} as const satisfies FlagTable;

const LIST_FLAGS = { ...JSON_FLAGS, ...STORE_FLAGS } as const satisfies FlagTable;
const SHOW_FLAGS = { ...JSON_FLAGS, ...STORE_FLAGS } as const satisfies FlagTable;
const ADD_FLAGS = { ...FINGERPRINT_FLAGS, ...STORE_FLAGS } as const satisfies FlagTable;
/** `pins rotate --domain D`: every pin of the domain at once. */
const ROTATE_OWN_FLAGS = {
  domain: valueFlag(
    "D",
    "rotate every pin of domain D (instead of one TOOL_ID@DOMAIN), in one atomic write",
  ),
} as const satisfies FlagTable;
const ROTATE_FLAGS = {
  ...ROTATE_OWN_FLAGS,
  ...FINGERPRINT_FLAGS,
  ...STORE_FLAGS,
} as const satisfies FlagTable;
const REMOVE_FLAGS = { ...STORE_FLAGS } as const satisfies FlagTable;
const EXPORT_FLAGS = { ...EXPORT_OWN_FLAGS, ...STORE_FLAGS } as const satisfies FlagTable;
const IMPORT_FLAGS = {
  ...IMPORT_OWN_FLAGS,
  ...STORE_FLAGS,
  // Old spelling, kept for one release.
  overwrite: { type: "boolean", help: "", deprecated: "force" },
} as const satisfies FlagTable;

const HELP = `schemapin pins — manage the TOFU key pin store

Usage:
  schemapin pins list [--json]
  schemapin pins show TOOL_ID@DOMAIN [--json]
  schemapin pins add TOOL_ID@DOMAIN (--fingerprint FP | --key KEY.pem | --discovery FILE)
      [--passphrase-file FILE]
  schemapin pins rotate TOOL_ID@DOMAIN (--fingerprint FP | --key KEY.pem | --discovery FILE)
      [--passphrase-file FILE]
  schemapin pins rotate --domain D (--fingerprint FP | --key KEY.pem | --discovery FILE)
      [--passphrase-file FILE]
  schemapin pins remove TOOL_ID@DOMAIN
  schemapin pins export [--out FILE [--force]]
  schemapin pins import FILE [--force]
All take [--pin-store FILE] (default $SCHEMAPIN_HOME/pins.json, else ~/.schemapin/pins.json).

A pin binds TOOL_ID@DOMAIN (split at its last "@") to a key fingerprint. \`add\` seeds a
fingerprint obtained out of band (refused if a different key is already pinned); \`rotate\` is
the explicit consent to a changed key, for one tool or, with --domain D, for every tool of D in
one atomic write (all or nothing; other domains are untouched). docs/signing.md "Pin store"
describes the file, docs/keys.md rotating a key and an encrypted --key's passphrase.

Options of every subcommand:
${optionList(STORE_FLAGS)}

Options of list and show:
${optionList(JSON_FLAGS)}

Options of add and rotate (exactly one of --fingerprint, --key, --discovery):
${optionList(FINGERPRINT_FLAGS)}

Options of rotate:
${optionList(ROTATE_OWN_FLAGS)}

Options of export:
${optionList(EXPORT_OWN_FLAGS)}

Options of import:
${optionList(IMPORT_OWN_FLAGS)}

Exit codes: 0 done; 1 not pinned (show, remove, rotate), already pinned to another key (add),
conflicts (import); 2 bad arguments or an unreadable or malformed file.

Examples:
  schemapin pins list
  schemapin pins add calculate_sum@example.com --fingerprint sha256:9fdb…
  schemapin pins rotate calculate_sum@example.com --discovery schemapin.json
  schemapin pins rotate --domain example.com --discovery schemapin.json
`;

/** The flags add and rotate read the key from. */
type KeyValues = ReturnType<typeof parseCommandArgs<typeof ADD_FLAGS>>["values"];

/** The pin store `--pin-store` names, else the default one. */
function pinStoreAt(path: string | undefined): FilePinStore {
  return new FilePinStore(path ?? defaultPinStorePath());
}

/** The one positional argument of `pins <sub>`, named `what` in the usage error. */
function one(positionals: string[], sub: string, what: string): string {
  return requirePositionals(`pins ${sub}`, positionals, 1, what)[0];
}

/** The key of add and rotate (cli/pins/key_source.ts), the files read as the CLI reads them. */
function keyFrom(values: KeyValues, sub: string, io: CliIO): Promise<PinKey> {
  const command = `pins ${sub}`;
  return asUsage(command, () =>
    pinKeyFrom(values, {
      key: (path) =>
        loadKeyForPublicKey(path, io, {
          command,
          passphraseFile: values["passphrase-file"],
        }),
      discovery: async (path) =>
        discoveryKeyOf(
          await readJsonFile(path, io, "discovery document", "--key"),
          sourceName(path),
        ),
    }));
}

/** ` (the old key is revoked by …)` when the new key's discovery document revokes `old`. */
function revokedNote(revokedKeys: readonly string[], old: string): string {
  return revokedKeys.includes(old)
    ? " (the old key is revoked by the discovery document's revoked_keys)"
    : "";
}

/** A usage error for `*@DOMAIN` or a bare DOMAIN, pointing at `--domain`. */
function refuseDomainPattern(target: string): void {
  const domain = domainPatternOf(target);
  if (domain === undefined) return;
  throw new UsageError(
    `pins rotate: ${JSON.stringify(target)} is not TOOL_ID@DOMAIN; to rotate every pin of ` +
      `a domain, use pins rotate --domain ${domain} (--fingerprint FP | --key KEY.pem | ` +
      `--discovery FILE)`,
  );
}

function line(r: PinRecord): string {
  return `${r.toolId}@${r.domain}  ${r.fingerprint}  ${r.source}  ${r.pinnedAt}`;
}

async function runList(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("pins list", args, LIST_FLAGS);
  const store = pinStoreAt(values["pin-store"]);
  if (positionals.length) throw new UsageError("pins list: takes no arguments");
  const pins = await store.list();
  if (values.json) {
    await io.stdout(
      jsonOutput("pins.list", {
        ok: true,
        pin_store: store.path,
        pins: pins.map(pinRecordToJson),
      }),
    );
  } else if (pins.length === 0) {
    await io.stderr(`no pins in ${store.path}\n`);
  } else {
    await io.stdout(pins.map(line).join("\n") + "\n");
  }
  return EXIT_OK;
}

async function runShow(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("pins show", args, SHOW_FLAGS);
  const store = pinStoreAt(values["pin-store"]);
  const { toolId, domain } = parsePinKey(one(positionals, "show", "TOOL_ID@DOMAIN"));
  const pin = await store.get(toolId, domain);
  if (!pin) {
    const message = `${toolId}@${domain} is not pinned in ${store.path}`;
    if (values.json) {
      await io.stdout(jsonOutput("pins.show", {
        ...failureFields("KEY_NOT_FOUND", message),
        pin_store: store.path,
      }));
    }
    await io.stderr(message + "\n");
    return EXIT_FAILED;
  }
  await io.stdout(
    values.json
      ? jsonOutput("pins.show", {
        ok: true,
        pin_store: store.path,
        pin: pinRecordToJson(pin),
      })
      : line(pin) + "\n",
  );
  return EXIT_OK;
}

async function runAdd(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("pins add", args, ADD_FLAGS);
  const store = pinStoreAt(values["pin-store"]);
  const { toolId, domain } = parsePinKey(one(positionals, "add", "TOOL_ID@DOMAIN"));
  const { fingerprint: fp } = await keyFrom(values, "add", io);
  try {
    const outcome = await seedPin(store, toolId, domain, fp);
    await io.stderr(
      outcome.status === "added"
        ? `pinned ${toolId}@${domain} to ${fp}\n`
        : `${toolId}@${domain} was already pinned to ${fp}\n`,
    );
    return EXIT_OK;
  } catch (e) {
    if (e instanceof SchemaPinError && e.code === "KEY_PIN_MISMATCH") {
      await io.stderr(`error: ${e.code}: ${e.message}\n`);
      return EXIT_FAILED;
    }
    throw e;
  }
}

async function runRotate(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("pins rotate", args, ROTATE_FLAGS);
  const store = pinStoreAt(values["pin-store"]);
  if (values.domain !== undefined) {
    if (positionals.length > 0) {
      throw new UsageError(
        "pins rotate: give TOOL_ID@DOMAIN or --domain D (every pin of D), not both",
      );
    }
    return await rotateDomain(store, values.domain, values, io);
  }
  const target = one(positionals, "rotate", "TOOL_ID@DOMAIN, or --domain D");
  refuseDomainPattern(target);
  const { toolId, domain } = parsePinKey(target);
  const { fingerprint: fp, revokedKeys } = await keyFrom(values, "rotate", io);
  try {
    const previous = await rotatePin(store, toolId, domain, fp);
    await io.stderr(
      `rotated ${toolId}@${domain}: ${previous.fingerprint} -> ${fp}` +
        revokedNote(revokedKeys, previous.fingerprint) + "\n",
    );
    return EXIT_OK;
  } catch (e) {
    if (e instanceof SchemaPinError && e.code === "KEY_NOT_FOUND") {
      await io.stderr(`error: ${e.message} (use pins add)\n`);
      return EXIT_FAILED;
    }
    throw e;
  }
}

/** `pins rotate --domain D`: every pin of D to the new key, in one transaction. */
async function rotateDomain(
  store: FilePinStore,
  given: string,
  values: KeyValues,
  io: CliIO,
): Promise<number> {
  const dc = checkDomain(given);
  if (!dc.ok) throw new UsageError(`pins rotate: --domain: ${dc.reason}`);
  const { fingerprint: fp, revokedKeys } = await keyFrom(values, "rotate", io);
  let outcome;
  try {
    outcome = await rotateDomainPins(store, dc.domain, fp);
  } catch (e) {
    if (e instanceof SchemaPinError && e.code === "KEY_NOT_FOUND") {
      await io.stderr(`error: ${e.message} in ${store.path} (use pins add)\n`);
      return EXIT_FAILED;
    }
    throw e;
  }
  for (const pin of outcome.rotated) {
    await io.stderr(
      `rotated ${pin.toolId}@${pin.domain}: ${pin.fingerprint} -> ${fp}` +
        revokedNote(revokedKeys, pin.fingerprint) + "\n",
    );
  }
  await io.stderr(
    `${outcome.rotated.length} pin(s) of ${dc.domain} rotated to ${fp}` +
      (outcome.unchanged.length > 0 ? `, ${outcome.unchanged.length} already on it` : "") +
      "\n",
  );
  return EXIT_OK;
}

async function runRemove(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("pins remove", args, REMOVE_FLAGS);
  const store = pinStoreAt(values["pin-store"]);
  const { toolId, domain } = parsePinKey(one(positionals, "remove", "TOOL_ID@DOMAIN"));
  if (await removePin(store, toolId, domain)) {
    await io.stderr(`removed the pin of ${toolId}@${domain}\n`);
    return EXIT_OK;
  }
  await io.stderr(`${toolId}@${domain} is not pinned in ${store.path}\n`);
  return EXIT_FAILED;
}

async function runExport(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("pins export", args, EXPORT_FLAGS);
  const store = pinStoreAt(values["pin-store"]);
  if (positionals.length) throw new UsageError("pins export: takes no arguments");
  const text = documentText(pinExportDocument(await store.list()));
  if (values.out !== undefined) {
    await writeFileAtomic(values.out, text, { overwrite: values.force === true });
    await io.stdout(`wrote ${values.out}\n`);
  } else {
    await io.stdout(text);
  }
  return EXIT_OK;
}

async function runImport(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("pins import", args, IMPORT_FLAGS);
  const store = pinStoreAt(values["pin-store"]);
  const file = one(positionals, "import", "FILE");
  const value = await readJsonFile(file, io, "pin export");
  const records = parsePinExport(value, sourceName(file), file);
  const outcome = await importPins(store, records, { overwrite: values.force === true });
  if (outcome.conflicts.length > 0 && !outcome.written) {
    await io.stderr(
      `error: KEY_PIN_MISMATCH: ${outcome.conflicts.length} pin(s) conflict with ` +
        `${store.path}: ${outcome.conflicts.join(", ")}; nothing imported ` +
        `(--force replaces them)\n`,
    );
    return EXIT_FAILED;
  }
  await io.stderr(
    `imported ${outcome.added.length} new, ${outcome.unchanged.length} unchanged` +
      (values.force ? `, ${outcome.conflicts.length} replaced` : "") + "\n",
  );
  return EXIT_OK;
}

/** Each subcommand's run and flag table, in the order of the help. */
const SUBCOMMANDS = {
  list: { run: runList, flags: LIST_FLAGS },
  show: { run: runShow, flags: SHOW_FLAGS },
  add: { run: runAdd, flags: ADD_FLAGS },
  rotate: { run: runRotate, flags: ROTATE_FLAGS },
  remove: { run: runRemove, flags: REMOVE_FLAGS },
  export: { run: runExport, flags: EXPORT_FLAGS },
  import: { run: runImport, flags: IMPORT_FLAGS },
} as const satisfies Subcommands;

/** The `pins` command. */
export const pinsCommand: Command = {
  name: "pins",
  summary: "list, show, add, rotate, remove, export and import key pins",
  help: HELP,
  flags: subcommandFlags(SUBCOMMANDS),
  run: (args, io) => runSubcommand("pins", SUBCOMMANDS, args, io),
};
