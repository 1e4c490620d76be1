// The `--json` fields of contract init, verify and approve (cli/contractpin/json_fields.ts),
// without the CLI: `ok` and the `error` summing up what failed, the `lock_signature` object
// (snake_case, `lock_hash` last), each change with its approve argv, the init servers and
// failures. tests/contractpin/cli_process_test.ts and tests/cli/json_output_test.ts run the
// commands and validate the whole output against schemas/cli/.
import assert from "node:assert/strict";
import {
  approveJsonFields,
  dumpJsonFields,
  initJsonFields,
  lockSignatureJson,
  toolListDigestJson,
  verifyChangesJson,
  verifyJsonFields,
} from "../../cli/contractpin/json_fields.ts";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { finishReport, type ServerReport } from "../../lib/contractpin/report.ts";
import type { LockSignatureCheck } from "../../cli/contractpin/lock_signature_check.ts";
import type { InitResult } from "../../cli/contractpin/init.ts";
import type { ApproveResult } from "../../cli/contractpin/approve_lock.ts";
import type { PlannedChange } from "../../cli/contractpin/approve_plan.ts";
import type { DumpResult } from "../../lib/contractpin/run.ts";

const NOT_CHECKED: LockSignatureCheck = {
  status: "not_checked",
  required: false,
  file: "contractpin.lock.sig",
};

function server(name: string, over: Partial<ServerReport> = {}): ServerReport {
  return {
    name,
    status: "match",
    tools: { drifted: [], added: [], removed: [], unchanged: 1 },
    hidden_text: [],
    ...over,
  } as unknown as ServerReport;
}

function check(result: Record<string, unknown>): LockSignatureCheck {
  return {
    status: result.valid ? "valid" : "invalid",
    required: true,
    file: "contractpin.lock.sig",
    result: result as unknown as LockSignatureCheck["result"],
  };
}

Deno.test("lockSignatureJson: not checked is status, required and file only", () => {
  assert.deepEqual(lockSignatureJson(NOT_CHECKED), {
    status: "not_checked",
    required: false,
    file: "contractpin.lock.sig",
  });
});

Deno.test("lockSignatureJson: a valid check's fields are snake_case, lock_hash last", () => {
  const out = lockSignatureJson(check({
    valid: true,
    domain: "example.com",
    toolId: "contractpin:lock",
    keyFingerprint: "sha256:ab",
    schemaHash: "sha256:cd",
    signedAt: "2026-01-01T00:00:00Z",
    warnings: [],
    keyPinning: "pinned",
  }));
  assert.deepEqual(Object.keys(out), [
    "status",
    "required",
    "file",
    "domain",
    "tool_id",
    "key_fingerprint",
    "key_pinning",
    "signed_at",
    "warnings",
    "lock_hash",
  ]);
  assert.equal(out.lock_hash, "sha256:cd");
  assert.equal(out.error, undefined);
});

Deno.test("lockSignatureJson: a failure without a code is VERIFICATION_FAILED", () => {
  const out = lockSignatureJson(check({ valid: false, warnings: [] }));
  assert.deepEqual(out.error, { code: "VERIFICATION_FAILED", message: "VERIFICATION_FAILED" });
});

Deno.test("lockSignatureJson: a failure keeps its code and message, not schema_hash", () => {
  const out = lockSignatureJson(
    check({ valid: false, errorCode: "SIGNATURE_INVALID", errorMessage: "bad", warnings: [] }),
  );
  assert.deepEqual(out.error, { code: "SIGNATURE_INVALID", message: "bad" });
  assert.equal("schema_hash" in out, false);
  assert.equal("lock_hash" in out, false);
});

Deno.test("verifyJsonFields: a match is ok, without format or error", () => {
  const report = finishReport("contractpin.lock", false, null, [server("a")]);
  const out = verifyJsonFields(report, NOT_CHECKED);
  assert.equal(out.ok, true);
  assert.equal("error" in out, false);
  assert.equal("format" in out, false);
  assert.deepEqual(out.changes, []);
  assert.deepEqual(out.lock_signature, lockSignatureJson(NOT_CHECKED));
});

Deno.test("verifyJsonFields: drift and unreachable servers are CONTRACT_DRIFT", () => {
  const report = finishReport("my.lock", false, null, [
    server("a", {
      status: "drift",
      tools: { drifted: [], added: ["new"], removed: [], unchanged: 0 },
    } as Partial<ServerReport>),
    server("b", { status: "unreachable" }),
    server("c"),
  ]);
  const out = verifyJsonFields(report, NOT_CHECKED);
  assert.equal(out.ok, false);
  assert.deepEqual(out.error, {
    code: "CONTRACT_DRIFT",
    message: "1 drifted, 1 unreachable of 3 server(s) in my.lock",
  });
});

