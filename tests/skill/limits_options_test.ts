// The skill caps given as options (skillLimitsFrom, lib/skill/limits.ts): the caps, or a usage
// error naming the option.
import assert from "node:assert/strict";
import { isUsageError } from "../../lib/errors.ts";
import { skillLimitsFrom } from "../../cli/skill/limits.ts";
import { throwsWith } from "../schema_pin_error.ts";

Deno.test("skillLimitsFrom: the caps given, the others left out", () => {
  assert.deepEqual(skillLimitsFrom({}), {});
  assert.deepEqual(skillLimitsFrom({ "max-bytes": "1G" }), { maxBytes: 1024 ** 3 });
  assert.deepEqual(skillLimitsFrom({ "max-entries": "10", "max-bytes": "512" }), {
    maxEntries: 10,
    maxBytes: 512,
  });
});

Deno.test("skillLimitsFrom: a bad count or size is a usage error naming the option", () => {
  for (const text of ["0", "-1", "ten"]) {
    const e = throwsWith(() => skillLimitsFrom({ "max-entries": text }), "INPUT_INVALID");
    assert.ok(isUsageError(e));
    assert.equal(e.message, "--max-entries must be a positive integer");
  }
  const e = throwsWith(() => skillLimitsFrom({ "max-bytes": "1.5G" }), "INPUT_INVALID");
  assert.equal(e.message, "--max-bytes must be a size in bytes, or with K, M or G (e.g. 512M)");
  assert.equal(e.details.option, "max-bytes");
  assert.ok(!isUsageError(throwsWith(() => skillLimitsFrom(undefined as never), "INPUT_INVALID")));
});
