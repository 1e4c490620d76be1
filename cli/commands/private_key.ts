/**
 * `--key` for every signing command — a PEM private key, and the passphrase of an encrypted
 * key (§9 "Private Key Storage": keys encrypted at rest), or `ssh-agent:PUBFILE`, a key held by
 * an SSH agent (docs/ssh-agent.md) — loaded by cli/keys/key_spec.ts with the CLI's reader (`-`
 * is stdin), terminal prompt, and notes and warnings on stderr. The passphrase comes from
 * `--passphrase-file`, `SCHEMAPIN_PASSPHRASE` or the terminal (cli/keys/passphrase.ts); with
 * none of them and no terminal, the command exits 2 naming the first two. The passphrase is
 * never printed, logged or put in an error.
 *
 * @module
 */
import type { PrivateKey, PublicKey } from "../../lib/crypto/keys.ts";
import type { Signer } from "../../lib/crypto/signer.ts";
import {
  type KeySpecOptions,
  loadPrivateKeyWithPassphrase,
  loadPublicKeyWithPassphrase,
  loadSignerWithPassphrase,
} from "../keys/key_spec.ts";
import { isSshAgentKey, SSH_AGENT_KEY_PREFIX } from "../keys/signer.ts";
import { lookUpPassphrase } from "../keys/passphrase.ts";
import { readHiddenLine } from "../keys/hidden_line.ts";
import { sourceName } from "../../lib/schema/input.ts";
import { asUsage, type CliIO, UsageError } from "./command.ts";
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
  /** Reads an environment variable (default: `readEnvironment` of cli/keys/passphrase.ts). */
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

/**
 * The sources of lib/keys/ for `--key` and `--passphrase-file`: the CLI's reader (`-` is
 * stdin), environment, prompt, and notes and warnings on stderr.
 */
function cliKeyOptions(io: CliIO, sources: PassphraseSources): KeySpecOptions {
  const prompt = sources.prompt ?? terminalPassphrasePrompt;
  const file = sources.passphraseFile;
  return {
    passphraseFile: file,
    read: (path) => readInput(path, io),
    source: file === undefined ? undefined : sourceName(file),
    getEnv: sources.getEnv,
    prompt: (question) => prompt(question, io),
    onNote: (message) => io.stderr(`note: ${message}\n`),
    onWarning: (message) => io.stderr(`warning: ${message}\n`),
    otherwise: sources.otherwise,
  };
}

/**
 * Gets a passphrase from `--passphrase-file`, else `SCHEMAPIN_PASSPHRASE`, else the terminal
 * (asking twice when `confirm`, for a new key): `lookUpPassphrase` of cli/keys/passphrase.ts
 * with the CLI's sources.
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
  return await asUsage(
    sources.command,
    () => lookUpPassphrase(purpose, cliKeyOptions(io, sources), confirm),
  );
}

/**
 * The options of cli/keys/key_spec.ts for `--key PATH`; an empty PATH is a usage error, and
 * `--key -` and `--passphrase-file -` cannot both read stdin.
 */
function keyFileOptions(path: string, io: CliIO, sources: PassphraseSources): KeySpecOptions {
  if (path === "") throw new UsageError(`${sources.command}: --key needs a path`);
  if (path === "-" && sources.passphraseFile === "-") {
    throw new UsageError(`${sources.command}: --key and --passphrase-file cannot both be stdin`);
  }
  return { ...cliKeyOptions(io, sources), keySource: sourceName(path) };
}

/**
 * Reads `--key PATH` (or stdin for `-`): a private key, unencrypted or encrypted
 * (`loadPrivateKeyWithPassphrase` of cli/keys/key_spec.ts).
 *
 * @throws {SchemaPinError} `KEY_INVALID`, `IO_FAILED`; {@linkcode UsageError} as
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
  const options = keyFileOptions(path, io, sources);
  return await asUsage(sources.command, () => loadPrivateKeyWithPassphrase(path, options));
}

/**
 * Reads `--key PATH` where only the public key is needed (`well-known`, `revoke`, `dns`,
 * `pins`): a public key PEM, or a private key loaded as {@linkcode loadPrivateKey} does
 * (`loadPublicKeyWithPassphrase` of cli/keys/key_spec.ts).
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
  const options = keyFileOptions(path, io, sources);
  return await asUsage(sources.command, () => loadPublicKeyWithPassphrase(path, options));
}

/**
 * The signer of `--key` for every signing command (`loadSignerWithPassphrase` of
 * cli/keys/key_spec.ts): `PATH` (or `-`, stdin), a PEM private key loaded as
 * {@linkcode loadPrivateKey} does, or `ssh-agent:PUBFILE`, a key held by the SSH agent at
 * `$SSH_AUTH_SOCK`, whose every failure names the flag's value (`--key ssh-agent:key.pub: …`).
 *
 * @throws {UsageError} `--passphrase-file` with an agent key, an empty or `-` PUBFILE; as
 *   {@linkcode loadPrivateKey}.
 * @throws {SchemaPinError} `KEY_INVALID` (a PUBFILE that is not a P-256 public key),
 *   `IO_FAILED` (an unreadable PUBFILE, no agent, the key not loaded); as
 *   {@linkcode loadPrivateKey}.
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
  if (isSshAgentKey(keyArg) && ["", "-"].includes(keyArg.slice(SSH_AGENT_KEY_PREFIX.length))) {
    throw new UsageError(
      `${sources.command}: --key ${keyArg}: give the key's public half as a file: ` +
        "ssh-agent:KEY.pub (its OpenSSH .pub line, `ssh-add -L` shows it) or ssh-agent:KEY.pem " +
        "(a PEM public key)",
    );
  }
  return await asUsage(sources.command, () =>
    loadSignerWithPassphrase(keyArg, {
      ...keyFileOptions(keyArg, io, sources),
      label: `--key ${keyArg}`,
      ...options,
    }));
}
