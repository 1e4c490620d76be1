/**
 * Credentials never reach the lock (§5 "Secrets"): `${VAR}` expansion, header parsing, env
 * and URL sanitising, warnings for secret-looking arguments — and a grep of written locks.
 */
import assert from "node:assert/strict";
import {
  expandVariables,
  findSecretArguments,
  looksLikeSecretName,
  looksLikeSecretValue,
  redactCommand,
  redactUrl,
  sanitizeEnv,
  sanitizeIdentity,
  sanitizeUrl,
} from "../../lib/contractpin/secrets.ts";
import { parseHeader } from "../../cli/mcp/header_option.ts";
import { prepareTarget } from "../../lib/contractpin/live.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  baseTools,
  listDir,
  rawCommand,
  runInProcess,
  sdkStdioCommand,
  withTempDir,
  writeTools,
} from "./helpers.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("secrets: ${VAR} expands from the environment; an unset variable is an error", () => {
  assert.equal(expandVariables("Bearer ${T}-${U}", env({ T: "a", U: "b" }), "x"), "Bearer a-b");
  assert.equal(expandVariables("no refs $T {T}", env({}), "x"), "no refs $T {T}");
  assert.throws(
    () => expandVariables("Bearer ${MISSING}", env({}), "--header Authorization"),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      /MISSING is not set/.test(e.message),
  );
  // An empty variable is set (and expands to nothing), unlike an unset one.
  assert.equal(expandVariables("${E}", env({ E: "" }), "x"), "");
});

Deno.test("secrets: --header parsing", () => {
  assert.deepEqual(parseHeader("Authorization:   Bearer ${T} "), {
    name: "Authorization",
    value: "Bearer ${T}",
  });
  assert.deepEqual(parseHeader("X-Api-Key:"), { name: "X-Api-Key", value: "" });
  for (
    const bad of [
      "NoColon",
      ": value",
      "Bad Name: v",
      "X-A: a\nb",
      "Accept: */*",
      "mcp-session-id: 1",
      "Content-Type: x",
    ]
  ) {
    assert.throws(
      () => parseHeader(bad),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
      bad,
    );
  }
});

Deno.test("secrets: env values that look secret become ${NAME}; references and plain values stay", () => {
  const warnings: { where: string; message: string }[] = [];
  const out = sanitizeEnv({
    GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz012345",
    DB_PASSWORD: "hunter2",
    apiKey: "k",
    FROM_REF: "${SOME_VAR}",
    OPAQUE: "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo",
    DATABASE_URL: "postgres://app:s3cret@db/app",
    NODE_ENV: "production",
    PATH_LIKE: "/usr/local/bin:/usr/bin",
  }, warnings);
  assert.deepEqual(out, {
    GITHUB_TOKEN: "${GITHUB_TOKEN}",
    DB_PASSWORD: "${DB_PASSWORD}",
    apiKey: "${apiKey}",
    FROM_REF: "${SOME_VAR}",
    OPAQUE: "${OPAQUE}",
    DATABASE_URL: "${DATABASE_URL}",
    NODE_ENV: "production",
    PATH_LIKE: "/usr/local/bin:/usr/bin",
  });
  assert.equal(warnings.length, 5);
  assert.ok(warnings.every((w) => !/ghp_|hunter2|s3cret|Zm9v/.test(w.message)));
});

Deno.test("secrets: secret-looking names and values", () => {
  for (
    const n of [
      "TOKEN",
      "GITHUB_TOKEN",
      "api_key",
      "apiKey",
      "X-Api-Key",
      "CLIENT_SECRET",
      "password",
      "AUTH",
      "SESSION_ID",
    ]
  ) {
    assert.ok(looksLikeSecretName(n), n);
  }
  for (const n of ["NODE_ENV", "KEYBOARD", "MONKEY", "AUTHOR", "PATH", "region", "DEBUG"]) {
    assert.ok(!looksLikeSecretName(n), n);
  }
  for (
    const v of [
      "sk-proj-abcdefghijklmnop1234",
      "xoxb-1234567890-abc",
      "AKIAABCDEFGHIJKLMNOP",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig",
      "Bearer abcdefgh123",
    ]
  ) {
    assert.ok(looksLikeSecretValue(v), v);
  }
  for (
    const v of [
      "production",
      "/tmp/work",
      "${TOKEN}",
      "https://example.com/x",
      "true",
      "a".repeat(40),
    ]
  ) {
    assert.ok(!looksLikeSecretValue(v), v);
  }
});

