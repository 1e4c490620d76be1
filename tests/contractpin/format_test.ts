/**
 * The pure pieces: the SSE parser, the unified diff, contract rendering, and the report
 * formats (versioned JSON, SARIF 2.1.0, GitHub annotations).
 */
import assert from "node:assert/strict";
import { SseParser } from "../../lib/contractpin/mcp/sse.ts";
import { diffLines, unifiedDiff } from "../../lib/contractpin/diff.ts";
import { renderContract } from "../../lib/contractpin/snapshot.ts";
import {
  finishReport,
  formatGithub,
  formatHuman,
  formatSarif,
  lockLine,
  type ServerReport,
} from "../../lib/contractpin/report.ts";
import { collectPages } from "../../lib/contractpin/mcp/session.ts";
import { ServerFailure } from "../../lib/contractpin/mcp/errors.ts";
import { classifyMessage } from "../../lib/contractpin/mcp/jsonrpc.ts";
import { mapLimited } from "../../lib/contractpin/run.ts";
import type { JsonValue } from "../../lib/json/types.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

Deno.test("sse: events split across chunks, CRLF/CR endings, comments, multi-line data", () => {
  const p = new SseParser();
  const stream =
    ': keep-alive\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 7\rdata: x\r\rdata: y\n\n';
  const events = [];
  for (let i = 0; i < stream.length; i += 3) {
    events.push(...p.push(enc.encode(stream.slice(i, i + 3))));
  }
  assert.deepEqual(events.map((e) => [e.event, dec.decode(e.data), e.id]), [
    ["message", '{"a":\n1}', undefined],
    ["message", "x", "7"],
    ["message", "y", "7"],
  ]);
});

Deno.test("sse: other event types, empty data and a leading BOM", () => {
  const p = new SseParser();
  const events = p.push(
    enc.encode("\ufeffevent: ping\ndata: 1\n\nid: 1\ndata:\n\ndata:no-space\n\n"),
  );
  assert.deepEqual(events.map((e) => [e.event, dec.decode(e.data)]), [["ping", "1"], [
    "message",
    "",
  ], ["message", "no-space"]]);
  assert.deepEqual(new SseParser().push(enc.encode("data: unterminated")), []);
});

Deno.test("sse: data bytes are passed through unchanged (invalid UTF-8 reaches the strict parser)", () => {
  const events = new SseParser().push(
    new Uint8Array([...enc.encode("data: "), 0xff, 0xfe, 0x0a, 0x0a]),
  );
  assert.deepEqual([...events[0].data], [0xff, 0xfe]);
});

Deno.test("diff: edit script is minimal and reproduces both sides", () => {
  for (let t = 0; t < 300; t++) {
    const rnd = () => Array.from({ length: (t * 7) % 11 }, (_, i) => "abc"[(i * t + t) % 3]);
    const a = rnd(), b = rnd().reverse().concat(t % 2 ? ["z"] : []);
    const s = diffLines(a, b);
    assert.deepEqual(s.filter((l) => l.op !== "+").map((l) => l.text), a);
    assert.deepEqual(s.filter((l) => l.op !== "-").map((l) => l.text), b);
  }
  assert.deepEqual(diffLines(["a", "b", "c"], ["a", "x", "c"]).map((l) => l.op + l.text), [
    " a",
    "-b",
    "+x",
    " c",
  ]);
});

Deno.test("diff: unified hunks with context and correct ranges; equal texts give nothing", () => {
  const a = "1 2 3 4 5 6 7 8 9 10".split(" ");
  const b = "1 2 3 4 5 X 7 8 9 10".split(" ");
  assert.equal(
    unifiedDiff(a, b, "locked", "live"),
    "--- locked\n+++ live\n@@ -3,7 +3,7 @@\n 3\n 4\n 5\n-6\n+X\n 7\n 8\n 9\n",
  );
  assert.equal(unifiedDiff(a, a, "l", "r"), "");
  assert.equal(unifiedDiff([], ["x"], "l", "r"), "--- l\n+++ r\n@@ -0,0 +1,1 @@\n+x\n");
});

