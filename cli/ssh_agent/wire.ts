/**
 * The SSH wire encoding (RFC 4251 §5) that key blobs, signature blobs and agent messages are
 * made of: `uint32` (big-endian), `string` (a `uint32` length, then the bytes) and `mpint`
 * (a `string` holding a two's-complement big-endian integer, minimal: no needless leading
 * byte, a leading zero only when the high bit of a positive number is set).
 *
 * Reading is strict: every length is checked against what is left, and {@linkcode SshReader.finish}
 * refuses trailing bytes. What a failure is called (`KEY_INVALID` for a key, `IO_FAILED` for
 * an agent's reply) is the caller's: the reader reports through its `fail` function.
 *
 * @module
 */

/** Throws the caller's error for a malformed field (`what` names it, `offset` is where). */
export type WireFail = (message: string, offset: number) => never;

/**
 * A strict reader over SSH wire-encoded bytes.
 *
 * @example
 * ```ts
 * import { SshReader, sshString } from "./wire.ts";
 * const fail = (m: string): never => {
 *   throw new Error(m);
 * };
 * const r = new SshReader(sshString(new TextEncoder().encode("nistp256")), fail);
 * r.text("curve"); // "nistp256"
 * r.finish("blob");
 * ```
 */
export class SshReader {
  #bytes: Uint8Array;
  #offset = 0;
  #fail: WireFail;

  /** Reads `bytes`; malformed input is reported through `fail`. */
  constructor(bytes: Uint8Array, fail: WireFail) {
    this.#bytes = bytes;
    this.#fail = fail;
  }

  /** The offset of the next byte to read. */
  get offset(): number {
    return this.#offset;
  }

  /** How many bytes are left. */
  get remaining(): number {
    return this.#bytes.length - this.#offset;
  }

  /** One byte. */
  byte(what: string): number {
    if (this.remaining < 1) this.#fail(`${what}: no byte left`, this.#offset);
    return this.#bytes[this.#offset++];
  }

  /** A big-endian `uint32`. */
  uint32(what: string): number {
    if (this.remaining < 4) {
      this.#fail(`${what}: a uint32 needs 4 bytes, ${this.remaining} left`, this.#offset);
    }
    const b = this.#bytes;
    const o = this.#offset;
    this.#offset += 4;
    return ((b[o] << 24) >>> 0) + (b[o + 1] << 16) + (b[o + 2] << 8) + b[o + 3];
  }

  /** A `string`: its bytes (a view, not a copy). */
  string(what: string): Uint8Array {
    const at = this.#offset;
    const length = this.uint32(`${what} length`);
    if (length > this.remaining) {
      this.#fail(`${what}: length ${length} but only ${this.remaining} bytes left`, at);
    }
    const out = this.#bytes.subarray(this.#offset, this.#offset + length);
    this.#offset += length;
    return out;
  }

  /** A `string` holding ASCII text (a key type, a curve name). */
  text(what: string): string {
    const at = this.#offset;
    const bytes = this.string(what);
    for (const b of bytes) {
      if (b < 0x20 || b > 0x7e) this.#fail(`${what} is not printable ASCII`, at);
    }
    return String.fromCharCode(...bytes);
  }

  /** A non-negative `mpint` in its one minimal encoding (RFC 4251 §5). */
  mpint(what: string): bigint {
    const at = this.#offset;
    const bytes = this.string(what);
    if (bytes.length === 0) return 0n;
    if (bytes[0] & 0x80) this.#fail(`${what} is negative`, at);
    if (bytes[0] === 0 && (bytes.length === 1 || !(bytes[1] & 0x80))) {
      this.#fail(`${what} has a needless leading zero byte (not the minimal encoding)`, at);
    }
    let n = 0n;
    for (const b of bytes) n = (n << 8n) | BigInt(b);
    return n;
  }

  /** Fails unless every byte was read. */
  finish(what: string): void {
    if (this.remaining !== 0) {
      this.#fail(`${what}: ${this.remaining} unexpected bytes at the end`, this.#offset);
    }
  }
}

/**
 * `uint32` big-endian.
 *
 * @example
 * ```ts
 * import { sshUint32 } from "./wire.ts";
 * sshUint32(258); // Uint8Array [0, 0, 1, 2]
 * ```
 */
export function sshUint32(n: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

/**
 * A `string`: the length, then the bytes (text is encoded as UTF-8).
 *
 * @example
 * ```ts
 * import { sshString } from "./wire.ts";
 * sshString("ab"); // Uint8Array [0, 0, 0, 2, 97, 98]
 * ```
 */
export function sshString(bytes: Uint8Array | string): Uint8Array<ArrayBuffer> {
  const body = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  return concatBytes(sshUint32(body.length), body);
}

/**
 * The concatenation of `parts`.
 *
 * @example
 * ```ts
 * import { concatBytes } from "./wire.ts";
 * concatBytes(new Uint8Array([1]), new Uint8Array([2, 3])); // Uint8Array [1, 2, 3]
 * ```
 */
export function concatBytes(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
