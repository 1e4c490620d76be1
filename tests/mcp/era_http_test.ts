/**
 * The 2026-07-28 Streamable HTTP rules of the contract client, against a scripted HTTP server
 * that records what it receives: the request headers of modern POSTs (MCP-Protocol-Version,
 * Mcp-Method, no session id, no notifications/initialized), and the backward-compatibility
 * rule — a 400 with a recognized modern JSON-RPC error is modern, any other 4xx falls back.
 */
import assert from "node:assert/strict";
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { enumerateTarget } from "../../lib/contractpin/live.ts";
import { connectHttp } from "../../lib/mcp/http.ts";
import { listHttp } from "./helpers.ts";
import { MODERN_PROTOCOL_VERSION } from "../../lib/mcp/era.ts";

type Obj = Record<string, unknown>;
interface Seen {
  method: string;
  headers: Headers;
  body: Obj;
}

const PV = "io.modelcontextprotocol/protocolVersion";
const json = (v: unknown, status = 200) =>
  new Response(JSON.stringify(v), { status, headers: { "content-type": "application/json" } });

/** Serves `answer` on 127.0.0.1 while `f` runs; returns what the server saw. */
async function withServer(
  answer: (body: Obj, headers: Headers) => Response,
  f: (url: string) => Promise<void>,
): Promise<Seen[]> {
  const seen: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    if (req.method !== "POST") return new Response(null, { status: 405 });
    const body = await req.json() as Obj;
    seen.push({ method: String(body.method), headers: req.headers, body });
    return answer(body, req.headers);
  });
  try {
    await f(`http://127.0.0.1:${server.addr.port}/mcp`);
  } finally {
    await server.shutdown();
  }
  return seen;
}

const tools = [{ name: "t", description: "d", inputSchema: { type: "object" } }];

/** A modern-only server that checks the headers against the body like a strict server. */
function modernServer(body: Obj, headers: Headers): Response {
  const id = body.id;
  const params = (body.params ?? {}) as Obj;
  const meta = (params._meta ?? {}) as Obj;
  if (
    headers.get("mcp-protocol-version") !== meta[PV] ||
    headers.get("mcp-method") !== body.method
  ) {
    return json({ jsonrpc: "2.0", id, error: { code: -32020, message: "Header mismatch" } }, 400);
  }
  if (meta[PV] !== MODERN_PROTOCOL_VERSION) {
    return json({
      jsonrpc: "2.0",
      id,
      error: { code: -32022, message: "Unsupported", data: { supported: ["2026-07-28"] } },
    }, 400);
  }
  const done = { resultType: "complete", ttlMs: 0, cacheScope: "public" };
  switch (body.method) {
    case "server/discover":
      return json({
        jsonrpc: "2.0",
        id,
        result: {
          ...done,
          supportedVersions: ["2026-07-28"],
          capabilities: { tools: {}, prompts: {} },
          instructions: "be nice",
        },
      });
    case "tools/list":
      return json({ jsonrpc: "2.0", id, result: { ...done, tools } });
    case "prompts/list":
      return json({
        jsonrpc: "2.0",
        id,
        result: { ...done, prompts: [{ name: "p", description: "x", arguments: [] }] },
      });
    default:
      return json({ jsonrpc: "2.0", id, error: { code: -32601, message: "not found" } }, 404);
  }
}

Deno.test("modern HTTP: every POST carries the 2026-07-28 headers and _meta, no session", async () => {
  let listing;
  const seen = await withServer(modernServer, async (url) => {
    listing = await listHttp(url);
  });
  assert.equal(listing!.era, "modern");
  assert.equal(listing!.instructions, "be nice");
  assert.deepEqual(seen.map((s) => s.method), ["server/discover", "tools/list", "prompts/list"]);
  for (const s of seen) {
    assert.equal(s.headers.get("mcp-protocol-version"), "2026-07-28");
    assert.equal(s.headers.get("mcp-method"), s.method);
    assert.equal(s.headers.get("mcp-session-id"), null);
    assert.equal(s.headers.get("mcp-name"), null); // list methods name nothing
    assert.equal(((s.body.params as Obj)._meta as Obj)[PV], "2026-07-28");
  }
});

Deno.test("modern HTTP: Mcp-Name on tools/call, Base64 for a non-ASCII name", async () => {
  const seen = await withServer(
    (body) => json({ jsonrpc: "2.0", id: body.id, result: { content: [] } }),
    async (url) => {
      const t = connectHttp({ url });
      try {
        const meta = { _meta: { [PV]: "2026-07-28" } };
        await t.request("tools/call", { name: "add", arguments: {}, ...meta }, 5000);
        await t.request("prompts/get", { name: "grüße", ...meta }, 5000);
        await t.request("resources/read", { uri: "file:///a b", ...meta }, 5000);
        await t.request("tools/call", { name: "legacy" }, 5000); // no _meta: legacy headers
      } finally {
        await t.close();
      }
    },
  );
  assert.deepEqual(seen.map((s) => s.headers.get("mcp-name")), [
    "add",
    "=?base64?Z3LDvMOfZQ==?=",
    "file:///a b",
    null,
  ]);
  assert.equal(seen[3].headers.get("mcp-method"), null);
});

