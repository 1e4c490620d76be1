// Slow and half-closed clients against the HTTP/1.1 layer (issues 28 and 37), with real sockets.
// What is measured is what stays open — connections and descriptors counted from outside the
// server process, who got an answer — never how long something took (the deadlines given to
// the waits are generous bounds, many times what the step takes, not expectations).
//
// - The cap holds, counted from outside (the kernel's TCP table and /proc/PID/fd, never the
//   server's own counters): with --max-connections N, `schemapin serve` (TLS) and
//   `schemapin guard --listen` never hold more than N client connections, busy or idle, and
//   never leave any in the kernel's accept queue. With every slot held by uploads above the
//   minimum rate, 2N clients dripping bodies, trailers and heads are closed at once; 3N
//   drippers on their own never get more than N slots, and lose them within the grace of the
//   minimum rate (10 s, the default), not at the 60 s request deadline. Every descriptor is
//   released afterwards.
// - In process (lib/http, short limits): a newcomer at a cap of busy requests is closed at
//   once; one at a cap of requests behind the minimum rate takes the slot of the one furthest
//   behind (and is refused with the rate turned off); drips of bodies, trailers and heads are
//   cut after the grace while a steady upload is not, and a steady upload is still cut at the
//   request deadline.
// - Expect: 100-continue with a handler that never reads: a final answer, no 100 after it,
//   and the connection closes without waiting for the body.
// - A client that half-closes after pipelined requests gets every answer, async handlers too,
//   and so does a guard client.
// - The guard answers malformed chunked framing 400 (not 413) and caps every method's body.
import assert from "node:assert/strict";
import { type HttpServer, listenHttp, type ServerLimits } from "../../lib/http/server.ts";
import { type ServerProcess, startServerProcess } from "../fixtures/network/limits.ts";
import { makeTestPki } from "../fixtures/network/pki.ts";
import { discoveryFor, SIGNER } from "../schema/_fixtures.ts";
import { schemapinTaskFlags } from "../cli/run.ts";
import { baseTools, writeLock } from "../guard/helpers.ts";
import {
  allWithin,
  DRIP_BODY,
  DRIPS,
  heldAtMost,
  sample,
  sleep,
  type SlowClient,
  slowClient,
  socketsBackTo,
  STEADY,
  Watch,
  within,
} from "./slow_clients_helpers.ts";

const FLAGS = await schemapinTaskFlags();
const encode = (t: string) => new TextEncoder().encode(t);

// ------------------------------------------------------------------ in process (lib/http)

/** A lib/http server on loopback whose handler reads the body, then waits for `gate`. */
function serverWith(
  limits: Partial<ServerLimits>,
  gate: Promise<void> = Promise.resolve(),
  entered?: () => void,
): { server: HttpServer; connect: () => Promise<Deno.Conn> } {
  const server = listenHttp({
    hostname: "127.0.0.1",
    port: 0,
    limits,
    handler: async (req) => {
      await req.arrayBuffer();
      entered?.();
      await gate;
      return new Response("ok", { headers: { "content-length": "2" } });
    },
  });
  return {
    server,
    connect: () => Deno.connect({ hostname: "127.0.0.1", port: server.addr.port }),
  };
}

/**
 * Sends a small POST on a new connection: the status line, "" when the connection closed, or
 * "no answer" when neither came within 10 s.
 */
async function postOnce(connect: () => Promise<Deno.Conn>): Promise<string> {
  const c = await connect();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await c.write(encode("POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"));
    const buf = new Uint8Array(1024);
    const n = await Promise.race([
      c.read(buf),
      new Promise<"late">((r) => timer = setTimeout(() => r("late"), 10_000)),
    ]);
    if (n === "late") return "no answer";
    return new TextDecoder().decode(buf.subarray(0, n ?? 0)).split("\r\n")[0];
  } catch {
    return ""; // reset
  } finally {
    clearTimeout(timer);
    try {
      c.close();
    } catch { /* closed */ }
  }
}

