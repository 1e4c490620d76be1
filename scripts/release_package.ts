/**
 * Release archives: what `.github/workflows/release.yml` runs after `deno task compile --all`,
 * and what `tests/release_test.ts` runs on stand-in binaries.
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env scripts/release_package.ts \
 *     --version v1.2.3 [--dist dist] [--out dist/release]
 *
 * For each release target it takes `DIST/schemapin-<target>` (`.exe` on Windows), the name
 * `deno task compile --all` gives it, and writes `OUT/schemapin-<version>-<target>.tar.xz`
 * (`.zip` for Windows) holding one folder `schemapin-<version>-<target>/` with the binary
 * named `schemapin` (`schemapin.exe`) — the name README tells users to put on PATH — plus
 * README.md and LICENSE. Then `OUT/SHA256SUMS` lists every archive in `sha256sum`'s format
 * (`<hex>  <name>`), so `sha256sum -c --ignore-missing SHA256SUMS` checks a download.
 *
 * With `SOURCE_DATE_EPOCH` set (the workflow sets the commit time), every file in the archives
 * carries that time, owner 0 and sorted names: the same binaries give the same archives.
 * Needs `tar` with xz support and `zip` on PATH. Exit codes: 0 written; 2 bad arguments or a
 * missing binary (named), or a failing tar/zip.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { createHash } from "node:crypto";
import { basename, join } from "node:path";
import { TARGETS } from "./compile.ts";

/** What {@linkcode packageRelease} needs. */
export interface PackageOptions {
  /** The release version, as tagged (`v1.2.3`). */
  readonly version: string;
  /** Where `deno task compile --all` wrote `schemapin-<target>[.exe]`. */
  readonly dist: string;
  /** Where the archives and SHA256SUMS go (created if missing). */
  readonly out: string;
  /** The checkout holding README.md and LICENSE. */
  readonly root: string;
  /** The targets to package (default: every release target). */
  readonly targets?: readonly string[];
  /** Seconds since 1970 for every file's time (reproducible archives), or undefined. */
  readonly sourceDateEpoch?: number;
}

/** A usage or input problem: exit 2 with the message. */
export class ReleaseInputError extends Error {}

/**
 * The binary's name inside an archive: `schemapin`, or `schemapin.exe` for Windows targets.
 *
 * @example
 * ```ts ignore
 * binaryName("x86_64-pc-windows-msvc"); // "schemapin.exe"
 * ```
 */
export function binaryName(target: string): string {
  return target.includes("windows") ? "schemapin.exe" : "schemapin";
}

/**
 * The archive's file name: `schemapin-<version>-<target>.tar.xz`, `.zip` for Windows.
 *
 * @example
 * ```ts ignore
 * archiveName("v1.2.3", "aarch64-apple-darwin"); // "schemapin-v1.2.3-aarch64-apple-darwin.tar.xz"
 * ```
 */
export function archiveName(version: string, target: string): string {
  return `schemapin-${version}-${target}${target.includes("windows") ? ".zip" : ".tar.xz"}`;
}

/**
 * Checks a release version (a tag such as `v1.2.3` or `1.2.3-rc.1`): it becomes part of file
 * names, so only semver-like text is accepted.
 *
 * @example
 * ```ts ignore
 * checkVersion("v1.2.3"); // "v1.2.3"
 * ```
 */
export function checkVersion(version: string): string {
  if (!/^v?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(version)) {
    throw new ReleaseInputError(
      `--version must be a release version such as v1.2.3, got ${JSON.stringify(version)}`,
    );
  }
  return version;
}

/**
 * SHA256SUMS text for `files` (name → SHA-256 hex), sorted by name, in `sha256sum`'s format.
 *
 * @example
 * ```ts ignore
 * sha256sums({ "a.zip": "00…" }); // "00…  a.zip\n"
 * ```
 */
export function sha256sums(files: Record<string, string>): string {
  return Object.keys(files).sort().map((name) => `${files[name]}  ${name}\n`).join("");
}

/** SHA-256 (hex) of a file, streamed. */
export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  using file = await Deno.open(path);
  for await (const chunk of file.readable) hash.update(chunk);
  return hash.digest("hex");
}

async function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(cmd, {
      args,
      cwd,
      env: { DENO_NO_UPDATE_CHECK: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    })
      .output();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new ReleaseInputError(`${cmd} is not installed (needed to write release archives)`);
    }
    throw e;
  }
  if (out.code !== 0) {
    const err = new TextDecoder().decode(out.stderr).trim();
    throw new ReleaseInputError(`${cmd} ${args.join(" ")} failed (exit ${out.code}): ${err}`);
  }
}

