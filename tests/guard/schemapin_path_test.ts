/**
 * Finding the `schemapin` a client config should start (cli/guard/schemapin_path.ts): the PATH
 * search, why a candidate inside a cache is passed over, and how a given program is kept. The
 * command that writes it is tested in wrap_test.ts.
 */
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  cacheReason,
  defaultSchemapinProgram,
  findSchemapinOnPath,
  schemapinProgram,
  startProblem,
} from "../../cli/guard/schemapin_path.ts";
import { withTempDir } from "../cli/run.ts";
import { childCommand } from "../process.ts";

const none = () => undefined;

async function program(folder: string, mode = 0o755): Promise<string> {
  await Deno.mkdir(folder, { recursive: true });
  const path = join(folder, "schemapin");
  await Deno.writeTextFile(path, "#!/bin/sh\nexit 0\n", { mode });
  return path;
}

Deno.test("findSchemapinOnPath: the first executable outside a cache, in PATH order", async () => {
  await withTempDir(async (dir) => {
    const cached = await program(join(dir, "node_modules", ".bin"));
    const good = await program(join(dir, "bin"));
    const later = await program(join(dir, "later"));
    const env = (
      n: string,
    ) => (n === "PATH" ? [cached, good, later].map((p) => join(p, "..")).join(":") : undefined);
    const found = findSchemapinOnPath(env, { windows: false });
    assert.equal(found.path, good);
    assert.deepEqual(found.candidates, [
      { path: cached, rejected: "inside a package-manager cache (node_modules/)" },
      { path: good },
    ]);
  });
});

Deno.test("findSchemapinOnPath: no usable candidate — not executable, only cached, no PATH", async () => {
  await withTempDir(async (dir) => {
    const plain = await program(join(dir, "plain"), 0o644);
    const cached = await program(join(dir, "_npx", "1"));
    const env = (
      n: string,
    ) => (n === "PATH" ? `${join(plain, "..")}:${join(cached, "..")}` : undefined);
    const found = findSchemapinOnPath(env, { windows: false });
    assert.equal(found.path, undefined);
    assert.deepEqual(found.candidates.map((c) => c.path), [cached]);
    assert.deepEqual(findSchemapinOnPath(none, { windows: false }), { candidates: [] });
  });
});

