/**
 * One client connection of the HTTP/1.1 server (lib/http/server.ts): its buffered input, its
 * state (handshake, idle, active, closed), its deadlines, and how long the current request
 * has kept the server waiting for its bytes (lib/http/request_progress.ts).
 *
 * @module
 */
import { READ_AHEAD, READ_CHUNK, type Transport } from "./transport.ts";

/** Where a connection is: waiting for its TLS handshake, for a request, answering one, closed. */
export type ConnectionState = "handshake" | "idle" | "active" | "closed";

/** The kind of wait a connection's deadline ends (the `timedOut` counter it adds to). */
export type DeadlineKind = "handshake" | "header" | "idle";

/**
 * One client connection: its buffered input and its deadlines.
 *
 * @example
 * ```ts ignore
 * import { Connection } from "./connection.ts";
 * import { TcpTransport } from "./transport.ts";
 * const conn = await listener.accept();
 * const c = new Connection(new TcpTransport(conn), conn.remoteAddr, 30_000);
 * if (await c.fill()) console.log(c.available, "bytes buffered");
 * c.close();
 * ```
 */
export class Connection {
  /** Where the connection is. */
  state: ConnectionState = "idle";
  /** When the current wait ends (ms since the epoch; 0: none) and what kind of wait it is. */
  deadline = 0;
  /** What kind of wait {@linkcode Connection.deadline} ends. */
  deadlineKind: DeadlineKind = "idle";
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

  /**
   * A connection over `transport` from `remoteAddr`; a client that takes no bytes of a write
   * for `stallMs` is closed.
   */
  constructor(
    readonly transport: Transport,
    readonly remoteAddr: Deno.NetAddr,
    readonly stallMs: number,
  ) {}

  /** Bytes buffered and not consumed. */
  get available(): number {
    return this.#end - this.#start;
  }

  /** The buffered bytes (valid until the buffer changes). */
  view(): Uint8Array {
    return this.#data.subarray(this.#start, this.#end);
  }

  /** Drops `n` buffered bytes. */
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

  /** Closes the connection at once (idempotent). */
  close(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.eof = true;
    this.gone = true;
    this.transport.close();
    this.onGone?.();
  }
}

/**
 * After an error response, reads and drops what the client still sends (at most 256 KiB, 1 s)
 * before the connection is closed: closing with unread bytes would reset the connection, and
 * the client might never read the response.
 *
 * @example
 * ```ts ignore
 * import { linger } from "./connection.ts";
 * await c.write(refusal);
 * await linger(c);
 * c.close();
 * ```
 */
export async function linger(c: Connection): Promise<void> {
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
