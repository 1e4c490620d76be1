/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05): against the published server-everything in
 * `sse` mode (a peer nobody here wrote) — detected when Streamable HTTP is refused, or chosen
 * with `--sse` — and against a hand-written server for every way it can go wrong.
 */
import assert from "node:assert/strict";
import { runInProcess, withTempDir } from "./helpers.ts";
import { startEverythingHttp } from "../guard/helpers.ts";
import { connectLegacySse } from "../../lib/mcp/legacy_sse.ts";
import { listTools } from "../../lib/mcp/session.ts";
import { ServerFailure } from "../../lib/mcp/errors.ts";

Deno.test({
  name: "legacy SSE: server-everything (sse) is pinned and verified, detected or with --sse",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const server = await startEverythingHttp("sse");
    try {
      await withTempDir(async (dir) => {
        const lock = `${dir}/contractpin.lock`;
        const detected = await runInProcess([
          "contract",
          "init",
          "--lock",
          lock,
          "--no-snapshot",
          "--http",
          `everything=${server.url}`,
        ]);
        assert.equal(detected.code, 0, detected.stdout + detected.stderr);
        assert.match(detected.stderr, /legacy HTTP\+SSE transport \(2024-11-05\)/);
        const pinned = await Deno.readTextFile(lock);
        const chosen = await runInProcess([
          "contract",
          "init",
          "--force",
          "--lock",
          lock,
          "--no-snapshot",
          "--sse",
          `everything=${server.url}`,
        ]);
        assert.equal(chosen.code, 0, chosen.stdout + chosen.stderr);
        const strip = (t: string) => t.replace(/"generated_at": "[^"]+"/, "");
        assert.equal(strip(await Deno.readTextFile(lock)), strip(pinned), "same lock either way");
        assert.match(pinned, /"transport": "http"/);
        const verify = await runInProcess(["contract", "verify", "--lock", lock]);
        assert.equal(verify.code, 0, verify.stdout + verify.stderr);
        assert.match(verify.stdout, /ok +everything \(http\): \d+ unchanged/);
      });
    } finally {
      await server.stop();
    }
  },
});

