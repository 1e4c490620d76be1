/**
 * `schemapin dns record` (the TXT value a publisher puts at `_schemapin.{domain}`, §17.1) and
 * `schemapin dns check` (what a domain publishes, and whether it matches a key, §17.2).
 *
 * @module
 */
import { sourceName } from "../../lib/schema/input.ts";
import { describeDnsCheck } from "../dns/check_text.ts";
import { expectedDnsKey } from "../discovery/published_key.ts";
import { dnsTxtVerdict, lookupDnsTxt } from "../../lib/dns/check.ts";
import { dnsCheckFields } from "../dns/check_fields.ts";
import { checkDnsCheckOptions, dnsRecordToPublish } from "../dns/options.ts";
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
import { exitCodeFor } from "../exit_codes.ts";
import { jsonOutput } from "./json_output.ts";
import { loadKeyForPublicKey } from "./private_key.ts";
import {
  httpsOptions,
  parseDnsServerFlag,
  parseTimeoutFlag,
  readJsonFile,
  reportInputFailure,
} from "./schema_inputs.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import {
  DNS_FLAGS,
  jsonFlag,
  KEY_SOURCE_FLAGS,
  NETWORK_TIMEOUT_FLAGS,
  PASSPHRASE_FLAGS,
} from "./flag_groups.ts";

const RECORD_FLAGS = {
  key: valueFlag(
    "KEY.pem",
    "the key whose fingerprint is published, public or private PEM (required)",
  ),
  ...PASSPHRASE_FLAGS,
  kid: valueFlag("KID", "the key id to include"),
  domain: valueFlag("D", "print a zone-file line for _schemapin.D"),
  ...jsonFlag("schemapin.dns.record/1: ok, name?, value, fingerprint, kid?"),
} as const satisfies FlagTable;

const CHECK_FLAGS = {
  key: valueFlag("KEY.pem", "the key to compare, public or private PEM"),
  ...PASSPHRASE_FLAGS,
  fingerprint: valueFlag("FP", "the fingerprint to compare"),
  discovery: { ...KEY_SOURCE_FLAGS.discovery, help: "compare with this discovery document's key" },
  "well-known": {
    ...KEY_SOURCE_FLAGS["well-known"],
    help: "compare with the key of https://DOMAIN/.well-known/schemapin.json (HTTPS only, " +
      "no redirects, 64 KiB cap)",
  },
  "ca-file": KEY_SOURCE_FLAGS["ca-file"],
  "dns-server": { ...DNS_FLAGS["dns-server"], help: "the name server (default: /etc/resolv.conf)" },
  timeout: {
    ...NETWORK_TIMEOUT_FLAGS.timeout,
    help: "DNS (and --well-known) deadline (default 5)",
  },
  ...jsonFlag("schemapin.dns.check/1"),
} as const satisfies FlagTable;

const HELP = `schemapin dns — DNS TXT cross-verification records (SchemaPin §17)

Usage:
  schemapin dns record --key KEY.pem [--kid KID] [--domain D] [--json]
  schemapin dns check DOMAIN [--dns-server IP[:PORT]] [--timeout SECONDS]
      [--key KEY.pem | --fingerprint sha256:… | --discovery FILE | --well-known
       [--ca-file FILE]] [--json]

record   prints the TXT value to publish at _schemapin.D:  v=schemapin1; kid=KID; fp=sha256:…
         (with --domain, as a zone-file line). KEY.pem may be the public or the private key.
check    looks up _schemapin.DOMAIN and shows what is published; with a key (--key,
         --fingerprint, a --discovery file, or the live --well-known document) it says
         whether the record matches it. How verifiers (--dns) treat each state (§17.2):
         docs/discovery.md, "DNS TXT".

Options of record:
${optionList(RECORD_FLAGS)}

Options of check:
${optionList(CHECK_FLAGS)}

Exit codes: 0 printed / a well-formed record is published (and matches the key given);
1 absent, mismatching, malformed, or no answer from DNS; 2 bad arguments or input.

Examples:
  schemapin dns record --key keys/public.pem --kid acme-2026-04
  schemapin dns check example.com --key keys/public.pem
  schemapin dns check tools.example.test --dns-server 127.0.0.1:5353 --json
`;

