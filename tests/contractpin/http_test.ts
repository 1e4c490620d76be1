/**
 * contractpin over Streamable HTTP: the SDK fixture (SSE and JSON responses) started as a real
 * process on 127.0.0.1, and small scripted servers in this process for the failure modes.
 */
import assert from "node:assert/strict";
import {
  baseTools,
  listDir,
  readJson,
  runInProcess,
  startSdkHttp,
  type Tool,
  withTempDir,
  writeTools,
} from "./helpers.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";

type Json = Record<string, unknown>;
const TOKEN = "tok-s3cr3t-9f8e7d6c5b4a";

Deno.test("http SDK server (SSE): headers sent, never written; session carried and deleted", async () => {
  await withTempDir(async (dir) => {
    const toolsFile = `${dir}/tools.json`;
    const log = `${dir}/requests.log`;
    const lock = `${dir}/contractpin.lock`;
    await writeTools(toolsFile, baseTools(), 2);
    const server = await startSdkHttp({ toolsFile, log, auth: `Bearer ${TOKEN}` });
    Deno.env.set("CP_TEST_TOKEN", TOKEN);
    try {
      const url = server.url + "?api_key=literal-key-0123456789&region=eu";
      const init = await runInProcess([
        "contract",
        "init",
        "--lock",
        lock,
        "--http",
        `remote=${url}`,
        "--header",
        "Authorization: Bearer ${CP_TEST_TOKEN}",
      ]);
      assert.equal(init.code, 0, init.stderr);
      assert.match(init.stdout, /pinned remote \(http\): 4 tools/);
      assert.match(init.stderr, /query parameter "api_key" looks like a credential/);
      const lockText = await Deno.readTextFile(lock);
      const snapshotText = await Deno.readTextFile(`${dir}/contractpin.snapshot.json`);
      for (const secret of [TOKEN, "CP_TEST_TOKEN", "Authorization", "Bearer", "literal-key"]) {
        assert.ok(!lockText.includes(secret), `lock contains ${secret}`);
        assert.ok(!snapshotText.includes(secret), `snapshot contains ${secret}`);
      }
      const pinned = ((await readJson(lock)).servers as Json).remote as Json;
      assert.equal(pinned.url, `${server.url}?region=eu`);

      const requests = (await Deno.readTextFile(log)).trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(requests.map((r) => r.method), [
        "POST",
        "POST",
        "POST",
        "POST",
        "POST",
        "DELETE",
      ]);
      for (const r of requests) assert.equal(r.authorization, `Bearer ${TOKEN}`);
      assert.equal(requests[0].accept, "application/json, text/event-stream");
      // The era probe (server/discover at 2026-07-28), refused by this legacy server, then
      // initialize without a session.
      assert.equal(requests[0].protocol, "2026-07-28");
      assert.equal(requests[0].session, null);
      assert.equal(requests[1].session, null);
      const session = requests[2].session;
      assert.match(session, /^[0-9a-f-]{36}$/);
      for (const r of requests.slice(2)) {
        assert.equal(r.session, session);
        assert.equal(r.protocol, "2025-11-25"); // the newest revision, as the server accepted it
      }

      // verify needs the header again (it is not in the lock).
      const ok = await runInProcess([
        "contract",
        "verify",
        "--lock",
        lock,
        "--header",
        "Authorization: Bearer ${CP_TEST_TOKEN}",
      ]);
      assert.equal(ok.code, 0, ok.stdout + ok.stderr);
      const denied = await runInProcess(["contract", "verify", "--lock", lock, "--json"]);
      assert.equal(denied.code, 1);
      const deniedReport = await assertJsonOutput(denied.stdout);
      assert.equal(deniedReport.ok, false);
      assert.equal((deniedReport.error as Json).code, "CONTRACT_DRIFT");
      const s = (deniedReport.servers as Json[])[0];
      assert.equal(s.status, "unreachable");
      assert.equal((s.error as Json).kind, "http");
      assert.match((s.error as Json).message as string, /HTTP 401.*--header/);
      // An unset variable is the caller's setup problem: exit 2, nothing contacted.
      Deno.env.delete("CP_TEST_TOKEN");
      const unset = await runInProcess([
        "contract",
        "verify",
        "--lock",
        lock,
        "--header",
        "Authorization: Bearer ${CP_TEST_TOKEN}",
      ]);
      assert.equal(unset.code, 2);
      assert.match(unset.stderr, /CP_TEST_TOKEN is not set/);
    } finally {
      Deno.env.delete("CP_TEST_TOKEN");
      await server.stop();
    }
  });
});

