/**
 * The pure pieces: the SSE parser, the unified diff, contract rendering, and the report
 * formats (versioned JSON, SARIF 2.1.0, GitHub annotations).
 */
import assert from "node:assert/strict";
import { formatSseEvent, type SseEvent, sseMessageData, SseParser } from "../../lib/mcp/sse.ts";
import { diffLines, unifiedDiff } from "../../lib/contractpin/diff.ts";
import { renderContract } from "../../lib/contractpin/snapshot.ts";
import { finishReport, type ServerReport } from "../../lib/contractpin/report.ts";
import { formatGithub } from "../../cli/contractpin/report_github.ts";
import { formatHuman } from "../../cli/contractpin/report_human.ts";
import { formatSarif } from "../../cli/contractpin/report_sarif.ts";
import { lockLine } from "../../cli/contractpin/report_lock_line.ts";
import { collectPages } from "../../lib/mcp/session.ts";
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { classifyMessage } from "../../lib/mcp/jsonrpc.ts";
import { mapLimited } from "../../lib/contractpin/run.ts";
import { mediaType } from "../../lib/mcp/http.ts";
import type { JsonValue } from "../../lib/json/types.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Feeds `stream` to a parser in pieces of `step` bytes; returns every block. */
function sseBlocks(stream: string | Uint8Array, step: number): SseEvent[] {
  const bytes = typeof stream === "string" ? enc.encode(stream) : stream;
  const p = new SseParser();
  const events: SseEvent[] = [];
  for (let i = 0; i < bytes.length; i += step) events.push(...p.push(bytes.subarray(i, i + step)));
  return events;
}

Deno.test("sse: events split across chunks, CRLF/CR endings, comments, multi-line data", () => {
  const stream =
    ': keep-alive\r\nevent: message\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 7\rdata: x\r\rdata: y\n\n';
  for (const step of [1, 2, 3, 5, 1000]) {
    const events = sseBlocks(stream, step);
    assert.deepEqual(events.map((e) => [e.event, dec.decode(e.data), e.id, e.lastEventId]), [
      ["message", '{"a":\n1}', undefined, ""],
      ["message", "x", "7", "7"],
      ["message", "y", undefined, "7"],
    ], `step ${step}`);
    // Every block keeps its bytes as received: together they are the stream.
    assert.equal(events.map((e) => dec.decode(e.raw)).join(""), stream, `step ${step}`);
  }
});

Deno.test("sse: a CRLF split between chunks is one line ending, not a blank line", () => {
  const events = sseBlocks("data: a\r\ndata: b\r\n\r\n", 8); // chunk ends after the first CR
  assert.deepEqual(events.map((e) => dec.decode(e.data)), ["a\nb"]);
});

Deno.test("sse: priming events (id and empty data) are blocks without a JSON-RPC message", () => {
  // What MCP 2025-11-25 servers send first on a POST stream (server-everything does).
  const events = sseBlocks('id: ev-1\ndata:\n\nid: ev-2\ndata: {"jsonrpc":"2.0","id":1}\n\n', 4);
  assert.equal(events.length, 2);
  assert.equal(events[0].dispatch, true); // WHATWG: a data line, even empty, dispatches
  assert.equal(events[0].data.length, 0);
  assert.equal(sseMessageData(events[0]), undefined);
  assert.equal(events[0].id, "ev-1");
  assert.equal(dec.decode(sseMessageData(events[1])!), '{"jsonrpc":"2.0","id":1}');
  assert.equal(events[1].lastEventId, "ev-2");
});

Deno.test("sse: field-only blocks, retry, other event types and comments carry no message", () => {
  const events = sseBlocks(
    "id: 5\nretry: 3000\n\n: ping\n\nevent: ping\ndata: 1\n\nretry: 1x\ndata: {}\n\n",
    3,
  );
  assert.deepEqual(
    events.map((e) => [e.dispatch, e.id, e.retry, e.event, sseMessageData(e) !== undefined]),
    [
      [false, "5", 3000, "message", false], // no data line: no event, but the ID is set
      [false, undefined, undefined, "message", false], // a comment-only block
      [true, undefined, undefined, "ping", false], // not a `message` event
      [true, undefined, undefined, "message", true], // an invalid retry is ignored
    ],
  );
  assert.equal(events[3].lastEventId, "5");
});

