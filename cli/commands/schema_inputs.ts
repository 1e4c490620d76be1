/**
 * Input helpers shared by the schema commands (sign-schema, verify-schema, well-known,
 * revoke, pins, chain): read a JSON or PEM file with errors naming it, check a batch's
 * `--pattern`; and what the verify commands share: their key-source flags checked into the
 * trust plan of cli/trust/plan.ts that lib/trust/load.ts loads (lib/trust/verify.ts verifies
 * with it), and the texts of its warnings and first-use question (the hint after a failure:
 * cli/trust/failure_hint.ts).
 *
 * @module
 */
import { messageInCliWords } from "../library_words.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import type { FirstUseInfo, OfflineVerificationResult } from "../../lib/schema/flow.ts";
import type { HttpsFetchOptions } from "../../lib/discovery/http.ts";
import type { DnsCrossCheck } from "../../lib/dns/check.ts";
import type { DnsServer } from "../../lib/dns/resolve.ts";
import { readJsonInput } from "../../lib/schema/input.ts";
import { globToRegExp } from "../../lib/schema/batch_list.ts";
import { domainOption } from "../dns/domain_option.ts";
import {
  httpsFetchOptions,
  type TrustEnv,
  type TrustPlan as LibraryTrustPlan,
} from "../../lib/trust/load.ts";
import { keyOptionHint, trustInputNames } from "../trust/input_names.ts";
import {
  dnsServerOption,
  planTrust,
  timeoutOption,
  type TrustOptionValues,
} from "../trust/plan.ts";
import { asUsage, type CliIO, UsageError } from "./command.ts";
import { exitCodeOfError } from "../exit_codes.ts";
import { readInput } from "./io.ts";
import type { TrustedVerifierOptions } from "../../lib/trust/verify.ts";

// Moved to the library; re-exported for the commands that import them from here.

/**
 * Reads and strictly parses a JSON file; `JSON_INVALID` / `IO_FAILED` name the file and say
 * what it was supposed to be. A PEM file (a key given in place of the document) is
 * `INPUT_INVALID` saying what it is; with `keyFlag`, the message names the flag that takes a
 * key (`--discovery public.pem` → "… not a discovery document (use --public-key FILE)").
 */
export async function readJsonFile(
  path: string,
  io: CliIO,
  what: string,
  keyFlag?: string,
): Promise<JsonValue> {
  const hint = keyFlag === undefined ? undefined : keyOptionHint(keyFlag);
  return await readJsonInput(path, (p) => readInput(p, io), what, hint);
}

/**
 * `--pattern GLOB` of a batch, checked as a file-name pattern (`globToRegExp` of
 * lib/schema/batch.ts); a usage error otherwise.
 */
export function checkPatternFlag(pattern: string): string {
  try {
    globToRegExp(pattern);
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    throw new UsageError(`--pattern ${JSON.stringify(pattern)} must be a file-name pattern`);
  }
  return pattern;
}

// ---------------------------------------------------------------------------------------------
// Shared by verify-schema and verify-skill: the trust inputs (discovery document or bundle,
// revocation document), input failures, warning texts and the first-use question.

/** `--timeout SECONDS` in milliseconds (`timeoutOption` of cli/trust/plan.ts); a usage error. */
export function parseTimeoutFlag(command: string, text: string | undefined): number | undefined {
  return asUsage(command, () => timeoutOption(text));
}

/** The `--well-known` fetch options: `--timeout` and the `--ca-file` HTTP client (close it). */
export async function httpsOptions(
  command: string,
  values: TrustOptionValues,
  io: CliIO,
): Promise<HttpsFetchOptions> {
  const timeoutMs = parseTimeoutFlag(command, values.timeout);
  return await httpsFetchOptions(
    { timeoutMs, caFile: values["ca-file"] },
    (p) => readInput(p, io),
    "--ca-file",
  );
}

/** The trust plan of a verify command (lib/trust/load.ts), with the flags it came from. */
export interface TrustPlan extends LibraryTrustPlan {
  /** The command, for messages. */
  readonly command: string;
  /** The parsed flags. */
  readonly values: TrustOptionValues;
}

/**
 * Checks every key-source and DNS flag of `command` (`planTrust` of cli/trust/plan.ts) without
 * reading a file or touching the network: a usage error here means nothing was fetched, read
 * or written. Commands call it before anything else that has effects.
 *
 * @example
 * ```ts ignore
 * const plan = checkTrustFlags("verify-skill", values, domain, args);
 * ```
 */
export function checkTrustFlags(
  command: string,
  values: TrustOptionValues,
  domain: string,
  args: readonly string[] = [],
): TrustPlan {
  const plan = asUsage(command, () => planTrust(values, domain, args));
  return { ...plan, command, values };
}

