/**
 * Loading a key from a PEM file for signing, or for its public half: an unencrypted private
 * key (PKCS #8 or SEC1), an encrypted PKCS #8 key (§9 "Private Key Storage": keys encrypted at
 * rest) whose passphrase the caller supplies through a callback, or a public key. Also the
 * passphrase file format: its first line is the passphrase.
 *
 * The caller decides where bytes come from ({@linkcode KeyFileOptions.read}: the CLI reads
 * `-` as stdin) and how a passphrase is asked for; this module never prompts, never prints
 * and never puts a passphrase in an error.
 *
 * @module
 */
import {
  parsePrivateKeyPem,
  parsePublicKeyPem,
  type PrivateKey,
  type PublicKey,
} from "../../lib/crypto/keys.ts";
import {
  decryptPrivateKeyPem,
  encryptedPrivateKeyParameters,
  isEncryptedPrivateKeyPem,
} from "../../lib/crypto/encrypted_key.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { describeFsError, readFile } from "../../lib/runtime/fs.ts";

/** Below this many PBKDF2 iterations, loading an encrypted key gives a warning. */
export const WEAK_PBKDF2_ITERATIONS = 100_000;

/** The longest passphrase accepted, in bytes (from a file or typed). */
export const MAX_PASSPHRASE_BYTES = 1024;

/** Reads the bytes of a file; throws `SchemaPinError` (`IO_FAILED`) naming it. */
export type ReadBytes = (path: string) => Promise<Uint8Array>;

/** Where a key file's bytes come from and how it is named in messages. */
export interface KeyFileOptions {
  /**
   * Reads a file (default: the runtime's file read, `IO_FAILED` naming the path). The CLI
   * passes its own, for which `-` is stdin.
   */
  readonly read?: ReadBytes;
  /** The file's name in messages and `details.source` (default: the path). */
  readonly source?: string;
}

/** How an encrypted private key is opened. */
export interface PrivateKeyOptions {
  /**
   * Gives the passphrase of the encrypted key named `source`. Called only for an encrypted
   * key, after its encryption parameters were found usable. Without it, an encrypted key is
   * `KEY_INVALID`.
   */
  readonly passphrase?: (source: string) => Promise<string>;
  /**
   * Receives a warning about the key (one line, no newline): an encrypted key with fewer
   * than {@linkcode WEAK_PBKDF2_ITERATIONS} PBKDF2 iterations (OpenSSL writes 2048 by
   * default), with the command that re-encrypts it.
   */
  readonly onWarning?: (message: string) => void | Promise<void>;
}

/** A private key read from PEM, and whether the PEM was encrypted. */
export interface LoadedPrivateKey {
  /** The key. */
  readonly key: PrivateKey;
  /** The PEM was an `ENCRYPTED PRIVATE KEY` (decrypted with the passphrase given). */
  readonly encrypted: boolean;
}

