/**
 * `contract init --discover`: where each client keeps its config on each platform (by hand,
 * from the clients' documentation), how servers of several configs become lock entries, and
 * the CLI end to end with a fake HOME and project — real SDK fixture servers (stdio and
 * Streamable HTTP) pinned from Claude Code, VS Code (JSONC), Cursor, Claude Desktop, Windsurf
 * and Cline configs, the ones that cannot run skipped with their reason.
 */
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { join } from "node:path";
import type { ConfigEntry } from "../../cli/mcp_config/read.ts";
import {
  type ClientConfigLocation,
  clientConfigLocations,
  discoveryEnvironmentOf,
} from "../../cli/mcp_config/formats.ts";
import { planDiscovery } from "../../cli/mcp_config/discover.ts";
import {
  baseTools,
  readJson,
  runCliProcess,
  sdkStdioCommand,
  startSdkHttp,
  withTempDir,
  writeTools,
} from "./helpers.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";

Deno.test("discover: config locations on Linux, macOS and Windows", () => {
  const paths = (l: ClientConfigLocation[]) => Object.fromEntries(l.map((x) => [x.id, x.path]));
  assert.deepEqual(
    paths(clientConfigLocations({ home: "/home/me", platform: "linux", projectDir: "/src/app" })),
    {
      "claude-code-project": "/src/app/.mcp.json",
      "cursor-project": "/src/app/.cursor/mcp.json",
      "vscode-workspace": "/src/app/.vscode/mcp.json",
      "claude-desktop": "/home/me/.config/Claude/claude_desktop_config.json",
      "claude-code-user": "/home/me/.claude.json",
      "cursor-user": "/home/me/.cursor/mcp.json",
      "vscode-user": "/home/me/.config/Code/User/mcp.json",
      windsurf: "/home/me/.codeium/windsurf/mcp_config.json",
      cline:
        "/home/me/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
      "cline-cli": "/home/me/.cline/data/settings/cline_mcp_settings.json",
    },
  );
  const xdg = paths(clientConfigLocations({
    home: "/home/me",
    platform: "linux",
    projectDir: "/p",
    xdgConfigHome: "/cfg",
  }));
  assert.equal(xdg["claude-desktop"], "/cfg/Claude/claude_desktop_config.json");
  assert.equal(xdg["vscode-user"], "/cfg/Code/User/mcp.json");
  const mac = paths(
    clientConfigLocations({ home: "/Users/me", platform: "darwin", projectDir: "/p" }),
  );
  assert.equal(
    mac["claude-desktop"],
    "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
  );
  assert.equal(mac["vscode-user"], "/Users/me/Library/Application Support/Code/User/mcp.json");
  assert.equal(
    mac.cline,
    "/Users/me/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
  );
  assert.equal(mac["cursor-user"], "/Users/me/.cursor/mcp.json");
  const win = paths(clientConfigLocations({
    home: "C:\\Users\\me",
    platform: "windows",
    projectDir: "C:\\src\\app",
    appData: "C:\\Users\\me\\AppData\\Roaming",
  }));
  assert.equal(
    win["claude-desktop"],
    "C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
  );
  assert.equal(win["vscode-user"], "C:\\Users\\me\\AppData\\Roaming\\Code\\User\\mcp.json");
  assert.equal(win["claude-code-user"], "C:\\Users\\me\\.claude.json");
  assert.equal(win.windsurf, "C:\\Users\\me\\.codeium\\windsurf\\mcp_config.json");
  assert.equal(win["vscode-workspace"], "C:\\src\\app\\.vscode\\mcp.json");
  // Without %APPDATA%, its default under the profile folder.
  const winDefault = paths(clientConfigLocations({
    home: "C:\\Users\\me",
    platform: "windows",
    projectDir: "C:\\p",
  }));
  assert.equal(
    winDefault["claude-desktop"],
    "C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
  );
});

