// `deno task demo` must keep working for newcomers: it runs end to end and the tampering
// step is refused with the modified file named.
import assert from "node:assert/strict";
import { childCommand } from "../process.ts";

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
  const work = out.match(/working in (\S+)/)?.[1];
  assert.ok(work);
  await assert.rejects(Deno.stat(work), Deno.errors.NotFound, "the demo cleans up after itself");
});
