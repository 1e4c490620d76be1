// Encrypted private keys in the CLI (§9): keygen --encrypt, the passphrase sources and their
// order, every command that takes --key, the no-echo prompt on a real pseudo-terminal.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import type { CliIO } from "../../cli/commands/command.ts";
import { UsageError } from "../../cli/commands/command.ts";
import { loadPrivateKey, readPassphrase } from "../../cli/commands/private_key.ts";
import { PASSPHRASE_ENV } from "../../cli/keys/passphrase.ts";
import {
  encryptedPrivateKeyParameters,
  encryptPrivateKeyPem,
} from "../../lib/crypto/encrypted_key.ts";
import { generateKeyPair, parsePublicKeyPem, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { openssl } from "../crypto/openssl_keys.ts";
import { exists, runCliProcess, runInProcess, withTempDir } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import { childCommand } from "../process.ts";
import { ignoreWithout } from "../required_tool.ts";

const PASS = "tr0ub4dor&3 passphrase";
const enc = new TextEncoder();

/** Runs `fn` with SCHEMAPIN_PASSPHRASE unset (restored afterwards). */
async function withoutEnv<T>(fn: () => Promise<T>): Promise<T> {
  const saved = Deno.env.get(PASSPHRASE_ENV);
  Deno.env.delete(PASSPHRASE_ENV);
  try {
    return await fn();
  } finally {
    if (saved !== undefined) Deno.env.set(PASSPHRASE_ENV, saved);
  }
}

/** A CliIO capturing stderr. */
function captureIO(): CliIO & { err: () => string } {
  let err = "";
  return {
    stdout: () => Promise.resolve(),
    stderr: (t) => {
      err += t;
      return Promise.resolve();
    },
    readStdin: () => Promise.resolve(new Uint8Array()),
    stderrIsTerminal: false,
    err: () => err,
  };
}

/** Files shared by the tests: keys (plain, encrypted by us and by OpenSSL), a schema. */
async function fixture(dir: string) {
  const key = generateKeyPair();
  const plain = `${dir}/plain.pem`;
  const encrypted = `${dir}/encrypted.pem`;
  const passFile = `${dir}/pass.txt`;
  await Deno.writeTextFile(plain, privateKeyToPem(key), { mode: 0o600 });
  await Deno.writeTextFile(encrypted, await encryptPrivateKeyPem(key, PASS), { mode: 0o600 });
  await Deno.writeTextFile(passFile, PASS + "\n", { mode: 0o600 });
  const schema = `${dir}/tool.json`;
  await Deno.writeTextFile(
    schema,
    JSON.stringify({ name: "calc", description: "adds", inputSchema: { type: "object" } }),
  );
  return { key, plain, encrypted, passFile, schema };
}

// ---------------------------------------------------------------- passphrase sources

Deno.test("passphrase order: --passphrase-file, then SCHEMAPIN_PASSPHRASE, then the prompt", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/p`, "from-file\r\nsecond line\n");
    const asked: string[] = [];
    const prompt = (q: string) => (asked.push(q), Promise.resolve("from-prompt"));
    const io = captureIO();
    const env = (value?: string) => (name: string) => name === PASSPHRASE_ENV ? value : undefined;
    const both = { command: "t", passphraseFile: `${dir}/p`, prompt, getEnv: env("from-env") };
    assert.equal(await readPassphrase(io, both, "k.pem"), "from-file", "CRLF and line 2 dropped");
    assert.match(io.err(), /--passphrase-file is used; SCHEMAPIN_PASSPHRASE is ignored/);
    assert.doesNotMatch(io.err(), /from-/, "no passphrase is ever printed");
    const envOnly = { command: "t", prompt, getEnv: env("from-env") };
    assert.equal(await readPassphrase(io, envOnly, "k.pem"), "from-env");
    assert.deepEqual(asked, []);
    assert.equal(
      await readPassphrase(io, { command: "t", prompt, getEnv: env() }, "k.pem"),
      "from-prompt",
    );
    assert.deepEqual(asked, ["Passphrase for k.pem: "]);
  });
});

Deno.test("passphrase errors: no source and no terminal, empty, mismatched, cancelled", async () => {
  const io = captureIO();
  const noEnv = () => undefined;
  const noTty = () => Promise.resolve(undefined);
  const usage = async (p: Promise<unknown>, pattern: RegExp) =>
    await assert.rejects(p, (e: unknown) => e instanceof UsageError && pattern.test(e.message));
  await usage(
    readPassphrase(io, { command: "sign-schema", prompt: noTty, getEnv: noEnv }, "k.pem"),
    /^sign-schema: k\.pem needs a passphrase: give --passphrase-file FILE or set SCHEMAPIN_PASSPHRASE \(there is no terminal/,
  );
  await usage(
    readPassphrase(io, { command: "t", getEnv: () => "" }, "k.pem"),
    /SCHEMAPIN_PASSPHRASE is set but empty/,
  );
  const answers = (...a: (string | undefined)[]) => () => Promise.resolve(a.shift());
  await usage(
    readPassphrase(io, { command: "t", prompt: answers(""), getEnv: noEnv }, "k.pem"),
    /the passphrase is empty/,
  );
  await usage(
    readPassphrase(io, { command: "t", prompt: answers("a1", "a2"), getEnv: noEnv }, "k", true),
    /the two passphrases differ; nothing was written/,
  );
  await usage(
    readPassphrase(
      io,
      { command: "t", prompt: answers("a1", undefined), getEnv: noEnv },
      "k",
      true,
    ),
    /passphrase entry cancelled/,
  );
  assert.equal(
    await readPassphrase(
      io,
      { command: "t", prompt: answers("same", "same"), getEnv: noEnv },
      "k",
      true,
    ),
    "same",
  );
});

Deno.test("passphrase files: empty, missing, not UTF-8 or over-long are refused", async () => {
  await withTempDir(async (dir) => {
    const io = captureIO();
    const cases: [string, Uint8Array | undefined, string, RegExp][] = [
      ["empty", enc.encode(""), "INPUT_INVALID", /is empty \(its first line is the passphrase\)/],
      ["blank-line", enc.encode("\nsecret\n"), "INPUT_INVALID", /is empty/],
      ["missing", undefined, "IO_FAILED", /cannot read .*missing: no such file/],
      ["latin1", new Uint8Array([0x70, 0xe4, 0x0a]), "INPUT_INVALID", /is not UTF-8 text/],
      ["long", enc.encode("x".repeat(1025)), "INPUT_INVALID", /longer than 1024 bytes/],
    ];
    for (const [name, bytes, code, pattern] of cases) {
      if (bytes) await Deno.writeFile(`${dir}/${name}`, bytes);
      await assert.rejects(
        readPassphrase(io, { command: "t", passphraseFile: `${dir}/${name}` }, "k.pem"),
        (e: unknown) => e instanceof SchemaPinError && e.code === code && pattern.test(e.message),
        name,
      );
    }
  });
});

Deno.test("loadPrivateKey names unsupported encryption before asking for a passphrase", async () => {
  await withTempDir(async (dir) => {
    const plain = `${dir}/plain.pem`;
    await Deno.writeTextFile(plain, privateKeyToPem(generateKeyPair()));
    const scrypt = `${dir}/scrypt.pem`;
    await openssl([
      "pkcs8",
      "-topk8",
      "-scrypt",
      "-in",
      plain,
      "-passout",
      "pass:x",
      "-out",
      scrypt,
    ]);
    let asked = false;
    await assert.rejects(
      loadPrivateKey(scrypt, captureIO(), {
        command: "t",
        prompt: () => (asked = true, Promise.resolve("x")),
        getEnv: () => undefined,
      }),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "KEY_INVALID" && /scrypt/.test(e.message),
    );
    assert.equal(asked, false);
    await assert.rejects(
      loadPrivateKey("-", captureIO(), { command: "t", passphraseFile: "-" }),
      (e: unknown) => e instanceof UsageError && /cannot both be stdin/.test(e.message),
    );
  });
});

// ---------------------------------------------------------------- keygen --encrypt

Deno.test("keygen --encrypt writes an encrypted 0600 key that openssl opens with the passphrase", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/pass`, PASS + "\n");
    const r = await runInProcess([
      "keygen",
      "--out",
      `${dir}/k`,
      "--encrypt",
      "--passphrase-file",
      `${dir}/pass`,
      "--json",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const result = await assertJsonOutput(r.stdout);
    assert.equal(result.format, "schemapin.keygen/1");
    assert.equal(result.ok, true);
    assert.equal(result.encrypted, true);
    const path = `${dir}/k/private.pem`;
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    const pem = await Deno.readTextFile(path);
    assert.match(pem, /^-----BEGIN ENCRYPTED PRIVATE KEY-----\n/);
    assert.equal(encryptedPrivateKeyParameters(pem).iterations, 600_000);
    const pub = new TextDecoder().decode(
      await openssl(["pkey", "-in", path, "-passin", `file:${dir}/pass`, "-pubout"]),
    );
    assert.equal(parsePublicKeyPem(pub).fingerprint, result.fingerprint);
    assert.equal(await Deno.readTextFile(`${dir}/k/public.pem`), pub);
    assert.ok(!r.stdout.includes(PASS) && !r.stderr.includes(PASS));
    const text = await runInProcess([
      "keygen",
      "--out",
      `${dir}/k2`,
      "--encrypt",
      "--passphrase-file",
      `${dir}/pass`,
    ]);
    assert.match(text.stdout, /wrote .*k2\/private\.pem \(encrypted, mode 0600\)/);
  });
});

