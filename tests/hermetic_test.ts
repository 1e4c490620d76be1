/**
 * The suite is hermetic (issue 37 item 3): a user's `SCHEMAPIN_*` variables, `HOME` and `TMPDIR`
 * change no result, and the tests leave nothing in TMPDIR. tests/process.ts removes the variables
 * schemapin reads from the test process (and `deno task test` unsets them); this file checks that
 * list against what lib/ reads, and runs a few representative test files — the ones a user's
 * passphrase, pin store, debug switch or temporary folder used to change — in a child
 * `deno test` with hostile values, another HOME holding pins and a client config of its own, and
 * a fresh TMPDIR: every test passes, and TMPDIR, that HOME and that SCHEMAPIN_HOME are as they
 * were.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { childCommand, SCHEMAPIN_ENV } from "./process.ts";
import { withTempDir } from "./cli/run.ts";

const repo = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

Deno.test("hermetic: SCHEMAPIN_ENV is every variable lib/ and cli/ read; deno task test unsets them too", async () => {
  const read = new Set<string>();
  for (const file of [`${repo}/cli.ts`]) {
    for (const m of (await Deno.readTextFile(file)).matchAll(/["'`](SCHEMAPIN_[A-Z0-9_]+)["'`]/g)) {
      read.add(m[1]);
    }
  }
  for (const dir of ["lib", "cli"]) {
    for await (const file of sources(`${repo}/${dir}`)) {
      const text = await Deno.readTextFile(file);
      for (const m of text.matchAll(/["'`](SCHEMAPIN_[A-Z0-9_]+)["'`]/g)) read.add(m[1]);
    }
  }
  assert.ok(read.has("SCHEMAPIN_PASSPHRASE") && read.has("SCHEMAPIN_HOME"), [...read].join());
  assert.deepEqual([...read].sort(), [...SCHEMAPIN_ENV].sort());
  const config = JSON.parse(await Deno.readTextFile(`${repo}/deno.json`));
  const unset = /^unset ((?:SCHEMAPIN_[A-Z0-9_]+ ?)+) && /.exec(config.tasks.test);
  assert.ok(unset, config.tasks.test);
  assert.deepEqual(unset[1].trim().split(" ").sort(), [...SCHEMAPIN_ENV].sort());
  // This process (it imported tests/process.ts) has none of them.
  for (const name of SCHEMAPIN_ENV) assert.equal(Deno.env.get(name), undefined, name);
});

/** The test files a user's environment used to change (issue 37), cheap ones. */
const REPRESENTATIVE = [
  "tests/cli/keygen_encrypt_test.ts", // SCHEMAPIN_PASSPHRASE: keygen encrypted without asking
  "tests/cli/private_key_test.ts", // SCHEMAPIN_PASSPHRASE: signing with the wrong passphrase
  "tests/cli/foundation_test.ts", // SCHEMAPIN_DEBUG: stack traces in the expected stderr
  "tests/cli/unknown_command_test.ts", // SCHEMAPIN_DEBUG
  "tests/cli/first_use_test.ts", // SCHEMAPIN_HOME / HOME: the default pin store
  "tests/cli/json_output_test.ts", // TMPDIR: its scenario folder used to stay behind
  "tests/pins/store_test.ts", // SCHEMAPIN_HOME and HOME, set and restored by the test
];

/** Every file under `dir` with its bytes, for a before/after comparison. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      const path = `${at}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else out[path.slice(dir.length + 1)] = await Deno.readTextFile(path).catch(() => "?");
    }
  };
  await walk(dir);
  return out;
}

/** The Deno cache of this run (a child with another HOME must still find the packages). */
async function denoDir(): Promise<string> {
  const out = await childCommand(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

const HOSTILE_PIN = "sha256:" + "ab".repeat(32);

Deno.test({
  name:
    "hermetic: hostile SCHEMAPIN_*, another HOME and a fresh TMPDIR change no result, leave nothing",
  // A child `deno test` of its own: the resources are the child's.
  sanitizeResources: false,
  async fn() {
    await withTempDir(async (dir) => {
      const tmp = `${dir}/tmp`;
      const home = `${dir}/home`;
      const spHome = `${dir}/schemapin-home`;
      await Deno.mkdir(tmp);
      // A user's state: pins of the tools the tests use, to a key of their own, under both
      // SCHEMAPIN_HOME and ~/.schemapin; a client config that starts a server of theirs.
      const pins = JSON.stringify({
        schemapin_pins_version: 1,
        pins: ["calculate_sum", "pdf-tools", "my-skill", "a", "calc", "echo"].map((tool) => ({
          tool_id: tool,
          domain: "example.com",
          fingerprint: HOSTILE_PIN,
          pinned_at: "2026-01-01T00:00:00Z",
          source: "seeded",
        })),
      });
      for (const folder of [spHome, `${home}/.schemapin`]) {
        await Deno.mkdir(folder, { recursive: true });
        await Deno.writeTextFile(`${folder}/pins.json`, pins);
      }
      await Deno.writeTextFile(
        `${home}/.claude.json`,
        JSON.stringify({ mcpServers: { users: { command: "false" } } }),
      );
      const before = { home: await snapshot(home), spHome: await snapshot(spHome) };

      const env: Record<string, string> = {
        ...Deno.env.toObject(),
        SCHEMAPIN_PASSPHRASE: "a passphrase of the user's",
        SCHEMAPIN_HOME: spHome,
        SCHEMAPIN_BATCH_THREADS: "1",
        SCHEMAPIN_DEBUG: "1",
        HOME: home,
        XDG_CONFIG_HOME: `${home}/.config`,
        DENO_DIR: await denoDir(),
        TMPDIR: tmp,
        NO_COLOR: "1",
      };
      delete env.INIT_CWD;
      const out = await childCommand(Deno.execPath(), {
        args: ["test", "--config", "tests/deno.json", "-A", ...REPRESENTATIVE],
        cwd: repo,
        env,
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
      const summary = /(ok|FAILED) \| (\d+) passed(?: \([^)]*\))? \| (\d+) failed/.exec(text);
      assert.equal(out.code, 0, text.slice(-4000));
      assert.ok(summary, text.slice(-2000));
      assert.equal(summary[3], "0", text.slice(-4000));
      assert.ok(Number(summary[2]) >= 50, `only ${summary[2]} tests ran`);

      assert.deepEqual(await snapshot(tmp), {}, "left in TMPDIR");
      assert.deepEqual((await Array.fromAsync(Deno.readDir(tmp))).map((e) => e.name), []);
      assert.deepEqual(await snapshot(home), before.home, "HOME changed");
      assert.deepEqual(await snapshot(spHome), before.spHome, "SCHEMAPIN_HOME changed");
    });
  },
});
