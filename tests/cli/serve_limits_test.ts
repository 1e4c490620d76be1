// `schemapin serve` under hostile load (issue 18): an idle-connection flood past a low
// open-file limit, slow headers, a TLS handshake that never comes, idle keep-alive connections,
// the connection cap, a stderr nobody reads — each ending with the server still answering and
// stopping on SIGTERM. The real CLI as a child process with the task's permission flags.
import assert from "node:assert/strict";
import { makeTestPki } from "../fixtures/network/pki.ts";
import {
  closeAll,
  HttpConnection,
  idleFlood,
  rssKiB,
  type ServerProcess,
  startServerProcess,
} from "../fixtures/network/limits.ts";
import { discoveryFor, SIGNER } from "../schema/_fixtures.ts";
import { runCliProcess, schemapinTaskFlags, withTempDir } from "./run.ts";

const FLAGS = await schemapinTaskFlags();
const pkiDir = await Deno.makeTempDir({ prefix: "schemapin-pki-" });
const pki = await makeTestPki(pkiDir, "localhost", ["127.0.0.1"]);
const CA = await Deno.readTextFile(pki.caCert);
globalThis.addEventListener("unload", () => Deno.removeSync(pkiDir, { recursive: true }));
const DISCOVERY = `${pkiDir}/schemapin.json`;
await Deno.writeTextFile(DISCOVERY, JSON.stringify(discoveryFor(SIGNER)));
const PATH = "/.well-known/schemapin.json";

function serve(more: string[] = [], options: { ulimit?: number } = {}): Promise<ServerProcess> {
  return startServerProcess(FLAGS, [
    "serve",
    "--discovery",
    DISCOVERY,
    "--tls-cert",
    pki.cert,
    "--tls-key",
    pki.key,
    "--port",
    "0",
    "--hostname",
    "127.0.0.1",
    ...more,
  ], options);
}

/** GET of the discovery document on a fresh TLS connection (retried for up to `ms`). */
async function answers(port: number, ms = 15_000): Promise<number> {
  const end = Date.now() + ms;
  let last: unknown;
  while (Date.now() < end) {
    let c: HttpConnection | undefined;
    try {
      c = await HttpConnection.tls(port, CA);
      const r = await c.get(PATH);
      return r.status;
    } catch (e) {
      last = e;
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      c?.close();
    }
  }
  throw new Error(`no answer within ${ms} ms: ${last}`);
}

Deno.test("serve: an idle-connection flood past `ulimit -n 64` does not stop it; it answers during and after", async () => {
  const server = await serve([], { ulimit: 64 });
  let flood: Deno.Conn[] = [];
  try {
    flood = await idleFlood(server.port, 200);
    assert.ok(flood.length >= 100, `only ${flood.length} connections`);
    assert.equal(await answers(server.port), 200); // during the flood
    assert.ok(server.running());
    closeAll(flood);
    flood = [];
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(await answers(server.port), 200); // after it
    // A second flood, and the server still answers.
    flood = await idleFlood(server.port, 200);
    assert.equal(await answers(server.port), 200);
  } finally {
    closeAll(flood);
    const { code, stderr } = await server.stop("SIGTERM");
    assert.equal(code, 0, stderr);
    assert.match(stderr, /out of file descriptors/);
    assert.match(stderr, /raise the open-file limit, or lower --max-connections\)/);
    assert.match(stderr, /schemapin serve: stopped/);
    assert.doesNotMatch(stderr, /^error:/m);
  }
});