Deno.test("sse: an id with NUL is ignored; a line without colon is a field with empty value", () => {
  const events = sseBlocks("id: a\u0000b\ndata\ndata\n\n", 2);
  assert.equal(events[0].id, undefined);
  assert.equal(events[0].lastEventId, "");
  assert.equal(dec.decode(events[0].data), "\n"); // two empty data lines joined by LF
});

Deno.test("sse: a leading BOM is dropped even when split; only at the stream start", () => {
  for (const step of [1, 2, 3, 64]) {
    const events = sseBlocks("\ufeffdata: 1\n\n\ufeffdata: 2\n\n", step);
    assert.deepEqual(events.map((e) => dec.decode(e.data)), ["1", ""], `step ${step}`);
    // The second BOM is part of a field name, so that line is an unknown field and ignored
    assert.equal(events[1].dispatch, false, `step ${step}`);
  }
});

Deno.test("sse: nothing is returned before the blank line; buffered counts the open block", () => {
  const p = new SseParser();
  assert.deepEqual(p.push(enc.encode("data: unterminated")), []);
  assert.equal(p.buffered, 18);
  assert.deepEqual(p.push(enc.encode("\n")), []);
  assert.equal(p.push(enc.encode("\n")).length, 1);
  assert.equal(p.buffered, 0);
});

Deno.test("sse: data bytes are passed through unchanged (invalid UTF-8 reaches the strict parser)", () => {
  const events = new SseParser().push(
    new Uint8Array([...enc.encode("data: "), 0xff, 0xfe, 0x0a, 0x0a]),
  );
  assert.deepEqual([...events[0].data], [0xff, 0xfe]);
});

