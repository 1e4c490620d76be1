/** lib/mcp/era.ts: the 2026-07-28 `_meta` and request headers, and the list collector. */
import assert from "node:assert/strict";
import {
  decodeHeaderValue,
  encodeHeaderValue,
  isLegacyVersion,
  isModernVersion,
  mcpRequestHeaders,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  modernParams,
  modernVersionOf,
} from "../../lib/mcp/era.ts";
import { collectList, collectPages } from "../../lib/mcp/session.ts";
import { ServerFailure } from "../../lib/mcp/errors.ts";

const meta = {
  protocolVersion: "2026-07-28",
  clientCapabilities: {},
  clientInfo: { name: "c", version: "1" },
};

Deno.test("modernParams adds the three _meta keys and keeps the caller's", () => {
  const params = { cursor: "x", _meta: { progressToken: 3 } };
  const p = modernParams(params, meta);
  assert.deepEqual(p, {
    cursor: "x",
    _meta: {
      progressToken: 3,
      [META_PROTOCOL_VERSION]: "2026-07-28",
      [META_CLIENT_CAPABILITIES]: {},
      [META_CLIENT_INFO]: { name: "c", version: "1" },
    },
  });
  assert.deepEqual(params, { cursor: "x", _meta: { progressToken: 3 } }); // not modified
  assert.equal(modernVersionOf(p), "2026-07-28");
  assert.equal(modernVersionOf({ cursor: "x" }), undefined);
  assert.equal(modernVersionOf(undefined), undefined);
  assert.deepEqual(Object.keys(modernParams(undefined, meta)), ["_meta"]);
});

Deno.test("encodeHeaderValue follows the spec's Value Encoding table", () => {
  assert.equal(encodeHeaderValue("us-west1"), "us-west1");
  assert.equal(encodeHeaderValue("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
  assert.equal(encodeHeaderValue(" padded "), "=?base64?IHBhZGRlZCA=?=");
  assert.equal(encodeHeaderValue("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
  assert.equal(encodeHeaderValue("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
  assert.equal(encodeHeaderValue("tab\there"), "=?base64?dGFiCWhlcmU=?=");
  assert.equal(encodeHeaderValue("a b"), "a b");
  assert.equal(encodeHeaderValue(""), "");
});

Deno.test("mcpRequestHeaders: Mcp-Name only for name-bearing methods with a string name", () => {
  assert.deepEqual(mcpRequestHeaders("tools/list", { name: "x" }, "2026-07-28"), [
    ["MCP-Protocol-Version", "2026-07-28"],
    ["Mcp-Method", "tools/list"],
  ]);
  assert.deepEqual(mcpRequestHeaders("resources/read", { uri: "file:///é" }, "2026-07-28")[2], [
    "Mcp-Name",
    "=?base64?ZmlsZTovLy/DqQ==?=",
  ]);
  assert.deepEqual(mcpRequestHeaders("prompts/get", { name: "p" }, "2026-07-28")[2], [
    "Mcp-Name",
    "p",
  ]);
  assert.equal(mcpRequestHeaders("tools/call", { name: 7 }, "2026-07-28").length, 2);
  assert.equal(mcpRequestHeaders("tools/call", undefined, "2026-07-28").length, 2);
});

Deno.test("isModernVersion / isLegacyVersion", () => {
  assert.ok(isModernVersion("2026-07-28") && isModernVersion("2027-01-01"));
  assert.ok(!isModernVersion("2025-11-25") && !isModernVersion("draft"));
  assert.ok(isLegacyVersion("2024-11-05") && !isLegacyVersion("2026-07-28"));
  assert.ok(!isLegacyVersion("garbage"));
});

Deno.test("collectPages keeps the tools/list messages; collectList names its own list", async () => {
  const loop = () => Promise.resolve({ tools: [], prompts: [], nextCursor: "c" });
  await assert.rejects(
    collectPages(loop, 10, "s"),
    (e) =>
      e instanceof ServerFailure &&
      e.message === 's: tools/list cursor loop: page 2 repeats the cursor "c"',
  );
  await assert.rejects(
    collectList(loop, 10, "s", "prompts/list", "prompts"),
    (e) => e instanceof ServerFailure && /^s: prompts\/list cursor loop/.test(e.message),
  );
  await assert.rejects(
    collectList(() => Promise.resolve({ tools: [] }), 10, "s", "prompts/list", "prompts"),
    (e) =>
      e instanceof ServerFailure && e.message === 's: prompts/list page 1 has no "prompts" array',
  );
  let n = 0;
  await assert.rejects(
    collectList(
      () => Promise.resolve({ resourceTemplates: [], nextCursor: String(n++) }),
      3,
      "s",
      "resources/templates/list",
      "resourceTemplates",
    ),
    (e) =>
      e instanceof ServerFailure && /templates\/list still had more pages after 3/.test(e.message),
  );
});

Deno.test("decodeHeaderValue undoes encodeHeaderValue; a bad encoded form is undefined", () => {
  for (const v of ["add", "Hello, 世界", " padded ", "line1\nline2", "=?base64?literal?=", ""]) {
    assert.equal(decodeHeaderValue(encodeHeaderValue(v)), v);
  }
  assert.equal(decodeHeaderValue("=?base64?//79?="), undefined); // not UTF-8
  assert.equal(decodeHeaderValue("=?base64?***?="), "=?base64?***?="); // not the form: as is
});
