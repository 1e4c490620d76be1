/**
 * Servers that cannot be pinned or checked: a missing command, a process that exits early, one
 * that never answers, malformed JSON, duplicate keys, duplicate tool names, cursor loops, RPC
 * errors. `init` exits 1 and writes nothing; `verify` reports the server unreachable (exit 1,
 * §6: "I could not check" is not "nothing is wrong"). Also the clean-shutdown guarantees.
 */
import assert from "node:assert/strict";
import {
  listDir,
  processAlive,
  rawCommand,
  readJson,
  runInProcess,
  withTempDir,
} from "./helpers.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";

type Json = Record<string, unknown>;

/** `contract init` of `dir/contractpin.lock` pinning `command` as `server`. */
function initServer(dir: string, server: string, command: string[], ...flags: string[]) {
  return runInProcess([
    "contract",
    "init",
    "--lock",
    `${dir}/contractpin.lock`,
    ...flags,
    "--server",
    server,
    "--",
    ...command,
  ]);
}

async function initRaw(dir: string, mode: string, ...flags: string[]) {
  return await initServer(dir, "raw", rawCommand(mode), ...flags);
}

const failing: { mode: string; flags?: string[]; kind: string; message: RegExp }[] = [
  {
    mode: "exit-early",
    kind: "exited",
    // The first request is the era probe (MCP 2026-07-28 server/discover).
    message: /exited with code 3 before answering server\/discover/,
  },
  {
    mode: "silent",
    flags: ["--startup-timeout", "1"],
    kind: "timeout",
    message: /no answer to initialize within 1 s/,
  },
  {
    mode: "never-list",
    flags: ["--timeout", "0.5"],
    kind: "timeout",
    message: /no answer to tools\/list within 0.5 s/,
  },
  { mode: "malformed", kind: "malformed", message: /not strict JSON/ },
  { mode: "stdout-noise", kind: "malformed", message: /not strict JSON/ },
  { mode: "duplicate-keys", kind: "malformed", message: /duplicate/i },
  { mode: "duplicate-tools", kind: "malformed", message: /duplicate tool name "a"/ },
  { mode: "cursor-loop", kind: "protocol", message: /cursor loop/ },
  { mode: "empty-cursor", kind: "protocol", message: /empty nextCursor/ },
  {
    mode: "rpc-error",
    kind: "rpc_error",
    message: /tools\/list failed: JSON-RPC error -32603: nope/,
  },
  { mode: "wrong-id", kind: "malformed", message: /unknown request id 999/ },
];

for (const c of failing) {
  Deno.test(`init: ${c.mode} server → exit 1, nothing written`, async () => {
    await withTempDir(async (dir) => {
      const started = Date.now();
      const r = await initRaw(dir, c.mode, ...(c.flags ?? []));
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, c.message);
      assert.match(r.stderr, /contractpin\.lock was not written/);
      assert.deepEqual(await listDir(dir), []);
      assert.ok(Date.now() - started < 15_000, "a failing server must not hang init");
    });
  });
}

Deno.test("init: exit-early server's stderr is shown (captured, never parsed)", async () => {
  await withTempDir(async (dir) => {
    const r = await initRaw(dir, "exit-early");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\| raw: fatal: missing configuration, exiting/);
  });
});

Deno.test("init: a command that does not exist → exit 1, nothing written", async () => {
  await withTempDir(async (dir) => {
    const r = await initServer(dir, "ghost", [`${dir}/no-such-server`, "--stdio"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /command not found/);
    assert.deepEqual(await listDir(dir), []);
  });
});

Deno.test("verify: a pinned server that became unreachable is exit 1 with the reason", async () => {
  await withTempDir(async (dir) => {
    const lock = `${dir}/contractpin.lock`;
    const ok = await initRaw(dir, "ok");
    assert.equal(ok.code, 0, ok.stderr);
    const text = await Deno.readTextFile(lock);
    for (
      const [mode, kind] of [["exit-early", "exited"], ["silent", "timeout"], [
        "duplicate-tools",
        "malformed",
      ]]
    ) {
      await Deno.writeTextFile(lock, text.replace(`"ok"`, `"${mode}"`));
      const r = await runInProcess([
        "contract",
        "verify",
        "--lock",
        lock,
        "--json",
        "--startup-timeout",
        "1",
      ]);
      assert.equal(r.code, 1, mode);
      const report = await assertJsonOutput(r.stdout);
      assert.equal(report.ok, false, mode);
      assert.equal((report.error as Json).code, "CONTRACT_DRIFT", mode);
      const server = (report.servers as Json[])[0];
      assert.equal(server.status, "unreachable", mode);
      assert.equal((server.error as Json).kind, kind, mode);
      assert.equal((server.digest as Json).live, null, mode);
    }
    // The command vanished entirely.
    await Deno.writeTextFile(
      lock,
      text.replace(JSON.stringify(rawCommand("ok")[0]), JSON.stringify(`${dir}/gone`)),
    );
    const gone = await runInProcess(["contract", "verify", "--lock", lock]);
    assert.equal(gone.code, 1);
    assert.match(gone.stdout, /^UNREACHABLE raw \(stdio\): server raw: command not found/m);
  });
});

Deno.test("init: server requests (ping) are answered and notifications ignored", async () => {
  await withTempDir(async (dir) => {
    const r = await initRaw(dir, "ping-first", "--startup-timeout", "5");
    assert.equal(r.code, 0, r.stderr);
    const lock = await readJson(`${dir}/contractpin.lock`);
    assert.equal(((lock.servers as Json).raw as Json).tool_count, 2);
  });
});

Deno.test("init: a server without the tools capability pins zero tools, with a note", async () => {
  await withTempDir(async (dir) => {
    const r = await initRaw(dir, "no-tools-cap");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /does not declare the tools capability/);
    const lock = await readJson(`${dir}/contractpin.lock`);
    const server = (lock.servers as Json).raw as Json;
    assert.equal(server.tool_count, 0);
    assert.deepEqual(server.tools, {});
  });
});

Deno.test("shutdown: a server that ignores stdin EOF and SIGTERM is killed", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pid`;
    const started = Date.now();
    const r = await initServer(dir, "stubborn", rawCommand("stubborn", pidFile));
    assert.equal(r.code, 0, r.stderr);
    const pid = Number(await Deno.readTextFile(pidFile));
    assert.ok(pid > 0);
    assert.equal(await processAlive(pid), false, "stubborn server still running");
    assert.ok(Date.now() - started < 10_000);
  });
});

Deno.test("shutdown: the server's own children are terminated with it (process group)", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pid`;
    const r = await initServer(dir, "parent", rawCommand("grandchild", pidFile));
    assert.equal(r.code, 0, r.stderr);
    const pid = Number(await Deno.readTextFile(pidFile));
    assert.ok(pid > 0);
    assert.equal(await processAlive(pid), false, "grandchild survived");
  });
});

Deno.test("shutdown: a timed-out server is killed, not waited for", async () => {
  await withTempDir(async (dir) => {
    const pidFile = `${dir}/pid`;
    const started = Date.now();
    const r = await initServer(
      dir,
      "silent",
      rawCommand("silent", pidFile),
      "--startup-timeout",
      "0.5",
    );
    assert.equal(r.code, 1);
    assert.ok(Date.now() - started < 6000, `took ${Date.now() - started} ms`);
    const pid = Number(await Deno.readTextFile(pidFile));
    assert.ok(pid > 0);
    assert.equal(await processAlive(pid), false, "timed-out server still running");
  });
});
