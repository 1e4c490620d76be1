/**
 * The signer of a key spec, as every signing command takes it (`--key`): a PEM private key
 * file, or `ssh-agent:PUBFILE`, a key held by an SSH agent and named by its public half
 * (docs/ssh-agent.md). The private key of an agent-held key never enters this process.
 *
 * @module
 */
import type { PrivateKey } from "../../lib/crypto/keys.ts";
import { privateKeySigner, type Signer } from "../../lib/crypto/signer.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { sshAgentSigner } from "../ssh_agent/client.ts";
import {
  type KeyFileOptions,
  loadPrivateKey,
  type PrivateKeyOptions,
  readKeyText,
} from "./private_key.ts";

/** The prefix of a key spec `ssh-agent:PUBFILE`: a key held by an SSH agent. */
export const SSH_AGENT_KEY_PREFIX = "ssh-agent:";

/**
 * Whether a key spec names a key held by an SSH agent (`ssh-agent:PUBFILE`).
 *
 * @example
 * ```ts
 * import { isSshAgentKey } from "./signer.ts";
 * isSshAgentKey("ssh-agent:id_ecdsa.pub"); // true
 * isSshAgentKey("keys/private.pem"); // false
 * ```
 */
export function isSshAgentKey(spec: string): boolean {
  return spec.startsWith(SSH_AGENT_KEY_PREFIX);
}

/** The private key behind each signer {@linkcode keySigner} made. */
const PRIVATE_KEYS = new WeakMap<Signer, PrivateKey>();

/**
 * A signer of `key` (`privateKeySigner`: the same signatures, byte for byte, as signing with
 * the key) whose key {@linkcode privateKeyOf} gives back.
 *
 * @example
 * ```ts
 * import { keySigner, privateKeyOf } from "./signer.ts";
 * import { generateKeyPair } from "../../lib/crypto/keys.ts";
 * const key = generateKeyPair();
 * privateKeyOf(keySigner(key)) === key; // true
 * ```
 */
export function keySigner(key: PrivateKey): Signer {
  const signer = privateKeySigner(key);
  PRIVATE_KEYS.set(signer, key);
  return signer;
}

/**
 * The private key of a signer made by {@linkcode keySigner} or {@linkcode loadSigner} from a
 * key file; `undefined` for an agent-held key (it is not in this process). Batches use it to
 * sign on worker threads, where an agent signer cannot go.
 *
 * @example
 * ```ts ignore
 * import { loadSigner, privateKeyOf } from "./signer.ts";
 * const key = privateKeyOf(await loadSigner("keys/private.pem"));
 * ```
 */
export function privateKeyOf(signer: Signer): PrivateKey | undefined {
  return PRIVATE_KEYS.get(signer);
}

/** How {@linkcode loadSigner} reads a key spec. */
export interface LoadSignerOptions extends KeyFileOptions, PrivateKeyOptions {
  /** Milliseconds one request to the SSH agent may take (its default: a minute). */
  readonly timeoutMs?: number;
}

/**
 * The signer of a key spec:
 *
 * - `PATH`: a PEM private key, loaded as `loadPrivateKey` does (an encrypted key asks
 *   `options.passphrase`), as a {@linkcode keySigner};
 * - `ssh-agent:PUBFILE`: a key held by the SSH agent at `$SSH_AUTH_SOCK`, named by its public
 *   half (the OpenSSH `.pub` line or a PEM public key, read from the file PUBFILE). The agent
 *   is asked at once whether it holds the key.
 *
 * For an agent key, `options.source` is not used: PUBFILE names itself.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for `ssh-agent:` without a file; `KEY_INVALID` (a
 *   PUBFILE that is not a P-256 public key: Ed25519, RSA, a FIDO key, a private key),
 *   `IO_FAILED` (an unreadable file, no agent, the key not loaded: `details.agent` as
 *   `sshAgentSigner` throws them); as `loadPrivateKey`.
 *
 * @example
 * ```ts ignore
 * import { loadSigner } from "./signer.ts";
 * import { signSkillDirWithSigner } from "../../lib/skill/sign.ts";
 * const signer = await loadSigner("ssh-agent:release.pub");
 * const { document } = await signSkillDirWithSigner("pdf-tools", signer, {
 *   domain: "example.com",
 * });
 * ```
 */
export async function loadSigner(
  spec: string,
  options: LoadSignerOptions = {},
): Promise<Signer> {
  if (!isSshAgentKey(spec)) return keySigner((await loadPrivateKey(spec, options)).key);
  const pubFile = spec.slice(SSH_AGENT_KEY_PREFIX.length);
  if (pubFile === "") {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${spec} names no public key file: give ssh-agent:KEY.pub (its OpenSSH .pub line) or ` +
        "ssh-agent:KEY.pem (a PEM public key)",
      { key: spec },
    );
  }
  const text = await readKeyText(pubFile, { ...(options.read ? { read: options.read } : {}) });
  return await sshAgentSigner(text, {
    source: pubFile,
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
  });
}
