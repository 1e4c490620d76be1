// The expiry a signer asks for (cli/time/expiry.ts, §16): a duration from the signing time, or
// a strict RFC 3339 time after it, never both.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { signatureExpiry } from "../../cli/time/expiry.ts";

const NOW = Date.parse("2026-01-01T00:00:00Z");

Deno.test("expiry: a duration counts from the signing time", () => {
  assert.deepEqual(signatureExpiry({ expiresIn: "1d12h" }, NOW), {
    ok: true,
    expiresAt: NOW + 36 * 3_600_000,
  });
});

Deno.test("expiry: a time after the signing time is kept as written; none is none", () => {
  const at = "2026-01-01T00:00:01+00:00";
  assert.deepEqual(signatureExpiry({ expiresAt: at }, NOW), { ok: true, expiresAt: at });
  assert.deepEqual(signatureExpiry({}, NOW), { ok: true });
});

Deno.test("expiry: both at once, a bad duration, a bad time", () => {
  assert.deepEqual(
    signatureExpiry({ expiresIn: "1d", expiresAt: "2099-01-01T00:00:00Z" }, NOW),
    { ok: false, problem: "both" },
  );
  for (const expiresIn of ["30 days", "0d", "", "1y"]) {
    assert.deepEqual(signatureExpiry({ expiresIn }, NOW), { ok: false, problem: "duration" });
  }
  for (const expiresAt of ["2099-01-01", "2099-01-01 00:00:00Z", "2099-01-01T00:00:00z"]) {
    assert.deepEqual(signatureExpiry({ expiresAt }, NOW), { ok: false, problem: "time" });
  }
});

Deno.test("expiry: a time at or before the signing time is in the past", () => {
  for (const expiresAt of ["2026-01-01T00:00:00Z", "2025-12-31T23:59:59Z"]) {
    assert.deepEqual(signatureExpiry({ expiresAt }, NOW), { ok: false, problem: "past" });
  }
});

Deno.test("expiry: misuse is INPUT_INVALID naming the argument", () => {
  for (
    const [request, now, name] of [
      [undefined, NOW, "request"],
      [{}, "now", "now"],
    ] as const
  ) {
    assert.throws(
      () => signatureExpiry(request as never, now as never),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
        e.message.startsWith(`signatureExpiry: ${name} must be`),
    );
  }
});
