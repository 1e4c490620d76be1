// deno-lint-ignore-file no-import-prefix -- the SDK is a test peer, pinned here
/**
 * `schemapin guard --listen` under hostile load (issue 18): an idle-connection flood past a low
 * open-file limit, slow headers, idle keep-alive connections, a stderr nobody reads — each
 * ending with the guard still relaying MCP calls and stopping on SIGTERM; bad limit flags are
 * usage errors. The real CLI as a child process, a real SDK server upstream.
 */
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import {
  baseTools,
  runCliProcess,
  SDK_SERVER,
  startListening,
  withTempDir,
  writeLock,
  writeTools,
} from "./helpers.ts";
import { schemapinTaskFlags } from "../cli/run.ts";
import {
  closeAll,
  HttpConnection,
  idleFlood,
  type ServerProcess,
  startServerProcess,
} from "../fixtures/network/limits.ts";

const FLAGS = await schemapinTaskFlags();

/** An SDK server over HTTP (JSON answers) serving the base tools, and a lock for it. */
async function withUpstream(
  fn: (upstream: string, lock: string) => Promise<void>,
): Promise<void> {
  await withTempDir(async (dir) => {
    await writeTools(`${dir}/tools.json`, baseTools());
    await writeLock(`${dir}/lock`, "web", baseTools());
    const upstream = await startListening(
      Deno.execPath(),
      [
        "run",
        "--quiet",
        "--allow-read",
        "--allow-env",
        "--allow-net=127.0.0.1",
        SDK_SERVER,
        "http",
        "json",
      ],
      /listening (\S+)/,
      { FIXTURE_TOOLS: `${dir}/tools.json` },
      (m) => m[1],
      30_000,
    );
    try {
      await fn(upstream.url, `${dir}/lock`);
    } finally {
      await upstream.stop();
    }
  });
}

function guard(
  upstream: string,
  lock: string,
  more: string[] = [],
  options: { ulimit?: number } = {},
): Promise<ServerProcess> {
  return startServerProcess(FLAGS, [
    "guard",
    "--listen",
    "127.0.0.1:0",
    "--upstream",
    upstream,
    "--lock",
    lock,
    ...more,
  ], options);
}

/** A full MCP session through the guard: initialize, tools/list, tools/call (retried). */
async function relays(port: number, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    const client = new Client({ name: "limits-test", version: "1.0.0" });
    try {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)),
      );
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t: { name: string }) => t.name), ["echo", "add", "read_file"]);
      const r = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      assert.equal(r.isError, undefined);
      return;
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await client.close().catch(() => {});
    }
  }
  throw new Error(`no MCP session through the guard within ${ms} ms: ${last}`);
}

Deno.test("guard --listen: an idle-connection flood past `ulimit -n 64` does not stop it; it relays during and after", async () => {
  await withUpstream(async (upstream, lock) => {
    const g = await guard(upstream, lock, [], { ulimit: 64 });
    let flood: Deno.Conn[] = [];
    try {
      flood = await idleFlood(g.port, 200);
      assert.ok(flood.length >= 100, `only ${flood.length} connections`);
      await relays(g.port); // during the flood
      closeAll(flood);
      flood = [];
      await new Promise((r) => setTimeout(r, 200));
      await relays(g.port); // after it
      assert.ok(g.running());
    } finally {
      closeAll(flood);
      const { code, stderr } = await g.stop("SIGTERM");
      assert.equal(code, 0, stderr);
      assert.match(stderr, /out of file descriptors/);
      // The CLI names its flag; the library's own sentence names the option field.
      assert.match(stderr, /raise the open-file limit, or lower --max-connections\)/);
      assert.doesNotMatch(stderr, /lower maxConnections/);
      assert.match(stderr, /"decision":"stopped"/);
    }
  });
});

Deno.test("guard --listen: slow headers and idle keep-alive connections are closed after their timeouts", async () => {
  await withUpstream(async (upstream, lock) => {
    const g = await guard(upstream, lock, ["--header-timeout", "0.5", "--idle-timeout", "0.8"]);
    try {
      const slow = await HttpConnection.tcp(g.port);
      await slow.send(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
      );
      const slowMs = await slow.closedWithin(5_000);
      slow.close();
      assert.ok(slowMs !== undefined && slowMs >= 350 && slowMs < 3_000, `closed after ${slowMs}`);
      // A connection that sends nothing at all gets the header timeout too.
      const silent = await HttpConnection.tcp(g.port);
      const silentMs = await silent.closedWithin(5_000);
      silent.close();
      assert.ok(silentMs !== undefined && silentMs < 3_000, `closed after ${silentMs}`);
      // Keep-alive: answered twice on one connection, then closed after ~0.8 s idle.
      const keep = await HttpConnection.tcp(g.port);
      assert.equal((await keep.get("/elsewhere")).status, 404);
      assert.equal((await keep.get("/elsewhere")).status, 404);
      const idleMs = await keep.closedWithin(5_000);
      keep.close();
      assert.ok(idleMs !== undefined && idleMs >= 600 && idleMs < 3_000, `closed after ${idleMs}`);
      await relays(g.port);
    } finally {
      const { code, stderr } = await g.stop();
      assert.equal(code, 0, stderr);
    }
  });
});

Deno.test("guard --listen: a stderr nobody reads does not stall the guard; SIGTERM still stops it", async () => {
  await withUpstream(async (upstream, lock) => {
    const g = await guard(upstream, lock); // the audit log goes to stderr
    try {
      g.stallLog();
      // Every tools/list is an audit line (~230 bytes): 3,000 fill the pipe and the queue.
      const client = new Client({ name: "limits-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${g.port}/mcp`)),
      );
      for (let i = 0; i < 3_000; i++) await client.listTools();
      await client.close();
      await relays(g.port, 10_000);
      const started = Date.now();
      const { code, stderr } = await g.stop("SIGTERM", 10_000);
      assert.equal(code, 0, stderr);
      assert.ok(Date.now() - started < 8_000);
      assert.match(stderr, /\d+ log lines dropped/);
    } catch (e) {
      await g.stop("SIGKILL").catch(() => {});
      throw e;
    }
  });
});

Deno.test("guard: bad limit flags are usage errors (exit 2), before anything is started", async () => {
  const listen = ["--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:1/mcp"];
  for (
    const args of [
      [...listen, "--max-connections", "0"],
      [...listen, "--max-connections", "many"],
      [...listen, "--header-timeout", "0"],
      [...listen, "--idle-timeout", "-3"],
      [...listen, "--idle-timeout", "1s"],
      [...listen, "--handshake-timeout", "5"], // no TLS in the guard
      ["--max-connections", "10", "--", "echo"], // a stdio guard has no listener
      ["--idle-timeout", "10", "--", "echo"],
    ]
  ) {
    const r = await runCliProcess(["guard", ...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /^error: /m, args.join(" "));
    assert.doesNotMatch(r.stderr, /listening/, args.join(" "));
  }
});
