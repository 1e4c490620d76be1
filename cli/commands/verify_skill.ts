/**
 * `schemapin verify-skill`: verification of a signed skill folder (§4b, §15.1) with trust
 * from a file, a bundle, a resolver folder or `.well-known` over HTTPS (§14), and the
 * optional DNS TXT cross-check (§17) — or of a skill served over MCP, given by its URI
 * (cli/commands/verify_skill_mcp.ts):
 * exit 0 verified, 1 verification failed (the files that changed are listed), 2 could not
 * run (bad arguments, unreadable or malformed input, a hostile folder).
 *
 * @module
 */
import { sourceName } from "../../lib/schema/input.ts";
import { showPath } from "../../lib/skill/fs.ts";
import { describeChanges } from "../../lib/skill/manifest.ts";
import { readLocalSkillSignature } from "../skill/local_signature.ts";
import { checkToolIdOption } from "../schema/verify_request.ts";
import type { TrustedSkillResult } from "../../lib/trust/verify.ts";
import { trustedSkillJson } from "../trust/result_json.ts";
import { resultExitCode } from "../exit_codes.ts";
import {
  asUsage,
  type Command,
  parseCommandArgs,
  requirePositionals,
  UsageError,
} from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { readInput } from "./io.ts";
import { limitsFromArgs } from "./skill_limits.ts";
import { skillProgress } from "./progress.ts";
import { confirmFirstUseWith } from "./schema_inputs.ts";
import { openVerification, printVerdict } from "./schema_report.ts";
import { terminalPrompt, type VerifyCommandDeps } from "./prompt.ts";
import { isSkillUri, runServedSkill, SERVED_SKILL_FLAGS } from "./verify_skill_mcp.ts";
import { type FlagTable, optionList, valueFlag } from "../args/flags.ts";
import {
  DNS_FLAGS,
  EXPIRY_FLAGS,
  jsonFlag,
  KEY_SOURCE_FLAGS,
  LIMIT_FLAGS,
  LINEAGE_FLAGS,
  NETWORK_TIMEOUT_FLAGS,
  PIN_FLAGS,
  QUIET_FLAGS,
  VERIFY_DOMAIN_FLAGS,
} from "./flag_groups.ts";

const FLAGS = {
  ...VERIFY_DOMAIN_FLAGS,
  ...KEY_SOURCE_FLAGS,
  ...NETWORK_TIMEOUT_FLAGS,
  ...DNS_FLAGS,
  ...PIN_FLAGS,
  ...LINEAGE_FLAGS,
  ...EXPIRY_FLAGS,
  "tool-id": valueFlag("ID", "pin under ID instead of the document's skill_name"),
  signature: valueFlag(
    "FILE",
    "the signature document (default DIR/.schemapin.sig); a missing or malformed FILE " +
      "is exit 2",
  ),
  ...LIMIT_FLAGS,
  ...SERVED_SKILL_FLAGS,
  ...jsonFlag("schemapin.verify-skill/1: ok, error, changes, key_pinning, …"),
  quiet: {
    ...QUIET_FLAGS.quiet,
    help: "print only a failure (and warnings); no progress line (on a terminal, one counts " +
      "the files while the folder is listed, then the files and bytes hashed)",
  },
} as const satisfies FlagTable;

const HELP = `schemapin verify-skill — verify a signed skill folder (SchemaPin §4b)

Usage:
  schemapin verify-skill DIR [--domain D] (--discovery FILE [--revocation FILE] | SOURCE…)
      [--dns [--dns-server IP[:PORT]]] [--pin-store FILE] [--trust-first-use]
      [--allow-expired] [--allow-missing-revocation] [--tool-id ID] [--signature FILE]
      [--lineage | --lineage-store FILE] [--max-entries N] [--max-bytes SIZE] [--json] [-q]
  schemapin verify-skill DIR [--domain D] --public-key PUBLIC.pem [--revocation FILE]
      [--allow-expired] [--tool-id ID] [--signature FILE] [--json] [-q]
  schemapin verify-skill skill://NAME/SKILL.md [the same trust options, no --signature]
      [--startup-timeout S] (-- CMD ARGS… | --http URL [--header 'NAME: VALUE']…)
  SOURCE: --bundle FILE | --resolver-dir DIR | --well-known [--ca-file FILE] [--timeout S]

Runs the seven steps of SchemaPin §15.1 in order, the folder hash among them, and writes a
pin of SKILL_NAME@D only after all of them succeeded (docs/signing.md, "Skill folders").
Without --domain, D is the domain a 1.4 signature document names (one that differs is exit
2); a legacy (1.3) document, or one without a domain, needs --domain D. A .schemapin.sig that
is missing (unsigned, exit 1), not JSON (exit 2) or no signature document (exit 1) fails the
same with or without --domain, naming the skill as sign-skill would. A changed folder
lists the files modified, added and removed; a symbolic link, FIFO, socket or device, a
non-UTF-8 name or a folder over the caps is exit 2.

A skill served over MCP (its SKILL.md URI, from the stdio server CMD ARGS… or the HTTP
server URL; SEP-2640 skills/get, or FastMCP's skill://NAME/_manifest) is fetched, every file
is checked against the listing (digest, size, unlisted files, frontmatter; any contradiction
is exit 1 naming the file, nothing pinned), and the signature it carries — its
.schemapin.sig file, or its entry's _meta["dev.schemapin/signature"] — is verified over the
same bytes exactly as for a folder; --max-entries and --max-bytes cap the skill fetched.
A server that fails or serves a malformed listing is exit 1.

First use and lineage (--lineage) as in \`schemapin verify-schema --help\`.

Options:
${optionList(FLAGS)}

Exit codes: 0 verified; 1 not verified (tampered, bad signature, revoked, expired, pin
mismatch, unsigned, first use not confirmed, discovery unreachable or malformed over the
network, DNS mismatch, …); 2 bad arguments, an unreadable or malformed local input, or a
folder that cannot be hashed safely (the message names the path).

Examples:
  schemapin verify-skill ./pdf-tools --domain example.com --discovery schemapin.json \\
      --trust-first-use
  schemapin verify-skill ./pdf-tools --domain example.com --bundle bundle.json --json
  schemapin verify-skill ./pdf-tools --public-key keys/public.pem
  schemapin verify-skill ./pdf-tools --domain example.com --discovery schemapin.json \\
      --trust-first-use --lineage
  schemapin verify-skill ./pdf-tools --domain example.com --well-known --dns \\
      --ca-file corp-ca.pem --trust-first-use
  schemapin verify-skill skill://pdf-tools/SKILL.md --discovery schemapin.json \\
      --trust-first-use -- python skills_server.py
  schemapin verify-skill skill://pdf-tools/SKILL.md --public-key keys/public.pem \\
      --http https://mcp.example.com/mcp --header 'Authorization: Bearer TOKEN'
`;

