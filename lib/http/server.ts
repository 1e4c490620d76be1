/**
 * The HTTP/1.1 server of `schemapin serve` and `schemapin guard --listen`: our own accept loop
 * on `Deno.listen`, TLS (for `serve`) by `node:tls` on those TCP sockets, and a small HTTP/1.1
 * layer that hands `Request`s to a handler and writes its `Response`s.
 *
 * Why, measured on Deno 2.9.6 on loopback (figures in README, Performance):
 *
 * - **`Deno.serve` dies when the process runs out of file descriptors.** It has no connection
 *   cap and no handshake, header or idle timeout, and its `finished` promise rejects when
 *   `accept` fails with EMFILE — the listener is gone for good (a hello-world server dies the
 *   same way): 40 idle TCP connections under `ulimit -n 64` ended it. `onError` only sees
 *   handler errors, no option reaches the accept loop, and there is no public way to hand a
 *   connection to Deno's HTTP layer.
 * - **`node:http` / `node:net` stop accepting after EMFILE** (`maxConnections`,
 *   `headersTimeout` and `keepAliveTimeout` work): the same flood left a server that never
 *   accepted again, and emitted no error to react to.
 * - **Our own loop on `Deno.listen`** sees EMFILE as the error of one `accept`: it closes the
 *   connection idle the longest, backs off and goes on. Measured: it answered during and after
 *   a 500-connection flood under `ulimit -n 64`.
 * - **TLS: not `Deno.listenTls`.** A `Deno.TlsConn` closed before its handshake keeps its file
 *   descriptor until the client sends or closes (rustls-tokio-stream waits for the handshake
 *   task), so a handshake timeout could free nothing; and a `TlsConn` has no `setNoDelay`.
 *   `node:tls` on our own TCP connection releases the descriptor at once, and the TCP socket
 *   gets TCP_NODELAY. Its throughput matched `Deno.listenTls` for the same responses.
 * - **44 ms per request over TLS.** `Deno.serve` sets TCP_NODELAY on plain TCP only and writes
 *   an HTTP/1.1 response's head and body as two TLS records, so the second waits for the
 *   client's delayed ACK (Nagle): 218 requests/s at 10 keep-alive connections, and curl
 *   `--http1.1` waits 44 ms for a second document on one connection. Here every socket has
 *   TCP_NODELAY and a response of known length (every document of `serve`) is one write.
 *   (HTTP/2 by ALPN avoids the stall too, but HTTP/1.1 clients — curl --http1.1, autocannon,
 *   most monitoring — still hit it; this layer speaks HTTP/1.1 only.)
 * - **Cost.** A JS HTTP layer does more work per request than `Deno.serve`'s Rust one; at
 *   hundreds of busy TLS connections it does fewer requests per second than `Deno.serve` once
 *   Nagle's stalls overlap (README has the figures). For the guard, whose requests each cost an
 *   upstream round trip, and for `serve`, whose clients fetch two small documents, staying up
 *   is worth that.
 *
 * What the layer does: HTTP/1.1 and 1.0, keep-alive, pipelined requests (answered in order),
 * `Content-Length` and chunked request bodies (as a stream, with backpressure),
 * `Expect: 100-continue`, responses with a known length written in one piece and others
 * chunked; a client that goes away cancels the response body. (`request.signal` is not tied
 * to the connection: an `AbortSignal` per request tripled the cost of building the `Request`,
 * and neither server needs it.)
 *
 * Framing (lib/http/framing.ts, docs/http-framing.md) is never looser than Node's llhttp
 * (tests/http/framing_differential_test.ts): optional whitespace is SP/HTAB only, one final
 * `chunked` or one `Content-Length` (never both, never repeated or listed), strict chunk-size
 * lines and trailer fields, case-sensitive methods (another method is 501), CONNECT and TRACE
 * 501, heads and trailer sections of at most 16 KiB (431). A refused request is answered
 * (400, 413, 417, 431, 501 or 505) with `Connection: close`, and nothing after it is parsed —
 * also when the handler had already answered before it read the body that broke the rules.
 * `OPTIONS *` is answered here (200), never handed to the handler as a request for `/`. A
 * request with `Upgrade` is answered with its body framed as usual (no protocol switch) and the
 * connection closes. Bodies of GET and HEAD are skipped (at most 64 KiB).
 *
 * `100 Continue` is sent when the handler first reads a body whose client asked for it, never
 * after a final response; a final response to such a request sent before the body was asked
 * for closes the connection (the client is not waited for). A client that half-closes (sends
 * FIN) after its requests still gets every answer it is owed, pipelined ones and those of async
 * handlers included; a client whose connection is reset does not, and its response stream is
 * cancelled.
 *
 * Limits ({@linkcode ServerLimits}): at most `maxConnections` connections, busy or idle — a new
 * connection beyond it closes the connection that has been idle the longest (waiting for a TLS
 * handshake or a request), else the busy one whose request is furthest behind the minimum rate
 * below, and when there is none the newcomer is closed at once (lib/http/admission.ts; the
 * server never leaves connections waiting in the kernel's queue);
 * a TLS handshake must finish within `handshakeTimeoutMs`; a request head must arrive within
 * `headerTimeoutMs` of the connection's start or of its first byte; a request's head and body
 * within `requestTimeoutMs` in all (the time the server spends waiting for its bytes, however
 * steadily they drip), and at `minRequestRate` bytes a second on average once
 * `requestGraceMs` of waiting is over (lib/http/request_progress.ts); a keep-alive connection may wait
 * `idleTimeoutMs` for its next request, and a client that owes bytes of a body, or does not take
 * bytes of a response, for as long (and, once it has half-closed, a response body that produces
 * nothing for as long ends the connection). When `accept` fails for want of file descriptors
 * the server lowers its cap below the number of connections open at that moment (for a minute),
 * closes the oldest idle connections, and backs off (1 ms … 1 s).
 *
 * @module
 */
