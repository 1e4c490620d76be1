/**
 * What verify-schema and verify-skill share around their one library call: the order in which
 * their inputs are read and their flags checked ({@linkcode openVerification}), their domain
 * ({@linkcode resolveSignedDomain}: `--domain` or the one a signed 1.4 document names), and how a
 * result is rendered: the text verdict ({@linkcode printVerdict}; the `--json` fields are
 * cli/trust/result_json.ts). And what the batches of sign-schema and verify-schema
 * share at their end ({@linkcode finishBatch}): the files skipped, the error of a batch that
 * matched nothing, the summary (their progress line: `batchProgress` of ./progress.ts).
 *
 * @module
 */
import { messageInCliWords } from "../library_words.ts";
import type { TrustOptionValues } from "../trust/plan.ts";
import { resultExitCode } from "../exit_codes.ts";
import type { BatchOutcome } from "../schema/batch_outcome.ts";
import { defaultPinStorePath } from "../../lib/pins/store.ts";
import { verificationDomain } from "../trust/domain.ts";
import {
  loadTrustedVerifier,
  type TrustedSchemaResult,
  type TrustedSkillResult,
  type TrustedVerifier,
} from "../../lib/trust/verify.ts";
import { asUsage, type CliIO, EXIT_OK, EXIT_USAGE } from "./command.ts";
import {
  checkTrustFlags,
  printVerifyNotes,
  reportInputFailure,
  requireDomainFlag,
  trustVerifierOptions,
} from "./schema_inputs.ts";

/** The flags of a verify command that {@linkcode openVerification} reads. */
export type VerifyFlagValues = TrustOptionValues & {
  domain?: string;
  json?: boolean;
  lineage?: boolean;
  "lineage-store"?: string;
  "allow-expired"?: boolean;
};

/** How a verify command reads its local inputs for {@linkcode openVerification}. */
export interface LocalInputs {
  /**
   * Without `--domain`: reads the signature and returns the domain it names (absent for a
   * `--batch`, which needs `--domain`).
   */
  readonly named?: () => Promise<string | undefined>;
  /**
   * Reads the other local inputs once every flag is checked; `checkNamed` is given the domain
   * the signature names, and refuses one that differs from `--domain` (exit 2).
   */
  readonly rest: (checkNamed: (named: string | undefined) => void) => Promise<void>;
}

/**
 * The domain and the verifier of a verify command, or the exit code of an input that could
 * not be used (reported on stdout with `--json`, else on stderr). Without `--domain`, the
 * signature (a local input) is read first for the domain it names; then every argument is
 * checked before anything else is read, fetched or written; then the other local inputs; then
 * the trust documents — the only step that may use the network.
 */
export async function openVerification(
  command: string,
  values: VerifyFlagValues,
  args: readonly string[],
  io: CliIO,
  local: LocalInputs,
): Promise<number | { domain: string; verifier: TrustedVerifier }> {
  const json = values.json === true;
  let domain: string;
  if (values.domain === undefined && local.named !== undefined) {
    let named: string | undefined;
    try {
      named = await local.named();
    } catch (e) {
      return await reportInputFailure(e, json, io);
    }
    domain = resolveSignedDomain(command, undefined, named);
  } else {
    domain = requireDomainFlag(command, values.domain);
  }
  const plan = checkTrustFlags(command, values, domain, args);
  try {
    await local.rest((named) => {
      if (values.domain !== undefined) resolveSignedDomain(command, values.domain, named);
    });
    // The lineage store and its code are loaded only when --lineage asks for them.
    const options = values.lineage === true || values["lineage-store"] !== undefined
      ? (await import("./verifier_options.ts")).verifierOptions(plan, values, io)
      : trustVerifierOptions(plan, values, io);
    return { domain, verifier: await loadTrustedVerifier(options) };
  } catch (e) {
    return await reportInputFailure(e, json, io);
  }
}

/**
 * The domain of a verification: `flag` (`--domain`) or the one the document names
 * (`verificationDomain` of cli/trust/domain.ts); a usage error (exit 2) otherwise.
 *
 * @example
 * ```ts
 * import { resolveSignedDomain } from "./schema_report.ts";
 * resolveSignedDomain("verify-schema", undefined, "Example.COM"); // "example.com"
 * resolveSignedDomain("verify-schema", "example.com", "example.com"); // "example.com"
 * ```
 */