Deno.test("keygen --encrypt without any passphrase source, or with an empty one, writes nothing (exit 2)", async () => {
  await withTempDir(async (dir) => {
    await withoutEnv(async () => {
      const r = await runInProcess(["keygen", "--out-dir", `${dir}/k`, "--encrypt"]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--passphrase-file FILE or set SCHEMAPIN_PASSPHRASE/);
      assert.equal(await exists(`${dir}/k`), false, "the directory is not even created");
    });
    await Deno.writeTextFile(`${dir}/empty`, "\n");
    const empty = await runInProcess([
      "keygen",
      "--out",
      `${dir}/k`,
      "--encrypt",
      "--passphrase-file",
      `${dir}/empty`,
    ]);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /INPUT_INVALID: passphrase file .* is empty/);
    assert.equal(await exists(`${dir}/k`), false);
    const envEmpty = await runCliProcess(["keygen", "--out-dir", `${dir}/k`, "--encrypt"], {
      env: { SCHEMAPIN_PASSPHRASE: "" },
    });
    assert.equal(envEmpty.code, 2);
    assert.match(envEmpty.stderr, /SCHEMAPIN_PASSPHRASE is set but empty/);
    // Encryption is the default: an empty passphrase file is refused without --encrypt too.
    const byDefault = await runInProcess([
      "keygen",
      "--out-dir",
      `${dir}/k`,
      "--passphrase-file",
      `${dir}/empty`,
    ]);
    assert.equal(byDefault.code, 2);
    assert.match(byDefault.stderr, /passphrase file .*empty is empty/);
    assert.equal(await exists(`${dir}/k`), false);
  });
});

