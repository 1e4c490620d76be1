// The JSON fields of `schemapin dns check` (dnsCheckFields, cli/dns/check_fields.ts), on
// lookups written by hand: ok and error from the verdict, the lookup's facts, the key compared;
// misuse is INPUT_INVALID.
import assert from "node:assert/strict";
import { type DnsTxtLookup, dnsTxtVerdict } from "../../lib/dns/check.ts";
import { dnsCheckFields } from "../../cli/dns/check_fields.ts";
import { throwsWith } from "../schema_pin_error.ts";

const FP = "sha256:" + "ab".repeat(32);
const OTHER = "sha256:" + "cd".repeat(32);
const base = { name: "_schemapin.example.com", server: "127.0.0.1:53", records: 2 };
const present: DnsTxtLookup = {
  ...base,
  state: "present",
  record: { v: "schemapin1", kid: "k1", fp: FP },
  text: `v=schemapin1; kid=k1; fp=${FP}`,
  candidates: 1,
};

Deno.test("dnsCheckFields: a published record matching the key, in the schema's order", () => {
  const fields = dnsCheckFields(present, dnsTxtVerdict(present, FP), {
    fingerprint: FP,
    source: "pub.pem",
  });
  assert.deepEqual(fields, {
    ok: true,
    name: "_schemapin.example.com",
    server: "127.0.0.1:53",
    state: "match",
    record: `v=schemapin1; kid=k1; fp=${FP}`,
    fingerprint: FP,
    kid: "k1",
    records: 2,
    candidates: 1,
    expected: FP,
    expected_source: "pub.pem",
  });
  assert.deepEqual(Object.keys(fields).slice(0, 2), ["ok", "name"]);
});

Deno.test("dnsCheckFields: without a key, the lookup's state and no expected key", () => {
  const fields = dnsCheckFields(present, dnsTxtVerdict(present));
  assert.equal(fields.ok, true);
  assert.equal(fields.state, "present");
  assert.equal("expected" in fields, false);
  assert.equal("error" in fields, false);
});

Deno.test("dnsCheckFields: a mismatching record is not ok, with the verdict's error", () => {
  const fields = dnsCheckFields(present, dnsTxtVerdict(present, OTHER), {
    fingerprint: OTHER,
    source: "--fingerprint",
  });
  assert.equal(fields.ok, false);
  assert.equal(fields.state, "mismatch");
  assert.equal((fields.error as { code: string }).code, "DOMAIN_MISMATCH");
  assert.deepEqual(Object.keys(fields).slice(0, 2), ["ok", "error"]);
});

Deno.test("dnsCheckFields: a failed lookup has its reason and no record", () => {
  const failed: DnsTxtLookup = { ...base, state: "failed", reason: "timeout", candidates: 0 };
  const fields = dnsCheckFields(failed, dnsTxtVerdict(failed));
  assert.equal(fields.ok, false);
  assert.equal(fields.state, "failed");
  assert.equal(fields.reason, "timeout");
  assert.equal((fields.error as { code: string }).code, "DISCOVERY_FETCH_FAILED");
  for (const absent of ["record", "fingerprint", "kid"]) assert.equal(absent in fields, false);
});

Deno.test("dnsCheckFields refuses what is not a lookup", () => {
  for (const lookup of [undefined, null, "x", {}]) {
    throwsWith(
      () => dnsCheckFields(lookup as unknown as DnsTxtLookup, dnsTxtVerdict(present)),
      "INPUT_INVALID",
      /dnsCheckFields: lookup must be a DNS TXT lookup/,
    );
  }
});

Deno.test("dnsCheckFields refuses what is not a verdict", () => {
  for (const verdict of [undefined, null, {}, { ok: "yes" }]) {
    throwsWith(
      () => dnsCheckFields(present, verdict as unknown as ReturnType<typeof dnsTxtVerdict>),
      "INPUT_INVALID",
      /dnsCheckFields: verdict must be a verdict/,
    );
  }
});

Deno.test("dnsCheckFields refuses an expected key without fingerprint and source", () => {
  for (const expected of [null, FP, { fingerprint: FP }, { source: "x" }]) {
    throwsWith(
      () =>
        dnsCheckFields(
          present,
          dnsTxtVerdict(present),
          expected as unknown as { fingerprint: string; source: string },
        ),
      "INPUT_INVALID",
      /dnsCheckFields: expected must be a key's fingerprint and source/,
    );
  }
});
