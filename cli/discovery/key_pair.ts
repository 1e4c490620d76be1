/**
 * A new signing key pair written to a folder (`private.pem`, `public.pem`) with, optionally,
 * the discovery document that publishes its public key (`schemapin.json`, §8): what
 * `schemapin keygen` does, as one call. Nothing is asked for and nothing is created when the
 * files exist already or the discovery fields are refused; the passphrase is asked for only
 * then, so a refused passphrase leaves nothing behind either (§9 "Private Key Storage": keys
 * encrypted at rest).
 *
 * @module
 */
import { generateKeyPair, type PrivateKey } from "../../lib/crypto/keys.ts";
import { checkArg } from "../../lib/arguments.ts";
import {
  type KeyPairPaths,
  keyPairPaths,
  refuseExistingKeyFiles,
  writeKeyPairFiles,
} from "../keys/key_files.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";

/** What {@linkcode createKeyPairFiles} writes. */
export interface CreateKeyPairOptions {
  /**
   * The passphrase `private.pem` is encrypted with, asked for once every check has passed;
   * absent: the key is written unencrypted.
   */
  readonly passphrase?: () => Promise<string>;
  /** Also write `DIR/schemapin.json`, the discovery document of the new key. */
  readonly discovery?: { readonly developerName: string; readonly contact?: string };
  /** Replace existing files (default false: an existing file is `IO_FAILED`, `details.exists`). */
  readonly overwrite?: boolean;
}

/**
 * Generates a P-256 key pair and writes it to `dir` (created with mode 0700; `private.pem`
 * mode 0600), with its discovery document when asked; returns the key and the paths written.
 *
 * @throws {SchemaPinError} `IO_FAILED` (a file exists without `overwrite`, `details.exists`;
 *   a write failed, nothing left behind), `INPUT_INVALID` (a developer name or contact the
 *   discovery document refuses); whatever `passphrase` throws.
 *
 * @example
 * ```ts ignore
 * import { createKeyPairFiles } from "./key_pair.ts";
 * const { key, paths } = await createKeyPairFiles("./keys", {
 *   passphrase: () => Promise.resolve("correct horse battery staple"),
 *   discovery: { developerName: "Example Corp" },
 * });
 * paths.discoveryPath; // "./keys/schemapin.json"
 * ```
 */
export async function createKeyPairFiles(
  dir: string,
  options: CreateKeyPairOptions = {},
): Promise<{ key: PrivateKey; paths: KeyPairPaths }> {
  checkArg("createKeyPairFiles", "dir", dir, "string");
  const paths = keyPairPaths(dir, options.discovery !== undefined);
  if (options.overwrite !== true) await refuseExistingKeyFiles(paths);
  const key = generateKeyPair();
  const discovery = options.discovery === undefined ? undefined : JSON.stringify(
    buildDiscoveryDocument({ publicKey: key.publicKey, ...options.discovery }),
    null,
    2,
  ) + "\n";
  const passphrase = options.passphrase === undefined ? undefined : await options.passphrase();
  await writeKeyPairFiles(dir, key, {
    ...(passphrase !== undefined ? { passphrase } : {}),
    ...(discovery !== undefined ? { discovery } : {}),
    overwrite: options.overwrite === true,
  });
  return { key, paths };
}
