/**
 * The messages of the SSH agent protocol that signing needs (draft-miller-ssh-agent §3, §4.4,
 * §4.5), encoded and decoded without I/O. Every message is `uint32 length`, `byte type`, then
 * the contents; `length` counts the type byte and the contents.
 *
 * - `SSH_AGENTC_REQUEST_IDENTITIES` (11) → `SSH_AGENT_IDENTITIES_ANSWER` (12): `uint32 nkeys`,
 *   then `string key blob`, `string comment` per key;
 * - `SSH_AGENTC_SIGN_REQUEST` (13: `string key blob`, `string data`, `uint32 flags`) →
 *   `SSH_AGENT_SIGN_RESPONSE` (14: `string signature`);
 * - `SSH_AGENT_FAILURE` (5) to either: the agent refuses.
 *
 * An `ecdsa-sha2-nistp256` signature (RFC 5656 §3.1.2) is `string "ecdsa-sha2-nistp256"`,
 * `string (mpint r, mpint s)`, made over SHA-256 of the data sent: it becomes a DER
 * `ECDSA-Sig-Value`, normalised to low-S (see `lib/crypto/signer.ts`).
 *
 * Replies are read strictly — each length against what is there, no trailing bytes — and
 * capped at {@linkcode MAX_AGENT_MESSAGE_BYTES}. A malformed reply is `IO_FAILED` naming the
 * agent and the field.
 *
 * @module
 */
import { p256 } from "@noble/curves/nist.js";
import { SchemaPinError } from "../../lib/errors.ts";
import { encodeEcdsaDer } from "../../lib/crypto/der.ts";
import { P256_KEY_TYPE } from "./public_key.ts";
import { concatBytes, SshReader, sshString, sshUint32 } from "./wire.ts";

const N = p256.Point.Fn.ORDER;

/** `SSH_AGENT_FAILURE`: the agent refuses the request. */
export const SSH_AGENT_FAILURE = 5;
/** `SSH_AGENTC_REQUEST_IDENTITIES`: which keys do you hold? */
export const SSH_AGENTC_REQUEST_IDENTITIES = 11;
/** `SSH_AGENT_IDENTITIES_ANSWER`: the keys. */
export const SSH_AGENT_IDENTITIES_ANSWER = 12;
/** `SSH_AGENTC_SIGN_REQUEST`: sign this data with this key. */
export const SSH_AGENTC_SIGN_REQUEST = 13;
/** `SSH_AGENT_SIGN_RESPONSE`: the signature. */
export const SSH_AGENT_SIGN_RESPONSE = 14;
/**
 * Failure codes of older agents that OpenSSH's own client also reads as a refusal
 * (`SSH2_AGENT_FAILURE` 30, `SSH_COM_AGENT2_FAILURE` 102).
 */
const LEGACY_FAILURES: readonly number[] = [30, 102];

/**
 * The largest message read from an agent, and the largest OpenSSH's `ssh-agent` accepts
 * (`AGENT_MAX_LEN`, 256 KiB). A reply announcing more is refused before it is read.
 */
export const MAX_AGENT_MESSAGE_BYTES = 256 * 1024;

/** The error of a malformed reply from `where` (the agent, in words). */
export function malformedReply(where: string, message: string): SchemaPinError {
  return new SchemaPinError(
    "IO_FAILED",
    `${where} sent a malformed reply: ${message}`,
    { agent: "malformed-reply" },
  );
}

/**
 * A framed agent message: `uint32 length`, `byte type`, `contents`.
 *
 * @example
 * ```ts
 * import { agentMessage, SSH_AGENTC_REQUEST_IDENTITIES } from "./protocol.ts";
 * agentMessage(SSH_AGENTC_REQUEST_IDENTITIES); // Uint8Array [0, 0, 0, 1, 11]
 * ```
 */
export function agentMessage(
  type: number,
  contents: Uint8Array = new Uint8Array(),
): Uint8Array<ArrayBuffer> {
  return concatBytes(sshUint32(1 + contents.length), new Uint8Array([type]), contents);
}

/**
 * `SSH_AGENTC_SIGN_REQUEST` for `data` with the key `keyBlob` (flags 0: the flags select RSA
 * hashes only).
 *
 * @example
 * ```ts
 * import { signRequest } from "./protocol.ts";
 * signRequest(new Uint8Array([1]), new Uint8Array([2]))[4]; // 13
 * ```
 */
export function signRequest(keyBlob: Uint8Array, data: Uint8Array): Uint8Array<ArrayBuffer> {
  return agentMessage(
    SSH_AGENTC_SIGN_REQUEST,
    concatBytes(sshString(keyBlob), sshString(data), sshUint32(0)),
  );
}

