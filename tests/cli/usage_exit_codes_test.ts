// Usage mistakes are exit 2, never a verification failure (issue 15 item 2): CI reads exit 1
// as "tampered". The cases run through the real CLI from the user's folder with
// relative paths: a file name given to --signature-base64 (suggests --signature), a missing
// skill folder, a missing --resolver-dir; and what the audit found: a missing --signature-dir
// of a batch, --signature-base64 text that is not Base64 or empty. Control cases show that a real
// verification failure stays exit 1.
import assert from "node:assert/strict";
import { runCliProcess, runInProcess, withTempDir } from "./run.ts";

/** A folder with keys, a signed schema, a signed skill, and a copy of the schema tampered. */
async function fixture(dir: string): Promise<void> {
  const run = async (args: string[]) => {
    const r = await runInProcess(args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
  };
  await run([
    "keygen",
    "--unencrypted",
    "--out-dir",
    `${dir}/keys`,
    "--write-discovery",
    "--developer",
    "Dev",
  ]);
  await Deno.writeTextFile(`${dir}/tool.json`, '{"name":"calc","inputSchema":{"type":"object"}}');
  await run([
    "sign-schema",
    `${dir}/tool.json`,
    "--key",
    `${dir}/keys/private.pem`,
    "--out",
    `${dir}/tool.json.sig`,
  ]);
  await Deno.mkdir(`${dir}/schemas`);
  await Deno.copyFile(`${dir}/tool.json`, `${dir}/schemas/tool.json`);
  await Deno.mkdir(`${dir}/skill`);
  await Deno.writeTextFile(`${dir}/skill/SKILL.md`, "---\nname: demo\n---\n");
  await run([
    "sign-skill",
    `${dir}/skill`,
    "--key",
    `${dir}/keys/private.pem`,
    "--domain",
    "example.com",
  ]);
}

const VS = ["verify-schema", "tool.json", "--domain", "example.com"];
const TRUST = ["--discovery", "keys/schemapin.json", "--pin-store", "pins.json"];

Deno.test("issue 15 item 2: the reported usage mistakes are exit 2 with the path (real CLI, relative paths)", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const cases: [string[], RegExp][] = [
      [
        [...VS, "--signature-base64", "tool.json.sig", ...TRUST],
        /^error: verify-schema: --signature-base64 takes the Base64 signature itself, and tool\.json\.sig is a file; give --signature tool\.json\.sig\n/,
      ],
      [
        ["verify-skill", "nothere", "--domain", "example.com", ...TRUST],
        /^error: IO_FAILED: cannot open skill folder nothere: no such file or directory\n/,
      ],
      [
        ["verify-skill", "skill", "--domain", "example.com", "--resolver-dir", "./missing"],
        /^error: IO_FAILED: --resolver-dir \.\/missing: no such file or directory\n/,
      ],
      [
        [...VS, "--signature", "tool.json.sig", "--resolver-dir", "./missing"],
        /^error: IO_FAILED: --resolver-dir \.\/missing: no such file or directory\n/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await runCliProcess(args, { cwd: dir });
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
      assert.equal(r.stdout, "", "no FAIL line for a usage mistake");
    }
    // Control: the same commands, correctly spelled, verify (0) or fail on tampering (1).
    const ok = await runCliProcess(
      [...VS, "--signature", "tool.json.sig", ...TRUST, "--trust-first-use"],
      { cwd: dir },
    );
    assert.equal(ok.code, 0, ok.stderr);
    await Deno.writeTextFile(`${dir}/tool.json`, '{"name":"calc","inputSchema":{}}');
    const tampered = await runCliProcess([...VS, "--signature", "tool.json.sig", ...TRUST], {
      cwd: dir,
    });
    assert.equal(tampered.code, 1, tampered.stderr);
    assert.match(tampered.stderr, /SIGNATURE_INVALID/);
  });
});

Deno.test("verify-schema --signature-base64: not Base64 or empty is exit 2; well-formed but wrong stays exit 1", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const at = (args: string[]) => args.map((a) => a.endsWith(".json") ? `${dir}/${a}` : a);
    const base = at([...VS, ...TRUST]);
    const notB64 = await runInProcess([...base, "--signature-base64", "not_a_file.sig"]);
    assert.equal(notB64.code, 2, notB64.stderr);
    assert.match(
      notB64.stderr,
      /--signature-base64 is not Base64 \("_".* at offset 3\); give the Base64 signature, or --signature FILE for a file/,
    );
    const empty = await runInProcess([...base, "--signature-base64", ""]);
    assert.equal(empty.code, 2, empty.stderr);
    assert.match(empty.stderr, /verify-schema: --signature-base64 is empty/);
    const wrong = await runInProcess([...base, "--signature-base64", "AAAA", "--trust-first-use"]);
    assert.equal(wrong.code, 1, wrong.stderr);
    assert.match(wrong.stderr, /SIGNATURE_INVALID/);
    const good = (await Deno.readTextFile(`${dir}/tool.json.sig`)).trim();
    const valid = await runInProcess([...base, "--signature-base64", good, "--trust-first-use"]);
    assert.equal(valid.code, 0, valid.stderr);
    assert.doesNotMatch(valid.stderr, /deprecated/);
    // Both at once is a usage error.
    const both = await runInProcess([
      ...base,
      ...["--signature-base64", good, "--signature", `${dir}/tool.json.sig`],
    ]);
    assert.equal(both.code, 2, both.stderr);
    assert.match(both.stderr, /give exactly one of --signature FILE and --signature-base64 B64/);
  });
});

