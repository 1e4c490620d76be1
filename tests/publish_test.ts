// The JSR package: every export documented (`deno doc --lint`), and `deno publish --dry-run`
// passes with no warnings (slow types, excluded files).
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";

const root = new URL("../", import.meta.url).pathname;

async function deno(args: string[]): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await childCommand(Deno.execPath(), {
    args,
    cwd: root,
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code, output: dec.decode(stdout) + dec.decode(stderr) };
}

Deno.test("deno doc --lint passes on both entry points", async () => {
  const { code, output } = await deno(["doc", "--lint", "mod.ts", "contractpin.ts"]);
  assert.equal(code, 0, output);
});

Deno.test("deno publish --dry-run passes without warnings and ships no tests", async () => {
  const { code, output } = await deno(["publish", "--dry-run", "--allow-dirty"]);
  assert.equal(code, 0, output);
  assert.doesNotMatch(output, /warning/i, output);
  assert.doesNotMatch(
    output,
    /\/tests\/|\/vectors\/|\/lib\/cli\//,
    "tests, vectors, CLI not shipped",
  );
  assert.match(output, /mod\.ts/);
  assert.match(output, /contractpin\.ts/);
});
