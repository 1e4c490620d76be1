// Release archives users can trust (issue 16 item 4): the workflow's packaging and signing
// scripts run here on stand-in binaries with a `schemapin keygen` key, and the
// "Verifying a release" block of docs/release.md (linked from README) runs on the result exactly as written (with `schemapin` on PATH
// as this checkout's CLI) — and fails (exit 1) on a changed archive, a changed SHA256SUMS and
// another key.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { childCommand } from "./process.ts";
import { ignoreWithout } from "./required_tool.ts";
import { readmeShellBlocks } from "./readme_blocks.ts";
import { schemapinTaskFlags } from "./cli/run.ts";
import { TARGETS } from "../scripts/compile.ts";
import { archiveName, binaryName, sha256sums } from "../scripts/release_package.ts";
import { RELEASE_DOMAIN, RELEASE_NAME, RELEASE_PUBLIC_KEY } from "../scripts/release_sign.ts";

const repo = new URL("../", import.meta.url).pathname;
const VERSION = "v9.9.9-test";
const HOST = "x86_64-unknown-linux-gnu"; // the target docs/release.md's block unpacks

async function has(tool: string, args: string[]): Promise<boolean> {
  try {
    await childCommand(tool, { args, stdout: "null", stderr: "null" }).output();
    return true;
  } catch {
    return false;
  }
}
const installedBy = ".ci/run (apt-get install zip unzip xz-utils)";
const missingTool = [
  ignoreWithout("zip", await has("zip", ["-v"]), installedBy),
  ignoreWithout("unzip", await has("unzip", ["-v"]), installedBy),
  ignoreWithout("xz", await has("xz", ["--version"]), installedBy),
].some((ignored) => ignored);

interface Run {
  code: number;
  out: string;
}

