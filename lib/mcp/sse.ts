/**
 * A byte-level Server-Sent Events parser (the WHATWG HTML "event stream" interpretation rules,
 * §9.2.6), shared by the contract client and the guard:
 *
 * - lines end with CRLF, LF or CR (also when a CRLF is split between two chunks);
 * - a leading UTF-8 BOM is dropped; lines starting with `:` are comments;
 * - `data:` lines are joined with LF; `event:` sets the type (default `message`); `id:` sets the
 *   last event ID unless it contains NUL; `retry:` is kept when it is all ASCII digits;
 * - one space after the colon is removed; a blank line ends the block.
 *
 * Every block is returned, not only the ones that dispatch an event, because a relay must pass
 * priming events (an `id:` with an empty `data:`, which MCP 2025-11-25 servers send first so a
 * client can resume), `retry:` and comments on to its client unchanged: each block carries its
 * `raw` bytes. {@linkcode sseMessageData} says which blocks hold a JSON-RPC message.
 *
 * The data stays bytes, so the strict JSON parser sees exactly what the server sent (invalid
 * UTF-8 is rejected there, not papered over here). Cost is linear in the bytes received, however
 * the stream is cut into chunks; {@linkcode SseParser.buffered} lets callers cap an open block.
 *
 * @module
 */

/** One block of the stream, ended by a blank line. */
export interface SseEvent {
  /** The event type (`message` when no `event:` field was given). */
  readonly event: string;
  /** The data lines joined with LF, as bytes (empty when there were none). */
  readonly data: Uint8Array;
  /**
   * Whether the block dispatches an event under the WHATWG rules: it had at least one `data:`
   * line (possibly empty). A block of only `id:`/`retry:`/`event:` fields or comments does not.
   */
  readonly dispatch: boolean;
  /** The `id:` field of this block, if it had a valid one. */
  readonly id?: string;
  /** The stream's last event ID after this block (what a client sends as `Last-Event-ID`). */
  readonly lastEventId: string;
  /** The `retry:` field of this block (milliseconds), if it had a valid one. */
  readonly retry?: number;
  /** The block's bytes as received, through its terminating blank line. */
  readonly raw: Uint8Array;
}

const LF = 0x0a, CR = 0x0d, COLON = 0x3a, SPACE = 0x20;
const decoder = new TextDecoder("utf-8", { ignoreBOM: true }); // a BOM mid-stream is data

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The JSON-RPC payload of a block: the data of a dispatched `message` event with at least one
 * byte. Priming events (empty data), other event types and field-only blocks carry none.
 *
 * @example
 * ```ts
 * import { SseParser, sseMessageData } from "./sse.ts";
 * const [priming, message] = new SseParser().push(
 *   new TextEncoder().encode('id: 1\ndata:\n\nid: 2\ndata: {"jsonrpc":"2.0"}\n\n'),
 * );
 * console.log(sseMessageData(priming), sseMessageData(message)?.length); // undefined 17
 * ```
 */
export function sseMessageData(e: SseEvent): Uint8Array | undefined {
  return e.dispatch && e.event === "message" && e.data.length > 0 ? e.data : undefined;
}

/**
 * Serializes one event. Multi-line data becomes several `data:` lines; `id`, `event` (unless
 * `message`) and `retry` are written when given.
 *
 * @example
 * ```ts
 * import { formatSseEvent } from "./sse.ts";
 * new TextDecoder().decode(formatSseEvent({ data: '{"a":1}', id: "7" })); // 'id: 7\ndata: {"a":1}\n\n'
 * ```
 */
export function formatSseEvent(
  e: { data: string; event?: string; id?: string; retry?: number },
): Uint8Array {
  let text = "";
  if (e.id !== undefined) text += `id: ${e.id}\n`;
  if (e.event !== undefined && e.event !== "message") text += `event: ${e.event}\n`;
  if (e.retry !== undefined) text += `retry: ${e.retry}\n`;
  for (const l of e.data.split("\n")) text += `data: ${l}\n`;
  return new TextEncoder().encode(text + "\n");
}

/**
 * Incremental SSE parser: feed it chunks, it returns the blocks completed so far.
 *
 * @example
 * ```ts
 * import { SseParser } from "./sse.ts";
 * const p = new SseParser();
 * const events = p.push(new TextEncoder().encode('event: message\ndata: {"a":1}\n\n'));
 * console.log(events[0].event, new TextDecoder().decode(events[0].data)); // message {"a":1}
 * ```
 */
