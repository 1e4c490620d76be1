// The framing rules of lib/http/framing.ts without sockets: request heads, chunk-size lines,
// trailer fields. Expectations from RFC 9112 / RFC 9110 and from what llhttp does (the
// differential, tests/http/framing_differential_test.ts, checks the same against Node).
import assert from "node:assert/strict";
import {
  checkHeadStart,
  checkTrailerLine,
  FramingError,
  parseChunkSizeLine,
  parseRequestHead,
  stripOws,
} from "../../lib/http/framing.ts";

function refused(fn: () => unknown, status: number, what: string): void {
  assert.throws(fn, (e) => e instanceof FramingError && e.status === status, what);
}

const head = (...fields: string[]) => ["POST /mcp HTTP/1.1", "Host: x", ...fields].join("\r\n");

Deno.test("framing: optional whitespace is SP and HTAB only, never U+00A0", () => {
  assert.equal(stripOws(" \t a b \t "), "a b");
  assert.equal(stripOws("\u00a0chunked\u00a0"), "\u00a0chunked\u00a0");
  assert.equal(stripOws("\u000bx"), "\u000bx");
});

Deno.test("framing: request heads that are accepted, and what they mean", () => {
  const h = parseRequestHead(head("Content-Length: 005", "X-A:\tb c\t", "Connection: close"));
  assert.equal(h.method, "POST");
  assert.equal(h.target, "/mcp");
  assert.equal(h.contentLength, 5);
  assert.equal(h.keepAlive, false);
  assert.deepEqual(h.fields[2], ["X-A", "b c"]);
  assert.equal(parseRequestHead(head("Transfer-Encoding:  Chunked ")).contentLength, -1);
  assert.equal(parseRequestHead("OPTIONS * HTTP/1.1\r\nHost: x").target, "*");
  assert.equal(parseRequestHead("GET http://x/a?b HTTP/1.1\r\nHost: y").target, "http://x/a?b");
  assert.equal(parseRequestHead("GET / HTTP/1.0").keepAlive, false);
  assert.equal(parseRequestHead("GET / HTTP/1.0\r\nConnection: keep-alive").keepAlive, true);
  const upgrade = parseRequestHead(head("Upgrade: websocket", "Connection: Upgrade"));
  assert.equal(upgrade.upgrade, true);
  assert.equal(upgrade.keepAlive, false); // answered, then closed: nothing after it is parsed
  assert.equal(parseRequestHead(head("Expect: 100-Continue")).expectContinue, true);
  assert.equal(parseRequestHead("POST / HTTP/1.0\r\nExpect: 100-continue").expectContinue, false);
});

Deno.test("framing: Content-Length is one field with one value, digits only", () => {
  for (
    const [fields, what] of [
      [["Content-Length: 5", "Content-Length: 5"], "repeated, equal"],
      [["Content-Length: 5", "content-length: 6"], "repeated, different"],
      [["Content-Length: 5, 5"], "a list of equal values"],
      [["Content-Length: +5"], "a sign"],
      [["Content-Length: 0x5"], "hex"],
      [["Content-Length: 5 5"], "inner space"],
      [["Content-Length: \u00a05"], "NBSP"],
      [["Content-Length: 5\t"], "a tab"],
      [["Content-Length: "], "empty"],
      [["Content-Length: 1234567890123456"], "16 digits"],
      [["Content-Length: 5", "Transfer-Encoding: chunked"], "with Transfer-Encoding"],
    ] as const
  ) {
    refused(() => parseRequestHead(head(...fields)), 400, what);
  }
});

Deno.test("framing: Transfer-Encoding is a single final chunked", () => {
  for (
    const value of [
      "chunked, chunked",
      "chunked, gzip",
      "gzip",
      "identity",
      "",
      "chunked;q=1",
      ",chunked",
      "chunked,",
      "chun\u00a0ked",
      "chunked\u00a0",
      "\u000bchunked",
      "chunked\t",
      '"chunked"',
    ]
  ) {
    refused(() => parseRequestHead(head(`Transfer-Encoding: ${value}`)), 400, value);
  }
  refused(() => parseRequestHead(head("Transfer-Encoding: gzip, chunked")), 501, "gzip first");
  refused(
    () => parseRequestHead(head("Transfer-Encoding: gzip", "Transfer-Encoding: chunked")),
    501,
    "gzip in a field of its own",
  );
  refused(
    () => parseRequestHead(head("Transfer-Encoding: chunked", "Transfer-Encoding: chunked")),
    400,
    "two fields",
  );
  refused(
    () => parseRequestHead("POST / HTTP/1.0\r\nTransfer-Encoding: chunked"),
    400,
    "HTTP/1.0",
  );
});

