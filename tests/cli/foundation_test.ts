// CLI tests for the foundation commands: --help, --version, canonicalize, keygen, fingerprint.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { assertJsonOutput } from "./json_schemas.ts";
import { runCliProcess, runInProcess, schemapinTaskFlags, withTempDir } from "./run.ts";
import { VERSION } from "../../lib/version.ts";
import { loadCommands } from "../../cli/commands/registry.ts";

const COMMANDS = await loadCommands();
import { parsePrivateKeyPem, parsePublicKeyPem } from "../../lib/crypto/keys.ts";

Deno.test("--version matches deno.json and --help lists every command", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(VERSION, config.version);
  const v = await runInProcess(["--version"]);
  assert.equal(v.code, 0);
  assert.equal(v.stdout, `schemapin ${VERSION}\n`);
  const h = await runInProcess(["--help"]);
  assert.equal(h.code, 0);
  for (const c of COMMANDS) assert.match(h.stdout, new RegExp(`\\n  ${c.name} `));
});

Deno.test("every command has --help with an example and exit codes", async () => {
  for (const c of COMMANDS) {
    const r = await runInProcess([c.name, "--help"]);
    assert.equal(r.code, 0, c.name);
    assert.match(r.stdout, /Example/, `${c.name} --help has an example`);
    assert.match(r.stdout, /Exit codes?/i, `${c.name} --help documents exit codes`);
  }
});