// ---------------------------------------------------------------- commands that take --key

Deno.test("sign-schema with an encrypted key signs exactly as with the plain key (RFC 6979)", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    const plain = await runInProcess(["sign-schema", f.schema, "--key", f.plain]);
    assert.equal(plain.code, 0, plain.stderr);
    const viaFile = await runInProcess([
      "sign-schema",
      f.schema,
      "--key",
      f.encrypted,
      "--passphrase-file",
      f.passFile,
    ]);
    assert.equal(viaFile.code, 0, viaFile.stderr);
    assert.equal(viaFile.stdout, plain.stdout);
    assert.equal(viaFile.stderr, "", "a strong key gives no warning");
    const viaEnv = await runCliProcess(["sign-schema", f.schema, "--key", f.encrypted], {
      env: { SCHEMAPIN_PASSPHRASE: PASS },
    });
    assert.equal(viaEnv.code, 0, viaEnv.stderr);
    assert.equal(viaEnv.stdout, plain.stdout);
  });
});

Deno.test("a wrong passphrase exits 2 with 'wrong passphrase or corrupted key', writes nothing, echoes nothing", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    const wrong = "not-the-passphrase";
    await Deno.writeTextFile(`${dir}/wrong`, wrong);
    for (
      const args of [
        ["sign-schema", f.schema, "--key", f.encrypted, "--out", `${dir}/out.sig`],
        ["bundle", "sign", `${dir}/b.json`, "--key", f.encrypted, "--kid", "k1"],
      ]
    ) {
      const r = await runInProcess([...args, "--passphrase-file", `${dir}/wrong`]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(
        r.stderr,
        /KEY_INVALID: encrypted private key in .*encrypted\.pem: wrong passphrase or corrupted key/,
      );
      assert.ok(!r.stderr.includes(wrong) && !r.stdout.includes(wrong));
    }
    assert.equal(await exists(`${dir}/out.sig`), false);
    const env = await runCliProcess(["sign-schema", f.schema, "--key", f.encrypted], {
      env: { SCHEMAPIN_PASSPHRASE: wrong },
    });
    assert.equal(env.code, 2);
    assert.match(env.stderr, /wrong passphrase or corrupted key/);
    assert.ok(!env.stderr.includes(wrong));
  });
});