Deno.test("render: descriptions as text lines, schemas as sorted JSON, null kept visible", () => {
  assert.deepEqual(
    renderContract({
      name: "t",
      description: "one\r\ntwo",
      inputSchema: { b: 1, a: [] },
      annotations: { readOnlyHint: true },
    }),
    [
      "name: t",
      "description: |",
      "  one",
      "  two",
      "inputSchema:",
      "  {",
      '    "a": [],',
      '    "b": 1',
      "  }",
      "annotations:",
      "  {",
      '    "readOnlyHint": true',
      "  }",
    ],
  );
  assert.deepEqual(renderContract({ name: "t", description: null, inputSchema: null }), [
    "name: t",
    "description: null",
    "inputSchema: null",
  ]);
});

function server(partial: Partial<ServerReport>): ServerReport {
  return {
    name: "srv",
    transport: "stdio",
    status: "match",
    digest: { locked: "sha256:" + "a".repeat(64), live: "sha256:" + "a".repeat(64) },
    tool_count: { locked: 1, live: 1 },
    identity_changed: null,
    lock_inconsistent: false,
    tools: { drifted: [], added: [], removed: [], unchanged: 1 },
    error: null,
    notices: [],
    diffs: [],
    ...partial,
  };
}

const LOCK_TEXT = [
  "{",
  '  "servers": {',
  '    "srv": {',
  '      "tools": {',
  '        "echo": {',
  "        }",
  "      }",
  "    }",
  "  }",
  "}",
].join("\n");

Deno.test("report: exit code and summary follow §6", () => {
  assert.equal(finishReport("l", false, null, [server({})]).exit_code, 0);
  assert.equal(finishReport("l", false, null, []).exit_code, 0);
  for (const status of ["drift", "unreachable", "unpinned"] as const) {
    const r = finishReport("l", false, null, [server({}), server({ name: "b", status })]);
    assert.equal(r.exit_code, 1, status);
    assert.equal(r.result, "drift");
  }
  const r = finishReport("l", true, null, [
    server({ tools: { drifted: [], added: ["x"], removed: ["y"], unchanged: 2 } }),
  ]);
  assert.equal(r.format, "schemapin.contract.verify/1");
  assert.deepEqual(r.summary.tools, { drifted: 0, added: 1, removed: 1, unchanged: 2 });
});

Deno.test("report: SARIF 2.1.0 results point at the tool's line in the lock", () => {
  const report = finishReport("contractpin.lock", false, null, [
    server({
      status: "drift",
      tools: {
        drifted: [{
          name: "echo",
          locked: "sha256:1",
          live: "sha256:2",
          changed_fields: ["description"],
        }],
        added: ["new"],
        removed: [],
        unchanged: 0,
      },
    }),
  ]);
  const sarif = JSON.parse(formatSarif(report, LOCK_TEXT, "9.9.9"));
  assert.equal(sarif.version, "2.1.0");
  assert.equal(sarif.runs[0].tool.driver.version, "9.9.9");
  const results = sarif.runs[0].results;
  assert.deepEqual(results.map((r: { ruleId: string }) => r.ruleId), [
    "contractpin/tool-drifted",
    "contractpin/tool-added",
  ]);
  assert.equal(results[0].level, "error");
  assert.equal(results[0].locations[0].physicalLocation.region.startLine, 5);
  assert.equal(results[1].locations[0].physicalLocation.region.startLine, 3);
  assert.equal(results[0].locations[0].physicalLocation.artifactLocation.uri, "contractpin.lock");
  const ruleIds = sarif.runs[0].tool.driver.rules.map((r: { id: string }) => r.id);
  for (const r of results) assert.ok(ruleIds.includes(r.ruleId));
});

