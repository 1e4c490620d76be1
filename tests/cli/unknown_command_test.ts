// Unknown commands and subcommands get a did-you-mean when one is close (issue 15 item 7);
// -v and `version` print the version like -V and --version.
import assert from "node:assert/strict";
import { VERSION } from "../../lib/version.ts";
import { runCliProcess, runInProcess, withTempDir } from "./run.ts";

// [arguments, the start of the expected error line] — by hand from the command list.
const SUGGESTED: [string[], string][] = [
  [["verfy-schema"], 'error: unknown command "verfy-schema"; did you mean verify-schema?'],
  [["sing-skill"], 'error: unknown command "sing-skill"; did you mean sign-skill?'],
  [["keygne"], 'error: unknown command "keygne"; did you mean keygen?'],
  [["verify"], 'error: unknown command "verify"; did you mean verify-schema or verify-skill?'],
  [["--verison"], 'error: unknown command "--verison"; did you mean --version?'],
  [["contract", "verfy"], 'error: contract: unknown subcommand "verfy"; did you mean verify?'],
  [["bundle", "sing"], 'error: bundle: unknown subcommand "sing"; did you mean sign?'],
  [["pins", "lst"], 'error: pins: unknown subcommand "lst"; did you mean list?'],
  [["pins", "lst", "--zz"], 'error: pins: unknown subcommand "lst"; did you mean list?'],
  [["dns", "chek"], 'error: dns: unknown subcommand "chek"; did you mean check?'],
  [["lineage", "shwo"], 'error: lineage: unknown subcommand "shwo"; did you mean show?'],
  [["guard", "wrp"], 'error: guard: unknown subcommand "wrp"; did you mean wrap?'],
  [["help", "verfy-schema"], 'error: unknown command "verfy-schema"; did you mean verify-schema?'],
];

// Nothing close: no guess, the list or the help pointer only.
const NOT_SUGGESTED: [string[], string][] = [
  [["frobnicate"], 'error: unknown command "frobnicate" (see schemapin --help)\n'],
  [["xy"], 'error: unknown command "xy" (see schemapin --help)\n'],
  [["-x"], 'error: unknown command "-x" (see schemapin --help)\n'],
  // A global flag needs a command after it.
  [["-q"], "error: -q goes with a command: schemapin -q <command> …\n(see --help)\n"],
  [
    ["--json", "-q"],
    "error: --json -q goes with a command: schemapin --json -q <command> …\n(see --help)\n",
  ],
  [
    ["contract", "frobnicate"],
    'error: contract: unknown subcommand "frobnicate" (init, verify, sign, approve, digest, dump)\n(see --help)\n',
  ],
  [
    ["bundle", "zz"],
    'error: bundle: unknown subcommand "zz" (create, add, sign, verify, merge, show)\n' +
    "(see --help)\n",
  ],
  [
    ["pins", "frobnicate"],
    'error: pins: unknown subcommand "frobnicate" (list, show, add, rotate, remove, export, ' +
    "import)\n(see --help)\n",
  ],
  [
    ["lineage", "frobnicate"],
    'error: lineage: unknown subcommand "frobnicate" (list, show, reset)\n(see --help)\n',
  ],
  [
    ["dns", "frobnicate"],
    'error: dns: unknown subcommand "frobnicate" (record, check)\n(see --help)\n',
  ],
  [
    ["guard", "frobnicate"],
    'error: guard: unexpected argument "frobnicate"; put the server command after --\n' +
    "(see --help)\n",
  ],
];

Deno.test("unknown command or subcommand: did you mean, exit 2", async () => {
  for (const [args, start] of SUGGESTED) {
    const r = await runInProcess(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.ok(r.stderr.startsWith(start), `${args.join(" ")}: ${r.stderr}`);
    assert.equal(r.stdout, "");
  }
});

Deno.test("unknown command or subcommand, nothing close: no guess, exit 2", async () => {
  for (const [args, expected] of NOT_SUGGESTED) {
    const r = await runInProcess(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stderr, expected, args.join(" "));
    assert.doesNotMatch(r.stderr, /did you mean/);
  }
});

Deno.test("-v, -V, --version and version print the version; help lists them", async () => {
  for (const flag of ["-v", "-V", "--version", "version"]) {
    const r = await runInProcess([flag]);
    assert.equal(r.code, 0, flag);
    assert.equal(r.stdout, `schemapin ${VERSION}\n`, flag);
  }
  const help = await runInProcess(["--help"]);
  assert.match(
    help.stdout,
    /^ {2}-V, -v, --version +print the version \(also: schemapin version\)$/m,
  );
  // Not a version flag: -vv, VERSION, a version flag after a command.
  for (const args of [["-vv"], ["VERSION"]]) {
    const r = await runInProcess(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "");
  }
  const afterCommand = await runInProcess(["fingerprint", "-v"]);
  assert.equal(afterCommand.code, 2);
  assert.match(afterCommand.stderr, /^error: fingerprint: unknown option -v\n/);
});

Deno.test("the real CLI: -v and version, and a did-you-mean", async () => {
  for (const flag of ["-v", "version"]) {
    const r = await runCliProcess([flag]);
    assert.equal(r.code, 0, flag);
    assert.equal(r.stdout, `schemapin ${VERSION}\n`);
  }
  const typo = await runCliProcess(["verfy-schema", "tool.json"]);
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /did you mean verify-schema\?/);
});

Deno.test("global flags before the command: -q and --json go to the command", async () => {
  await withTempDir(async (dir) => {
    assert.equal(
      (await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/k`])).code,
      0,
    );
    const pub = `${dir}/k/public.pem`;
    const plain = await runInProcess(["fingerprint", pub]);
    // fingerprint has no --quiet: -q before it asks for nothing it would not do (dropped).
    const quiet = await runInProcess(["-q", "fingerprint", pub]);
    assert.equal(quiet.code, 0, quiet.stderr);
    assert.equal(quiet.stdout, plain.stdout);
    const json = await runInProcess(["--json", "fingerprint", pub]);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(JSON.parse(json.stdout).format, "schemapin.fingerprint/1");
    // The same as after the command.
    assert.equal(json.stdout, (await runInProcess(["fingerprint", pub, "--json"])).stdout);
    // A command with --quiet gets it: hash-skill -q prints no progress, the result stays.
    await Deno.mkdir(`${dir}/s`);
    await Deno.writeTextFile(`${dir}/s/SKILL.md`, "# s\n");
    const hashed = await runInProcess(["-q", "--json", "hash-skill", `${dir}/s`]);
    assert.equal(hashed.code, 0, hashed.stderr);
    assert.match(JSON.parse(hashed.stdout).skill_hash, /^sha256:/);
    // --json before a command that fails: the error is JSON on stdout too.
    const bad = await runInProcess(["--json", "fingerprint", `${dir}/missing.pem`]);
    assert.equal(bad.code, 2);
    assert.equal(JSON.parse(bad.stdout).ok, false);
  });
});