/**
 * Writes the archives and SHA256SUMS (see the module doc); returns the archive names. Throws
 * {@linkcode ReleaseInputError} naming a missing binary, before anything is written.
 *
 * @example
 * ```ts ignore
 * await packageRelease({ version: "v1.2.3", dist: "dist", out: "dist/release", root: "." });
 * ```
 */
export async function packageRelease(options: PackageOptions): Promise<string[]> {
  const version = checkVersion(options.version);
  const targets = options.targets ?? TARGETS;
  const binaries = targets.map((t) =>
    join(options.dist, `schemapin-${t}${t.includes("windows") ? ".exe" : ""}`)
  );
  const missing: string[] = [];
  for (const bin of binaries) {
    const info = await Deno.stat(bin).catch(() => undefined);
    if (!info?.isFile) missing.push(bin);
  }
  if (missing.length > 0) {
    throw new ReleaseInputError(
      `missing binaries (run \`deno task compile --all\` first): ${missing.join(", ")}`,
    );
  }
  await Deno.mkdir(options.out, { recursive: true });
  const stage = await Deno.makeTempDir({ prefix: "schemapin-release-" });
  const digests: Record<string, string> = {};
  try {
    for (const [i, target] of targets.entries()) {
      const folder = `schemapin-${version}-${target}`;
      const dir = join(stage, folder);
      await Deno.mkdir(dir);
      const bin = join(dir, binaryName(target));
      await Deno.copyFile(binaries[i], bin);
      await Deno.chmod(bin, 0o755);
      for (const doc of ["README.md", "LICENSE"]) {
        await Deno.copyFile(join(options.root, doc), join(dir, doc));
        await Deno.chmod(join(dir, doc), 0o644);
      }
      await Deno.chmod(dir, 0o755);
      if (options.sourceDateEpoch !== undefined) {
        const t = new Date(options.sourceDateEpoch * 1000);
        for (const path of [bin, join(dir, "README.md"), join(dir, "LICENSE"), dir]) {
          await Deno.utime(path, t, t);
        }
      }
      const archive = join(await Deno.realPath(options.out), archiveName(version, target));
      await Deno.remove(archive).catch(() => {});
      if (target.includes("windows")) {
        // -X: no uid/gid fields; TZ=UTC: zip stores local times.
        await run("zip", ["-q", "-X", "-r", archive, folder], stage, { TZ: "UTC" });
      } else {
        await run(
          "tar",
          [
            "--sort=name",
            "--owner=0",
            "--group=0",
            "--numeric-owner",
            "--format=gnu",
            "-cJf",
            archive,
            folder,
          ],
          stage,
          { XZ_OPT: "-6 -T1" },
        );
      }
      digests[basename(archive)] = await sha256File(archive);
    }
  } finally {
    await Deno.remove(stage, { recursive: true });
  }
  await Deno.writeTextFile(join(options.out, "SHA256SUMS"), sha256sums(digests));
  return Object.keys(digests).sort();
}

if (import.meta.main) {
  try {
    let values;
    try {
      ({ values } = parseArgs({
        args: Deno.args,
        options: {
          version: { type: "string" },
          dist: { type: "string", default: "dist" },
          out: { type: "string", default: "dist/release" },
        },
      }));
    } catch (e) {
      throw new ReleaseInputError(e instanceof Error ? e.message : String(e));
    }
    if (values.version === undefined) throw new ReleaseInputError("--version is required");
    const epoch = Deno.env.get("SOURCE_DATE_EPOCH");
    if (epoch !== undefined && !/^\d+$/.test(epoch)) {
      throw new ReleaseInputError(`SOURCE_DATE_EPOCH must be whole seconds, got ${epoch}`);
    }
    const names = await packageRelease({
      version: values.version,
      dist: values.dist,
      out: values.out,
      root: new URL("../", import.meta.url).pathname,
      sourceDateEpoch: epoch === undefined ? undefined : Number(epoch),
    });
    for (const name of names) console.log(`wrote ${join(values.out, name)}`);
    console.log(`wrote ${join(values.out, "SHA256SUMS")} (${names.length} archives)`);
  } catch (e) {
    if (!(e instanceof ReleaseInputError)) throw e;
    console.error(`error: release_package: ${e.message}`);
    Deno.exit(2);
  }
}
