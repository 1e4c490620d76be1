/**
 * `schemapin verify-skill skill://NAME/SKILL.md … (-- CMD ARGS… | --http URL)`: a skill served
 * over MCP (SEP-2640 `skills/get`, or FastMCP 4's `skill://NAME/_manifest`) fetched, checked
 * against its listing, and verified against the SchemaPin signature it carries with the same
 * trust as a folder (docs/signing.md, "Skills served over MCP"). Not a command: the part of
 * `verify-skill` (cli/commands/verify_skill.ts) that a URI argument selects.
 *
 * Order: every flag is checked (the trust flags too) before the server is started; the skill
 * is fetched and the server closed; a contradiction between its listing and its bytes, or no
 * signature, is exit 1 without loading any trust; then the trust is loaded and the signature
 * verified. A server that fails or serves a malformed listing is exit 1 (its publication
 * failed the check, not the user's input).
 *
 * @module
 */
import { messageInCliWords } from "../library_words.ts";
import { basename } from "node:path";
import { signedDocumentDomain } from "../../lib/skill/document.ts";
import { showPath } from "../../lib/skill/fs.ts";
import { describeChanges } from "../../lib/skill/manifest.ts";
import type { CheckedSkill } from "../../lib/skill/served_check.ts";
import { type ServedSkillEntry, skillUriParts } from "../../lib/skill/served_entry.ts";
import { fetchServedSkills, type ServedSkills } from "../../lib/skill/served_fetch.ts";
import { servedSkillFailure } from "../../lib/skill/served_verify.ts";
import { enumerateTarget, type PreparedTarget, prepareTarget } from "../../lib/contractpin/live.ts";
import { processEnv, redactUrl } from "../../lib/contractpin/secrets.ts";
import { parseHeader } from "../mcp/header_option.ts";
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { EXIT_FAILED, resultExitCode } from "../exit_codes.ts";
import type { TrustedServedSkillResult } from "../../lib/trust/verify.ts";
import { trustedServedSkillJson } from "../trust/result_json.ts";
import { type FlagTable, listFlag, valueFlag } from "../args/flags.ts";
import { asUsage, type CliIO, UsageError } from "./command.ts";
import { jsonError, jsonOutput } from "./json_output.ts";
import { MCP_TIMEOUT_FLAGS, printServerFailure } from "./contract_shared.ts";
import type { RunOptions } from "../../lib/contractpin/run.ts";
import { runLimits } from "../contractpin/run_limits.ts";
import { checkTrustFlags, confirmFirstUseWith, requireDomainFlag } from "./schema_inputs.ts";
import { openVerification, printVerdict, type VerifyFlagValues } from "./schema_report.ts";
import type { VerifyCommandDeps } from "./prompt.ts";

/** The flags a skill served over MCP adds to `verify-skill`. */
export const SERVED_SKILL_FLAGS = {
  http: valueFlag(
    "URL",
    "with a skill:// URI: fetch it from this MCP server over HTTP (Streamable HTTP, else " +
      "the legacy HTTP+SSE transport) instead of the stdio server after --",
  ),
  header: listFlag("'NAME: VALUE'", "an HTTP header for --http; repeatable"),
  "startup-timeout": {
    ...MCP_TIMEOUT_FLAGS["startup-timeout"],
    help: "seconds for the MCP server of a skill:// URI to start and answer initialize " +
      "(default 90)",
  },
} as const satisfies FlagTable;

/**
 * True when the argument of `verify-skill` names a skill by URI (`scheme://…`), not a folder.
 *
 * @example
 * ```ts
 * import { isSkillUri } from "./verify_skill_mcp.ts";
 * isSkillUri("skill://pdf-tools/SKILL.md"); // true
 * isSkillUri("./pdf-tools"); // false
 * ```
 */
export function isSkillUri(text: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(text);
}