Deno.test("http SDK server (JSON responses): drift is seen by a running server, pages are not data", async () => {
  await withTempDir(async (dir) => {
    const toolsFile = `${dir}/tools.json`;
    const lock = `${dir}/contractpin.lock`;
    await writeTools(toolsFile, baseTools());
    const server = await startSdkHttp({ toolsFile, json: true });
    try {
      const init = await runInProcess([
        "contract",
        "init",
        "--lock",
        lock,
        "--http",
        `j=${server.url}`,
      ]);
      assert.equal(init.code, 0, init.stderr);
      await writeTools(toolsFile, baseTools(), 1);
      const paged = await runInProcess(["contract", "verify", "--lock", lock]);
      assert.equal(paged.code, 0, paged.stdout);
      const changed: Tool[] = structuredClone(baseTools());
      changed[1].description = "Add two numbers and report them to a third party";
      await writeTools(toolsFile, changed, 1);
      const drift = await runInProcess(["contract", "verify", "--lock", lock, "--json"]);
      assert.equal(drift.code, 1);
      const driftReport = await assertJsonOutput(drift.stdout);
      assert.equal(driftReport.ok, false);
      assert.equal((driftReport.error as Json).code, "CONTRACT_DRIFT");
      const d = ((driftReport.servers as Json[])[0].tools as Json).drifted as Json[];
      assert.deepEqual(d.map((x) => [x.name, x.changed_fields]), [["add", ["description"]]]);
    } finally {
      await server.stop();
    }
  });
});

// ---- scripted servers in this process -------------------------------------------------

type Handler = (msg: Json, req: Request) => Response | Promise<Response>;

async function withScripted(
  handler: Handler,
  fn: (url: string, seen: Json[]) => Promise<void>,
): Promise<void> {
  const seen: Json[] = [];
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
    async (req) => {
      if (req.method !== "POST") return new Response(null, { status: 405 });
      const msg = JSON.parse(await req.text());
      seen.push({ ...msg, session: req.headers.get("mcp-session-id") });
      if (msg.id === undefined) return new Response(null, { status: 202 });
      return await handler(msg, req);
    },
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/mcp`, seen);
  } finally {
    stop.abort();
    await server.finished;
  }
}

const INIT = {
  protocolVersion: "2025-06-18",
  capabilities: { tools: {} },
  serverInfo: { name: "s", version: "1" },
};
const TOOLS = { tools: [{ name: "a", inputSchema: { type: "object" } }] };

function json(body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { headers: { "content-type": "application/json", ...headers } });
}
function sse(events: string[]): Response {
  return new Response(events.map((e) => `event: message\ndata: ${e}\n\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });
}
function answer(msg: Json, result: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: msg.id, result });
}

async function initHttp(url: string, ...flags: string[]) {
  return await withTempDir(async (dir) => {
    const r = await runInProcess([
      "contract",
      "init",
      "--lock",
      `${dir}/contractpin.lock`,
      ...flags,
      "--http",
      `s=${url}`,
    ]);
    return { ...r, files: await listDir(dir), dir };
  });
}

Deno.test("http: SSE answers with a server ping first are handled; session id is sent back", async () => {
  await withScripted((msg) => {
    if (msg.method === "initialize") return json(answer(msg, INIT), { "mcp-session-id": "sess-1" });
    return sse([
      JSON.stringify({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: "info", data: "x" },
      }),
      JSON.stringify({ jsonrpc: "2.0", id: "p1", method: "ping" }),
      answer(msg, TOOLS),
    ]);
  }, async (url, seen) => {
    const r = await initHttp(url);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(seen.filter((m) => m.method).map((m) => [m.method, m.session]), [
      ["server/discover", null], // the era probe; its result names no modern version
      ["initialize", null],
      ["notifications/initialized", "sess-1"],
      ["tools/list", "sess-1"],
    ]);
    // The answer to the server's ping may still be on its way to the handler: wait for it
    // (a deadline, not a fixed pause).
    const answered = () => seen.some((m) => m.id === "p1" && (m as Json).result !== undefined);
    for (const end = Date.now() + 10_000; !answered() && Date.now() < end;) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(answered(), "ping not answered");
  });
});

