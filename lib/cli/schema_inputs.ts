/**
 * Input helpers shared by the schema commands (sign-schema, verify-schema, well-known,
 * revoke, pins, chain): read a JSON or PEM file with errors naming it, check a batch's
 * `--pattern`; and what the verify commands share: their key-source flags checked into the
 * trust plan that lib/trust/load.ts loads (lib/trust/verify.ts verifies with it), the exit
 * code of a verification, and the texts of its warnings, failures and first-use question.
 *
 * @module
 */
import { shellLine } from "../contractpin/display_text.ts";
import { SchemaPinError } from "../errors.ts";
import type { JsonValue } from "../json/types.ts";
import {
  type AuthorityFlagValues,
  authorityStoreFromFlags,
  checkAuthorityFlags,
  hasAuthorityFlags,
  rejectAuthorityFlags,
} from "./bundle_trust.ts";
import type { FirstUseInfo, OfflineVerificationResult } from "../schema/flow.ts";
import { checkDomain } from "../dns/domain.ts";
import type { HttpsFetchOptions } from "../discovery/http.ts";
import type { DnsCrossCheck } from "../dns/check.ts";
import { type DnsServer, parseDnsServer } from "../dns/resolve.ts";
import { readJsonInput, sourceName } from "../schema/input.ts";
import { globToRegExp } from "../schema/batch.ts";
import {
  httpsFetchOptions,
  type TrustEnv,
  type TrustPlan as LibraryTrustPlan,
  type TrustSource,
} from "../trust/load.ts";
import { type CliIO, UsageError } from "./command.ts";
import { exitCodeFor, exitCodeOfError } from "../exit_codes.ts";
import { jsonError } from "./json_output.ts";
import { readInput } from "./io.ts";
import { lineageStoreFromFlags } from "./lineage_store.ts";
import type { TrustedVerifierOptions } from "../trust/verify.ts";

export { sourceName };

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
  return await readJsonInput(path, (p) => readInput(p, io), what, keyFlag);
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
    throw new UsageError(e.message);
  }
  return pattern;
}

// ---------------------------------------------------------------------------------------------
// Shared by verify-schema and verify-skill: the trust inputs (discovery document or bundle,
// revocation document), the exit code of a failed verification, input failures, warning texts
// and the first-use question.

/**
 * The key-source options of the verify commands (`--authority…` options: a signed `--bundle`
 * must verify against them, §21.4).
 */
export interface TrustOptionValues extends AuthorityFlagValues {
  /** `--discovery FILE`. */
  discovery?: string;
  /** `--bundle FILE`. */
  bundle?: string;
  /** `--well-known`. */
  "well-known"?: boolean;
  /** `--resolver-dir DIR`. */
  "resolver-dir"?: string;
  /** `--revocation FILE`. */
  revocation?: string;
  /** `--ca-file FILE` (extra CA certificates for --well-known). */
  "ca-file"?: string;
  /** `--timeout SECONDS` (network connect/read and DNS deadlines). */
  timeout?: string;
  /** `--dns` (DNS TXT cross-check, §17). */
  dns?: boolean;
  /** `--dns-server IP[:PORT]`. */
  "dns-server"?: string;
  /** `--allow-missing-revocation`. */
  "allow-missing-revocation"?: boolean;
  /** `--public-key FILE`: an explicit trust anchor, never pinned. */
  "public-key"?: string;
  /** `--pin-store FILE` (refused with `--public-key`). */
  "pin-store"?: string;
  /** `--trust-first-use` (refused with `--public-key`). */
  "trust-first-use"?: boolean;
}

/** The source flags that can form a chain, in the order they appear in `args`. */
function chainOrder(args: readonly string[], values: TrustOptionValues): TrustSource[] {
  const flags = (["bundle", "resolver-dir", "well-known"] as const).filter((f) =>
    f === "well-known" ? values["well-known"] === true : values[f as "bundle"] !== undefined
  );
  const at = (flag: string) => {
    const i = args.findIndex((a) => a === `--${flag}` || a.startsWith(`--${flag}=`));
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return flags.sort((a, b) => at(a) - at(b));
}

/**
 * Parses `--timeout SECONDS` (0 < s ≤ 600, decimals allowed) into milliseconds; a usage
 * error otherwise.
 */
export function parseTimeoutFlag(command: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const s = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!(s > 0 && s <= 600)) {
    throw new UsageError(
      `${command}: --timeout ${JSON.stringify(text)} must be a number of seconds, > 0 and ≤ 600`,
    );
  }
  return Math.round(s * 1000);
}