const openOf = (clients: SlowClient[]) => clients.filter((c) => c.open).length;

/** Keeps the most `stats().open` seen, every 10 ms, until stopped. */
function openSampler(server: HttpServer): { most(): number; stop(): void } {
  let most = 0;
  const timer = setInterval(() => most = Math.max(most, server.stats().open), 10);
  return { most: () => most, stop: () => clearInterval(timer) };
}

Deno.test("lib/http: at a cap of busy requests none behind, a newcomer is closed at once; the busy ones are answered", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => release = r);
  let entered = 0;
  const { server, connect } = serverWith({ maxConnections: 4 }, gate, () => entered++);
  const answers: Promise<string>[] = [];
  try {
    for (let i = 0; i < 4; i++) answers.push(postOnce(connect));
    assert.ok(await within(10_000, () => entered === 4), `${entered} handlers entered`);
    // The newcomer is accepted and closed: its client sees the end (or a reset), no answer.
    assert.equal(await postOnce(connect), "");
    const stats = server.stats();
    assert.equal(stats.refused, 1, JSON.stringify(stats));
    assert.equal(stats.open, 4, JSON.stringify(stats));
    release();
    assert.deepEqual(await Promise.all(answers), Array(4).fill("HTTP/1.1 200 OK"));
  } finally {
    release();
    await server.shutdown(1000);
  }
});

Deno.test("lib/http: at a cap of drippers, a newcomer takes the slot of the one furthest behind the minimum rate; with no minimum it is refused", async () => {
  for (const minRequestRate of [500, 0]) {
    // A grace of a minute: the drippers are not cut by the rate, only displaced.
    const { server, connect } = serverWith({
      maxConnections: 4,
      minRequestRate,
      requestGraceMs: 60_000,
    });
    const open = openSampler(server);
    const drippers: SlowClient[] = [];
    try {
      for (let i = 0; i < 4; i++) drippers.push(await slowClient(connect, ...DRIP_BODY, 200));
      assert.ok(await within(10_000, () => server.stats().open === 4 && server.stats().idle === 0));
      await sleep(300); // each has waited longer than its head earned (about 180 ms)
      const status = await postOnce(connect);
      const stats = server.stats();
      if (minRequestRate > 0) {
        assert.equal(status, "HTTP/1.1 200 OK", JSON.stringify(stats));
        assert.equal(stats.evicted, 1, JSON.stringify(stats));
        assert.ok(await within(5_000, () => openOf(drippers) === 3), "no dripper lost its slot");
      } else {
        assert.equal(status, "", JSON.stringify(stats));
        assert.equal(stats.refused, 1, JSON.stringify(stats));
        assert.equal(stats.evicted, 0, JSON.stringify(stats));
      }
      assert.ok(open.most() <= 4, `${open.most()} connections open with a cap of 4`);
    } finally {
      open.stop();
      for (const d of drippers) d.stop();
      await server.shutdown(1000);
    }
  }
});

Deno.test("lib/http: drips of a body, trailers and a head are cut after the grace; a steady upload is answered, and cut at the request deadline when it is too long", async () => {
  const { server, connect } = serverWith({ minRequestRate: 500, requestGraceMs: 400 });
  const drippers: SlowClient[] = [];
  try {
    for (const drip of DRIPS) drippers.push(await slowClient(connect, ...drip, 100));
    // 200 bytes every 50 ms (4,000 a second), 8,000 bytes in all: answered.
    const c = await connect();
    const body = 8000;
    await c.write(encode(`POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Length: ${body}\r\n\r\n`));
    for (let sent = 0; sent < body; sent += 200) {
      await c.write(encode("y".repeat(200)));
      await sleep(50);
    }
    const buf = new Uint8Array(1024);
    const n = await c.read(buf);
    c.close();
    assert.match(new TextDecoder().decode(buf.subarray(0, n ?? 0)), /^HTTP\/1\.1 200 /);
    await allWithin(drippers.map((d) => d.closed), 20_000, "drippers still connected");
    const stats = server.stats();
    assert.equal(stats.timedOut.slow, 3, JSON.stringify(stats));
    assert.equal(stats.timedOut.request, 0, JSON.stringify(stats));
  } finally {
    for (const d of drippers) d.stop();
    await server.shutdown(1000);
  }
  // The request deadline still bounds a steady upload: 2,000 bytes a second against 600 ms.
  const deadline = serverWith({ requestTimeoutMs: 600 });
  try {
    const steady = await slowClient(deadline.connect, STEADY[0], "x".repeat(200), 100);
    await allWithin([steady.closed], 20_000, "steady upload still connected");
    const stats = deadline.server.stats();
    assert.equal(stats.timedOut.request, 1, JSON.stringify(stats));
    assert.equal(stats.timedOut.slow, 0, JSON.stringify(stats));
  } finally {
    await deadline.server.shutdown(1000);
  }
});