/** A public key read from PEM holding a public or a private key. */
export interface LoadedPublicKey {
  /** The public key. */
  readonly key: PublicKey;
  /** What the PEM held: a public key, or a private key (its public half is returned). */
  readonly from: "public" | "private";
  /** A private key that was encrypted (its passphrase was asked for). */
  readonly encrypted: boolean;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads `path` as bytes, through `options.read` or the runtime. */
async function readBytes(path: string, options: KeyFileOptions): Promise<Uint8Array> {
  if (options.read !== undefined) return await options.read(path);
  try {
    return await readFile(path);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot read ${path}: ${describeFsError(e)}`, {
      path,
    });
  }
}

/**
 * Reads `path` as strict UTF-8 text (a PEM file, an OpenSSH `.pub` line); a file that is not
 * UTF-8 is named by its path.
 *
 * @throws {SchemaPinError} `IO_FAILED` (unreadable), `INPUT_INVALID` (not UTF-8).
 *
 * @example
 * ```ts ignore
 * import { readKeyText } from "./private_key.ts";
 * const pem = await readKeyText("keys/public.pem");
 * ```
 */
export async function readKeyText(path: string, options: KeyFileOptions = {}): Promise<string> {
  const bytes = await readBytes(path, options);
  try {
    return UTF8.decode(bytes);
  } catch {
    throw new SchemaPinError("INPUT_INVALID", `${path} is not valid UTF-8 text`, { path });
  }
}

/**
 * The passphrase in a passphrase file: its first line, without the line ending (`\n` or
 * `\r\n`). The file's bytes are zeroed once decoded.
 *
 * @throws {SchemaPinError} `IO_FAILED` (unreadable); `INPUT_INVALID` for a file that is not
 *   UTF-8, whose first line is empty, or longer than {@linkcode MAX_PASSPHRASE_BYTES} bytes.
 *
 * @example
 * ```ts ignore
 * import { passphraseFromFile } from "./private_key.ts";
 * const passphrase = await passphraseFromFile("secrets/key.pass");
 * ```
 */
export async function passphraseFromFile(
  path: string,
  options: KeyFileOptions = {},
): Promise<string> {
  const bytes = await readBytes(path, options);
  const where = options.source ?? path;
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new SchemaPinError("INPUT_INVALID", `passphrase file ${where} is not UTF-8 text`, {
      path,
    });
  } finally {
    bytes.fill(0);
  }
  const nl = text.indexOf("\n");
  let line = nl < 0 ? text : text.slice(0, nl);
  if (line.endsWith("\r")) line = line.slice(0, -1);
  if (line.length === 0) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `passphrase file ${where} is empty (its first line is the passphrase)`,
      { path },
    );
  }
  if (new TextEncoder().encode(line).length > MAX_PASSPHRASE_BYTES) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `passphrase file ${where}: the passphrase is longer than ${MAX_PASSPHRASE_BYTES} bytes`,
      { path },
    );
  }
  return line;
}

/**
 * A private key from PEM text: unencrypted (PKCS #8 or SEC1), or encrypted PKCS #8, whose
 * parameters are checked before the passphrase is asked for.
 *
 * @param pem The PEM text.
 * @param source Where it came from (a file name), for messages and `details.source`.
 * @throws {SchemaPinError} `KEY_INVALID` (not a P-256 private key, unsupported encryption,
 *   wrong passphrase or corrupted key, an encrypted key without `options.passphrase`); what
 *   `options.passphrase` throws.
 *
 * @example
 * ```ts
 * import { privateKeyFromPem } from "./private_key.ts";
 * import { encryptPrivateKeyPem } from "../../lib/crypto/encrypted_key.ts";
 * import { generateKeyPair } from "../../lib/crypto/keys.ts";
 * const pem = await encryptPrivateKeyPem(generateKeyPair(), "correct horse");
 * const { encrypted } = await privateKeyFromPem(pem, "private.pem", {
 *   passphrase: () => Promise.resolve("correct horse"),
 * });
 * encrypted; // true
 * ```
 */
export async function privateKeyFromPem(
  pem: string,
  source: string,
  options: PrivateKeyOptions = {},
): Promise<LoadedPrivateKey> {
  if (!isEncryptedPrivateKeyPem(pem)) {
    return { key: parsePrivateKeyPem(pem, source), encrypted: false };
  }
  const params = encryptedPrivateKeyParameters(pem, source);
  if (options.passphrase === undefined) {
    throw new SchemaPinError(
      "KEY_INVALID",
      `${source} is an encrypted private key and no passphrase was given for it`,
      { source },
    );
  }
  const passphrase = await options.passphrase(source);
  const key = await decryptPrivateKeyPem(pem, passphrase, source);
  if (params.iterations < WEAK_PBKDF2_ITERATIONS) {
    await options.onWarning?.(
      `${source} is encrypted with only ${params.iterations} PBKDF2 iterations; ` +
        "re-encrypt it with `openssl pkcs8 -topk8 -v2 aes-256-cbc -v2prf hmacWithSHA256 " +
        `-iter 600000 -in ${source} -out NEW.pem\``,
    );
  }
  return { key, encrypted: true };
}

/**
 * Reads a private key file ({@linkcode privateKeyFromPem} on its text).
 *
 * @throws {SchemaPinError} `IO_FAILED`, `INPUT_INVALID` (not UTF-8); as
 *   {@linkcode privateKeyFromPem}.
 *
 * @example
 * ```ts ignore
 * import { loadPrivateKey } from "./private_key.ts";
 * const { key } = await loadPrivateKey("keys/private.pem", {
 *   passphrase: async () => Deno.env.get("SCHEMAPIN_PASSPHRASE")!,
 * });
 * ```
 */