/** A hand-written legacy server: GET /sse streams what `onOpen` writes; POSTs go to `onPost`. */
function legacyServer(handlers: {
  onOpen(send: (text: string) => void, close: () => void, origin: string): void;
  onPost?(message: { id?: number; method?: string }, send: (text: string) => void): Response;
  getStatus?: number;
  postStatus?: number;
}) {
  let send: (text: string) => void = () => {};
  const requests: string[] = [];
  // Open event streams, closed at stop: a graceful shutdown waits for every response to end,
  // and whether the server has noticed that a client went away is a matter of timing.
  const open = new Set<() => void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    requests.push(`${req.method} ${url.pathname}`);
    if (req.method === "GET" && url.pathname === "/sse") {
      if (handlers.getStatus) {
        return new Response("", {
          status: handlers.getStatus,
          headers: { location: "http://127.0.0.1:1/elsewhere" },
        });
      }
      const body = new ReadableStream<Uint8Array>({
        start(ctrl) {
          const close = () => {
            try {
              ctrl.close();
            } catch { /* closed already, or cancelled by the client */ }
          };
          open.add(close);
          send = (text) => {
            try {
              ctrl.enqueue(new TextEncoder().encode(text));
            } catch { /* the client went away */ }
          };
          handlers.onOpen(send, close, url.origin);
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    if (req.method === "POST" && url.pathname === "/messages") {
      const message = JSON.parse(await req.text());
      if (handlers.postStatus) return new Response("no", { status: handlers.postStatus });
      if (handlers.onPost) return handlers.onPost(message, send);
      if (message.method === "initialize") {
        send(`event: message\ndata: ${
          JSON.stringify({
            jsonrpc: "2.0",
            id: message.id,
            result: {
              protocolVersion: "2024-11-05",
              capabilities: { tools: {} },
              serverInfo: { name: "l", version: "0" },
            },
          })
        }\n\n`);
      } else if (message.method === "tools/list") {
        send(
          `event: message\ndata: ${
            JSON.stringify({
              jsonrpc: "2.0",
              id: message.id,
              result: { tools: [{ name: "t", inputSchema: { type: "object" } }] },
            })
          }\n\n`,
        );
      }
      return new Response("Accepted", { status: 202 });
    }
    return new Response("not found", { status: 404 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/sse`,
    requests,
    stop: () => {
      for (const close of open) close();
      return server.shutdown();
    },
  };
}

async function failureOf(p: Promise<unknown>): Promise<ServerFailure> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServerFailure) return e;
    throw e;
  }
  throw new Error("expected a failure");
}

async function listVia(url: string, connectTimeoutMs = 5000) {
  const t = await connectLegacySse({ url, source: "server l", connectTimeoutMs });
  try {
    return await listTools(t, { requestTimeoutMs: 2000 }, "server l");
  } finally {
    await t.close();
  }
}

Deno.test("legacy SSE: a well-behaved server lists its tools (relative endpoint, keep-alive comments)", async () => {
  const s = legacyServer({
    onOpen: (send) => send(": hi\n\nevent: endpoint\ndata: /messages?sessionId=1\n\n"),
  });
  try {
    const listing = await listVia(s.url);
    assert.deepEqual(listing.tools.map((t) => (t as { name: string }).name), ["t"]);
    assert.equal(listing.protocolVersion, "2024-11-05");
  } finally {
    await s.stop();
  }
});

Deno.test("legacy SSE: an endpoint on another origin is refused (credentials stay home)", async () => {
  const s = legacyServer({
    onOpen: (send) => send("event: endpoint\ndata: http://evil.example/messages\n\n"),
  });
  try {
    const f = await failureOf(listVia(s.url));
    assert.equal(f.kind, "http");
    assert.match(f.message, /endpoint event names another origin \(http:\/\/evil\.example\)/);
    assert.ok(!s.requests.some((r) => r.startsWith("POST")));
  } finally {
    await s.stop();
  }
});

Deno.test("legacy SSE: a message before the endpoint, or a second endpoint, is malformed", async () => {
  for (
    const open of [
      'event: message\ndata: {"jsonrpc":"2.0","method":"x"}\n\n',
      "event: endpoint\ndata: /messages\n\nevent: endpoint\ndata: /other\n\n",
    ]
  ) {
    const s = legacyServer({ onOpen: (send) => send(open) });
    try {
      const f = await failureOf(listVia(s.url));
      assert.equal(f.kind, "malformed", f.message);
    } finally {
      await s.stop();
    }
  }
});

Deno.test("legacy SSE: a stream that closes before the answer names what was waiting", async () => {
  const s = legacyServer({
    onOpen: (send) => send("event: endpoint\ndata: /messages\n\n"),
    onPost: (m, send) => {
      if (m.method === "initialize") {
        send(
          `event: message\ndata: ${
            JSON.stringify({
              jsonrpc: "2.0",
              id: m.id,
              result: { protocolVersion: "2024-11-05", capabilities: { tools: {} } },
            })
          }\n\n`,
        );
      }
      return new Response(null, { status: 202 });
    },
  });
  try {
    const f = await failureOf(listVia(s.url));
    assert.equal(f.kind, "timeout", f.message); // tools/list never answered
    assert.match(f.message, /no answer to tools\/list within 2 s/);
  } finally {
    await s.stop();
  }
  const closing = legacyServer({
    onOpen: (send, close) => {
      send("event: endpoint\ndata: /messages\n\n");
      setTimeout(close, 50);
    },
    onPost: () => new Response(null, { status: 202 }),
  });
  try {
    const f = await failureOf(listVia(closing.url));
    assert.equal(f.kind, "exited", f.message);
    assert.match(f.message, /closed the HTTP\+SSE event stream before answering initialize/);
  } finally {
    await closing.stop();
  }
});

Deno.test("legacy SSE: no endpoint event in time, a redirect, a refused POST, bad JSON", async () => {
  const silent = legacyServer({ onOpen: () => {} });
  try {
    const f = await failureOf(listVia(silent.url, 300));
    assert.equal(f.kind, "timeout");
    assert.match(f.message, /no endpoint event on the HTTP\+SSE stream within 0.3 s/);
  } finally {
    await silent.stop();
  }
  const moved = legacyServer({ onOpen: () => {}, getStatus: 302 });
  try {
    const f = await failureOf(listVia(moved.url));
    assert.equal(f.kind, "http");
    assert.match(f.message, /HTTP 302 redirect \(not followed/);
  } finally {
    await moved.stop();
  }
  const refusing = legacyServer({
    onOpen: (send) => send("event: endpoint\ndata: /messages\n\n"),
    postStatus: 500,
  });
  try {
    const f = await failureOf(listVia(refusing.url));
    assert.match(f.message, /the HTTP\+SSE endpoint answered HTTP 500/);
  } finally {
    await refusing.stop();
  }
  const garbage = legacyServer({
    onOpen: (send) => send("event: endpoint\ndata: /messages\n\n"),
    onPost: (_m, send) => {
      send('event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{},"result":{}}\n\n');
      return new Response(null, { status: 202 });
    },
  });
  try {
    const f = await failureOf(listVia(garbage.url));
    assert.equal(f.kind, "malformed");
    assert.match(f.message, /duplicate name "result"/);
  } finally {
    await garbage.stop();
  }
});

Deno.test("detection: 401 on the first POST is an auth failure, never a fallback to SSE", async () => {
  const requests: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    requests.push(req.method);
    return new Response("unauthorized", { status: 401 });
  });
  try {
    const r = await withTempDir((dir) =>
      runInProcess([
        "contract",
        "init",
        "--lock",
        `${dir}/l`,
        "--http",
        `a=http://127.0.0.1:${server.addr.port}/mcp`,
      ])
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout + r.stderr, /HTTP 401/);
    assert.deepEqual(requests, ["POST"]); // no GET for an event stream
  } finally {
    await server.shutdown();
  }
});

Deno.test("detection: 405 on the first POST falls back to the legacy stream on the same URL", async () => {
  const s = legacyServer({ onOpen: (send) => send("event: endpoint\ndata: /messages\n\n") });
  try {
    // The hand-written server answers POST /sse with 404: the client then opens GET /sse.
    const r = await withTempDir((dir) =>
      runInProcess([
        "contract",
        "init",
        "--lock",
        `${dir}/l`,
        "--no-snapshot",
        "--http",
        `l=${s.url}`,
      ])
    );
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // server/discover (the era probe), initialize, then the legacy stream.
    assert.deepEqual(s.requests.slice(0, 3), ["POST /sse", "POST /sse", "GET /sse"]);
  } finally {
    await s.stop();
  }
});
