// `schemapin completions bash|zsh|fish`: generated from the commands' flag tables; each script
// is valid for its shell and the bash one is exercised for real.
import assert from "node:assert/strict";
import type { Command, SubcommandFlags } from "../../cli/commands/command.ts";
import type { FlagTable } from "../../cli/args/flags.ts";
import { loadCommands } from "../../cli/commands/registry.ts";

const COMMANDS = await loadCommands();
import { completionScript, completionSpec } from "../../cli/commands/completions.ts";
import { SHELLS } from "../../cli/args/completions.ts";
import { runCliProcess, runInProcess, withTempDir } from "./run.ts";
import { childCommand } from "../process.ts";
import { ignoreWithout } from "../required_tool.ts";

async function available(shell: string): Promise<boolean> {
  try {
    const o = await childCommand(shell, {
      args: ["-c", "exit 0"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return o.success;
  } catch {
    return false;
  }
}

async function syntaxCheck(shell: string, file: string): Promise<{ ok: boolean; err: string }> {
  const o = await childCommand(shell, { args: ["-n", file], stdout: "piped", stderr: "piped" })
    .output();
  return { ok: o.success, err: new TextDecoder().decode(o.stderr) };
}

/** Runs the bash completion function for a command line ending at the cursor. */
async function bashComplete(script: string, line: string[]): Promise<string[]> {
  return await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/c.bash`, script);
    const words = line.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(" ");
    const program = `source '${dir}/c.bash'
COMP_WORDS=(${words}); COMP_CWORD=${line.length - 1}
_schemapin
printf '%s\\n' "\${COMPREPLY[@]}"`;
    const o = await childCommand("bash", {
      args: ["--norc", "--noprofile", "-c", program],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(o.success, new TextDecoder().decode(o.stderr));
    return new TextDecoder().decode(o.stdout).split("\n").filter((l) => l !== "");
  });
}

// .ci/run itself runs under bash: on CI a missing bash fails these tests instead of skipping.
const noBash = ignoreWithout("bash", await available("bash"), ".ci/run (it is a bash script)");

// ---------------------------------------------------------------- the scripts

for (const shell of SHELLS) {
  Deno.test(`completions ${shell}: exit 0, mentions every command, and is valid ${shell}`, async () => {
    const r = await runInProcess(["completions", shell]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, "");
    for (const c of COMMANDS) {
      assert.match(r.stdout, new RegExp(`(^|[\\s'(])${c.name}([\\s)']|$)`), `${shell}: ${c.name}`);
    }
    for (const flag of ["--encrypt", "--passphrase-file", "--trust-first-use"]) {
      assert.ok(r.stdout.includes(shell === "fish" ? `-l ${flag.slice(2)}` : flag), flag);
    }
    if (!(await available(shell))) {
      console.log(`skip: ${shell} is not installed, so \`${shell} -n\` cannot check the script`);
      return;
    }
    await withTempDir(async (dir) => {
      const file = `${dir}/script.${shell}`;
      await Deno.writeTextFile(file, r.stdout);
      const check = await syntaxCheck(shell, file);
      assert.ok(check.ok, `${shell} -n failed: ${check.err}`);
      // The check can fail: a broken copy is refused.
      await Deno.writeTextFile(file, r.stdout.replace(/\bfi\b|\bend\b/, "") + "\nif\n");
      assert.equal((await syntaxCheck(shell, file)).ok, false, "a broken script is rejected");
    });
  });
}

Deno.test("the real binary prints the same script as in process", async () => {
  const child = await runCliProcess(["completions", "bash"]);
  assert.equal(child.code, 0, child.stderr);
  assert.equal(child.stdout, completionScript("bash", COMMANDS));
});

Deno.test({
  name: "bash completes commands, subcommands and the flags of the right subcommand",
  ignore: noBash,
  fn: async () => {
    const script = completionScript("bash", COMMANDS);
    assert.deepEqual(await bashComplete(script, ["schemapin", "bun"]), ["bundle"]);
    assert.deepEqual(await bashComplete(script, ["schemapin", "--v"]), ["--version"]);
    assert.deepEqual(await bashComplete(script, ["schemapin", "bundle", "s"]), ["sign", "show"]);
    assert.deepEqual(await bashComplete(script, ["schemapin", "keygen", "--en"]), ["--encrypt"]);
    assert.deepEqual(
      await bashComplete(script, ["schemapin", "bundle", "sign", "b.json", "--pa"]),
      ["--passphrase-file"],
    );
    assert.deepEqual(
      await bashComplete(script, ["schemapin", "sign-schema", "tool.json", "--passphrase"]),
      ["--passphrase-file"],
    );
    assert.deepEqual(await bashComplete(script, ["schemapin", "completions", "z"]), ["zsh"]);
  },
});

