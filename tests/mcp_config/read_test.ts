/**
 * The MCP client config formats, read from fixtures written after each client's documented
 * examples (tests/fixtures/client_configs/): what each entry becomes, or why it cannot be
 * used. Expectations are written out by hand from those documents, not produced by the code.
 */
import assert from "node:assert/strict";
import { type ConfigEntry, parseClientConfig, parseMcpConfig } from "../../cli/mcp_config/read.ts";
import type { ConfigContext } from "../../cli/mcp_config/variables.ts";
import { SchemaPinError } from "../../lib/errors.ts";

const dir = new URL("../fixtures/client_configs/", import.meta.url);
const enc = new TextEncoder();

async function read(name: string, replace: Record<string, string> = {}): Promise<Uint8Array> {
  let text = await Deno.readTextFile(new URL(name, dir));
  for (const [k, v] of Object.entries(replace)) text = text.replaceAll(k, v);
  return enc.encode(text);
}

const noEnv = () => undefined;
const ctx: ConfigContext = { projectDir: "/src/app", home: "/home/me", env: noEnv };

/** name → target identity (+ headers, httpTransport) or the problem's pattern. */
function summary(entries: ConfigEntry[]) {
  return Object.fromEntries(entries.map((e) => [
    e.name,
    e.target
      ? {
        disabled: e.disabled,
        identity: e.target.identity,
        ...(e.target.headers?.length ? { headers: e.target.headers } : {}),
        ...(e.target.httpTransport ? { httpTransport: e.target.httpTransport } : {}),
      }
      : { disabled: e.disabled, problem: e.problem },
  ]));
}

Deno.test("client config: Claude Desktop (mcpServers, other settings ignored)", async () => {
  const { entries } = parseClientConfig(
    await read("claude_desktop_config.json"),
    "claude_desktop_config.json",
    ctx,
  );
  assert.deepEqual(summary(entries), {
    filesystem: {
      disabled: false,
      identity: {
        transport: "stdio",
        command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"],
      },
    },
    github: {
      disabled: false,
      identity: {
        transport: "stdio",
        command: [
          "docker",
          "run",
          "-i",
          "--rm",
          "-e",
          "GITHUB_PERSONAL_ACCESS_TOKEN",
          "ghcr.io/github/github-mcp-server",
        ],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" },
      },
    },
  });
});

Deno.test("client config: Claude Code .mcp.json (type stdio/http/sse, ${VAR:-default})", async () => {
  const bytes = await read("claude_code_project.mcp.json");
  const unset = summary(parseClientConfig(bytes, ".mcp.json", ctx).entries);
  assert.deepEqual(unset, {
    memory: {
      disabled: false,
      identity: {
        transport: "stdio",
        command: ["npx", "-y", "@modelcontextprotocol/server-memory"],
        env: {},
      },
    },
    // API_BASE_URL unset: the default; the header keeps its ${API_KEY} reference.
    api: {
      disabled: false,
      identity: { transport: "http", url: "https://api.example.com/mcp" },
      headers: [{ name: "Authorization", value: "Bearer ${API_KEY}" }],
    },
    asana: {
      disabled: false,
      identity: { transport: "http", url: "https://mcp.asana.com/sse" },
      httpTransport: "sse",
    },
  });
});

Deno.test("client config: ~/.claude.json (user scope + this project's local scope)", async () => {
  const bytes = await read("claude_code_user.claude.json", { __PROJECT__: "/src/app" });
  const { entries } = parseClientConfig(bytes, ".claude.json", ctx);
  assert.deepEqual(entries.map((e) => [e.name, e.path]), [
    ["playwright", ["mcpServers", "playwright"]],
    ["chrome-devtools", ["projects", "/src/app", "mcpServers", "chrome-devtools"]],
  ]);
  // Another project folder: only the user scope.
  const other = parseClientConfig(bytes, ".claude.json", { ...ctx, projectDir: "/elsewhere" });
  assert.deepEqual(other.entries.map((e) => e.name), ["playwright"]);
});

Deno.test("client config: Cursor (${env:NAME}, ${workspaceFolder}, ${userHome}, url+headers)", async () => {
  const { entries } = parseClientConfig(await read("cursor_mcp.json"), "mcp.json", ctx);
  assert.deepEqual(summary(entries), {
    "server-name": {
      disabled: false,
      identity: {
        transport: "stdio",
        command: ["npx", "-y", "mcp-server"],
        env: { API_KEY: "${MY_SERVICE_API_KEY}" },
      },
    },
    userjot: {
      disabled: false,
      identity: { transport: "http", url: "https://api.userjot.com/v1/mcp" },
      headers: [{ name: "Authorization", value: "Bearer ${USERJOT_API_TOKEN}" }],
    },
    "project-tool": {
      disabled: false,
      identity: {
        transport: "stdio",
        command: ["node", "/src/app/tools/server.js", "--home", "/home/me"],
      },
    },
  });
});