// ------------------------------------------------------------------ server processes, from outside

const N = 8;

/** Starts `count` slow clients one after the other (each connected before the next). */
async function startClients(
  connect: () => Promise<Deno.Conn>,
  count: number,
  kind: (i: number) => readonly [string, string],
  everyMs: number,
): Promise<SlowClient[]> {
  const clients: SlowClient[] = [];
  for (let i = 0; i < count; i++) clients.push(await slowClient(connect, ...kind(i), everyMs));
  return clients;
}

/**
 * Against a server process with --max-connections N and the default minimum rate (500 bytes
 * a second after 10 s), counted from outside:
 *
 * 1. N uploads above the minimum rate hold every slot; 2N clients dripping bodies, trailers
 *    and heads arrive one after the other: each is closed at once, the uploads go on.
 * 2. 3N drippers on their own: each newcomer beyond N costs one connection at once, so at
 *    most N stay; those lose their slot after the grace, long before the request deadline.
 *
 * Throughout, the server holds at most N client connections (the kernel's TCP table, those
 * whose socket is a descriptor of the process), and none waits in the kernel's accept queue;
 * connections that last under a second are not counted: one accepted and closed at once.
 * Afterwards every descriptor is released.
 */
async function capFromOutside(
  server: ServerProcess,
  connect: () => Promise<Deno.Conn>,
): Promise<void> {
  const before = await sample(server.pid, server.port);
  assert.equal(before.held.size, 0, "no client connection before the test");
  const watch = new Watch(server.pid, server.port);
  const clients: SlowClient[] = [];
  try {
    // 1. Every slot held by uploads above the minimum rate.
    const steady = await startClients(connect, N, () => STEADY, 100);
    clients.push(...steady);
    assert.ok(
      await within(10_000, () => watch.samples.at(-1)?.held.size === N),
      "the uploads did not all get a slot",
    );
    await sleep(1000); // their heads are read: they are busy, not idle
    const over = await startClients(connect, 2 * N, (i) => DRIPS[i % 3], 200);
    clients.push(...over);
    assert.ok(
      await within(5_000, () => openOf(over) === 0),
      `${openOf(over)} of ${2 * N} clients over the cap still connected`,
    );
    assert.equal(openOf(steady), N, "an upload above the minimum rate lost its slot");
    for (const c of steady) c.stop();
    assert.ok(await heldAtMost(server.pid, server.port, 0, 10_000), "the uploads' slots stay");

    // 2. 3N drippers on their own.
    const drippers = await startClients(connect, 3 * N, (i) => DRIPS[i % 3], 200);
    clients.push(...drippers);
    assert.ok(
      await within(5_000, () => openOf(drippers) <= N),
      `${openOf(drippers)} of ${3 * N} drippers connected with --max-connections ${N}`,
    );
    // The last N lose their slot after the grace (10 s, plus a second per 500 bytes sent):
    // well within 25 s, where the request deadline is 60 s.
    await allWithin(drippers.map((d) => d.closed), 25_000, "drippers still connected");
  } finally {
    await watch.stop();
    for (const c of clients) c.stop();
  }
  const held = watch.peak("held");
  const onPort = watch.peak("onPort");
  assert.ok(held <= N, `${held} connections held at once with --max-connections ${N}`);
  assert.ok(onPort <= N, `${onPort} live connections on the port (the kernel's queue too)`);
  assert.ok(watch.samples.length >= 20, `only ${watch.samples.length} samples`);
  // Every closed connection's descriptor is released: back to where it started.
  const after = await socketsBackTo(server.pid, server.port, before.sockets, 10_000);
  assert.ok(after <= before.sockets, `sockets went from ${before.sockets} to ${after} and stayed`);
}