Deno.test("discover: one entry per server, renamed on a clash, skipped with the reason", () => {
  const [project, cursor, desktop] = clientConfigLocations({
    home: "/h",
    platform: "linux",
    projectDir: "/p",
  }).filter((l) => ["claude-code-project", "cursor-project", "claude-desktop"].includes(l.id));
  const stdio = (name: string, ...command: string[]): ConfigEntry => ({
    name,
    path: ["mcpServers", name],
    disabled: false,
    target: { name, identity: { transport: "stdio", command } },
  });
  const { servers, skipped } = planDiscovery([
    { location: project, entries: [stdio("fs", "npx", "server-fs"), stdio("git", "uvx", "git")] },
    {
      location: cursor,
      entries: [
        stdio("fs", "npx", "server-fs"), // the same server: pinned once
        stdio("git", "uvx", "git", "--repo", "."), // another server under the same name
        { ...stdio("off", "x"), disabled: true },
        { name: "bad", path: ["mcpServers", "bad"], disabled: false, problem: "no command" },
      ],
    },
    { location: desktop, entries: [stdio("git", "docker", "git")] },
  ]);
  assert.deepEqual(
    servers.map((s) => [s.lockName, s.configName, s.from.id, s.alsoIn.map((l) => l.id)]),
    [
      ["fs", "fs", "claude-code-project", ["cursor-project"]],
      ["git", "git", "claude-code-project", []],
      ["git@cursor-project", "git", "cursor-project", []],
      ["git@claude-desktop", "git", "claude-desktop", []],
    ],
  );
  assert.equal(servers[2].target.name, "git@cursor-project");
  assert.deepEqual(skipped.map((s) => [s.name, s.from.id, s.reason]), [
    ["off", "cursor-project", "disabled in the config"],
    ["bad", "cursor-project", "no command"],
  ]);
});

/** A fake machine: HOME with user configs, a project with its own, SDK fixture servers. */
async function machine(dir: string, httpUrl: string) {
  const home = join(dir, "home"), project = join(dir, "project");
  const write = async (path: string, text: string) => {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text);
  };
  const tools = join(dir, "tools.json"), other = join(dir, "other.json");
  await writeTools(tools, baseTools());
  await writeTools(other, baseTools().slice(0, 2));
  const [command, ...args] = sdkStdioCommand();
  const fixture = (file: string) => ({ command, args, env: { FIXTURE_TOOLS: file } });
  // Claude Code, project scope.
  await write(
    join(project, ".mcp.json"),
    JSON.stringify({ mcpServers: { fixture: fixture(tools) } }),
  );
  // VS Code, workspace: JSONC with the same server (pinned once), one reaching its tools
  // through ${workspaceFolder}, and one needing an ${input:…}.
  await writeTools(join(project, "tools.json"), baseTools().slice(1));
  await write(
    join(project, ".vscode", "mcp.json"),
    `{
  // VS Code workspace servers
  "inputs": [{ "type": "promptString", "id": "key", "description": "Key", "password": true }],
  "servers": {
    "fixture": { "type": "stdio", "command": ${JSON.stringify(command)}, "args": ${
      JSON.stringify(args)
    }, "env": { "FIXTURE_TOOLS": ${JSON.stringify(tools)} } },
    "workspace": { "type": "stdio", "command": ${JSON.stringify(command)}, "args": ${
      JSON.stringify(args)
    }, "env": { "FIXTURE_TOOLS": "\${workspaceFolder}/tools.json" }, },
    "asks": { "type": "stdio", "command": "srv", "env": { "KEY": "\${input:key}" } },
  },
}
`,
  );
  // Cursor, user: another server named "fixture", and one needing an unset variable.
  await write(
    join(home, ".cursor", "mcp.json"),
    JSON.stringify({
      mcpServers: {
        fixture: fixture(other),
        weather: { command: "npx", args: ["-y", "weather"], env: { K: "${env:CP_UNSET_VAR_X}" } },
      },
    }),
  );
  // Claude Desktop (Linux path): a server that cannot start.
  await write(
    join(home, ".config", "Claude", "claude_desktop_config.json"),
    JSON.stringify({ mcpServers: { broken: { command: join(dir, "no-such-server") } } }),
  );
  // Windsurf: Streamable HTTP via serverUrl.
  await write(
    join(home, ".codeium", "windsurf", "mcp_config.json"),
    JSON.stringify({ mcpServers: { remote: { serverUrl: httpUrl } } }),
  );
  // Cline (VS Code extension storage): disabled, and a transport nobody speaks.
  await write(
    join(
      home,
      ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
    ),
    JSON.stringify({
      mcpServers: {
        off: { command: "x", disabled: true, autoApprove: [] },
        ws: { type: "websocket", url: "wss://example.com/mcp" },
      },
    }),
  );
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
  return { home, project, env, tools };
}

