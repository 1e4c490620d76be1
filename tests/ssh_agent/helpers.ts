/**
 * Test helpers for the SSH agent client, written from the formats' definitions (RFC 4251 §5,
 * RFC 5656 §3.1, draft-miller-ssh-agent) and sharing no code with `lib/ssh_agent/`: SSH wire
 * encoding, key lines, and a fake agent on a Unix socket that answers what a test tells it to.
 *
 * @module
 */
import { p256 } from "@noble/curves/nist.js";

export const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
export const N: bigint = p256.Point.Fn.ORDER;

export function u32(n: number): Uint8Array {
  return new Uint8Array([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
}

export function cat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** SSH `string`. */
export function str(v: Uint8Array | string): Uint8Array {
  const b = typeof v === "string" ? enc(v) : v;
  return cat(u32(b.length), b);
}

/** SSH `mpint` of a non-negative number, minimal (RFC 4251 §5). */
export function mpint(n: bigint): Uint8Array {
  if (n === 0n) return str(new Uint8Array());
  let hex = n.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  let bytes: Uint8Array = Uint8Array.from(hex.match(/../g)!.map((h) => parseInt(h, 16)));
  if (bytes[0] & 0x80) bytes = cat(new Uint8Array([0]), bytes);
  return str(bytes);
}

/** Standard padded Base64. */
export function b64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

/** An `ecdsa-sha2-nistp256` key blob (RFC 5656 §3.1) for the 65-byte point `q`. */
export function p256Blob(q: Uint8Array): Uint8Array {
  return cat(str("ecdsa-sha2-nistp256"), str("nistp256"), str(q));
}

/** An OpenSSH public key line. */
export function keyLine(type: string, blob: Uint8Array, comment = "test@host"): string {
  return `${type} ${b64(blob)} ${comment}\n`;
}

/** An agent message: `uint32 length`, `byte type`, contents. */
export function message(type: number, contents: Uint8Array = new Uint8Array()): Uint8Array {
  return cat(u32(1 + contents.length), new Uint8Array([type]), contents);
}

/** An `ecdsa-sha2-nistp256` signature blob (RFC 5656 §3.1.2). */
export function sshSignature(r: bigint, s: bigint, type = "ecdsa-sha2-nistp256"): Uint8Array {
  return str(cat(str(type), str(cat(mpint(r), mpint(s)))));
}

/** r and s of a DER ECDSA-Sig-Value (short form lengths only: P-256 fits). */
export function derScalars(der: Uint8Array): { r: bigint; s: bigint } {
  const read = (at: number): [bigint, number] => {
    if (der[at] !== 2) throw new Error("not an INTEGER");
    const len = der[at + 1];
    let n = 0n;
    for (const b of der.subarray(at + 2, at + 2 + len)) n = (n << 8n) | BigInt(b);
    return [n, at + 2 + len];
  };
  if (der[0] !== 0x30) throw new Error("not a SEQUENCE");
  const [r, next] = read(2);
  const [s] = read(next);
  return { r, s };
}

/** What the fake agent does with one request: bytes to send, close at once, or never answer. */
export type FakeAnswer = Uint8Array | "close" | "hang";

/** A fake agent: `answer` gets each request's type and contents. */
export async function withFakeAgent(
  answer: (type: number, contents: Uint8Array) => FakeAnswer,
  fn: (socket: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-fake-agent-" });
  const socket = `${dir}/agent.sock`;
  const listener = Deno.listen({ transport: "unix", path: socket });
  const open = new Set<Deno.Conn>();
  const handle = async (conn: Deno.Conn) => {
    const readN = async (n: number): Promise<Uint8Array | null> => {
      const buf = new Uint8Array(n);
      let got = 0;
      while (got < n) {
        const r = await conn.read(buf.subarray(got));
        if (r === null) return null;
        got += r;
      }
      return buf;
    };
    try {
      const header = await readN(4);
      if (header === null) return;
      const length = new DataView(header.buffer).getUint32(0);
      const body = await readN(length);
      if (body === null) return;
      const reply = answer(body[0], body.subarray(1));
      if (reply === "hang") return; // kept open until the agent stops
      if (reply !== "close") {
        for (let at = 0; at < reply.length;) at += await conn.write(reply.subarray(at));
      }
    } catch {
      // the client went away
    }
    open.delete(conn);
    try {
      conn.close();
    } catch { /* closed */ }
  };
  const serving = (async () => {
    try {
      for await (const conn of listener) {
        open.add(conn);
        handle(conn);
      }
    } catch { /* listener closed */ }
  })();
  try {
    await fn(socket);
  } finally {
    listener.close();
    for (const conn of open) {
      try {
        conn.close();
      } catch { /* closed */ }
    }
    await serving;
    await Deno.remove(dir, { recursive: true });
  }
}
