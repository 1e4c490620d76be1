// The JSON fields of a finished batch (batchFields, lib/schema/batch_json.ts).
import assert from "node:assert/strict";
import { batchFields } from "../../lib/schema/batch_json.ts";
import { throwsWith } from "../schema_pin_error.ts";

Deno.test("batchFields: every file done is ok, with the summary and the results", () => {
  const results = [{ file: "a.json", ok: true }];
  const fields = batchFields({ verb: "verified", total: 1, failed: 0, results });
  assert.deepEqual(fields, {
    ok: true,
    summary: { total: 1, verified: 1, failed: 0 },
    results,
  });
  assert.deepEqual(Object.keys(fields), ["ok", "summary", "results"]);
});

Deno.test("batchFields: a failed file makes a BATCH_FAILED error counting them", () => {
  const fields = batchFields({ verb: "signed", total: 3, failed: 2, results: [] });
  assert.deepEqual(fields, {
    ok: false,
    error: { code: "BATCH_FAILED", message: "2 of 3 file(s) not signed" },
    summary: { total: 3, signed: 1, failed: 2 },
    results: [],
  });
  assert.deepEqual(Object.keys(fields), ["ok", "error", "summary", "results"]);
  throwsWith(() => batchFields(undefined as never), "INPUT_INVALID");
});
