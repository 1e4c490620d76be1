/**
 * The `--listen` address and the run of a listening guard until a signal
 * (cli/guard/listen.ts). The command is run in tests/cli/guard_*_test.ts.
 */
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { ListenerFailure } from "../../lib/http/server.ts";
import type { HttpGuard } from "../../lib/guard/http.ts";
import {
  parseListenAddress,
  runListeningGuard,
  runUntilSignalled,
} from "../../cli/guard/listen.ts";
import { AuditLog } from "../../lib/guard/audit.ts";
import { GuardCore } from "../../lib/guard/core.ts";
import { GuardPolicy } from "../../lib/guard/policy.ts";
import { lockServerEntry } from "../../lib/contractpin/lock.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";

Deno.test("parseListenAddress: PORT, HOST:PORT and [IPv6]:PORT on loopback", () => {
  assert.deepEqual(parseListenAddress("8931", false), { hostname: "127.0.0.1", port: 8931 });
  assert.deepEqual(parseListenAddress("localhost:0", false), { hostname: "localhost", port: 0 });
  assert.deepEqual(parseListenAddress("[::1]:65535", false), { hostname: "::1", port: 65535 });
  assert.deepEqual(parseListenAddress("0.0.0.0:80", true), { hostname: "0.0.0.0", port: 80 });
});

Deno.test("parseListenAddress: not an address, or not loopback without allowRemote", () => {
  for (const text of ["", "host", "127.0.0.1:", "127.0.0.1:65536", "::1:80", "1:2:3"]) {
    assert.throws(
      () => parseListenAddress(text, false),
      (e) =>
        e instanceof SchemaPinError && e.details.usage === true &&
        e.message === `--listen expects HOST:PORT or PORT (got ${JSON.stringify(text)})`,
    );
  }
  assert.throws(
    () => parseListenAddress("0.0.0.0:80", false),
    (e) =>
      e instanceof SchemaPinError && e.details.usage === true &&
      e.message.startsWith("--listen 0.0.0.0 is not a loopback address;"),
  );
  for (const [text, allow] of [[8931, false], ["8931", "yes"]]) {
    assert.throws(
      () => parseListenAddress(text as never, allow as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
    );
  }
});

/** A guard that runs until shut down, or until `finished` is settled by the test. */
function fakeGuard(finished: Promise<void> = new Promise(() => {})) {
  const calls: string[] = [];
  const guard: HttpGuard = {
    url: "http://127.0.0.1:1/mcp",
    shutdown: () => {
      calls.push("shutdown");
      return Promise.resolve();
    },
    finished,
  };
  return { guard, calls };
}

Deno.test({
  name: "runUntilSignalled: SIGTERM shuts the guard down; no failure",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const { guard, calls } = fakeGuard();
    // A signal listener does not keep the event loop alive: a timer does, until it arrives.
    const alive = setTimeout(() => {}, 10_000);
    const run = runUntilSignalled(guard);
    Deno.kill(Deno.pid, "SIGTERM");
    try {
      assert.equal(await run, undefined);
    } finally {
      clearTimeout(alive);
    }
    assert.deepEqual(calls, ["shutdown"]);
  },
});

Deno.test("runUntilSignalled: a listener that fails for good is returned, not thrown", async () => {
  const failure = new ListenerFailure("accept failed", new Error("EMFILE"));
  const { guard, calls } = fakeGuard(Promise.reject(failure));
  assert.equal(await runUntilSignalled(guard), failure);
  assert.deepEqual(calls, []);
});

Deno.test("runUntilSignalled: any other error of the guard is thrown", async () => {
  const { guard } = fakeGuard(Promise.reject(new TypeError("bug")));
  await assert.rejects(runUntilSignalled(guard), TypeError);
});

Deno.test("runUntilSignalled: a guard that is not an object is INPUT_INVALID", async () => {
  for (const guard of [undefined, null, "guard"]) {
    await assert.rejects(
      runUntilSignalled(guard as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});

/** The options of a listening guard in front of an upstream nobody answers at. */
function listening(events: string[], hostname = "127.0.0.1", audit: string[] = []) {
  const log = new AuditLog("fx", "audit", (line) => void audit.push(line));
  const policy = new GuardPolicy({
    lock: {
      serverName: "fx",
      entry: lockServerEntry({ transport: "file", path: "x" }, digestToolList([])),
      file: "/abs/l.lock",
    },
  });
  const core = new GuardCore({ policy, mode: "audit", log, serverName: "fx" });
  return {
    upstream: "http://127.0.0.1:9/mcp",
    hostname,
    port: 0,
    core,
    serverName: "fx",
    transport: "streamable-http" as const,
    onEvent: (m: string) => events.push(m),
  };
}

Deno.test({
  name: "runListeningGuard: says where it listens, then runs until SIGTERM",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const events: string[] = [];
    const audit: string[] = [];
    const alive = setTimeout(() => {}, 10_000);
    const run = runListeningGuard(listening(events, "127.0.0.1", audit));
    try {
      while (events.length === 0) await new Promise((r) => setTimeout(r, 10));
      assert.match(
        events[0],
        /^listening on http:\/\/127\.0\.0\.1:\d+\/mcp \(upstream http:\/\/127\.0\.0\.1:9, Streamable HTTP\)$/,
      );
      Deno.kill(Deno.pid, "SIGTERM");
      assert.equal(await run, undefined);
    } finally {
      clearTimeout(alive);
    }
    // The end of the run is the audit log's last line, without an exit code.
    const last = JSON.parse(audit.at(-1)!);
    assert.equal(last.decision, "stopped");
    assert.equal(last.exit_code, undefined);
  },
});

Deno.test("runListeningGuard: a guard that cannot start throws, and says nothing", async () => {
  const events: string[] = [];
  const audit: string[] = [];
  await assert.rejects(runListeningGuard(listening(events, "192.0.2.1", audit)));
  assert.deepEqual(events.filter((e) => e.startsWith("listening on")), []);
  assert.deepEqual(audit, [], "never started: no stopped line");
});