Deno.test("verifyJsonFields: only --strict-text findings fail as HIDDEN_TEXT", () => {
  const finding = { tool: "t", pointer: "/description", in: "value", offset: 0, kind: "tag" };
  const report = finishReport("contractpin.lock", false, null, [
    server("a", { hidden_text: [finding] } as unknown as Partial<ServerReport>),
  ], true);
  const out = verifyJsonFields(report, NOT_CHECKED);
  assert.equal(out.ok, false);
  assert.deepEqual(out.error, {
    code: "HIDDEN_TEXT",
    message: "1 hidden-text finding(s) in live tool definitions (--strict-text)",
  });
});

Deno.test("verifyJsonFields: a signature that did not verify is the error", () => {
  const report = { ...finishReport("contractpin.lock", false, null, []), exit_code: 1 as const };
  const signed = check({ valid: false, errorCode: "SIGNATURE_INVALID", errorMessage: "bad" });
  const out = verifyJsonFields(report, signed);
  assert.deepEqual(out.error, {
    code: "SIGNATURE_INVALID",
    message: "contractpin.lock.sig: bad",
  });
});

Deno.test("verifyChangesJson: each change with its approve argv; kind only when not a tool", () => {
  const report = finishReport("other.lock", false, null, [
    server("a", {
      status: "drift",
      tools: { drifted: [], added: ["t"], removed: [], unchanged: 0 },
      surface: {
        prompts: { drifted: [], added: ["p"], removed: [], unchanged: 0 },
      },
    } as unknown as Partial<ServerReport>),
  ]);
  const changes = verifyChangesJson(report, { config: ".mcp.json" });
  assert.deepEqual(changes.map((c) => [c.kind, c.tool, c.change]), [
    [undefined, "t", "added"],
    ["prompt", "p", "added"],
  ]);
  assert.equal("kind" in changes[0], false);
  assert.deepEqual(changes[1].approve.slice(3), [
    "--lock",
    "other.lock",
    "--config",
    ".mcp.json",
    "--server",
    "a",
    "--prompt",
    "p",
    "--yes",
  ]);
});

Deno.test("verifyChangesJson: a server whose identity changed has no approvable change", () => {
  const report = finishReport("contractpin.lock", false, null, [
    server("a", {
      status: "drift",
      identity_changed: true,
      tools: { drifted: [], added: ["t"], removed: [], unchanged: 0 },
    } as unknown as Partial<ServerReport>),
  ]);
  assert.deepEqual(verifyChangesJson(report, {}), []);
});

function initResult(over: Partial<InitResult>): InitResult {
  return {
    lockPath: "contractpin.lock",
    snapshotPath: null,
    written: false,
    lock: {
      version: 1,
      generated_at: "2026-01-01T00:00:00Z",
      servers: { a: { transport: "stdio", tool_count: 2, digest: "sha256:aa" } },
    },
    outcomes: [
      {
        ok: true,
        name: "a",
        warnings: [{ message: "w" }],
        notices: [],
        hiddenText: [],
      },
      { ok: false, name: "b", failure: { kind: "spawn", message: "b failed" }, warnings: [] },
    ],
    skipped: [],
    hiddenText: 0,
    ...over,
  } as unknown as InitResult;
}

Deno.test("initJsonFields: written is ok with the servers pinned", () => {
  const out = initJsonFields(initResult({ written: true, snapshotPath: "s.json" }));
  assert.deepEqual(out, {
    ok: true,
    lock: "contractpin.lock",
    snapshot: "s.json",
    generated_at: "2026-01-01T00:00:00Z",
    servers: [{
      name: "a",
      transport: "stdio",
      tool_count: 2,
      digest: "sha256:aa",
      warnings: ["w"],
      hidden_text: [],
    }],
  });
});

Deno.test("initJsonFields: a server that failed is named in failed", () => {
  const error = { code: "SERVER_FAILED" as const, message: "1 of 2 servers could not be pinned" };
  const out = initJsonFields(initResult({ error }));
  assert.equal(out.ok, false);
  assert.deepEqual(out.error, error);
  assert.deepEqual(out.failed, [{ name: "b", kind: "spawn", message: "b failed" }]);
  assert.deepEqual(Object.keys(out), [
    "ok",
    "error",
    "lock",
    "snapshot",
    "generated_at",
    "servers",
    "failed",
  ]);
});

Deno.test("initJsonFields: hidden text refused has no failed list", () => {
  const error = { code: "HIDDEN_TEXT" as const, message: "hidden text" };
  const out = initJsonFields(initResult({ error }));
  assert.equal(out.ok, false);
  assert.equal("failed" in out, false);
});

function change(tool: string, over: Partial<PlannedChange> = {}): PlannedChange {
  return {
    server: "a",
    tool,
    change: "added",
    locked: null,
    live: "sha256:ff",
    changedFields: null,
    diff: "",
    hiddenText: [],
    ...over,
  };
}

function approveResult(over: Partial<ApproveResult>): ApproveResult {
  return {
    lockPath: "contractpin.lock",
    snapshotPath: null,
    changes: [],
    problems: [],
    approved: [],
    left: [],
    refused: false,
    written: false,
    ok: true,
    ...over,
  };
}