Deno.test("findSchemapinOnPath: arguments of the wrong type are INPUT_INVALID", () => {
  for (const [env, options] of [[undefined, {}], ["PATH", {}], [none, null]] as const) {
    assert.throws(
      () => findSchemapinOnPath(env as never, options as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});

Deno.test("cacheReason: a path inside a cache named by its segment or by the environment", () => {
  assert.equal(
    cacheReason("/home/me/.npm/_npx/1/schemapin", none),
    "inside a package-manager cache (.npm/)",
  );
  const env = (n: string) => (n === "DENO_DIR" ? "/var/deno" : undefined);
  assert.equal(cacheReason("/var/deno/bin/schemapin", env), "inside a cache folder (/var/deno)");
  assert.equal(cacheReason("/opt/deno", none, "/opt/deno"), "the Deno runtime of this process");
});

Deno.test("cacheReason: a path outside every cache, or only beside one, has no reason", () => {
  assert.equal(cacheReason("/usr/local/bin/schemapin", none), undefined);
  const env = (n: string) => (n === "DENO_DIR" ? "/var/deno" : undefined);
  assert.equal(cacheReason("/var/deno-other/schemapin", env), undefined);
  assert.equal(cacheReason("/opt/bin/schemapin", none, "/opt/deno"), undefined);
  assert.equal(cacheReason("/opt/bin/schemapin", () => "relative/cache"), undefined);
});

Deno.test("cacheReason: arguments of the wrong type are INPUT_INVALID", () => {
  for (const args of [[undefined, none], ["/x", "env"], ["/x", none, 1]] as const) {
    assert.throws(
      () => (cacheReason as (...a: unknown[]) => unknown)(...args),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});

Deno.test("schemapinProgram: a relative path is made absolute; a name or absolute path kept", () => {
  assert.equal(schemapinProgram("bin/schemapin"), resolve("bin/schemapin"));
  assert.equal(schemapinProgram("schemapin"), "schemapin");
  assert.equal(schemapinProgram("/opt/bin/schemapin"), "/opt/bin/schemapin");
});

Deno.test("schemapinProgram: a program that is not a string is INPUT_INVALID", () => {
  for (const given of [undefined, null, 1]) {
    assert.throws(
      () => schemapinProgram(given as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  }
});

Deno.test("defaultSchemapinProgram: the schemapin on PATH, as a program", async () => {
  await withTempDir(async (dir) => {
    const good = await program(join(dir, "bin"));
    const env = (n: string) => (n === "PATH" ? join(good, "..") : undefined);
    assert.deepEqual(defaultSchemapinProgram(env), [good]);
  });
});

Deno.test("defaultSchemapinProgram: none, or only cached ones, is a usage error saying so", async () => {
  await withTempDir(async (dir) => {
    assert.throws(
      () => defaultSchemapinProgram(none),
      (e) =>
        e instanceof SchemaPinError && e.details.usage === true &&
        e.message === "no schemapin on PATH; install schemapin on PATH (e.g. the compiled " +
            "binary in ~/.local/bin), or give the command the client should run with " +
            "--schemapin-command PATH",
    );
    const cached = await program(join(dir, "_npx", "1"));
    const env = (n: string) => (n === "PATH" ? join(cached, "..") : undefined);
    assert.throws(
      () => defaultSchemapinProgram(env),
      (e) =>
        e instanceof SchemaPinError && e.details.usage === true &&
        e.message.startsWith(
          `only ${cached} (inside a package-manager cache (_npx/)), which a client config ` +
            "cannot rely on",
        ),
    );
    assert.throws(
      () => defaultSchemapinProgram("PATH" as never),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && !e.details.usage,
    );
  });
});

// Issue 37 item 4: a candidate that cannot start is passed over like a cached one.

/** `text` as an executable `schemapin` in `folder` (created). */
async function script(folder: string, text: string): Promise<string> {
  await Deno.mkdir(folder, { recursive: true });
  const path = join(folder, "schemapin");
  await Deno.writeTextFile(path, text, { mode: 0o755 });
  return path;
}

/** What `deno install -g` writes: a script that runs `deno` from PATH. */
const DENO_SHIM = "#!/bin/sh\n# generated by deno install\nexec deno run --allow-read --quiet " +
  `--config /home/me/.deno/bin/.schemapin/deno.json 'file:///src/schemapin/cli.ts' "$@"\n`;

async function denoIn(folder: string): Promise<string> {
  await Deno.mkdir(folder, { recursive: true });
  await Deno.symlink(Deno.execPath(), join(folder, "deno"));
  return folder;
}

Deno.test("startProblem: a deno install script whose deno PATH lacks, or has only in a cache", async () => {
  await withTempDir(async (dir) => {
    const shim = await script(join(dir, "bin"), DENO_SHIM);
    const why = "it runs deno, which is not on PATH outside a package-manager cache " +
      "(install Deno: npm i -g deno@2.9.6)";
    const npx = await denoIn(join(dir, ".npm", "_npx", "1", "node_modules", ".bin"));
    const denoDir = await denoIn(join(dir, "deno-dir", "node_compat_bin"));
    for (const path of [join(dir, "bin"), `${npx}:${join(dir, "bin")}`, denoDir]) {
      const env = (n: string) =>
        ({ PATH: path, DENO_DIR: join(dir, "deno-dir") } as Record<string, string>)[n];
      assert.equal(startProblem(shim, env, { windows: false }), why, path);
      const found = findSchemapinOnPath(env, { windows: false });
      if (path !== denoDir) {
        assert.deepEqual(found, { candidates: [{ path: shim, rejected: why }] }, path);
        assert.throws(
          () => defaultSchemapinProgram(env),
          (e) =>
            e instanceof SchemaPinError && e.details.usage === true &&
            e.message.startsWith(`only ${shim} (${why}), which a client config cannot rely on: `) &&
            e.message.includes("it would not start"),
        );
      }
    }
    // Its own deno on PATH: the same script starts.
    const own = await denoIn(join(dir, "usr", "bin"));
    const env = (n: string) => (n === "PATH" ? `${join(dir, "bin")}:${own}` : undefined);
    assert.equal(startProblem(shim, env, { windows: false }), undefined);
    assert.deepEqual(defaultSchemapinProgram(env), [shim]);
  });
});

Deno.test("startProblem: a missing interpreter or exec'd program; a later candidate that starts wins", async () => {
  await withTempDir(async (dir) => {
    const cases: [string, string | undefined][] = [
      [
        "#!/nonexistent/sh\nexit 0\n",
        "it runs /nonexistent/sh, which does not exist or cannot be executed",
      ],
      [
        "#!/usr/bin/env schemapin-no-such-runtime\n",
        "it runs schemapin-no-such-runtime, which is not on PATH outside a package-manager cache",
      ],
      [
        "#!/bin/sh\nexec /nonexistent/deno run cli.ts\n",
        "it runs /nonexistent/deno, which does not exist or cannot be executed",
      ],
      [
        "#!/bin/sh\nexec '/nonexistent/deno' 'run' 'cli.ts' \"$@\"\n",
        "it runs /nonexistent/deno, which does not exist or cannot be executed",
      ],
      ["#!\n", "its #! line names no interpreter"],
      // These start.
      ["#!/bin/sh\nexit 0\n", undefined],
      ["#!/bin/sh\nexec ./relative/deno run cli.ts\n", undefined], // depends on the client's folder
      [`#!/bin/sh\nexec '${Deno.execPath()}' run cli.ts "$@"\n`, undefined],
      ['#!/usr/bin/env sh\nexec "$DENO" run cli.ts\n', undefined],
      ["\x7fELF\x02\x01\x01 a binary", undefined],
    ];
    const env = (n: string) => (n === "PATH" ? "/usr/bin:/bin" : undefined);
    for (const [i, [text, why]] of cases.entries()) {
      const path = await script(join(dir, `c${i}`), text);
      assert.equal(startProblem(path, env, { windows: false }), why, JSON.stringify(text));
    }
    // PATH order: the first candidate cannot start, the second can.
    const bad = await script(join(dir, "first"), "#!/nonexistent/sh\n");
    const good = await script(join(dir, "second"), "#!/bin/sh\nexit 0\n");
    const path = (n: string) =>
      n === "PATH" ? `${join(dir, "first")}:${join(dir, "second")}:/usr/bin:/bin` : undefined;
    assert.deepEqual(findSchemapinOnPath(path, { windows: false }), {
      path: good,
      candidates: [
        {
          path: bad,
          rejected: "it runs /nonexistent/sh, which does not exist or cannot be executed",
        },
        { path: good },
      ],
    });
    // Not a regular executable file: nothing to say (and a FIFO is never opened).
    await Deno.mkdir(join(dir, "fifo"));
    await childCommand("mkfifo", { args: [join(dir, "fifo", "schemapin")] }).output();
    assert.equal(startProblem(join(dir, "fifo", "schemapin"), env, { windows: false }), undefined);
    for (const args of [[undefined, env], ["/x", "env"], ["/x", env, null]] as const) {
      assert.throws(
        () => (startProblem as (...a: unknown[]) => unknown)(...args),
        (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
      );
    }
  });
});
