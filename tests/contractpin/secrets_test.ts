/**
 * Credentials never reach the lock (§5 "Secrets"): `${VAR}` expansion, header parsing, env
 * and URL sanitising, warnings for secret-looking arguments — and a grep of written locks.
 */
import assert from "node:assert/strict";
import {
  expandVariables,
  looksLikeSecretName,
  looksLikeSecretValue,
  parseHeader,
  redactUrl,
  sanitizeEnv,
  sanitizeIdentity,
  sanitizeUrl,
  secretArgWarnings,
} from "../../lib/contractpin/secrets.ts";
import { prepareTarget } from "../../lib/contractpin/live.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { rawCommand, runInProcess, withTempDir } from "./helpers.ts";

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

Deno.test("secrets: arguments that look like secrets are warned about (and kept)", () => {
  assert.equal(secretArgWarnings(["srv", "--token=abc123", "--port", "8080"]).length, 1);
  assert.equal(secretArgWarnings(["srv", "--api-key", "abc123"]).length, 1);
  assert.equal(secretArgWarnings(["srv", "ghp_abcdefghijklmnopqrstuvwxyz012345"]).length, 1);
  assert.equal(secretArgWarnings(["srv", "--token=${TOKEN}", "--verbose", "/data"]).length, 0);
  const { identity, warnings } = sanitizeIdentity({
    transport: "stdio",
    command: ["srv", "--password=x1"],
  });
  assert.deepEqual(identity, { transport: "stdio", command: ["srv", "--password=x1"] });
  assert.equal(warnings.length, 1);
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