export async function loadPrivateKey(
  path: string,
  options: KeyFileOptions & PrivateKeyOptions = {},
): Promise<LoadedPrivateKey> {
  const pem = await readKeyText(path, options);
  return await privateKeyFromPem(pem, options.source ?? path, options);
}

/** Whether PEM text holds a private key (of any kind: PKCS #8, SEC1, encrypted). */
function holdsPrivateKey(pem: string): boolean {
  return /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem);
}

/**
 * The public key of PEM text holding a public key or an unencrypted private key (no
 * passphrase can be asked for here: an encrypted key is `KEY_INVALID`).
 *
 * @throws {SchemaPinError} `KEY_INVALID` (not a P-256 key, an encrypted private key).
 *
 * @example
 * ```ts
 * import { publicKeyFromAnyPem } from "./private_key.ts";
 * import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
 * const key = generateKeyPair();
 * publicKeyFromAnyPem(privateKeyToPem(key), "private.pem").fingerprint ===
 *   key.publicKey.fingerprint; // true
 * ```
 */
export function publicKeyFromAnyPem(pem: string, source: string): PublicKey {
  if (!holdsPrivateKey(pem)) return parsePublicKeyPem(pem, source);
  try {
    return parsePrivateKeyPem(pem, source).publicKey;
  } catch (e) {
    // An encrypted key: say where the commands read its passphrase (the library's message
    // names decryptPrivateKeyPem only).
    if (e instanceof SchemaPinError && e.details.encrypted === true) {
      throw new SchemaPinError(
        "KEY_INVALID",
        `private key in ${source}: ${ENCRYPTED_KEY}`,
        e.details,
      );
    }
    throw e;
  }
}

/** What an encrypted key needs, in the CLI's words. */
const ENCRYPTED_KEY = "the key is encrypted and needs its passphrase: commands that take --key " +
  "read it from --passphrase-file, SCHEMAPIN_PASSPHRASE or a terminal prompt; in code use " +
  "decryptPrivateKeyPem(). Where only the public key is needed, give public.pem";

/**
 * The public key of PEM text holding a public key or a private key, opened as
 * {@linkcode privateKeyFromPem} does (an encrypted one asks `options.passphrase`).
 *
 * @throws {SchemaPinError} as {@linkcode privateKeyFromPem}; `KEY_INVALID` for a public key
 *   that is not P-256.
 *
 * @example
 * ```ts
 * import { publicKeyFromPem } from "./private_key.ts";
 * import { generateKeyPair } from "../../lib/crypto/keys.ts";
 * const key = generateKeyPair();
 * (await publicKeyFromPem(key.publicKey.pem, "public.pem")).from; // "public"
 * ```
 */
export async function publicKeyFromPem(
  pem: string,
  source: string,
  options: PrivateKeyOptions = {},
): Promise<LoadedPublicKey> {
  if (!holdsPrivateKey(pem)) {
    return { key: parsePublicKeyPem(pem, source), from: "public", encrypted: false };
  }
  const { key, encrypted } = await privateKeyFromPem(pem, source, options);
  return { key: key.publicKey, from: "private", encrypted };
}

/**
 * Reads a key file where only the public key is needed (a discovery document, a revocation,
 * a DNS record, a pin): {@linkcode publicKeyFromPem} on its text.
 *
 * @throws {SchemaPinError} `IO_FAILED`, `INPUT_INVALID` (not UTF-8); as
 *   {@linkcode publicKeyFromPem}.
 *
 * @example
 * ```ts ignore
 * import { loadKeyForPublicKey } from "./private_key.ts";
 * const { key } = await loadKeyForPublicKey("keys/public.pem");
 * console.log(key.fingerprint);
 * ```
 */
export async function loadKeyForPublicKey(
  path: string,
  options: KeyFileOptions & PrivateKeyOptions = {},
): Promise<LoadedPublicKey> {
  const pem = await readKeyText(path, options);
  return await publicKeyFromPem(pem, options.source ?? path, options);
}
