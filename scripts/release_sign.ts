/**
 * Signs a release's SHA256SUMS with the project's release key — SchemaPin verifying its own
 * releases. What `.github/workflows/release.yml` runs after `scripts/release_package.ts`, and
 * what `tests/release_test.ts` runs with a key from `schemapin keygen`:
 *
 *   deno run --allow-read --allow-write --allow-env --allow-run scripts/release_sign.ts \
 *     --dir dist/release --key release-key.pem --public-key release/schemapin-release-public.pem \
 *     --version v1.2.3 [--passphrase-file FILE]
 *
 * or, with the release key held by an SSH agent (a YubiKey, a Secure Enclave; docs/ssh-agent.md),
 * `--key ssh-agent:PUBFILE`: the CLI signs through the agent at `$SSH_AUTH_SOCK` and the
 * private key never touches the release machine's disk.
 *
 * The format is a SchemaPin skill signature (`schemapin sign-skill`, §4b) over a folder that
 * holds only SHA256SUMS: its `file_manifest` names SHA256SUMS with its digest, and every field
 * (skill name `schemapin`, the version as `schema_version`, the domain) is signed. A user checks
 * it with an existing command, `schemapin verify-skill` on a folder holding the downloaded
 * SHA256SUMS, with `--signature SHA256SUMS.sig --public-key` the key from this repository; then
 * `sha256sum -c` ties the archive to SHA256SUMS as before. (A schema-style signature over a JSON
 * list of digests would verify with `verify-schema`, but its digests would have to be compared
 * with the archive by hand: here the signed bytes are SHA256SUMS itself.)
 *
 * The signature is written to `DIR/SHA256SUMS.sig` and verified at once with `--public-key`, the
 * key users are told to use: a release key that does not match it fails here (exit 1, nothing
 * left behind), not on a user's machine. An encrypted key's passphrase comes from
 * `--passphrase-file` or `$SCHEMAPIN_PASSPHRASE` (not with an agent key: the agent asks for its
 * own PIN or touch). The CLI run is this checkout's `cli.ts` with
 * the `schemapin` task's permission flags (the code the release binaries are built from).
 *
 * Exit codes: 0 signed and verified; 1 the signature does not verify with --public-key;
 * 2 bad arguments or inputs (no SHA256SUMS, an unreadable key: the CLI's message).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { permissionFlags } from "./compile.ts";
import { checkVersion, ReleaseInputError } from "./release_package.ts";

/**
 * The domain the release key signs under: a label the signature carries and `verify-skill
 * --domain` must repeat. Nothing is fetched from it: the trust anchor is the public key file.
 */
export const RELEASE_DOMAIN = "schemapin.github.io";

/** The signed `skill_name`. */
export const RELEASE_NAME = "schemapin";

/** Where the repository publishes the release public key (users verify with it). */
export const RELEASE_PUBLIC_KEY = "release/schemapin-release-public.pem";

/** What {@linkcode signRelease} needs. */
export interface SignOptions {
  /** The folder holding SHA256SUMS (from release_package.ts); SHA256SUMS.sig is written there. */
  readonly dir: string;
  /**
   * The release private key (PEM; encrypted PKCS#8 with a passphrase works), or
   * `ssh-agent:PUBFILE` for a key held by the SSH agent at `$SSH_AUTH_SOCK`.
   */
  readonly key: string;
  /** The public key users verify with. */
  readonly publicKey: string;
  /** The release version (`v1.2.3`); signed as `schema_version` without the `v`. */
  readonly version: string;
  /** A file whose first line is the key's passphrase. */
  readonly passphraseFile?: string;
}

/** The outcome: the signature's path and the CLI's own lines (sign, then verify). */
export interface SignResult {
  readonly code: 0 | 1 | 2;
  readonly signature?: string;
  readonly output: string;
}

const repo = new URL("../", import.meta.url).pathname;

