/**
 * Signing with a key held by an SSH agent (issue 27 item 2): the private key never enters
 * this process — it stays in `ssh-agent`, on a YubiKey behind the agent's PKCS #11 provider,
 * or in a Secure Enclave agent such as Secretive. We speak the agent protocol ourselves
 * (`protocol.ts`) over the agent's Unix socket, `$SSH_AUTH_SOCK`, one connection per request.
 *
 * An `ecdsa-sha2-nistp256` agent key signs plain ECDSA P-256 over SHA-256 of the data it is
 * sent (RFC 5656 §3.1.2) — the `signMessage` of a `Signer` (`lib/crypto/signer.ts`), which
 * decides what to send for each SchemaPin signature: `SHA-256(canonical)` for a bare §4.1
 * schema signature, the canonical bytes for a document (§4b.5, §21.3).
 *
 * Failures are `SchemaPinError`s saying what to do, with `details.agent` for programs:
 * `unavailable` (no `$SSH_AUTH_SOCK`, no socket, nothing listening), `not-loaded` (the agent
 * does not hold the key: named by both fingerprints), `refused` (`SSH_AGENT_FAILURE`: a
 * confirmation declined, a hardware key not touched), `closed`, `timeout` and
 * `malformed-reply` — all `IO_FAILED` (the tool could not run: exit 2). A key that is not
 * P-256 is `KEY_INVALID` (`public_key.ts`).
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { checkArg, checkKeyArg } from "../../lib/arguments.ts";
import type { PublicKey } from "../../lib/crypto/key_types.ts";
import type { Signer } from "../../lib/crypto/signer.ts";
import {
  type AgentIdentity,
  agentMessage,
  isFailure,
  malformedReply,
  MAX_AGENT_MESSAGE_BYTES,
  messageLength,
  parseIdentitiesAnswer,
  parseSignResponse,
  signRequest,
  SSH_AGENT_IDENTITIES_ANSWER,
  SSH_AGENT_SIGN_RESPONSE,
  SSH_AGENTC_REQUEST_IDENTITIES,
} from "./protocol.ts";
import {
  P256_KEY_TYPE,
  parseSshPublicKey,
  publicKeyFromSshBlob,
  sshFingerprint,
  sshKeyBlob,
  type SshPublicKey,
} from "./public_key.ts";

/**
 * How long one request to the agent may take, connecting included: a minute, because a
 * hardware key may wait for a touch or a PIN before it signs.
 */
export const DEFAULT_AGENT_TIMEOUT_MS = 60_000;

/** Options of {@linkcode sshAgentSigner}. */
export interface SshAgentOptions {
  /** The agent's Unix socket (default: `$SSH_AUTH_SOCK`). */
  socket?: string;
  /** Milliseconds one request may take, connecting included (default 60 000). */
  timeoutMs?: number;
  /** Where the public key came from (a file name), for messages and `details.source`. */
  source?: string;
}

type AgentFailure =
  | "unavailable"
  | "not-loaded"
  | "refused"
  | "closed"
  | "timeout"
  | "malformed-reply";

function agentError(
  agent: AgentFailure,
  message: string,
  details: Record<string, unknown> = {},
): SchemaPinError {
  return new SchemaPinError("IO_FAILED", message, { agent, ...details });
}

const START_AGENT = 'start one with `eval "$(ssh-agent)"` and add the key with `ssh-add`';

/** `options.socket`, else `$SSH_AUTH_SOCK`. */
function agentSocket(options: SshAgentOptions): string {
  if (options.socket !== undefined) {
    checkArg("sshAgentSigner", "options.socket", options.socket, "string");
    if (options.socket !== "") return options.socket;
  }
  let socket: string | undefined;
  try {
    socket = (globalThis as { Deno?: typeof Deno }).Deno?.env.get("SSH_AUTH_SOCK");
  } catch (e) {
    throw agentError(
      "unavailable",
      `cannot read $SSH_AUTH_SOCK: ${(e as Error).message} (allow environment access, or ` +
        "give the socket)",
    );
  }
  if (socket === undefined || socket === "") {
    throw agentError("unavailable", `no SSH agent: $SSH_AUTH_SOCK is not set; ${START_AGENT}`);
  }
  return socket;
}

async function connect(socket: string, where: string): Promise<Deno.Conn> {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (typeof deno?.connect !== "function") {
    throw agentError(
      "unavailable",
      "signing through an SSH agent needs Deno (a Unix socket through Deno.connect)",
    );
  }
  try {
    return await deno.connect({ transport: "unix", path: socket });
  } catch (e) {
    const details = { socket };
    if (e instanceof deno.errors.NotFound) {
      throw agentError(
        "unavailable",
        `no SSH agent: ${socket} does not exist ($SSH_AUTH_SOCK names a socket that is gone); ` +
          START_AGENT,
        details,
      );
    }
    if (e instanceof deno.errors.ConnectionRefused) {
      throw agentError(
        "unavailable",
        `no SSH agent: nothing is listening at ${socket} (the agent has exited); ${START_AGENT}`,
        details,
      );
    }
    if (e instanceof deno.errors.NotCapable) {
      throw agentError(
        "unavailable",
        `not allowed to connect to ${where}: ${(e as Error).message}`,
        details,
      );
    }
    throw agentError("unavailable", `cannot connect to ${where}: ${(e as Error).message}`, details);
  }
}