import { Duplex } from "node:stream";
import { Admission } from "./admission.ts";
import { requestDeficitMs, requestOverdue } from "./request_progress.ts";
import type net from "node:net";
import tls from "node:tls";
import {
  checkHeadStart,
  checkTrailerLine,
  FramingError,
  MAX_CHUNK_EXTENSIONS,
  MAX_CHUNK_LINE,
  MAX_FIELD_LINES,
  MAX_HEAD_BYTES,
  MAX_TRAILER_BYTES,
  parseChunkSizeLine,
  parseRequestHead,
  type RequestHead,
} from "./framing.ts";

/** The limits of one server (see the module documentation). */
export interface ServerLimits {
  /** Most connections open at once. */
  readonly maxConnections: number;
  /** Milliseconds for a TLS handshake. */
  readonly handshakeTimeoutMs: number;
  /** Milliseconds for a complete request head (from the connection's start or its first byte). */
  readonly headerTimeoutMs: number;
  /** Milliseconds a keep-alive connection waits for its next request, and a read or write may stall. */
  readonly idleTimeoutMs: number;
  /**
   * Milliseconds a request's head and body may take to arrive, in all (counted while the
   * server waits for the client's bytes, from the request's first byte): a client that
   * drips bytes loses its connection.
   */
  readonly requestTimeoutMs: number;
  /**
   * Bytes a second a request's head, body and trailers must average once `requestGraceMs` of
   * waiting is over: a request may keep the server waiting `requestGraceMs` plus one second
   * per `minRequestRate` bytes received (0: no minimum).
   */
  readonly minRequestRate: number;
  /** Milliseconds of waiting for a request's bytes before `minRequestRate` counts. */
  readonly requestGraceMs: number;
}

/** The defaults of both servers' flags. */
export const DEFAULT_SERVER_LIMITS: ServerLimits = Object.freeze({
  maxConnections: 512,
  handshakeTimeoutMs: 10_000,
  headerTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  minRequestRate: 500,
  requestGraceMs: 10_000,
});

/** What the handler is told besides the request. */
export interface RequestInfo {
  /** The client's address. */
  readonly remoteAddr: Deno.NetAddr;
  /** The request target as the client sent it (origin or absolute form). */
  readonly target: string;
}

/** How to run a server. */
export interface HttpServerOptions {
  /** Address to listen on. */
  readonly hostname: string;
  /** Port (0: any free port). */
  readonly port: number;
  /** PEM certificate chain and key: HTTPS. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Limits (defaults: {@linkcode DEFAULT_SERVER_LIMITS}). */
  readonly limits?: Partial<ServerLimits>;
  /** Answers one request. */
  readonly handler: (request: Request, info: RequestInfo) => Response | Promise<Response>;
  /** The response when the handler throws (default: 500). */
  readonly onError?: (error: unknown) => Response;
  /** A sentence about the server itself (out of file descriptors, …), at most one per 10 s. */
  readonly onEvent?: (message: string) => void;
}

/** Counters of a running server. */
export interface ServerStats {
  /** Connections open now. */
  open: number;
  /** Of those, idle (handshake, or waiting for a request). */
  idle: number;
  /** Connections accepted so far (those closed at once at the cap included). */
  accepted: number;
  /** Requests answered so far. */
  requests: number;
  /**
   * Connections closed to make room (the cap, or out of file descriptors): idle ones, and busy
   * ones whose request was behind the minimum rate.
   */
  evicted: number;
  /** Connections closed as soon as they were accepted: the cap was reached, none was idle. */
  refused: number;
  /**
   * Connections closed by a timeout, by kind (`slow`: a request below the minimum rate after
   * its grace).
   */
  timedOut: { handshake: number; header: number; idle: number; request: number; slow: number };
  /** `accept` calls that failed for want of file descriptors. */
  outOfFiles: number;
}

/** A running server. */
export interface HttpServer {
  /** The address it listens on. */
  readonly addr: Deno.NetAddr;
  /**
   * Resolves when the server has stopped after {@linkcode HttpServer.shutdown}; rejects with
   * {@linkcode ListenerFailure} when the listener failed for good while running.
   */
  readonly finished: Promise<void>;
  /**
   * Stops accepting, closes idle connections, lets requests in progress finish, and closes
   * whatever is still open after `graceMs` (default: wait for them).
   */
  shutdown(graceMs?: number): Promise<void>;
  /** Counters. */
  stats(): ServerStats;
}

/** The listener failed while the server was running (a runtime failure, not a bad setup). */
export class ListenerFailure extends Error {
  /** The error of the failed `accept`. */
  override readonly cause: unknown;
  /** A failure with `message` caused by `cause`. */
  constructor(message: string, cause: unknown) {
    super(message);
    this.name = "ListenerFailure";
    this.cause = cause;
  }
}