async function schemapin(args: string[]): Promise<{ code: number; output: string }> {
  const flags = permissionFlags(await Deno.readTextFile(join(repo, "deno.json")));
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      ...flags,
      "--config",
      join(repo, "deno.json"),
      join(repo, "cli.ts"),
      ...args,
    ],
    // Added to this process's environment (not instead of it): $SSH_AUTH_SOCK for an agent
    // key and $SCHEMAPIN_PASSPHRASE reach the CLI.
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  return { code, output: text };
}

/**
 * Signs `dir/SHA256SUMS` into `dir/SHA256SUMS.sig` and verifies it with `publicKey` (see the
 * module doc).
 *
 * @example
 * ```ts ignore
 * await signRelease({ dir: "dist/release", key: "k.pem", publicKey: "pub.pem", version: "v1.2.3" });
 * ```
 */
export async function signRelease(options: SignOptions): Promise<SignResult> {
  const version = checkVersion(options.version).replace(/^v/, "");
  const sums = join(options.dir, "SHA256SUMS");
  const info = await Deno.stat(sums).catch(() => undefined);
  if (!info?.isFile) {
    throw new ReleaseInputError(`${sums} not found (run scripts/release_package.ts first)`);
  }
  const signature = join(options.dir, "SHA256SUMS.sig");
  const work = await Deno.makeTempDir({ prefix: "schemapin-release-sign-" });
  try {
    // The signed folder holds SHA256SUMS and nothing else, as the user's will.
    const folder = join(work, "sums");
    await Deno.mkdir(folder);
    await Deno.copyFile(sums, join(folder, "SHA256SUMS"));
    const sign = await schemapin([
      "sign-skill",
      folder,
      "--key",
      options.key,
      "--domain",
      RELEASE_DOMAIN,
      "--name",
      RELEASE_NAME,
      "--schema-version",
      version,
      ...(options.passphraseFile ? ["--passphrase-file", options.passphraseFile] : []),
    ]);
    if (sign.code !== 0) return { code: 2, output: sign.output };
    // Its "wrote …/.schemapin.sig" names the temporary folder: SHA256SUMS.sig is reported below.
    const signed = sign.output.split("\n").filter((l) => !l.startsWith("wrote ")).join("\n");
    await Deno.copyFile(join(folder, ".schemapin.sig"), signature);
    await Deno.remove(join(folder, ".schemapin.sig"));
    // Verified exactly as README tells users.
    const verify = await schemapin([
      "verify-skill",
      folder,
      "--signature",
      signature,
      "--domain",
      RELEASE_DOMAIN,
      "--public-key",
      options.publicKey,
    ]);
    if (verify.code !== 0) {
      await Deno.remove(signature);
      return {
        code: verify.code === 1 ? 1 : 2,
        output: `${signed}${verify.output}the signature does not verify with ` +
          `${options.publicKey}: is it the public half of the release key? (SHA256SUMS.sig removed)\n`,
      };
    }
    return { code: 0, signature, output: signed + verify.output };
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

if (import.meta.main) {
  try {
    let values;
    try {
      ({ values } = parseArgs({
        args: Deno.args,
        options: {
          dir: { type: "string", default: "dist/release" },
          key: { type: "string" },
          "public-key": { type: "string" },
          version: { type: "string" },
          "passphrase-file": { type: "string" },
        },
      }));
    } catch (e) {
      throw new ReleaseInputError(e instanceof Error ? e.message : String(e));
    }
    for (const name of ["key", "public-key", "version"] as const) {
      if (values[name] === undefined) throw new ReleaseInputError(`--${name} is required`);
    }
    const result = await signRelease({
      dir: values.dir,
      key: values.key!,
      publicKey: values["public-key"]!,
      version: values.version!,
      passphraseFile: values["passphrase-file"],
    });
    const out = result.output.trimEnd();
    if (result.code === 0) {
      console.log(out);
      console.log(`wrote ${result.signature}`);
    } else console.error(out);
    Deno.exit(result.code);
  } catch (e) {
    if (!(e instanceof ReleaseInputError)) throw e;
    console.error(`error: release_sign: ${e.message}`);
    Deno.exit(2);
  }
}
