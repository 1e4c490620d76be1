/**
 * A byte-level Server-Sent Events parser (the WHATWG event-stream format), enough for the
 * Streamable HTTP transport: `data:` lines are joined with LF, `event:` names the type, a blank
 * line dispatches, `:` lines are comments. The data stays bytes, so the strict JSON parser
 * sees exactly what the server sent (invalid UTF-8 is rejected there, not papered over here).
 *
 * @module
 */

/** One dispatched event. */
export interface SseEvent {
  /** The event type (`message` when no `event:` field was given). */
  readonly event: string;
  /** The data lines joined with LF, as bytes. */
  readonly data: Uint8Array;
  /** The last `id:` seen, if any. */
  readonly id?: string;
}

const decoder = new TextDecoder();

/**
 * Incremental SSE parser: feed it chunks, it returns the events completed so far.
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
  #buffer = new Uint8Array(0);
  #data: Uint8Array[] = [];
  #event = "";
  #id: string | undefined;
  #first = true;
  #pendingCr = false;

  /** Total bytes held for an incomplete line (callers cap it). */
  get buffered(): number {
    return this.#buffer.length + this.#data.reduce((n, d) => n + d.length, 0);
  }

  /** Adds bytes; returns the events they complete. */
  push(chunk: Uint8Array): SseEvent[] {
    let bytes = chunk;
    if (this.#pendingCr && bytes.length > 0 && bytes[0] === 0x0a) bytes = bytes.subarray(1);
    this.#pendingCr = false;
    const joined = new Uint8Array(this.#buffer.length + bytes.length);
    joined.set(this.#buffer);
    joined.set(bytes, this.#buffer.length);
    if (this.#first && joined.length >= 3) {
      this.#first = false;
      // A leading UTF-8 BOM is not part of the stream (WHATWG event-stream).
      if (joined[0] === 0xef && joined[1] === 0xbb && joined[2] === 0xbf) {
        return this.#scan(joined.subarray(3));
      }
    }
    return this.#scan(joined);
  }

  #scan(bytes: Uint8Array): SseEvent[] {
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (b !== 0x0a && b !== 0x0d) continue;
      const event = this.#lineDone(bytes.subarray(start, i));
      if (event) events.push(event);
      if (b === 0x0d) {
        if (i + 1 < bytes.length) {
          if (bytes[i + 1] === 0x0a) i++;
        } else {
          this.#pendingCr = true; // CR at the chunk end: an LF may follow in the next chunk
        }
      }
      start = i + 1;
    }
    this.#buffer = bytes.slice(start);
    return events;
  }

  #lineDone(line: Uint8Array): SseEvent | undefined {
    if (line.length === 0) return this.#dispatch();
    if (line[0] === 0x3a) return undefined; // comment
    const colon = line.indexOf(0x3a);
    const field = decoder.decode(colon < 0 ? line : line.subarray(0, colon));
    let value = colon < 0 ? new Uint8Array(0) : line.subarray(colon + 1);
    if (value.length > 0 && value[0] === 0x20) value = value.subarray(1);
    switch (field) {
      case "data":
        this.#data.push(value.slice());
        break;
      case "event":
        this.#event = decoder.decode(value);
        break;
      case "id":
        if (!value.includes(0)) this.#id = decoder.decode(value);
        break;
      default: // retry and unknown fields: nothing to do for a one-shot client
    }
    return undefined;
  }

  #dispatch(): SseEvent | undefined {
    const parts = this.#data;
    const event = this.#event || "message";
    this.#data = [];
    this.#event = "";
    if (parts.length === 0) return undefined;
    const size = parts.reduce((n, p) => n + p.length, 0) + parts.length - 1;
    const data = new Uint8Array(size);
    let at = 0;
    parts.forEach((p, i) => {
      if (i > 0) data[at++] = 0x0a;
      data.set(p, at);
      at += p.length;
    });
    return this.#id === undefined ? { event, data } : { event, data, id: this.#id };
  }
}
