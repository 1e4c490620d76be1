// The expiry options `--expires-in` / `--expires-at` (expiryFromOptions, cli/time/expiry.ts):
// the expires_at they ask for, or a usage error naming the option.
import assert from "node:assert/strict";
import { isUsageError } from "../../lib/errors.ts";
import { expiryFromOptions } from "../../cli/time/expiry.ts";
import { throwsWith } from "../schema_pin_error.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");

function refused(values: Parameters<typeof expiryFromOptions>[0], message: string): void {
  const e = throwsWith(() => expiryFromOptions(values, NOW), "INPUT_INVALID");
  assert.ok(isUsageError(e));
  assert.equal(e.message, message);
}

Deno.test("expiryFromOptions: a duration, a time as written, or none", () => {
  assert.equal(expiryFromOptions({ "expires-in": "1h" }, NOW), NOW + 3_600_000);
  const at = "2026-11-01T10:00:00Z";
  assert.equal(expiryFromOptions({ "expires-at": at }, NOW), at);
  assert.equal(expiryFromOptions({}, NOW), undefined);
});

Deno.test("expiryFromOptions: both, a bad duration, a bad time, the past", () => {
  refused(
    { "expires-in": "1d", "expires-at": "2099-01-01T00:00:00Z" },
    "give --expires-in or --expires-at, not both",
  );
  refused(
    { "expires-in": "30 days" },
    '--expires-in "30 days" is not a duration like 30d, 12h, 90m, 2w or 1d12h',
  );
  refused(
    { "expires-at": "2099-01-01" },
    '--expires-at "2099-01-01" is not a strict RFC 3339 time like 2026-11-01T10:00:00Z',
  );
  refused({ "expires-at": "2025-01-01T00:00:00Z" }, "--expires-at is in the past");
  assert.ok(
    !isUsageError(throwsWith(() => expiryFromOptions(null as never, NOW), "INPUT_INVALID")),
  );
});