/** The `--well-known` fetch options: `--timeout` and the `--ca-file` HTTP client (close it). */
export async function httpsOptions(
  command: string,
  values: TrustOptionValues,
  io: CliIO,
): Promise<HttpsFetchOptions> {
  const timeoutMs = parseTimeoutFlag(command, values.timeout);
  return await httpsFetchOptions({ timeoutMs, caFile: values["ca-file"] }, (p) => readInput(p, io));
}

/**
 * The key-source and DNS flags of a verify command, checked by {@linkcode checkTrustFlags}:
 * the library's plan (lib/trust/load.ts) of what loading the trust will read
 * and fetch, with the flags it came from.
 */
export interface TrustPlan extends LibraryTrustPlan {
  /** The command, for messages. */
  readonly command: string;
  /** The parsed flags. */
  readonly values: TrustOptionValues;
}

/**
 * Checks every key-source and DNS flag of `command` — which sources, their combinations,
 * `--timeout`, `--dns-server`, the form of the `--authority…` values — without reading a file
 * or touching the network: a usage error here means nothing was fetched, read or written.
 * Commands call it before anything else that has effects; lib/trust/load.ts
 * then loads what it describes.
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
  const chain = chainOrder(args, values);
  const publicKey = values["public-key"];
  if (publicKey !== undefined) {
    const others = [
      ...(values.discovery !== undefined ? ["--discovery"] : []),
      ...chain.map((f) => `--${f}`),
    ];
    if (others.length > 0) {
      throw new UsageError(
        `${command}: --public-key is the key source; it does not go with ${others.join(", ")}`,
      );
    }
    if (publicKey === "") throw new UsageError(`${command}: --public-key needs a path`);
    for (const flag of ["pin-store", "trust-first-use"] as const) {
      if (values[flag] !== undefined) {
        throw new UsageError(
          `${command}: --${flag} does not go with --public-key (an explicit key is never pinned)`,
        );
      }
    }
  } else if (values.discovery !== undefined ? chain.length > 0 : chain.length === 0) {
    throw new UsageError(
      `${command}: give exactly one key source (--discovery FILE or --public-key FILE), or ` +
        "one or more of " +
        "--bundle FILE, --resolver-dir DIR and --well-known (a chain, in the order given)",
    );
  }
  if (!values["well-known"]) {
    for (const flag of ["ca-file"] as const) {
      if (values[flag] !== undefined) {
        throw new UsageError(`${command}: --${flag} goes with --well-known`);
      }
    }
    if (values.timeout !== undefined && !values.dns) {
      throw new UsageError(`${command}: --timeout goes with --well-known or --dns`);
    }
  }
  const timeoutMs = parseTimeoutFlag(command, values.timeout);
  if (values.discovery !== undefined || values.bundle === undefined) {
    rejectAuthorityFlags(command, values);
  }
  if (
    values.discovery === undefined && publicKey === undefined && values.revocation !== undefined
  ) {
    throw new UsageError(
      `${command}: --revocation goes with --discovery or --public-key; a bundle, ` +
        "--resolver-dir and " +
        "--well-known supply their own revocation documents",
    );
  }
  checkAuthorityFlags(command, values);
  for (const flag of ["discovery", "revocation", "bundle", "resolver-dir", "ca-file"] as const) {
    if (values[flag] === "") throw new UsageError(`${command}: --${flag} needs a path`);
  }
  const server = parseDnsServerFlag(command, values);
  const dns = values.dns
    ? { ...(server ? { server } : {}), ...(timeoutMs ? { timeoutMs } : {}) }
    : undefined;
  return {
    command,
    values,
    domain,
    chain,
    publicKey,
    discovery: values.discovery,
    revocation: values.revocation,
    bundle: values.bundle,
    resolverDir: values["resolver-dir"],
    caFile: values["ca-file"],
    httpsTimeoutMs: timeoutMs,
    requireSignedBundle: hasAuthorityFlags(values),
    allowFirstUseAuthority: values["trust-first-use-authority"] === true,
    allowMissingRevocation: values["allow-missing-revocation"] === true,
    dns,
    // A PEM key given as --discovery: say so, and where a key goes (guard takes no key file).
    keyFlag: command === "guard" ? undefined : "--public-key",
  };
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
    authorityStore: async () =>
      (await authorityStoreFromFlags(plan.command, plan.values, io)).store,
  };
}

/**
 * What `loadTrustedVerifier` (lib/trust/verify.ts) takes for a verify command's `plan`: its
 * files read through `io`, and the pin, lineage and expiry flags among `values`.
 *
 * @example
 * ```ts ignore
 * const verifier = await loadTrustedVerifier(verifierOptions(plan, values, io));
 * ```
 */
