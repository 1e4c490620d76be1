/**
 * A key spec loaded together with the passphrase of an encrypted key: a PEM private key for
 * signing or for its public half (cli/keys/private_key.ts), or the signer of a PEM file or of
 * `ssh-agent:PUBFILE` (cli/keys/signer.ts). The passphrase is looked up only when the key
 * turns out to be encrypted, from the sources of cli/keys/passphrase.ts; a passphrase file
 * given for a key that needs none is noted, not an error.
 *
 * The caller supplies the reader, the prompt and where notes and warnings go; this module
 * never prompts, never prints. Its usage mistakes are `INPUT_INVALID` with `details.usage`
 * true, like those of cli/keys/passphrase.ts.
 *
 * @module
 */
import type { PrivateKey, PublicKey } from "../../lib/crypto/keys.ts";
import type { Signer } from "../../lib/crypto/signer.ts";
import { checkArg, checkMethods } from "../../lib/arguments.ts";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { lookUpPassphrase, type PassphraseLookup } from "./passphrase.ts";
import {
  type KeyFileOptions,
  loadKeyForPublicKey,
  loadPrivateKey,
  type PrivateKeyOptions,
} from "./private_key.ts";
import { isSshAgentKey, loadSigner } from "./signer.ts";

/** How a key spec and the passphrase of an encrypted key are read. */
export interface KeySpecOptions extends PassphraseLookup {
  /** The key file's name in messages (default: its path). `source` names the passphrase file. */
  readonly keySource?: string;
  /** Receives a warning about the key (`PrivateKeyOptions.onWarning` of cli/keys/private_key.ts). */
  readonly onWarning?: (message: string) => void | Promise<void>;
}

/** How {@linkcode loadSignerWithPassphrase} reads a key spec. */
export interface SignerSpecOptions extends KeySpecOptions {
  /** Milliseconds one request to the SSH agent may take (its default: a minute). */
  readonly timeoutMs?: number;
  /**
   * How an agent key spec is named at the start of its errors (default: the spec itself); the
   * CLI passes `--key ssh-agent:key.pub`.
   */
  readonly label?: string;
}

/** Throws `INPUT_INVALID` naming `fn` for a key that is not a string or options without `prompt`. */
function checkSpecArgs(fn: string, name: string, key: unknown, options: unknown): void {
  checkArg(fn, name, key, "string");
  checkMethods(fn, "options", options, ["prompt"], "KeySpecOptions");
}

/** The key-file options of `spec`, whose passphrase is looked up on demand; `asked()` tells if it was. */
function keyFileOptions(
  spec: string,
  options: KeySpecOptions,
): KeyFileOptions & PrivateKeyOptions & { source: string; asked: () => boolean } {
  let asked = false;
  return {
    ...(options.read !== undefined ? { read: options.read } : {}),
    source: options.keySource ?? spec,
    passphrase: (source) => {
      asked = true;
      return lookUpPassphrase(source, options);
    },
    ...(options.onWarning !== undefined ? { onWarning: options.onWarning } : {}),
    asked: () => asked,
  };
}

/** The note when a passphrase file was given for a key that needed no passphrase. */
async function noteUnusedPassphraseFile(
  options: KeySpecOptions,
  key: { source: string; asked: () => boolean },
  what: string,
): Promise<void> {
  if (options.passphraseFile !== undefined && !key.asked()) {
    await options.onNote?.(`${key.source} ${what}; --passphrase-file is not used`);
  }
}

/**
 * Reads a private key file: unencrypted, or encrypted with the passphrase looked up as
 * `lookUpPassphrase` of cli/keys/passphrase.ts does (the key's name is the prompt's purpose).
 * A passphrase file given for an unencrypted key is noted (`options.onNote`).
 *
 * @throws {SchemaPinError} as `loadPrivateKey` of cli/keys/private_key.ts and
 *   `lookUpPassphrase` (usage mistakes with `details.usage`).
 *
 * @example
 * ```ts ignore
 * import { loadPrivateKeyWithPassphrase } from "./key_spec.ts";
 * const key = await loadPrivateKeyWithPassphrase("keys/private.pem", {
 *   prompt: () => Promise.resolve(undefined),
 * });
 * ```
 */
