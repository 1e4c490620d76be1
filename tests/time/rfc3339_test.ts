import assert from "node:assert/strict";
import { formatRfc3339, isRfc3339, parseDuration, parseRfc3339 } from "../../lib/time/rfc3339.ts";

Deno.test("parseRfc3339 accepts strict RFC 3339 forms", () => {
  const base = Date.UTC(2026, 3, 30, 12, 0, 0);
  assert.equal(parseRfc3339("2026-04-30T12:00:00Z"), base);
  assert.equal(parseRfc3339("2026-04-30T14:00:00+02:00"), base);
  assert.equal(parseRfc3339("2026-04-30T06:30:00-05:30"), base);
  assert.equal(parseRfc3339("2026-04-30T12:00:00-00:00"), base);
  assert.equal(parseRfc3339("2026-04-30T12:00:00.5Z"), base + 500);
  assert.equal(parseRfc3339("2026-04-30T12:00:00.123456789Z"), base + 123);
  assert.equal(parseRfc3339("2024-02-29T00:00:00Z"), Date.UTC(2024, 1, 29));
  assert.equal(parseRfc3339("2000-02-29T00:00:00Z"), Date.UTC(2000, 1, 29));
  assert.equal(parseRfc3339("2026-12-31T23:59:60Z"), Date.UTC(2027, 0, 1));
  assert.equal(parseRfc3339("0050-01-01T00:00:00Z"), new Date("0050-01-01T00:00:00Z").getTime());
});

Deno.test("parseRfc3339 rejects everything that is not strict RFC 3339", () => {
  const bad: unknown[] = [
    "2026-04-30 12:00:00Z", // space separator
    "2026-04-30t12:00:00Z", // lower-case t
    "2026-04-30T12:00:00z", // lower-case z
    "2026-04-30T12:00:00", // no offset
    "2026-04-30T12:00Z", // no seconds
    "2026-04-30", // date only
    "2026-04-30T12:00:00+0200", // offset without colon
    "2026-04-30T12:00:00+02", // short offset
    "2026-04-30T12:00:00.Z", // empty fraction
    "2026-13-01T00:00:00Z",
    "2026-00-01T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2026-04-30T24:00:00Z",
    "2026-04-30T12:60:00Z",
    "2026-04-30T12:00:61Z",
    "2026-04-30T12:00:00+24:00",
    "2026-04-30T12:00:00+02:60",
    "+2026-04-30T12:00:00Z",
    "20260-04-30T12:00:00Z",
    " 2026-04-30T12:00:00Z",
    "2026-04-30T12:00:00Z ",
    "2026-04-30T12:00:00Z\n",
    "2026-W18-4T12:00:00Z",
    "٢٠٢٦-04-30T12:00:00Z",
    "",
    1777550400000,
    null,
    undefined,
    {},
  ];
  for (const b of bad) {
    assert.equal(parseRfc3339(b), undefined, JSON.stringify(b));
    assert.equal(isRfc3339(b), false);
  }
});

Deno.test("formatRfc3339 writes UTC, milliseconds only when non-zero", () => {
  assert.equal(formatRfc3339(Date.UTC(2026, 3, 30, 12)), "2026-04-30T12:00:00Z");
  assert.equal(
    formatRfc3339(new Date(Date.UTC(2026, 3, 30, 12, 0, 0, 7))),
    "2026-04-30T12:00:00.007Z",
  );
  assert.throws(() => formatRfc3339(NaN), RangeError);
  assert.equal(parseRfc3339(formatRfc3339(1234567890123)), 1234567890123);
});

Deno.test("parseDuration accepts s/m/h/d/w and sums", () => {
  assert.equal(parseDuration("30d"), 30 * 86_400_000);
  assert.equal(parseDuration("12h"), 12 * 3_600_000);
  assert.equal(parseDuration("90m"), 90 * 60_000);
  assert.equal(parseDuration("45s"), 45_000);
  assert.equal(parseDuration("2w"), 14 * 86_400_000);
  assert.equal(parseDuration("1d12h"), 36 * 3_600_000);
});

Deno.test("parseDuration rejects malformed, zero, negative and absurd durations", () => {
  for (
    const bad of [
      "",
      "30",
      "d",
      "30 d",
      "30days",
      "30D",
      "0d",
      "0h0m",
      "-1d",
      "1.5d",
      "1y",
      "999999w",
      "P30D",
      " 30d",
    ]
  ) {
    assert.equal(parseDuration(bad), undefined, bad);
  }
});
