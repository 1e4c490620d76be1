/**
 * MCP 2025-11-25 event streams that the server ends early (SSE "polling"): the contract client
 * resumes with a GET and `Last-Event-ID` after the server's `retry:` delay, and fails with a
 * clear message when it cannot (no event ID, resumption refused, endless early ends).
 */
import assert from "node:assert/strict";
import { baseTools, runInProcess, startSdkHttp, withTempDir, writeTools } from "./helpers.ts";

Deno.test("contract init/verify resume a tools/list stream the SDK server ends early", async () => {
  await withTempDir(async (dir) => {
    await writeTools(`${dir}/tools.json`, baseTools());
    const log = `${dir}/requests.log`;
    const server = await startSdkHttp({ toolsFile: `${dir}/tools.json`, poll: true, log });
    try {
      const lock = `${dir}/contractpin.lock`;
      const init = await runInProcess([
        "contract",
        "init",
        "--lock",
        lock,
        "--no-snapshot",
        "--http",
        `poll=${server.url}`,
      ]);
      assert.equal(init.code, 0, init.stdout + init.stderr);
      assert.match(init.stdout, /pinned poll \(http\): 4 tools/);
      const verify = await runInProcess(["contract", "verify", "--lock", lock]);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
      assert.match(verify.stdout, /ok +poll \(http\): 4 unchanged/);
    } finally {
      await server.stop();
    }
    const requests = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
    const resumes = requests.filter((r) => r.method === "GET");
    assert.ok(resumes.length >= 2, JSON.stringify(requests)); // one per tools/list, init and verify
    for (const r of resumes) {
      assert.ok(typeof r.last_event_id === "string" && r.last_event_id !== "", JSON.stringify(r));
      assert.equal(r.protocol, "2025-11-25");
    }
  });
});

/**
 * A hand-written legacy server: `server/discover` is refused, `initialize` and the
 * notification are answered normally; each
 * tools/list stream (and each resumption GET) goes as `behaviour` says.
 */
function startServer(
  behaviour: { post: string; get: (lastEventId: string | null) => Response },
): { url: string; gets: (string | null)[]; stop: () => Promise<void> } {
  const gets: (string | null)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    if (req.method === "GET") {
      gets.push(req.headers.get("last-event-id"));
      return behaviour.get(req.headers.get("last-event-id"));
    }
    if (req.method === "DELETE") return new Response(null, { status: 204 });
    const message = JSON.parse(await req.text());
    if (message.method === "server/discover") {
      // A legacy server: the era probe is an unknown method (request 1; initialize is 2).
      return Response.json({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: "Method not found" },
      });
    }
    if (message.method === "initialize") {
      return Response.json({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "early-end", version: "0" },
        },
      });
    }
    if (message.id === undefined) return new Response(null, { status: 202 });
    return new Response(behaviour.post, { headers: { "content-type": "text/event-stream" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    gets,
    stop: () => server.shutdown(),
  };
}

const sse = (text: string) =>
  new Response(text, { headers: { "content-type": "text/event-stream" } });

async function initAgainst(url: string) {
  return await withTempDir((dir) =>
    runInProcess([
      "contract",
      "init",
      "--lock",
      `${dir}/contractpin.lock`,
      "--no-snapshot",
      "--timeout",
      "10",
      "--http",
      `early=${url}`,
    ])
  );
}

Deno.test("resumption: the answer arrives on the GET stream after the id of the early end", async () => {
  const answer = JSON.stringify({ jsonrpc: "2.0", id: 3, result: { tools: [] } });
  const s = startServer({
    post: "id: ev-1\nretry: 10\ndata:\n\n",
    get: (id) =>
      id === "ev-1" ? sse(`id: ev-2\ndata: ${answer}\n\n`) : new Response("", { status: 400 }),
  });
  try {
    const r = await initAgainst(s.url);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.deepEqual(s.gets, ["ev-1"]);
  } finally {
    await s.stop();
  }
});

Deno.test("resumption: a stream that ends without any event ID is a failure, no GET", async () => {
  const s = startServer({ post: ": nothing\n\n", get: () => sse("") });
  try {
    const r = await initAgainst(s.url);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr + r.stdout, /tools\/list: the event stream ended before the response/);
    assert.deepEqual(s.gets, []);
  } finally {
    await s.stop();
  }
});

Deno.test("resumption: a refused GET is a failure that names Last-Event-ID and the status", async () => {
  const s = startServer({
    post: "id: 1\ndata:\n\n",
    get: () => new Response("no", { status: 405 }),
  });
  try {
    const r = await initAgainst(s.url);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr + r.stdout, /resuming the event stream \(Last-Event-ID\) got HTTP 405/);
    assert.deepEqual(s.gets, ["1"]);
  } finally {
    await s.stop();
  }
});

Deno.test("resumption: a GET answered with JSON instead of an event stream is a failure", async () => {
  const s = startServer({ post: "id: 1\ndata:\n\n", get: () => Response.json({}) });
  try {
    const r = await initAgainst(s.url);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stderr + r.stdout,
      /Last-Event-ID\) got HTTP 200 with Content-Type "application\/json"/,
    );
  } finally {
    await s.stop();
  }
});

Deno.test("resumption: a server that always ends early is given up after 8 resumptions", async () => {
  let n = 0;
  const s = startServer({
    post: "id: 0\nretry: 1\ndata:\n\n",
    get: () => sse(`id: ${++n}\nretry: 1\ndata:\n\n`),
  });
  try {
    const r = await initAgainst(s.url);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr + r.stdout, /ended before the response \(after 8 resumptions\)/);
    assert.deepEqual(s.gets, ["0", "1", "2", "3", "4", "5", "6", "7"]);
  } finally {
    await s.stop();
  }
});

Deno.test("resumption: a long retry: is capped and the request timeout still applies", async () => {
  const s = startServer({ post: "id: 1\nretry: 999999999\ndata:\n\n", get: () => sse("") });
  try {
    const started = Date.now();
    const r = await withTempDir((dir) =>
      runInProcess([
        "contract",
        "init",
        "--lock",
        `${dir}/contractpin.lock`,
        "--no-snapshot",
        "--timeout",
        "1",
        "--http",
        `early=${s.url}`,
      ])
    );
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr + r.stdout, /no answer to tools\/list within 1 s/);
    assert.ok(Date.now() - started < 4_000, "the 1 s timeout ended the wait");
    assert.deepEqual(s.gets, []);
  } finally {
    await s.stop();
  }
});
