// The pure core (canonicalization, signing, verification of in-memory documents, bundles,
// contract digests) must run outside Deno: bundle tests/node/core_smoke.ts with
// `deno bundle` and run it under Node.js.
import assert from "node:assert/strict";
import { childCommand } from "../process.ts";
import { ignoreWithout } from "../required_tool.ts";

const node = await childCommand("node", { args: ["--version"] }).output().catch(() => null);
// CI runs Deno through npx, so node is always there.
const noNode = ignoreWithout("node", node !== null, ".ci/run (Deno comes from npm)");

Deno.test({
  name: "the bundled core runs under Node.js",
  ignore: noNode,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "schemapin-node-" });
    try {
      const out = `${dir}/core.mjs`;
      const bundle = await childCommand(Deno.execPath(), {
        args: [
          "bundle",
          "--quiet",
          "--platform",
          "browser",
          "-o",
          out,
          new URL("./core_smoke.ts", import.meta.url).pathname,
        ],
      }).output();
      assert.equal(bundle.code, 0, new TextDecoder().decode(bundle.stderr));
      const source = await Deno.readTextFile(out);
      assert.doesNotMatch(source, /from "npm:/, "npm packages are bundled in");
      const run = await childCommand("node", { args: [out] }).output();
      const stderr = new TextDecoder().decode(run.stderr);
      assert.equal(run.code, 0, stderr);
      assert.equal(new TextDecoder().decode(run.stdout), "core ok\n");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
