/**
 * The byte stream of one connection of the HTTP/1.1 server (lib/http/server.ts): plain TCP on
 * a `Deno.Conn`, or TLS by `node:tls` on top of that same TCP connection (not
 * `Deno.listenTls`: the module documentation of lib/http/server.ts says why).
 *
 * @module
 */
import { Duplex } from "node:stream";
import type net from "node:net";
import tls from "node:tls";
import { SchemaPinError } from "../errors.ts";

/** Bytes asked of the TCP connection per read. */
export const READ_CHUNK = 16 * 1024;
/** Bytes read ahead while a request is in progress (to see the client go away). */
export const READ_AHEAD = 64 * 1024;

/**
 * The byte stream of one connection: plain TCP, or TLS on top of it.
 *
 * @example
 * ```ts
 * import type { Transport } from "./transport.ts";
 * async function readAll(t: Transport): Promise<number> {
 *   let n = 0;
 *   for (let chunk = await t.read(); chunk !== null; chunk = await t.read()) n += chunk.length;
 *   return n;
 * }
 * ```
 */
export interface Transport {
  /** The next bytes (valid until the next call), or null at the end of the stream. */
  read(): Promise<Uint8Array | null>;
  /** Writes all of `bytes`. */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the sending side (the client sees the end of the stream; reading goes on). */
  closeWrite(): void;
  /**
   * After the end of the client's stream: false when the connection was reset (the client
   * closed it and reads nothing more), true when it only half-closed. (Deno reports both as
   * the end of the stream; an empty write fails on a reset connection only.)
   */
  alive(): Promise<boolean>;
  /** Closes the connection at once (its file descriptor is released). */
  close(): void;
}

/**
 * Plain TCP.
 *
 * @example
 * ```ts ignore
 * import { TcpTransport } from "./transport.ts";
 * const transport = new TcpTransport(await listener.accept());
 * await transport.write(new TextEncoder().encode("HTTP/1.1 204 No Content\r\n\r\n"));
 * transport.close();
 * ```
 */
export class TcpTransport implements Transport {
  #scratch: Uint8Array | undefined;

  /** The transport of `conn`. */
  constructor(readonly conn: Deno.Conn) {}

  /** See {@linkcode Transport.read}. */
  async read(): Promise<Uint8Array | null> {
    this.#scratch ??= new Uint8Array(READ_CHUNK);
    const n = await this.conn.read(this.#scratch);
    return n === null ? null : this.#scratch.subarray(0, n);
  }

  /** See {@linkcode Transport.write}. */
  async write(bytes: Uint8Array): Promise<void> {
    let n = 0;
    while (n < bytes.length) n += await this.conn.write(bytes.subarray(n));
  }

  /** See {@linkcode Transport.closeWrite}. */
  closeWrite(): void {
    this.conn.closeWrite().catch(() => {});
  }

  /** See {@linkcode Transport.alive}. */
  alive(): Promise<boolean> {
    return aliveAfterEnd(this.conn);
  }

  /** See {@linkcode Transport.close}. */
  close(): void {
    try {
      this.conn.close();
    } catch { /* already closed */ }
  }
}

/** See {@linkcode Transport.alive}. */
function aliveAfterEnd(conn: Deno.Conn): Promise<boolean> {
  return conn.write(new Uint8Array(0)).then(() => true, () => false);
}

/** A TCP connection as a Node stream, for `node:tls` to run TLS on. */
function duplexOf(conn: Deno.Conn): Duplex {
  const tcp = new TcpTransport(conn);
  return new Duplex({
    read() {
      tcp.read().then(
        (chunk) => this.push(chunk === null ? null : chunk.slice()),
        (e) => this.destroy(e),
      );
    },
    write(chunk: Uint8Array, _encoding, callback) {
      tcp.write(chunk).then(() => callback(), callback);
    },
    final(callback) {
      conn.closeWrite().then(() => callback(), () => callback());
    },
    destroy(error, callback) {
      tcp.close();
      callback(error);
    },
  });
}

/** The connection ended or failed: nothing more can be written to it. */
function closedError(message: string): SchemaPinError {
  return new SchemaPinError("IO_FAILED", message);
}

/**
 * TLS by `node:tls` on top of our own TCP connection (not `Deno.listenTls`): the TCP socket
 * gets TCP_NODELAY, and closing a connection that never finished its handshake releases its
 * file descriptor at once. (A `Deno.TlsConn` closed before its handshake keeps the descriptor
 * until the client sends or closes — measured on Deno 2.9.6 — so a handshake timeout could
 * not free anything.) Measured: as fast as `Deno.listenTls` for the same responses.
 *
 * @example
 * ```ts ignore
 * import tls from "node:tls";
 * import { TlsTransport } from "./transport.ts";
 * const transport = new TlsTransport(await listener.accept(), tls.createSecureContext({ cert, key }));
 * await transport.secure; // the handshake is done
 * ```
 */
export class TlsTransport implements Transport {
  readonly #socket: tls.TLSSocket;
  readonly #chunks: Uint8Array[] = [];
  #buffered = 0;
  #ended = false;
  #failed: Error | undefined;
  #wake: (() => void) | undefined;
  readonly #closed: Promise<never>;
  /** Resolves when the handshake is done; rejects when the connection ends first. */
  readonly secure: Promise<void>;