Deno.test({
  name: "bash offers nothing where nothing fits: other subcommands' flags, after --, file words",
  ignore: noBash,
  fn: async () => {
    const script = completionScript("bash", COMMANDS);
    const none = async (line: string[]) => assert.deepEqual(await bashComplete(script, line), []);
    await none(["schemapin", "bundle", "verify", "b.json", "--pa"]); // --passphrase-file is sign's
    await none(["schemapin", "bundle", "create", "--ki"]); // --kid is sign's
    await none(["schemapin", "nosuch", "--"]);
    await none(["schemapin", "keygen", "ou"]); // not a flag: the shell completes file names
    await none(["schemapin", "contract", "init", "--server", "x", "--", "--he"]);
    await none(["schemapin", "bundle", "nosuch", "--js"]);
    await none(["schemapin", "zzz"]);
  },
});

// ---------------------------------------------------------------- reading the flag tables

const byName = (name: string) => COMMANDS.find((c) => c.name === name)!;

Deno.test("keygen's flags are exactly its table: deprecated spellings are not offered", () => {
  const spec = completionSpec(byName("keygen"));
  assert.deepEqual(spec.subcommands, []);
  assert.deepEqual(
    [...spec.flags].sort(),
    [
      "--contact",
      "--developer",
      "--encrypt",
      "--force",
      "--help",
      "--json",
      "--out-dir",
      "--passphrase-file",
      "--unencrypted",
      "--write-discovery",
      "-f",
    ],
  );
});

Deno.test("subcommands and their flags come from the per-subcommand tables", () => {
  const pins = completionSpec(byName("pins"));
  assert.deepEqual(pins.subcommands.map((s) => s.name), [
    "list",
    "show",
    "add",
    "rotate",
    "remove",
    "export",
    "import",
  ]);
  const bundle = completionSpec(byName("bundle"));
  const merge = bundle.subcommands.find((s) => s.name === "merge")!;
  assert.ok(merge.flags.includes("--authority-key"), "merge takes verify's options");
  assert.ok(!merge.flags.includes("--kid"));
  assert.deepEqual(
    completionSpec(byName("completions")).subcommands.map((s) => s.name),
    ["bash", "zsh", "fish"],
  );
  for (const name of ["contract", "bundle", "pins"]) {
    assert.ok(completionSpec(byName(name)).subcommands.length >= 3, name);
  }
});

Deno.test("every command has a flag table, and completions offer exactly its flags", () => {
  for (const command of COMMANDS) {
    assert.ok(command.flags !== undefined, `${command.name} has no flag table`);
    const spec = completionSpec(command);
    const forms: [string, FlagTable, readonly string[]][] = Array.isArray(command.flags)
      ? (command.flags as readonly SubcommandFlags[]).map((t) => [
        `${command.name} ${t.name}`,
        t.flags,
        t.name === ""
          ? spec.plainFlags ?? []
          : spec.subcommands.find((s) => s.name === t.name)?.flags ?? [],
      ])
      : [[command.name, command.flags as FlagTable, spec.flags]];
    for (const [label, table, offered] of forms) {
      for (const [name, flag] of Object.entries(table)) {
        assert.equal(
          offered.includes(`--${name}`),
          flag.deprecated === undefined,
          `${label} --${name}`,
        );
      }
    }
  }
});

