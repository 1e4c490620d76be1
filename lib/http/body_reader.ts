/**
 * The body of one request, read from its connection's buffer (lib/http/connection.ts):
 * `Content-Length` or chunked framing (RFC 9112 §7.1, the rules of lib/http/framing.ts),
 * `100 Continue` before the first read, and the skipping of a body nobody read.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { Connection } from "./connection.ts";
import {
  checkTrailerLine,
  FramingError,
  MAX_CHUNK_EXTENSIONS,
  MAX_CHUNK_LINE,
  MAX_FIELD_LINES,
  MAX_TRAILER_BYTES,
  parseChunkSizeLine,
} from "./framing.ts";
import { latin1 } from "./latin1.ts";

const encoder = new TextEncoder();

/** Bytes of an unread request body skipped to keep the connection. */
export const MAX_DRAIN = 64 * 1024;

/**
 * Reads one request body from the connection's buffer (Content-Length or chunked).
 *
 * @example
 * ```ts ignore
 * import { BodyReader } from "./body_reader.ts";
 * const body = new BodyReader(c, head.contentLength, head.expectContinue, () => {});
 * for (let chunk = await body.next(); chunk !== null; chunk = await body.next()) use(chunk);
 * ```
 */
export class BodyReader {
  /** The whole body was read. */
  done = false;
  /** The body was asked for at least once. */
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

  /**
   * The body of the request on `c`: `length` bytes, or chunked when `length` is negative.
   * `setDeadline(true)` is called before each wait for the client's bytes, `(false)` after.
   */
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
      if (this.finalSent) {
        throw new SchemaPinError("IO_FAILED", "the body was never asked for (no 100 Continue)");
      }
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

/**
 * Skips the rest of a body (at most {@linkcode MAX_DRAIN} bytes, else 413).
 *
 * @example
 * ```ts ignore
 * import { drain } from "./body_reader.ts";
 * if (!body.done) await drain(body);
 * ```
 */
export async function drain(reader: BodyReader): Promise<boolean> {
  let skipped = 0;
  while (true) {
    const chunk = await reader.next();
    if (chunk === null) return true;
    skipped += chunk.length;
    if (skipped > MAX_DRAIN) throw new FramingError(413, "the request body is too large");
  }
}
