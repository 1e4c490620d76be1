// The HTTP/1.1 layer of lib/http/server.ts in process: framing (pipelining, chunked bodies,
// Expect: 100-continue, HTTP/1.0), what it refuses (smuggling shapes, bad heads), responses
// written in one piece, a client that goes away, shutdown; and the bounded log.
import assert from "node:assert/strict";
import { listenHttp } from "../../lib/http/server.ts";
import { LineLog } from "../../cli/http/line_log.ts";
import { HttpConnection } from "../fixtures/network/limits.ts";

type Handler = (request: Request) => Response | Promise<Response>;

async function withServer(
  handler: Handler,
  fn: (port: number) => Promise<void>,
  limits = {},
) {
  const server = listenHttp({ hostname: "127.0.0.1", port: 0, handler, limits });
  try {
    await fn(server.addr.port);
  } finally {
    await server.shutdown(1000);
  }
}

/** Sends raw bytes on a fresh connection and returns everything until the server closes. */
async function raw(port: number, text: string, ms = 3000): Promise<string> {
  const c = await Deno.connect({ hostname: "127.0.0.1", port });
  await c.write(new TextEncoder().encode(text));
  let out = "";
  const buf = new Uint8Array(65536);
  const end = Date.now() + ms;
  try {
    while (Date.now() < end) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const n = await Promise.race([
        c.read(buf),
        new Promise<"t">((r) => timer = setTimeout(() => r("t"), end - Date.now())),
      ]).finally(() => clearTimeout(timer));
      if (n === "t" || n === null) break;
      out += new TextDecoder().decode(buf.subarray(0, n));
    }
  } catch { /* reset */ }
  c.close();
  return out;
}

const echo: Handler = async (req) => {
  const body = req.body ? await req.text() : "";
  const text = `${req.method} ${new URL(req.url).pathname} ${body}`;
  return new Response(text, { headers: { "content-length": String(text.length) } });
};

Deno.test("http server: keep-alive, pipelined requests answered in order, chunked and length bodies", async () => {
  await withServer(echo, async (port) => {
    const c = await HttpConnection.tcp(port);
    await c.send(
      "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello" +
        "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
        "3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n" +
        "GET /c HTTP/1.1\r\nHost: x\r\n\r\n",
    );
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push(new TextDecoder().decode((await c.response()).body));
    assert.deepEqual(bodies, ["POST /a hello", "POST /b abcde", "GET /c "]);
    c.close();
  });
});

Deno.test("http server: head and body of a response with a length go out in one write", async () => {
  await withServer(() =>
    new Response("x".repeat(900), {
      headers: { "content-length": "900", "content-type": "application/json" },
    }), async (port) => {
    const c = await Deno.connect({ hostname: "127.0.0.1", port });
    await c.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
    const buf = new Uint8Array(65536);
    const n = await c.read(buf); // one read gets it all: it was one write (loopback)
    const text = new TextDecoder().decode(buf.subarray(0, n!));
    assert.match(text, /^HTTP\/1\.1 200 OK\r\n/);
    assert.ok(text.endsWith("x".repeat(900)), `${n} bytes`);
    assert.match(text, /\r\ncontent-length: 900\r\n/);
    assert.match(text, /\r\ndate: /);
    c.close();
  });
});

