// The compile task: same permission flags as `deno task schemapin`, every release target,
// and (only where deno compile can get its runtime) a real compiled binary.
import assert from "node:assert/strict";
import { compileArgs, denortMissing, permissionFlags, TARGETS } from "../../scripts/compile.ts";
import { schemapinTaskFlags } from "./run.ts";
import { childCommand, denoCommand } from "../process.ts";
import { startConnectProxy } from "../fixtures/network/proxy.ts";
import {
  connectsBeyond,
  NPM_REGISTRY_CONNECT,
  offlineDenoDir,
  offlineEnv,
} from "../offline_deno.ts";
import { ENTRY_POINTS } from "../entry_points.ts";

const denoJson = await Deno.readTextFile(new URL("../../deno.json", import.meta.url));

Deno.test("compile uses exactly the schemapin task's permission flags", async () => {
  const flags = permissionFlags(denoJson);
  const task = await schemapinTaskFlags();
  assert.deepEqual(flags, task.filter((f) => f.startsWith("--allow-")));
  // The task loads commands lazily under deno run; deno compile never gets that flag (it would
  // leave every dynamically imported command out of the binary).
  assert.ok(task.includes("--unstable-lazy-dynamic-imports"), task.join(" "));
  assert.ok(!flags.some((f) => f.startsWith("--unstable")), flags.join(" "));
  const args = compileArgs(flags);
  assert.ok(!args.some((a) => a.includes("lazy-dynamic-imports")), args.join(" "));
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
    "deno run --unstable-sloppy-imports --allow-read cli.ts",
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

const repo = new URL("../../", import.meta.url).pathname;

/** A copy of what `deno task compile` reads (its own dist/ is the test's), under `dir`. */
async function checkoutCopy(dir: string): Promise<string> {
  const work = `${dir}/checkout`;
  await Deno.mkdir(work);
  const copy = async (from: string, to: string): Promise<void> => {
    const info = await Deno.stat(from);
    if (!info.isDirectory) return await Deno.copyFile(from, to);
    await Deno.mkdir(to, { recursive: true });
    for await (const e of Deno.readDir(from)) await copy(`${from}/${e.name}`, `${to}/${e.name}`);
  };
  for (
    const path of ["deno.json", "deno.lock", "cli.ts", ...ENTRY_POINTS, "lib", "cli", "scripts"]
  ) {
    await copy(`${repo}${path}`, `${work}/${path}`);
  }
  return work;
}

Deno.test("deno task compile offline: one line naming denort, its URL and DENORT_BIN; exit 1; no dist/ left", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-compile-" });
  // Every download is refused, so deno compile cannot get denort: offline, wherever this runs.
  const proxy = startConnectProxy(() => undefined);
  try {
    const work = await checkoutCopy(dir);
    const { denoDir } = await offlineDenoDir(dir, repo, "cli.ts", (n) => n.startsWith("@noble/"));
    // Only what the task needs: no DENORT_BIN from the developer's shell.
    const env = { PATH: Deno.env.get("PATH") ?? "", HOME: dir, ...offlineEnv(proxy, denoDir) };
    const compile = async (args: string[]) => {
      const r = await denoCommand(["task", "compile", ...args], {
        cwd: work,
        clearEnv: true,
        env,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: r.code, stderr: new TextDecoder().decode(r.stderr) };
    };
    const v = Deno.version.deno;

    // No dist/ before: none after.
    const host = await compile([]);
    assert.equal(host.code, 1, host.stderr);
    const errors = host.stderr.split("\n").filter((l) => /^error/.test(l));
    assert.equal(errors.length, 1, host.stderr);
    assert.match(
      errors[0],
      new RegExp(
        `^error: deno compile needs the denort runtime for ${Deno.build.target}, downloaded from ` +
          `https://dl\\.deno\\.land/release/v${v}/denort-${Deno.build.target}\\.zip .*; offline, ` +
          `set DENORT_BIN=/path/to/denort`,
      ),
    );
    assert.doesNotMatch(host.stderr, /Caused by|Stack backtrace/, "no error chain");
    await assert.rejects(Deno.stat(`${work}/dist`), Deno.errors.NotFound, "no empty dist/ left");
    // denort was asked for (and refused); besides it, only Deno's optional question to the npm
    // registry (NPM_REGISTRY_CONNECT in tests/offline_deno.ts) may have been tried.
    assert.ok(
      proxy.connects.includes("dl.deno.land:443") &&
        connectsBeyond(proxy.connects, ["dl.deno.land:443", NPM_REGISTRY_CONNECT]).length === 0,
      `downloads tried: ${proxy.connects.join(", ")}`,
    );

    // A dist/ that was there stays, with what it held, and nothing of this run.
    await Deno.mkdir(`${work}/dist`);
    await Deno.writeTextFile(`${work}/dist/keep.txt`, "mine");
    const mac = await compile(["--target", "aarch64-apple-darwin"]);
    assert.equal(mac.code, 1, mac.stderr);
    assert.match(
      mac.stderr,
      /^error: deno compile needs the denort runtime for aarch64-apple-darwin, /m,
    );
    assert.match(mac.stderr, /denort-aarch64-apple-darwin\.zip/);
    const left = [];
    for await (const e of Deno.readDir(`${work}/dist`)) left.push(e.name);
    assert.deepEqual(left, ["keep.txt"]);

    // A bad argument is a usage error before anything runs.
    const bad = await compile(["--target", "x86_64-unknown-plan9"]);
    assert.equal(bad.code, 2);
    assert.match(
      bad.stderr,
      /^error: compile: --target must be one of x86_64-unknown-linux-gnu, /m,
    );
  } finally {
    await proxy.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("denortMissing: deno's download failure becomes one line; other failures keep deno's words", () => {
  const chain = [
    "error: Writing deno compile executable to temporary file 'dist/schemapin.tmp-8fe388ff9c71ef81'",
    "",
    "Caused by:",
    "    0: Setting up base binary.",
    "    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x86_64-apple-darwin.zip): client error (Connect): dns error",
    "    2: client error (Connect)",
    "    3: dns error",
    "    4: failed to lookup address information: Name or service not known",
    "",
    "Stack backtrace:",
    "   0: <unknown>",
  ].join("\n");
  const saved = Deno.env.get("DENORT_BIN");
  Deno.env.delete("DENORT_BIN");
  try {
    assert.equal(
      denortMissing(chain, "x86_64-apple-darwin"),
      "error: deno compile needs the denort runtime for x86_64-apple-darwin, downloaded from " +
        "https://dl.deno.land/release/v2.9.6/denort-x86_64-apple-darwin.zip (failed: failed to " +
        "lookup address information: Name or service not known); offline, set " +
        `DENORT_BIN=/path/to/denort (the denort binary of Deno ${Deno.version.deno} for ` +
        "x86_64-apple-darwin)",
    );
    assert.equal(
      denortMissing('error: Module not found "file:///x/cli.ts".', undefined),
      undefined,
    );
    assert.equal(
      denortMissing("error: TS2322 [ERROR]: Type 'string' is not assignable", "x"),
      undefined,
    );
    Deno.env.set("DENORT_BIN", "/nowhere/denort");
    assert.equal(
      denortMissing(chain, undefined),
      undefined,
      "a DENORT_BIN problem keeps deno's words",
    );
  } finally {
    if (saved === undefined) Deno.env.delete("DENORT_BIN");
    else Deno.env.set("DENORT_BIN", saved);
  }
});
