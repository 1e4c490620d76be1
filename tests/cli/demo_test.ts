// `deno task demo` must keep working for newcomers: it runs end to end and the tampering
// step is refused with the modified file named.
import assert from "node:assert/strict";
import { childCommand } from "../process.ts";
import { shellLine, shellQuote } from "../../scripts/shell.ts";

Deno.test("the demo runs end to end and refuses the tampered skill and schema", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  const words = (config.tasks.demo as string).split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"]);
  const { code, stdout } = await childCommand(Deno.execPath(), {
    args: words.slice(1),
    cwd: new URL("../../", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
  }).output();
  const out = new TextDecoder().decode(stdout);
  assert.equal(code, 0, out);
  assert.match(out, /modified: scripts\/extract\.sh/);
  assert.match(out, /the schema changed after signing/);
  assert.match(out, /Done: the tampered skill file and the rewritten schema were refused\./);
  // Every command line it prints runs as shown when pasted (issue 15: --developer Example Corp).
  const lines = out.split("\n").filter((l) => l.startsWith("$ schemapin ")).map((l) => l.slice(2));
  assert.ok(lines.length >= 7, out);
  const argvs = await bashArgv(lines);
  assert.deepEqual(argvs.find((a) => a[0] === "keygen"), [
    "keygen",
    "--out-dir",
    "keys",
    "--write-discovery",
    "--developer",
    "Example Corp",
  ]);
  for (const argv of argvs) assert.ok(argv.every((a) => !a.includes("'")), JSON.stringify(argv));
  const work = out.match(/working in (\S+)/)?.[1];
  assert.ok(work);
  await assert.rejects(Deno.stat(work), Deno.errors.NotFound, "the demo cleans up after itself");
});

/** The argument lists bash makes of `lines` (each `$ schemapin …`), with schemapin a stub. */
async function bashArgv(lines: string[]): Promise<string[][]> {
  const script = 'schemapin() { printf "%s\\0" "$@"; printf "\\001"; }\n' + lines.join("\n");
  const { code, stdout } = await childCommand("bash", {
    args: ["-c", script],
    stdout: "piped",
  }).output();
  assert.equal(code, 0);
  return new TextDecoder().decode(stdout).split("\x01").slice(0, -1).map((l) =>
    l.split("\0").slice(0, -1)
  );
}

Deno.test("shellQuote: bash reads every quoted argument back unchanged", async () => {
  const args = [
    "plain",
    "Example Corp",
    "it's",
    "",
    "*.json",
    "$HOME",
    "${SEARCH_TOKEN}",
    "a\nb",
    "back\\slash",
    '"dq"',
    "--x=a b",
    "é ü",
    "!event",
  ];
  const line = `schemapin ${shellLine(args)}`;
  assert.deepEqual(await bashArgv([line]), [args]);
  assert.equal(shellQuote("keys/private.pem"), "keys/private.pem", "plain paths stay bare");
  assert.equal(shellQuote("Example Corp"), "'Example Corp'");
});