Deno.test("sse: formatSseEvent writes what the parser reads back", () => {
  const bytes = formatSseEvent({ data: '{"a":\n1}', event: "note", id: "9", retry: 50 });
  assert.equal(dec.decode(bytes), 'id: 9\nevent: note\nretry: 50\ndata: {"a":\ndata: 1}\n\n');
  const [e] = new SseParser().push(bytes);
  assert.deepEqual([e.event, e.id, e.retry, dec.decode(e.data)], ["note", "9", 50, '{"a":\n1}']);
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
    hidden_text: [],
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

Deno.test("report: human, GitHub and SARIF text never print a server's invisible or control characters", () => {
  // Everything below comes from the server under review: a tool name with a bidi override, a
  // diff line with a zero-width space and a terminal escape, a stderr tail with colour codes.
  const raw = ["\u202E", "\u200B", "\x1b", "\u{E0041}", "\uFE0F", "\r"];
  const report = finishReport("contractpin.lock", false, null, [
    server({
      status: "drift",
      tools: { drifted: [], added: ["ev\u202Eil"], removed: [], unchanged: 0 },
      diffs: [{
        tool: "ev\u202Eil",
        change: "added",
        text: "+  Adds\u200B numbers \x1b[31m\u{E0041}\u2764\uFE0F\r\n",
      }],
    }),
    server({
      name: "down",
      status: "unreachable",
      error: { kind: "exit", message: "exited 1", stderr: "\x1b[2Jcleared\n" },
    }),
  ]);
  const human = formatHuman(report);
  const github = formatGithub(report, LOCK_TEXT);
  const sarif = formatSarif(report, LOCK_TEXT, "1.0.0");
  // SARIF: the messages a code-scanning view shows (fingerprints are keys, kept exact).
  const sarifMessages = JSON.parse(sarif).runs[0].results.map((r: { message: { text: string } }) =>
    r.message.text
  ).join("\n");
  for (
    const [name, text] of [["human", human], ["github", github], ["sarif", sarifMessages]]
  ) {
    for (const ch of raw) {
      assert.ok(!text.includes(ch), `${name} holds U+${ch.codePointAt(0)!.toString(16)}`);
    }
  }
  assert.match(human, /added {4}ev\\u\{202E\}il/);
  assert.match(human, /Adds\\u\{200B\} numbers \\u\{001B\}\[31m\\u\{E0041\}/);
  assert.match(human, /\\u\{001B\}\[2Jcleared/);
  assert.match(github, /ev\\u\{202E\}il/);
  assert.ok(sarifMessages.includes("ev\\u{202E}il"), sarifMessages);
  // Visible text stays as it is.
  assert.match(human, /\u2764/);
});

/** Two hidden-text findings in tool echo of server srv (one in a key). */
function hidden(): ServerReport["hidden_text"] {
  return [
    {
      tool: "echo",
      pointer: "/description",
      in: "value",
      offset: 4,
      kind: "html_comment",
      message: "HTML comment (10 characters), hidden when rendered",
      excerpt: "<!-- x -->",
    },
    {
      tool: "echo",
      pointer: "/inputSchema/properties/a\u200Bb",
      in: "key",
      offset: 1,
      kind: "zero_width",
      message: "1 zero-width character (U+200B ZERO WIDTH SPACE)",
      excerpt: "\\u{200B}b",
    },
  ];
}

Deno.test("report: hidden text is a warning (exit 0) unless strict (exit 1), in every format", () => {
  const warn = finishReport("contractpin.lock", false, null, [server({ hidden_text: hidden() })]);
  assert.equal(warn.exit_code, 0);
  assert.equal(warn.result, "match");
  assert.equal(warn.strict_text, false);
  assert.equal(warn.summary.hidden_text, 2);
  const human = formatHuman(warn);
  assert.match(human, /^ {2}warning: hidden text in echo \/description @4 html_comment: HTML/m);
  assert.match(
    human,
    /^ {2}warning: hidden text in echo \/inputSchema\/properties\/a\\u\{200B\}b \(key\) @1/m,
  );
  assert.match(human, /^match: 1\/1 servers match .*; 2 hidden-text findings \(warnings\)$/m);
  const sarif = JSON.parse(formatSarif(warn, LOCK_TEXT, "1.0.0"));
  const results = sarif.runs[0].results;
  assert.deepEqual(results.map((r: { ruleId: string; level: string }) => [r.ruleId, r.level]), [
    ["contractpin/hidden-text", "warning"],
    ["contractpin/hidden-text", "warning"],
  ]);
  assert.equal(results[0].locations[0].physicalLocation.region.startLine, 5); // the echo entry
  assert.notEqual(
    results[0].partialFingerprints.contractpinTarget,
    results[1].partialFingerprints.contractpinTarget,
  );
  const rule = sarif.runs[0].tool.driver.rules.find((r: { id: string }) =>
    r.id === "contractpin/hidden-text"
  );
  assert.equal(rule.defaultConfiguration.level, "warning");
  const github = formatGithub(warn, LOCK_TEXT).split("\n");
  assert.match(
    github[0],
    /^::warning file=contractpin.lock,line=5,title=contract hidden text%3A srv\/echo::srv\/echo: hidden text at \/description, offset 4 \(html_comment\)/,
  );
  assert.match(github[1], /^::warning .*\(key\), offset 1 \(zero_width\)/);
  assert.match(
    github[2],
    /contract verify: match — 1\/1 servers match; 2 hidden-text findings \(warnings\) \(exit 0\)/,
  );

  const strict = finishReport(
    "contractpin.lock",
    false,
    null,
    [server({ hidden_text: hidden() })],
    true,
  );
  assert.equal(strict.exit_code, 1);
  assert.equal(strict.result, "drift");
  assert.equal(strict.servers[0].status, "match"); // the contracts still match the lock
  assert.match(formatHuman(strict), /^ {2}error: hidden text in echo/m);
  assert.match(formatHuman(strict), /^FAIL: .*2 hidden-text findings \(failing: --strict-text\)$/m);
  assert.equal(JSON.parse(formatSarif(strict, LOCK_TEXT, "1")).runs[0].results[0].level, "error");
  assert.match(
    formatGithub(strict, LOCK_TEXT),
    /^::error file=contractpin.lock,line=5,title=contract hidden text/,
  );
  // Strict without findings passes; no findings, no hidden-text lines at all.
  const clean = finishReport("contractpin.lock", false, null, [server({})], true);
  assert.equal(clean.exit_code, 0);
  assert.doesNotMatch(formatHuman(clean), /hidden|warning/);
  assert.doesNotMatch(formatGithub(clean, LOCK_TEXT), /::warning|::error/);
  assert.equal(JSON.parse(formatSarif(clean, LOCK_TEXT, "1")).runs[0].results.length, 0);
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

Deno.test("mediaType: parameters dropped, case folded (media types are case-insensitive), empty when absent", () => {
  const typed = (t?: string) =>
    new Response("", t === undefined ? {} : { headers: { "content-type": t } });
  assert.equal(mediaType(typed("Text/Event-Stream; charset=utf-8")), "text/event-stream");
  assert.equal(mediaType(typed(" application/JSON ")), "application/json");
  assert.equal(mediaType(new Response(null)), "");
  assert.notEqual(mediaType(typed("text/event-streamx")), "text/event-stream");
});