Deno.test("an encrypted --key with no passphrase source and no terminal exits 2 naming both sources", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    await Deno.mkdir(`${dir}/skill`);
    await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: s\n---\n");
    await withoutEnv(async () => {
      for (
        const args of [
          ["sign-schema", f.schema, "--key", f.encrypted],
          ["sign-skill", `${dir}/skill`, "--key", f.encrypted, "--domain", "example.com"],
          ["bundle", "sign", `${dir}/b.json`, "--key", f.encrypted, "--kid", "k1"],
        ]
      ) {
        const r = await runInProcess(args);
        assert.equal(r.code, 2, args.join(" "));
        assert.match(
          r.stderr,
          /encrypted\.pem needs a passphrase: give --passphrase-file FILE or set SCHEMAPIN_PASSPHRASE/,
        );
      }
    });
    assert.equal(await exists(`${dir}/skill/.schemapin.sig`), false);
  });
});

Deno.test("sign-skill with an encrypted key (SCHEMAPIN_PASSPHRASE) verifies with keygen's discovery document", async () => {
  await withTempDir(async (dir) => {
    const env = { SCHEMAPIN_PASSPHRASE: PASS };
    const kg = await runCliProcess([
      "keygen",
      "--out",
      `${dir}/k`,
      "--encrypt",
      "--well-known",
      "--developer",
      "Dev",
    ], { env });
    assert.equal(kg.code, 0, kg.stderr);
    await Deno.mkdir(`${dir}/skill`);
    await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: demo\n---\nhello\n");
    const signed = await runCliProcess([
      "sign-skill",
      `${dir}/skill`,
      "--key",
      `${dir}/k/private.pem`,
      "--domain",
      "example.com",
    ], { env });
    assert.equal(signed.code, 0, signed.stderr);
    const verified = await runInProcess([
      "verify-skill",
      `${dir}/skill`,
      "--domain",
      "example.com",
      "--discovery",
      `${dir}/k/schemapin.json`,
      "--pin-store",
      `${dir}/pins.json`,
      "--trust-first-use",
    ]);
    assert.equal(verified.code, 0, verified.stderr);
  });
});

Deno.test("bundle sign reads an OpenSSL-encrypted key and warns about its 2048 iterations", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    const weak = `${dir}/weak.pem`;
    await openssl([
      "pkey",
      "-in",
      f.plain,
      "-aes256",
      "-passout",
      `file:${f.passFile}`,
      "-out",
      weak,
    ]);
    const created = await runInProcess(["bundle", "create", "--out", `${dir}/b.json`]);
    assert.equal(created.code, 0, created.stderr);
    const r = await runInProcess([
      "bundle",
      "sign",
      `${dir}/b.json`,
      "--key",
      weak,
      "--kid",
      "k1",
      "--passphrase-file",
      f.passFile,
      "--json",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const signed = await assertJsonOutput(r.stdout);
    assert.equal(signed.format, "schemapin.bundle.sign/1");
    assert.equal(signed.ok, true);
    assert.equal(signed.fingerprint, f.key.publicKey.fingerprint);
    assert.match(r.stderr, /warning: .*weak\.pem is encrypted with only 2048 PBKDF2 iterations/);
  });
});

