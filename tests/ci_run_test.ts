// .ci/run, the CI entry point, with stand-in apt-get and npx on a PATH of its own: a failed
// install of the test tools ends the run (exit 1, the suite never starts), a good one goes on
// to `npx deno@… task ci` with CI=true, and tools already present are not installed again.
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";

const repo = new URL("../", import.meta.url).pathname;
const SCRIPT = `${repo}.ci/run`;

/** The real program `tool` (the stand-in PATH has none). */
function which(tool: string): string {
  const found = ["/usr/bin", "/bin"].map((d) => `${d}/${tool}`).find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  assert.ok(found, `${tool} not found in /usr/bin or /bin`);
  return found;
}
const BASH = which("bash");

interface Run {
  code: number;
  stderr: string;
  apt: string[];
  npx: string[];
}

/**
 * Runs .ci/run with PATH = a folder holding only `dirname`, `id` (links to the real ones), a
 * stand-in `apt-get` exiting `aptExit`, a stand-in `npx`, and stand-ins for `present` tools.
 * Each stand-in appends its arguments and the CI variable to a log.
 */
async function ciRun(aptExit: number, present: string[] = []): Promise<Run> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-ci-run-" });
  try {
    const bin = `${dir}/bin`;
    await Deno.mkdir(bin);
    for (const tool of ["dirname", "id"]) await Deno.symlink(which(tool), `${bin}/${tool}`);
    const standIn = async (name: string, exit: number) => {
      await Deno.writeTextFile(
        `${bin}/${name}`,
        `#!${BASH}\necho "${name} CI=$CI $*" >> "${dir}/log"\nexit ${exit}\n`,
        { mode: 0o755 },
      );
    };
    await standIn("apt-get", aptExit);
    await standIn("npx", 0);
    for (const tool of present) await standIn(tool, 0);
    const out = await childCommand(BASH, {
      args: [SCRIPT],
      env: { PATH: bin, HOME: dir },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const log = (await Deno.readTextFile(`${dir}/log`).catch(() => "")).split("\n");
    return {
      code: out.code,
      stderr: new TextDecoder().decode(out.stderr),
      apt: log.filter((l) => l.startsWith("apt-get ")),
      npx: log.filter((l) => l.startsWith("npx ")),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test(".ci/run: apt-get failing to install the test tools ends the run with exit 1", async () => {
  const r = await ciRun(100);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /could not install openssl dnsmasq-base bsdutils zip unzip xz-utils \(apt-get failed\)/,
  );
  assert.deepEqual(r.npx, [], "the suite must not start");
  assert.equal(r.apt.length, 1); // update failed: install not tried
  // One tool missing, the same.
  const one = await ciRun(100, ["openssl", "script", "zip", "unzip", "xz"]);
  assert.equal(one.code, 1);
  assert.match(one.stderr, /could not install dnsmasq-base \(apt-get/);
  assert.deepEqual(one.npx, []);
});

Deno.test(".ci/run: a good install goes on to the suite with CI=true; present tools are not installed", async () => {
  const r = await ciRun(0);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.apt.at(-1)!,
    /install -y -q --no-install-recommends openssl dnsmasq-base bsdutils zip unzip xz-utils$/,
  );
  assert.deepEqual(r.npx.map((l) => l.replace(/deno@\S+/, "deno@V")), [
    "npx CI=true -y deno@V --version",
    // Node 22 and Bun for tests/node/library_node_test.ts
    "npx CI=true -y node@22 -p process.execPath",
    "npx CI=true -y bun@1.2.19 -e console.log(process.execPath)",
    "npx CI=true -y deno@V task ci",
  ]);
  const all = await ciRun(100, ["openssl", "dnsmasq", "script", "zip", "unzip", "xz"]);
  assert.equal(all.code, 0, all.stderr);
  assert.deepEqual(all.apt, []);
  assert.equal(all.npx.length, 4);
});
