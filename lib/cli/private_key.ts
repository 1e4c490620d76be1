/**
 * Loading `--key` for every signing command — a PEM private key, and the passphrase of an
 * encrypted key (§9 "Private Key Storage": keys encrypted at rest), or `ssh-agent:PUBFILE`, a
 * key held by an SSH agent ({@linkcode loadSigner}, docs/ssh-agent.md).
 *
 * The passphrase comes from, in this order:
 *   1. `--passphrase-file FILE` — its first line (a final `\n` or `\r\n` is not part of it);
 *   2. the `SCHEMAPIN_PASSPHRASE` environment variable;
 *   3. a prompt on the terminal (stdin and stderr both TTYs), typed without echo.
 * The explicit flag wins over the ambient variable (a note says so when both are set). With
 * none of them and no terminal, the command exits 2 naming the first two. An empty passphrase
 * is refused from every source. The passphrase is never printed, logged or put in an error.
 *
 * @module
 */
import type { PrivateKey, PublicKey } from "../crypto/keys.ts";
import type { Signer } from "../crypto/signer.ts";
import { SchemaPinError } from "../errors.ts";
import {
  loadKeyForPublicKey as loadPublicKeyFile,
  loadPrivateKey as loadPrivateKeyFile,
  type PrivateKeyOptions,
  type ReadBytes,
} from "../keys/private_key.ts";
import {
  isSshAgentKey,
  loadSigner as loadKeySigner,
  SSH_AGENT_KEY_PREFIX,
} from "../keys/signer.ts";
import { lookUpPassphrase } from "../keys/passphrase.ts";
import { readHiddenLine } from "../keys/hidden_line.ts";
import { type CliIO, UsageError } from "./command.ts";
import { readInput } from "./io.ts";

/**
 * Asks for a line on the terminal without echo; `undefined` when there is no terminal.
 * Throws a {@linkcode UsageError} when the user cancels. Tests inject their own.
 */
export type PassphrasePrompt = (question: string, io: CliIO) => Promise<string | undefined>;

/** Where a command gets a passphrase. */
export interface PassphraseSources {
  /** The command name, first word of usage errors (`sign-schema`, `bundle sign`). */
  readonly command: string;
  /** The `--passphrase-file` value, if given. */
  readonly passphraseFile?: string;
  /** The terminal prompt (default {@linkcode terminalPassphrasePrompt}). */
  readonly prompt?: PassphrasePrompt;
  /** Reads an environment variable (default `Deno.env.get`). */
  readonly getEnv?: (name: string) => string | undefined;
  /** Another way out, added to the "no terminal to ask on" error (`keygen --unencrypted`). */
  readonly otherwise?: string;
}

/**
 * Prompts on the process terminal (stdin and stderr both TTYs) with echo off (raw mode);
 * `undefined` when there is no terminal. The terminal mode is restored however it ends.
 * Ctrl-C or Ctrl-D cancels with a {@linkcode UsageError} (exit 2).
 *
 * @example
 * ```ts ignore
 * const pass = await terminalPassphrasePrompt("Passphrase for key.pem: ", io);
 * ```
 */
export const terminalPassphrasePrompt: PassphrasePrompt = async (
  question,
  io,
): Promise<string | undefined> => {
  if (!Deno.stdin.isTerminal() || !io.stderrIsTerminal) return undefined;
  // Echo goes off before the question appears, so nothing typed after it is ever shown.
  Deno.stdin.setRaw(true);
  try {
    await io.stderr(question);
    const line = await readHiddenLine((buf) => Deno.stdin.read(buf));
    if (line === undefined) throw new UsageError("passphrase entry cancelled");
    return line;
  } finally {
    Deno.stdin.setRaw(false);
    await io.stderr("\n");
  }
};

/** Reads an environment variable; a missing permission is an error naming it, not "unset". */
function defaultGetEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch (e) {
    throw new SchemaPinError(
      "IO_FAILED",
      `cannot read the ${name} environment variable: ${(e as Error).message}`,
      { variable: name },
    );
  }
}

/**
 * Gets a passphrase from `--passphrase-file`, else `SCHEMAPIN_PASSPHRASE`, else the terminal
 * (asking twice when `confirm`, for a new key): lib/keys/passphrase.ts with the CLI's reader,
 * environment, prompt and notes; its usage mistakes are usage errors naming the command.
 *
 * @param io The command's I/O (notes and the prompt go to stderr).
 * @param sources Where to look.
 * @param purpose What it is for, shown in the prompt and the error ("keys/private.pem").
 * @param confirm Ask twice on the terminal and require the same answer (a new passphrase).
 * @throws {UsageError} no source and no terminal, an empty or mismatched passphrase, or a
 *   cancelled prompt (exit 2).
 * @throws {SchemaPinError} `IO_FAILED` / `INPUT_INVALID` for an unreadable or empty file.
 *
 * @example
 * ```ts ignore
 * const pass = await readPassphrase(io, { command: "keygen" }, "the new key", true);
 * ```
 */