/** The flags of `verify-skill` the MCP path reads. */
export type ServedSkillFlagValues = VerifyFlagValues & {
  http?: string;
  header?: string[];
  "startup-timeout"?: string;
  signature?: string;
  "tool-id"?: string;
  "max-entries"?: string;
  "max-bytes"?: string;
  quiet?: boolean;
  "pin-store"?: string;
};

/** What {@linkcode runServedSkill} is given by `verify-skill`. */
export interface ServedSkillRun {
  /** The skill's `SKILL.md` URI. */
  readonly uri: string;
  /** The parsed flags. */
  readonly values: ServedSkillFlagValues;
  /** The arguments before `--` (for the trust chain's order and the hints). */
  readonly args: readonly string[];
  /** The words after `--` (the stdio server), when `--` was given. */
  readonly command?: readonly string[];
  /** The caps (`--max-entries`, `--max-bytes`), as `limitsFromArgs` read them. */
  readonly limits: { maxEntries?: number; maxBytes?: number };
}

const CMD = "verify-skill";

/** The server to fetch from: `-- CMD ARGS…` or `--http URL` with its `--header`s. */
function servedTarget(run: ServedSkillRun): PreparedTarget {
  const { values, command } = run;
  if (values.signature !== undefined) {
    throw new UsageError(
      `${CMD}: --signature goes with a DIR; a skill over MCP carries its own signature ` +
        `(its .schemapin.sig file or its entry's _meta)`,
    );
  }
  if (values.http !== undefined && command !== undefined) {
    throw new UsageError(`${CMD}: give the server as -- CMD ARGS… or as --http URL, not both`);
  }
  if (values.header?.length && values.http === undefined) {
    throw new UsageError(`${CMD}: --header goes with --http`);
  }
  if (values.http !== undefined) {
    const headers = (values.header ?? []).map((h) => asUsage(CMD, () => parseHeader(h)));
    return asUsage(CMD, () =>
      prepareTarget(
        {
          name: redactUrl(values.http!),
          identity: { transport: "http", url: values.http! },
          headers,
        },
        processEnv,
      ));
  }
  if (command === undefined || command.length === 0) {
    throw new UsageError(
      `${CMD}: ${run.uri} is served by an MCP server: give it as -- CMD ARGS… (stdio) or ` +
        `--http URL`,
    );
  }
  return { name: basename(command[0]), transport: "stdio", command: [...command] };
}

/** The skill `uri` fetched from `target` and checked against its listing. */
async function fetchSkill(
  target: PreparedTarget,
  uri: string,
  run: ServedSkillRun,
  limits: RunOptions,
): Promise<CheckedSkill & { entry: ServedSkillEntry }> {
  let served: ServedSkills | undefined;
  await enumerateTarget(target, {
    startupTimeoutMs: limits.startupTimeoutMs,
    requestTimeoutMs: limits.requestTimeoutMs,
    maxPages: limits.maxPages,
    clientVersion: limits.clientVersion,
    afterList: async (session) => {
      served = await fetchServedSkills(session, {
        only: uri,
        ...(run.limits.maxEntries !== undefined ? { maxFiles: run.limits.maxEntries } : {}),
        ...(run.limits.maxBytes !== undefined
          ? { maxSkillBytes: run.limits.maxBytes, maxServerBytes: run.limits.maxBytes }
          : {}),
      });
    },
  });
  const skill = served?.skills.find((s) => s.entry.uri === uri);
  if (!skill) {
    throw new ServerFailure("protocol", `the server does not serve the skill ${uri}`);
  }
  return skill;
}

/** A server failure or a malformed listing: exit 1, the server's publication failed. */
async function reportFetchFailure(e: unknown, json: boolean, io: CliIO): Promise<number> {
  if (e instanceof ServerFailure) {
    if (json) await io.stdout(jsonError("SERVER_FAILED", messageInCliWords(e.message)));
    await printServerFailure(io, e.message, e.stderr);
    return EXIT_FAILED;
  }
  if (e instanceof SchemaPinError) {
    const message = `the server's skill listing cannot be used: ${e.message}`;
    if (json) await io.stdout(jsonError(e.code, message));
    else await io.stderr(`error: ${e.code}: ${message}\n`);
    return EXIT_FAILED;
  }
  throw e;
}

