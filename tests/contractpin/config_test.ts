/**
 * Servers from an MCP client configuration (`mcpServers`): init pins them, verify runs them as
 * configured and reports a changed identity or an unpinned server; bad configs are exit 2.
 * Also the machine formats end to end.
 */
import assert from "node:assert/strict";
import { parseMcpConfig } from "../../cli/mcp_config/read.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { rawCommand, runInProcess, withTempDir } from "./helpers.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";

const enc = new TextEncoder();

function configFor(servers: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: servers }, null, 2);
}

function stdioEntry(mode: string, extra: Record<string, unknown> = {}) {
  const [command, ...args] = rawCommand(mode);
  return { command, args, ...extra };
}

Deno.test("config: init pins every configured server; env secrets become references", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify({ tools: [{ name: "x" }] }));
    await Deno.writeTextFile(
      `${dir}/mcp.json`,
      configFor({
        raw: stdioEntry("ok", {
          env: { SERVICE_API_KEY: "live-key-abcdef123456", LEVEL: "debug" },
        }),
        off: { command: "nonexistent-binary", disabled: true },
      }),
    );
    const r = await runInProcess([
      "contract",
      "init",
      "--lock",
      `${dir}/contractpin.lock`,
      "--config",
      `${dir}/mcp.json`,
      "--file",
      `saved=${dir}/tools.json`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const lock = JSON.parse(await Deno.readTextFile(`${dir}/contractpin.lock`));
    assert.deepEqual(Object.keys(lock.servers).sort(), ["raw", "saved"]);
    assert.deepEqual(lock.servers.raw.env, {
      LEVEL: "debug",
      SERVICE_API_KEY: "${SERVICE_API_KEY}",
    });
    assert.ok(!(await Deno.readTextFile(`${dir}/contractpin.lock`)).includes("live-key"));
  });
});

Deno.test("config: verify --config reports a changed command and an unpinned server", async () => {
  await withTempDir(async (dir) => {
    const lock = `${dir}/contractpin.lock`;
    await Deno.writeTextFile(`${dir}/mcp.json`, configFor({ raw: stdioEntry("ok") }));
    assert.equal(
      (await runInProcess(["contract", "init", "--lock", lock, "--config", `${dir}/mcp.json`]))
        .code,
      0,
    );
    const verifyConfig = [
      "contract",
      "verify",
      "--lock",
      lock,
      "--config",
      `${dir}/mcp.json`,
      "--json",
    ];
    // Same definition: match.
    const same = await runInProcess(verifyConfig);
    assert.equal(same.code, 0, same.stdout);
    // The client config now runs something else under the pinned name (same tools!).
    await Deno.writeTextFile(`${dir}/mcp.json`, configFor({ raw: stdioEntry("ping-first") }));
    const changed = await runInProcess(verifyConfig);
    assert.equal(changed.code, 1);
    const changedReport = await assertJsonOutput(changed.stdout);
    assert.equal(changedReport.ok, false);
    assert.equal((changedReport.error as { code: string }).code, "CONTRACT_DRIFT");
    // deno-lint-ignore no-explicit-any
    const s = (changedReport.servers as any[])[0];
    assert.equal(s.status, "drift");
    assert.equal(s.tools.unchanged, 2);
    assert.deepEqual(s.identity_changed.locked.command.at(-1), "ok");
    assert.deepEqual(s.identity_changed.live.command.at(-1), "ping-first");
    // A configured server the lock does not know.
    await Deno.writeTextFile(
      `${dir}/mcp.json`,
      configFor({ raw: stdioEntry("ok"), extra: stdioEntry("ok") }),
    );
    const unpinned = await runInProcess(verifyConfig);
    assert.equal(unpinned.code, 1);
    const unpinnedReport = await assertJsonOutput(unpinned.stdout);
    assert.equal(unpinnedReport.ok, false);
    const statuses = (unpinnedReport.servers as { name: string; status: string }[]).map((
      x,
    ) => [x.name, x.status]);
    assert.deepEqual(statuses, [["raw", "match"], ["extra", "unpinned"]]);
  });
});