export async function readPassphrase(
  io: CliIO,
  sources: PassphraseSources,
  purpose: string,
  confirm = false,
): Promise<string> {
  const prompt = sources.prompt ?? terminalPassphrasePrompt;
  const file = sources.passphraseFile;
  try {
    return await lookUpPassphrase(purpose, {
      passphraseFile: file,
      read: reader(io),
      source: file === undefined ? undefined : sourceOf(file),
      getEnv: sources.getEnv ?? defaultGetEnv,
      prompt: (question) => prompt(question, io),
      onNote: (message) => io.stderr(`note: ${message}\n`),
      otherwise: sources.otherwise,
    }, confirm);
  } catch (e) {
    if (e instanceof SchemaPinError && e.details.usage === true) {
      throw new UsageError(`${sources.command}: ${e.message}`);
    }
    throw e;
  }
}

/** The CLI's reader: `-` is stdin. */
function reader(io: CliIO): ReadBytes {
  return (path) => readInput(path, io);
}

/** How a file is named in messages: `-` is stdin. */
function sourceOf(path: string): string {
  return path === "-" ? "stdin" : path;
}

/** `--key -` and `--passphrase-file -` cannot both read stdin. */
function checkStdin(path: string, sources: PassphraseSources): void {
  if (path === "-" && sources.passphraseFile === "-") {
    throw new UsageError(`${sources.command}: --key and --passphrase-file cannot both be stdin`);
  }
}

/**
 * The options of lib/keys/ for `--key`: the CLI's reader, the passphrase from
 * {@linkcode readPassphrase}, warnings on stderr. `asked()` tells whether a passphrase was
 * asked for (the key was encrypted).
 */
function keyOptions(
  path: string,
  io: CliIO,
  sources: PassphraseSources,
): PrivateKeyOptions & { read: ReadBytes; source: string; asked: () => boolean } {
  let asked = false;
  return {
    read: reader(io),
    source: sourceOf(path),
    passphrase: (source) => {
      asked = true;
      return readPassphrase(io, sources, source);
    },
    onWarning: (message) => io.stderr(`warning: ${message}\n`),
    asked: () => asked,
  };
}

/**
 * Reads `--key PATH` (or stdin for `-`): an unencrypted private key (PKCS #8 or SEC1), or an
 * encrypted PKCS #8 key, whose parameters are checked before its passphrase is asked for
 * (lib/keys/private_key.ts). Warns on stderr when an encrypted key uses fewer than
 * {@linkcode WEAK_PBKDF2_ITERATIONS} PBKDF2 iterations (OpenSSL writes 2048 by default).
 *
 * @throws {SchemaPinError} `KEY_INVALID` (not a P-256 private key, unsupported encryption,
 *   wrong passphrase or corrupted key), `IO_FAILED`; {@linkcode UsageError} as
 *   {@linkcode readPassphrase}.
 *
 * @example
 * ```ts ignore
 * const key = await loadPrivateKey(values.key, io, {
 *   command: "sign-schema",
 *   passphraseFile: values["passphrase-file"],
 * });
 * ```
 */
export async function loadPrivateKey(
  path: string,
  io: CliIO,
  sources: PassphraseSources,
): Promise<PrivateKey> {
  checkStdin(path, sources);
  const options = keyOptions(path, io, sources);
  const { key } = await loadPrivateKeyFile(path, options);
  await noteUnusedPassphraseFile(options, io, sources, "is not encrypted");
  return key;
}

/** A note when `--passphrase-file` was given for a key that needed no passphrase. */
async function noteUnusedPassphraseFile(
  options: { source: string; asked: () => boolean },
  io: CliIO,
  sources: PassphraseSources,
  what: string,
): Promise<void> {
  if (sources.passphraseFile !== undefined && !options.asked()) {
    await io.stderr(`note: ${options.source} ${what}; --passphrase-file is not used\n`);
  }
}