async function runRecord(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("dns record", args, RECORD_FLAGS);
  if (positionals.length > 0) throw new UsageError("dns record: takes no positional arguments");
  if (values.key === undefined) throw new UsageError("dns record: --key KEY.pem is required");
  const record = await asUsage(
    "dns record",
    () =>
      dnsRecordToPublish(values, async () =>
        (await loadKeyForPublicKey(values.key!, io, {
          command: "dns record",
          passphraseFile: values["passphrase-file"],
        })).fingerprint),
  );
  if (values.json) await io.stdout(jsonOutput("dns.record", { ok: true, ...record }));
  else if (record.name) await io.stdout(`${record.name}. IN TXT "${record.value}"\n`);
  else await io.stdout(record.value + "\n");
  return EXIT_OK;
}

async function runCheck(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("dns check", args, CHECK_FLAGS);
  requirePositionals("dns check", positionals, 1, "DOMAIN");
  const domain = asUsage("dns check", () => checkDnsCheckOptions(positionals[0], values));
  const server = parseDnsServerFlag("dns check", values, false);
  const timeoutMs = parseTimeoutFlag("dns check", values.timeout);
  const json = values.json === true;
  let expected;
  try {
    expected = await expectedDnsKey(values, domain, {
      keyFingerprint: async (path) =>
        (await loadKeyForPublicKey(path, io, {
          command: "dns check",
          passphraseFile: values["passphrase-file"],
        })).fingerprint,
      readJson: (path) => readJsonFile(path, io, "discovery document", "--key"),
      https: () => httpsOptions("dns check", values, io),
      name: sourceName,
    });
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return await reportInputFailure(e, json, io);
  }
  const lookup = await lookupDnsTxt(domain, {
    nameServer: server,
    timeoutMs,
    nameServerName: "--dns-server",
  });
  const verdict = dnsTxtVerdict(lookup, expected?.fingerprint);
  const { ok, decision } = verdict;
  if (json) {
    await io.stdout(jsonOutput("dns.check", dnsCheckFields(lookup, verdict, expected)));
    return ok ? EXIT_OK : EXIT_FAILED;
  }
  switch (lookup.state) {
    case "failed":
      await io.stdout(`FAIL ${lookup.name}: no answer from ${lookup.server}\n`);
      await io.stderr(`error: ${lookup.reason}\n`);
      return EXIT_FAILED;
    case "absent":
      await io.stdout(
        `ABSENT ${lookup.name}: no TXT record with v=schemapin1 (${lookup.records} TXT ` +
          `record(s)); verifiers ignore DNS for ${domain}\n`,
      );
      return EXIT_FAILED;
    case "malformed":
      await io.stdout(`MALFORMED ${lookup.name}: ${JSON.stringify(lookup.text)}\n`);
      await io.stderr(`error: DISCOVERY_INVALID: ${lookup.reason}\n`);
      // §17.2 "present and malformed": a published record, so a failed check (the table's
      // published origin, cli/exit_codes.ts), not a bad input of the user's.
      return exitCodeFor("DISCOVERY_INVALID", "published");
    case "present":
      break;
  }
  const kid = lookup.record!.kid !== undefined ? ` (kid ${lookup.record!.kid})` : "";
  if (!decision) {
    await io.stdout(`OK ${lookup.name}: ${lookup.record!.fp}${kid}\n`);
  } else if (decision.check.state === "match") {
    await io.stdout(`OK ${lookup.name}: ${lookup.record!.fp}${kid} matches ${expected!.source}\n`);
  } else {
    await io.stdout(`MISMATCH ${lookup.name}: ${lookup.record!.fp}${kid}\n`);
    await io.stderr(`error: DOMAIN_MISMATCH: ${decision.failure!.errorMessage}\n`);
  }
  if (lookup.candidates > 1) {
    await io.stderr(
      `warning: ${lookup.candidates} records carry v=schemapin1; verifiers use the first ` +
        `one the server returns — publish exactly one\n`,
    );
  }
  if (decision && !ok) await io.stderr(describeDnsCheck(decision.check) + "\n");
  return ok ? EXIT_OK : EXIT_FAILED;
}

/** The subcommands of `dns`. */
const SUBCOMMANDS = {
  record: { flags: RECORD_FLAGS, run: runRecord },
  check: { flags: CHECK_FLAGS, run: runCheck },
} as const satisfies Subcommands;

/** The `dns` command (`record`, `check`). */
export const dnsCommand: Command = {
  name: "dns",
  summary: "DNS TXT records: print one to publish (record), check a domain's (check)",
  help: HELP,
  flags: subcommandFlags(SUBCOMMANDS),
  run: (args, io) => runSubcommand("dns", SUBCOMMANDS, args, io, { missing: ": record or check" }),
};
