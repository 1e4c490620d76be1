// Usage mistakes in our words (issue 15 item 7): parseArgs' own message never reaches a user,
// the message names the command and the flag, and a mistyped flag gets a did-you-mean.
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { describeArgsMistake, parseArgsErrorMessage } from "../../cli/args/mistakes.ts";
import type { OptionSpec } from "../../cli/args/flags.ts";
import { COMMAND_ENTRIES } from "../../cli/commands/registry.ts";
import { completionSpec } from "../../cli/commands/completions.ts";
import { runInProcess } from "./run.ts";
import { SHORT_FLAGS } from "../../cli/args/flags.ts";

const OPTIONS: OptionSpec = {
  out: { type: "string", short: "o" },
  json: { type: "boolean", short: "j" },
  key: { type: "string", multiple: true },
};

/** Words of node:util parseArgs' messages that must never be shown. */
const PARSEARGS_WORDING =
  /To specify|place it at the end|argument missing|is ambiguous|Did you forget|Unknown option '|Option '|Unexpected argument '|does not take an argument|ERR_PARSE_ARGS/;

// [args, expected message] — expectations written by hand from the flags above.
const MISTAKES: [string[], string][] = [
  [["--ouput", "x"], "demo: unknown option --ouput; did you mean --out?"],
  [["--output"], "demo: unknown option --output; did you mean --out?"],
  [["--jsn"], "demo: unknown option --jsn; did you mean --json?"],
  [["--frobnicate"], "demo: unknown option --frobnicate"],
  [["-x"], "demo: unknown option -x"],
  [["-jx"], "demo: unknown option -x"],
  [["a", "b", "--zzz"], "demo: unknown option --zzz"],
  [["--out"], "demo: --out needs a value"],
  [["-o"], "demo: -o (--out) needs a value"],
  [["--json=yes"], 'demo: --json takes no value (got "yes")'],
  [
    ["--out", "--json"],
    "demo: --out needs a value but is followed by --json; if that is the value, write --out=--json",
  ],
  [
    ["-o", "-j"],
    "demo: -o (--out) needs a value but is followed by -j; if that is the value, write --out=-j",
  ],
  [["--key=a", "--key"], "demo: --key needs a value"],
];

Deno.test("describeArgsMistake: each mistake in our words, the first one wins", () => {
  for (const [args, expected] of MISTAKES) {
    assert.equal(describeArgsMistake("demo", args, OPTIONS), expected, args.join(" "));
    // The strict parse refuses the same arguments (else the test would test nothing real).
    assert.throws(() =>
      parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true })
    );
  }
});

Deno.test("describeArgsMistake: undefined for what a strict parse accepts", () => {
  for (
    const args of [
      [],
      ["--out", "x"],
      ["--out=-x"],
      ["-o", "-"], // "-" is stdin, a value
      ["-ofile"],
      ["--json", "a", "b"],
      ["--", "--zzz", "-x"], // after --, positionals
      ["--key=a", "--key", "b"],
    ]
  ) {
    parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
    assert.equal(describeArgsMistake("demo", args, OPTIONS), undefined, args.join(" "));
  }
});

Deno.test("parseArgsErrorMessage: the real parseArgs errors, never their wording", () => {
  for (const [args, expected] of MISTAKES) {
    let error: unknown;
    try {
      parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
    } catch (e) {
      error = e;
    }
    const message = parseArgsErrorMessage("demo", args, OPTIONS, error);
    assert.equal(message, expected);
    assert.doesNotMatch(message, PARSEARGS_WORDING);
  }
  // A mistake the scan does not find (positionals refused by a caller's own config): by code.
  const fake = (code: string) =>
    Object.assign(new TypeError("Unknown option '-q'. To specify"), { code });
  assert.equal(
    parseArgsErrorMessage("demo", [], OPTIONS, fake("ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")),
    "demo: takes no arguments other than options",
  );
  assert.equal(
    parseArgsErrorMessage("demo", [], OPTIONS, fake("ERR_PARSE_ARGS_UNKNOWN_OPTION")),
    "demo: unknown option",
  );
  assert.equal(
    parseArgsErrorMessage("demo", [], OPTIONS, fake("ERR_PARSE_ARGS_INVALID_OPTION_VALUE")),
    "demo: an option has a missing or invalid value",
  );
  assert.equal(
    parseArgsErrorMessage("demo", [], OPTIONS, new Error("To specify a positional")),
    "demo: could not read the arguments",
  );
});