/**
 * Reads `--key PATH` where only the public key is needed (`well-known`, `revoke`, `dns`,
 * `pins`): a public key PEM, or a private key loaded exactly as {@linkcode loadPrivateKey}
 * does (an encrypted one asks for its passphrase from the same sources).
 *
 * @throws {SchemaPinError} `KEY_INVALID`, `IO_FAILED`; {@linkcode UsageError} as
 *   {@linkcode readPassphrase}.
 *
 * @example
 * ```ts ignore
 * const pub = await loadKeyForPublicKey(values.key, io, { command: "well-known" });
 * ```
 */
export async function loadKeyForPublicKey(
  path: string,
  io: CliIO,
  sources: PassphraseSources,
): Promise<PublicKey> {
  checkStdin(path, sources);
  const options = keyOptions(path, io, sources);
  const { key, from } = await loadPublicKeyFile(path, options);
  await noteUnusedPassphraseFile(
    options,
    io,
    sources,
    from === "public" ? "is a public key" : "is not encrypted",
  );
  return key;
}

/** `error` with its message prefixed by `--key VALUE: ` (same code and details). */
function namingKeyFlag(keyArg: string, error: unknown): unknown {
  if (!(error instanceof SchemaPinError)) return error;
  return new SchemaPinError(error.code, `--key ${keyArg}: ${error.message}`, {
    ...error.details,
    key: keyArg,
  });
}

/**
 * The signer of `--key` for every signing command (lib/keys/signer.ts `loadSigner`):
 *
 * - `PATH` (or `-`, stdin): a PEM private key, loaded as {@linkcode loadPrivateKey} does, as
 *   a `privateKeySigner` — the same signatures, byte for byte, as signing with the key
 *   (`privateKeyOf` gives the key back);
 * - `ssh-agent:PUBFILE`: a key held by the SSH agent at `$SSH_AUTH_SOCK`, named by its public
 *   half (the OpenSSH `.pub` line or a PEM public key, read from the file PUBFILE). The agent
 *   is asked at once whether it holds the key. The private key never enters this process.
 *
 * Every failure of an agent key names the flag's value (`--key ssh-agent:key.pub: …`): agent
 * failures are `IO_FAILED` (exit 2) with `details.agent` as `sshAgentSigner` throws them,
 * including those of a later `signMessage` (the agent refused, timed out).
 *
 * @throws {UsageError} `--passphrase-file` with an agent key (the agent holds the key, there
 *   is nothing to decrypt), an empty or `-` PUBFILE; as {@linkcode loadPrivateKey}.
 * @throws {SchemaPinError} `KEY_INVALID` (a PUBFILE that is not a P-256 public key: Ed25519,
 *   RSA, a FIDO key, a private key), `IO_FAILED` (an unreadable PUBFILE, no agent, the key not
 *   loaded); as {@linkcode loadPrivateKey}.
 *
 * @example
 * ```ts ignore
 * const signer = await loadSigner(values.key, io, {
 *   command: "sign-skill",
 *   passphraseFile: values["passphrase-file"],
 * });
 * const { document } = await signSkillDirWithSigner(dir, signer, { domain });
 * ```
 */
export async function loadSigner(
  keyArg: string,
  io: CliIO,
  sources: PassphraseSources,
  options: { readonly timeoutMs?: number } = {},
): Promise<Signer> {
  if (!isSshAgentKey(keyArg)) {
    checkStdin(keyArg, sources);
    const keyOpts = keyOptions(keyArg, io, sources);
    const signer = await loadKeySigner(keyArg, keyOpts);
    await noteUnusedPassphraseFile(keyOpts, io, sources, "is not encrypted");
    return signer;
  }
  const command = sources.command;
  const pubFile = keyArg.slice(SSH_AGENT_KEY_PREFIX.length);
  if (pubFile === "" || pubFile === "-") {
    throw new UsageError(
      `${command}: --key ${keyArg}: give the key's public half as a file: ` +
        "ssh-agent:KEY.pub (its OpenSSH .pub line, `ssh-add -L` shows it) or ssh-agent:KEY.pem " +
        "(a PEM public key)",
    );
  }
  if (sources.passphraseFile !== undefined) {
    throw new UsageError(
      `${command}: --passphrase-file does not go with --key ${keyArg}: the SSH agent holds ` +
        "the key and asks for its own passphrase or PIN",
    );
  }
  let agent: Signer;
  try {
    agent = await loadKeySigner(keyArg, { read: reader(io), ...options });
  } catch (e) {
    throw namingKeyFlag(keyArg, e);
  }
  return Object.freeze({
    publicKey: agent.publicKey,
    description: agent.description,
    signMessage: async (message: Uint8Array): Promise<Uint8Array> => {
      try {
        return await agent.signMessage(message);
      } catch (e) {
        throw namingKeyFlag(keyArg, e);
      }
    },
  });
}
