// The line shown for each state of a DNS cross-check (cli/dns/check_text.ts).
import assert from "node:assert/strict";
import { describeDnsCheck } from "../../cli/dns/check_text.ts";
import type { DnsCrossCheck } from "../../lib/dns/check.ts";

const NAME = "_schemapin.example.com";
const FP = "sha256:" + "b".repeat(64);
const base = { name: NAME, server: "127.0.0.1:53" };

Deno.test("describeDnsCheck: a record that matches, or none (no effect)", () => {
  assert.equal(
    describeDnsCheck({ ...base, state: "match", fingerprint: FP }),
    `dns: ${NAME} publishes ${FP}: matches`,
  );
  assert.equal(
    describeDnsCheck({ ...base, state: "absent" }),
    `dns: no ${NAME} TXT record (absent: no effect)`,
  );
});

Deno.test("describeDnsCheck: a mismatch, a malformed record, a failed lookup", () => {
  assert.equal(
    describeDnsCheck({ ...base, state: "mismatch", fingerprint: FP }),
    `dns: ${NAME} publishes ${FP}: MISMATCH`,
  );
  assert.equal(
    describeDnsCheck({ ...base, state: "malformed", reason: "no fp= field" }),
    `dns: ${NAME} is malformed: no fp= field`,
  );
  assert.equal(
    describeDnsCheck({ ...base, state: "lookup_failed", reason: "timed out" }),
    `dns: ${NAME} could not be looked up (127.0.0.1:53): timed out`,
  );
  // An unknown state has no line.
  assert.equal(
    describeDnsCheck({ ...base, state: "other" } as unknown as DnsCrossCheck),
    undefined,
  );
});