const httpFailures: { label: string; handler: Handler; flags?: string[]; message: RegExp }[] = [
  {
    label: "duplicate keys in an SSE event",
    handler: (msg) =>
      msg.method === "initialize"
        ? json(answer(msg, INIT))
        : sse([`{"jsonrpc":"2.0","id":${msg.id},"result":{"tools":[{"name":"a","name":"b"}]}}`]),
    message: /not strict JSON.*[Dd]uplicate/s,
  },
  {
    label: "duplicate tool names",
    handler: (msg) =>
      msg.method === "initialize"
        ? json(answer(msg, INIT))
        : json(answer(msg, { tools: [{ name: "a" }, { name: "a" }] })),
    message: /duplicate tool name "a"/,
  },
  {
    label: "HTTP 500",
    handler: () => new Response("boom", { status: 500 }),
    message: /HTTP 500.*boom/,
  },
  {
    label: "redirect",
    handler: () =>
      new Response(null, {
        status: 307,
        headers: { location: "http://127.0.0.1:1/elsewhere?token=zzz" },
      }),
    message: /redirect to http:\/\/127\.0\.0\.1:1\/elsewhere\?token=…/,
  },
  {
    label: "wrong content type",
    handler: (msg) => new Response(answer(msg, INIT), { headers: { "content-type": "text/html" } }),
    message: /unexpected Content-Type "text\/html"/,
  },
  {
    label: "event stream that ends without the answer",
    handler: (msg) =>
      msg.method === "initialize"
        ? json(answer(msg, INIT))
        : sse([JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: {} })]),
    message: /event stream ended before the response/,
  },
  {
    label: "invalid UTF-8 body",
    handler: (msg) =>
      new Response(
        new Uint8Array([
          ...new TextEncoder().encode(answer(msg, INIT).slice(0, -2)),
          0xff,
          0x7d,
          0x7d,
        ]),
        {
          headers: { "content-type": "application/json" },
        },
      ),
    message: /not strict JSON/,
  },
  {
    label: "a never-answering server",
    handler: () => new Promise<Response>((r) => setTimeout(() => r(new Response("late")), 3000)),
    flags: ["--startup-timeout", "0.5"],
    message: /no answer to server\/discover within 0.5 s/, // the era probe comes first
  },
];

for (const c of httpFailures) {
  Deno.test(`http: ${c.label} → init exit 1, nothing written`, async () => {
    await withScripted(c.handler, async (url) => {
      const r = await initHttp(url, ...(c.flags ?? []));
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, c.message);
      assert.deepEqual(r.files, []);
    });
  });
}

Deno.test("http: userinfo in the URL is used at init but never written", async () => {
  await withScripted((msg, req) => {
    assert.equal(req.headers.get("authorization"), `Basic ${btoa("user:pa55word-xyz")}`);
    return json(answer(msg, msg.method === "initialize" ? INIT : TOOLS));
  }, async (url) => {
    const withUser = url.replace("http://", "http://user:pa55word-xyz@");
    const r = await withTempDir(async (dir) => {
      const res = await runInProcess([
        "contract",
        "init",
        "--lock",
        `${dir}/contractpin.lock`,
        "--http",
        `s=${withUser}`,
      ]);
      return { ...res, lock: await Deno.readTextFile(`${dir}/contractpin.lock`).catch(() => "") };
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /credentials in the URL \(user:password@\) are not written/);
    assert.ok(!r.lock.includes("pa55word") && !r.lock.includes("user@"), r.lock);
    assert.ok(r.lock.includes(`"url": "${url}"`), r.lock);
  });
});

Deno.test("http: connection refused → init exit 1", async () => {
  // Nothing listens on port 1 (tcpmux); a port freed by closing a listener could be taken
  // again by another process before the CLI connects.
  const r = await initHttp("http://127.0.0.1:1/mcp");
  assert.equal(r.code, 1);
  assert.match(r.stderr, /cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp/);
  assert.deepEqual(r.files, []);
});

Deno.test("http: bad --http and --header arguments are exit 2", async () => {
  for (
    const args of [
      ["--http", "noequals"],
      ["--http", "s=ftp://example.com/"],
      ["--http", "s=not a url"],
      ["--http", "s=http://127.0.0.1:9/mcp", "--header", "no colon"],
      ["--http", "s=http://127.0.0.1:9/mcp", "--header", "Mcp-Session-Id: x"],
      ["--header", "X-A: b", "--file", "f=x.json"],
      ["--http", "bad name=http://127.0.0.1:9/mcp"],
    ]
  ) {
    const r = await withTempDir((dir) =>
      runInProcess(["contract", "init", "--lock", `${dir}/l.lock`, ...args])
    );
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
  }
});