Deno.test("slow clients: schemapin serve (TLS) --max-connections 8 holds from outside; drippers lose their slot after the grace", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-slow-serve-" });
  try {
    const pki = await makeTestPki(dir, "localhost", ["127.0.0.1"]);
    const ca = await Deno.readTextFile(pki.caCert);
    await Deno.writeTextFile(`${dir}/schemapin.json`, JSON.stringify(discoveryFor(SIGNER)));
    const serve = await startServerProcess(FLAGS, [
      "serve",
      "--discovery",
      `${dir}/schemapin.json`,
      "--cert",
      pki.cert,
      "--key",
      pki.key,
      "--port",
      "0",
      "--hostname",
      "127.0.0.1",
      "--max-connections",
      String(N),
    ]);
    try {
      await capFromOutside(serve, async () => {
        const c = await Deno.connectTls({ hostname: "127.0.0.1", port: serve.port, caCerts: [ca] });
        await c.handshake();
        return c;
      });
      // Expect: 100-continue on a POST serve answers without reading: 405, no 100, closed at
      // once (the idle timeout is 30 s: a wait for the body would show).
      const c = await Deno.connectTls({ hostname: "127.0.0.1", port: serve.port, caCerts: [ca] });
      await c.write(encode(
        "POST /.well-known/schemapin.json HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n" +
          "Content-Length: 5\r\n\r\n",
      ));
      let text = "";
      const buf = new Uint8Array(4096);
      const end = Date.now() + 10_000;
      while (Date.now() < end) {
        const n = await c.read(buf).catch(() => null);
        if (n === null) break;
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
      c.close();
      assert.match(text, /^HTTP\/1\.1 405 /);
      assert.doesNotMatch(text, /100 Continue/);
      assert.match(text, /connection: close/);
      assert.ok(Date.now() < end, "the connection stayed open waiting for a body never asked for");
    } finally {
      await serve.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function withGuard(
  more: string[],
  fn: (guard: ServerProcess, reached: { method: string; bytes: number }[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-slow-guard-" });
  const reached: { method: string; bytes: number }[] = [];
  const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    let bytes = 0;
    try {
      for await (const c of req.body ?? []) bytes += c.length;
    } catch {
      bytes = -1; // the body broke off
    }
    reached.push({ method: req.method, bytes });
    await sleep(50); // an upstream that takes its time: the guard's answers are async
    if (req.method === "POST") return new Response(null, { status: 202 });
    return new Response(null, { status: 204 });
  });
  try {
    await writeLock(`${dir}/lock`, "web", baseTools());
    const guard = await startServerProcess(FLAGS, [
      "guard",
      "--listen",
      "127.0.0.1:0",
      "--upstream",
      `http://127.0.0.1:${upstream.addr.port}/mcp`,
      "--upstream-transport",
      "streamable-http",
      "--lock",
      `${dir}/lock`,
      "--log",
      `${dir}/audit.log`,
      ...more,
    ]);
    try {
      await fn(guard, reached);
    } finally {
      await guard.stop();
    }
  } finally {
    await upstream.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Sends `text`, half-closes, and reads everything until the server closes. */
async function sendAndFin(port: number, text: string | Uint8Array): Promise<string> {
  const c = await Deno.connect({ hostname: "127.0.0.1", port });
  const bytes = typeof text === "string" ? encode(text) : text;
  let out = "";
  const reading = (async () => {
    const buf = new Uint8Array(65536);
    try {
      while (true) {
        const n = await c.read(buf);
        if (n === null) break;
        out += new TextDecoder().decode(buf.subarray(0, n));
      }
    } catch { /* reset */ }
  })();
  try {
    let n = 0;
    while (n < bytes.length) n += await c.write(bytes.subarray(n));
    await c.closeWrite();
  } catch { /* closed early */ }
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([reading, new Promise((r) => timer = setTimeout(r, 20_000))]);
  clearTimeout(timer);
  try {
    c.close();
  } catch { /* closed */ }
  return out;
}

const NOTE = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
const post = (body: string) =>
  `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
  `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
const statusesOf = (text: string) => [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);

Deno.test("slow clients: schemapin guard --listen --max-connections 8 holds from outside; drippers lose their slot after the grace", async () => {
  await withGuard(["--max-connections", String(N)], async (guard) => {
    await capFromOutside(guard, () => Deno.connect({ hostname: "127.0.0.1", port: guard.port }));
  });
});

Deno.test("half-closed clients: every pipelined request is answered, through the guard and in lib/http with async handlers", async () => {
  const server = listenHttp({
    hostname: "127.0.0.1",
    port: 0,
    handler: async (req) => {
      await sleep(30);
      const text = `${req.method} ${new URL(req.url).pathname}`;
      return new Response(text, { headers: { "content-length": String(text.length) } });
    },
  });
  try {
    const gets = await sendAndFin(
      server.addr.port,
      ["/a", "/b", "/c"].map((p) => `GET ${p} HTTP/1.1\r\nHost: x\r\n\r\n`).join(""),
    );
    assert.deepEqual(statusesOf(gets), ["200", "200", "200"], gets);
    assert.match(gets, /GET \/a[^]*GET \/b[^]*GET \/c$/);
    const posts = await sendAndFin(
      server.addr.port,
      [1, 2, 3].map((i) => `POST /${i} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\n${i}`)
        .join(""),
    );
    assert.deepEqual(statusesOf(posts), ["200", "200", "200"], posts);
  } finally {
    await server.shutdown(1000);
  }
  await withGuard([], async (guard, reached) => {
    const one = await sendAndFin(guard.port, post(NOTE));
    assert.deepEqual(statusesOf(one), ["202"], one);
    reached.length = 0;
    const three = await sendAndFin(guard.port, post(NOTE) + post(NOTE) + post(NOTE));
    assert.deepEqual(statusesOf(three), ["202", "202", "202"], three);
    assert.equal(reached.length, 3);
  });
});

Deno.test("guard --listen: malformed chunked framing is 400 (not 413); bodies of every method are capped at 32 MiB", async () => {
  await withGuard([], async (guard, reached) => {
    const bad = await sendAndFin(
      guard.port,
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        "Transfer-Encoding: chunked\r\n\r\n3 \r\n{}\n\r\n0\r\n\r\n",
    );
    assert.deepEqual(statusesOf(bad), ["400"], bad);
    const badPut = await sendAndFin(
      guard.port,
      "PUT /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    );
    assert.deepEqual(statusesOf(badPut), ["400"], badPut);
    reached.length = 0;
    // A declared length above the cap: refused before anything is forwarded.
    const declared = await sendAndFin(
      guard.port,
      `PUT /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n` +
        "x".repeat(1000),
    );
    assert.deepEqual(statusesOf(declared), ["413"], declared);
    assert.equal(reached.length, 0);
    // A chunked body that crosses the cap: 413, and the upstream never gets all of it.
    const chunk = "x".repeat(1024 * 1024);
    const head = "PUT /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(40) + "0\r\n\r\n";
    const big = await sendAndFin(guard.port, head + body);
    assert.deepEqual(statusesOf(big), ["413"], big.slice(0, 200));
    assert.ok(reached.every((r) => r.bytes <= 32 * 1024 * 1024), JSON.stringify(reached));
  });
});
