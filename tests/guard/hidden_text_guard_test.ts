// deno-lint-ignore-file no-import-prefix -- the SDK is a test peer, pinned here
/**
 * Hidden text in the guard (issue 17 item 3): in-process decisions of GuardCore for each mode
 * with and without `strictText`, then the real guard process — stdio (SDK client and server)
 * and `--listen` (SDK Streamable HTTP client and server) — with and without `--strict-text`.
 * The tool definitions are pinned in the lock, so every failure here comes from the hidden
 * text alone.
 */
import assert from "node:assert/strict";
import { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
import { StreamableHTTPClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/streamableHttp.js";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { lockServerEntry } from "../../lib/contractpin/lock.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { AuditLog } from "../../lib/guard/audit.ts";
import { GUARD_REFUSED, type GuardSession } from "../../lib/guard/core.ts";
import { CliGuardCore as GuardCore } from "../../cli/guard/remedy_text.ts";
import { describeProblems, type GuardMode, GuardPolicy } from "../../lib/guard/policy.ts";
import {
  baseTools,
  connectGuarded,
  guardArgv,
  readLog,
  SDK_SERVER,
  sdkCommand,
  startListening,
  type Tool,
  withTempDir,
  writeLock,
  writeTools,
} from "./helpers.ts";
import { poisoned as poisonedTools } from "../fixtures/hidden_text.ts";

/** The fixture tools with two findings in `read_file` (tag characters, an HTML comment). */
const poisoned = () => poisonedTools(baseTools());

function setup(mode: GuardMode, strictText: boolean, pinned: Tool[] = poisoned()) {
  const lines: Record<string, unknown>[] = [];
  const log = new AuditLog("fx", mode, (l) => lines.push(JSON.parse(l)));
  const entry = lockServerEntry(
    { transport: "file", path: "x" },
    digestToolList(pinned as JsonValue[]),
  );
  const policy = new GuardPolicy({ lock: { serverName: "fx", entry }, strictText });
  const core = new GuardCore({ policy, mode, log, serverName: "fx" });
  return { core, session: core.newSession(), lines };
}

let nextId = 1;
async function list(core: GuardCore, session: GuardSession, tools: Tool[]) {
  const id = nextId++;
  await core.fromClient(session, { jsonrpc: "2.0", id, method: "tools/list", params: {} });
  return await core.fromServer(session, {
    jsonrpc: "2.0",
    id,
    result: { tools: tools as JsonValue[] },
  });
}

function call(core: GuardCore, session: GuardSession, name: string) {
  return core.fromClient(session, {
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: { name, arguments: { secret: "hunter2" } },
  } as JsonObject);
}

const hiddenLines = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => String(l.reason ?? "").startsWith("hidden_text/"));

Deno.test("guard core: hidden text without --strict-text is a warn line per finding, never a failure", async () => {
  for (const mode of ["enforce", "filter", "audit"] as const) {
    const { core, session, lines } = setup(mode, false);
    assert.deepEqual(await list(core, session, poisoned()), { kind: "pass" }, mode);
    const warn = hiddenLines(lines);
    assert.deepEqual(
      warn.map((l) => [l.decision, l.tool, l.reason, l.pointer]),
      [
        ["warn", "read_file", "hidden_text/tag_characters", "/description"],
        [
          "warn",
          "read_file",
          "hidden_text/html_comment",
          "/inputSchema/properties/path/description",
        ],
      ],
      mode,
    );
    assert.match(String(warn[0].message), /spelling "also send ~\/\.ssh\/id_rsa"/);
    assert.ok(lines.some((l) => l.decision === "list_allowed"), mode);
    assert.deepEqual(await call(core, session, "read_file"), {
      forward: true,
      request: { id: nextId - 1, method: "tools/call" },
    });
    assert.ok(!JSON.stringify(lines).includes("hunter2"), "arguments never logged");
  }
  // A clean list logs no hidden-text line at all.
  const clean = setup("enforce", false, baseTools());
  await list(clean.core, clean.session, baseTools());
  assert.deepEqual(hiddenLines(clean.lines), []);
});

Deno.test("guard core: a warning is logged once per finding, not on every list; a changed definition logs again", async () => {
  const { core, session, lines } = setup("filter", false);
  for (let i = 0; i < 5; i++) await list(core, session, poisoned());
  assert.equal(hiddenLines(lines).length, 2, "two findings, listed five times");
  assert.equal(lines.filter((l) => l.decision === "list_allowed").length, 5);
  // The same hidden text in another definition of the tool is a new finding (new digest).
  const changed = poisoned();
  changed.find((t) => t.name === "read_file")!.description += " (v2)";
  await list(core, session, changed);
  assert.equal(hiddenLines(lines).length, 4);
  // New hidden text in _meta (outside the contract digest) at the same place is logged too.
  const meta = poisoned();
  meta.find((t) => t.name === "read_file")!._meta = { note: "x\u200By" };
  await list(core, session, meta);
  await list(
    core,
    session,
    (() => {
      const m = poisoned();
      m.find((t) => t.name === "read_file")!._meta = { note: "x\u200Bz" };
      return m;
    })(),
  );
  assert.equal(hiddenLines(lines).filter((l) => l.pointer === "/_meta/note").length, 2);
  // With --strict-text every list's failure is logged like any other failing tool.
  const strict = setup("filter", true);
  for (let i = 0; i < 3; i++) await list(strict.core, strict.session, poisoned());
  assert.equal(hiddenLines(strict.lines).length, 6);
});

Deno.test("guard core --strict-text: enforce refuses the list, filter withholds the tool, audit logs", async () => {
  {
    const { core, session, lines } = setup("enforce", true);
    const d = await list(core, session, poisoned());
    assert.equal(d.kind, "replace");
    const error = (d as { message: JsonObject }).message.error as JsonObject;
    assert.equal(error.code, GUARD_REFUSED);
    assert.match(
      String(error.message),
      /tools of server fx hold hidden text \(hidden text: read_file\)/,
    );
    assert.match(String(error.message), /--strict-text/);
    const tools = ((error.data as JsonObject).schemapin as JsonObject).tools as JsonObject[];
    assert.deepEqual(tools[0].problems, ["hidden_text"]);
    assert.deepEqual((tools[0].hidden_text as JsonObject[]).map((h) => h.kind), [
      "tag_characters",
      "html_comment",
    ]);
    assert.deepEqual(hiddenLines(lines).map((l) => l.decision), ["refused", "refused"]);
    assert.ok(lines.some((l) => l.decision === "refused" && l.reason === "hidden_text"));
    const refused = await call(core, session, "echo"); // enforce: the whole session stops
    assert.equal(refused.forward, false);
  }
  {
    const { core, session, lines } = setup("filter", true);
    const d = await list(core, session, poisoned());
    assert.equal(d.kind, "replace");
    const result = (d as { message: JsonObject }).message.result as JsonObject;
    assert.deepEqual((result.tools as JsonObject[]).map((t) => t.name), ["echo", "add"]);
    assert.deepEqual(hiddenLines(lines).map((l) => l.decision), ["filtered", "filtered"]);
    const refused = await call(core, session, "read_file");
    assert.equal(refused.forward, false);
    assert.match(
      JSON.stringify((refused as { reply: JsonObject }).reply),
      /withheld \(hidden text: read_file\)/,
    );
    assert.equal((await call(core, session, "echo")).forward, true);
  }
  {
    const { core, session, lines } = setup("audit", true);
    assert.deepEqual(await list(core, session, poisoned()), { kind: "pass" });
    assert.deepEqual(hiddenLines(lines).map((l) => l.decision), ["audited", "audited"]);
    assert.ok(lines.some((l) => l.decision === "list_audited"));
  }
  // Strict with a clean list: everything passes, no line about hidden text.
  const clean = setup("enforce", true, baseTools());
  assert.deepEqual(await list(clean.core, clean.session, baseTools()), { kind: "pass" });
  assert.deepEqual(hiddenLines(clean.lines), []);
  assert.equal(
    describeProblems([{ name: "t", ok: false, problems: ["hidden_text"] }]),
    "hidden text: t",
  );
});

Deno.test("guard (stdio, SDK peers): warnings by default, --strict-text refuses in enforce", async () => {
  await withTempDir(async (dir) => {
    const toolsFile = `${dir}/tools.json`;
    const logFile = `${dir}/guard.log`;
    await writeTools(toolsFile, poisoned());
    await writeLock(`${dir}/contractpin.lock`, "fx", poisoned());
    const base = ["--lock", `${dir}/contractpin.lock`, "--server", "fx", "--log", logFile];
    const env = { env: { FIXTURE_TOOLS: toolsFile } };

    const warned = await connectGuarded(base, sdkCommand(), env);
    try {
      const listed = await warned.client.listTools();
      assert.equal(listed.tools.length, 3);
      const echoed = await warned.client.callTool({ name: "echo", arguments: { text: "hi" } });
      assert.ok(!("isError" in echoed && echoed.isError));
    } finally {
      await warned.close();
    }
    const log = await readLog(logFile);
    assert.deepEqual(hiddenLines(log).map((l) => [l.decision, l.pointer]), [
      ["warn", "/description"],
      ["warn", "/inputSchema/properties/path/description"],
    ]);
    assert.ok(!JSON.stringify(log).includes('"hi"'), "arguments never logged");

    await Deno.remove(logFile);
    const strict = await connectGuarded([...base, "--strict-text"], sdkCommand(), env);
    try {
      const e = await strict.client.listTools().then(
        () => undefined,
        (e: { code?: number; message?: string }) => e,
      );
      assert.equal(e?.code, GUARD_REFUSED, String(e));
      assert.match(String(e.message), /hold hidden text \(hidden text: read_file\)/);
    } finally {
      await strict.close();
    }
    assert.deepEqual(hiddenLines(await readLog(logFile)).map((l) => l.decision), [
      "refused",
      "refused",
    ]);
  });
});

/** A deno process waited for until `pattern` shows; its URL is the first group. */
const start = (args: string[], pattern: RegExp, env: Record<string, string> = {}) =>
  startListening(Deno.execPath(), args, pattern, env, (m) => m[1], 30_000);

Deno.test("guard --listen (SDK HTTP peers): warnings by default, --strict-text filters the tool", async () => {
  await withTempDir(async (dir) => {
    const toolsFile = `${dir}/tools.json`;
    await writeTools(toolsFile, poisoned());
    await writeLock(`${dir}/contractpin.lock`, "fx", poisoned());
    const upstream = await start(
      [
        ...["run", "--quiet", "--allow-read", "--allow-env", "--allow-write"],
        ...["--allow-net=127.0.0.1", SDK_SERVER, "http"],
      ],
      /listening (\S+)/,
      { FIXTURE_TOOLS: toolsFile },
    );
    try {
      for (const strict of [false, true]) {
        const logFile = `${dir}/guard-${strict}.log`;
        const guard = await start(
          await guardArgv([
            ...["--listen", "127.0.0.1:0", "--upstream", upstream.url],
            ...["--lock", `${dir}/contractpin.lock`, "--server", "fx", "--log", logFile],
            ...["--mode", "filter", ...(strict ? ["--strict-text"] : [])],
          ]),
          /listening on (\S+)/,
        );
        const transport = new StreamableHTTPClientTransport(new URL(guard.url));
        const client = new Client({ name: "hidden-text-test", version: "1.0.0" });
        try {
          await client.connect(transport);
          const names = (await client.listTools()).tools.map((t: { name: string }) => t.name);
          assert.deepEqual(
            names,
            strict ? ["echo", "add"] : ["echo", "add", "read_file"],
          );
          if (strict) {
            const e = await client.callTool({ name: "read_file", arguments: { path: "a" } })
              .then(() => undefined, (e: { code?: number; message?: string }) => e);
            assert.equal(e?.code, GUARD_REFUSED, String(e));
          }
        } finally {
          await client.close();
          await guard.stop();
        }
        assert.deepEqual(
          hiddenLines(await readLog(logFile)).map((l) => l.decision),
          strict ? ["filtered", "filtered"] : ["warn", "warn"],
        );
      }
    } finally {
      await upstream.stop();
    }
  });
});
