// What `deno task demo`, the CLI and the library install (issue 16 item 5): `@noble/curves` and
// its one dependency `@noble/hashes`, nothing else. Deno sets up every npm package of the
// lockfile a program starts with — not only the ones it imports — so the test-only packages
// (the MCP SDK, Ajv and their ~90 dependencies) live in tests/deno.lock (tests/deno.json, used
// by `deno task test`, `deno task check` and every script under tests/ and examples/), and
// deno.lock, frozen, holds only what deno.json imports.
import assert from "node:assert/strict";
import { denoCommand } from "../process.ts";
import { startConnectProxy } from "../fixtures/network/proxy.ts";
import {
  cachedNpmPackages,
  connectsBeyond,
  NPM_REGISTRY_CONNECT,
  npmPackagesOf,
  offlineDenoDir,
  offlineEnv,
} from "../offline_deno.ts";
import { ENTRY_POINTS } from "../entry_points.ts";

const repo = new URL("../../", import.meta.url).pathname;
const readJson = async (path: string) => JSON.parse(await Deno.readTextFile(`${repo}${path}`));
/** The packages the CLI and the library need: noble-curves and the hashes it imports. */
const isProductPackage = (name: string) => name === "@noble/curves" || name === "@noble/hashes";
const packageName = (id: string) => id.slice(0, id.indexOf("@", 1));
const RESTORE = "deno.lock must lock only what deno.json imports (the CLI and the library); " +
  "test packages belong in tests/deno.lock, which `deno task test` and `deno task check` use. " +
  "Restore it with `git show HEAD:deno.lock > deno.lock` and run test files with " +
  "`deno task test tests/…_test.ts`";

Deno.test("deno.lock is frozen and locks only the packages deno.json imports", async () => {
  const config = await readJson("deno.json");
  assert.deepEqual(config.lock, { path: "./deno.lock", frozen: true });
  const lock = await readJson("deno.lock");
  assert.deepEqual(
    Object.keys(lock.specifiers ?? {}).sort(),
    Object.values(config.imports as Record<string, string>).sort(),
    RESTORE,
  );
  const packages = Object.keys(lock.npm ?? {});
  assert.deepEqual(packages.filter((id) => !isProductPackage(packageName(id))), [], RESTORE);
  assert.deepEqual(packages.map(packageName).sort(), ["@noble/curves", "@noble/hashes"]);
  assert.equal(lock.jsr, undefined, "no JSR package (the registry is not reachable)");
});

Deno.test("tests/ and examples/ resolve the library as deno.json does and lock into tests/deno.lock", async () => {
  const root = await readJson("deno.json");
  const tests = await readJson("tests/deno.json");
  const examples = await readJson("examples/deno.json");
  // The same import map, plus the package's own name for each export: under deno.json,
  // `jsr:@schemapin/schemapin/…` resolves to this checkout (the workspace package), and code
  // under tests/ and examples/ written as a JSR reader would write it must resolve the same way.
  const expected = { ...root.imports };
  for (const [sub, file] of Object.entries(root.exports as Record<string, string>)) {
    expected[`jsr:${root.name}${sub === "." ? "" : sub.slice(1)}`] = `.${file}`;
  }
  // (tests/deno.json may add test-only packages: that is where they belong.)
  for (const [name, config] of [["tests", tests], ["examples", examples]]) {
    for (const [key, value] of Object.entries(expected)) {
      assert.equal(
        config.imports[key],
        value,
        `${name}/deno.json must map "${key}": "${value}" (deno.json's import map and one entry ` +
          `per export, so code under ${name}/ resolves the package's own name to this checkout)`,
      );
    }
  }
  assert.equal(tests.lock, "./deno.lock");
  assert.equal(examples.lock, "../tests/deno.lock");
  // deno fmt and deno lint read the nearest deno.json: the same rules as the root's.
  assert.equal(tests.fmt.lineWidth, root.fmt.lineWidth);
  assert.equal(examples.fmt.lineWidth, root.fmt.lineWidth);
  assert.deepEqual(tests.fmt.exclude, ["fixtures/"]);
  assert.deepEqual(tests.lint.exclude, ["fixtures/"]);
  assert.ok(
    root.fmt.exclude.includes("tests/fixtures/") && root.lint.exclude.includes("tests/fixtures/"),
  );
  // The test packages are locked (with their integrity) where the tests look for them.
  const testLock = await readJson("tests/deno.lock");
  for (const specifier of ["npm:@modelcontextprotocol/sdk@1.32.2", "npm:@noble/curves@2.4.0"]) {
    assert.ok(specifier in testLock.specifiers, `tests/deno.lock lacks ${specifier}`);
  }
  for (const task of ["test", "check"]) {
    assert.match(root.tasks[task], /--config tests\/deno\.json/, `task ${task}`);
  }
});

Deno.test("the CLI, the library, the demo and the build scripts import no npm package but @noble", async () => {
  const entries = ["cli.ts", ...ENTRY_POINTS, "scripts/demo.ts", "scripts/compile.ts"];
  for (const entry of entries) {
    const names = Object.values(await npmPackagesOf(entry, repo)).map((p) => p.name);
    assert.deepEqual(names.filter((n) => !isProductPackage(n)), [], entry);
    if (["cli.ts", "mod.ts", "scripts/demo.ts"].includes(entry)) {
      assert.ok(names.includes("@noble/curves"), entry);
    }
  }
});

Deno.test({
  name:
    "deno task demo runs from a Deno cache holding only @noble/curves and @noble/hashes, downloading nothing",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "schemapin-footprint-" });
    const proxy = startConnectProxy(() => undefined);
    try {
      const { denoDir, copied } = await offlineDenoDir(dir, repo, "cli.ts", isProductPackage);
      assert.deepEqual(copied.map(packageName).sort(), ["@noble/curves", "@noble/hashes"]);
      const { code, stdout, stderr } = await denoCommand(["task", "demo"], {
        cwd: repo,
        env: offlineEnv(proxy, denoDir),
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
      // Every CONNECT is refused: the demo ran from the cache alone. Deno's optional question to
      // the npm registry (NPM_REGISTRY_CONNECT) is the one request allowed to have been tried.
      assert.deepEqual(
        connectsBeyond(proxy.connects, [NPM_REGISTRY_CONNECT]),
        [],
        `the demo tried to download: ${out}`,
      );
      assert.equal(code, 0, out);
      assert.match(out, /Done: the tampered skill file and the rewritten schema were refused\./);
      assert.deepEqual(
        (await cachedNpmPackages(denoDir)).map(packageName),
        ["@noble/curves", "@noble/hashes"],
      );
    } finally {
      await proxy.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("connectsBeyond: only the targets not allowed are left, in order", () => {
  const seen = ["registry.npmjs.org:443", "example.com:443", "dl.deno.land:443", "a.test:443"];
  assert.deepEqual(connectsBeyond(seen, [NPM_REGISTRY_CONNECT]), [
    "example.com:443",
    "dl.deno.land:443",
    "a.test:443",
  ]);
  assert.deepEqual(connectsBeyond(seen, [...seen]), []);
  assert.deepEqual(connectsBeyond([], [NPM_REGISTRY_CONNECT]), []);
  // A host on another port is another target.
  assert.deepEqual(connectsBeyond(["registry.npmjs.org:80"], [NPM_REGISTRY_CONNECT]), [
    "registry.npmjs.org:80",
  ]);
});
