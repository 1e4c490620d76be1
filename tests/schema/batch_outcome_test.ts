// A batch's results counted (cli/schema/batch_outcome.ts): fields in order, failures counted
// with the worst exit code, an error as {file, ok: false, error}.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { BatchOutcome } from "../../cli/schema/batch_outcome.ts";
import { throwsWith } from "../schema_pin_error.ts";

Deno.test("BatchOutcome: successes count nothing; failures keep the worst code", () => {
  const outcome = new BatchOutcome(3, ["sub"]);
  outcome.add({ file: "a.json", ok: true }, 0);
  assert.equal(outcome.failed, 0);
  assert.equal(outcome.worst, 0);
  outcome.add({ file: "b.json", ok: false }, 2);
  outcome.add({ file: "c.json", ok: false }, 1);
  assert.equal(outcome.failed, 2);
  assert.equal(outcome.worst, 2);
  assert.deepEqual(outcome.results.map((r) => r.file), ["a.json", "b.json", "c.json"]);
  assert.equal(outcome.total, 3);
  assert.deepEqual(outcome.skipped, ["sub"]);
});

Deno.test("BatchOutcome.addError: the error's fields and its row's exit code", () => {
  const outcome = new BatchOutcome(2, []);
  outcome.addError("a.json", new SchemaPinError("JSON_INVALID", "a.json: bad"));
  outcome.addError("b.json", new SchemaPinError("SIGNATURE_INVALID", "b.json: no"));
  assert.deepEqual(outcome.results[0], {
    file: "a.json",
    ok: false,
    error: { code: "JSON_INVALID", message: "a.json: bad" },
  });
  assert.equal(outcome.failed, 2);
  assert.equal(outcome.worst, 2); // JSON_INVALID is exit 2, SIGNATURE_INVALID 1
});

Deno.test("BatchOutcome.add refuses an entry that is not an object", () => {
  const outcome = new BatchOutcome(1, []);
  for (const entry of [undefined, null, "a.json"]) {
    throwsWith(
      () => outcome.add(entry as unknown as Record<string, unknown>, 0),
      "INPUT_INVALID",
      /BatchOutcome\.add: entry must be an object/,
    );
  }
  assert.equal(outcome.results.length, 0);
});

Deno.test("BatchOutcome.fields: every file done is ok, with the summary and the results", () => {
  const outcome = new BatchOutcome(1, []);
  outcome.add({ file: "a.json", ok: true }, 0);
  const fields = outcome.fields("verified");
  assert.deepEqual(fields, {
    ok: true,
    summary: { total: 1, verified: 1, failed: 0 },
    results: [{ file: "a.json", ok: true }],
  });
  assert.deepEqual(Object.keys(fields), ["ok", "summary", "results"]);
});

Deno.test("BatchOutcome.fields: a failed file makes a BATCH_FAILED error counting them", () => {
  const outcome = new BatchOutcome(3, []);
  outcome.add({ file: "a.json", ok: false }, 1);
  outcome.add({ file: "b.json", ok: false }, 2);
  const fields = outcome.fields("signed");
  assert.deepEqual(fields.error, { code: "BATCH_FAILED", message: "2 of 3 file(s) not signed" });
  assert.deepEqual(fields.summary, { total: 3, signed: 1, failed: 2 });
  assert.deepEqual(Object.keys(fields), ["ok", "error", "summary", "results"]);
  assert.throws(() => outcome.fields(undefined as never), /BatchOutcome\.fields: verb/);
});