Deno.test("client config: VS Code .vscode/mcp.json (JSONC, servers, inputs)", async () => {
  const bytes = await read("vscode_mcp.json");
  const { entries } = parseClientConfig(bytes, "mcp.json", ctx);
  const s = summary(entries);
  assert.deepEqual(s.memory, {
    disabled: false,
    identity: { transport: "stdio", command: ["npx", "-y", "@modelcontextprotocol/server-memory"] },
  });
  assert.deepEqual(s.context7, {
    disabled: false,
    identity: { transport: "http", url: "https://mcp.context7.com/mcp" },
  });
  // ${input:…} is asked for by VS Code; contractpin cannot ask.
  assert.match(
    (s.perplexity as { problem: string }).problem,
    /^\/servers\/perplexity\/env\/PERPLEXITY_API_KEY uses \$\{input:perplexity-key\}.*\$\{env:NAME\}/,
  );
  // The strict reader (--config) refuses the file for it, naming the file and the member.
  assert.throws(
    () => parseMcpConfig(bytes, ".vscode/mcp.json", ctx),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      e.message.startsWith(".vscode/mcp.json: /servers/perplexity/env/PERPLEXITY_API_KEY uses"),
  );
});

Deno.test("client config: Windsurf (serverUrl, disabled)", async () => {
  const { entries } = parseClientConfig(await read("windsurf_mcp_config.json"), "x", ctx);
  assert.deepEqual(summary(entries), {
    github: {
      disabled: false,
      identity: { transport: "http", url: "https://api.githubcopilot.com/mcp/" },
      headers: [{ name: "Authorization", value: "Bearer ${GITHUB_PAT}" }],
    },
    git: {
      disabled: true,
      identity: { transport: "stdio", command: ["uvx", "mcp-server-git"], env: {} },
    },
    ollama: {
      disabled: false,
      identity: { transport: "stdio", command: ["py", "-m", "mcp_ollama_python"], env: {} },
    },
  });
  // The strict reader leaves disabled servers out.
  const strict = parseMcpConfig(await read("windsurf_mcp_config.json"), "x", ctx);
  assert.deepEqual([...strict.keys()], ["github", "ollama"]);
});

Deno.test("client config: Cline (streamableHttp, autoApprove, unknown type)", async () => {
  const bytes = await read("cline_mcp_settings.json");
  const { entries } = parseClientConfig(bytes, "x", ctx);
  const s = summary(entries);
  assert.deepEqual(s["local-server"], {
    disabled: false,
    identity: {
      transport: "stdio",
      command: ["node", "/path/to/server.js"],
      env: { API_KEY: "${API_KEY}" },
    },
  });
  assert.deepEqual(s["remote-server"], {
    disabled: false,
    identity: { transport: "http", url: "https://your-server.com/mcp" },
    headers: [{ name: "Authorization", value: "Bearer ${TOKEN}" }],
  });
  assert.deepEqual(s["websocket-server"], {
    disabled: false,
    problem: '/mcpServers/websocket-server has a url but type "websocket"',
  });
  // --config refuses the file for that entry (exit 2 in the CLI), naming file and member.
  assert.throws(
    () => parseMcpConfig(bytes, "cline_mcp_settings.json", ctx),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      e.message ===
        'cline_mcp_settings.json: /mcpServers/websocket-server has a url but type "websocket"',
  );
});

Deno.test("client config: variable forms", () => {
  const cases: [string, Record<string, string | undefined>, string | RegExp][] = [
    ["${env:TOKEN}", {}, "${TOKEN}"],
    ["${TOKEN}", {}, "${TOKEN}"],
    ["${MODE:-fast}", {}, "fast"],
    ["${MODE:-fast}", { MODE: "slow" }, "${MODE}"],
    ["${MODE:-}", {}, ""],
    ["${workspaceFolder}/x", {}, "/src/app/x"],
    ["${workspaceFolderBasename}", {}, "app"],
    ["${userHome}${pathSeparator}.cfg", {}, "/home/me/.cfg"],
    ["${/}", {}, "/"],
    ["${input:key}", {}, /uses \$\{input:key\}, which the client asks the user for/],
    [
      "${config:editor.fontSize}",
      {},
      /uses \$\{config:editor\.fontSize\}, which contractpin cannot/,
    ],
    ["${command:pick}", {}, /cannot resolve/],
  ];
  for (const [value, env, expected] of cases) {
    const doc = JSON.stringify({ mcpServers: { s: { command: "srv", args: [value] } } });
    const { entries } = parseClientConfig(enc.encode(doc), "x", {
      ...ctx,
      env: (n) => env[n],
    });
    if (typeof expected === "string") {
      assert.deepEqual(entries[0].target?.identity, {
        transport: "stdio",
        command: ["srv", expected],
      }, value);
    } else {
      assert.equal(entries[0].target, undefined, value);
      assert.match(entries[0].problem!, expected, value);
      assert.equal(entries[0].field, "/mcpServers/s/args/0");
    }
  }
});