export class SseParser {
  /** Pieces of the current (incomplete) line. */
  #line: Uint8Array[] = [];
  #lineSize = 0;
  /** Raw pieces of the current block, line endings included. */
  #block: Uint8Array[] = [];
  #blockSize = 0;
  #lines = 0;
  #data: Uint8Array[] = [];
  #dataSize = 0;
  #event = "";
  #id: string | undefined;
  #retry: number | undefined;
  #lastEventId = "";
  /** Bytes held back at the stream start until it is known whether they begin with a BOM. */
  #start: Uint8Array | null = new Uint8Array(0);
  #pendingCr = false;

  /** Bytes held for the block still open (callers cap it). */
  get buffered(): number {
    return this.#blockSize + this.#lineSize;
  }

  /** Adds bytes; returns the blocks they complete. */
  push(chunk: Uint8Array): SseEvent[] {
    let bytes = chunk;
    if (this.#start !== null) {
      const head = concat([this.#start, bytes], this.#start.length + bytes.length);
      const bom = [0xef, 0xbb, 0xbf];
      const prefix = head.length < 3 && head.every((b, k) => b === bom[k]);
      if (prefix) {
        this.#start = head.slice();
        return [];
      }
      this.#start = null;
      bytes = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
    }
    const events: SseEvent[] = [];
    let start = 0;
    if (this.#pendingCr && bytes.length > 0) {
      this.#pendingCr = false;
      if (bytes[0] === LF) {
        this.#block.push(bytes.slice(0, 1));
        this.#blockSize++;
        start = 1;
      }
    }
    for (let i = start; i < bytes.length; i++) {
      const b = bytes[i];
      if (b !== LF && b !== CR) continue;
      let end = i + 1;
      if (b === CR) {
        if (i + 1 < bytes.length) {
          if (bytes[i + 1] === LF) end = i + 2;
        } else {
          this.#pendingCr = true; // an LF may follow in the next chunk
        }
      }
      this.#endLine(bytes.subarray(start, i), bytes.subarray(start, end), events);
      i = end - 1;
      start = end;
    }
    if (start < bytes.length) {
      this.#line.push(bytes.slice(start));
      this.#lineSize += bytes.length - start;
    }
    return events;
  }

  #endLine(tail: Uint8Array, rawTail: Uint8Array, events: SseEvent[]): void {
    const line = this.#lineSize === 0
      ? tail
      : concat([...this.#line, tail], this.#lineSize + tail.length);
    const raw = this.#lineSize === 0
      ? rawTail.slice()
      : concat([...this.#line, rawTail], this.#lineSize + rawTail.length);
    this.#line = [];
    this.#lineSize = 0;
    this.#block.push(raw);
    this.#blockSize += raw.length;
    if (line.length === 0) {
      if (this.#lines > 0) events.push(this.#endBlock());
      this.#block = [];
      this.#blockSize = 0;
      return;
    }
    this.#lines++;
    if (line[0] === COLON) return; // comment
    const colon = line.indexOf(COLON);
    const field = decoder.decode(colon < 0 ? line : line.subarray(0, colon));
    let value = colon < 0 ? new Uint8Array(0) : line.subarray(colon + 1);
    if (value.length > 0 && value[0] === SPACE) value = value.subarray(1);
    switch (field) {
      case "data":
        this.#data.push(value.slice());
        this.#dataSize += value.length;
        break;
      case "event":
        this.#event = decoder.decode(value);
        break;
      case "id":
        if (!value.includes(0)) this.#id = this.#lastEventId = decoder.decode(value);
        break;
      case "retry":
        if (value.length > 0 && value.every((b) => b >= 0x30 && b <= 0x39)) {
          this.#retry = Number(decoder.decode(value));
        }
        break;
      default: // unknown fields are ignored
    }
  }

  #endBlock(): SseEvent {
    const parts = this.#data;
    const data = new Uint8Array(parts.length === 0 ? 0 : this.#dataSize + parts.length - 1);
    let at = 0;
    parts.forEach((p, k) => {
      if (k > 0) data[at++] = LF;
      data.set(p, at);
      at += p.length;
    });
    const event: SseEvent = {
      event: this.#event || "message",
      data,
      dispatch: parts.length > 0,
      ...(this.#id === undefined ? {} : { id: this.#id }),
      lastEventId: this.#lastEventId,
      ...(this.#retry === undefined ? {} : { retry: this.#retry }),
      raw: concat(this.#block, this.#blockSize),
    };
    this.#data = [];
    this.#dataSize = 0;
    this.#event = "";
    this.#id = undefined;
    this.#retry = undefined;
    this.#lines = 0;
    return event;
  }
}
