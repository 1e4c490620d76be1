// A trusted verification's result as the verify commands' JSON shows it
// (trustedResultFields, lib/trust/result_json.ts).
import assert from "node:assert/strict";
import { trustedResultFields } from "../../lib/trust/result_json.ts";
import type { TrustedSchemaResult } from "../../lib/trust/verify.ts";
import { throwsWith } from "../schema_pin_error.ts";

const FP = "sha256:" + "c".repeat(64);

function result(fields: Partial<TrustedSchemaResult>): TrustedSchemaResult {
  return {
    valid: true,
    toolId: "calc",
    domain: "example.com",
    warnings: [],
    signatureFormat: "document",
    keyFingerprint: FP,
    ...fields,
  } as TrustedSchemaResult;
}

Deno.test("trustedResultFields: the named fields, snake_case, with the format and lineage", () => {
  const r = result({
    developerName: "Acme",
    lineage: { status: "anchored", hash: FP, store: "lineage.json" },
  });
  assert.deepEqual(
    trustedResultFields(r, ["toolId", "developerName", "signatureFormat", "keyFingerprint"]),
    {
      ok: true,
      tool_id: "calc",
      developer_name: "Acme",
      signature_format: "document",
      key_fingerprint: FP,
      lineage: { status: "anchored", hash: FP, store: "lineage.json" },
    },
  );
  // A bare signature keeps its name; no lineage, no field.
  assert.deepEqual(trustedResultFields(result({ signatureFormat: "bare" }), ["signatureFormat"]), {
    ok: true,
    signature_format: "bare",
  });
});

Deno.test("trustedResultFields: a failure, a --public-key key with no developer name", () => {
  const r = result({
    valid: false,
    errorCode: "SIGNATURE_INVALID",
    errorMessage: "bad",
    developerName: "(--public-key pub.pem)",
    discoverySource: "--public-key pub.pem",
  });
  assert.deepEqual(trustedResultFields(r, ["developerName"]), {
    ok: false,
    error: { code: "SIGNATURE_INVALID", message: "bad" },
    developer_name: null,
  });
});

Deno.test("trustedResultFields: not a result, or keys that are not names, is misuse", () => {
  throwsWith(() => trustedResultFields({} as never, []), "INPUT_INVALID");
  throwsWith(() => trustedResultFields(result({}), "toolId" as never), "INPUT_INVALID");
});
