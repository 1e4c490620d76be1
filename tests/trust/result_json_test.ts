// A trusted verification's result as the verify commands' JSON fields
// (cli/trust/result_json.ts), without the CLI.
import assert from "node:assert/strict";
import type { TrustedSchemaResult, TrustedSkillResult } from "../../lib/trust/verify.ts";
import { trustedSchemaJson, trustedSkillJson } from "../../cli/trust/result_json.ts";
import { throwsWith } from "../schema_pin_error.ts";

const VALID = {
  valid: true,
  domain: "example.com",
  toolId: "calculate_sum",
  developerName: "(--public-key pub.pem)",
  discoverySource: "--public-key pub.pem",
  keyFingerprint: "sha256:ab",
  keyPinning: "pinned",
  signatureFormat: "bare",
  warnings: [],
  expired: false,
  document: { not: "printed" },
} as unknown as TrustedSchemaResult;

Deno.test("trustedSchemaJson: the result's fields in order, snake_case, no document", () => {
  const fields = trustedSchemaJson(VALID);
  assert.deepEqual(Object.keys(fields), [
    "ok",
    "domain",
    "tool_id",
    "developer_name",
    "key_fingerprint",
    "key_pinning",
    "signature_format",
    "expired",
    "warnings",
    "discovery_source",
  ]);
  assert.equal(fields.developer_name, null, "a --public-key key has no developer name");
  assert.equal(fields.signature_format, "bare");
});

Deno.test("trustedSkillJson: a skill's 1.4 algorithm is a document; failures carry the error", () => {
  const fields = trustedSkillJson({
    ...VALID,
    valid: false,
    errorCode: "SIGNATURE_INVALID",
    errorMessage: "tampered",
    skillName: "pdf-tools",
    signatureFormat: "1.4",
    files: 2,
  } as unknown as TrustedSkillResult);
  assert.deepEqual(fields.error, { code: "SIGNATURE_INVALID", message: "tampered" });
  assert.equal(fields.ok, false);
  assert.equal(fields.signature_format, "document");
  assert.equal(fields.skill_name, "pdf-tools");
  assert.equal(fields.files, 2);
});

Deno.test("trustedSchemaJson refuses what is not a verification result", () => {
  for (const bad of [undefined, null, "valid"]) {
    throwsWith(
      () => trustedSchemaJson(bad as unknown as TrustedSchemaResult),
      "INPUT_INVALID",
      /trustedSchemaJson: result must be an object/,
    );
  }
  throwsWith(
    () => trustedSchemaJson({ toolId: "t" } as unknown as TrustedSchemaResult),
    "INPUT_INVALID",
    /verificationFields: result must be a verification result/,
  );
});

Deno.test("trustedSkillJson refuses what is not a verification result", () => {
  for (const bad of [undefined, null, 1]) {
    throwsWith(
      () => trustedSkillJson(bad as unknown as TrustedSkillResult),
      "INPUT_INVALID",
      /trustedSkillJson: result must be an object/,
    );
  }
});