  readonly #conn: Deno.Conn;

  /** TLS with `context` on `conn` (the handshake starts at once). */
  constructor(conn: Deno.Conn, context: tls.SecureContext) {
    this.#conn = conn;
    const socket = new tls.TLSSocket(duplexOf(conn) as unknown as net.Socket, {
      isServer: true,
      secureContext: context,
      ALPNProtocols: ["http/1.1"],
    });
    this.#socket = socket;
    let closed: (e: Error) => void = () => {};
    this.#closed = new Promise<never>((_, reject) => closed = reject);
    this.#closed.catch(() => {});
    let secured = false;
    this.secure = new Promise<void>((resolve, reject) => {
      socket.once("secure", () => {
        secured = true;
        resolve();
      });
      this.#closed.catch(reject);
    });
    this.secure.catch(() => {});
    socket.on("data", (d: Uint8Array) => {
      this.#chunks.push(d);
      this.#buffered += d.length;
      if (this.#buffered >= READ_AHEAD) socket.pause();
      this.#wake?.();
    });
    // The end of the client's stream ends reading only (a half-closed client is still
    // answered); a reset or a closed socket ends writing too.
    const ended = () => {
      this.#ended = true;
      this.#wake?.();
    };
    socket.on("end", () => {
      ended();
      if (!secured) closed(closedError("the connection ended before its handshake"));
    });
    socket.on("close", () => {
      ended();
      closed(closedError("the connection is closed"));
    });
    socket.on("error", (e: Error) => {
      this.#failed = e;
      ended();
      closed(e);
    });
  }

  /** See {@linkcode Transport.read}. */
  async read(): Promise<Uint8Array | null> {
    while (this.#chunks.length === 0) {
      if (this.#failed) throw this.#failed;
      if (this.#ended) return null;
      await new Promise<void>((r) => this.#wake = r);
      this.#wake = undefined;
    }
    const chunk = this.#chunks.shift()!;
    this.#buffered -= chunk.length;
    if (this.#socket.isPaused() && this.#buffered < READ_AHEAD / 2) this.#socket.resume();
    return chunk;
  }

  /** See {@linkcode Transport.write}. */
  write(bytes: Uint8Array): Promise<void> {
    if (this.#ended) return Promise.reject(closedError("the connection is closed"));
    return Promise.race([
      new Promise<void>((resolve, reject) =>
        this.#socket.write(bytes, (e) => e ? reject(e) : resolve())
      ),
      this.#closed,
    ]);
  }

  /** See {@linkcode Transport.closeWrite}. */
  closeWrite(): void {
    this.#socket.end();
  }

  /** See {@linkcode Transport.alive}. */
  alive(): Promise<boolean> {
    return this.#failed ? Promise.resolve(false) : aliveAfterEnd(this.#conn);
  }

  /** See {@linkcode Transport.close}. */
  close(): void {
    this.#ended = true;
    this.#wake?.();
    this.#socket.destroy();
    // The TCP connection's descriptor goes now, not when node:tls gets round to it: the cap
    // counts what the process holds.
    try {
      this.#conn.close();
    } catch { /* already closed */ }
  }
}
