// The exit code of a finished verification (resultExitCode, cli/exit_codes.ts): the verdict
// row of its error code, and 1 whenever the DNS cross-check reported the failure.
import assert from "node:assert/strict";
import { resultExitCode } from "../cli/exit_codes.ts";
import { throwsWith } from "./schema_pin_error.ts";

Deno.test("resultExitCode: valid is 0, whatever else it carries", () => {
  assert.equal(resultExitCode({ valid: true }), 0);
  assert.equal(resultExitCode({ valid: true, dns: { state: "match" } }), 0);
});

Deno.test("resultExitCode: the verdict row of the error code", () => {
  assert.equal(resultExitCode({ valid: false, errorCode: "SIGNATURE_INVALID" }), 1);
  assert.equal(resultExitCode({ valid: false, errorCode: "JSON_INVALID" }), 2);
  assert.equal(resultExitCode({ valid: false, errorCode: "DISCOVERY_INVALID" }), 2);
  // Not canonicalizable is bad input elsewhere, but a verdict on a signed schema (§10).
  assert.equal(resultExitCode({ valid: false, errorCode: "SCHEMA_CANONICALIZATION_FAILED" }), 1);
  assert.equal(resultExitCode({ valid: false }), 1);
  assert.equal(resultExitCode({ valid: false, errorCode: "NOT_A_CODE" }), 1);
});

Deno.test("resultExitCode: a failure the DNS cross-check reported is published (1)", () => {
  for (const state of ["mismatch", "malformed", "lookup_failed"]) {
    assert.equal(
      resultExitCode({ valid: false, errorCode: "DISCOVERY_INVALID", dns: { state } }),
      1,
    );
  }
  // An absent or matching record does not make the failure published.
  assert.equal(
    resultExitCode({ valid: false, errorCode: "DISCOVERY_INVALID", dns: { state: "absent" } }),
    2,
  );
  throwsWith(() => resultExitCode({ valid: false, errorCode: 5 as never }), "INPUT_INVALID");
});

Deno.test("resultExitCode refuses what is not a verification result", () => {
  for (const bad of [undefined, null, "valid"]) {
    throwsWith(
      () => resultExitCode(bad as never),
      "INPUT_INVALID",
      /resultExitCode: result must be an object/,
    );
  }
});