export function verifierOptions(
  plan: TrustPlan,
  values: TrustOptionValues & {
    lineage?: boolean;
    "lineage-store"?: string;
    "allow-expired"?: boolean;
  },
  io: CliIO,
): TrustedVerifierOptions {
  return {
    plan,
    env: trustEnv(plan, io),
    pinStore: values["pin-store"],
    // --lineage: checked before any pin is written, moved forward once verification passed.
    lineage: lineageStoreFromFlags(values),
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
  if (value === undefined) throw new UsageError(`${command}: --domain D is required`);
  const dc = checkDomain(value);
  if (!dc.ok) {
    throw new UsageError(`${command}: --domain ${JSON.stringify(value)}: ${dc.reason}`);
  }
  return dc.domain;
}

/** `--dns-server`, parsed; a usage error when malformed or given without `--dns`. */
export function parseDnsServerFlag(
  command: string,
  values: { dns?: boolean; "dns-server"?: string },
  requireDns = true,
): DnsServer | undefined {
  const text = values["dns-server"];
  if (text === undefined) return undefined;
  if (requireDns && !values.dns) throw new UsageError(`${command}: --dns-server goes with --dns`);
  try {
    return parseDnsServer(text);
  } catch (e) {
    throw new UsageError(`${command}: --dns-server: ${(e as Error).message}`);
  }
}

/** One line describing a DNS cross-check, for the text output. */
export function describeDnsCheck(check: DnsCrossCheck): string {
  switch (check.state) {
    case "absent":
      return `dns: no ${check.name} TXT record (absent: no effect)`;
    case "match":
      return `dns: ${check.name} publishes ${check.fingerprint}: matches`;
    case "mismatch":
      return `dns: ${check.name} publishes ${check.fingerprint}: MISMATCH`;
    case "malformed":
      return `dns: ${check.name} is malformed: ${check.reason}`;
    case "lookup_failed":
      return `dns: ${check.name} could not be looked up (${check.server}): ${check.reason}`;
  }
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
  for (const w of result.warnings) {
    await io.stderr(`warning: ${describeVerifyWarning(w, result.unprotectedFields)}\n`);
  }
  if (result.dns) await io.stderr(describeDnsCheck(result.dns) + "\n");
}

/**
 * The exit code of a finished verification: 0 valid; 1 for a failure reported by the DNS
 * cross-check (the published record is not the user's input); else the verdict row of the
 * error code in the table of lib/exit_codes.ts — 2 when an input the user gave could not
 * be used (unreadable, not JSON, a malformed local discovery, revocation, bundle or signature
 * file), else 1.
 */
export function resultExitCode(
  result: OfflineVerificationResult & { dns?: DnsCrossCheck },
): number {
  if (result.valid) return 0;
  const dnsState = result.dns?.state;
  if (dnsState === "mismatch" || dnsState === "malformed" || dnsState === "lookup_failed") {
    return exitCodeFor(result.errorCode, "published");
  }
  return exitCodeFor(result.errorCode, "verdict");
}

/**
 * Reports an input that could not be loaded (before any verification); returns the exit code.
 * Anything but a `SchemaPinError` (a usage error included) is thrown again.
 */
export async function reportInputFailure(e: unknown, json: boolean, io: CliIO): Promise<number> {
  if (!(e instanceof SchemaPinError)) throw e;
  if (json) {
    await io.stdout(jsonError(e.code, e.message));
  } else {
    await io.stderr(`error: ${e.code}: ${e.message}\n`);
  }
  // A network document that is unreachable or malformed is a verification failure (exit 1),
  // not a bad input of the user's: the table's "published" origin.
  return exitCodeOfError(e);
}

const VERIFY_WARNINGS: Record<string, string> = {
  signature_expired: "the signature has expired; accepted only because of --allow-expired",
  signature_expires_at_unparseable:
    "expires_at is not a valid RFC 3339 time; accepted only because of --allow-expired",
  unprotected_fields: "the signature document has fields its signature does not cover",
  revocation_document_missing:
    "the discovery document declares a revocation_endpoint whose document was not checked",
  discovery_schema_version_newer:
    "the discovery document has a newer schema_version than this verifier knows (read as 1.4)",
  signature_version_newer:
    "the signature document has a newer schemapin_version than this verifier knows",
  revocation_endpoint_unreachable:
    "the declared revocation_endpoint could not be fetched; accepted only because of " +
    "--allow-missing-revocation",
  dns_multiple_records:
    "several _schemapin TXT records carry v=schemapin1; the first one was used (§17.1)",
  dns_lookup_failed: "the DNS TXT record could not be looked up; not cross-checked",
  legacy_signature_format:
    "legacy signature format (schemapin_version below 1.4): only the file contents are " +
    "signed, none of the metadata (skill_name, domain, signed_at, expires_at, versions, " +
    "manifest); it cannot anchor lineage — ask the publisher to re-sign with SchemaPin 1.4",
  legacy_nested_signature_files:
    "legacy signature format: nested .schemapin.sig files are not covered by the signature " +
    "(the 1.3 algorithm leaves that name out at every depth, as the reference SDKs do; §4b); " +
    "their contents are not verified",
};

/** The human text of a verification warning code. */
export function describeVerifyWarning(code: string, unprotectedFields?: readonly string[]): string {
  const base = VERIFY_WARNINGS[code] ?? code;
  if (code === "unprotected_fields" && unprotectedFields) {
    return `${base}: ${unprotectedFields.join(", ")} (ignored)`;
  }
  return base;
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

/**
 * The CLI's advice for a failure the user can act on (first use not confirmed, a changed
 * key), or `""`.
 */
export function failureHint(result: OfflineVerificationResult, rerun?: readonly string[]): string {
  if (result.keyPinning === "first_use_declined") {
    const seed = `schemapin pins add ${result.toolId}@${result.domain} --fingerprint ` +
      `${result.keyFingerprint}`;
    if (rerun === undefined) {
      return `\nhint: after checking the fingerprint, rerun with --trust-first-use or seed it with \`${seed}\``;
    }
    // The key was found: it is only not pinned yet (issue 26). The exact next command.
    return `\nhint: the key was found, it is just not pinned yet: compare ${result.keyFingerprint} ` +
      "with the publisher's (out of band), then pin it on first use:\n" +
      `  ${shellLine(["schemapin", ...rerun, "--trust-first-use"])}\n` +
      `or seed the pin: ${seed}`;
  }
  if (result.errorCode === "KEY_PIN_MISMATCH" && result.pinnedKeyRevoked === true) {
    return "\nhint: the publisher revoked the pinned key, so this is their rotation; move the pin " +
      `with \`schemapin pins rotate ${result.toolId}@${result.domain} --fingerprint ` +
      `${result.keyFingerprint}\`, or every pin of the domain with \`schemapin pins rotate ` +
      `--domain ${result.domain} --fingerprint ${result.keyFingerprint}\``;
  }
  if (result.errorCode === "KEY_PIN_MISMATCH") {
    return "\nhint: if the publisher rotated keys, confirm the new fingerprint out of band and run " +
      `\`schemapin pins rotate ${result.toolId}@${result.domain} --fingerprint ${result.keyFingerprint}\``;
  }
  return "";
}
