// A long-running server run until a signal or a failure of its listener
// (cli/http/until_signal.ts): the signal shuts it down with its grace, a listener failure is
// returned, any other error thrown, and misuse is INPUT_INVALID. `serve` and `guard --listen`
// are run in tests/cli/.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { ListenerFailure } from "../../lib/http/server.ts";
import {
  type RunningServer,
  runUntilSignalled,
  runUntilStopped,
  STOP_SIGNALS,
} from "../../cli/http/until_signal.ts";

/** A server that runs until shut down, or until `finished` is settled by the test. */
function fakeServer(finished: Promise<void> = new Promise(() => {})) {
  const calls: (number | undefined)[] = [];
  const server: RunningServer = {
    shutdown: (graceMs) => {
      calls.push(graceMs);
      return Promise.resolve();
    },
    finished,
  };
  return { server, calls };
}

Deno.test("STOP_SIGNALS: SIGINT, and SIGTERM (SIGBREAK on Windows)", () => {
  assert.deepEqual(
    STOP_SIGNALS,
    Deno.build.os === "windows" ? ["SIGINT", "SIGBREAK"] : ["SIGINT", "SIGTERM"],
  );
});

Deno.test("runUntilStopped: the stop shuts the server down with its grace", async () => {
  const { server, calls } = fakeServer();
  assert.equal(await runUntilStopped(server, Promise.resolve(), 5_000), undefined);
  assert.deepEqual(calls, [5_000]);
});

Deno.test({
  name: "runUntilSignalled: SIGTERM shuts the server down with its grace; no failure",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const { server, calls } = fakeServer();
    // A signal listener does not keep the event loop alive: a timer does, until it arrives.
    const alive = setTimeout(() => {}, 10_000);
    const run = runUntilSignalled(server, { graceMs: 250 });
    Deno.kill(Deno.pid, "SIGTERM");
    try {
      assert.equal(await run, undefined);
    } finally {
      clearTimeout(alive);
    }
    assert.deepEqual(calls, [250]);
  },
});

Deno.test("runUntilSignalled: a listener that fails for good is returned, not thrown", async () => {
  const failure = new ListenerFailure("accept failed", new Error("EMFILE"));
  const { server, calls } = fakeServer(Promise.reject(failure));
  assert.equal(await runUntilSignalled(server), failure);
  assert.deepEqual(calls, []);
});

Deno.test("runUntilSignalled: any other error of the server is thrown", async () => {
  const { server } = fakeServer(Promise.reject(new TypeError("bug")));
  await assert.rejects(runUntilSignalled(server), TypeError);
  await assert.rejects(
    runUntilStopped(
      fakeServer(Promise.reject(new RangeError("bug"))).server,
      new Promise(() => {}),
    ),
    RangeError,
  );
});

Deno.test("runUntilSignalled: a server or options that are not objects are INPUT_INVALID", async () => {
  for (const [server, options] of [[undefined, {}], ["server", {}], [fakeServer().server, 5]]) {
    await assert.rejects(
      runUntilSignalled(server as never, options as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});
