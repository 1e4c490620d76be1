/**
 * One table from error code to exit code (issue 25 item 6; ARCHITECTURE.md "Exit codes"):
 * every ErrorCode has a row (tests/exit_codes_test.ts), and the paths that used to keep their own lists — the error a
 * command throws (describeError), the input failures of the verify commands
 * (reportInputFailure), finished verifications (resultExitCode) and the bundle commands —
 * now agree. `DISCOVERY_INVALID` used to exit 1 through `pins add --discovery` and 2 through
 * `dns check --discovery` for the same malformed file.
 */
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { describeError } from "../../cli/commands/command.ts";
import { ERROR_EXIT_CODES } from "../../cli/exit_codes.ts";
import { reportInputFailure } from "../../cli/commands/schema_inputs.ts";
import { resultExitCode } from "../../cli/exit_codes.ts";
import type { CliIO } from "../../cli/commands/command.ts";
import { runInProcess, withTempDir } from "./run.ts";

const quietIO: CliIO = {
  stdout: () => Promise.resolve(),
  stderr: () => Promise.resolve(),
  readStdin: () => Promise.resolve(new Uint8Array()),
  stderrIsTerminal: false,
};

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
    // Through the error a command throws (cli/commands/main.ts → describeError): was exit 1.
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