const badConfigs: [string, string, RegExp][] = [
  // Client configs are JSONC (comments and trailing commas); an unclosed comment is named.
  ["unclosed JSONC comment", '{ /* servers\n "mcpServers": {} }', /never closed.*byte 2/],
  [
    "duplicate server names",
    '{"mcpServers":{"a":{"command":"x"},"a":{"command":"y"}}}',
    /[Dd]uplicate/,
  ],
  ["no mcpServers", '{"mcpServer":{}}', /"mcpServers" object/],
  ["neither command nor url", '{"mcpServers":{"a":{"args":[]}}}', /neither "command"/],
  ["unknown type", '{"mcpServers":{"a":{"type":"ws","url":"http://127.0.0.1/mcp"}}}', /type "ws"/],
  [
    "args not strings",
    '{"mcpServers":{"a":{"command":"x","args":[1]}}}',
    /args must be an array of strings/,
  ],
  [
    "env not strings",
    '{"mcpServers":{"a":{"command":"x","env":{"A":true}}}}',
    /env\/A must be a string/,
  ],
  ["bad url", '{"mcpServers":{"a":{"url":"file:///etc/passwd"}}}', /http: or https:/],
  [
    "bad header",
    '{"mcpServers":{"a":{"url":"http://127.0.0.1/mcp","headers":{"Bad Name":"x"}}}}',
    /Name: value/,
  ],
];

for (const [label, text, message] of badConfigs) {
  Deno.test(`config: ${label} → exit 2`, async () => {
    assert.throws(
      () => parseMcpConfig(enc.encode(text), "mcp.json"),
      (e) => e instanceof SchemaPinError && message.test(e.message),
    );
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/mcp.json`, text);
      const r = await runInProcess([
        "contract",
        "init",
        "--lock",
        `${dir}/contractpin.lock`,
        "--config",
        `${dir}/mcp.json`,
      ]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
    });
  });
}

Deno.test("config: http entries with headers are parsed; the headers are not identity", () => {
  const targets = parseMcpConfig(
    enc.encode(
      '{"mcpServers":{"h":{"type":"http","url":"https://h.example/mcp","headers":{"Authorization":"Bearer ${T}"}}}}',
    ),
    "mcp.json",
  );
  assert.deepEqual(targets.get("h"), {
    name: "h",
    identity: { transport: "http", url: "https://h.example/mcp" },
    headers: [{ name: "Authorization", value: "Bearer ${T}" }],
  });
});

Deno.test("verify --format sarif / github / json end to end", async () => {
  await withTempDir(async (dir) => {
    const lock = `${dir}/contractpin.lock`;
    await Deno.writeTextFile(
      `${dir}/tools.json`,
      JSON.stringify({ tools: [{ name: "a" }, { name: "b" }] }),
    );
    assert.equal(
      (await runInProcess(["contract", "init", "--lock", lock, "--file", `f=${dir}/tools.json`]))
        .code,
      0,
    );
    await Deno.writeTextFile(
      `${dir}/tools.json`,
      JSON.stringify({ tools: [{ name: "a", description: "now with text" }] }),
    );
    const sarif = await runInProcess(["contract", "verify", "--lock", lock, "--format", "sarif"]);
    assert.equal(sarif.code, 1);
    const doc = JSON.parse(sarif.stdout);
    assert.deepEqual(
      doc.runs[0].results.map((
        r: { ruleId: string; message: { text: string } },
      ) => [r.ruleId, r.message.text]),
      [["contractpin/tool-drifted", "f/a drifted: description"], [
        "contractpin/tool-removed",
        "f/b was removed",
      ]],
    );
    const github = await runInProcess(["contract", "verify", "--lock", lock, "--format", "github"]);
    assert.equal(github.code, 1);
    assert.match(
      github.stdout,
      /^::error file=.*contractpin\.lock,line=\d+,title=contract tool drifted%3A f\/a::f\/a drifted: description$/m,
    );
    const json = await runInProcess(["contract", "verify", "--lock", lock, "--json"]);
    // deno-lint-ignore no-explicit-any
    const report = await assertJsonOutput(json.stdout) as any;
    assert.equal(report.format, "schemapin.contract.verify/1");
    assert.equal(report.ok, false);
    assert.equal(report.error.code, "CONTRACT_DRIFT");
    assert.equal(report.exit_code, 1);
    assert.equal(report.servers[0].diffs.length, 2);
    assert.match(report.servers[0].diffs[0].text, /^\+description: \|$/m);
    for (const bad of [["--format", "xml"], ["--json", "--format", "sarif"]]) {
      assert.equal(
        (await runInProcess(["contract", "verify", "--lock", lock, ...bad])).code,
        2,
        bad.join(" "),
      );
    }
  });
});