Deno.test("client config: malformed and unusable entries", () => {
  const cases: [string, RegExp][] = [
    ['{"mcpServers": {"a": 1}}', /^\/mcpServers\/a must be an object$/],
    ['{"mcpServers": {"a": {"command": 7}}}', /command must be a string/],
    ['{"mcpServers": {"a": {"command": ""}}}', /command is empty/],
    ['{"mcpServers": {"a": {"command": "x", "type": "http"}}}', /has a command but type "http"/],
    ['{"mcpServers": {"a": {"type": "carrier-pigeon"}}}', /unknown type "carrier-pigeon"/],
    ['{"mcpServers": {"a": {"command": "x", "envFile": ".env"}}}', /envFile is not supported/],
    ['{"mcpServers": {"a": {"command": "x", "type": 3}}}', /type must be a string/],
    ['{"servers": {"a": {"url": "http://h/${input:u}"}}}', /\$\{input:u\}/],
  ];
  for (const [text, problem] of cases) {
    const { entries } = parseClientConfig(enc.encode(text), "x", ctx);
    assert.equal(entries.length, 1, text);
    assert.equal(entries[0].target, undefined, text);
    assert.match(entries[0].problem!, problem, text);
  }
  // Documents that are not client configs at all: errors naming the file.
  for (
    const [text, code, message] of [
      ["[]", "INPUT_INVALID", /x\.json: expected an object with an "mcpServers" object/],
      ['{"mcpServers": []}', "INPUT_INVALID", /\/mcpServers must be an object/],
      ['{"mcpServers": {}, /* open', "JSON_INVALID", /x\.json: a \/\* comment is never closed/],
      ['{"mcpServers": {"a": {}}, "mcpServers": {}}', "JSON_INVALID", /duplicate name/],
      ["{'mcpServers': {}}", "JSON_INVALID", /single-quoted/],
    ] as const
  ) {
    assert.throws(
      () => parseClientConfig(enc.encode(text), "x.json", ctx),
      (e) => e instanceof SchemaPinError && e.code === code && message.test(e.message),
      text,
    );
  }
  // The same name in mcpServers and servers: --config cannot pin both.
  assert.throws(
    () =>
      parseMcpConfig(
        enc.encode('{"mcpServers": {"a": {"command": "x"}}, "servers": {"a": {"command": "y"}}}'),
        "x.json",
      ),
    /server "a" is defined twice/,
  );
});

Deno.test("client config: an entry behind schemapin guard is read as its server", () => {
  const doc = {
    mcpServers: {
      a: {
        command: "/usr/local/bin/schemapin",
        args: ["guard", "--lock", "/p/contractpin.lock", "--server", "a", "--", "npx", "srv"],
        env: { K: "v" },
      },
      b: { url: "http://127.0.0.1:8931/mcp#schemapin-upstream=https://h.example/mcp?x=1" },
      c: { command: "deno", args: ["run", "-A", "/r/cli.ts", "guard", "--server", "c", "--", "x"] },
      // Not schemapin: an argument named guard is just an argument.
      d: { command: "other", args: ["guard", "--", "x"] },
      // schemapin guard without a command after -- is not a guarded entry.
      e: { command: "schemapin", args: ["guard", "--lock", "l", "--"] },
    },
  };
  const { entries } = parseClientConfig(enc.encode(JSON.stringify(doc)), "x", ctx);
  assert.deepEqual(
    entries.map((e) => [e.name, e.guarded ?? false, e.target?.identity]),
    [
      ["a", true, { transport: "stdio", command: ["npx", "srv"], env: { K: "v" } }],
      ["b", true, { transport: "http", url: "https://h.example/mcp?x=1" }],
      ["c", true, { transport: "stdio", command: ["x"] }],
      ["d", false, { transport: "stdio", command: ["other", "guard", "--", "x"] }],
      ["e", false, {
        transport: "stdio",
        command: ["schemapin", "guard", "--lock", "l", "--"],
      }],
    ],
  );
});
