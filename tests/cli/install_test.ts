// The from-source CLI from any folder (issue 15, item 1): `deno task install` puts a
// `schemapin` on PATH (deno install -g with the task's flags and --config), and
// `deno task --config <checkout>/deno.json schemapin …` takes relative paths from the folder it
// was started in (INIT_CWD). Every run here starts in a temporary folder outside the checkout.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { callerFolder } from "../../cli.ts";
import { denoOnPath, installArgs } from "../../scripts/install.ts";
import { childCommand } from "../process.ts";
import { exists, schemapinTaskFlags, withTempDir } from "./run.ts";

const checkout = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
const dec = new TextDecoder();

/** The environment of this process without INIT_CWD (deno task keeps an inherited one). */
function envWithoutInitCwd(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { ...Deno.env.toObject(), NO_COLOR: "1", ...extra };
  delete env.INIT_CWD;
  return env;
}

/** Runs `program args…` in `cwd` with exactly `env` (plus the tests' child variables). */
async function run(
  program: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await childCommand(program, {
    args,
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** `deno task install …` as deno.json defines it, run from `cwd` via --config. */
function installTask(args: string[], cwd: string, env: Record<string, string>) {
  return run(
    Deno.execPath(),
    [
      "task",
      "--quiet",
      "--config",
      join(checkout, "deno.json"),
      "install",
      ...args,
    ],
    cwd,
    env,
  );
}

/** A folder holding only `deno`, a link to the deno running these tests. */
async function denoBin(dir: string): Promise<string> {
  const bin = `${dir}/deno-bin`;
  if (!await exists(`${bin}/deno`)) {
    await Deno.mkdir(bin, { recursive: true });
    await Deno.symlink(Deno.execPath(), `${bin}/deno`);
  }
  return bin;
}

/** The SHA-256 of a public key's DER SPKI as OpenSSL computes it (the §8.2 fingerprint). */
async function opensslFingerprint(pem: string): Promise<string> {
  const der = await new Deno.Command("openssl", {
    args: ["pkey", "-pubin", "-in", pem, "-outform", "DER"],
    stdout: "piped",
  }).output();
  assert.equal(der.code, 0);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", der.stdout));
  return "sha256:" + [...hash].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("callerFolder: INIT_CWD only when started in the checkout, never compiled", () => {
  const base = { initCwd: "/home/me/proj", cwd: "/src/sp", checkout: "/src/sp" };
  assert.equal(callerFolder({ ...base, standalone: false }), "/home/me/proj");
  assert.equal(callerFolder({ ...base, standalone: true }), undefined, "compiled binary");
  assert.equal(callerFolder({ ...base, cwd: "/home/me", standalone: false }), undefined);
  assert.equal(callerFolder({ ...base, initCwd: "", standalone: false }), undefined);
  assert.equal(callerFolder({ ...base, initCwd: undefined, standalone: false }), undefined);
  assert.equal(callerFolder({ ...base, initCwd: "proj", standalone: false }), undefined);
  assert.equal(callerFolder({ ...base, initCwd: "/src/sp", standalone: false }), undefined);
});

Deno.test("deno task install --print: the task's exact flags, --config and cli.ts of the checkout", async () => {
  await withTempDir(async (dir) => {
    const r = await installTask(["--print"], dir, envWithoutInitCwd());
    assert.equal(r.code, 0, r.stderr);
    const flags = await schemapinTaskFlags(); // read from deno.json here, not by the script
    assert.equal(
      r.stdout,
      `deno install -g --name schemapin ${flags.join(" ")} --frozen=false ` +
        `--config ${checkout}/deno.json ` +
        `${checkout}/cli.ts\n`,
    );
    assert.deepEqual(installArgs(flags, { checkout, root: "/r", force: true, name: "sp" }), [
      "install",
      "-g",
      "--name",
      "sp",
      "--root",
      "/r",
      "--force",
      ...flags,
      "--frozen=false",
      "--config",
      `${checkout}/deno.json`,
      `${checkout}/cli.ts`,
    ]);
  });
});

Deno.test("deno task install: bad arguments exit 2 and install nothing", async () => {
  await withTempDir(async (dir) => {
    const env = envWithoutInitCwd({ DENO_INSTALL_ROOT: `${dir}/root` });
    const unknown = await installTask(["--frobnicate"], dir, env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /install: .*--frobnicate.*see --help/);
    const name = await installTask(["--name", "../evil"], dir, env);
    assert.equal(name.code, 2);
    assert.match(name.stderr, /--name must be a plain command name/);
    await assert.rejects(Deno.lstat(`${dir}/root`), Deno.errors.NotFound);
    const help = await installTask(["--help"], dir, env);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Example:\n {2}deno task install/);
  });
});

Deno.test("deno task install: schemapin on PATH runs from any folder on relative paths", async () => {
  await withTempDir(async (dir) => {
    const root = `${dir}/root`;
    const work = `${dir}/work`;
    await Deno.mkdir(`${work}/sub`, { recursive: true });
    // The installed command runs `deno` from PATH: the deno running these tests, linked from a
    // folder of its own (under npx, the folder of Deno.execPath() is npx's cache).
    const path = `${root}/bin:${await denoBin(dir)}:/usr/bin:/bin`;
    const env = envWithoutInitCwd({ DENO_INSTALL_ROOT: root, PATH: path });
    const install = await installTask([], work, env);
    assert.equal(install.code, 0, install.stderr);
    assert.doesNotMatch(install.stderr, /no `deno` on PATH/);
    const shim = await Deno.readTextFile(`${root}/bin/schemapin`);
    const flags = await schemapinTaskFlags();
    const shimFlags = shim.match(/--(?:allow|unstable)-[a-z-]+(=\S+)?/g) ?? [];
    assert.deepEqual([...shimFlags].sort(), [...flags].sort(), "exactly the task's flags");
    assert.match(shim, /--config /);

    const schemapin = (args: string[], cwd = work) => run(`${root}/bin/schemapin`, args, cwd, env);
    const keygen = await schemapin(["keygen", "--unencrypted", "--out-dir", "keys"]);
    assert.equal(keygen.code, 0, keygen.stderr);
    await Deno.lstat(`${work}/keys/public.pem`); // written in the caller's folder
    await assert.rejects(Deno.lstat(`${checkout}/keys/public.pem`), Deno.errors.NotFound);
    const expected = await opensslFingerprint(`${work}/keys/public.pem`);
    const fp = await schemapin(["fingerprint", "keys/public.pem"]);
    assert.equal(fp.code, 0, fp.stderr);
    assert.equal(fp.stdout, expected + "\n");
    const up = await schemapin(["fingerprint", "../keys/public.pem"], `${work}/sub`);
    assert.equal(up.stdout, expected + "\n");
    const absent = await schemapin(["canonicalize", "../tool.json"], `${work}/sub`);
    assert.equal(absent.code, 2, "a missing relative input is exit 2");
    assert.match(absent.stderr, /cannot read \.\.\/tool\.json/);
    const missing = await schemapin(["fingerprint", "public.pem"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /IO_FAILED: cannot read public\.pem: no such file/);

    // Installing over it needs --force; the first command stays.
    const again = await installTask([], work, env);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /-f|--force/);
    assert.equal(await Deno.readTextFile(`${root}/bin/schemapin`), shim);
    const forced = await installTask(["--force"], work, env);
    assert.equal(forced.code, 0, forced.stderr);
  });
});

Deno.test("deno task install refuses, installing nothing, when PATH has no deno for the installed command", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/empty`);
    // As under `npx -y deno@2.9.6 task install`: the only deno on PATH is npx's own.
    const npxBin = `${dir}/home/.npm/_npx/4f2a9c3d/node_modules/.bin`;
    await Deno.mkdir(npxBin, { recursive: true });
    await Deno.symlink(Deno.execPath(), `${npxBin}/deno`);
    for (const PATH of [`${dir}/empty`, `${npxBin}:${dir}/empty`]) {
      const env = envWithoutInitCwd({
        DENO_INSTALL_ROOT: `${dir}/root`,
        HOME: `${dir}/home`,
        PATH,
      });
      const r = await installTask([], dir, env);
      assert.equal(r.code, 1, `${PATH}: ${r.stderr}`);
      assert.match(r.stderr, /^error: install: .*PATH has no deno outside a package-manager cache/);
      assert.match(
        r.stderr,
        /nothing was installed\. Install Deno first — `npm i -g deno@2\.9\.6`/,
      );
      assert.equal(await exists(`${dir}/root`), false, PATH);
      // --print still prints (it installs nothing).
      const printed = await installTask(["--print"], dir, env);
      assert.equal(printed.code, 0, printed.stderr);
      assert.match(printed.stdout, /^deno install -g --name schemapin /);
    }
  });
});

Deno.test("denoOnPath: an executable deno outside every package-manager cache", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/empty`);
    assert.equal(await denoOnPath(`${dir}/empty`), false);
    assert.equal(await denoOnPath(undefined), false);
    assert.equal(await denoOnPath(await denoBin(dir)), true);
    await Deno.writeTextFile(`${dir}/empty/deno`, "#!/bin/sh\n"); // not executable
    assert.equal(await denoOnPath(`${dir}/empty`), false);
    // npx's folder, a node_modules/.bin, a folder of the Deno cache or of ~/.cache: not for good.
    const cached = [
      `${dir}/home/.npm/_npx/1/node_modules/.bin`,
      `${dir}/project/node_modules/.bin`,
      `${dir}/deno-dir/node_compat_bin`,
      `${dir}/home/.cache/bin`,
    ];
    for (const folder of cached) {
      await Deno.mkdir(folder, { recursive: true });
      await Deno.symlink(Deno.execPath(), `${folder}/deno`);
    }
    const env = (n: string) =>
      ({ HOME: `${dir}/home`, DENO_DIR: `${dir}/deno-dir` } as Record<string, string>)[n];
    assert.equal(await denoOnPath(cached.join(":"), env), false);
    assert.equal(await denoOnPath([...cached, await denoBin(dir)].join(":"), env), true);
  });
});