Deno.test("approveJsonFields: every change approved is ok", () => {
  const c = change("t");
  const out = approveJsonFields(approveResult({ changes: [c], approved: [c], written: true }));
  assert.equal(out.ok, true);
  assert.equal("error" in out, false);
  assert.equal(out.approved, 1);
  assert.equal(out.signature_stale, false);
  assert.deepEqual((out.changes as { approved: boolean }[]).map((x) => x.approved), [true]);
});

Deno.test("approveJsonFields: changes left and servers not approvable are CONTRACT_DRIFT", () => {
  const c = change("p", { kind: "prompt" });
  const out = approveJsonFields(approveResult({
    changes: [c],
    left: [c],
    problems: [{ server: "b", message: "unreachable" }],
    ok: false,
    staleSignature: "contractpin.lock.sig",
  }));
  assert.equal(out.ok, false);
  assert.deepEqual(out.error, {
    code: "CONTRACT_DRIFT",
    message: "1 change(s) left unapproved, 1 server(s) not checked or not approvable",
  });
  assert.equal(out.signature_stale, true);
  const [json] = out.changes as Record<string, unknown>[];
  assert.equal(json.kind, "prompt");
  assert.equal(json.approved, false);
});

Deno.test("approveJsonFields: a tool change has no kind", () => {
  const c = change("t", { kind: "tool" });
  const out = approveJsonFields(approveResult({ changes: [c], left: [c], ok: false }));
  assert.equal("kind" in (out.changes as object[])[0], false);
  assert.deepEqual(out.error, { code: "CONTRACT_DRIFT", message: "1 change(s) left unapproved" });
});

/** A dump of `listing` (only the fields dumpJsonFields reads). */
function dumpOf(listing: Record<string, unknown>): DumpResult {
  return {
    ok: true,
    listing: { tools: [], notices: [], ...listing },
    list: { digest: "sha256:ab" },
  } as unknown as DumpResult;
}

Deno.test("contract dump --json: counts, null for a kind not offered, instructions", () => {
  assert.deepEqual(
    dumpJsonFields(
      "fs",
      "fs.json",
      dumpOf({
        tools: [{}, {}],
        prompts: [],
        resources: [{}],
        instructions: "use it",
        protocolVersion: "2025-06-18",
      }),
    ),
    {
      ok: true,
      server: "fs",
      out: "fs.json",
      tool_count: 2,
      prompt_count: 0,
      resource_count: 1,
      resource_template_count: null,
      instructions: true,
      protocol_version: "2025-06-18",
      tools_digest: "sha256:ab",
    },
  );
  const bare = dumpJsonFields("fs", "-", dumpOf({ instructions: null }));
  assert.equal(bare.instructions, false);
  assert.equal(bare.prompt_count, null);
  assert.equal(bare.protocol_version, null);
  assert.equal(dumpJsonFields("fs", "-", dumpOf({})).instructions, null);
});

Deno.test("contract dump --json: a server that failed is ok false with SERVER_FAILED", () => {
  const failed = {
    ok: false,
    failure: { kind: "startup", message: "server fs: could not start" },
  } as unknown as DumpResult;
  assert.deepEqual(dumpJsonFields("fs", "fs.json", failed), {
    ok: false,
    error: { code: "SERVER_FAILED", message: "server fs: could not start" },
    server: "fs",
    out: "fs.json",
  });
  // The message as the command reported it, when given.
  const said = dumpJsonFields("fs", "-", failed, "server fs: could not start; nothing was written");
  assert.deepEqual(said.error, {
    code: "SERVER_FAILED",
    message: "server fs: could not start; nothing was written",
  });
  assert.equal("tool_count" in said, false);
});

Deno.test("contract digest --json: each tool's digest and field digests by name", () => {
  const list = digestToolList([
    { name: "echo", description: "says it back", inputSchema: { type: "object" } },
  ] as JsonValue[]);
  const fields = toolListDigestJson("tools.json", list);
  const echo = [...list.tools.values()][0];
  assert.deepEqual(Object.keys(fields), ["ok", "file", "kind", "tool_count", "digest", "tools"]);
  assert.equal(fields.tool_count, 1);
  assert.equal(fields.digest, list.digest);
  assert.deepEqual(fields.tools, { echo: { digest: echo.digest, fields: echo.fields } });
  assert.match(echo.fields.description, /^sha256:[0-9a-f]{64}$/);
});

Deno.test("contract digest --json: an empty list has no tools, and its own digest", () => {
  const list = digestToolList([]);
  const fields = toolListDigestJson("-", list);
  assert.deepEqual(fields.tools, {});
  assert.equal(fields.tool_count, 0);
  assert.equal(fields.file, "-");
  assert.match(String(fields.digest), /^sha256:[0-9a-f]{64}$/);
});