const encoder = new TextEncoder();
const READ_CHUNK = 16 * 1024;
/** Bytes read ahead while a request is in progress (to see the client go away). */
const READ_AHEAD = 64 * 1024;
/** Bytes of an unread request body skipped to keep the connection. */
const MAX_DRAIN = 64 * 1024;
/** Responses up to this length (known from Content-Length) are written in one piece. */
const MAX_COALESCED = 1024 * 1024;
/** Errors of `accept` after which the server goes on (after a pause). */
const TRANSIENT_ACCEPT = new Set([
  "ENFILE",
  "ENOBUFS",
  "ENOMEM",
  "ECONNABORTED",
  "ECONNRESET",
  "EPROTO",
  "EPERM",
  "ETIMEDOUT",
  "EAGAIN",
  "EINTR",
  "ENETDOWN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENONET",
  "EOPNOTSUPP",
]);
/** Consecutive failures of `accept` with an unknown error before the listener is given up. */
const MAX_UNKNOWN_ACCEPT_FAILURES = 50;
/** Response headers this layer writes itself. */
const OWN_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "date",
  "upgrade",
  "proxy-connection",
]);
const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  206: "Partial Content",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
};

/** Latin-1 text of bytes (header bytes map one to one onto a ByteString). */
function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192) as unknown as number[]);
  }
  return s;
}

/** Bytes of a ByteString (each char ≤ 0xFF). */
function latin1Bytes(text: string): Uint8Array {
  // deno-lint-ignore no-control-regex
  if (!/[^\x00-\x7f]/.test(text)) return encoder.encode(text);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i) & 0xff;
  return out;
}

type State = "handshake" | "idle" | "active" | "closed";

/** The byte stream of one connection: plain TCP, or TLS on top of it. */
interface Transport {
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

/** Plain TCP. */
class TcpTransport implements Transport {
  #scratch: Uint8Array | undefined;

  constructor(readonly conn: Deno.Conn) {}

  async read(): Promise<Uint8Array | null> {
    this.#scratch ??= new Uint8Array(READ_CHUNK);
    const n = await this.conn.read(this.#scratch);
    return n === null ? null : this.#scratch.subarray(0, n);
  }

  async write(bytes: Uint8Array): Promise<void> {
    let n = 0;
    while (n < bytes.length) n += await this.conn.write(bytes.subarray(n));
  }

  closeWrite(): void {
    this.conn.closeWrite().catch(() => {});
  }

  alive(): Promise<boolean> {
    return aliveAfterEnd(this.conn);
  }

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

/**
 * TLS by `node:tls` on top of our own TCP connection (not `Deno.listenTls`): the TCP socket
 * gets TCP_NODELAY, and closing a connection that never finished its handshake releases its
 * file descriptor at once. (A `Deno.TlsConn` closed before its handshake keeps the descriptor
 * until the client sends or closes — measured on Deno 2.9.6 — so a handshake timeout could
 * not free anything.) Measured: as fast as `Deno.listenTls` for the same responses.
 */
class TlsTransport implements Transport {
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
      if (!secured) closed(new Error("the connection ended before its handshake"));
    });
    socket.on("close", () => {
      ended();
      closed(new Error("the connection is closed"));
    });
    socket.on("error", (e: Error) => {
      this.#failed = e;
      ended();
      closed(e);
    });
  }

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

