// The compile task: same permission flags as `deno task schemapin`, every release target,
// and (only where deno compile can get its runtime) a real compiled binary.
import assert from "node:assert/strict";
import { compileArgs, permissionFlags, TARGETS } from "../../scripts/compile.ts";
import { schemapinTaskFlags } from "./run.ts";
import { childCommand } from "../process.ts";

const denoJson = await Deno.readTextFile(new URL("../../deno.json", import.meta.url));

Deno.test("compile uses exactly the schemapin task's permission flags", async () => {
  const flags = permissionFlags(denoJson);
  assert.deepEqual(flags, await schemapinTaskFlags());
  const args = compileArgs(flags);
  assert.deepEqual(args.slice(1, 1 + flags.length), flags);
  assert.equal(args.at(-1), "cli.ts");
  assert.ok(args.includes("--exclude-unused-npm"));
});

Deno.test("compile covers the five release targets with distinct outputs", () => {
  assert.equal(TARGETS.length, 5);
  const outputs = TARGETS.map((t) => compileArgs([], t)).map((a) => a[a.indexOf("--output") + 1]);
  assert.equal(new Set(outputs).size, 5);
  assert.ok(outputs.some((o) => o.endsWith(".exe")));
});

Deno.test("permissionFlags refuses a task that is not narrow `deno run <flags> cli.ts`", () => {
  const bad = [
    "deno run -A cli.ts",
    "deno run --allow-all cli.ts",
    "deno run --allow-read other.ts",
    "deno test --allow-read cli.ts",
  ];
  for (const task of bad) {
    assert.throws(
      () => permissionFlags(JSON.stringify({ tasks: { schemapin: task } })),
      Error,
      task,
    );
  }
});

const denort = Deno.env.get("DENORT_BIN");
Deno.test({
  name: "compiled binary runs --version (needs DENORT_BIN or internet for deno compile)",
  ignore: !denort,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      const flags = permissionFlags(denoJson);
      const out = `${dir}/schemapin`;
      const args = compileArgs(flags).map((a) => a.startsWith("dist/") ? out : a);
      const build = await childCommand(Deno.execPath(), {
        args,
        cwd: new URL("../../", import.meta.url).pathname,
      }).output();
      assert.equal(build.code, 0, new TextDecoder().decode(build.stderr));
      const run = await childCommand(out, { args: ["--version"] }).output();
      assert.match(new TextDecoder().decode(run.stdout), /^schemapin \S+ \(compiled\)\n$/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
if (!denort) {
  console.log(
    "compile_test: skipping the compiled-binary run: DENORT_BIN is not set and deno compile " +
      "cannot download its denort runtime without internet access. The CLI is exercised " +
      "end to end through `deno run` with the compile task's exact permission flags instead.",
  );
}