Deno.test("no arguments and unknown commands exit 2", async () => {
  assert.equal((await runInProcess([])).code, 2);
  const r = await runInProcess(["frobnicate"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /unknown command "frobnicate"/);
});

Deno.test("unknown options exit 2 naming the command", async () => {
  const r = await runInProcess(["canonicalize", "--bogus", "x.json"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /canonicalize: unknown option --bogus/);
});

Deno.test("canonicalize prints bytes with no trailing newline", async () => {
  const r = await runInProcess(["canonicalize", "-"], '{ "b": 1, "a": "é" }\n');
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '{"a":"é","b":1}');
});

Deno.test("canonicalize --contract uses UTF-16 order and RFC 8785 numbers", async () => {
  const input = '{"\\uffff":1,"\\ud83d\\ude00":2,"n":1e21}';
  const v1 = await runInProcess(["canonicalize", "-"], input);
  assert.equal(v1.code, 2, "1e21 has no schemapin-v1 form");
  assert.match(
    v1.stderr,
    /SCHEMA_CANONICALIZATION_FAILED: schemapin-v1: number 1e\+21 .* \(at \/n\)/,
  );
  const jcs = await runInProcess(["canonicalize", "--contract", "-"], input);
  assert.equal(jcs.code, 0);
  assert.equal(jcs.stdout, '{"n":1e+21,"\u{1F600}":2,"\uffff":1}');
});

Deno.test("canonicalize --json gives the id, text and hash", async () => {
  const r = await runInProcess(["canonicalize", "--json", "-"], "[1,2]");
  assert.equal(r.code, 0);
  const out = await assertJsonOutput(r.stdout);
  assert.equal(out.format, "schemapin.canonicalize/1");
  assert.equal(out.ok, true);
  assert.equal(out.canonicalization, "schemapin-v1");
  assert.equal(out.canonical, "[1,2]");
  // sha256: prefix, and the digest of the canonical text (node:crypto, not the code under test).
  assert.equal(out.sha256, "sha256:" + createHash("sha256").update("[1,2]").digest("hex"));
});

Deno.test("canonicalize rejects bad input with exit 2 and the offset", async () => {
  const cases: [string, RegExp][] = [
    ['{"a":1,"a":2}', /duplicate name "a" in object at byte 7 \(line 1, column 8\)/],
    ["[1,]", /trailing comma/],
    ['"\\ud800"', /lone high surrogate/],
    ["", /expected a value/],
  ];
  for (const [input, pattern] of cases) {
    const r = await runInProcess(["canonicalize", "-"], input);
    assert.equal(r.code, 2, input);
    assert.equal(r.stdout, "", "nothing on stdout");
    assert.match(r.stderr, pattern);
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  }
  const missing = await runInProcess(["canonicalize", "/nonexistent/x.json"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read \/nonexistent\/x\.json: no such file/);
  assert.equal((await runInProcess(["canonicalize"])).code, 2);
  assert.equal((await runInProcess(["canonicalize", "a", "b"])).code, 2);
});

Deno.test("keygen writes a 0600 private key and a public key; fingerprint agrees", async () => {
  await withTempDir(async (dir) => {
    const out = `${dir}/keys`;
    const r = await runInProcess(["keygen", "--unencrypted", "--out-dir", out, "--json"]);
    assert.equal(r.code, 0, r.stderr);
    const result = await assertJsonOutput(r.stdout);
    assert.equal(result.format, "schemapin.keygen/1");
    assert.equal(result.ok, true);
    assert.equal(result.private_key_path, `${out}/private.pem`);
    assert.equal((await Deno.stat(`${out}/private.pem`)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(out)).mode! & 0o777, 0o700);
    const priv = parsePrivateKeyPem(await Deno.readTextFile(`${out}/private.pem`));
    const pub = parsePublicKeyPem(await Deno.readTextFile(`${out}/public.pem`));
    assert.equal(priv.publicKey.fingerprint, pub.fingerprint);
    assert.equal(result.fingerprint, pub.fingerprint);
    assert.equal(result.public_key_pem, pub.pem);
    for (const file of ["private.pem", "public.pem"]) {
      const f = await runInProcess(["fingerprint", `${out}/${file}`]);
      assert.equal(f.stdout, pub.fingerprint + "\n");
    }
  });
});

Deno.test("keygen never overwrites without --force, and --force replaces", async () => {
  await withTempDir(async (dir) => {
    assert.equal((await runInProcess(["keygen", "--unencrypted", "--out-dir", dir])).code, 0);
    const before = await Deno.readTextFile(`${dir}/private.pem`);
    const again = await runInProcess(["keygen", "--unencrypted", "--out-dir", dir]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already exists; refusing to overwrite a key \(use --force\)/);
    assert.equal(await Deno.readTextFile(`${dir}/private.pem`), before);
    const forced = await runInProcess(["keygen", "--unencrypted", "--out-dir", dir, "--force"]);
    assert.equal(forced.code, 0);
    assert.notEqual(await Deno.readTextFile(`${dir}/private.pem`), before);
    assert.equal((await Deno.stat(`${dir}/private.pem`)).mode! & 0o777, 0o600);
  });
});

Deno.test("keygen with only public.pem present writes nothing", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/public.pem`, "keep");
    const r = await runInProcess(["keygen", "--unencrypted", "--out-dir", dir]);
    assert.equal(r.code, 2);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["public.pem"]);
    assert.equal(await Deno.readTextFile(`${dir}/public.pem`), "keep");
  });
});

Deno.test("keygen without --out, or into an unwritable place, exits 2", async () => {
  assert.equal((await runInProcess(["keygen"])).code, 2);
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/file`, "x");
    const r = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/file/sub`]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /IO_FAILED/);
  });
});

Deno.test("fingerprint rejects non-P-256 keys and garbage with exit 2", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/garbage.pem`, "not a key\n");
    const g = await runInProcess(["fingerprint", `${dir}/garbage.pem`]);
    assert.equal(g.code, 2);
    assert.match(g.stderr, /KEY_INVALID/);
    assert.match(g.stderr, /garbage\.pem/);
    const ed = new Deno.Command("openssl", {
      args: ["genpkey", "-algorithm", "ed25519", "-out", `${dir}/ed.pem`],
    });
    assert.equal((await ed.output()).code, 0);
    const r = await runInProcess(["fingerprint", `${dir}/ed.pem`]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /Ed25519/);
    // The CLI names its own key generator where the library names only openssl
    // (cli/library_words.ts), on the error printer and on the verify commands' input failure.
    const keygen = /make one with `schemapin keygen` or `openssl genpkey -algorithm EC /;
    assert.match(r.stderr, keygen);
    const pub = new Deno.Command("openssl", {
      args: ["pkey", "-in", `${dir}/ed.pem`, "-pubout", "-out", `${dir}/ed.pub.pem`],
    });
    assert.equal((await pub.output()).code, 0);
    await Deno.writeTextFile(`${dir}/s.json`, '{"name":"t","description":"d","inputSchema":{}}');
    await Deno.writeTextFile(`${dir}/s.sig`, "AAAA\n");
    for (const json of [[], ["--json"]]) {
      const v = await runInProcess([
        "verify-schema",
        `${dir}/s.json`,
        "--signature",
        `${dir}/s.sig`,
        "--domain",
        "example.com",
        "--public-key",
        `${dir}/ed.pub.pem`,
        ...json,
      ]);
      assert.equal(v.code, 2, v.stderr);
      assert.match(json.length ? v.stdout : v.stderr, keygen);
    }
  });
});

Deno.test("the real CLI runs with exactly the schemapin task's permission flags", async () => {
  const flags = await schemapinTaskFlags();
  assert.ok(flags.includes("--allow-read"));
  assert.ok(!flags.includes("-A") && !flags.includes("--allow-all"));
  await withTempDir(async (dir) => {
    const keygen = await runCliProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/k`]);
    assert.equal(keygen.code, 0, keygen.stderr);
    const fp = await runCliProcess(["fingerprint", `${dir}/k/public.pem`]);
    assert.equal(fp.code, 0);
    assert.match(fp.stdout, /^sha256:[0-9a-f]{64}\n$/);
    const canon = await runCliProcess(["canonicalize", "-"], { stdin: '{"b":[],"a":{}}' });
    assert.equal(canon.stdout, '{"a":{},"b":[]}');
    const bad = await runCliProcess(["canonicalize", "-"], { stdin: "{" });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^error: JSON_INVALID: stdin: /);
    assert.doesNotMatch(bad.stderr, /\n\s+at /);
  });
});

Deno.test("--help after -- belongs to the wrapped command, not to schemapin", async () => {
  const r = await runInProcess(["canonicalize", "--", "--help"]);
  assert.equal(r.code, 2);
  assert.doesNotMatch(r.stdout, /Usage:/);
  assert.match(r.stderr, /cannot read --help/);
});
