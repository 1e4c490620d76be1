/**
 * `schemapin contract verify`: compare live servers with `contractpin.lock` and exit per
 * contractpin spec §6 — 0 every selected server matches, 1 drift or unreachable, 2 could not
 * run. Reading the lock, its snapshot and config, the signature check's place and the
 * verification are one library call (cli/contractpin/verify_lock.ts, `verifyLockFile`); this
 * file parses the flags, runs the signature check with the flags' key sources, and renders.
 *
 * @module
 */
import { processConfigHost } from "../mcp_config/variables.ts";
import { DEFAULT_LOCK_FILE } from "../../lib/contractpin/lock.ts";
import type { VerifyReport } from "../../lib/contractpin/report.ts";
import { formatGithub } from "../contractpin/report_github.ts";
import { formatHuman } from "../contractpin/report_human.ts";
import { formatSarif } from "../contractpin/report_sarif.ts";
import { reportFormat } from "../contractpin/report_format.ts";
import { type VerifyFileResult, verifyLockFile } from "../contractpin/verify_lock.ts";
import type { ApproveCommandOptions } from "../contractpin/approve_command.ts";
import { reportApproveCommands } from "../contractpin/approve_commands.ts";
import { verifyJsonFields } from "../contractpin/json_fields.ts";
import { escapeInvisible, shellLine } from "../../lib/contractpin/display_text.ts";
import { parseHeader } from "../mcp/header_option.ts";
import { VERSION } from "../../lib/version.ts";
import { asUsage, type CliIO, EXIT_FAILED, UsageError } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { booleanFlag, type FlagTable, listFlag, valueFlag } from "../args/flags.ts";
import { jsonFlag } from "./flag_groups.ts";
import {
  contractFiles,
  limitsFrom,
  MCP_LIMIT_FLAGS,
  parseContractArgs,
  SKILL_CAP_FLAGS,
  skillOptionsFrom,
} from "./contract_shared.ts";
import {
  lockSignatureGithubLine,
  lockSignatureLine,
  lockSignatureSarif,
} from "../contractpin/lock_signature_report.ts";
import {
  LOCK_TRUST_FLAGS,
  printLockSignatureNotes,
  runLockSignatureCheck,
} from "./lock_signature.ts";
import { terminalPrompt } from "./prompt.ts";
import {
  loadSkillSignatureCheck,
  planVerifySignatures,
  VERIFY_SKILL_SIGNATURE_FLAGS,
} from "./skill_signature.ts";
import type { SkillSignatureCheck } from "../../lib/contractpin/skills_signature.ts";
import { type LoadedTrust, loadTrustAndDnsHook } from "../../lib/trust/load.ts";
import { reportInputFailure, trustEnv } from "./schema_inputs.ts";

const CMD = "contract verify";

/** The flags of `contract verify`. */
export const CONTRACT_VERIFY_FLAGS = {
  lock: valueFlag("FILE", "the lock to verify against (default contractpin.lock; - for stdin)"),
  server: listFlag("NAME", "verify only this server of the lock; repeatable"),
  "allow-new": booleanFlag("tools the lock does not pin do not fail"),
  ...jsonFlag("schemapin.contract.verify/1; the same as --format json"),
  format: valueFlag(
    "human|json|sarif|github",
    "the report: human (default), json, sarif (SARIF 2.1.0) or github (workflow " +
      "annotations)",
  ),
  header: listFlag(
    "'NAME: VALUE'",
    "an HTTP header for every HTTP server (never written); repeatable",
  ),
  config: valueFlag(
    "FILE",
    "run the servers as this MCP client config defines them; a changed command or URL " +
      "is reported",
  ),
  snapshot: valueFlag("FILE", "the snapshot the diffs come from (default next to the lock)"),
  "no-diff": booleanFlag("no diffs in the report (the snapshot is not read)"),
  "strict-text": booleanFlag("hidden text in a live tool definition is a failure (exit 1)"),
  ...MCP_LIMIT_FLAGS,
  ...SKILL_CAP_FLAGS,
  // Signed locks (issue 17 item 2): verify-schema's key sources; --timeout stays MCP's.
  "require-signed-lock": booleanFlag(
    "the lock must carry a valid signature (LOCK.sig) by the key of --domain, checked " +
      "before any server is contacted (see Signed locks)",
  ),
  signature: valueFlag(
    "FILE",
    "the signature FILE of the lock (default LOCK.sig; with --require-signed-lock)",
  ),
  ...LOCK_TRUST_FLAGS,
  domain: {
    ...LOCK_TRUST_FLAGS.domain,
    help: "the publisher's domain (RFC 1123 host name): its key must have signed the lock " +
      "(--require-signed-lock; the pin key contractpin:lock@DOMAIN) and every skill " +
      "(--require-skill-signature; SKILL_NAME@DOMAIN)",
  },
  // docs/contractpin-skills.md, "Signed skills": the same key sources as a signed lock.
  ...VERIFY_SKILL_SIGNATURE_FLAGS,
  // Issue 25 item 4: one spelling with the guard's; the old one works for one release.
  "require-signature": { type: "boolean", help: "", deprecated: "require-signed-lock" },
} as const satisfies FlagTable;

