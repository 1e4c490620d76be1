// `bundle` and `pins` declare one flag table per subcommand (issue 25 item 1): the parser, the
// help's option lists and the completions come from it; the old spellings (`pins import
// --overwrite`, `bundle verify|merge --trust-first-use`, `bundle merge OUT IN…`) keep working
// for one release with a note, are not offered by the help or the completions, and are
// accepted only by the subcommand that had them (issue 25 item 4).
import assert from "node:assert/strict";
import { runInProcess, withTempDir } from "./run.ts";
import { completionSpec } from "../../cli/commands/completions.ts";
import { optionList } from "../../cli/args/flags.ts";
import { bundleCommand } from "../../cli/commands/bundle.ts";
import { pinsCommand } from "../../cli/commands/pins.ts";
import { VERIFY_FLAGS } from "../../cli/commands/bundle_verify.ts";
import { MERGE_FLAGS } from "../../cli/commands/bundle_merge.ts";
import { SIGN_FLAGS } from "../../cli/commands/bundle_sign.ts";
import type { SubcommandFlags } from "../../cli/commands/command.ts";

function subFlags(command: typeof bundleCommand, name: string): readonly string[] {
  const sub = completionSpec(command).subcommands.find((s) => s.name === name);
  assert.ok(sub, `${command.name} ${name}`);
  return sub.flags;
}

Deno.test("bundle and pins: one table per subcommand, in the help's order", () => {
  const names = (c: typeof bundleCommand) =>
    (c.flags as readonly SubcommandFlags[]).map((s) => s.name);
  assert.deepEqual(names(bundleCommand), ["create", "add", "sign", "verify", "merge", "show"]);
  assert.deepEqual(names(pinsCommand), [
    "list",
    "show",
    "add",
    "rotate",
    "remove",
    "export",
    "import",
  ]);
  // Every pins subcommand takes --pin-store; the others stay with their subcommand.
  for (const sub of names(pinsCommand)) {
    assert.ok(subFlags(pinsCommand, sub).includes("--pin-store"));
  }
  assert.ok(!subFlags(pinsCommand, "remove").includes("--force"));
  assert.ok(!subFlags(pinsCommand, "list").includes("--key"));
});

Deno.test("bundle --help: the option lists are the tables' own", () => {
  for (const table of [SIGN_FLAGS, VERIFY_FLAGS, MERGE_FLAGS]) {
    assert.ok(bundleCommand.help.includes(optionList(table)));
  }
  assert.match(bundleCommand.help, /Options of verify:\n {2}--authority KID=FINGERPRINT\n/);
  assert.match(bundleCommand.help, /\n {2}-k, --key KEY\.pem {8}the authority's signing key/);
});

Deno.test("the deprecated spellings are in neither the help's option lists nor the completions", () => {
  const optionLines = (help: string) => help.split("\n").filter((l) => /^ {2}(-\w, )?--/.test(l));
  for (const line of optionLines(bundleCommand.help)) {
    assert.doesNotMatch(line, /--trust-first-use(?!-)/, line);
  }
  for (const line of optionLines(pinsCommand.help)) assert.doesNotMatch(line, /--overwrite/, line);
  assert.ok(!subFlags(bundleCommand, "verify").includes("--trust-first-use"));
  assert.ok(!subFlags(bundleCommand, "merge").includes("--trust-first-use"));
  assert.ok(subFlags(bundleCommand, "merge").includes("--trust-first-use-authority"));
  assert.ok(!subFlags(pinsCommand, "import").includes("--overwrite"));
  assert.deepEqual(
    [...subFlags(pinsCommand, "import")].sort(),
    ["--force", "--help", "--pin-store", "-f"],
  );
});

Deno.test("an old spelling is accepted only by the subcommand that had it", async () => {
  await withTempDir(async (dir) => {
    const cases: [string[], RegExp][] = [
      [
        ["bundle", "create", "-o", `${dir}/b.json`, "--trust-first-use"],
        /^error: bundle create: unknown option --trust-first-use\b/,
      ],
      [["bundle", "sign", `${dir}/b.json`, "--trust-first-use"], /bundle sign: unknown option/],
      [["pins", "export", "--overwrite"], /^error: pins export: unknown option --overwrite/],
      [["pins", "list", "--force"], /^error: pins list: unknown option --force/],
    ];
    for (const [args, re] of cases) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.match(r.stderr, re);
      assert.doesNotMatch(r.stderr, /is deprecated/);
    }
  });
});

Deno.test("bundle merge --trust-first-use still works, with a note", async () => {
  await withTempDir(async (dir) => {
    const keys = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/k`]);
    assert.equal(keys.code, 0, keys.stderr);
    assert.equal((await runInProcess(["bundle", "create", "-o", `${dir}/b.json`])).code, 0);
    const sign = ["bundle", "sign", `${dir}/b.json`, "-k", `${dir}/k/private.pem`, "--kid", "k1"];
    assert.equal((await runInProcess(sign)).code, 0);
    const refused = await runInProcess(["bundle", "merge", "-o", `${dir}/m.json`, `${dir}/b.json`]);
    assert.equal(refused.code, 1);
    const old = await runInProcess([
      ...["bundle", "merge", "-o", `${dir}/m.json`, `${dir}/b.json`, "--trust-first-use"],
    ]);
    assert.equal(old.code, 0, old.stderr);
    assert.match(
      old.stderr,
      /^note: bundle merge: --trust-first-use is deprecated; use --trust-first-use-authority\n/,
    );
    assert.match(old.stderr, /trusted on first use \(--trust-first-use-authority\)/);
    // The new spelling: no note.
    const fresh = await runInProcess([
      ...["bundle", "merge", "-o", `${dir}/m2.json`, `${dir}/b.json`],
      "--trust-first-use-authority",
    ]);
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.doesNotMatch(fresh.stderr, /deprecated/);
  });
});

Deno.test("bundle verify --public-key refuses the old first-use spelling like the new one", async () => {
  await withTempDir(async (dir) => {
    const r = await runInProcess([
      ...["bundle", "verify", `${dir}/b.json`, "--public-key", `${dir}/p.pem`],
      "--trust-first-use",
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /note: bundle verify: --trust-first-use is deprecated/);
    assert.match(r.stderr, /--public-key .* does not go with --trust-first-use-authority/);
  });
});