/** Every command and subcommand as typed: `keygen`, `bundle sign`, `pins add`, … */
async function everyCommandLine(): Promise<{ words: string[]; flags: readonly string[] }[]> {
  const lines = [];
  for (const entry of COMMAND_ENTRIES) {
    const spec = completionSpec(await entry.load());
    if (spec.subcommands.length === 0) lines.push({ words: [entry.name], flags: spec.flags });
    for (const sub of spec.subcommands) {
      lines.push({ words: [entry.name, sub.name], flags: sub.flags });
    }
  }
  return lines;
}

Deno.test("every command and subcommand: an unknown flag is exit 2 in our words", async () => {
  const lines = await everyCommandLine();
  assert.ok(lines.length >= 30, `only ${lines.length} command lines found`);
  for (const { words, flags } of lines) {
    // completions' bash|zsh|fish are arguments, which its messages do not name.
    const name = words[0] === "completions" ? words[0] : words.join(" ");
    const r = await runInProcess([...words, "--ouput", "x"]);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`^error: ${name}: unknown option --ouput`), name);
    assert.doesNotMatch(r.stderr + r.stdout, PARSEARGS_WORDING, name);
    // The did-you-mean offers --out exactly where the command has a --out flag.
    const offered = /did you mean ([^?]*)\?/.exec(r.stderr)?.[1] ?? "";
    assert.equal(offered.split(/, | or /).includes("--out"), flags.includes("--out"), name);

    const short = await runInProcess([...words, "-Z"]);
    assert.equal(short.code, 2, name);
    assert.match(short.stderr, new RegExp(`^error: ${name}: unknown option -Z\\n`), name);
    assert.doesNotMatch(short.stderr, PARSEARGS_WORDING, name);
  }
});

/** The long flag a short one stands for, from the command's help (`-o, --out`). */
function longOf(words: string[], short: string): string {
  const name = Object.entries(SHORT_FLAGS).find(([, s]) => `-${s}` === short)?.[0];
  if (name === undefined) {
    throw new Error(`${words.join(" ")}: ${short} is not a conventional short flag`);
  }
  return name;
}

Deno.test("every flag that takes a value: missing value is exit 2 naming the flag", async () => {
  const lines = await everyCommandLine();
  let checked = 0;
  for (const { words, flags } of lines) {
    for (const flag of flags) {
      if (flag === "--help") continue;
      // Last on the line: a flag that takes a value is missing it; a boolean flag is fine
      // there and is given a value instead (--json=1) to draw its own refusal.
      const r = await runInProcess([...words, flag]);
      if (!/needs a value/.test(r.stderr)) {
        const b = await runInProcess([...words, `${flag}=1`]);
        assert.equal(b.code, 2, `${words.join(" ")} ${flag}=1: ${b.stderr}`);
        assert.doesNotMatch(b.stderr, PARSEARGS_WORDING, `${words.join(" ")} ${flag}=1`);
        continue;
      }
      checked++;
      assert.equal(r.code, 2, `${words.join(" ")} ${flag}`);
      // A short flag is shown with its long name: "-o (--out) needs a value".
      const shown = flag.startsWith("--") ? flag : `${flag} (--${longOf(words, flag)})`;
      assert.equal(r.stderr, `error: ${words.join(" ")}: ${shown} needs a value\n(see --help)\n`);
    }
  }
  assert.ok(checked >= 50, `only ${checked} value flags checked`);
});
