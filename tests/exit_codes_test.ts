/**
 * The exit-code table (cli/exit_codes.ts; ARCHITECTURE.md "Exit codes"): one row per
 * ErrorCode, the CLI contract (unusable input 2, failed checks 1), the origin of a failure, and
 * the misuse of its functions. tests/cli/exit_codes_test.ts checks that every path of the CLI
 * asks it.
 */
import assert from "node:assert/strict";
import { SchemaPinError } from "../lib/errors.ts";
import {
  ERROR_EXIT_CODES,
  EXIT_FAILED,
  EXIT_USAGE,
  exitCodeFor,
  exitCodeOfError,
  type FailureOrigin,
} from "../cli/exit_codes.ts";
import { throwsWith } from "./schema_pin_error.ts";

/** The members of the `ErrorCode` union, read from lib/errors.ts itself (not from the table). */
async function errorCodesInSource(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("../lib/errors.ts", import.meta.url));
  const union = text.match(/export type ErrorCode =([^;]+);/);
  assert.ok(union, "lib/errors.ts declares `export type ErrorCode = … ;`");
  const codes = [...union[1].matchAll(/\|\s*"([A-Z0-9_]+)"/g)].map((m) => m[1]);
  assert.ok(codes.length >= 18, `found ${codes.length} codes`);
  return codes;
}

Deno.test("the exit-code table has exactly one row per ErrorCode, each 1 or 2 with a reason", async () => {
  const codes = await errorCodesInSource();
  for (const code of codes) {
    const row = ERROR_EXIT_CODES[code as keyof typeof ERROR_EXIT_CODES];
    assert.ok(row, `${code} has no row in ERROR_EXIT_CODES`);
    assert.ok(row.exit === EXIT_FAILED || row.exit === EXIT_USAGE, `${code}: exit ${row.exit}`);
    assert.ok(row.verdict === undefined || row.verdict === 1 || row.verdict === 2, code);
    assert.ok(row.reason.trim().length > 10, `${code} has a reason`);
    assert.ok(!row.reason.includes("\n"), `${code}: the reason is one line`);
  }
  assert.deepEqual(Object.keys(ERROR_EXIT_CODES).sort(), [...codes].sort(), "no extra rows");
});

Deno.test("the table follows the CLI contract: unusable input 2, failed checks 1", () => {
  for (const code of ["JSON_INVALID", "KEY_INVALID", "INPUT_INVALID", "IO_FAILED"]) {
    assert.equal(exitCodeFor(code), 2, code);
  }
  for (
    const code of [
      "SIGNATURE_INVALID",
      "KEY_NOT_FOUND",
      "KEY_REVOKED",
      "KEY_PIN_MISMATCH",
      "DISCOVERY_FETCH_FAILED",
      "DOMAIN_MISMATCH",
      "SIGNATURE_EXPIRED",
      "CANONICALIZATION_UNSUPPORTED",
      "A2A_SCOPE_VIOLATION",
      "BUNDLE_UNSIGNED",
      "BUNDLE_EXPIRED",
      "BUNDLE_AUTHORITY_UNTRUSTED",
    ]
  ) {
    assert.equal(exitCodeFor(code), 1, code);
    assert.equal(exitCodeFor(code, "verdict"), 1, code);
  }
  // A malformed file of the user's could not be used; a malformed document a server sent is
  // a failed check.
  assert.equal(exitCodeFor("DISCOVERY_INVALID"), 2);
  assert.equal(exitCodeFor("DISCOVERY_INVALID", "verdict"), 2);
  assert.equal(exitCodeFor("DISCOVERY_INVALID", "published"), 1);
  assert.equal(exitCodeOfError(new SchemaPinError("DISCOVERY_INVALID", "x", { remote: true })), 1);
  // JSON with no canonical form: bad input to canonicalize/sign, a rejection in verification.
  assert.equal(exitCodeFor("SCHEMA_CANONICALIZATION_FAILED"), 2);
  assert.equal(exitCodeFor("SCHEMA_CANONICALIZATION_FAILED", "verdict"), 1);
  // Not a code, or none: a failed check, never success.
  assert.equal(exitCodeFor("NOT_A_CODE"), 1);
  assert.equal(exitCodeFor("toString"), 1);
  assert.equal(exitCodeFor(undefined), 1);
});

Deno.test("exitCodeOfError: a remote error is published (1), a local one follows its row", () => {
  assert.equal(exitCodeOfError(new SchemaPinError("IO_FAILED", "x")), 2);
  assert.equal(exitCodeOfError(new SchemaPinError("IO_FAILED", "x", { remote: true })), 1);
  assert.equal(exitCodeOfError({ code: "JSON_INVALID" }), 2);
});

Deno.test("exitCodeFor refuses a code that is not a string", () => {
  for (const code of [42, null, {}, ["IO_FAILED"]]) {
    throwsWith(
      () => exitCodeFor(code as unknown as string),
      "INPUT_INVALID",
      /^exitCodeFor: code must be a string or undefined$/,
    );
  }
});

Deno.test("exitCodeFor refuses an origin that is not input, verdict or published", () => {
  for (const origin of ["remote", "", "INPUT", 1, null]) {
    throwsWith(
      () => exitCodeFor("IO_FAILED", origin as unknown as FailureOrigin),
      "INPUT_INVALID",
      /^exitCodeFor: origin must be one of input, verdict, published$/,
    );
  }
});

Deno.test("exitCodeOfError refuses what is not an error with a string code", () => {
  for (const e of [undefined, null, "IO_FAILED", {}, { code: 2 }, new Error("plain")]) {
    throwsWith(
      () => exitCodeOfError(e as unknown as SchemaPinError),
      "INPUT_INVALID",
      /^exitCodeOfError: e must be an error with a string code$/,
    );
  }
});