/** Reads exactly `n` bytes; undefined when the peer closed before the first one. */
async function readExactly(
  conn: Deno.Conn,
  n: number,
  where: string,
): Promise<Uint8Array | undefined> {
  const out = new Uint8Array(n);
  let got = 0;
  while (got < n) {
    const read = await conn.read(out.subarray(got));
    if (read === null) {
      if (got === 0) return undefined;
      throw malformedReply(where, `the message ends after ${got} of its ${n} bytes (truncated)`);
    }
    got += read;
  }
  return out;
}

/** A message type and its contents. */
interface Reply {
  readonly type: number;
  readonly contents: Uint8Array;
}

/** Sends one request on a connection of its own and reads the reply, within `timeoutMs`. */
async function exchange(
  socket: string,
  request: Uint8Array,
  what: string,
  timeoutMs: number,
): Promise<Reply> {
  const where = `the SSH agent at ${socket}`;
  let conn: Deno.Conn | undefined;
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closedEarly = () => {
    const large = request.length > MAX_AGENT_MESSAGE_BYTES
      ? ` (the request is ${request.length} bytes; OpenSSH's ssh-agent drops messages over ` +
        `${MAX_AGENT_MESSAGE_BYTES} bytes)`
      : "";
    return agentError(
      "closed",
      `${where} closed the connection without answering ${what}${large}`,
      { socket },
    );
  };
  const work = (async (): Promise<Reply> => {
    const c = await connect(socket, where);
    if (finished) {
      c.close();
      throw closedEarly();
    }
    conn = c;
    try {
      for (let at = 0; at < request.length;) at += await c.write(request.subarray(at));
    } catch (e) {
      if (e instanceof SchemaPinError) throw e;
      throw closedEarly();
    }
    const header = await readExactly(c, 4, where);
    if (header === undefined) throw closedEarly();
    const length = messageLength(header, where);
    const body = await readExactly(c, length, where);
    if (body === undefined) {
      throw malformedReply(where, `the message ends after its header (truncated)`);
    }
    return { type: body[0], contents: body.subarray(1) };
  })();
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(agentError(
        "timeout",
        `${where} did not answer ${what} within ${timeoutMs / 1000} s`,
        { socket },
      ));
    }, timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    finished = true;
    clearTimeout(timer);
    try {
      conn?.close();
    } catch { /* already closed */ }
    work.catch(() => {}); // a read cut short by close() above
  }
}

/** The keys an agent holds. */
async function agentIdentities(socket: string, timeoutMs: number): Promise<AgentIdentity[]> {
  const where = `the SSH agent at ${socket}`;
  const reply = await exchange(
    socket,
    agentMessage(SSH_AGENTC_REQUEST_IDENTITIES),
    "the request for its keys",
    timeoutMs,
  );
  if (isFailure(reply.type)) {
    throw agentError("refused", `${where} refused to list its keys`, { socket });
  }
  if (reply.type !== SSH_AGENT_IDENTITIES_ANSWER) {
    throw malformedReply(where, `message type ${reply.type} in answer to the request for keys`);
  }
  return parseIdentitiesAnswer(reply.contents, where);
}

/** The blob under which the agent holds `key` (compared by public key, not by bytes). */
function findKey(identities: readonly AgentIdentity[], key: PublicKey): AgentIdentity | undefined {
  return identities.find((identity) => {
    if (identity.type !== P256_KEY_TYPE) return false;
    try {
      return publicKeyFromSshBlob(identity.keyBlob).fingerprint === key.fingerprint;
    } catch {
      return false;
    }
  });
}

function describeHeld(identities: readonly AgentIdentity[]): string {
  if (identities.length === 0) return "it holds no keys";
  const shown = identities.slice(0, 8).map((k) =>
    `${k.type} ${sshFingerprint(k.keyBlob)}${k.comment === "" ? "" : ` (${k.comment})`}`
  );
  const more = identities.length > shown.length ? `, and ${identities.length - 8} more` : "";
  return `it holds ${shown.join("; ")}${more}`;
}