Deno.test("serve: slow headers, a missing TLS handshake and idle keep-alive connections are closed after their timeouts", async () => {
  const server = await serve([
    "--header-timeout",
    "0.5",
    "--handshake-timeout",
    "0.5",
    "--idle-timeout",
    "0.8",
  ]);
  try {
    // Headers that never end: closed after ~0.5 s.
    const slow = await HttpConnection.tls(server.port, CA);
    await slow.send("GET /.well-known/schemapin.json HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const slowMs = await slow.closedWithin(5_000);
    slow.close();
    assert.ok(slowMs !== undefined && slowMs >= 350 && slowMs < 3_000, `closed after ${slowMs}`);
    // A TCP connection that never starts TLS: closed after ~0.5 s.
    const bare = await HttpConnection.tcp(server.port);
    const bareMs = await bare.closedWithin(5_000);
    bare.close();
    assert.ok(bareMs !== undefined && bareMs >= 350 && bareMs < 3_000, `closed after ${bareMs}`);
    // Keep-alive: a second request within the idle timeout is served on the same connection;
    // then, idle, the connection is closed after ~0.8 s.
    const keep = await HttpConnection.tls(server.port, CA);
    assert.equal((await keep.get(PATH)).status, 200);
    await new Promise((r) => setTimeout(r, 300));
    const second = await keep.get(PATH);
    assert.equal(second.status, 200);
    assert.equal(second.headers.get("connection"), null);
    const idleMs = await keep.closedWithin(5_000);
    keep.close();
    assert.ok(idleMs !== undefined && idleMs >= 600 && idleMs < 3_000, `closed after ${idleMs}`);
    assert.equal(await answers(server.port), 200);
  } finally {
    const { code, stderr } = await server.stop();
    assert.equal(code, 0, stderr);
  }
});

Deno.test("serve: the connection cap closes the connection idle the longest first", async () => {
  const server = await serve(["--max-connections", "3"]);
  const conns: HttpConnection[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const c = await HttpConnection.tls(server.port, CA);
      assert.equal((await c.get(PATH)).status, 200);
      conns.push(c);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The first becomes the most recently idle; the second is now idle the longest.
    assert.equal((await conns[0].get(PATH)).status, 200);
    const fourth = await HttpConnection.tls(server.port, CA);
    assert.equal((await fourth.get(PATH)).status, 200);
    conns.push(fourth);
    assert.notEqual(await conns[1].closedWithin(3_000), undefined, "the oldest idle stays open");
    for (const i of [0, 2, 3]) {
      assert.equal((await conns[i].get(PATH)).status, 200, `connection ${i}`);
    }
  } finally {
    for (const c of conns) c.close();
    const { code, stderr } = await server.stop();
    assert.equal(code, 0, stderr);
  }
});

Deno.test("serve: a stderr nobody reads neither grows memory nor stops the server; SIGTERM still stops it", async () => {
  const server = await serve(["--access-log"]);
  try {
    server.stallLog();
    const client = Deno.createHttpClient({ caCerts: [CA] });
    // 15 KiB paths (a request head may have 16 KiB, docs/http-framing.md): each access-log line
    // holds one, so a log that kept what it could not write grows by 15 KiB per request: measured
    // 140 MiB over the second phase with an unbounded queue (16 KiB paths), 27–29 MiB (the
    // heap's own growth) with the bounded one.
    const long = "/" + "x".repeat(15 * 1024);
    const run = async (n: number) => {
      const statuses = new Map<number, number>();
      await Promise.all(Array.from({ length: 8 }, async () => {
        for (let i = 0; i < n / 8; i++) {
          const r = await fetch(`https://127.0.0.1:${server.port}${long}`, { client });
          await r.body?.cancel();
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        }
      }));
      return [...statuses];
    };
    assert.deepEqual(await run(1_000), [[404, 1_000]]); // fills the pipe and the log's queue
    const before = await rssKiB(server.pid);
    assert.deepEqual(await run(4_000), [[404, 4_000]]);
    const after = await rssKiB(server.pid);
    client.close();
    assert.ok(after - before < 72 * 1024, `RSS grew from ${before} to ${after} KiB`);
    assert.equal(await answers(server.port), 200);
    // SIGTERM while stderr is still stalled: the process stops in time anyway.
    const started = Date.now();
    const { code, stderr } = await server.stop("SIGTERM", 10_000);
    assert.equal(code, 0, stderr);
    assert.ok(Date.now() - started < 8_000);
    assert.match(stderr, /\d+ log lines dropped/);
  } catch (e) {
    await server.stop("SIGKILL").catch(() => {});
    throw e;
  }
});

Deno.test("serve: bad limit flags are usage errors (exit 2)", async () => {
  await withTempDir(async () => {
    const base = [
      "--discovery",
      DISCOVERY,
      "--tls-cert",
      pki.cert,
      "--tls-key",
      pki.key,
      "--port",
      "0",
    ];
    for (
      const bad of [
        ["--max-connections", "0"],
        ["--max-connections", "-5"],
        ["--max-connections", "12x"],
        ["--max-connections", "1.5"],
        ["--max-connections", "99999999"],
        ["--idle-timeout", "0"],
        ["--idle-timeout", "-1"],
        ["--idle-timeout", "abc"],
        ["--header-timeout", "1e3"],
        ["--header-timeout", "100000"],
        ["--handshake-timeout", ""],
        ["--handshake-timeout", "0.001"],
        ["--access-log=yes"],
      ]
    ) {
      const r = await runCliProcess(["serve", ...base, ...bad]);
      assert.equal(r.code, 2, `${bad.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^error: /m, bad.join(" "));
      assert.doesNotMatch(r.stderr, /listening/, bad.join(" "));
    }
  });
});
