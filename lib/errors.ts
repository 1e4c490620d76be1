/**
 * The one error type of schemapin, carrying the SchemaPin specification's error codes
 * (§10, §15–§21) and the project's own input codes.
 *
 * @module
 */

/**
 * Every error code schemapin reports.
 *
 * Spec codes: `SIGNATURE_INVALID`, `KEY_NOT_FOUND`, `KEY_REVOKED`, `KEY_PIN_MISMATCH`,
 * `DISCOVERY_FETCH_FAILED`, `DISCOVERY_INVALID`, `DOMAIN_MISMATCH`,
 * `SCHEMA_CANONICALIZATION_FAILED`, `SIGNATURE_EXPIRED` (§16), `CANONICALIZATION_UNSUPPORTED`
 * (§19), `A2A_SCOPE_VIOLATION` (§20), `BUNDLE_UNSIGNED`, `BUNDLE_EXPIRED`,
 * `BUNDLE_AUTHORITY_UNTRUSTED` (§21), `LINEAGE_REJECTED` (§18.4: a verified release that
 * does not extend the tool's latest known hash — a fork, a rollback, no `previous_hash`, a
 * legacy document — when lineage is enforced).
 *
 * Project codes for input that could not be used at all: `JSON_INVALID` (bytes that are not
 * strict JSON), `KEY_INVALID` (a key that is not an ECDSA P-256 key), `INPUT_INVALID` (any other
 * malformed argument, file or document), `IO_FAILED` (a file or device could not be read or
 * written).
 *
 * @example
 * ```ts
 * import type { ErrorCode } from "jsr:@schemapin/schemapin";
 * const code: ErrorCode = "SIGNATURE_INVALID";
 * ```
 */
export type ErrorCode =
  | "SIGNATURE_INVALID"
  | "KEY_NOT_FOUND"
  | "KEY_REVOKED"
  | "KEY_PIN_MISMATCH"
  | "DISCOVERY_FETCH_FAILED"
  | "DISCOVERY_INVALID"
  | "DOMAIN_MISMATCH"
  | "SCHEMA_CANONICALIZATION_FAILED"
  | "SIGNATURE_EXPIRED"
  | "CANONICALIZATION_UNSUPPORTED"
  | "A2A_SCOPE_VIOLATION"
  | "BUNDLE_UNSIGNED"
  | "BUNDLE_EXPIRED"
  | "BUNDLE_AUTHORITY_UNTRUSTED"
  | "LINEAGE_REJECTED"
  | "JSON_INVALID"
  | "KEY_INVALID"
  | "INPUT_INVALID"
  | "IO_FAILED";

/** Extra, machine-readable facts about an error (byte offset, file, field, …). */
export type ErrorDetails = Record<string, unknown>;

/**
 * A failure as verification results report it — the code and the message a result's
 * `errorCode` and `errorMessage` will carry — when a step stops verification without throwing.
 */
export interface StepFailure {
  /** The error code. */
  readonly errorCode: ErrorCode;
  /** What went wrong, for people. */
  readonly errorMessage: string;
}

/**
 * The error schemapin throws. `code` is stable API; `message` is for people and names the
 * file, field or byte offset that was wrong; `details` repeats those facts for programs.
 *
 * @example
 * ```ts
 * import { SchemaPinError } from "jsr:@schemapin/schemapin";
 * try {
 *   throw new SchemaPinError("JSON_INVALID", "duplicate key \"a\" at byte 9", { offset: 9 });
 * } catch (e) {
 *   if (e instanceof SchemaPinError) console.log(e.code, e.details.offset);
 * }
 * ```
 */
export class SchemaPinError extends Error {
  /** The error code (see {@linkcode ErrorCode}). */
  readonly code: ErrorCode;
  /** Machine-readable facts about the error. */
  readonly details: ErrorDetails;

  /** Creates an error with a code, a human message and optional details. */
  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = "SchemaPinError";
    this.code = code;
    this.details = details;
  }
}

/**
 * True when `e` is a {@linkcode SchemaPinError}, optionally with the given code.
 *
 * @example
 * ```ts
 * import { isSchemaPinError } from "./errors.ts";
 * import { SchemaPinError } from "jsr:@schemapin/schemapin";
 * isSchemaPinError(new SchemaPinError("KEY_INVALID", "x"), "KEY_INVALID"); // true
 * ```
 */
export function isSchemaPinError(e: unknown, code?: ErrorCode): e is SchemaPinError {
  return e instanceof SchemaPinError && (code === undefined || e.code === code);
}

/**
 * An error about how an operation was asked (servers named twice, nothing to pin, an option that
 * does not fit the others, no passphrase source) rather than about a file or a server:
 * `INPUT_INVALID` with `details.usage` true, which the CLI reports as a usage error (exit 2).
 *
 * @example
 * ```ts
 * import { usageError } from "./errors.ts";
 * usageError("no servers to pin").details; // { usage: true }
 * ```
 */
export function usageError(message: string, details: ErrorDetails = {}): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", message, { ...details, usage: true });
}

/**
 * True when `e` is an error about how the operation was asked ({@linkcode usageError}).
 *
 * @example
 * ```ts
 * import { isUsageError, usageError } from "./errors.ts";
 * isUsageError(usageError("no servers to pin")); // true
 * ```
 */
export function isUsageError(e: unknown): e is SchemaPinError {
  return e instanceof SchemaPinError && e.details.usage === true;
}
