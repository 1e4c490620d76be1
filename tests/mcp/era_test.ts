/**
 * The contract client speaks both MCP eras: against the Python MCP SDK 2.x (modern,
 * 2026-07-28, over stdio and Streamable HTTP), the TS SDK 1.32.2 (legacy fallback), and a
 * scripted server that breaks the modern protocol on purpose.
 */
import assert from "node:assert/strict";
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { enumerateTarget } from "../../lib/contractpin/live.ts";
import {
  listHttp,
  listStdio,
  PYTHON_PRESENT,
  pythonStdioCommand,
  rawModernCommand,
  sdkStdioCommand,
  startPythonHttp,
} from "./helpers.ts";
import type { ToolListing } from "../../lib/mcp/session.ts";
import { ignoreWithout } from "../required_tool.ts";

const noPython = ignoreWithout(
  "Python MCP SDK 2.x (SCHEMAPIN_PYTHON_MCP)",
  PYTHON_PRESENT,
  ".ci/run (a venv with mcp==2.3.0, its python in SCHEMAPIN_PYTHON_MCP)",
);

type Obj = Record<string, unknown>;
const names = (items: unknown[] | undefined, key = "name") =>
  (items ?? []).map((i) => (i as Obj)[key]).sort();

function assertPythonSurface(l: ToolListing) {
  assert.deepEqual(names(l.tools), ["add", "echo"]);
  assert.deepEqual(names(l.prompts), ["greet"]);
  const prompt = l.prompts![0] as Obj;
  assert.equal(prompt.description, "Greet someone by name.");
  assert.deepEqual(names(prompt.arguments as unknown[]), ["name", "style"]);
  assert.deepEqual(names(l.resources, "uri"), ["config://app"]);
  assert.equal((l.resources![0] as Obj).mimeType, "application/json");
  assert.deepEqual(names(l.resourceTemplates, "uriTemplate"), ["note://{name}"]);
  assert.equal(l.instructions, "Use add for sums and echo to repeat text.");
  assert.equal(l.serverInfo?.name, "python-sdk-fixture");
}

