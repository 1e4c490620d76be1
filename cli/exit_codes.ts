/**
 * The CLI's exit codes and the one table from error code to exit code (ARCHITECTURE.md,
 * "Exit codes"), kept beside the error codes of lib/errors.ts so that a new code cannot be
 * added without its exit code. Every path of the CLI that turns a {@linkcode SchemaPinError}
 * or a failed verification's `errorCode` into an exit code asks this module: the error printed
 * by cli/commands/main.ts, the input failures and verification results of the verify commands
 * ({@linkcode resultExitCode}), the bundle commands and the batch verifier.
 *
 * The contract: `0` success or verified; `1` verification failed (the command ran and
 * rejected what it was asked to check); `2` could not run (bad arguments, an unreadable or
 * malformed input of the user's).
 *
 * @module
 */
import { type ErrorCode, SchemaPinError } from "../lib/errors.ts";

/** Exit code: success or verified. */
export const EXIT_OK = 0;
/** Exit code: verification failed, drift, revoked, expired, unreachable pinned server. */
export const EXIT_FAILED = 1;
/** Exit code: could not run — bad arguments, unreadable or malformed input. */
export const EXIT_USAGE = 2;

/** The exit code of a failure: 1 (verification failed) or 2 (could not run). */
export type FailureExitCode = typeof EXIT_FAILED | typeof EXIT_USAGE;

/** One row of {@linkcode ERROR_EXIT_CODES}. */
export interface ExitCodeRow {
  /** The exit code when the error is about an input the user gave. */
  readonly exit: FailureExitCode;
  /** Why, in one line. */
  readonly reason: string;
  /**
   * The exit code when the code is the verdict of a finished verification on the artefact it
   * judged (see {@linkcode FailureOrigin}), where that differs from `exit`.
   */
  readonly verdict?: FailureExitCode;
}

/**
 * Every {@linkcode ErrorCode} and its exit code, with the reason. The only other rule is the
 * origin of the failure ({@linkcode exitCodeFor}): a failure about something published — a
 * document fetched from the network (`details.remote`), a DNS TXT record — is a failed
 * verification (1) whatever the row says, because the user's own input was fine.
 */
export const ERROR_EXIT_CODES: Readonly<Record<ErrorCode, ExitCodeRow>> = {
  SIGNATURE_INVALID: { exit: 1, reason: "the signature does not verify: the check ran and failed" },
  KEY_NOT_FOUND: { exit: 1, reason: "no trusted key for the domain or kid: nothing to trust" },
  KEY_REVOKED: { exit: 1, reason: "the signing key is revoked (§8.7)" },
  KEY_PIN_MISMATCH: { exit: 1, reason: "the key differs from the pinned one (§8.4, TOFU)" },
  DISCOVERY_FETCH_FAILED: {
    exit: 1,
    reason: "the publisher's document could not be fetched: fail closed (§9, §10)",
  },
  DISCOVERY_INVALID: {
    exit: 2,
    reason: "a discovery, revocation or bundle file the user gave is malformed (§21.4 step 2); " +
      "a fetched one or a DNS record (§17.2) is published, so 1",
  },
  DOMAIN_MISMATCH: { exit: 1, reason: "the key, document or DNS record is for another domain" },
  SCHEMA_CANONICALIZATION_FAILED: {
    exit: 2,
    verdict: 1,
    reason: "JSON with no schemapin-v1 form cannot be signed or canonicalized (bad input); " +
      "a signed schema with none is rejected by verification (§10)",
  },
  SIGNATURE_EXPIRED: { exit: 1, reason: "expires_at is past or unparseable: fail closed (§16)" },
  CANONICALIZATION_UNSUPPORTED: {
    exit: 1,
    reason: "the document names a canonicalization this verifier lacks: fail closed (§19)",
  },
  A2A_SCOPE_VIOLATION: { exit: 1, reason: "the domain is outside the delegation scope (§20)" },
  BUNDLE_UNSIGNED: { exit: 1, reason: "a signature was required and the bundle has none (§21)" },
  BUNDLE_EXPIRED: { exit: 1, reason: "the bundle's expires_at is past or unparseable (§21)" },
  BUNDLE_AUTHORITY_UNTRUSTED: {
    exit: 1,
    reason: "the bundle's authority is not on the allow-list (§21.4 step 4)",
  },
  LINEAGE_REJECTED: {
    exit: 1,
    reason: "the release does not extend the tool's latest known hash: fork or rollback (§18.4)",
  },
  JSON_INVALID: { exit: 2, reason: "the bytes are not strict JSON: the input cannot be used" },
  KEY_INVALID: { exit: 2, reason: "the key is not an ECDSA P-256 key: the input cannot be used" },
  INPUT_INVALID: { exit: 2, reason: "a malformed argument, file or document of the user's" },
  IO_FAILED: { exit: 2, reason: "a file or device could not be read or written" },
};

