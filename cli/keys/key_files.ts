/**
 * A new key pair written to a folder: `private.pem` (mode 0600; an encrypted PKCS #8 key when
 * a passphrase is given, §9 "Private Key Storage"), `public.pem`, and optionally the discovery
 * document `schemapin.json` — all or none: a write that fails removes the files written
 * before it (unless they replaced older ones).
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { encryptPrivateKeyPem } from "../../lib/crypto/encrypted_key.ts";
import { type PrivateKey, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { exists, writeFileAtomic } from "../../lib/runtime/atomic_write.ts";
import { describeFsError, mkdirAll, removeFileSync } from "../../lib/runtime/fs.ts";

/** The files of a key pair in a folder. */
export interface KeyPairPaths {
  /** `DIR/private.pem`. */
  readonly privatePath: string;
  /** `DIR/public.pem`. */
  readonly publicPath: string;
  /** `DIR/schemapin.json`, when a discovery document is written. */
  readonly discoveryPath?: string;
}

/**
 * The paths of a key pair in `dir` (trailing slashes ignored).
 *
 * @example
 * ```ts
 * import { keyPairPaths } from "./key_files.ts";
 * keyPairPaths("keys/", false).privatePath; // "keys/private.pem"
 * ```
 */
export function keyPairPaths(dir: string, withDiscovery: boolean): KeyPairPaths {
  const base = dir.replace(/\/+$/, "") || "/";
  return {
    privatePath: `${base}/private.pem`,
    publicPath: `${base}/public.pem`,
    ...(withDiscovery ? { discoveryPath: `${base}/schemapin.json` } : {}),
  };
}

/**
 * Refuses a key pair whose files exist already: checked before a new key's passphrase is asked
 * for, so that nothing is asked for in vain ({@linkcode writeKeyPairFiles} refuses them too,
 * but only when writing).
 *
 * @throws {SchemaPinError} `IO_FAILED` naming the first existing file, with `details.exists`.
 *
 * @example
 * ```ts ignore
 * import { keyPairPaths, refuseExistingKeyFiles } from "./key_files.ts";
 * await refuseExistingKeyFiles(keyPairPaths("keys", false));
 * ```
 */
export async function refuseExistingKeyFiles(paths: KeyPairPaths): Promise<void> {
  checkArg("refuseExistingKeyFiles", "paths", paths, "object");
  const { privatePath, publicPath, discoveryPath } = paths;
  for (const path of [privatePath, publicPath, ...(discoveryPath ? [discoveryPath] : [])]) {
    if (await exists(path)) {
      throw new SchemaPinError(
        "IO_FAILED",
        `${path} already exists; refusing to overwrite a key`,
        { path, exists: true },
      );
    }
  }
}

/** What {@linkcode writeKeyPairFiles} writes. */
export interface KeyPairFilesOptions {
  /** Encrypt `private.pem` with this passphrase (default: written unencrypted). */
  readonly passphrase?: string;
  /** The discovery document's text, written to `DIR/schemapin.json` when given. */
  readonly discovery?: string;
  /** Replace existing files (default false: an existing file is an error). */
  readonly overwrite?: boolean;
}

function removeQuietly(path: string): void {
  try {
    removeFileSync(path);
  } catch {
    // never written
  }
}

/**
 * Writes `key` to `dir` (created with mode 0700 when missing): `private.pem` (mode 0600,
 * encrypted when `options.passphrase` is given), `public.pem` and, with `options.discovery`,
 * `schemapin.json`, each atomically. When a write fails, the files written before it are
 * removed again unless `options.overwrite` (then they replaced older files, which are gone).
 *
 * @throws {SchemaPinError} `IO_FAILED` naming the folder or the file (`details.exists` for an
 *   existing file without `overwrite`).
 *
 * @example
 * ```ts ignore
 * import { writeKeyPairFiles } from "./key_files.ts";
 * import { generateKeyPair } from "../../lib/crypto/keys.ts";
 * const paths = await writeKeyPairFiles("keys", generateKeyPair(), { passphrase: "…" });
 * console.log(paths.privatePath); // "keys/private.pem"
 * ```
 */
export async function writeKeyPairFiles(
  dir: string,
  key: PrivateKey,
  options: KeyPairFilesOptions = {},
): Promise<KeyPairPaths> {
  const paths = keyPairPaths(dir, options.discovery !== undefined);
  const overwrite = options.overwrite === true;
  try {
    await mkdirAll(dir, 0o700);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot create ${dir}: ${describeFsError(e)}`, {
      path: dir,
    });
  }
  const privatePem = options.passphrase === undefined
    ? privateKeyToPem(key)
    : await encryptPrivateKeyPem(key, options.passphrase);
  const files: [string, string, number][] = [
    [paths.privatePath, privatePem, 0o600],
    [paths.publicPath, key.publicKey.pem, 0o644],
  ];
  if (paths.discoveryPath !== undefined) {
    files.push([paths.discoveryPath, options.discovery!, 0o644]);
  }
  const written: string[] = [];
  for (const [path, text, mode] of files) {
    try {
      await writeFileAtomic(path, text, { mode, overwrite });
    } catch (e) {
      if (!overwrite) written.forEach(removeQuietly);
      throw e;
    }
    written.push(path);
  }
  return paths;
}
