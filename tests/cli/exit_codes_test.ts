/**
 * One table from error code to exit code (issue 25 item 6; ARCHITECTURE.md "Exit codes"):
 * every ErrorCode has a row, and the paths that used to keep their own lists — the error a
 * command throws (describeError), the input failures of the verify commands
 * (reportInputFailure), finished verifications (resultExitCode) and the bundle commands —
 * now agree. `DISCOVERY_INVALID` used to exit 1 through `pins add --discovery` and 2 through
 * `dns check --discovery` for the same malformed file.
 */
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { describeError } from "../../lib/cli/command.ts";
import {
  ERROR_EXIT_CODES,
  EXIT_FAILED,
  EXIT_USAGE,
  exitCodeFor,
  exitCodeOfError,
} from "../../lib/cli/exit_codes.ts";
import { reportInputFailure, resultExitCode } from "../../lib/cli/schema_inputs.ts";
import type { CliIO } from "../../lib/cli/command.ts";
import { runInProcess, withTempDir } from "./run.ts";

/** The members of the `ErrorCode` union, read from lib/errors.ts itself (not from the table). */
async function errorCodesInSource(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("../../lib/errors.ts", import.meta.url));
  const union = text.match(/export type ErrorCode =([^;]+);/);
  assert.ok(union, "lib/errors.ts declares `export type ErrorCode = … ;`");
  const codes = [...union[1].matchAll(/\|\s*"([A-Z0-9_]+)"/g)].map((m) => m[1]);
  assert.ok(codes.length >= 18, `found ${codes.length} codes`);
  return codes;
}

const quietIO: CliIO = {
  stdout: () => Promise.resolve(),
  stderr: () => Promise.resolve(),
  readStdin: () => Promise.resolve(new Uint8Array()),
  stderrIsTerminal: false,
};

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

Deno.test("every path gives the table's code: thrown, input failure, verification result", async () => {
  for (const code of Object.keys(ERROR_EXIT_CODES) as (keyof typeof ERROR_EXIT_CODES)[]) {
    const e = new SchemaPinError(code, "m");
    const want = ERROR_EXIT_CODES[code].exit;
    assert.equal(describeError(e).code, want, `describeError ${code}`);
    assert.equal(await reportInputFailure(e, false, quietIO), want, `reportInputFailure ${code}`);
    const result = { valid: false, errorCode: code, errorMessage: "m" } as unknown as Parameters<
      typeof resultExitCode
    >[0];
    assert.equal(
      resultExitCode(result),
      ERROR_EXIT_CODES[code].verdict ?? want,
      `resultExitCode ${code}`,
    );
    const remote = new SchemaPinError(code, "m", { remote: true });
    assert.equal(describeError(remote).code, 1, `describeError remote ${code}`);
    assert.equal(await reportInputFailure(remote, false, quietIO), 1, `remote ${code}`);
  }
});

Deno.test("DISCOVERY_INVALID: pins add --discovery and dns check --discovery both exit 2", async () => {
  await withTempDir(async (dir) => {
    const bad = `${dir}/bad.json`;
    await Deno.writeTextFile(bad, JSON.stringify({ schema_version: "1.3", developer_name: "x" }));
    // Through the error a command throws (lib/cli/main.ts → describeError): was exit 1.
    const pins = await runInProcess([
      "pins",
      "add",
      "t@example.com",
      "--discovery",
      bad,
      "--pin-store",
      `${dir}/pins.json`,
    ]);
    assert.match(pins.stderr, /DISCOVERY_INVALID: .*bad\.json: public_key_pem is missing/);
    assert.equal(pins.code, 2, pins.stderr);
    // Through the verify commands' input failures (reportInputFailure): exit 2 before and now.
    const dns = await runInProcess(["dns", "check", "example.com", "--discovery", bad]);
    assert.match(dns.stderr, /DISCOVERY_INVALID: .*bad\.json: public_key_pem is missing/);
    assert.equal(dns.code, 2, dns.stderr);
    assert.equal(pins.code, dns.code);
    // The same under --json.
    const dnsJson = await runInProcess([
      "dns",
      "check",
      "example.com",
      "--discovery",
      bad,
      "--json",
    ]);
    assert.equal(dnsJson.code, 2);
    assert.equal(JSON.parse(dnsJson.stdout).error.code, "DISCOVERY_INVALID");
  });
});