Deno.test("discover: init --discover pins what it can from every client config", async () => {
  await withTempDir(async (dir) => {
    const httpTools = join(dir, "http-tools.json");
    await writeTools(httpTools, baseTools().slice(0, 1));
    const http = await startSdkHttp({ toolsFile: httpTools });
    try {
      const m = await machine(dir, http.url);
      const r = await runCliProcess(["contract", "init", "--discover"], {
        env: m.env,
        cwd: m.project,
      });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const out = r.stdout;
      assert.match(out, /^found 6 MCP client configs:$/m);
      for (
        const line of [
          `Claude Code (project)  ${m.project}/.mcp.json: fixture`,
          `VS Code (workspace)    ${m.project}/.vscode/mcp.json: fixture, workspace, asks`,
          `Cursor (user)          ${m.home}/.cursor/mcp.json: fixture, weather`,
        ]
      ) assert.ok(out.includes(line), `${line}\n---\n${out}`);
      assert.match(out, /same server fixture in Claude Code \(project\) and VS Code \(workspace\)/);
      assert.match(out, /renamed fixture \(Cursor \(user\)\) to fixture@cursor-user/);
      assert.match(out, /skipped asks \(VS Code \(workspace\), .*\): .*\$\{input:key\}/);
      assert.match(out, /skipped weather \(Cursor \(user\), .*\): .*CP_UNSET_VAR_X is not set/);
      assert.match(out, /skipped off \(Cline \(VS Code\), .*\): disabled in the config/);
      assert.match(out, /skipped ws \(Cline \(VS Code\), .*\): .*type "websocket"/);
      assert.match(out, /skipped broken \(Claude Desktop, .*\): .*(start|found|exist)/i);
      const lock = await readJson(join(m.project, "contractpin.lock"));
      const servers = lock.servers as Record<string, Record<string, unknown>>;
      assert.deepEqual(Object.keys(servers).sort(), [
        "fixture",
        "fixture@cursor-user",
        "remote",
        "workspace",
      ]);
      assert.equal(servers.fixture.tool_count, 4);
      assert.equal(servers["fixture@cursor-user"].tool_count, 2);
      assert.equal(servers.workspace.tool_count, 3);
      assert.deepEqual(servers.workspace.env, { FIXTURE_TOOLS: `${m.project}/tools.json` });
      assert.equal(servers.remote.transport, "http");
      assert.equal(servers.remote.tool_count, 1);

      // --json: the same, as data; with the lock in place, --force re-pins.
      const j = await runCliProcess(["contract", "init", "--discover", "--force", "--json"], {
        env: m.env,
        cwd: m.project,
      });
      assert.equal(j.code, 0, j.stderr);
      // deno-lint-ignore no-explicit-any
      const report = await assertJsonOutput(j.stdout) as any;
      assert.equal(report.format, "schemapin.contract.init/1");
      assert.equal(report.ok, true);
      assert.deepEqual(report.discovered.configs.map((c: { client: string }) => c.client), [
        "claude-code",
        "vscode",
        "claude-desktop",
        "cursor",
        "windsurf",
        "cline",
      ]);
      assert.deepEqual(report.discovered.renamed, [{
        name: "fixture",
        config: `${m.home}/.cursor/mcp.json`,
        lock_name: "fixture@cursor-user",
      }]);
      assert.deepEqual(
        report.discovered.skipped.map((s: { name: string }) => s.name).sort(),
        ["asks", "broken", "off", "weather", "ws"],
      );
      assert.deepEqual(report.servers.map((s: { name: string }) => s.name).sort(), [
        "fixture",
        "fixture@cursor-user",
        "remote",
        "workspace",
      ]);
    } finally {
      await http.stop();
    }
  });
});

Deno.test("discover: a malformed config stops discovery (exit 2, file and offset)", async () => {
  await withTempDir(async (dir) => {
    const home = join(dir, "home"), project = join(dir, "project");
    await Deno.mkdir(join(home, ".cursor"), { recursive: true });
    await Deno.mkdir(project);
    const bad = join(home, ".cursor", "mcp.json");
    await Deno.writeTextFile(bad, '{\n  "mcpServers": {\n    "a": {"command": "x",,}\n  }\n}');
    const r = await runCliProcess(["contract", "init", "--discover"], {
      env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
      cwd: project,
    });
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      new RegExp(`JSON_INVALID: ${bad}: .* at byte 45 \\(line 3, column 26\\)`),
    );
    assert.deepEqual([...Deno.readDirSync(project)], []);
  });
});