/**
 * What loading a plan of `command` reads with: files through `io` (`-` is stdin), and the
 * authority allow-list of its `--authority…` flags (read when a bundle is loaded).
 *
 * @example
 * ```ts ignore
 * const trust = await loadTrust(plan, trustEnv(plan, io)); // lib/trust/load.ts
 * ```
 */
export function trustEnv(plan: TrustPlan, io: CliIO): TrustEnv {
  return {
    read: (path) => readInput(path, io),
    names: trustInputNames(plan.command),
    // Loaded when a bundle is: the allow-list's code is not needed otherwise (start-up).
    authorityStore: async () =>
      (await (await import("./bundle_trust.ts")).authorityStoreFromFlags(
        plan.command,
        plan.values,
        io,
      )).store,
  };
}

/**
 * What `loadTrustedVerifier` (lib/trust/verify.ts) takes for a verify command's `plan`, lineage
 * aside: its files read through `io`, and the pin and expiry flags among `values`. With
 * `--lineage` or `--lineage-store`, `verifierOptions` of ./verifier_options.ts adds the store.
 *
 * @example
 * ```ts ignore
 * const verifier = await loadTrustedVerifier(trustVerifierOptions(plan, values, io));
 * ```
 */
export function trustVerifierOptions(
  plan: TrustPlan,
  values: TrustOptionValues & { "allow-expired"?: boolean },
  io: CliIO,
): TrustedVerifierOptions {
  return {
    plan,
    env: trustEnv(plan, io),
    pinStore: values["pin-store"],
    trustFirstUse: values["trust-first-use"] === true,
    allowExpired: values["allow-expired"] === true,
  };
}

/**
 * `--domain D` of `command`, validated (§9) and in the form pins are keyed by; a usage error
 * when it is missing or not a host name.
 *
 * @example
 * ```ts ignore
 * const domain = requireDomainFlag("verify-skill", values.domain); // "example.com"
 * ```
 */
export function requireDomainFlag(command: string, value: string | undefined): string {
  return asUsage(command, () => domainOption(value));
}

/** `--dns-server`, parsed; a usage error when malformed or given without `--dns`. */
export function parseDnsServerFlag(
  command: string,
  values: { dns?: boolean; "dns-server"?: string },
  requireDns = true,
): DnsServer | undefined {
  return asUsage(command, () => dnsServerOption(values, requireDns));
}

/**
 * Prints, for the text output of a verification, its warnings and then its DNS cross-check
 * to stderr.
 *
 * @example
 * ```ts ignore
 * await printVerifyNotes(result, io); // "warning: the signature has expired; …"
 * ```
 */
export async function printVerifyNotes(
  result: OfflineVerificationResult & { dns?: DnsCrossCheck },
  io: CliIO,
): Promise<void> {
  if (result.warnings.length > 0) {
    const { describeVerifyWarning } = await import("../schema/verify_notes.ts"); // texts
    for (const w of result.warnings) {
      await io.stderr(`warning: ${describeVerifyWarning(w, result.unprotectedFields)}\n`);
    }
  }
  if (result.dns) {
    const { describeDnsCheck } = await import("../dns/check_text.ts"); // --dns only
    await io.stderr(describeDnsCheck(result.dns) + "\n");
  }
}

/**
 * Reports an input that could not be loaded (before any verification); returns the exit code.
 * Anything but a `SchemaPinError` (a usage error included) is thrown again.
 */
export async function reportInputFailure(e: unknown, json: boolean, io: CliIO): Promise<number> {
  if (!(e instanceof SchemaPinError)) throw e;
  const message = messageInCliWords(e.message); // a library hint in the CLI's words
  if (json) {
    const { jsonError } = await import("./json_output.ts"); // --json only
    await io.stdout(jsonError(e.code, message));
  } else {
    await io.stderr(`error: ${e.code}: ${message}\n`);
  }
  // A network document that is unreachable or malformed is a verification failure (exit 1),
  // not a bad input of the user's: the table's "published" origin.
  return exitCodeOfError(e);
}

/**
 * A `confirmFirstUse` callback that shows the key and asks `ask` (a terminal prompt); only
 * `y` or `yes` pins.
 */
export function confirmFirstUseWith(
  ask: (question: string) => Promise<string | undefined>,
): (info: FirstUseInfo) => Promise<boolean> {
  return async (info) => {
    const answer = await ask(
      `schemapin: first use of ${info.toolId}@${info.domain}\n` +
        `  developer:   ${info.developerName}\n` +
        `  fingerprint: ${info.fingerprint}\n` +
        `Compare the fingerprint with one obtained out of band (the publisher, DNS TXT).\n` +
        `Pin this key for ${info.toolId}@${info.domain}? [y/N] `,
    );
    return answer !== undefined && /^(y|yes)$/i.test(answer);
  };
}