/**
 * The length a message header announces (`header` is its first 4 bytes), checked: at least
 * the type byte, at most {@linkcode MAX_AGENT_MESSAGE_BYTES}.
 *
 * @throws {SchemaPinError} `IO_FAILED` for a zero or oversized length.
 *
 * @example
 * ```ts
 * import { messageLength } from "./protocol.ts";
 * messageLength(new Uint8Array([0, 0, 0, 5]), "the SSH agent"); // 5
 * ```
 */
export function messageLength(header: Uint8Array, where: string): number {
  const length = new DataView(header.buffer, header.byteOffset, 4).getUint32(0);
  if (length === 0) throw malformedReply(where, "a message of length 0 (no type byte)");
  if (length > MAX_AGENT_MESSAGE_BYTES) {
    throw malformedReply(
      where,
      `a message of ${length} bytes announced, more than the ${MAX_AGENT_MESSAGE_BYTES} ` +
        "an agent message may have",
    );
  }
  return length;
}

/** A message type that says "refused", for the caller to word. */
export function isFailure(type: number): boolean {
  return type === SSH_AGENT_FAILURE || LEGACY_FAILURES.includes(type);
}

/** A key an agent holds. */
export interface AgentIdentity {
  /** The key blob. */
  readonly keyBlob: Uint8Array;
  /** Its type, read from the blob (`ecdsa-sha2-nistp256`, `ssh-ed25519`, …). */
  readonly type: string;
  /** The comment the key was added with. */
  readonly comment: string;
}

function reader(bytes: Uint8Array, where: string, what: string): SshReader {
  return new SshReader(bytes, (message, offset) => {
    throw malformedReply(where, `${what}: ${message} (byte ${offset})`);
  });
}

/**
 * Decodes the contents of `SSH_AGENT_IDENTITIES_ANSWER` (after the type byte).
 *
 * @throws {SchemaPinError} `IO_FAILED` for a malformed answer.
 *
 * @example
 * ```ts
 * import { parseIdentitiesAnswer } from "./protocol.ts";
 * parseIdentitiesAnswer(new Uint8Array([0, 0, 0, 0]), "the SSH agent"); // []
 * ```
 */
export function parseIdentitiesAnswer(contents: Uint8Array, where: string): AgentIdentity[] {
  const r = reader(contents, where, "identities answer");
  const count = r.uint32("number of keys");
  // Each key takes at least two empty strings (8 bytes): a larger count cannot be true.
  if (count > r.remaining / 8) {
    throw malformedReply(where, `${count} keys announced in ${r.remaining} bytes`);
  }
  const out: AgentIdentity[] = [];
  for (let i = 0; i < count; i++) {
    const keyBlob = r.string(`key ${i + 1} blob`);
    const comment = new TextDecoder().decode(r.string(`key ${i + 1} comment`));
    let type = "";
    try {
      type = reader(keyBlob, where, `key ${i + 1}`).text("key type");
    } catch {
      // A blob we cannot read is not ours; it can still be listed (type unknown).
      type = "(unreadable)";
    }
    out.push(Object.freeze({ keyBlob, type, comment }));
  }
  r.finish("identities answer");
  return out;
}

/**
 * Decodes the contents of `SSH_AGENT_SIGN_RESPONSE` (after the type byte): the
 * `ecdsa-sha2-nistp256` signature (RFC 5656 §3.1.2) as DER, low-S.
 *
 * @throws {SchemaPinError} `IO_FAILED` for a malformed response or a signature of another
 *   type, or with r or s outside 1 … n − 1.
 *
 * @example
 * ```ts
 * import { sshString } from "./wire.ts";
 * import { parseSignResponse } from "./protocol.ts";
 * const mpints = new Uint8Array([0, 0, 0, 1, 1, 0, 0, 0, 1, 2]); // r = 1, s = 2
 * const sig = sshString(new Uint8Array([...sshString("ecdsa-sha2-nistp256"), ...sshString(mpints)]));
 * parseSignResponse(sig, "the SSH agent"); // Uint8Array [0x30, 6, 2, 1, 1, 2, 1, 2]
 * ```
 */
export function parseSignResponse(contents: Uint8Array, where: string): Uint8Array<ArrayBuffer> {
  const outer = reader(contents, where, "sign response");
  const signature = outer.string("signature");
  outer.finish("sign response");
  const sig = reader(signature, where, "signature");
  const type = sig.text("signature type");
  if (type !== P256_KEY_TYPE) {
    throw malformedReply(
      where,
      `a signature of type ${JSON.stringify(type)}, not ${P256_KEY_TYPE}`,
    );
  }
  const blob = reader(sig.string("signature blob"), where, "signature blob");
  sig.finish("signature");
  const r = blob.mpint("r");
  let s = blob.mpint("s");
  blob.finish("signature blob");
  if (r < 1n || r >= N || s < 1n || s >= N) {
    throw malformedReply(where, "the signature's r or s is not in 1 … n − 1");
  }
  if (s > N >> 1n) s = N - s; // low-S: the same signature's other valid s
  return encodeEcdsaDer({ r, s });
}
