// The JSR package: every export documented (`deno doc --lint`), and `deno publish --dry-run`
// passes with no warnings (slow types, excluded files).
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";
import { ENTRY_POINTS } from "./entry_points.ts";

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

Deno.test("deno doc --lint passes on every entry point", async () => {
  const { code, output } = await deno(["doc", "--lint", ...ENTRY_POINTS]);
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
  for (const entry of ENTRY_POINTS) {
    assert.match(output, new RegExp(`/${entry.replace(".", "\\.")} `), `${entry} is published`);
  }
});