Deno.test("modern HTTP: 400 with -32022 modern-only → error, no initialize, no HTTP+SSE", async () => {
  const seen = await withServer(
    (body) =>
      json({
        jsonrpc: "2.0",
        id: body.id,
        error: { code: -32022, message: "Unsupported", data: { supported: ["2027-01-01"] } },
      }, 400),
    async (url) => {
      await assert.rejects(
        enumerateTarget({ name: "s", transport: "http", url, headers: [] }),
        (e) => e instanceof ServerFailure && /speaks only 2027-01-01/.test(e.message),
      );
    },
  );
  assert.deepEqual(seen.map((s) => s.method), ["server/discover"]);
});

Deno.test("modern HTTP: 400 with HeaderMismatch (-32020) is modern: error, no fallback", async () => {
  const seen = await withServer(
    (body) =>
      json({ jsonrpc: "2.0", id: body.id, error: { code: -32020, message: "mismatch" } }, 400),
    async (url) => {
      await assert.rejects(
        listHttp(url),
        (e) => e instanceof ServerFailure && /modern but refused/.test(e.message),
      );
    },
  );
  assert.deepEqual(seen.map((s) => s.method), ["server/discover"]);
});

/** A legacy server: refuses anything before initialize with `refusal`. */
function legacyServer(refusal: (id: unknown) => Response) {
  let initialized = false;
  return (body: Obj): Response => {
    if (body.method === "initialize") {
      initialized = true;
      return json({
        jsonrpc: "2.0",
        id: body.id,
        result: {
          protocolVersion: "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "legacy-http", version: "0" },
          instructions: "legacy instructions",
        },
      });
    }
    if (body.id === undefined) return new Response(null, { status: 202 });
    if (!initialized) return refusal(body.id);
    return json({ jsonrpc: "2.0", id: body.id, result: { tools } });
  };
}

for (
  const [what, refusal] of [
    ["400 without a body", () => new Response(null, { status: 400 })],
    [
      "400 with a -32000 JSON-RPC error",
      (id: unknown) =>
        json({ jsonrpc: "2.0", id, error: { code: -32000, message: "No session" } }, 400),
    ],
    ["404 text", () => new Response("not found", { status: 404 })],
    [
      "200 with -32601",
      (id: unknown) =>
        json({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } }),
    ],
  ] as [string, (id: unknown) => Response][]
) {
  Deno.test(`legacy HTTP: discover answered ${what} → initialize on the same URL`, async () => {
    let listing;
    const seen = await withServer(legacyServer(refusal), async (url) => {
      listing = await listHttp(url);
    });
    assert.equal(listing!.era, "legacy");
    assert.equal(listing!.protocolVersion, "2025-06-18");
    assert.equal(listing!.instructions, "legacy instructions");
    assert.deepEqual(seen.map((s) => s.method), [
      "server/discover",
      "initialize",
      "notifications/initialized",
      "tools/list",
    ]);
    // The legacy requests carry no modern headers; the negotiated version after initialize.
    assert.equal(seen[1].headers.get("mcp-method"), null);
    assert.equal(seen[3].headers.get("mcp-protocol-version"), "2025-06-18");
  });
}

Deno.test("modern HTTP: 500 on discover propagates (never an era verdict)", async () => {
  const seen = await withServer(
    () => new Response("boom", { status: 500 }),
    async (url) => {
      await assert.rejects(
        listHttp(url),
        (e) => e instanceof ServerFailure && e.kind === "http" && e.httpStatus === 500,
      );
    },
  );
  assert.deepEqual(seen.map((s) => s.method), ["server/discover"]);
});

Deno.test("modern HTTP: a connection failure propagates", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  await assert.rejects(
    listHttp(`http://127.0.0.1:${port}/mcp`),
    (e) => e instanceof ServerFailure && e.kind === "connect",
  );
});

Deno.test("modern HTTP: a stream ended early is not resumed (2026-07-28 has no resumption)", async () => {
  let gets = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    if (req.method === "GET") gets++;
    return new Response("id: ev-1\nretry: 10\ndata:\n\n", {
      headers: { "content-type": "text/event-stream" },
    });
  });
  try {
    await assert.rejects(
      listHttp(`http://127.0.0.1:${server.addr.port}/mcp`),
      (e) => e instanceof ServerFailure && /not resumable/.test(e.message),
    );
    assert.equal(gets, 0);
  } finally {
    await server.shutdown();
  }
});