export async function loadPrivateKeyWithPassphrase(
  path: string,
  options: KeySpecOptions,
): Promise<PrivateKey> {
  checkSpecArgs("loadPrivateKeyWithPassphrase", "path", path, options);
  const keyFile = keyFileOptions(path, options);
  const { key } = await loadPrivateKey(path, keyFile);
  await noteUnusedPassphraseFile(options, keyFile, "is not encrypted");
  return key;
}

/**
 * Reads a key file where only the public key is needed (a discovery document, a revocation,
 * a DNS record, a pin): a public key, or a private key opened as
 * {@linkcode loadPrivateKeyWithPassphrase} does.
 *
 * @throws {SchemaPinError} as {@linkcode loadPrivateKeyWithPassphrase}; `KEY_INVALID` for a
 *   public key that is not P-256.
 *
 * @example
 * ```ts ignore
 * import { loadPublicKeyWithPassphrase } from "./key_spec.ts";
 * const key = await loadPublicKeyWithPassphrase("keys/public.pem", {
 *   prompt: () => Promise.resolve(undefined),
 * });
 * console.log(key.fingerprint);
 * ```
 */
export async function loadPublicKeyWithPassphrase(
  path: string,
  options: KeySpecOptions,
): Promise<PublicKey> {
  checkSpecArgs("loadPublicKeyWithPassphrase", "path", path, options);
  const keyFile = keyFileOptions(path, options);
  const { key, from } = await loadKeyForPublicKey(path, keyFile);
  await noteUnusedPassphraseFile(
    options,
    keyFile,
    from === "public" ? "is a public key" : "is not encrypted",
  );
  return key;
}

/** `error` with its message prefixed by `label: ` and `details.key` (same code). */
function namingSpec(label: string, spec: string, error: unknown): unknown {
  if (!(error instanceof SchemaPinError)) return error;
  return new SchemaPinError(error.code, `${label}: ${error.message}`, {
    ...error.details,
    key: spec,
  });
}

/**
 * The signer of a key spec (`loadSigner` of cli/keys/signer.ts): a PEM private key file,
 * opened as {@linkcode loadPrivateKeyWithPassphrase} does, or `ssh-agent:PUBFILE`, whose every
 * failure — also those of a later `signMessage` (the agent refused, timed out) — starts with
 * `options.label` and carries the spec as `details.key`.
 *
 * @throws {SchemaPinError} a usage mistake (`details.usage`) for a passphrase file with an
 *   agent key (the agent holds the key and asks for its own passphrase or PIN); as
 *   `loadSigner` and {@linkcode loadPrivateKeyWithPassphrase}.
 *
 * @example
 * ```ts ignore
 * import { loadSignerWithPassphrase } from "./key_spec.ts";
 * const signer = await loadSignerWithPassphrase("ssh-agent:release.pub", {
 *   prompt: () => Promise.resolve(undefined),
 *   label: "--key ssh-agent:release.pub",
 * });
 * ```
 */
export async function loadSignerWithPassphrase(
  spec: string,
  options: SignerSpecOptions,
): Promise<Signer> {
  checkSpecArgs("loadSignerWithPassphrase", "spec", spec, options);
  if (!isSshAgentKey(spec)) {
    const keyFile = keyFileOptions(spec, options);
    const signer = await loadSigner(spec, keyFile);
    await noteUnusedPassphraseFile(options, keyFile, "is not encrypted");
    return signer;
  }
  const label = options.label ?? spec;
  if (options.passphraseFile !== undefined) {
    throw usageError(
      `--passphrase-file does not go with ${label}: the SSH agent holds the key and asks ` +
        "for its own passphrase or PIN",
      { key: spec },
    );
  }
  let agent: Signer;
  try {
    agent = await loadSigner(spec, {
      ...(options.read !== undefined ? { read: options.read } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
  } catch (e) {
    throw namingSpec(label, spec, e);
  }
  return Object.freeze({
    publicKey: agent.publicKey,
    description: agent.description,
    signMessage: async (message: Uint8Array): Promise<Uint8Array> => {
      try {
        return await agent.signMessage(message);
      } catch (e) {
        throw namingSpec(label, spec, e);
      }
    },
  });
}