/** Rejects with a ServerFailure of `kind` whose message matches `pattern`. */
async function assertFails(p: Promise<unknown>, kind: string, pattern: RegExp) {
  await assert.rejects(p, (e) => {
    assert.ok(e instanceof ServerFailure, `not a ServerFailure: ${e}`);
    assert.equal(e.kind, kind, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

// --- the Python SDK 2.x (a server we did not write) ---

Deno.test({
  name: "python SDK stdio: auto picks 2026-07-28; every request carried the _meta",
  ignore: noPython,
  async fn() {
    const l = await listStdio(pythonStdioCommand());
    assert.equal(l.era, "modern");
    assert.equal(l.protocolVersion, "2026-07-28");
    // The SDK refuses tools/list and the other lists without the _meta (-32602): they passed.
    assertPythonSurface(l);
    assert.deepEqual(l.notices, []);
    assert.deepEqual(l.undeclared, []);
  },
});

Deno.test({
  name: "python SDK stdio: era legacy forces initialize (the SDK is dual-era)",
  ignore: noPython,
  async fn() {
    const l = await listStdio(pythonStdioCommand(), { era: "legacy" });
    assert.equal(l.era, "legacy");
    assert.notEqual(l.protocolVersion, "2026-07-28");
    assertPythonSurface(l);
  },
});

Deno.test({
  name: "python SDK Streamable HTTP (stateless, SSE and JSON answers): modern, whole surface",
  ignore: noPython,
  sanitizeResources: false,
  async fn() {
    for (const json of [false, true]) {
      const server = await startPythonHttp(json);
      try {
        const l = await listHttp(server.url);
        assert.equal(l.era, "modern", `json=${json}`);
        assert.equal(l.protocolVersion, "2026-07-28");
        assertPythonSurface(l);
        const forced = await listHttp(server.url, { era: "modern" });
        assert.equal(forced.era, "modern");
        const legacy = await listHttp(server.url, { era: "legacy" });
        assert.equal(legacy.era, "legacy");
        assertPythonSurface(legacy);
      } finally {
        await server.stop();
      }
    }
  },
});

Deno.test({
  name: "python SDK via enumerateTarget over HTTP: modern, no fallback to HTTP+SSE",
  ignore: noPython,
  sanitizeResources: false,
  async fn() {
    const server = await startPythonHttp();
    try {
      const l = await enumerateTarget({
        name: "py",
        transport: "http",
        url: server.url,
        headers: [],
      });
      assert.equal(l.era, "modern");
      assert.ok(!l.notices.some((n) => n.includes("HTTP+SSE")));
    } finally {
      await server.stop();
    }
  },
});

// --- legacy fallback against the TS SDK 1.32.2 ---

async function withToolsFile<T>(f: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/tools.json`;
    await Deno.writeTextFile(
      file,
      JSON.stringify({ tools: [{ name: "t", inputSchema: { type: "object" } }] }),
    );
    return await f({ FIXTURE_TOOLS: file });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("TS SDK 1.32.2 stdio: auto falls back to initialize (legacy)", async () => {
  await withToolsFile(async (env) => {
    const l = await listStdio(sdkStdioCommand(), {}, env);
    assert.equal(l.era, "legacy");
    assert.equal(l.protocolVersion, "2025-11-25");
    assert.deepEqual(names(l.tools), ["t"]);
    // It declares only tools: the other kinds are pinned as empty, with a notice each.
    assert.deepEqual(l.prompts, []);
    assert.deepEqual(l.resources, []);
    assert.deepEqual(l.resourceTemplates, []);
    assert.equal(l.instructions, null);
    assert.deepEqual(l.undeclared, ["prompts", "resources"]);
    assert.deepEqual(l.notices, []);
  });
});

Deno.test("TS SDK 1.32.2 stdio: era modern fails (not a 2026-07-28 server)", async () => {
  await withToolsFile(async (env) => {
    await assertFails(
      listStdio(sdkStdioCommand(), { era: "modern" }, env),
      "protocol",
      /does not speak 2026-07-28/,
    );
  });
});

// --- the scripted modern server: positive ---

Deno.test("scripted modern server: prompts, resources and templates across pages", async () => {
  const l = await listStdio(rawModernCommand("paged"));
  assert.equal(l.era, "modern");
  assert.deepEqual(names(l.prompts), ["p1", "p2"]);
  assert.deepEqual(names(l.resources, "uri"), ["file:///one", "file:///two"]);
  assert.deepEqual(names(l.resourceTemplates, "uriTemplate"), ["file:///{a}", "file:///{b}"]);
  assert.equal(l.instructions, "raw instructions");
  assert.equal(l.serverInfo?.name, "raw-modern");
});

Deno.test("scripted modern server: undeclared kinds are [], named in undeclared", async () => {
  const l = await listStdio(rawModernCommand("no-surface-caps"));
  assert.equal(l.era, "modern");
  assert.deepEqual([l.prompts, l.resources, l.resourceTemplates], [[], [], []]);
  assert.deepEqual(l.undeclared, ["prompts", "resources"]);
});

Deno.test("discover listing only legacy versions: falls back to initialize", async () => {
  const l = await listStdio(rawModernCommand("legacy-versions"));
  assert.equal(l.era, "legacy");
  assert.equal(l.protocolVersion, "2025-11-25");
  assert.equal(l.serverInfo?.name, "raw-legacy");
});

Deno.test("discover refused with -32601 (a legacy server): falls back", async () => {
  const l = await listStdio(rawModernCommand("legacy-error"));
  assert.equal(l.era, "legacy");
});

Deno.test("-32022 whose supported list names a legacy version: falls back", async () => {
  const l = await listStdio(rawModernCommand("disjoint-dual"));
  assert.equal(l.era, "legacy");
});

Deno.test("a server that drops server/discover but answers ping: legacy within seconds", async () => {
  const started = Date.now();
  const l = await listStdio(rawModernCommand("silent-discover"));
  assert.equal(l.era, "legacy");
  assert.deepEqual(names(l.tools), ["a", "b"]);
  assert.ok(Date.now() - started < 20_000, "fell back long before the start-up timeout");
});

Deno.test("a probe answer that arrives after the probe was given up is dropped", async () => {
  const l = await listStdio(rawModernCommand("late-discover"));
  assert.equal(l.era, "legacy");
  assert.deepEqual(names(l.tools), ["a", "b"]);
});

// --- the scripted modern server: negative ---

Deno.test("-32022 with a modern-only disjoint supported list: fails, no fallback", async () => {
  // This server would answer initialize: falling back would hide the incompatibility.
  await assertFails(listStdio(rawModernCommand("disjoint")), "protocol", /speaks only 2027-01-01/);
});

Deno.test("cursor loop in prompts/list fails", async () => {
  await assertFails(
    listStdio(rawModernCommand("prompts-loop")),
    "protocol",
    /prompts\/list cursor loop/,
  );
});

Deno.test("declared prompts capability whose prompts/list fails (-32601): fail closed", async () => {
  await assertFails(
    listStdio(rawModernCommand("prompts-fail")),
    "rpc_error",
    /prompts\/list failed.*declares the prompts capability/,
  );
});

Deno.test("declared resources whose resources/templates/list fails: fail closed", async () => {
  await assertFails(
    listStdio(rawModernCommand("templates-fail")),
    "rpc_error",
    /resources\/templates\/list failed/,
  );
});

Deno.test("empty nextCursor in resources/list fails", async () => {
  await assertFails(
    listStdio(rawModernCommand("resources-empty-cursor")),
    "protocol",
    /resources\/list page 1 has an empty nextCursor/,
  );
});

Deno.test("instructions that are not a string are malformed", async () => {
  await assertFails(
    listStdio(rawModernCommand("instructions-number")),
    "malformed",
    /instructions that are not a string/,
  );
});

Deno.test("a discover result without capabilities is malformed", async () => {
  await assertFails(
    listStdio(rawModernCommand("no-capabilities")),
    "malformed",
    /server\/discover result has no capabilities/,
  );
});

Deno.test('a list answered with resultType "input_required" is a protocol failure', async () => {
  await assertFails(
    listStdio(rawModernCommand("input-required")),
    "protocol",
    /tools\/list answered with resultType "input_required"/,
  );
});

Deno.test("era modern against a legacy server fails instead of falling back", async () => {
  await assertFails(
    listStdio(rawModernCommand("legacy-error"), { era: "modern" }),
    "protocol",
    /does not speak 2026-07-28.*-32601/,
  );
});

Deno.test("era legacy against a modern-only server fails on initialize", async () => {
  await assertFails(
    listStdio(rawModernCommand("paged"), { era: "legacy" }),
    "rpc_error",
    /initialize failed/,
  );
});

Deno.test("a spawn failure propagates (never an era verdict)", async () => {
  await assertFails(listStdio(["/nonexistent/mcp-server"]), "spawn", /command not found/);
});

Deno.test("listTools rejects an unknown era option", async () => {
  await assert.rejects(
    listStdio(rawModernCommand("paged"), { era: "newest" as "modern" }),
    TypeError,
  );
});