  write(bytes: Uint8Array): Promise<void> {
    if (this.#ended) return Promise.reject(new Error("the connection is closed"));
    return Promise.race([
      new Promise<void>((resolve, reject) =>
        this.#socket.write(bytes, (e) => e ? reject(e) : resolve())
      ),
      this.#closed,
    ]);
  }

  closeWrite(): void {
    this.#socket.end();
  }

  alive(): Promise<boolean> {
    return this.#failed ? Promise.resolve(false) : aliveAfterEnd(this.#conn);
  }

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

/** One client connection: its buffered input and its deadlines. */
class Connection {
  state: State = "idle";
  /** When the current wait ends (ms since the epoch; 0: none) and what kind of wait it is. */
  deadline = 0;
  deadlineKind: "handshake" | "header" | "idle" = "idle";
  /** The client's stream ended (FIN: it may still read), or the connection failed. */
  eof = false;
  /** The connection failed or was closed: nothing more can be written. */
  gone = false;
  /** A request has begun (its first byte came) and is not answered yet. */
  inRequest = false;
  /** Milliseconds the current request has kept the server waiting for its bytes. */
  waitedMs = 0;
  /** When the current wait for the client's bytes began (0: not waiting). */
  waitingSince = 0;
  /** Bytes read from the client so far. */
  bytesIn = 0;
  /** {@linkcode Connection.bytesIn} before the current request's first byte. */
  requestStart = 0;
  /** The head of the current response was written (no error answer can follow). */
  responded = false;
  #data = new Uint8Array(4096);
  #start = 0;
  #end = 0;
  #pending: Promise<boolean> | undefined;
  /** Called when the connection fails or closes while a request is in progress. */
  onGone: (() => void) | undefined;
  #watching = false;

  constructor(
    readonly transport: Transport,
    readonly remoteAddr: Deno.NetAddr,
    readonly stallMs: number,
  ) {}

  get available(): number {
    return this.#end - this.#start;
  }

  view(): Uint8Array {
    return this.#data.subarray(this.#start, this.#end);
  }

  consume(n: number): void {
    this.#start += n;
    if (this.#start === this.#end) {
      this.#start = this.#end = 0;
      if (this.#data.length > 4 * READ_CHUNK) this.#data = new Uint8Array(4096);
    }
  }

  /** Takes `n` buffered bytes (a copy the caller owns). */
  take(n: number): Uint8Array {
    const out = this.#data.slice(this.#start, this.#start + n);
    this.consume(n);
    return out;
  }

  #append(bytes: Uint8Array): void {
    const n = bytes.length;
    this.bytesIn += n;
    if (this.#end + n > this.#data.length) {
      const used = this.#end - this.#start;
      if (used + n <= this.#data.length && this.#start > 0) {
        this.#data.copyWithin(0, this.#start, this.#end);
      } else {
        let size = this.#data.length * 2;
        while (size < used + n) size *= 2;
        const grown = new Uint8Array(size);
        grown.set(this.#data.subarray(this.#start, this.#end));
        this.#data = grown;
      }
      this.#start = 0;
      this.#end = used;
    }
    this.#data.set(bytes, this.#end);
    this.#end += n;
  }

  /** Reads more bytes into the buffer: true when some came, false at the end of the stream. */
  fill(): Promise<boolean> {
    if (this.eof) return Promise.resolve(false);
    return this.#pending ??= this.#read();
  }

  /**
   * {@linkcode Connection.fill} while a request is owed bytes: the wait counts against the
   * request's deadline.
   */
  async awaitClient(): Promise<boolean> {
    if (!this.inRequest) return await this.fill();
    this.waitingSince = Date.now();
    try {
      return await this.fill();
    } finally {
      this.waitedMs += Date.now() - this.waitingSince;
      this.waitingSince = 0;
    }
  }

  async #read(): Promise<boolean> {
    try {
      const chunk = await this.transport.read();
      if (chunk === null) {
        this.eof = true;
        // Half-closed: the answers owed are still written. Reset: nobody reads them.
        if (!await this.transport.alive()) this.gone = true;
        return false;
      }
      this.#append(chunk);
      return true;
    } catch {
      this.eof = true;
      this.gone = true; // reset: nobody reads the answers
      return false;
    } finally {
      this.#pending = undefined;
    }
  }

  /**
   * While a request is in progress: keeps one read outstanding (up to {@linkcode READ_AHEAD}
   * bytes buffered), so that a client whose connection fails is seen at once. A client that
   * only ends its stream (half-close) still gets its answers.
   */
  watch(): void {
    if (this.#watching) return;
    this.#watching = true;
    (async () => {
      while (this.state === "active" && !this.eof && this.available < READ_AHEAD) {
        if (!await this.fill()) break;
      }
      this.#watching = false;
      if (this.gone && this.state === "active") this.onGone?.();
    })();
  }

  /** Writes all of `bytes`; a client that takes none of them for `stallMs` is closed. */
  async write(bytes: Uint8Array): Promise<void> {
    const deadline = this.deadline;
    const kind = this.deadlineKind;
    this.deadline = Date.now() + this.stallMs;
    this.deadlineKind = "idle";
    try {
      await this.transport.write(bytes);
    } catch (e) {
      this.gone = true;
      throw e;
    } finally {
      if (this.state !== "closed") {
        this.deadline = deadline;
        this.deadlineKind = kind;
      }
    }
  }

  close(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.eof = true;
    this.gone = true;
    this.transport.close();
    this.onGone?.();
  }
}

/** Reads one request body from the connection's buffer (Content-Length or chunked). */
class BodyReader {
  done = false;
  started = false;
  /** The final response is on its way: a 100 Continue may no longer be sent. */
  finalSent = false;
  #remaining: number; // bytes left of the body (length) or of the current chunk (chunked)
  readonly #chunked: boolean;
  #chunkState: "size" | "data" | "crlf" | "trailers" = "size";
  #continueSent = false;
  #extensionBytes = 0;
  #trailerBytes = 0;
  #trailerLines = 0;

  constructor(
    readonly c: Connection,
    length: number,
    readonly expectContinue: boolean,
    readonly setDeadline: (on: boolean) => void,
  ) {
    this.#chunked = length < 0;
    this.#remaining = this.#chunked ? 0 : length;
    if (length === 0) this.done = true;
  }

  /** The client waits for a 100 Continue that was not sent: its body was never asked for. */
  get continuePending(): boolean {
    return this.expectContinue && !this.#continueSent && !this.done;
  }

  /** Waits for more bytes; fails when the client went away. */
  async #more(): Promise<void> {
    this.setDeadline(true);
    const more = await this.c.awaitClient();
    this.setDeadline(false);
    if (!more) throw new FramingError(400, "the request ended before its body");
  }

  /** The next piece of the body, or null at its end. */
  async next(): Promise<Uint8Array | null> {
    this.started = true;
    if (this.continuePending) {
      // 100 Continue only before the body is read, never after a final response.
      if (this.finalSent) throw new Error("the body was never asked for (no 100 Continue)");
      this.#continueSent = true;
      await this.c.write(encoder.encode("HTTP/1.1 100 Continue\r\n\r\n"));
    }
    while (!this.done) {
      if (!this.#chunked) {
        if (this.c.available === 0) await this.#more();
        const n = Math.min(this.c.available, this.#remaining);
        this.#remaining -= n;
        if (this.#remaining === 0) this.done = true;
        return this.c.take(n);
      }
      if (this.#chunkState === "data") {
        if (this.c.available === 0) await this.#more();
        const n = Math.min(this.c.available, this.#remaining);
        this.#remaining -= n;
        if (this.#remaining === 0) this.#chunkState = "crlf";
        return this.c.take(n);
      }
      if (this.#chunkState === "trailers") {
        // Trailer fields: parsed as fields, capped, never framing; then dropped.
        const line = await this.#line(MAX_TRAILER_BYTES - this.#trailerBytes, 431);
        this.#trailerBytes += line.length + 2;
        if (line === "") {
          this.done = true;
          break;
        }
        if (++this.#trailerLines > MAX_FIELD_LINES) {
          throw new FramingError(431, "too many trailer fields");
        }
        checkTrailerLine(line);
        continue;
      }
      const line = await this.#line(MAX_CHUNK_LINE, 400);
      if (this.#chunkState === "crlf") {
        if (line !== "") throw new FramingError(400, "a chunk is not followed by CRLF");
        this.#chunkState = "size";
        continue;
      }
      const { size, extensionBytes } = parseChunkSizeLine(line);
      this.#extensionBytes += extensionBytes;
      if (this.#extensionBytes > MAX_CHUNK_EXTENSIONS) {
        throw new FramingError(413, "too many bytes of chunk extensions");
      }
      this.#remaining = size;
      this.#chunkState = size === 0 ? "trailers" : "data";
    }
    return null;
  }

  /**
   * One CRLF-terminated line of the chunked framing: at most `max` bytes with its CRLF, else
   * `status`. A bare LF is refused.
   */
  async #line(max: number, status: number): Promise<string> {
    let scanned = 0;
    while (true) {
      const v = this.c.view();
      const i = v.indexOf(10, scanned);
      if (i >= 0) {
        if (i + 1 > max) throw new FramingError(status, "a chunked-framing line is too long");
        if (i === 0 || v[i - 1] !== 13) {
          throw new FramingError(400, "a bare LF in chunked framing");
        }
        const text = latin1(v.subarray(0, i - 1));
        this.c.consume(i + 1);
        return text;
      }
      scanned = v.length;
      if (v.length >= max) throw new FramingError(status, "a chunked-framing line is too long");
      await this.#more();
    }
  }

  /** The body as a stream (pulled on demand). */
  stream(onError: (e: unknown) => void): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      pull: async (ctrl) => {
        try {
          const chunk = await this.next();
          if (chunk === null) ctrl.close();
          else ctrl.enqueue(chunk);
        } catch (e) {
          onError(e);
          ctrl.error(e);
        }
      },
    }, { highWaterMark: 0 });
  }
}

function errorBytes(status: number, message: string): Uint8Array {
  const body = `${message}\n`;
  return encoder.encode(
    `HTTP/1.1 ${status} ${REASONS[status] ?? ""}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
  );
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * After an error response, reads and drops what the client still sends (at most 256 KiB, 1 s)
 * before the connection is closed: closing with unread bytes would reset the connection, and
 * the client might never read the response.
 */
async function linger(c: Connection): Promise<void> {
  c.transport.closeWrite(); // the client sees the end and closes: lingering ends early
  const end = Date.now() + 1000;
  let dropped = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((r) => timer = setTimeout(() => r(false), 1000));
  try {
    while (Date.now() < end && dropped < 256 * 1024) {
      dropped += c.available;
      c.consume(c.available);
      if (!await Promise.race([c.fill(), timeout])) break;
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts a server (see the module documentation). Throws at once when the address cannot be
 * used (`Deno.listen` / `Deno.listenTls` errors: in use, not permitted, bad certificate).
 *
 * @example
 * ```ts ignore
 * const server = listenHttp({ hostname: "127.0.0.1", port: 0, handler: () => new Response("hi") });
 * await server.shutdown();
 * ```
 */
export function listenHttp(options: HttpServerOptions): HttpServer {
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  // TLS runs on our own TCP connections (see TlsTransport); a bad certificate or key fails here.
  const context = options.tls
    ? tls.createSecureContext({ cert: options.tls.cert, key: options.tls.key })
    : undefined;
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr;
  const scheme = options.tls ? "https" : "http";
  const defaultHost = addr.hostname.includes(":")
    ? `[${addr.hostname}]:${addr.port}`
    : `${addr.hostname}:${addr.port}`;
  // Which connections are open, which idle, and who gets a slot (lib/http/admission.ts): at
  // the cap, the one idle the longest, else the request furthest behind the minimum rate,
  // gives its slot to a newcomer.
  const conns = new Admission<Connection>(
    limits.maxConnections,
    (c) =>
      c.waitingSince === 0 ? 0 : requestDeficitMs(
        c.waitedMs + Date.now() - c.waitingSince,
        c.bytesIn - c.requestStart,
        limits,
      ),
  );
  const stats: ServerStats = {
    open: 0,
    idle: 0,
    accepted: 0,
    requests: 0,
    evicted: 0,
    refused: 0,
    timedOut: { handshake: 0, header: 0, idle: 0, request: 0, slow: 0 },
    outOfFiles: 0,
  };
  let closing = false;
  let allClosed: (() => void) | undefined;
  let dateAt = 0;
  let date = "";

  // Events are told at most once per 10 s; the ones held back are counted in the next.
  const lastEvent = new Map<string, { at: number; held: number }>();
  const event = (kind: string, message: string) => {
    if (!options.onEvent) return;
    const now = Date.now();
    const e = lastEvent.get(kind);
    if (e && now - e.at < 10_000) {
      e.held++;
      return;
    }
    const held = e?.held ? ` (${e.held} more since the last report)` : "";
    lastEvent.set(kind, { at: now, held: 0 });
    try {
      options.onEvent(message + held);
    } catch { /* a log that fails must not stop the server */ }
  };

  const setIdle = (c: Connection, timeoutMs: number, kind: "handshake" | "header" | "idle") => {
    c.state = kind === "handshake" ? "handshake" : "idle";
    c.deadline = Date.now() + timeoutMs;
    c.deadlineKind = kind;
    conns.idle(c);
  };
  const setActive = (c: Connection) => {
    c.state = "active";
    c.deadline = 0;
    conns.busy(c);
  };

  // One timer checks every deadline (cheaper than a timer per connection and request).
  const tick = Math.max(
    10,
    Math.min(
      1000,
      Math.floor(
        Math.min(
          limits.handshakeTimeoutMs,
          limits.headerTimeoutMs,
          limits.idleTimeoutMs,
          limits.requestTimeoutMs,
          limits.minRequestRate > 0 ? limits.requestGraceMs : Infinity,
        ) / 4,
      ),
    ),
  );
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const c of conns.connections()) {
      if (c.deadline !== 0 && now >= c.deadline) {
        c.deadline = 0;
        stats.timedOut[c.deadlineKind]++;
        c.close();
      } else if (c.waitingSince !== 0) {
        // The request's bytes took too long to arrive in all, or came too slowly after the
        // grace, however steadily they dripped (lib/http/request_progress.ts).
        const overdue = requestOverdue(
          c.waitedMs + now - c.waitingSince,
          c.bytesIn - c.requestStart,
          limits,
        );
        if (overdue) {
          stats.timedOut[overdue]++;
          c.close();
        }
      }
    }
  }, tick);
  Deno.unrefTimer(sweeper);

  const httpDate = () => {
    const now = Date.now();
    if (now - dateAt >= 1000) {
      dateAt = now - (now % 1000);
      date = new Date(dateAt).toUTCString();
    }
    return date;
  };

  const writeResponse = async (
    c: Connection,
    response: Response,
    method: string,
    keepAlive: boolean,
    http10: boolean,
    gone: { reader?: ReadableStreamDefaultReader<Uint8Array> },
  ): Promise<boolean> => {
    const status = response.status;
    c.responded = true;
    let head = `HTTP/1.1 ${status} ${REASONS[status] ?? ""}\r\n`;
    let declared: string | null = null;
    for (const [k, v] of response.headers) {
      if (OWN_HEADERS.has(k)) {
        if (k === "content-length") declared = v;
        continue;
      }
      head += `${k}: ${v}\r\n`;
    }
    head += `date: ${httpDate()}\r\n`;
    const end = () =>
      keepAlive
        ? (http10 ? "connection: keep-alive\r\n\r\n" : "\r\n")
        : "connection: close\r\n\r\n";
    const body = response.body;
    const bodiless = method === "HEAD" || status === 204 || status === 304 || status < 200;
    if (bodiless) {
      if (body) await body.cancel().catch(() => {});
      if (method === "HEAD" && declared !== null && /^\d{1,15}$/.test(declared)) {
        head += `content-length: ${declared}\r\n`;
      } else if (method === "HEAD" && body === null && status >= 200) {
        head += "content-length: 0\r\n";
      }
      head += end();
      await c.write(latin1Bytes(head));
      return keepAlive;
    }
    if (body === null) {
      head += "content-length: 0\r\n" + end();
      await c.write(latin1Bytes(head));
      return keepAlive;
    }
    const length = declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : -1;
    if (length >= 0 && length <= MAX_COALESCED) {
      // Head and body in one write: nothing waits for a delayed ACK (Nagle) on TLS. The body
      // of a response that declares its length is read whole (arrayBuffer() is ~10× cheaper
      // than reading the stream).
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length !== length) {
        throw new Error(`the response body is ${bytes.length} bytes, not ${length}`);
      }
      head += `content-length: ${length}\r\n` + end();
      const h = latin1Bytes(head);
      const out = new Uint8Array(h.length + length);
      out.set(h);
      out.set(bytes, h.length);
      await c.write(out);
      return keepAlive;
    }
    const reader = body.getReader();
    gone.reader = reader;
    /**
     * The next piece of the body. Once the client has ended its stream (half-close), a body
     * that produces nothing for the stall time ends the connection: nobody may be listening.
     */
    const pull = async () => {
      if (!c.eof) return await reader.read();
      c.deadline = Date.now() + c.stallMs;
      c.deadlineKind = "idle";
      try {
        return await reader.read();
      } finally {
        if (c.state !== "closed") c.deadline = 0;
      }
    };
    try {
      if (length >= 0) {
        head += `content-length: ${length}\r\n` + end();
        await c.write(latin1Bytes(head));
        let total = 0;
        while (total < length) {
          const r = await pull();
          if (r.done) break;
          total += r.value.length;
          if (total > length) throw new Error(`the response body exceeds ${length} bytes`);
          await c.write(r.value);
        }
        if (total !== length) throw new Error(`the response body is ${total} bytes, not ${length}`);
        return keepAlive;
      }
      // Length unknown: chunked (HTTP/1.1), or the end of the connection (HTTP/1.0).
      const chunked = !http10;
      if (!chunked) keepAlive = false;
      head += (chunked ? "transfer-encoding: chunked\r\n" : "") + end();
      await c.write(latin1Bytes(head));
      while (true) {
        const r = await pull();
        if (r.done) break;
        if (r.value.length === 0) continue;
        if (!chunked) {
          await c.write(r.value);
          continue;
        }
        const size = encoder.encode(`${r.value.length.toString(16)}\r\n`);
        const framed = new Uint8Array(size.length + r.value.length + 2);
        framed.set(size);
        framed.set(r.value, size.length);
        framed[framed.length - 2] = 13;
        framed[framed.length - 1] = 10;
        await c.write(framed);
      }
      if (chunked) await c.write(encoder.encode("0\r\n\r\n"));
      return keepAlive;
    } catch (e) {
      reader.cancel(e).catch(() => {});
      throw e;
    } finally {
      gone.reader = undefined;
    }
  };

  /** Answers one request; false when the connection must close. */
  const answer = async (c: Connection, head: RequestHead): Promise<boolean> => {
    setActive(c);
    c.watch();
    c.responded = false;
    stats.requests++;
    // Upgrade is not switched: the request is answered with its body framed as usual, and the
    // connection closes (what follows is never parsed as a request: parseRequestHead).
    let keepAlive = head.keepAlive && !closing;
    const http10 = head.minor === 0;
    const bodyDeadline = (on: boolean) => {
      c.deadline = on ? Date.now() + limits.idleTimeoutMs : 0;
      c.deadlineKind = "idle";
    };
    const reader = new BodyReader(c, head.contentLength, head.expectContinue, bodyDeadline);
    const gone: { reader?: ReadableStreamDefaultReader<Uint8Array> } = {};
    if (head.target === "*") {
      // Asterisk form (OPTIONS * only, parseRequestHead): about the server, not a resource.
      // Answered here; the handler never sees it as a request for "/".
      if (!reader.done) await drain(reader);
      reader.finalSent = true;
      keepAlive = await writeResponse(c, new Response(null), "OPTIONS", keepAlive, http10, gone);
      return keepAlive && !closing && !c.gone;
    }
    let url: string;
    if (head.target.startsWith("/")) {
      url = `${scheme}://${head.host ?? defaultHost}${head.target}`;
    } else {
      url = head.target; // absolute form (RFC 9112 §3.2.2: its authority, not Host)
    }
    let bodyFailed: unknown;
    const withBody = !reader.done && head.method !== "GET" && head.method !== "HEAD";
    if (!reader.done && !withBody) {
      // A body on GET or HEAD means nothing here: it is skipped (up to MAX_DRAIN bytes).
      await drain(reader);
    }
    let request: Request;
    try {
      const headers = new Headers();
      for (const [name, value] of head.fields) headers.append(name, value);
      request = new Request(url, {
        method: head.method,
        headers,
        ...(withBody
          ? { body: reader.stream((e) => bodyFailed = e), duplex: "half" } as RequestInit
          : {}),
      });
    } catch {
      throw new FramingError(400, "malformed request");
    }
    c.onGone = () => {
      gone.reader?.cancel(new Error("the client closed the connection")).catch(() => {});
    };
    let response: Response;
    try {
      response = await options.handler(request, { remoteAddr: c.remoteAddr, target: head.target });
      if (!(response instanceof Response)) throw new TypeError("the handler returned no Response");
    } catch (e) {
      if (bodyFailed instanceof FramingError) throw bodyFailed;
      response = options.onError?.(e) ??
        new Response("internal error\n", {
          status: 500,
          headers: { "content-type": "text/plain; charset=utf-8" },
        });
    }
    if (bodyFailed instanceof FramingError) {
      // The body broke the framing rules: whatever the handler made of it, the answer is the
      // refusal (400, 413, 431), and the connection closes.
      await response.body?.cancel().catch(() => {});
      throw bodyFailed;
    }
    if (c.gone) {
      await response.body?.cancel().catch(() => {});
      return false;
    }
    if (withBody && !reader.done) {
      if (reader.continuePending) {
        // The client waits for 100 Continue before it sends its body, and the body was never
        // asked for: a final answer, no 100 after it, and the connection closes (nothing to
        // wait for, nothing to skip).
        keepAlive = false;
      } else if (
        reader.started || (head.contentLength < 0 ? false : head.contentLength > MAX_DRAIN)
      ) {
        // The handler did not read the whole body: skip the rest when it is small and untouched.
        keepAlive = false;
      }
    }
    reader.finalSent = true;
    keepAlive = await writeResponse(c, response, head.method, keepAlive, http10, gone);
    c.onGone = undefined;
    if (withBody && !reader.done && keepAlive) {
      try {
        keepAlive = await drain(reader);
      } catch {
        keepAlive = false;
      }
    }
    return keepAlive && !closing && !c.gone;
  };

  /** Skips the rest of a body (at most MAX_DRAIN bytes); false when there was more. */
  const drain = async (reader: BodyReader): Promise<boolean> => {
    let skipped = 0;
    while (true) {
      const chunk = await reader.next();
      if (chunk === null) return true;
      skipped += chunk.length;
      if (skipped > MAX_DRAIN) throw new FramingError(413, "the request body is too large");
    }
  };

  /** The next request head; null at the end of the connection. */
  const readHead = async (c: Connection): Promise<RequestHead | null> => {
    let scanned = 0;
    let skipped = 0;
    while (true) {
      let v = c.view();
      if (v.length > 0 && !c.inRequest) {
        // The first byte of a request: the head must now arrive within the header timeout,
        // head and body within the request timeout.
        c.inRequest = true;
        c.waitedMs = 0;
        c.requestStart = c.bytesIn - v.length;
        if (c.state === "idle" && c.deadlineKind === "idle") {
          c.deadline = Date.now() + limits.headerTimeoutMs;
          c.deadlineKind = "header";
        }
      }
      // Empty lines before a request line are skipped (RFC 9112 §2.2), within the head's cap.
      while (v.length >= 2 && v[0] === 13 && v[1] === 10) {
        c.consume(2);
        skipped += 2;
        v = c.view();
        scanned = 0;
      }
      for (let i = Math.max(0, scanned - 3); i + 3 < v.length; i++) {
        i = v.indexOf(13, i);
        if (i < 0 || i + 3 >= v.length) break;
        if (v[i + 1] === 10 && v[i + 2] === 13 && v[i + 3] === 10) {
          if (skipped + i + 4 > MAX_HEAD_BYTES) {
            throw new FramingError(431, "the request head is too large");
          }
          const head = parseRequestHead(latin1(v.subarray(0, i)));
          c.consume(i + 4);
          return head;
        }
      }
      scanned = v.length;
      if (v.length > 0) checkHeadStart(latin1(v.subarray(0, Math.min(v.length, 256))));
      if (skipped + v.length > MAX_HEAD_BYTES) {
        throw new FramingError(431, "the request head is too large");
      }
      if (!await c.awaitClient()) {
        // The client ended its stream inside a head: refused (it may still read the answer).
        if (c.view().length > 0 && !c.gone) throw new FramingError(400, "an incomplete request");
        return null;
      }
    }
  };

  const serveConnection = async (c: Connection) => {
    try {
      if (c.transport instanceof TlsTransport) {
        setIdle(c, limits.handshakeTimeoutMs, "handshake");
        await c.transport.secure;
        if (c.state === "closed") return;
      }
      setIdle(c, limits.headerTimeoutMs, "header");
      while (!closing) {
        let head: RequestHead | null;
        try {
          head = await readHead(c);
          if (head === null) break;
          if (!await answer(c, head)) {
            // Closed by this side: the client may still be sending (a body that was not
            // read, pipelined requests); reading on for a moment lets it see the answer.
            if (!c.gone && !c.eof) await linger(c);
            break;
          }
        } catch (e) {
          if (e instanceof FramingError && !c.gone) {
            if (!c.responded) await c.write(errorBytes(e.status, e.message)).catch(() => {});
            if (!c.gone) await linger(c);
          }
          break;
        }
        c.inRequest = false;
        c.responded = false;
        setIdle(c, limits.idleTimeoutMs, "idle");
        if (closing) break;
      }
    } catch {
      // a failed handshake, read or write ends this connection only
    } finally {
      c.close();
      conns.remove(c);
      stats.open = conns.size;
      if (closing && conns.size === 0) allClosed?.();
    }
  };

  const acceptLoop = async (): Promise<void> => {
    let backoff = 0;
    let unknownFailures = 0;
    while (!closing) {
      // Accepting goes on at the cap: a connection beyond it is closed at once (below), never
      // left in the kernel's queue where its client waits on an open connection.
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept();
      } catch (e) {
        if (closing) break;
        const code = (e as { code?: string }).code;
        if (code === "EMFILE" || code === "ENFILE") {
          stats.outOfFiles++;
          // Room for the other descriptors the process needs (upstream connections, logs).
          const open = conns.size;
          const lowered = conns.lowerCap();
          event(
            "emfile",
            `out of file descriptors (${(e as Error).message}) with ${open} connections open: ` +
              `closing the oldest idle connections, at most ${lowered.cap} connections for the ` +
              `next minute (raise the open-file limit, or lower --max-connections)`,
          );
          backoff = lowered.evicted ? 1 : Math.min(1000, Math.max(10, backoff * 2));
          await sleep(backoff);
          continue;
        }
        if (e instanceof Deno.errors.BadResource || e instanceof Deno.errors.Interrupted) {
          throw new ListenerFailure(`the listener was closed: ${(e as Error).message}`, e);
        }
        if (code === undefined || !TRANSIENT_ACCEPT.has(code)) {
          if (++unknownFailures >= MAX_UNKNOWN_ACCEPT_FAILURES) {
            throw new ListenerFailure(
              `accepting connections failed ${unknownFailures} times in a row: ` +
                (e as Error).message,
              e,
            );
          }
        }
        event("accept", `accepting a connection failed: ${(e as Error).message}; retrying`);
        backoff = Math.min(1000, Math.max(10, backoff * 2));
        await sleep(backoff);
        continue;
      }
      backoff = 0;
      unknownFailures = 0;
      stats.accepted++;
      // Room for the newcomer: the connection idle the longest goes; when every slot is busy,
      // the newcomer itself is closed at once (as node's server.maxConnections does).
      if (!conns.makeRoom()) {
        try {
          conn.close();
        } catch { /* closed already */ }
        continue;
      }
      try {
        conn.setNoDelay(true); // responses go out at once, TLS or not (no 40 ms delayed-ACK stalls)
      } catch { /* closed already */ }
      const transport = context ? new TlsTransport(conn, context) : new TcpTransport(conn);
      const c = new Connection(transport, conn.remoteAddr, limits.idleTimeoutMs);
      conns.add(c);
      stats.open = conns.size;
      serveConnection(c);
    }
  };

  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** Ends every connection; a handler that does not return is not waited for. */
  const closeAll = () => {
    conns.closeAll();
    allClosed?.();
  };
  const finished = (async () => {
    try {
      await acceptLoop();
    } catch (e) {
      closing = true;
      closeAll();
      throw e;
    } finally {
      clearInterval(sweeper);
      try {
        listener.close();
      } catch { /* closed by shutdown */ }
    }
    if (conns.size > 0) await new Promise<void>((r) => allClosed = r);
    clearTimeout(graceTimer);
  })();
  finished.catch(() => {}); // the owner awaits it; an unobserved rejection must not end the process

  return {
    addr,
    finished,
    shutdown(graceMs?: number) {
      if (!closing) {
        closing = true;
        try {
          listener.close();
        } catch { /* already closed */ }
        for (const c of conns.idleConnections()) c.close();
        if (graceMs !== undefined) graceTimer = setTimeout(closeAll, graceMs);
      }
      return finished.catch(() => {});
    },
    stats: () => ({
      ...stats,
      open: conns.size,
      idle: conns.idleCount,
      evicted: conns.evicted,
      refused: conns.refused,
      timedOut: { ...stats.timedOut },
    }),
  };
}