Deno.test("report: GitHub annotations escape properties and data", () => {
  const report = finishReport("a,b:c.lock", false, null, [
    server({ status: "unreachable", error: { kind: "timeout", message: "50%\nlost" } }),
  ]);
  const out = formatGithub(report, "");
  const first = out.split("\n")[0];
  assert.equal(
    first,
    "::error file=a%2Cb%3Ac.lock,line=1,title=contract server unreachable%3A srv::server srv could not be checked (timeout): 50%25%0Alost",
  );
  assert.match(out, /contract verify: drift — 0\/1 servers match \(exit 1\)/);
  assert.equal(lockLine(LOCK_TEXT, "missing"), 1);
});

Deno.test("report: human text lists identity changes and allowed additions", () => {
  const text = formatHuman(finishReport("contractpin.lock", true, null, [
    server({
      status: "drift",
      identity_changed: {
        locked: { transport: "stdio", command: ["npx", "-y", "pkg@1"] },
        live: { transport: "stdio", command: ["npx", "-y", "pkg@2"] },
      },
      tools: { drifted: [], added: ["n"], removed: [], unchanged: 1 },
    }),
  ]));
  assert.match(text, /identity changed: pinned {3}npx -y pkg@1/);
  assert.match(text, /configured npx -y pkg@2/);
  assert.match(text, /added {4}n \(allowed by --allow-new\)/);
  assert.match(text, /^FAIL: 0\/1 servers match/m);
});

Deno.test("pages: page cap, non-string and repeated cursors are failures", async () => {
  const endless = (c: string | undefined) =>
    Promise.resolve({ tools: [], nextCursor: String(Number(c ?? 0) + 1) });
  await assert.rejects(
    collectPages(endless, 5, "s"),
    (e) => e instanceof ServerFailure && /after 5/.test(e.message),
  );
  await assert.rejects(
    collectPages(() => Promise.resolve({ tools: [], nextCursor: 3 }), 5, "s"),
    (e) => e instanceof ServerFailure && /not a string/.test(e.message),
  );
  await assert.rejects(
    collectPages(
      (c) => Promise.resolve({ tools: [], nextCursor: c === "b" ? "a" : c === "a" ? "b" : "a" }),
      50,
      "s",
    ),
    (e) => e instanceof ServerFailure && /cursor loop/.test(e.message),
  );
  await assert.rejects(
    collectPages(() => Promise.resolve({ tools: {} }), 5, "s"),
    (e) => e instanceof ServerFailure && /no "tools" array/.test(e.message),
  );
  const pages: Record<string, JsonValue> = {
    first: { tools: [1], nextCursor: "n" },
    n: { tools: [2] },
  };
  const ok = await collectPages((c) => Promise.resolve(pages[c ?? "first"]), 2, "s");
  assert.deepEqual(ok, { tools: [1, 2], pages: 2 });
});

Deno.test("jsonrpc: messages that are not JSON-RPC 2.0 are malformed", () => {
  for (
    const bad of [
      [],
      { id: 1, result: {} },
      { jsonrpc: "1.0", id: 1, result: {} },
      { jsonrpc: "2.0" },
      { jsonrpc: "2.0", id: 1 },
      { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } },
      { jsonrpc: "2.0", id: 1, result: [] },
      { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "x" } },
      { jsonrpc: "2.0", id: 1, error: "x" },
    ]
  ) {
    assert.throws(
      () => classifyMessage(bad as never),
      (e) => e instanceof ServerFailure && e.kind === "malformed",
      JSON.stringify(bad),
    );
  }
  assert.equal(classifyMessage({ jsonrpc: "2.0", method: "notifications/x" }).type, "notification");
  assert.equal(classifyMessage({ jsonrpc: "2.0", id: "a", method: "ping" }).type, "request");
  assert.equal(
    classifyMessage({ jsonrpc: "2.0", id: 1, error: { code: -1, message: "m" } }).type,
    "error",
  );
});

Deno.test("concurrency: mapLimited never runs more than the limit and keeps order", async () => {
  let running = 0, peak = 0;
  const out = await mapLimited([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setTimeout(r, n * 3));
    running--;
    return n * 10;
  });
  assert.deepEqual(out, [50, 10, 40, 20, 30, 0, 60]);
  assert.equal(peak, 3);
  assert.deepEqual(await mapLimited([], 4, () => Promise.resolve(1)), []);
});