Deno.test("deno task --config …/deno.json schemapin: relative paths from the calling folder", async () => {
  await withTempDir(async (dir) => {
    const env = envWithoutInitCwd();
    const task = (args: string[], cwd: string, extra: Record<string, string> = {}) =>
      run(
        Deno.execPath(),
        [
          "task",
          "--quiet",
          "--config",
          join(checkout, "deno.json"),
          "schemapin",
          ...args,
        ],
        cwd,
        { ...env, ...extra },
      );
    const keygen = await task(["keygen", "--unencrypted", "--out-dir", "keys"], dir);
    assert.equal(keygen.code, 0, keygen.stderr);
    const expected = await opensslFingerprint(`${dir}/keys/public.pem`);
    const fp = await task(["fingerprint", "keys/public.pem"], dir);
    assert.equal(fp.code, 0, fp.stderr);
    assert.equal(fp.stdout, expected + "\n");
    const missing = await task(["fingerprint", "nothere.pem"], dir);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read nothere\.pem/);
    // An INIT_CWD that cannot be entered is exit 2, never a silent read from the checkout.
    const gone = await task(["fingerprint", "keys/public.pem"], dir, {
      INIT_CWD: `${dir}/vanished`,
    });
    assert.equal(gone.code, 2);
    assert.match(gone.stderr, /IO_FAILED: cannot enter INIT_CWD=.*vanished/);
  });
});