Deno.test("http server: refuses smuggling shapes and malformed heads, then closes", async () => {
  await withServer(echo, async (port) => {
    const cases: [string, number][] = [
      [
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        400,
      ],
      ["POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400],
      ["POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400],
      ["POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501],
      ["POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400],
      ["GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 400],
      ["GET / HTTP/1.1\r\nBad Name: x\r\nHost: x\r\n\r\n", 400],
      ["GET / HTTP/1.1\r\n\r\n", 400], // no Host
      ["GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400],
      ["GET / HTTP/1.1\r\nHost: evil/path\r\n\r\n", 400],
      ["GET //evil.example/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 200], // a path, not a host
      ["GET nopath HTTP/1.1\r\nHost: x\r\n\r\n", 400],
      ["GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505],
      ["GET / HTTP/1.1\r\nHost: x\r\nExpect: magic\r\n\r\n", 417],
      ["TRACE / HTTP/1.1\r\nHost: x\r\n\r\n", 501],
      [`GET /${"a".repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
      ["POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400],
    ];
    for (const [request, status] of cases) {
      const out = await raw(port, request);
      const what = JSON.stringify(request.slice(0, 100));
      assert.match(out, new RegExp(`^HTTP/1\\.1 ${status} `), `${what}: ${out.slice(0, 200)}`);
      if (status !== 200) assert.match(out, /\r\nconnection: close\r\n/, what);
    }
    const path = await raw(
      port,
      "GET //evil.example/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert.match(path, /GET \/\/evil\.example\/x $/);
  });
});

Deno.test("http server: HTTP/1.0, Expect: 100-continue, HEAD, 304 and unread bodies", async () => {
  await withServer(async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/ignore") return new Response(null, { status: 204 });
    if (path === "/304") return new Response(null, { status: 304, headers: { etag: '"a"' } });
    if (path === "/stream") {
      return new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode("ab"));
            c.enqueue(new TextEncoder().encode("cd"));
            c.close();
          },
        }),
      );
    }
    return await echo(req);
  }, async (port) => {
    const old = await raw(port, "GET /x HTTP/1.0\r\n\r\n");
    assert.match(old, /^HTTP\/1\.1 200 OK\r\n[^]*connection: close\r\n\r\nGET \/x $/);
    const oldStream = await raw(port, "GET /stream HTTP/1.0\r\n\r\n");
    assert.match(oldStream, /\r\n\r\nabcd$/); // close-delimited, no chunked framing
    assert.doesNotMatch(oldStream, /transfer-encoding/);
    const c = await HttpConnection.tcp(port);
    await c.send(
      "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n",
    );
    const cont = await c.response(true);
    assert.equal(cont.status, 100);
    await c.send("ok");
    assert.equal(new TextDecoder().decode((await c.response()).body), "POST /x ok");
    // A body the handler never reads is skipped; the connection goes on.
    await c.send("POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nxxxx");
    assert.equal((await c.response()).status, 204);
    await c.send("HEAD /x HTTP/1.1\r\nHost: x\r\n\r\n");
    const head = await c.response(true);
    assert.equal(head.status, 200);
    assert.equal(head.headers.get("content-length"), "8"); // "HEAD /x "
    await c.send("GET /304 HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.equal((await c.response()).status, 304);
    const chunked = await c.get("/stream");
    assert.equal(chunked.headers.get("transfer-encoding"), "chunked");
    assert.equal(new TextDecoder().decode(chunked.body), "abcd");
    c.close();
  });
});

Deno.test("http server: a client that goes away cancels the response stream; shutdown waits at most its grace", async () => {
  let cancelled: (why: unknown) => void = () => {};
  const gone = new Promise((r) => cancelled = r);
  const server = listenHttp({
    hostname: "127.0.0.1",
    port: 0,
    handler: () =>
      new Response(
        new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode("data: hello\n\n"));
          },
          cancel(why) {
            cancelled(why);
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      ),
  });
  const c = await HttpConnection.tcp(server.addr.port);
  await c.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
  await new Promise((r) => setTimeout(r, 100));
  c.close();
  await gone;
  // A second stream stays open: shutdown closes it after the grace.
  const d = await HttpConnection.tcp(server.addr.port);
  await d.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
  await new Promise((r) => setTimeout(r, 100));
  const started = Date.now();
  await server.shutdown(300);
  assert.ok(Date.now() - started < 2000);
  assert.notEqual(await d.closedWithin(2000), undefined);
  d.close();
  assert.equal(server.stats().open, 0);
});

Deno.test("line log: never blocks, drops beyond its bound and says how many", async () => {
  let release: () => void = () => {};
  const written: string[] = [];
  const stalled = new Promise<void>((r) => release = r);
  let first = true;
  const log = new LineLog({
    name: "test",
    maxQueued: 100,
    write: async (t) => {
      if (first) {
        first = false;
        await stalled;
      }
      written.push(t);
    },
  });
  log.line("first\n"); // in the stalled write
  for (let i = 0; i < 50; i++) log.line(`line ${String(i).padStart(2, "0")}\n`); // 8 chars: 12 fit
  assert.equal(log.dropped, 38);
  assert.equal(await log.close(50), false); // stalled: close gives up in time
  release();
  await new Promise((r) => setTimeout(r, 10));
  log.line("later\n"); // the log moves again: the count is reported first
  assert.equal(await log.close(1000, "stopped\n"), true);
  assert.equal(
    written.join(""),
    "first\n" +
      Array.from({ length: 12 }, (_, i) => `line ${String(i).padStart(2, "0")}\n`).join("") +
      "test: 38 log lines dropped (the log was not keeping up)\nlater\n" +
      "stopped (38 log lines dropped)\n",
  );
});
