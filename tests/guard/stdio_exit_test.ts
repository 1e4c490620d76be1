// The stdio guard's end, without processes: the exit-code table (expectations written from the
// table in docs/guard.md, moved there from README, not from the code), the per-request description and the
// one summary of unanswered requests.
import assert from "node:assert/strict";
import {
  describeRequest,
  stdioGuardExit,
  type StdioRunFacts,
  summarizeOpenRequests,
} from "../../lib/guard/stdio_exit.ts";

const base: StdioRunFacts = {
  source: "server s",
  status: { code: 0, signal: null },
  stoppedByGuard: false,
  clientLeft: false,
};
const killed = (signal: string, n: number) => ({ code: 128 + n, signal });

Deno.test("exit table: the guard's own signals are 130/143 whatever the server did", () => {
  for (const status of [killed("SIGTERM", 15), killed("SIGKILL", 9), { code: 0, signal: null }]) {
    assert.equal(stdioGuardExit({ ...base, guardSignal: "SIGTERM", status }).code, 143);
    assert.equal(stdioGuardExit({ ...base, guardSignal: "SIGINT", status }).code, 130);
  }
  const note = stdioGuardExit({ ...base, guardSignal: "SIGTERM", status: killed("SIGTERM", 15) })
    .note;
  assert.equal(note, "stopped by SIGTERM (exit 143); server s was killed by SIGTERM");
});

Deno.test("exit table: a server killed by a signal or exiting ≥ 128 is 1, never 128 + N", () => {
  for (const [signal, n] of [["SIGKILL", 9], ["SIGSEGV", 11], ["SIGTERM", 15], ["SIGABRT", 6]]) {
    const end = stdioGuardExit({ ...base, status: killed(signal as string, n as number) });
    assert.equal(end.code, 1, signal as string);
    assert.equal(end.serverStatus, `was killed by ${signal}`);
    assert.match(end.note!, new RegExp(`^server s was killed by ${signal} \\(exit 1`));
  }
  for (const code of [128, 130, 137, 143, 255]) {
    const end = stdioGuardExit({ ...base, status: { code, signal: null } });
    assert.equal(end.code, 1, String(code));
    assert.match(end.note!, new RegExp(`exited with code ${code} \\(128 \\+ ${code - 128}:`));
  }
  // A failure the guard judged (garbage, timeout) is 1 too; it was reported when it happened.
  const failed = stdioGuardExit({ ...base, failure: "garbage", status: killed("SIGTERM", 15) });
  assert.deepEqual([failed.code, failed.note], [1, undefined]);
});

Deno.test("exit table: a forced stop after the client left is 0; without the client leaving, 1", () => {
  const left = stdioGuardExit({
    ...base,
    stoppedByGuard: true,
    clientLeft: true,
    status: killed("SIGKILL", 9),
  });
  assert.equal(left.code, 0);
  assert.match(left.note!, /^the client left; server s did not exit after its stdin closed/);
  const stuck = stdioGuardExit({ ...base, stoppedByGuard: true, status: killed("SIGTERM", 15) });
  assert.equal(stuck.code, 1);
  assert.match(stuck.note!, /closed its stdout but did not exit/);
});

Deno.test("exit table: the server's own code 0–127 passes through with nothing to say", () => {
  for (const code of [0, 1, 2, 7, 126, 127]) {
    const end = stdioGuardExit({ ...base, status: { code, signal: null } });
    assert.deepEqual(end, { code, serverStatus: `exited with code ${code}` });
  }
  // The client leaving changes nothing when the server exited by itself.
  assert.equal(
    stdioGuardExit({ ...base, clientLeft: true, status: { code: 3, signal: null } })
      .code,
    3,
  );
});

Deno.test("describeRequest: method and id, each cut to 100 characters", () => {
  assert.equal(describeRequest("tools/call", 7), "tools/call, id 7");
  assert.equal(describeRequest("ping", 'a"b'), 'ping, id "a\\"b"');
  assert.equal(describeRequest("m", null), "m, id null");
  const long = describeRequest("x".repeat(5000), "y".repeat(5000));
  assert.ok(long.length < 220, `${long.length}`);
  assert.equal(long, `${"x".repeat(100)}…, id "${"y".repeat(99)}…`);
});

Deno.test("summarizeOpenRequests: counts per method, 10 named, the rest counted, bounded size", () => {
  assert.equal(summarizeOpenRequests(["ping"]), "1 request unanswered: ping ×1");
  assert.equal(
    summarizeOpenRequests(["b", "a", "b", "c", "a", "b"]),
    "6 requests unanswered: b ×3, a ×2, c ×1",
  );
  // Ties: by name.
  assert.equal(summarizeOpenRequests(["z", "y"]), "2 requests unanswered: y ×1, z ×1");
  const many = Array.from({ length: 100_000 }, (_, i) => `method-${i % 5000}`);
  const s = summarizeOpenRequests(many);
  assert.match(s, /^100000 requests unanswered: /);
  assert.match(s, /, 4990 other methods ×99800$/);
  assert.equal(s.split(", ").length, 11);
  assert.ok(s.length < 400, `${s.length}`);
  const hostile = summarizeOpenRequests(["m".repeat(1_000_000)]);
  assert.ok(hostile.length < 200);
});