Deno.test("secrets: URLs lose userinfo, credential parameters and the fragment; references stay", () => {
  const w: { where: string; message: string }[] = [];
  assert.equal(
    sanitizeUrl(
      "https://u:p@mcp.example.com/v1/mcp?api_key=abc&region=eu&token=${TOK}&access_token=zz#frag",
      w,
    ),
    "https://mcp.example.com/v1/mcp?region=eu&token=${TOK}",
  );
  assert.equal(w.length, 3);
  assert.equal(sanitizeUrl("http://127.0.0.1:8080/mcp", []), "http://127.0.0.1:8080/mcp");
  for (const bad of ["ftp://x/", "not a url", "/relative/mcp"]) {
    assert.throws(() => sanitizeUrl(bad, []), (e) => e instanceof SchemaPinError, bad);
  }
  assert.equal(redactUrl("https://a:b@h/x?k=v&t=1"), "https://h/x?k=…&t=…");
});

/** [argv, index of the credential argument, what is shown, the suggestion]. */
const SECRET_ARGS: [string[], number, string, string][] = [
  [["srv", "--api-key=sk-SECRET8aaaaaaaaaaaaaaaa"], 1, "--api-key=…", "--api-key=${API_KEY}"],
  [["srv", "--api-key=abc123"], 1, "--api-key=…", "--api-key=${API_KEY}"],
  [["srv", "--token", "abc123"], 2, "…", "${TOKEN}"],
  [["srv", "--clientSecret", "x-y-z"], 2, "…", "${CLIENT_SECRET}"],
  [
    ["srv", "--header", "Authorization: Bearer SECRET9"],
    2,
    "Authorization: Bearer …",
    "Authorization: Bearer ${TOKEN}",
  ],
  [["srv", "-H", "X-Api-Key: k3y"], 2, "X-Api-Key: …", "X-Api-Key: ${X_API_KEY}"],
  [["srv", "Cookie: sid=abc"], 1, "Cookie: …", "Cookie: ${COOKIE}"],
  [["srv", "Bearer abcdefgh12345678"], 1, "Bearer …", "Bearer ${TOKEN}"],
  [["srv", "--auth=Basic dXNlcjpwYXNz"], 1, "--auth=Basic …", "--auth=Basic ${TOKEN}"],
  [
    ["srv", "https://user:SECRET10@example.com/x"],
    1,
    "https://user:…@example.com/x",
    "https://user:${USER_PASSWORD}@example.com/x",
  ],
  [
    ["srv", "--url=postgres://app:pw@db/x"],
    1,
    "--url=postgres://app:…@db/x",
    "--url=postgres://app:${APP_PASSWORD}@db/x",
  ],
  [
    ["srv", "https://h/mcp?region=eu&api_key=xyz"],
    1,
    "https://h/mcp?region=eu&api_key=…",
    "https://h/mcp?region=eu&api_key=${API_KEY}",
  ],
  [["srv", "ghp_abcdefghijklmnopqrstuvwxyz012345"], 1, "…", "${TOKEN}"],
  [["srv", "--x", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig"], 2, "…", "${TOKEN}"],
];

Deno.test("secrets: every shape of credential in argv is found, hidden, and given its ${VAR} form", () => {
  for (const [argv, index, shown, suggestion] of SECRET_ARGS) {
    const found = findSecretArguments(argv);
    assert.equal(found.length, 1, JSON.stringify(argv));
    assert.deepEqual([found[0].index, found[0].shown, found[0].suggestion], [
      index,
      shown,
      suggestion,
    ]);
    const redacted = redactCommand(argv);
    for (const part of argv[index].split(/[\s:@=&?]+/).filter((p) => p.length >= 3)) {
      if (/^(SECRET|sk-|ghp_|abc|eyJ|xyz|pw$|x-y|k3y|dXN)/.test(part)) {
        assert.ok(!redacted.join(" ").includes(part), `${part} hidden in ${redacted.join(" ")}`);
      }
    }
  }
});

Deno.test("secrets: references, paths, numbers and ordinary arguments are not credentials", () => {
  const clean: string[][] = [
    ["srv", "--token=${TOKEN}", "--verbose", "/data"],
    ["srv", "--api-key", "${API_KEY}"],
    ["srv", "--header", "Authorization: Bearer ${TOKEN}"],
    ["srv", "https://user:${PW}@example.com/x", "https://h/mcp?api_key=${KEY}&region=eu"],
    ["srv", "--key-file", "/etc/srv/key.pem", "--token-path=./token"],
    ["deno", "run", "server.ts", "/tmp/schemapin-test-d877a9507434e9fe/pid"],
    ["srv", "--session-timeout", "30", "--auth", "false", "--max-tokens", "100"],
    ["npx", "-y", "@modelcontextprotocol/server-filesystem@2026.1.14", "/home/me/project"],
    ["node", "server.js", "--port", "8080", "--name", "my-server", "Content-Type: text/plain"],
    ["uvx", "mcp-server-git", "--repository", "https://github.com/org/repo.git"],
  ];
  for (const argv of clean) assert.deepEqual(findSecretArguments(argv), [], JSON.stringify(argv));
  assert.deepEqual(redactCommand(clean[0]), clean[0]);
});

Deno.test("secrets: a stdio identity with a literal credential is refused unless allowed", () => {
  const identity = {
    transport: "stdio" as const,
    command: ["srv", "--api-key=sk-SECRET8", "https://user:SECRET10@example.com/x"],
  };
  let e: unknown;
  try {
    sanitizeIdentity(identity, { server: "s" });
  } catch (caught) {
    e = caught;
  }
  assert.ok(e instanceof SchemaPinError && e.code === "INPUT_INVALID", String(e));
  assert.match(e.message, /server s: the command holds credentials/);
  assert.match(e.message, /argument 1 \(--api-key=…\) .*'--api-key=\$\{API_KEY\}'/);
  assert.match(e.message, /argument 2 \(https:\/\/user:…@example\.com\/x\)/);
  assert.doesNotMatch(e.message, /SECRET8|SECRET10/);
  const allowed = sanitizeIdentity(identity, { server: "s", allowLiteralSecrets: true });
  assert.deepEqual(allowed.identity, identity);
  assert.equal(allowed.warnings.length, 2);
  assert.ok(allowed.warnings.every((w) => !/SECRET/.test(w.message)));
  // References pass without the flag and without warnings.
  const clean = sanitizeIdentity({ transport: "stdio", command: ["srv", "--api-key=${API_KEY}"] });
  assert.deepEqual(clean.warnings, []);
});

Deno.test("secrets: prepareTarget expands references in command, env, cwd and URL", () => {
  const vars = env({ K: "key1", D: "/tmp", H: "127.0.0.1" });
  assert.deepEqual(
    prepareTarget({
      name: "s",
      identity: { transport: "stdio", command: ["x", "--k=${K}"], env: { A: "${K}" }, cwd: "${D}" },
    }, vars),
    { name: "s", transport: "stdio", command: ["x", "--k=key1"], env: { A: "key1" }, cwd: "/tmp" },
  );
  const http = prepareTarget({
    name: "h",
    identity: { transport: "http", url: "http://${H}/mcp" },
    headers: [{ name: "X-K", value: "${K}" }],
  }, vars);
  assert.deepEqual(http, {
    name: "h",
    transport: "http",
    url: "http://127.0.0.1/mcp",
    headers: [["X-K", "key1"]],
  });
  assert.throws(
    () => prepareTarget({ name: "h", identity: { transport: "http", url: "${NOPE}" } }, vars),
    /NOPE is not set/,
  );
});

Deno.test("secrets: a written lock holds no secret value (grep)", async () => {
  await withTempDir(async (dir) => {
    const secrets = [
      "ghp_abcdefghijklmnopqrstuvwxyz012345",
      "hunter2-db-pass",
      "sk-live-0123456789abcdefgh",
    ];
    Deno.env.set("CP_SECRET_ENV", "sk-live-0123456789abcdefgh");
    try {
      const r = await runInProcess([
        "contract",
        "init",
        "--lock",
        `${dir}/contractpin.lock`,
        "--server",
        "raw",
        "--env",
        `GITHUB_TOKEN=${secrets[0]}`,
        "--env",
        `DB_PASSWORD=${secrets[1]}`,
        "--env",
        "CP_SECRET_ENV",
        "--env",
        "MODE=fast",
        "--",
        ...rawCommand("ok"),
      ]);
      assert.equal(r.code, 0, r.stderr);
      for (const file of ["contractpin.lock", "contractpin.snapshot.json"]) {
        const text = await Deno.readTextFile(`${dir}/${file}`);
        for (const s of secrets) assert.ok(!text.includes(s), `${file} contains a secret`);
      }
      for (const s of secrets) assert.ok(!r.stderr.includes(s) && !r.stdout.includes(s));
      const lock = JSON.parse(await Deno.readTextFile(`${dir}/contractpin.lock`));
      assert.deepEqual(lock.servers.raw.env, {
        GITHUB_TOKEN: "${GITHUB_TOKEN}",
        DB_PASSWORD: "${DB_PASSWORD}",
        CP_SECRET_ENV: "${CP_SECRET_ENV}",
        MODE: "fast",
      });
      assert.match(r.stderr, /env GITHUB_TOKEN looks secret/);
      // verify needs the variables in its environment; without them it cannot run (exit 2).
      const missing = await runInProcess([
        "contract",
        "verify",
        "--lock",
        `${dir}/contractpin.lock`,
      ]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /(DB_PASSWORD|GITHUB_TOKEN) is not set/);
      Deno.env.set("GITHUB_TOKEN", "x");
      Deno.env.set("DB_PASSWORD", "y");
      const ok = await runInProcess(["contract", "verify", "--lock", `${dir}/contractpin.lock`]);
      assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    } finally {
      for (const v of ["CP_SECRET_ENV", "GITHUB_TOKEN", "DB_PASSWORD"]) Deno.env.delete(v);
    }
  });
});

Deno.test("secrets: ${VAR} references in the URL survive sanitising byte for byte", () => {
  assert.equal(
    sanitizeUrl("https://${MCP_HOST}/${TENANT}/mcp?key=${API_KEY}&x=1", []),
    "https://${MCP_HOST}/${TENANT}/mcp?key=${API_KEY}&x=1",
  );
  assert.equal(sanitizeUrl("HTTP://Example.com", []), "http://Example.com/");
  assert.equal(sanitizeUrl("https://a:b@h:8443/p?q", []), "https://h:8443/p?q");
});

/** The SDK fixture over stdio with `extra` arguments (it ignores them), serving baseTools(). */
async function fixtureServer(dir: string, extra: string[]): Promise<string[]> {
  await writeTools(`${dir}/tools.json`, baseTools());
  return ["--env", `FIXTURE_TOOLS=${dir}/tools.json`, "--", ...sdkStdioCommand(), ...extra];
}

const LITERAL = ["--api-key=sk-SECRET8", "--header", "Authorization: Bearer SECRET9"];
const LITERAL_URL = "https://user:SECRET10@example.com/x";

Deno.test("contract init refuses credentials in argv: exit 2, each argument named, nothing written", async () => {
  await withTempDir(async (dir) => {
    const r = await runInProcess([
      "contract",
      "init",
      "--lock",
      `${dir}/contractpin.lock`,
      "--server",
      "s",
      ...await fixtureServer(dir, [...LITERAL, LITERAL_URL]),
    ]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /argument \d+ \(--api-key=…\) .*'--api-key=\$\{API_KEY\}'/);
    assert.match(
      r.stderr,
      /argument \d+ \(Authorization: Bearer …\) .*'Authorization: Bearer \$\{TOKEN\}'/,
    );
    assert.match(r.stderr, /argument \d+ \(https:\/\/user:…@example\.com\/x\)/);
    assert.match(r.stderr, /--allow-literal-secrets/);
    assert.doesNotMatch(r.stdout + r.stderr, /SECRET8|SECRET9|SECRET10/);
    assert.deepEqual(await listDir(dir), ["tools.json"]); // no lock, no snapshot
  });
});

Deno.test("contract init: the ${VAR} forms it suggests work, and the lock keeps the references", async () => {
  await withTempDir(async (dir) => {
    Deno.env.set("CP_T_API_KEY", "sk-SECRET8");
    Deno.env.set("CP_T_TOKEN", "SECRET9");
    try {
      const r = await runInProcess([
        "contract",
        "init",
        "--lock",
        `${dir}/contractpin.lock`,
        "--server",
        "s",
        ...await fixtureServer(dir, [
          "--api-key=${CP_T_API_KEY}",
          "--header",
          "Authorization: Bearer ${CP_T_TOKEN}",
        ]),
      ]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      const lock = await Deno.readTextFile(`${dir}/contractpin.lock`);
      assert.match(lock, /"--api-key=\$\{CP_T_API_KEY\}"/);
      assert.match(lock, /"Authorization: Bearer \$\{CP_T_TOKEN\}"/);
      assert.doesNotMatch(lock + r.stdout + r.stderr, /SECRET8|SECRET9/);
      const v = await runInProcess(["contract", "verify", "--lock", `${dir}/contractpin.lock`]);
      assert.equal(v.code, 0, v.stdout + v.stderr);
    } finally {
      Deno.env.delete("CP_T_API_KEY");
      Deno.env.delete("CP_T_TOKEN");
    }
  });
});

Deno.test("contract init --allow-literal-secrets writes them as given, warning without the values", async () => {
  await withTempDir(async (dir) => {
    const r = await runInProcess([
      "contract",
      "init",
      "--allow-literal-secrets",
      "--lock",
      `${dir}/contractpin.lock`,
      "--server",
      "s",
      ...await fixtureServer(dir, LITERAL),
    ]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lock = await Deno.readTextFile(`${dir}/contractpin.lock`);
    assert.match(lock, /SECRET8/); // the user said so explicitly
    assert.match(r.stderr, /written to the lock as given \(--allow-literal-secrets\)/);
    assert.doesNotMatch(r.stdout + r.stderr, /SECRET8|SECRET9/);
  });
});

Deno.test("contract verify --config: a configured command's credentials never reach JSON, SARIF or text", async () => {
  await withTempDir(async (dir) => {
    const init = await runInProcess([
      "contract",
      "init",
      "--lock",
      `${dir}/contractpin.lock`,
      "--server",
      "s",
      ...await fixtureServer(dir, []),
    ]);
    assert.equal(init.code, 0, init.stdout + init.stderr);
    const [program, ...args] = sdkStdioCommand();
    await Deno.writeTextFile(
      `${dir}/mcp.json`,
      JSON.stringify({
        mcpServers: {
          s: {
            command: program,
            args: [...args, ...LITERAL, LITERAL_URL],
            env: { FIXTURE_TOOLS: `${dir}/tools.json` },
          },
        },
      }),
    );
    for (const format of ["human", "json", "sarif", "github"]) {
      const r = await runInProcess([
        "contract",
        "verify",
        "--lock",
        `${dir}/contractpin.lock`,
        "--config",
        `${dir}/mcp.json`,
        "--format",
        format,
      ]);
      assert.ok(r.code === 0 || r.code === 1, `${format}: ${r.stderr}`);
      assert.match(r.stdout + r.stderr, /--api-key=…/, format);
      assert.doesNotMatch(r.stdout + r.stderr, /SECRET8|SECRET9|SECRET10/, format);
    }
  });
});