Deno.test("a table with a subcommand list: flags are per subcommand, --help everywhere", () => {
  const fake: Command = {
    name: "demo",
    summary: "a demo",
    help: "Usage: schemapin demo run|stop [--fast] — prose mentions --prose-flag\n",
    flags: [
      { name: "run", flags: { fast: { type: "boolean", help: "go fast" } } },
      {
        name: "stop",
        flags: {
          out: { type: "string", value: "FILE", help: "where" },
          into: { type: "string", help: "", deprecated: "out" },
        },
      },
    ],
    run: () => Promise.resolve(0),
  };
  const spec = completionSpec(fake);
  assert.deepEqual(spec.subcommands, [
    { name: "run", flags: ["--fast", "--help"] },
    { name: "stop", flags: ["--out", "-o", "--help"] },
  ]);
  assert.deepEqual(spec.flags, ["--fast", "--help", "--out", "-o"]);
});

Deno.test("a command name that is not a plain word is refused rather than written into a script", () => {
  const bad: Command = {
    name: "x;rm -rf",
    summary: "s",
    help: "Usage: schemapin x\n",
    flags: {},
    run: () => Promise.resolve(0),
  };
  for (const shell of SHELLS) {
    assert.throws(() => completionScript(shell, [bad]), /unexpected word "x;rm -rf"/);
  }
});

// ---------------------------------------------------------------- usage errors

Deno.test("completions without a shell, with an unknown shell or extra words exits 2", async () => {
  const cases: [string[], RegExp][] = [
    [["completions"], /expected a shell \(bash\|zsh\|fish\), got 0/],
    [["completions", "tcsh"], /unknown shell "tcsh"; expected bash, zsh or fish/],
    [["completions", "bash", "zsh"], /got 2 argument/],
    [["completions", "--bogus"], /completions: unknown option --bogus/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runInProcess(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "");
    assert.match(r.stderr, pattern);
  }
  const help = await runInProcess(["completions", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: schemapin completions bash\|zsh\|fish/);
});

Deno.test("a subcommand's flags do not leak to its siblings", () => {
  const sub = (cmd: string, name: string) =>
    completionSpec(byName(cmd)).subcommands.find((s) => s.name === name)!.flags;
  assert.ok(!sub("pins", "list").includes("--fingerprint"));
  assert.ok(!sub("pins", "import").includes("--out"));
  assert.ok(!sub("contract", "digest").includes("--lock"));
  assert.ok(!sub("contract", "init").includes("--allow-new"));
  assert.ok(!sub("bundle", "show").includes("--key"));
  assert.ok(!sub("bundle", "verify").includes("--passphrase-file"));
});

Deno.test("an empty flag table gives only --help, whatever the help text mentions", () => {
  const bare: Command = {
    name: "bare",
    summary: "it's: odd",
    help: "schemapin bare — see `schemapin bare --nothing` and --prose\n",
    flags: {},
    run: () => Promise.resolve(0),
  };
  assert.deepEqual(completionSpec(bare), {
    name: "bare",
    summary: "it's: odd",
    flags: ["--help"],
    subcommands: [],
  });
  // Quotes and colons in a summary are escaped for each shell, never left to break the script.
  assert.ok(completionScript("zsh", [bare]).includes(`'bare:it'\\''s\\: odd'`));
  assert.ok(completionScript("fish", [bare]).includes(`-d 'it\\'s: odd'`));
});

Deno.test("a command with subcommands and a plain form completes both (guard -- CMD, guard wrap)", () => {
  const guard = completionSpec(byName("guard"));
  assert.deepEqual(guard.subcommands.map((s) => s.name), ["wrap", "unwrap"]);
  assert.ok(guard.plainFlags?.includes("--listen"), "the plain form's flags");
  assert.ok(
    !guard.plainFlags?.includes("--schemapin-command"),
    "wrap's flag is not the plain form's",
  );
  const bash = completionScript("bash", [byName("guard")]);
  assert.match(bash, /\*\) flags="--lock /);
  const fish = completionScript("fish", [byName("guard")]);
  assert.match(fish, /not __fish_seen_subcommand_from wrap unwrap' -l listen/);
  // A command without a plain form offers only its subcommands there.
  assert.equal(completionSpec(byName("pins")).plainFlags, undefined);
  assert.doesNotMatch(completionScript("bash", [byName("pins")]), /\*\) flags=/);
});

Deno.test("fish: short forms are -s, long flags -l (never an empty -l)", () => {
  const fish = completionScript("fish", COMMANDS);
  assert.doesNotMatch(fish, / -l $/m);
  assert.match(fish, /__fish_seen_subcommand_from sign-schema' -s k$/m);
});