/**
 * A {@linkcode Signer} whose key is held by an SSH agent: the public key is given (the key's
 * OpenSSH `.pub` line or a PEM `PUBLIC KEY`, or a parsed `PublicKey`), the signatures are made
 * by the agent at `$SSH_AUTH_SOCK`. The agent is asked at once whether it holds the key, so a
 * key that is not loaded is reported here, before anything is signed. Each signature is one
 * `SSH_AGENTC_SIGN_REQUEST` on a connection of its own.
 *
 * Give the signer to the `…WithSigner` signing functions (`signSchemaDocumentWithSigner`,
 * `signSkillDirWithSigner`, `signTrustBundleWithSigner`, `signLockWithSigner`,
 * `signToolListWithSigner`, `signSchemaWithSigner`): they send the agent the right bytes for
 * each kind of signature and check what it returns.
 *
 * Deno only (the socket is opened with `Deno.connect`), with read, write and net permission on
 * the socket (`--allow-read --allow-write --allow-net`, the last one narrowed to
 * `unix:<socket>` if wanted) and environment access for `$SSH_AUTH_SOCK`.
 *
 * @throws {SchemaPinError} `KEY_INVALID` for a key that is not `ecdsa-sha2-nistp256` (Ed25519,
 *   RSA, P-384, P-521 named by type; FIDO `sk-` keys with the reason) or a malformed key file;
 *   `IO_FAILED` with `details.agent` `unavailable` (no agent), `not-loaded` (the agent does
 *   not hold the key; both fingerprints named), `refused`, `closed`, `timeout` or
 *   `malformed-reply`. `signMessage` throws the same `IO_FAILED` errors, `refused` when the
 *   agent answers `SSH_AGENT_FAILURE`.
 *
 * @example
 * ```ts
 * import { sshAgentSigner } from "./client.ts";
 * import { signSchemaDocumentWithSigner } from "../../lib/schema/document.ts";
 * const pub = await Deno.readTextFile("id_ecdsa.pub"); // ecdsa-sha2-nistp256 AAAA… me@host
 * const signer = await sshAgentSigner(pub, { source: "id_ecdsa.pub" });
 * const document = await signSchemaDocumentWithSigner({ name: "add" }, signer, {
 *   domain: "example.com",
 * });
 * console.log(signer.publicKey.fingerprint, document.signature);
 * ```
 */
export async function sshAgentSigner(
  publicKey: string | PublicKey,
  options: SshAgentOptions = {},
): Promise<Signer> {
  checkArg("sshAgentSigner", "options", options, "object");
  checkArg("sshAgentSigner", "options.source", options.source, "string", true);
  checkArg("sshAgentSigner", "options.timeoutMs", options.timeoutMs, "number", true);
  const timeoutMs = options.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS;
  if (!(timeoutMs > 0 && timeoutMs <= 2 ** 31 - 1)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      "sshAgentSigner: options.timeoutMs must be a positive number of milliseconds",
      { function: "sshAgentSigner", argument: "options.timeoutMs" },
    );
  }
  let key: SshPublicKey;
  if (typeof publicKey === "string") {
    key = parseSshPublicKey(publicKey, options.source);
  } else {
    checkKeyArg("sshAgentSigner", "publicKey", publicKey, "public");
    const blob = sshKeyBlob(publicKey);
    key = { publicKey, keyBlob: blob, comment: "", sshFingerprint: sshFingerprint(blob) };
  }
  const socket = agentSocket(options);
  const where = `the SSH agent at ${socket}`;
  const names = `${key.publicKey.fingerprint} (${key.sshFingerprint}` +
    `${options.source === undefined ? "" : `, ${options.source}`})`;
  const identities = await agentIdentities(socket, timeoutMs);
  const held = findKey(identities, key.publicKey);
  if (held === undefined) {
    throw agentError(
      "not-loaded",
      `${where} does not hold the key ${names}: add it with \`ssh-add\` (a YubiKey PIV key: ` +
        `\`ssh-add -s\` with the PKCS #11 library); ${describeHeld(identities)}`,
      {
        socket,
        fingerprint: key.publicKey.fingerprint,
        sshFingerprint: key.sshFingerprint,
        ...(options.source === undefined ? {} : { source: options.source }),
      },
    );
  }
  return Object.freeze({
    publicKey: key.publicKey,
    description: where,
    signMessage: async (message: Uint8Array): Promise<Uint8Array> => {
      checkArg("signMessage", "message", message, "bytes");
      const reply = await exchange(
        socket,
        signRequest(held.keyBlob, message),
        "the sign request",
        timeoutMs,
      );
      if (isFailure(reply.type)) {
        throw agentError(
          "refused",
          `${where} refused to sign with the key ${names} (SSH_AGENT_FAILURE): a key added ` +
            "with `ssh-add -c` whose confirmation was declined or could not be asked, a " +
            "hardware key that was not touched or whose PIN was not given, or a key removed " +
            "since",
          { socket, fingerprint: key.publicKey.fingerprint },
        );
      }
      if (reply.type !== SSH_AGENT_SIGN_RESPONSE) {
        throw malformedReply(where, `message type ${reply.type} in answer to the sign request`);
      }
      return parseSignResponse(reply.contents, where);
    },
  });
}