Deno.test("a plain key with --passphrase-file still works, with a note", async () => {
  await withTempDir(async (dir) => {
    const f = await fixture(dir);
    const r = await runInProcess([
      "sign-schema",
      f.schema,
      "--key",
      f.plain,
      "--passphrase-file",
      f.passFile,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: .*plain\.pem is not encrypted; --passphrase-file is not used/);
  });
});

// ---------------------------------------------------------------- a real terminal

/**
 * `script` (util-linux; Debian: bsdutils) runs the CLI on a pseudo-terminal; we type when the
 * prompt shows. Linux only (the options are util-linux's); there, a missing `script` fails on
 * CI (.ci/run installs it) and skips with a note elsewhere.
 */
const noScript = Deno.build.os !== "linux" || ignoreWithout(
  "script",
  await childCommand("script", { args: ["--version"], stdout: "null", stderr: "null" })
    .output().then((o) => o.success, () => false),
  ".ci/run (Debian: bsdutils)",
);

async function onTerminal(
  args: string[],
  typed: [prompt: string, answer: string][],
): Promise<{ code: number; screen: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const repo = new URL("../../", import.meta.url).pathname;
  const cmd = [Deno.execPath(), "run", "--quiet", "-A", `${repo}cli.ts`, ...args].map(quote);
  const child = childCommand("script", {
    args: ["-q", "-e", "-c", cmd.join(" "), "/dev/null"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.getReader();
  const dec = new TextDecoder();
  let screen = "";
  const timer = setTimeout(() => child.kill(), 30_000);
  try {
    for (const [prompt, answer] of typed) {
      while (!screen.includes(prompt)) {
        const { value, done } = await reader.read();
        if (done) {
          throw new Error(`the terminal closed before ${JSON.stringify(prompt)}:\n${screen}`);
        }
        screen += dec.decode(value);
      }
      screen = screen.replace(prompt, `<${prompt.trim()}>`); // the next wait needs a new one
      await writer.write(enc.encode(answer + "\r"));
    }
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      screen += dec.decode(value);
    }
  } finally {
    clearTimeout(timer);
    await writer.close().catch(() => {});
  }
  return { code: (await child.status).code, screen };
}

Deno.test({
  name: "on a terminal: keygen --encrypt asks twice, signing asks once, nothing typed is echoed",
  ignore: noScript,
  fn: async () => {
    await withTempDir(async (dir) => {
      const typed = "typed-on-a-tty 🔑";
      const kg = await onTerminal(["keygen", "--out-dir", `${dir}/k`, "--encrypt"], [
        ["New passphrase for", typed],
        ["Repeat the passphrase:", typed],
      ]);
      assert.equal(kg.code, 0, kg.screen);
      assert.match(kg.screen, /\(encrypted, mode 0600\)/);
      assert.ok(!kg.screen.includes("typed-on"), `echoed:\n${kg.screen}`);
      await Deno.writeTextFile(`${dir}/tool.json`, '{"name":"t"}');
      const signed = await onTerminal(
        ["sign-schema", `${dir}/tool.json`, "--key", `${dir}/k/private.pem`],
        [["Passphrase for", typed]],
      );
      assert.equal(signed.code, 0, signed.screen);
      assert.match(signed.screen, /^[A-Za-z0-9+/]{80,}={0,2}\s*$/m, "the signature is printed");
      assert.ok(!signed.screen.includes("typed-on"));
      const mismatch = await onTerminal(["keygen", "--out-dir", `${dir}/k2`, "--encrypt"], [
        ["New passphrase for", "one"],
        ["Repeat the passphrase:", "two"],
      ]);
      assert.equal(mismatch.code, 2);
      assert.match(mismatch.screen, /the two passphrases differ; nothing was written/);
      assert.equal(await exists(`${dir}/k2/private.pem`), false);
      const wrong = await onTerminal(
        ["sign-schema", `${dir}/tool.json`, "--key", `${dir}/k/private.pem`],
        [["Passphrase for", "nope"]],
      );
      assert.equal(wrong.code, 2);
      assert.match(wrong.screen, /wrong passphrase or corrupted key/);
    });
  },
});

if (Deno.build.os !== "linux") {
  console.log(
    `skip: the pseudo-terminal prompt test needs util-linux \`script\` on Linux (this is ${Deno.build.os})`,
  );
}

// ---------------------------------------------------------------- every --key command, one path

Deno.test("every command that takes --key reads a keygen --encrypt key from --passphrase-file and SCHEMAPIN_PASSPHRASE", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/pass`, PASS + "\n");
    const kg = await runInProcess([
      "keygen",
      "--out",
      `${dir}/k`,
      "--encrypt",
      "--passphrase-file",
      `${dir}/pass`,
      "--json",
    ]);
    assert.equal(kg.code, 0, kg.stderr);
    const fp = (await assertJsonOutput(kg.stdout)).fingerprint as string;
    const key = `${dir}/k/private.pem`;
    await Deno.writeTextFile(`${dir}/tool.json`, '{"name":"t","inputSchema":{"type":"object"}}');
    await Deno.mkdir(`${dir}/skill`);
    await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: s\n---\n");
    await Deno.writeTextFile(
      `${dir}/tools.json`,
      JSON.stringify({ tools: [{ name: "t", description: "d", inputSchema: { type: "object" } }] }),
    );
    assert.equal(
      (await runInProcess(["bundle", "create", "--out", `${dir}/b.json`])).code,
      0,
    );
    // [name, args for the n-th run]
    const commands: [string, (n: number) => string[]][] = [
      [
        "sign-schema",
        (n) => ["sign-schema", `${dir}/tool.json`, "--key", key, "--out", `${dir}/s${n}.sig`],
      ],
      [
        "sign-skill",
        () => ["sign-skill", `${dir}/skill`, "--key", key, "--domain", "example.com", "--json"],
      ],
      [
        "sign-tools",
        (
          n,
        ) => [
          "sign-tools",
          "--key",
          key,
          "--domain",
          "example.com",
          "--file",
          `${dir}/tools.json`,
          "--out",
          `${dir}/t${n}.json`,
        ],
      ],
      [
        "bundle sign",
        () => ["bundle", "sign", `${dir}/b.json`, "--key", key, "--kid", "k1", "--json"],
      ],
      [
        "well-known",
        () => ["well-known", "--key", key, "--developer", "Dev"],
      ],
      [
        "revoke",
        (
          n,
        ) => [
          "revoke",
          "--domain",
          "example.com",
          "--key",
          key,
          "--reason",
          "superseded",
          "--into",
          `${dir}/rev${n}.json`,
        ],
      ],
      [
        "dns record",
        () => ["dns", "record", "--key", key],
      ],
      [
        "pins add",
        (
          n,
        ) => ["pins", "add", "t@example.com", "--key", key, "--pin-store", `${dir}/pins${n}.json`],
      ],
    ];
    let n = 0;
    for (const [name, args] of commands) {
      n++;
      const viaFile = await withoutEnv(() =>
        runInProcess([...args(n), "--passphrase-file", `${dir}/pass`])
      );
      assert.equal(viaFile.code, 0, `${name} --passphrase-file: ${viaFile.stderr}`);
      const shown = viaFile.stdout + viaFile.stderr;
      if (name === "well-known") {
        const doc = JSON.parse(viaFile.stdout);
        assert.equal(doc.public_key_pem, await Deno.readTextFile(`${dir}/k/public.pem`));
      } else if (name !== "revoke" && name !== "pins add" && name !== "sign-schema") {
        assert.ok(shown.includes(fp.slice(7)), `${name} shows the key's fingerprint:\n${shown}`);
      }
      assert.ok(!shown.includes(PASS), `${name} never prints the passphrase`);
      n++;
      const viaEnv = await runCliProcess(args(n), { env: { [PASSPHRASE_ENV]: PASS } });
      assert.equal(viaEnv.code, 0, `${name} ${PASSPHRASE_ENV}: ${viaEnv.stderr}`);
      assert.doesNotMatch(viaEnv.stderr, /needs its passphrase|needs a passphrase/, name);
      n++;
      const none = await withoutEnv(() => runInProcess(args(n)));
      assert.equal(none.code, 2, `${name} without a passphrase`);
      assert.match(
        none.stderr,
        /private\.pem needs a passphrase: give --passphrase-file FILE or set SCHEMAPIN_PASSPHRASE/,
        name,
      );
    }
    const rev = await Deno.readTextFile(`${dir}/rev16.json`);
    assert.ok(rev.includes(fp), "revoke recorded the key's fingerprint");
    assert.ok(await exists(`${dir}/s1.sig`), "sign-schema wrote its signature");
    const pins = await Deno.readTextFile(`${dir}/pins22.json`);
    assert.ok(pins.includes(fp), "pins add pinned the key's fingerprint");
  });
});

Deno.test("an empty --key is a usage error naming the flag in every command that loads a key", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify({ tools: [] }));
    await Deno.writeTextFile(`${dir}/bundle.json`, "{}");
    const cases: [string[], string][] = [
      [
        ["sign-tools", "--key", "", "--domain", "example.com", "--file", `${dir}/tools.json`],
        "sign-tools",
      ],
      [["bundle", "sign", `${dir}/bundle.json`, "--kid", "k1", "--key", ""], "bundle sign"],
    ];
    for (const [args, command] of cases) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, new RegExp(`error: ${command}: --key needs a path`), r.stderr);
      assert.doesNotMatch(r.stderr, /Empty path/);
    }
  });
  const io: CliIO = {
    stdout: () => Promise.resolve(),
    stderr: () => Promise.resolve(),
    readStdin: () => Promise.resolve(new Uint8Array()),
    stderrIsTerminal: false,
  };
  await assert.rejects(
    loadPrivateKey("", io, { command: "sign-schema" }),
    (e) => e instanceof UsageError && e.message === "sign-schema: --key needs a path",
  );
});