/** Builds the `verify-skill` command with the given prompt. */
export function makeVerifySkillCommand(deps: VerifyCommandDeps): Command {
  return {
    name: "verify-skill",
    summary: "verify a signed skill folder (lists tampered files; file, bundle, HTTPS, DNS)",
    help: HELP,
    flags: FLAGS,
    async run(args, io) {
      // A skill:// URI is fetched from the MCP server after -- (or --http); a DIR as before.
      const dash = args.indexOf("--");
      const own = dash < 0 ? args : args.slice(0, dash);
      const first = parseCommandArgs("verify-skill", own, FLAGS);
      if (first.positionals.length === 1 && isSkillUri(first.positionals[0])) {
        asUsage("verify-skill", () => checkToolIdOption(first.values["tool-id"]));
        return await runServedSkill(
          {
            uri: first.positionals[0],
            values: first.values,
            args: own,
            command: dash < 0 ? undefined : args.slice(dash + 1),
            limits: limitsFromArgs("verify-skill", first.values),
          },
          deps,
          io,
        );
      }
      const { values, positionals } = parseCommandArgs("verify-skill", args, FLAGS);
      const [dir] = requirePositionals("verify-skill", positionals, 1, "DIR");
      for (const flag of ["http", "header", "startup-timeout"] as const) {
        if (values[flag] !== undefined) {
          throw new UsageError(`verify-skill: --${flag} goes with a skill:// URI, not a DIR`);
        }
      }
      asUsage("verify-skill", () => checkToolIdOption(values["tool-id"]));
      const limits = limitsFromArgs("verify-skill", values);
      let signature: unknown;
      let skillName: string | undefined;
      // The local inputs (the folder must exist) and the domain the signature names.
      const readLocal = async () => {
        const local = await readLocalSkillSignature(dir, values.signature, (p) => readInput(p, io));
        signature = local.signature;
        skillName = local.skillName;
        if (values.domain === undefined && local.problem) {
          // Without --domain the domain comes from the folder's signature: one that cannot be
          // used (unsigned, not JSON, …) is the verdict, as it is with --domain, not a missing
          // --domain.
          if (!values.json) {
            const who = values["tool-id"] ?? skillName ?? "(unnamed)";
            await io.stdout(`FAIL ${showPath(who)}: ${local.problem.code}\n`);
          }
          throw local.problem;
        }
        return local.domain;
      };
      const opened = await openVerification("verify-skill", values, args, io, {
        named: readLocal,
        rest: async (checkNamed) => {
          if (values.domain !== undefined) checkNamed(await readLocal());
        },
      });
      if (typeof opened === "number") return opened;
      const { domain, verifier } = opened;
      const quiet = values.quiet === true;
      const progress = skillProgress(io, "verify-skill", quiet);
      let result: TrustedSkillResult;
      try {
        result = await verifier.verifySkill({
          ...limits,
          dir,
          signature,
          toolId: values["tool-id"],
          confirmFirstUse: confirmFirstUseWith((q) => {
            progress.done(); // the question starts on a clean line
            return deps.prompt(q, io);
          }),
          ...progress.options,
          signatureSource: values.signature !== undefined
            ? sourceName(values.signature)
            : undefined,
        });
      } finally {
        progress.done();
      }
      if (values.json) {
        await io.stdout(jsonOutput("verify-skill", trustedSkillJson(result)));
        return resultExitCode(result);
      }
      const legacy = result.signatureFormat === "legacy" ? ", legacy format" : "";
      return await printVerdict(result, {
        command: "verify-skill",
        args,
        // A signature that names no skill (missing, broken): the name sign-skill would give it.
        who: `${showPath(result.toolId || skillName || "(unnamed)")}@${domain}`,
        quiet,
        verifier,
        pinStore: values["pin-store"],
        note: result.unsignedFiles
          ? `  not covered: ${result.unsignedFiles.map(showPath).join(", ")}\n`
          : undefined,
        ok: (pin) =>
          `${result.files} files, ${result.skillHash}, signed by ${result.keyFingerprint} ` +
          `(${pin}${legacy})` +
          (result.expiresAt !== undefined ? `, expires ${result.expiresAt}` : ""),
        failed: result.changes
          ? describeChanges(result.changes).map((line) => `  ${showPath(line)}\n`).join("")
          : "",
      }, io);
    },
  };
}

/** The `verify-skill` command (asks on the terminal on first use). */
export const verifySkillCommand: Command = makeVerifySkillCommand({ prompt: terminalPrompt });
