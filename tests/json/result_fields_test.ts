// The JSON fields of a library verification result (cli/json/result_fields.ts): `ok`, an
// `error` on failure, the named fields in snake_case; misuse is INPUT_INVALID.
import assert from "node:assert/strict";
import { snakeCase, verificationFields } from "../../cli/json/result_fields.ts";
import { throwsWith } from "../schema_pin_error.ts";

Deno.test("snakeCase: camelCase names become snake_case, snake_case ones stay", () => {
  assert.equal(snakeCase("keyFingerprint"), "key_fingerprint");
  assert.equal(snakeCase("tool_id"), "tool_id");
  assert.equal(snakeCase("ok"), "ok");
});

Deno.test("verificationFields: ok, error, then the named fields renamed, in order", () => {
  const fields = verificationFields(
    { valid: false, errorCode: "SIGNATURE_INVALID", errorMessage: "bad", toolId: "t", x: 1 },
    ["toolId"],
  );
  assert.deepEqual(fields, {
    ok: false,
    error: { code: "SIGNATURE_INVALID", message: "bad" },
    tool_id: "t",
  });
  assert.deepEqual(Object.keys(fields), ["ok", "error", "tool_id"]);
  assert.deepEqual(
    verificationFields({ valid: true, keyFingerprint: "sha256:x" }, [
      "keyFingerprint",
    ]),
    { ok: true, key_fingerprint: "sha256:x" },
  );
});

Deno.test("verificationFields: a failure without a code still carries an error", () => {
  assert.deepEqual(verificationFields({ valid: false }, []), {
    ok: false,
    error: { code: "VERIFICATION_FAILED", message: "VERIFICATION_FAILED" },
  });
});

Deno.test("verificationFields: fields not named, or undefined, are left out", () => {
  const fields = verificationFields({ valid: true, toolId: undefined, domain: "d" }, ["toolId"]);
  assert.deepEqual(fields, { ok: true });
  assert.equal("tool_id" in fields, false);
  assert.equal("domain" in fields, false);
});

Deno.test("verificationFields: a valid result with a code (a warning) keeps the error", () => {
  assert.deepEqual(verificationFields({ valid: true, errorCode: "KEY_NOT_FOUND" }, []), {
    ok: true,
    error: { code: "KEY_NOT_FOUND", message: "KEY_NOT_FOUND" },
  });
});

Deno.test("snakeCase refuses what is not a string", () => {
  for (const name of [undefined, null, 1, {}]) {
    throwsWith(() => snakeCase(name as unknown as string), "INPUT_INVALID", /snakeCase: name/);
  }
});

Deno.test("verificationFields refuses a result without a boolean valid", () => {
  for (const result of [undefined, null, "x", {}, { valid: "true" }]) {
    throwsWith(
      () => verificationFields(result as unknown as { valid: boolean }, []),
      "INPUT_INVALID",
      /verificationFields: result must be a verification result/,
    );
  }
});

Deno.test("verificationFields refuses keys that are not an array of names", () => {
  for (const keys of [undefined, "toolId", [1], [null]]) {
    throwsWith(
      () => verificationFields({ valid: true }, keys as unknown as []),
      "INPUT_INVALID",
      /verificationFields: keys must be an array of field names/,
    );
  }
});