/**
 * What a failure is about, which decides between a row's codes:
 * - `input`: an input the user gave (a file, an argument) — the row's `exit`;
 * - `verdict`: the verdict of a finished verification on the artefact it judged — the row's
 *   `verdict` when it has one, else `exit`;
 * - `published`: something a publisher serves (a document fetched from the network, a DNS TXT
 *   record) — always 1.
 */
export type FailureOrigin = "input" | "verdict" | "published";

const ORIGINS: readonly string[] = ["input", "verdict", "published"];

/**
 * `INPUT_INVALID` for an argument of `fn` that is not what it must be, in lib/arguments.ts'
 * words; not that module itself, because this one loads at every start of the CLI and
 * tests/cli/registry_test.ts keeps that set small.
 */
function misuse(fn: string, name: string, expected: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", `${fn}: ${name} must be ${expected}`, {
    function: fn,
    argument: name,
  });
}

/**
 * The exit code of an error code, from {@linkcode ERROR_EXIT_CODES}; a code the table lacks
 * (none today: the table test loops over every code) is a failed check, 1.
 *
 * @example
 * ```ts
 * import { exitCodeFor } from "./exit_codes.ts";
 * exitCodeFor("DISCOVERY_INVALID"); // 2: a malformed file the user gave
 * exitCodeFor("DISCOVERY_INVALID", "published"); // 1: a malformed document a server sent
 * ```
 */
export function exitCodeFor(
  code: string | undefined,
  origin: FailureOrigin = "input",
): FailureExitCode {
  if (code !== undefined && typeof code !== "string") {
    throw misuse("exitCodeFor", "code", "a string or undefined");
  }
  if (!ORIGINS.includes(origin)) {
    throw misuse("exitCodeFor", "origin", `one of ${ORIGINS.join(", ")}`);
  }
  if (origin === "published") return EXIT_FAILED;
  const row = code === undefined ? undefined : ERROR_EXIT_CODES[code as ErrorCode];
  if (row === undefined || !Object.hasOwn(ERROR_EXIT_CODES, code!)) return EXIT_FAILED;
  return origin === "verdict" ? row.verdict ?? row.exit : row.exit;
}

/**
 * The exit code of a thrown error's code: `published` when the error says it came from the
 * network (`details.remote`), else `input`.
 *
 * @example
 * ```ts
 * import { exitCodeOfError } from "./exit_codes.ts";
 * import { SchemaPinError } from "../lib/errors.ts";
 * exitCodeOfError(new SchemaPinError("DISCOVERY_INVALID", "bad", { remote: true })); // 1
 * ```
 */
export function exitCodeOfError(
  e: { readonly code: string; readonly details?: Readonly<Record<string, unknown>> },
): FailureExitCode {
  if (typeof e !== "object" || e === null || typeof e.code !== "string") {
    throw misuse("exitCodeOfError", "e", "an error with a string code");
  }
  return exitCodeFor(e.code, e.details?.remote === true ? "published" : "input");
}

/**
 * The exit code of a finished verification: 0 valid; 1 for a failure reported by the DNS
 * cross-check (the published record is not the user's input); else the verdict row of the
 * error code in {@linkcode ERROR_EXIT_CODES} — 2 when an input the user gave could not be used
 * (unreadable, not JSON, a malformed local discovery, revocation, bundle or signature file),
 * else 1.
 *
 * @example
 * ```ts
 * import { resultExitCode } from "./exit_codes.ts";
 * resultExitCode({ valid: false, errorCode: "SIGNATURE_INVALID" }); // 1
 * resultExitCode({ valid: false, errorCode: "JSON_INVALID" }); // 2
 * ```
 */
export function resultExitCode(
  result: {
    readonly valid: boolean;
    readonly errorCode?: string;
    readonly dns?: { state: string };
  },
): number {
  if (typeof result !== "object" || result === null) {
    throw misuse("resultExitCode", "result", "an object");
  }
  if (result.valid) return EXIT_OK;
  const dnsState = result.dns?.state;
  if (dnsState === "mismatch" || dnsState === "malformed" || dnsState === "lookup_failed") {
    return exitCodeFor(result.errorCode, "published");
  }
  return exitCodeFor(result.errorCode, "verdict");
}