export function resolveSignedDomain(
  command: string,
  flag: string | undefined,
  named: string | undefined,
): string {
  return asUsage(command, () => verificationDomain(flag, named));
}

/** What {@linkcode printVerdict} says about a result. */
export interface VerdictText {
  /** The command and its arguments, for the hint of a failure the user can act on. */
  readonly command: string;
  readonly args: readonly string[];
  /** What was verified (`TOOL_ID@DOMAIN`). */
  readonly who: string;
  /** `-q`: nothing on stdout for a valid result. */
  readonly quiet: boolean;
  /** The verifier (an explicit `--public-key` pins nothing) and `--pin-store`. */
  readonly verifier: TrustedVerifier;
  readonly pinStore: string | undefined;
  /** A note on stderr after the warnings. */
  readonly note?: string;
  /** The text after `OK WHO: `, given where the key's pin stands. */
  readonly ok: (pin: string) => string;
  /** Lines after `FAIL WHO: CODE` (the files that changed). */
  readonly failed?: string;
}

/**
 * Prints a verification's text output — warnings and the DNS cross-check, then `OK …` or
 * `FAIL …` with the error and a hint on stderr — and returns its exit code.
 */
export async function printVerdict(
  result: TrustedSchemaResult | TrustedSkillResult,
  text: VerdictText,
  io: CliIO,
): Promise<number> {
  await printVerifyNotes(result, io);
  if (text.note !== undefined) await io.stderr(text.note);
  if (result.valid) {
    if (text.quiet) return resultExitCode(result);
    if (result.lineage !== undefined) {
      await (await import("./lineage_store.ts")).printLineage(result.lineage, io);
    }
    const pin = text.verifier.trust.explicitKey !== undefined
      ? "key from --public-key, not pinned"
      : result.keyPinning === "first_use"
      ? `pinned on first use in ${text.pinStore ?? defaultPinStorePath()}`
      : "pin matches";
    await io.stdout(`OK ${text.who}: ${text.ok(pin)}\n`);
  } else {
    await io.stdout(`FAIL ${text.who}: ${result.errorCode}\n${text.failed ?? ""}`);
    const { failureHint } = await import("../trust/failure_hint.ts"); // a failure only
    await io.stderr(
      `error: ${result.errorCode}: ${messageInCliWords(result.errorMessage ?? "")}` +
        `${failureHint(result, [text.command, ...text.args])}\n`,
    );
  }
  return resultExitCode(result);
}

/** A finished batch, for {@linkcode finishBatch}. */
export interface FinishedBatch {
  /** `sign-schema` or `verify-schema`. */
  readonly command: string;
  /** `signed` or `verified`: the summary's count of successes. */
  readonly verb: string;
  /** `--batch DIR` and `--pattern GLOB`. */
  readonly dir: string;
  readonly pattern: string;
  /** What the library reported (cli/schema/batch_outcome.ts). */
  readonly outcome: BatchOutcome;
  /** With `--json`, one object on stdout; else `line` (the summary). */
  readonly json: boolean;
  readonly line: string;
}

/**
 * Warns of the skipped entries, then prints the summary of a batch and returns its exit code:
 * exit 2 when nothing matched the pattern, the worst failure's code, else 0.
 */
export async function finishBatch(batch: FinishedBatch, io: CliIO): Promise<number> {
  const { json, outcome } = batch;
  const { jsonError, jsonOutput } = json ? await import("./json_output.ts") : {};
  for (const path of outcome.skipped) {
    await io.stderr(`warning: skipped ${path} (not a regular file)\n`);
  }
  if (outcome.total === 0) {
    const message = `no file in ${batch.dir} matches ${JSON.stringify(batch.pattern)}`;
    if (jsonError) await io.stdout(jsonError("INPUT_INVALID", message));
    await io.stderr(`error: ${message}\n`);
    return EXIT_USAGE;
  }
  if (jsonOutput) {
    await io.stdout(jsonOutput(`${batch.command}.batch`, outcome.fields(batch.verb)));
  } else {
    await io.stdout(batch.line);
  }
  return outcome.failed > 0 ? outcome.worst : EXIT_OK;
}
