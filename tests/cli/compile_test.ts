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

/**
 * Where `deno compile` gets the runtime it embeds: DENORT_BIN when set, otherwise the copy it
 * downloaded before into the Deno cache, otherwise a download from dl.deno.land — which these
 * tests cannot count on (CI and sandboxes without internet). The test runs in the first two
 * cases and says precisely which one is missing otherwise.
 */
async function denortSource(): Promise<{ runtime?: string; why?: string }> {
  const bin = Deno.env.get("DENORT_BIN");
  if (bin) return { runtime: `DENORT_BIN=${bin}` };
  const info = await childCommand(Deno.execPath(), { args: ["info", "--json"], stderr: "null" })
    .output();
  const denoDir: string = JSON.parse(new TextDecoder().decode(info.stdout)).denoDir;
  const zip = `denort-${Deno.build.target}.zip`;
  const cached = `${denoDir}/dl/release/v${Deno.version.deno}/${zip}`;
  try {
    if (Deno.statSync(cached).isFile) return { runtime: `the cached ${cached}` };
  } catch { /* not cached */ }
  return {
    why: `DENORT_BIN is not set and ${cached} is not in the Deno cache, so deno compile would ` +
      `download https://dl.deno.land/release/v${Deno.version.deno}/${zip}; the tests do not ` +
      `download. To run it: DENORT_BIN=/path/to/denort deno task test, or run \`deno task ` +
      `compile\` once online (it fills the cache). Meanwhile the CLI is exercised end to end ` +
      `through \`deno run\` with the compile task's exact permission flags.`,
  };
}
const denort = await denortSource();

Deno.test({
  name: "compiled binary runs --version (deno compile with DENORT_BIN or a cached denort)",
  ignore: denort.runtime === undefined,
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
      assert.equal(
        build.code,
        0,
        `deno compile with ${denort.runtime}: ${new TextDecoder().decode(build.stderr)}`,
      );
      const run = await childCommand(out, { args: ["--version"] }).output();
      assert.match(new TextDecoder().decode(run.stdout), /^schemapin \S+ \(compiled\)\n$/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
if (denort.why) console.log(`compile_test: skipping the compiled-binary run: ${denort.why}`);
