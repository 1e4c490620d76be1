// `schemapin dns check`'s judgement of a lookup (dnsTxtVerdict, lib/dns/check.ts), on lookups
// written by hand: a record must be there, well formed, and match the key when one is given;
// the error is the comparison's failure, else the lookup's.
import assert from "node:assert/strict";
import { type DnsTxtLookup, dnsTxtVerdict } from "../../lib/dns/check.ts";

const FP = "sha256:" + "ab".repeat(32);
const OTHER = "sha256:" + "cd".repeat(32);
const base = { name: "_schemapin.example.com", server: "127.0.0.1:53", records: 1 };
const present: DnsTxtLookup = {
  ...base,
  state: "present",
  record: { v: "schemapin1", fp: FP },
  text: `v=schemapin1; fp=${FP}`,
  candidates: 1,
};

Deno.test("dns verdict: a well-formed record, on its own and against the key", () => {
  assert.deepEqual(dnsTxtVerdict(present), { ok: true });
  const match = dnsTxtVerdict(present, FP);
  assert.equal(match.ok, true);
  assert.equal(match.decision?.check.state, "match");
  assert.equal(match.error, undefined);
  const mismatch = dnsTxtVerdict(present, OTHER);
  assert.equal(mismatch.ok, false);
  assert.equal(mismatch.decision?.check.state, "mismatch");
  assert.equal(mismatch.error?.code, "DOMAIN_MISMATCH");
  assert.equal(mismatch.error?.message, mismatch.decision?.failure?.errorMessage);
});

Deno.test("dns verdict: absent, malformed and unanswered lookups fail with their codes", () => {
  const absent: DnsTxtLookup = { ...base, state: "absent", candidates: 0 };
  const malformed: DnsTxtLookup = {
    ...base,
    state: "malformed",
    text: "v=schemapin1; fp=nope",
    reason: "fp is not a sha256 fingerprint",
    candidates: 1,
  };
  const failed: DnsTxtLookup = { ...base, state: "failed", reason: "timeout", candidates: 0 };
  for (const key of [undefined, FP]) {
    const a = dnsTxtVerdict(absent, key);
    assert.equal(a.ok, false);
    assert.deepEqual(a.error, {
      code: "KEY_NOT_FOUND",
      message: "no TXT record with v=schemapin1 at _schemapin.example.com",
    });
    const m = dnsTxtVerdict(malformed, key);
    assert.deepEqual(m.error, { code: "DISCOVERY_INVALID", message: malformed.reason });
    const f = dnsTxtVerdict(failed, key);
    assert.equal(f.error?.code, "DISCOVERY_FETCH_FAILED");
  }
  // Without a key, the lookup's own words; with one, the cross-check's (failing closed).
  assert.equal(
    dnsTxtVerdict(failed).error?.message,
    "no answer for _schemapin.example.com from 127.0.0.1:53: timeout",
  );
  assert.match(dnsTxtVerdict(failed, FP).error!.message, /failing closed/);
});
