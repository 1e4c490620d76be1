// Messages a new user meets in the first hour (issue 37 item 4): every `wrote FILE` line is a
// result on stdout, as keygen's always was (docs/commands.md); sign-schema's note that it infers
// the 1.4 document format comes with a signature written, never before a failure. (`guard
// unwrap` naming the backup it leaves is tested in tests/guard/wrap_test.ts, `contract verify
// --no-diff` in contract_no_diff_test.ts.)
import assert from "node:assert/strict";
import { exists, runInProcess, withTempDir } from "./run.ts";

const NOTE = /note: sign-schema: writing a 1\.4 signature document/;

Deno.test("keygen, well-known and pins export print their `wrote` line on stdout, nothing on stderr", async () => {
  await withTempDir(async (dir) => {
    const keygen = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/keys`]);
    assert.equal(keygen.code, 0, keygen.stderr);
    assert.match(keygen.stdout, /^wrote .*keys\/private\.pem/m);
    assert.doesNotMatch(keygen.stderr, /wrote/);

    const wk = await runInProcess([
      ...["well-known", "--key", `${dir}/keys/public.pem`, "--developer", "Dev"],
      ...["--out", `${dir}/schemapin.json`],
    ]);
    assert.equal(wk.code, 0, wk.stderr);
    assert.match(wk.stdout, /^wrote .*schemapin\.json \(key sha256:[0-9a-f]{64}\)\n$/);
    assert.equal(wk.stderr, "");
    // Without --out the document itself is the result.
    const printed = await runInProcess([
      ...["well-known", "--key", `${dir}/keys/public.pem`, "--developer", "Dev"],
    ]);
    assert.equal(JSON.parse(printed.stdout).developer_name, "Dev");
    assert.doesNotMatch(printed.stdout + printed.stderr, /wrote/);

    const pins = ["--pin-store", `${dir}/pins.json`];
    const added = await runInProcess([
      ...["pins", "add", "t@example.com", "--key", `${dir}/keys/public.pem`, ...pins],
    ]);
    assert.equal(added.code, 0, added.stderr);
    const exported = await runInProcess(["pins", "export", "--out", `${dir}/e.json`, ...pins]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stdout, `wrote ${dir}/e.json\n`);
    assert.equal(exported.stderr, "");
  });
});

Deno.test("sign-schema: the inferred-format note comes with a signature, never before a failure", async () => {
  await withTempDir(async (dir) => {
    const keygen = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/keys`]);
    assert.equal(keygen.code, 0, keygen.stderr);
    const key = ["--key", `${dir}/keys/private.pem`, "--domain", "example.com"];
    await Deno.writeTextFile(`${dir}/bad.json`, '{"name": "calc", ');
    await Deno.writeTextFile(
      `${dir}/tool.json`,
      JSON.stringify({ name: "calc", description: "x" }),
    );

    // Bad JSON, a missing file, a bad key: exit 2, the error and not the note; nothing written.
    const failures: [string[], RegExp][] = [
      [["sign-schema", `${dir}/bad.json`, ...key, "--out", `${dir}/bad.sig`], /JSON_INVALID/],
      [["sign-schema", `${dir}/nothere.json`, ...key, "--out", `${dir}/bad.sig`], /IO_FAILED/],
      [
        ["sign-schema", `${dir}/tool.json`, "--key", `${dir}/keys/public.pem`, "--domain", "a.b"],
        /KEY_INVALID/,
      ],
    ];
    for (const [args, error] of failures) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, error, args.join(" "));
      assert.doesNotMatch(r.stderr, NOTE, args.join(" "));
      assert.equal(await exists(`${dir}/bad.sig`), false);
    }
    // A batch in which nothing could be signed: no note either.
    await Deno.mkdir(`${dir}/batch`);
    await Deno.copyFile(`${dir}/bad.json`, `${dir}/batch/bad.json`);
    const none = await runInProcess([
      ...["sign-schema", "--batch", `${dir}/batch`, "--out-dir", `${dir}/out`, ...key],
    ]);
    assert.notEqual(none.code, 0, none.stderr);
    assert.doesNotMatch(none.stderr, NOTE);

    // Signed: the note, once.
    const ok = await runInProcess([
      "sign-schema",
      `${dir}/tool.json`,
      ...key,
      "--out",
      `${dir}/t.sig`,
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stderr.match(new RegExp(NOTE, "g"))?.length, 1, ok.stderr);
    await Deno.copyFile(`${dir}/tool.json`, `${dir}/batch/tool.json`);
    const some = await runInProcess([
      ...["sign-schema", "--batch", `${dir}/batch`, "--out-dir", `${dir}/out2`, ...key],
    ]);
    assert.equal(some.stderr.match(new RegExp(NOTE, "g"))?.length, 1, some.stderr);
    // With --format given there is nothing to infer: no note.
    const explicit = await runInProcess([
      ...["sign-schema", `${dir}/tool.json`, ...key, "--format", "document"],
    ]);
    assert.equal(explicit.code, 0, explicit.stderr);
    assert.doesNotMatch(explicit.stderr, NOTE);
  });
});