/** Runs `schemapin contract verify`. */
export async function runContractVerify(args: string[], io: CliIO): Promise<number> {
  const { values } = parseContractArgs(CMD, args, CONTRACT_VERIFY_FLAGS);
  const format = asUsage(CMD, () => reportFormat(values.format, values.json === true));
  const limits = { ...limitsFrom(CMD, values), skills: skillOptionsFrom(CMD, values) };
  const lockPath = values.lock ?? DEFAULT_LOCK_FILE;
  const plans = planVerifySignatures(CMD, values, args, lockPath);
  const sigPlan = plans.lock;
  const json = format === "json";
  let failure: number | undefined; // the exit code of a signature input that was reported
  let skillCheck: SkillSignatureCheck | undefined; // loaded before any server is contacted
  const skillPlan = plans.skills;
  let result: VerifyFileResult;
  try {
    result = await verifyLockFile(
      {
        lockPath,
        snapshot: values.snapshot,
        noDiff: values["no-diff"] === true,
        config: values.config,
        configHost: processConfigHost(),
        select: values.server,
        allowNew: values["allow-new"] === true,
        headers: (values.header ?? []).map(parseHeader),
        strictText: values["strict-text"] === true,
      },
      contractFiles(io),
      {
        ...limits,
        ...(skillPlan
          ? {
            skillSignatures: {
              domain: skillPlan.domain,
              verify: (skill) => skillCheck!.verify(skill),
            },
          }
          : {}),
        onSnapshotIgnored: (message) =>
          io.stderr(`warning: snapshot ignored, diffs unavailable: ${message}\n`),
        // The lock's signature, then the skills' trust, before any server is contacted: a
        // failure stops there (exit 1, or 2 for a trust input that cannot be used).
        checkSignature: async (lockBytes) => {
          const reported = (code: number) => {
            failure = code;
            return new SignatureInputReported();
          };
          // Both checks: the trust loaded once, so they judge the same documents.
          let loaded: LoadedTrust | undefined;
          if (skillPlan && sigPlan.plan) {
            try {
              loaded = await loadTrustAndDnsHook(sigPlan.plan, trustEnv(sigPlan.plan, io));
            } catch (e) {
              if (e instanceof UsageError) throw e;
              throw reported(await reportInputFailure(e, json, io));
            }
          }
          const signed = await runLockSignatureCheck(sigPlan, {
            values,
            lockBytes,
            lockPath,
            io,
            json,
            ask: (q) => terminalPrompt(q, io),
            ...(loaded ? { loaded } : {}),
          });
          if (typeof signed === "number") throw reported(signed);
          if (signed.status !== "invalid") await printLockSignatureNotes(signed, io);
          if (skillPlan && signed.status !== "invalid") {
            const check = await loadSkillSignatureCheck(skillPlan, values, io, {
              json,
              ask: (q) => terminalPrompt(q, io),
              ...(loaded ? { loaded } : {}),
            });
            if (typeof check === "number") throw reported(check);
            skillCheck = check;
          }
          return signed;
        },
      },
    );
  } catch (e) {
    if (e instanceof SignatureInputReported && failure !== undefined) return failure;
    throw e;
  }
  const { report, lockText, signature: signed } = result;
  // A lock whose signature failed (issue 17 item 2): no server was contacted, so `servers` is
  // empty and the result is a failure (`exit_code` 1, `error` the signature's).
  const unsigned = signed.status === "invalid";
  if (!unsigned && Object.keys(result.lock.servers).length === 0) {
    await io.stderr(`warning: ${lockPath} pins no servers; nothing was checked\n`);
  }
  const notContacted = "the lock signature did not verify; no server was contacted";
  // The approve commands name the snapshot and client config this run used.
  const from: ApproveCommandOptions = { snapshot: values.snapshot, config: values.config };
  switch (format) {
    case "json":
      await io.stdout(jsonOutput("contract.verify", verifyJsonFields(report, signed, from)));
      break;
    case "sarif":
      await io.stdout(
        formatSarif(report, unsigned ? "" : lockText, VERSION, lockSignatureSarif(signed)),
      );
      break;
    case "github":
      await io.stdout(
        lockSignatureGithubLine(signed) +
          (unsigned
            ? `contract verify: FAIL — ${notContacted} (exit 1)\n`
            : formatGithub(report, lockText)),
      );
      break;
    default:
      await io.stdout(
        unsigned
          ? `${lockSignatureLine(signed, false)}\nFAIL: ${notContacted}\n`
          : (signed.status === "valid" ? lockSignatureLine(signed) + "\n" : "") +
            formatHuman(report, { diffs: !values["no-diff"] }) + approveLines(report, from),
      );
  }
  if (!unsigned) return report.exit_code;
  await printLockSignatureNotes(signed, io);
  return EXIT_FAILED;
}

/** Thrown out of the signature check once its input failure is reported (its exit code kept). */
class SignatureInputReported extends Error {}

/** The human report's last lines: the approve command for the changes found, per server. */
function approveLines(report: VerifyReport, from: ApproveCommandOptions): string {
  return reportApproveCommands(report, { ...from, yes: false })
    .map(({ argv }) => `review and approve: ${escapeInvisible(shellLine(argv))}\n`).join("");
}