Deno.test("discover: nothing found, nothing runnable, bad arguments → exit 2", async () => {
  await withTempDir(async (dir) => {
    const home = join(dir, "home"), project = join(dir, "project");
    await Deno.mkdir(home);
    await Deno.mkdir(project);
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const none = await runCliProcess(["contract", "init", "--discover"], { env, cwd: project });
    assert.equal(none.code, 2);
    assert.match(none.stdout, /^found no MCP client config; looked in:\n/);
    assert.ok(none.stdout.includes(`  Cursor (user): ${home}/.cursor/mcp.json\n`));
    assert.match(none.stderr, /no servers to pin.*--discover \(discovery found none it can run\)/);

    // Only servers that cannot run: still nothing to pin.
    await Deno.writeTextFile(
      join(project, ".mcp.json"),
      '{"mcpServers": {"k": {"command": "srv", "env": {"K": "${CP_UNSET_VAR_Y}"}}}}',
    );
    const unrunnable = await runCliProcess(["contract", "init", "--discover"], {
      env,
      cwd: project,
    });
    assert.equal(unrunnable.code, 2);
    assert.match(
      unrunnable.stdout,
      /skipped k \(Claude Code \(project\), .*CP_UNSET_VAR_Y is not set/,
    );
    assert.deepEqual([...Deno.readDirSync(project)].map((e) => e.name), [".mcp.json"]);

    const project2 = await runCliProcess(["contract", "init", "--project", project], { env });
    assert.equal(project2.code, 2);
    assert.match(project2.stderr, /--project DIR goes with --discover/);
  });
});

Deno.test("discover: a literal credential in a discovered command is skipped, not written", async () => {
  await withTempDir(async (dir) => {
    const home = join(dir, "home"), project = join(dir, "project");
    await Deno.mkdir(home);
    await Deno.mkdir(project);
    const tools = join(dir, "tools.json");
    await writeTools(tools, baseTools());
    const [command, ...args] = sdkStdioCommand();
    await Deno.writeTextFile(
      join(project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          leaky: { command, args: [...args, "--api-key=sk-live-0123456789abcdefXYZ"] },
          fine: { command, args, env: { FIXTURE_TOOLS: tools } },
        },
      }),
    );
    const r = await runCliProcess(["contract", "init", "--discover"], {
      env: { HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
      cwd: project,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /skipped leaky [^]*argument \d+ \(--api-key=…\)/);
    const lock = await Deno.readTextFile(join(project, "contractpin.lock"));
    assert.ok(!lock.includes("sk-live"));
    assert.deepEqual(
      Object.keys((await readJson(join(project, "contractpin.lock"))).servers as object),
      [
        "fine",
      ],
    );
  });
});

Deno.test("discoveryEnvironmentOf: the home folder, APPDATA and XDG_CONFIG_HOME by platform", () => {
  const table: Record<string, string> = {
    HOME: "/home/me",
    USERPROFILE: "/c/Users/me", // absolute as this platform's node:path judges it
    APPDATA: "C:\\Users\\me\\AppData\\Roaming",
    XDG_CONFIG_HOME: "",
  };
  const env = (n: string) => table[n];
  assert.deepEqual(discoveryEnvironmentOf("/src/app", env, "linux"), {
    home: "/home/me",
    platform: "linux",
    projectDir: "/src/app",
    appData: "C:\\Users\\me\\AppData\\Roaming",
    xdgConfigHome: undefined,
  });
  // Windows reads %USERPROFILE% first, then $HOME.
  assert.equal(discoveryEnvironmentOf(".", env, "windows").home, "/c/Users/me");
  assert.equal(
    discoveryEnvironmentOf(".", (n) => n === "HOME" ? "/h" : undefined, "windows").home,
    "/h",
  );
});

Deno.test("discoveryEnvironmentOf: no home folder, or a relative one, is a usage error", () => {
  const cases: [Record<string, string>, string, string][] = [
    [{}, "linux", "$HOME"],
    [{ HOME: "home/me" }, "darwin", "$HOME"],
    [{ HOME: "" }, "linux", "$HOME"],
    [{}, "windows", "%USERPROFILE%"],
  ];
  for (const [table, platform, name] of cases) {
    assert.throws(
      () => discoveryEnvironmentOf(".", (n) => table[n], platform),
      (e) =>
        e instanceof SchemaPinError && e.details.usage === true &&
        e.message === `the home folder is unknown (${name} is not set to an absolute path)`,
    );
  }
});

Deno.test("discoveryEnvironmentOf: arguments of the wrong type are INPUT_INVALID", () => {
  const env = () => "/home/me";
  for (const args of [[undefined, env, "linux"], [".", "HOME", "linux"], [".", env, 1]]) {
    assert.throws(
      () => (discoveryEnvironmentOf as (...a: unknown[]) => unknown)(...args),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
    );
  }
});