/** `  digest skill://pdf/scripts/run.sh: listed …, served …` for each problem. */
function problemLines(result: TrustedServedSkillResult): string {
  return result.problems.map((p) => `  ${p.kind} ${showPath(p.file ?? p.skill)}: ${p.message}\n`)
    .join("");
}

/**
 * Runs `verify-skill` for a skill served over MCP (see the module documentation) and returns
 * its exit code.
 *
 * @example
 * ```ts ignore
 * const code = await runServedSkill(
 *   { uri: "skill://pdf/SKILL.md", values, args, command: ["python", "server.py"], limits: {} },
 *   { prompt: terminalPrompt },
 *   io,
 * );
 * ```
 */
export async function runServedSkill(
  run: ServedSkillRun,
  deps: VerifyCommandDeps,
  io: CliIO,
): Promise<number> {
  const { uri, values, args } = run;
  const json = values.json === true;
  // A URI that cannot name a skill's SKILL.md is a usage error, before any server starts.
  const parts = skillUriParts(uri);
  if (typeof parts === "string") throw new UsageError(`${CMD}: ${parts}`);
  const target = servedTarget(run);
  const limits = asUsage(CMD, () => runLimits({ "startup-timeout": values["startup-timeout"] }));
  // Every flag is checked before the server is started: the trust flags do not depend on the
  // domain, which may come from the signature fetched.
  checkTrustFlags(CMD, values, requireDomainFlag(CMD, values.domain ?? "example.com"), args);

  let skill;
  try {
    skill = await fetchSkill(target, uri, run, limits);
  } catch (e) {
    return await reportFetchFailure(e, json, io);
  }
  const toolId = values["tool-id"];
  // A listing that contradicts its bytes, or no signature: nothing to look a key up for.
  const early = servedSkillFailure(skill, toolId);
  if (early) {
    if (json) {
      await io.stdout(jsonOutput(CMD, trustedServedSkillJson(early)));
    } else {
      await io.stdout(`FAIL ${showPath(uri)}: ${early.errorCode}\n${problemLines(early)}`);
      await io.stderr(`error: ${early.errorCode}: ${showPath(early.errorMessage ?? "")}\n`);
    }
    return resultExitCode(early);
  }
  const named = () => signedDocumentDomain(skill.signature);
  const opened = await openVerification(CMD, values, args, io, {
    named: () => Promise.resolve(named()),
    rest: (checkNamed) => Promise.resolve(checkNamed(named())),
  });
  if (typeof opened === "number") return opened;
  const { domain, verifier } = opened;
  const result = await verifier.verifyServedSkill({
    skill,
    toolId,
    confirmFirstUse: confirmFirstUseWith((q) => deps.prompt(q, io)),
  });
  if (json) {
    await io.stdout(jsonOutput(CMD, trustedServedSkillJson(result)));
    return resultExitCode(result);
  }
  const legacy = result.signatureFormat === "legacy" ? ", legacy format" : "";
  const carried = result.signatureSource === "meta" ? "_meta" : ".schemapin.sig";
  return await printVerdict(result, {
    command: CMD,
    args: run.command === undefined ? args : [...args, "--", ...run.command],
    who: `${showPath(result.toolId || skill.entry.name)}@${domain}`,
    quiet: values.quiet === true,
    verifier,
    pinStore: values["pin-store"],
    ok: (pin) =>
      `${showPath(uri)} (${skill.entry.form}, signature in ${carried}), ${result.files} files, ` +
      `${result.skillHash}, signed by ${result.keyFingerprint} (${pin}${legacy})` +
      (result.expiresAt !== undefined ? `, expires ${result.expiresAt}` : ""),
    failed: result.changes
      ? describeChanges(result.changes).map((line) => `  ${showPath(line)}\n`).join("")
      : "",
  }, io);
}