Deno.test("INIT_CWD is ignored unless the CLI starts in the checkout (deno run, shims)", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/a`);
    await Deno.mkdir(`${dir}/b/keys`, { recursive: true });
    const flags = await schemapinTaskFlags();
    const cli = (args: string[], cwd: string, initCwd: string) =>
      run(Deno.execPath(), ["run", "--quiet", ...flags, `${checkout}/cli.ts`, ...args], cwd, {
        ...envWithoutInitCwd(),
        INIT_CWD: initCwd,
      });
    assert.equal(
      (await cli(["keygen", "--unencrypted", "--out-dir", "keys"], `${dir}/b`, `${dir}/a`)).code,
      0,
    );
    await Deno.lstat(`${dir}/b/keys/public.pem`); // its own folder, not INIT_CWD's
    const elsewhere = await cli(["fingerprint", "keys/public.pem"], `${dir}/a`, `${dir}/b`);
    assert.equal(elsewhere.code, 2, "started outside the checkout: INIT_CWD is not used");
    assert.match(elsewhere.stderr, /cannot read keys\/public\.pem/);
    const inCheckout = await cli(["fingerprint", "keys/public.pem"], checkout, `${dir}/b`);
    assert.equal(inCheckout.code, 0, inCheckout.stderr);
    assert.match(inCheckout.stdout, /^sha256:[0-9a-f]{64}\n$/);
    const relative = await cli(["fingerprint", "keys/public.pem"], checkout, "b");
    assert.equal(relative.code, 2, "a relative INIT_CWD is not used");
  });
});