Deno.test("framing: request lines, methods, targets, fields", () => {
  const cases: [string, number][] = [
    ["post /mcp HTTP/1.1\r\nHost: x", 400],
    ["Get /mcp HTTP/1.1\r\nHost: x", 400],
    ["FOO /mcp HTTP/1.1\r\nHost: x", 501],
    ["PROPFIND /mcp HTTP/1.1\r\nHost: x", 501],
    ["CONNECT x:443 HTTP/1.1\r\nHost: x:443", 501],
    ["TRACE / HTTP/1.1\r\nHost: x", 501],
    ["GET  / HTTP/1.1\r\nHost: x", 400],
    ["GET / HTTP/1.1 \r\nHost: x", 400],
    ["GET / HTTP/2.0\r\nHost: x", 505],
    ["GET / HTTP/1.10\r\nHost: x", 400],
    ["GET * HTTP/1.1\r\nHost: x", 400],
    ["GET mcp HTTP/1.1\r\nHost: x", 400],
    ["GET ftp://x/ HTTP/1.1\r\nHost: x", 400],
    ["GET /caf\u00e9 HTTP/1.1\r\nHost: x", 400],
    ["GET / HTTP/1.1", 400], // no Host
    ["GET / HTTP/1.1\r\nHost: a\r\nHost: a", 400],
    ["GET / HTTP/1.1\r\nHost: a/b", 400],
    ["GET / HTTP/1.1\r\nHost: x\r\n folded", 400],
    ["GET / HTTP/1.1\r\nHost: x\r\nX-A : b", 400],
    ["GET / HTTP/1.1\r\nHost: x\r\nX\u00a0A: b", 400],
    ["GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b", 400],
    ["GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb", 400],
    ["GET / HTTP/1.1\nHost: x", 400],
    ["GET / HTTP/1.1\r\nHost: x\r\nExpect: magic", 417],
    [`GET / HTTP/1.1\r\nHost: x${"\r\nX: 1".repeat(201)}`, 431],
  ];
  for (const [text, status] of cases) refused(() => parseRequestHead(text), status, text);
});

Deno.test("framing: a head that can never be a request is refused before it ends", () => {
  checkHeadStart("POST /mc");
  checkHeadStart("GE");
  checkHeadStart("GET / HTTP/1.1\r");
  refused(() => checkHeadStart("hello"), 400, "lower case");
  refused(() => checkHeadStart("GET /\u0001"), 400, "a control character");
  refused(() => checkHeadStart("GET / HTTP/1.1\n"), 400, "a bare LF");
});

Deno.test("framing: chunk-size lines", () => {
  assert.deepEqual(parseChunkSizeLine("1a"), { size: 26, extensionBytes: 0 });
  assert.deepEqual(parseChunkSizeLine('0003;a=1;b;c="x y"'), { size: 3, extensionBytes: 14 });
  assert.equal(parseChunkSizeLine('3;a="b\\"c"').size, 3);
  for (
    const line of [
      "3 ",
      "3\t",
      " 3",
      "3 ;a",
      "3; a",
      "3;a = 1",
      "3;",
      "3;=v",
      "3;a=",
      "3;a=b c",
      '3;a="b',
      "3;a\u0000",
      "0x3",
      "",
      "-3",
      "+3",
      "g",
      "fffffffffffffffff",
      "3;a=b\rc",
    ]
  ) {
    refused(() => parseChunkSizeLine(line), 400, JSON.stringify(line));
  }
});

Deno.test("framing: trailer fields never carry framing or routing", () => {
  checkTrailerLine("X-Check: 1");
  checkTrailerLine("Server-Timing: db;dur=53");
  for (
    const line of [
      "Content-Length: 5",
      "transfer-encoding: chunked",
      "Host: evil",
      " folded",
      "X-T: a\rb",
      "X-T: a\u0000",
      "Bad Name: x",
      "GET /smuggled HTTP/1.1",
      "garbage",
      "X-T : 1",
      ": x",
    ]
  ) {
    refused(() => checkTrailerLine(line), 400, JSON.stringify(line));
  }
});
