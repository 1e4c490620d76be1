// keygen encrypts private.pem by default (issue 27 item 1; SchemaPin §9 "encryption at rest"):
// the passphrase from --passphrase-file, $SCHEMAPIN_PASSPHRASE or the terminal; --unencrypted
// must be asked for and says what it means; no passphrase and no terminal is exit 2 naming both
// ways out, with nothing written. Real processes (a real environment, no terminal).
import assert from "node:assert/strict";
import { exists, runCliProcess, withTempDir } from "./run.ts";

const PASS = "a passphrase for this test";

Deno.test("keygen: encrypted by default; the key then signs with the same passphrase", async () => {
  await withTempDir(async (dir) => {
    const env = { SCHEMAPIN_PASSPHRASE: PASS };
    const r = await runCliProcess(["keygen", "--out-dir", `${dir}/k`, "--json"], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).encrypted, true);
    const pem = await Deno.readTextFile(`${dir}/k/private.pem`);
    assert.match(pem, /^-----BEGIN ENCRYPTED PRIVATE KEY-----\n/);
    assert.equal((await Deno.stat(`${dir}/k/private.pem`)).mode! & 0o777, 0o600);
    await Deno.writeTextFile(`${dir}/t.json`, '{"name":"t","description":"d"}');
    const signed = await runCliProcess(
      ["sign-schema", `${dir}/t.json`, "--key", `${dir}/k/private.pem`, "-q"],
      { env },
    );
    assert.equal(signed.code, 0, signed.stderr);
    const wrong = await runCliProcess(
      ["sign-schema", `${dir}/t.json`, "--key", `${dir}/k/private.pem`, "-q"],
      { env: { SCHEMAPIN_PASSPHRASE: "not it" } },
    );
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /KEY_INVALID: .*wrong passphrase/);
  });
});

Deno.test("keygen: no passphrase and no terminal is exit 2 naming both ways out; nothing written", async () => {
  await withTempDir(async (dir) => {
    const r = await runCliProcess(["keygen", "--out-dir", `${dir}/k`]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--passphrase-file FILE or set SCHEMAPIN_PASSPHRASE/);
    assert.match(r.stderr, /or give --unencrypted to write the key NOT encrypted/);
    assert.equal(await exists(`${dir}/k`), false, "no folder, no key left behind");
  });
});

Deno.test("keygen --unencrypted: a plain key, and a warning saying what that means", async () => {
  await withTempDir(async (dir) => {
    const r = await runCliProcess(["keygen", "--out-dir", `${dir}/k`, "--unencrypted", "--json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).encrypted, false);
    assert.match(await Deno.readTextFile(`${dir}/k/private.pem`), /^-----BEGIN PRIVATE KEY-----/);
    assert.match(r.stderr, /warning: .*private\.pem is NOT encrypted \(--unencrypted\)/);
    // A passphrase in the environment does not change an explicit --unencrypted.
    const env = { SCHEMAPIN_PASSPHRASE: PASS };
    const again = await runCliProcess(["keygen", "--out-dir", `${dir}/k2`, "--unencrypted"], {
      env,
    });
    assert.equal(again.code, 0, again.stderr);
    assert.match(await Deno.readTextFile(`${dir}/k2/private.pem`), /^-----BEGIN PRIVATE KEY-----/);
  });
});

Deno.test("keygen: contradictory flags are exit 2 before anything is written", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/pass.txt`, `${PASS}\n`);
    const cases: [string[], RegExp][] = [
      [["--encrypt", "--unencrypted"], /--encrypt and --unencrypted exclude each other/],
      [["--unencrypted", "--passphrase-file", `${dir}/pass.txt`], /exclude each other/],
    ];
    for (const [flags, message] of cases) {
      const r = await runCliProcess(["keygen", "--out-dir", `${dir}/k`, ...flags]);
      assert.equal(r.code, 2, flags.join(" "));
      assert.match(r.stderr, message);
      assert.equal(await exists(`${dir}/k`), false);
    }
  });
});

Deno.test("keygen --encrypt (0.1's flag) still works, with a note; --passphrase-file is read", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/pass.txt`, `${PASS}\n`);
    const r = await runCliProcess([
      "keygen",
      "--out-dir",
      `${dir}/k`,
      "--encrypt",
      "--passphrase-file",
      `${dir}/pass.txt`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: keygen: --encrypt is the default now/);
    assert.match(await Deno.readTextFile(`${dir}/k/private.pem`), /ENCRYPTED PRIVATE KEY/);
  });
});
