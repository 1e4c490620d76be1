// The shared library suite (tests/node/library_suite.ts: sign and verify a schema, a real skill
// folder, the file pin store under concurrent writers, trust bundles, a contract digest and a
// contract verify against a stdio server) runs outside Deno: bundled once with `deno bundle`,
// then `node --test` on Node 20 (the machine's node), and on Node 22 and Bun when their paths
// are given in SCHEMAPIN_NODE22 / SCHEMAPIN_BUN (.ci/run fetches both from npm and sets them,
// so on CI=true a missing one fails; elsewhere it is skipped with a note).
import assert from "node:assert/strict";
import { childCommand } from "../process.ts";
import { ignoreWithout } from "../required_tool.ts";

const node = await childCommand("node", { args: ["--version"] }).output().catch(() => null);
const noNode = ignoreWithout("node", node?.success === true, ".ci/run (Deno comes from npm)");
const node22 = Deno.env.get("SCHEMAPIN_NODE22");
const noNode22 = ignoreWithout(
  "node 22 (SCHEMAPIN_NODE22)",
  node22 !== undefined && node22 !== "",
  ".ci/run (npx -y node@22)",
);
const bun = Deno.env.get("SCHEMAPIN_BUN");
const noBun = ignoreWithout(
  "bun (SCHEMAPIN_BUN)",
  bun !== undefined && bun !== "",
  ".ci/run (npx -y bun)",
);

const SUITE = new URL("./library_suite.ts", import.meta.url).pathname;
const TESTS_CONFIG = new URL("../deno.json", import.meta.url).pathname;
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

let built: Promise<string> | undefined;
/** The suite bundled into one .mjs file (built once per run, removed at unload). */
function bundle(): Promise<string> {
  built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "schemapin-node-suite-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
    const out = `${dir}/library_suite.mjs`;
    const result = await childCommand(Deno.execPath(), {
      args: ["bundle", "--quiet", "--config", TESTS_CONFIG, "-o", out, SUITE],
    }).output();
    assert.equal(result.code, 0, decode(result.stderr));
    const source = await Deno.readTextFile(out);
    assert.doesNotMatch(
      source,
      /^\s*(import|export)\b[^;]*from "(npm|jsr):/m,
      "packages bundled in",
    );
    return out;
  })();
  return built;
}

async function runSuite(argv: string[]): Promise<void> {
  const file = await bundle();
  const run = await childCommand(argv[0], { args: [...argv.slice(1), file] }).output();
  const out = decode(run.stdout) + decode(run.stderr);
  assert.equal(run.code, 0, out);
  assert.doesNotMatch(out, /\bfail [1-9]|\(fail\)|Deno is not defined/, out);
}

Deno.test({
  name: "the library suite passes under Node.js (node --test)",
  ignore: noNode,
  fn: () => runSuite(["node", "--test"]),
});

Deno.test({
  name: "the library suite passes under Node.js 22 (node --test)",
  ignore: noNode22,
  fn: () => runSuite([node22!, "--test"]),
});

Deno.test({
  name: "the library suite passes under Bun (bun test)",
  ignore: noBun,
  fn: () => runSuite([bun!, "test"]),
});

// require() of an ES module works only when its graph has no top-level await (Node's
// ERR_REQUIRE_ASYNC_MODULE): the library loads Node built-ins through
// process.getBuiltinModule (lib/runtime/builtin.ts) to stay loadable that way.
Deno.test({
  name: "the library loads with require() under Node.js (no top-level await in mod.ts's graph)",
  ignore: noNode,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "schemapin-require-" });
    try {
      const out = `${dir}/mod.mjs`;
      const mod = new URL("../../mod.ts", import.meta.url).pathname;
      const built = await childCommand(Deno.execPath(), {
        args: ["bundle", "--quiet", "--config", TESTS_CONFIG, "-o", out, mod],
      }).output();
      assert.equal(built.code, 0, decode(built.stderr));
      const script = `const m = require(${JSON.stringify(out)}); ` +
        `if (typeof m.verifySchemaOffline !== "function") throw new Error("no export"); ` +
        `console.log("loaded");`;
      // Node 20 needs the flag (20.17+); Node 22 has require(esm) on by default.
      const runs: [string, string[]][] = [["node", ["--experimental-require-module"]]];
      if (node22 !== undefined && node22 !== "") runs.push([node22, []]);
      for (const [bin, flags] of runs) {
        const run = await childCommand(bin, { args: [...flags, "-e", script] }).output();
        const text = decode(run.stdout) + decode(run.stderr);
        assert.equal(run.code, 0, `${bin}: ${text}`);
        assert.match(decode(run.stdout), /^loaded$/m, `${bin}: ${text}`);
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

// The bundle above hides one class of bug: the bundler turns top-level `let`/`const` into
// `var`, so a module that reads its own binding while initializing it (TDZ) works bundled and
// throws when Node loads the file itself. The modules that pick their runtime at load time
// (hashing, file system, atomic writes, locks, processes, temporary files) are plain enough for
// Node 22's type stripping: load them unbundled and use them once.
Deno.test({
  name: "the runtime-picking modules load unbundled under Node.js 22 (type stripping)",
  ignore: noNode22,
  fn: async () => {
    const root = new URL("../../", import.meta.url).pathname;
    const script = `
      const hash = await import(${JSON.stringify(`${root}lib/crypto/hash.ts`)});
      const fs = await import(${JSON.stringify(`${root}lib/runtime/fs.ts`)});
      await import(${JSON.stringify(`${root}lib/runtime/lock.ts`)});
      await import(${JSON.stringify(`${root}lib/runtime/process.ts`)});
      const tf = await import(${JSON.stringify(`${root}lib/runtime/temp_files.ts`)});
      await import(${JSON.stringify(`${root}lib/runtime/atomic_write.ts`)});
      console.log(hash.sha256HexOfText("abc"), typeof fs.node.fs.readFileSync, typeof tf.onStop);`;
    const run = await childCommand(node22!, { args: ["--input-type=module", "-e", script] })
      .output();
    const text = decode(run.stdout) + decode(run.stderr);
    assert.equal(run.code, 0, text);
    assert.equal(
      decode(run.stdout).trim(),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad function function",
      text,
    );
  },
});
