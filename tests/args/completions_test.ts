// cli/args/completions.ts: the bash, zsh and fish scripts written from completion specs, for
// any program word; a word that is not safe unquoted in every shell is refused.
import assert from "node:assert/strict";
import { type CompletionSpec, SHELLS, shellScript } from "../../cli/args/completions.ts";

const plain: CompletionSpec = {
  name: "keygen",
  summary: "make a key pair: P-256",
  flags: ["--out-dir", "--force", "-f", "--help"],
  subcommands: [],
};
const withSubs: CompletionSpec = {
  name: "pins",
  summary: "the pin store",
  flags: ["--json", "--help"],
  subcommands: [{ name: "list", flags: ["--json", "--help"] }],
};

Deno.test("shellScript: each shell completes the program's commands, subcommands and flags", () => {
  for (const shell of SHELLS) {
    const script = shellScript(shell, "demo-tool", [plain, withSubs]);
    assert.ok(script.includes("demo-tool"), shell);
    assert.ok(!script.includes("schemapin"), `${shell}: the program word is a parameter`);
    for (const word of ["keygen", "pins", "list", "out-dir", "json"]) {
      assert.ok(script.includes(word), `${shell} lacks ${word}`);
    }
  }
});

Deno.test("shellScript: zsh escapes the colon of a summary, fish quotes it", () => {
  assert.ok(shellScript("zsh", "p", [plain]).includes("'keygen:make a key pair\\: P-256'"));
  assert.ok(shellScript("fish", "p", [plain]).includes("-d 'make a key pair: P-256'"));
});

Deno.test("shellScript: a program word that is not safe unquoted is refused", () => {
  for (const program of ["my tool", "$(rm -rf /)", "", "Tool"]) {
    assert.throws(() => shellScript("bash", program, [plain]), /unexpected word/, program);
  }
});

Deno.test("shellScript: a command, subcommand or flag that is not safe unquoted is refused", () => {
  const bad: CompletionSpec[] = [
    { ...plain, name: "key gen" },
    { ...plain, flags: ["--out;rm"] },
    { ...withSubs, subcommands: [{ name: "li`st", flags: [] }] },
  ];
  for (const spec of bad) {
    for (const shell of SHELLS) {
      assert.throws(() => shellScript(shell, "p", [spec]), /unexpected word/, shell);
    }
  }
});