async function run(cmd: string, args: string[], cwd: string, env = {}): Promise<Run> {
  const r = await childCommand(cmd, {
    args,
    cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  return {
    code: r.code,
    out: new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr),
  };
}

/** `deno run` of a release script, with the permissions the workflow gives it. */
function script(name: string, args: string[], cwd: string, env = {}): Promise<Run> {
  const perms = ["--allow-read", "--allow-write", "--allow-run", "--allow-env"];
  return run(
    Deno.execPath(),
    ["run", "--quiet", ...perms, `${repo}scripts/${name}`, ...args],
    cwd,
    {
      NO_COLOR: "1",
      ...env,
    },
  );
}

/** A folder with `schemapin`: this checkout's CLI with the task's flags (what users run). */
async function shim(dir: string): Promise<string> {
  const bin = `${dir}/bin`;
  await Deno.mkdir(bin, { recursive: true });
  const flags = (await schemapinTaskFlags()).join(" ");
  await Deno.writeTextFile(
    `${bin}/schemapin`,
    `#!/bin/sh\nexec "${Deno.execPath()}" run --quiet ${flags} --config "${repo}deno.json" ` +
      `"${repo}cli.ts" "$@"\n`,
    { mode: 0o755 },
  );
  return bin;
}

/** Stand-ins for `deno task compile --all`'s binaries: small scripts naming their target. */
async function fakeBinaries(dist: string): Promise<void> {
  await Deno.mkdir(dist, { recursive: true });
  for (const t of TARGETS) {
    const name = `${dist}/schemapin-${t}${t.includes("windows") ? ".exe" : ""}`;
    await Deno.writeTextFile(name, `#!/bin/sh\necho "schemapin 9.9.9-test (${t}, stand-in)"\n`, {
      mode: 0o755,
    });
  }
}

/**
 * Packages and signs a release in `dir` as the workflow does; returns the folder a user would
 * download into: the archives, SHA256SUMS, SHA256SUMS.sig and the public key under the name
 * README uses.
 */
async function makeRelease(dir: string, bin: string): Promise<string> {
  await fakeBinaries(`${dir}/dist`);
  const pack = await script("release_package.ts", ["--version", VERSION], dir, {
    SOURCE_DATE_EPOCH: "1700000000",
  });
  assert.equal(pack.code, 0, pack.out);
  const keygen = await run(
    `${bin}/schemapin`,
    ["keygen", "--unencrypted", "--out-dir", "keys"],
    dir,
  );
  assert.equal(keygen.code, 0, keygen.out);
  const sign = await script("release_sign.ts", [
    "--dir",
    "dist/release",
    "--key",
    "keys/private.pem",
    "--public-key",
    "keys/public.pem",
    "--version",
    VERSION,
  ], dir);
  assert.equal(sign.code, 0, sign.out);
  assert.match(sign.out, /wrote dist\/release\/SHA256SUMS\.sig/);
  const download = `${dir}/download`;
  await Deno.mkdir(download);
  for await (const e of Deno.readDir(`${dir}/dist/release`)) {
    await Deno.copyFile(`${dir}/dist/release/${e.name}`, `${download}/${e.name}`);
  }
  await Deno.copyFile(`${dir}/keys/public.pem`, `${download}/schemapin-release-public.pem`);
  return download;
}

/** The block of docs/release.md (which README links for it) that verifies a release. */
async function verifyBlock(): Promise<string> {
  const readme = await Deno.readTextFile(`${repo}README.md`);
  assert.ok(readme.includes("(docs/release.md#verifying-a-release)"), "README links the block");
  const page = await Deno.readTextFile(`${repo}docs/release.md`);
  const blocks = readmeShellBlocks(page).filter((b) => b.code.includes("SHA256SUMS.sig"));
  assert.equal(blocks.length, 1, "one block of docs/release.md verifies a release");
  assert.match(blocks[0].skip ?? "", /tests\/release_test\.ts/);
  return blocks[0].code;
}

/** Runs docs/release.md's block in `download` with `schemapin` on PATH. */
async function userVerifies(download: string, bin: string): Promise<Run> {
  return await run("bash", ["-euo", "pipefail", "-c", await verifyBlock()], download, {
    PATH: `${bin}:${Deno.env.get("PATH")}`,
    NO_COLOR: "1",
    SCHEMAPIN_HOME: `${download}/.schemapin-home`,
  });
}

async function withRelease(fn: (download: string, bin: string, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-release-" });
  try {
    const bin = await shim(dir);
    await fn(await makeRelease(dir, bin), bin, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name: "release archives hold schemapin (schemapin.exe), README and LICENSE; SHA256SUMS checks",
  ignore: missingTool,
  async fn() {
    await withRelease(async (download, _bin, dir) => {
      const names = TARGETS.map((t) => archiveName(VERSION, t)).sort();
      const files = [];
      for await (const e of Deno.readDir(download)) files.push(e.name);
      assert.deepEqual(
        files.sort(),
        [...names, "SHA256SUMS", "SHA256SUMS.sig", "schemapin-release-public.pem"].sort(),
      );
      for (const t of TARGETS) {
        const archive = `${download}/${archiveName(VERSION, t)}`;
        const folder = `schemapin-${VERSION}-${t}`;
        const listing = t.includes("windows")
          ? await run("unzip", ["-Z", "-l", archive], dir)
          : await run("tar", ["-tvJf", archive], dir);
        assert.equal(listing.code, 0, listing.out);
        const entries = listing.out.split("\n").map((l) => l.split(/\s+/).at(-1)!).filter((n) =>
          n.startsWith(folder)
        ).sort();
        assert.deepEqual(entries, [
          `${folder}/`,
          `${folder}/LICENSE`,
          `${folder}/README.md`,
          `${folder}/${binaryName(t)}`,
        ]);
        const line = listing.out.split("\n").find((l) => l.endsWith(`/${binaryName(t)}`))!;
        assert.match(line, /^-rwxr-xr-x/, `${t}: the binary is executable`);
        if (!t.includes("windows")) assert.match(line, / 0\/0 /, "owner 0/0");
      }
      // Same binaries and SOURCE_DATE_EPOCH → the same archives.
      const again = await script(
        "release_package.ts",
        ["--version", VERSION, "--out", "again"],
        dir,
        {
          SOURCE_DATE_EPOCH: "1700000000",
        },
      );
      assert.equal(again.code, 0, again.out);
      const sums = await Deno.readTextFile(`${download}/SHA256SUMS`);
      assert.equal(await Deno.readTextFile(`${dir}/again/SHA256SUMS`), sums);
      // sha256sum's own format, checked by sha256sum itself.
      assert.match(sums, /^([0-9a-f]{64} {2}schemapin-v9\.9\.9-test-[\w-]+\.(tar\.xz|zip)\n){5}$/);
      const check = await run("sha256sum", ["-c", "SHA256SUMS"], download);
      assert.equal(check.code, 0, check.out);
      assert.equal(check.out.match(/: OK$/gm)?.length, 5, check.out);
      // The signature document: SHA256SUMS is the only file it covers.
      const sig = JSON.parse(await Deno.readTextFile(`${download}/SHA256SUMS.sig`));
      assert.equal(sig.skill_name, RELEASE_NAME);
      assert.equal(sig.domain, RELEASE_DOMAIN);
      assert.equal(sig.schema_version, "9.9.9-test");
      assert.deepEqual(Object.keys(sig.file_manifest), ["SHA256SUMS"]);
      // §4b entry digest, by hand: SHA-256(0x66 ‖ be64(len path) ‖ path ‖ be64(len content) ‖ content).
      const content = await Deno.readFile(`${download}/SHA256SUMS`);
      const be64 = (n: number) => {
        const b = Buffer.alloc(8);
        b.writeBigUInt64BE(BigInt(n));
        return b;
      };
      const entry = createHash("sha256").update(Buffer.from([0x66])).update(be64(10))
        .update("SHA256SUMS").update(be64(content.length)).update(content).digest("hex");
      assert.equal(sig.file_manifest.SHA256SUMS, `sha256:${entry}`);
      assert.equal(sha256sums({ b: "2", a: "1" }), "1  a\n2  b\n");
    });
  },
});

Deno.test({
  name: "docs/release.md's release verification passes on a packaged and signed release",
  ignore: missingTool,
  async fn() {
    await withRelease(async (download, bin) => {
      const r = await userVerifies(download, bin);
      assert.equal(r.code, 0, r.out);
      assert.match(
        r.out,
        new RegExp(`^OK ${RELEASE_NAME}@${RELEASE_DOMAIN.replaceAll(".", "\\.")}: 1 files`, "m"),
      );
      assert.match(
        r.out,
        new RegExp(`^${archiveName(VERSION, HOST).replaceAll(".", "\\.")}: OK$`, "m"),
      );
      assert.match(r.out, /^schemapin 9\.9\.9-test \(x86_64-unknown-linux-gnu, stand-in\)$/m);
      assert.match(
        await verifyBlock(),
        new RegExp(`--domain ${RELEASE_DOMAIN.replaceAll(".", "\\.")} `),
      );
    });
  },
});

Deno.test({
  name:
    "docs/release.md's release verification fails (exit 1) on a changed archive, a changed SHA256SUMS, another key",
  ignore: missingTool,
  async fn() {
    await withRelease(async (download, bin, dir) => {
      const archive = `${download}/${archiveName(VERSION, HOST)}`;
      const original = await Deno.readFile(archive);
      const sums = await Deno.readTextFile(`${download}/SHA256SUMS`);
      const fresh = async () => {
        await Deno.remove(`${download}/sums`, { recursive: true }).catch(() => {});
        await Deno.remove(`${download}/schemapin-${VERSION}-${HOST}`, { recursive: true })
          .catch(() => {});
      };

      // 1. A changed archive: the signature still holds, sha256sum refuses the archive.
      await Deno.writeFile(archive, new Uint8Array([...original, 0]));
      const archiveChanged = await userVerifies(download, bin);
      assert.equal(archiveChanged.code, 1, archiveChanged.out);
      assert.match(archiveChanged.out, /^OK schemapin@/m);
      assert.match(
        archiveChanged.out,
        new RegExp(`${archiveName(VERSION, HOST).replaceAll(".", "\\.")}: FAILED`),
      );
      assert.doesNotMatch(archiveChanged.out, /stand-in/, "never unpacked and run");

      // 2. An archive swapped together with its line in SHA256SUMS: the signature refuses.
      await fresh();
      const hash = (await run("sha256sum", [archive], dir)).out.slice(0, 64);
      const line = new RegExp(
        `^[0-9a-f]{64}(  ${archiveName(VERSION, HOST).replaceAll(".", "\\.")})$`,
        "m",
      );
      await Deno.writeTextFile(`${download}/SHA256SUMS`, sums.replace(line, `${hash}$1`));
      const sumsChanged = await userVerifies(download, bin);
      assert.equal(sumsChanged.code, 1, sumsChanged.out);
      assert.match(sumsChanged.out, /FAIL schemapin@schemapin\.github\.io: SIGNATURE_INVALID/);
      assert.match(sumsChanged.out, /modified: SHA256SUMS/);
      assert.doesNotMatch(sumsChanged.out, /: OK$/m, "sha256sum never ran");

      // 3. The original files, verified with another key: refused.
      await fresh();
      await Deno.writeFile(archive, original);
      await Deno.writeTextFile(`${download}/SHA256SUMS`, sums);
      const other = await run(`${bin}/schemapin`, [
        "keygen",
        "--unencrypted",
        "--out-dir",
        "other-keys",
      ], dir);
      assert.equal(other.code, 0, other.out);
      await Deno.copyFile(
        `${dir}/other-keys/public.pem`,
        `${download}/schemapin-release-public.pem`,
      );
      const otherKey = await userVerifies(download, bin);
      assert.equal(otherKey.code, 1, otherKey.out);
      assert.match(otherKey.out, /FAIL schemapin@schemapin\.github\.io: SIGNATURE_INVALID/);

      // Control: the right key again, and everything passes.
      await fresh();
      await Deno.copyFile(`${dir}/keys/public.pem`, `${download}/schemapin-release-public.pem`);
      const control = await userVerifies(download, bin);
      assert.equal(control.code, 0, control.out);
    });
  },
});

Deno.test({
  name:
    "release scripts: a missing binary, a bad version, no SHA256SUMS (exit 2); a key not matching --public-key (exit 1, no .sig)",
  ignore: missingTool,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "schemapin-release-" });
    try {
      const bin = await shim(dir);
      await fakeBinaries(`${dir}/dist`);
      await Deno.remove(`${dir}/dist/schemapin-aarch64-apple-darwin`);
      const missing = await script("release_package.ts", ["--version", VERSION], dir);
      assert.equal(missing.code, 2, missing.out);
      assert.match(
        missing.out,
        /^error: release_package: missing binaries \(run `deno task compile --all` first\): dist\/schemapin-aarch64-apple-darwin$/m,
      );
      await assert.rejects(
        Deno.stat(`${dir}/dist/release`),
        Deno.errors.NotFound,
        "nothing written",
      );
      const badVersion = await script("release_package.ts", ["--version", "../x"], dir);
      assert.equal(badVersion.code, 2);
      assert.match(
        badVersion.out,
        /--version must be a release version such as v1\.2\.3, got "\.\.\/x"/,
      );
      const noVersion = await script("release_package.ts", [], dir);
      assert.equal(noVersion.code, 2);
      assert.match(noVersion.out, /--version is required/);

      for (const d of ["a", "b"]) {
        const k = await run(`${bin}/schemapin`, [
          "keygen",
          "--unencrypted",
          "--out-dir",
          `keys-${d}`,
        ], dir);
        assert.equal(k.code, 0, k.out);
      }
      await Deno.mkdir(`${dir}/rel`);
      const sign = (extra: string[] = []) =>
        script("release_sign.ts", [
          "--dir",
          "rel",
          "--key",
          "keys-a/private.pem",
          "--public-key",
          "keys-b/public.pem",
          "--version",
          VERSION,
          ...extra,
        ], dir);
      const noSums = await sign();
      assert.equal(noSums.code, 2, noSums.out);
      assert.match(
        noSums.out,
        /error: release_sign: rel\/SHA256SUMS not found \(run scripts\/release_package\.ts first\)/,
      );
      await Deno.writeTextFile(`${dir}/rel/SHA256SUMS`, `${"0".repeat(64)}  x.tar.xz\n`);
      const mismatch = await sign();
      assert.equal(mismatch.code, 1, mismatch.out);
      assert.match(
        mismatch.out,
        /does not verify with keys-b\/public\.pem: is it the public half of the release key\?/,
      );
      await assert.rejects(Deno.stat(`${dir}/rel/SHA256SUMS.sig`), Deno.errors.NotFound);
      const noKey = await script("release_sign.ts", ["--dir", "rel", "--version", VERSION], dir);
      assert.equal(noKey.code, 2);
      assert.match(noKey.out, /--key is required/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("the release workflow runs these scripts, attests the archives and guards the key", async () => {
  const wf = await Deno.readTextFile(`${repo}.github/workflows/release.yml`);
  for (const line of ["id-token: write", "attestations: write", "contents: write"]) {
    assert.ok(wf.includes(line), `permissions: ${line}`);
  }
  assert.match(wf, /uses: actions\/attest-build-provenance@v\d+\n/, "pinned major version");
  assert.match(
    wf,
    /subject-path: \|\n\s+dist\/release\/\*\.tar\.xz\n\s+dist\/release\/\*\.zip\n\s+dist\/release\/SHA256SUMS\n/,
  );
  assert.match(
    wf,
    /scripts\/release_package\.ts --version "\$GITHUB_REF_NAME" --dist dist --out dist\/release/,
  );
  assert.match(wf, /scripts\/release_sign\.ts --dir dist\/release --key "\$key"/);
  assert.ok(wf.includes(`--public-key ${RELEASE_PUBLIC_KEY}`), "signs against the published key");
  assert.match(wf, /\(umask 077 && printf '%s\\n' "\$SCHEMAPIN_RELEASE_KEY" > "\$key"\)/);
  assert.match(wf, /trap 'rm -f "\$key"' EXIT/);
  assert.match(wf, /secrets\.SCHEMAPIN_RELEASE_KEY/);
  assert.match(wf, /gh release upload "\$GITHUB_REF_NAME" dist\/release\/\* --clobber/);
  const attest = wf.indexOf("uses: actions/attest-build-provenance");
  assert.ok(wf.indexOf("scripts/release_sign.ts") < attest, "signed before attesting");
  assert.ok(attest < wf.indexOf("gh release upload"), "attested before publishing");
  const page = await Deno.readTextFile(`${repo}docs/release.md`);
  assert.ok(page.includes(RELEASE_PUBLIC_KEY), "docs/release.md names the public key's path");
  await Deno.stat(`${repo}release/README.md`); // how maintainers make the key
});