Deno.test("verify-schema --signature is a FILE; an inline Base64 value still works for one release with a note", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const at = (args: string[]) => args.map((a) => a.endsWith(".json") ? `${dir}/${a}` : a);
    const base = at([...VS, ...TRUST, "--trust-first-use"]);
    const good = (await Deno.readTextFile(`${dir}/tool.json.sig`)).trim();
    // The old inline form: not a file, and Base64 of a DER ECDSA signature.
    const old = await runInProcess([...base, "--signature", good]);
    assert.equal(old.code, 0, old.stderr);
    assert.match(
      old.stderr,
      /^note: verify-schema: --signature with a Base64 value is deprecated; use --signature-base64\n/,
    );
    // Neither an existing file nor a DER signature in Base64: a missing file, exit 2 naming it.
    for (const value of ["not_a_file.sig", "AAAA"]) {
      const r = await runInProcess([...base, "--signature", value]);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, new RegExp(`IO_FAILED: cannot read ${value}`));
      assert.doesNotMatch(r.stderr, /deprecated/);
    }
    // --signature-file, the old spelling of --signature FILE.
    const file = await runInProcess([...base, "--signature-file", `${dir}/tool.json.sig`]);
    assert.equal(file.code, 0, file.stderr);
    assert.match(
      file.stderr,
      /^note: verify-schema: --signature-file is deprecated; use --signature\n/,
    );
  });
});

Deno.test("verify-schema --batch: a missing or non-folder --signature-dir is exit 2 naming it, not every schema unsigned", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const batch = (sigDir: string) => [
      "verify-schema",
      "--batch",
      `${dir}/schemas`,
      "--signature-dir",
      sigDir,
      "--domain",
      "example.com",
      "--discovery",
      `${dir}/keys/schemapin.json`,
      "--pin-store",
      `${dir}/pins.json`,
      "--trust-first-use",
    ];
    const missing = await runInProcess(batch(`${dir}/nosigs`));
    assert.equal(missing.code, 2, missing.stdout + missing.stderr);
    assert.match(missing.stderr, /IO_FAILED: --signature-dir .*nosigs: no such file or directory/);
    assert.doesNotMatch(missing.stdout, /FAIL/);
    const file = await runInProcess(batch(`${dir}/tool.json`));
    assert.equal(file.code, 2);
    assert.match(file.stderr, /--signature-dir .*tool\.json is not a directory/);
    // Control: an existing folder without the schema's signature is a failure of that schema.
    await Deno.mkdir(`${dir}/emptysigs`);
    const unsigned = await runInProcess(batch(`${dir}/emptysigs`));
    assert.equal(unsigned.code, 1, unsigned.stderr);
    assert.match(unsigned.stdout + unsigned.stderr, /unsigned/);
    // And with the signature there, the batch verifies.
    await Deno.copyFile(`${dir}/tool.json.sig`, `${dir}/emptysigs/tool.json.sig`);
    const signed = await runInProcess(batch(`${dir}/emptysigs`));
    assert.equal(signed.code, 0, signed.stdout + signed.stderr);
  });
});

Deno.test("verify-skill --signature FILE: a malformed file the user names is exit 2; a broken .schemapin.sig in the folder is exit 1", async () => {
  await withTempDir(async (dir) => {
    await fixture(dir);
    const vk = (...more: string[]) => [
      "verify-skill",
      `${dir}/skill`,
      "--domain",
      "example.com",
      "--discovery",
      `${dir}/keys/schemapin.json`,
      "--pin-store",
      `${dir}/pins.json`,
      "--trust-first-use",
      ...more,
    ];
    await Deno.writeTextFile(`${dir}/bad.sig`, '{"skill_name":"demo"}');
    const named = await runInProcess(vk("--signature", `${dir}/bad.sig`));
    assert.equal(named.code, 2, named.stdout + named.stderr);
    assert.match(named.stderr, /INPUT_INVALID: .*bad\.sig: schemapin_version is missing/);
    const missing = await runInProcess(vk("--signature", `${dir}/none.sig`));
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /IO_FAILED: cannot read .*none\.sig/);
    // The good signature, named explicitly, verifies.
    await Deno.copyFile(`${dir}/skill/.schemapin.sig`, `${dir}/good.sig`);
    const good = await runInProcess(vk("--signature", `${dir}/good.sig`));
    assert.equal(good.code, 0, good.stderr);
    // The folder's own signature file broken: what is verified failed (exit 1).
    await Deno.writeTextFile(`${dir}/skill/.schemapin.sig`, '{"skill_name":"demo"}');
    const inFolder = await runInProcess(vk());
    assert.equal(inFolder.code, 1, inFolder.stderr);
    assert.match(inFolder.stderr, /SIGNATURE_INVALID: .*schemapin_version is missing/);
  });
});
