/**
 * The newline-delimited JSON framing of the stdio guard: blank lines, a JSON value as one
 * line, and the lines of one chunk gathered for a single write.
 *
 * @module
 */
import type { JsonValue } from "../json/types.ts";

const encoder = new TextEncoder();
const NL = 0x0a;

/**
 * True for a line of only spaces, tabs and CRs (passed on as it is, never parsed).
 *
 * @example
 * ```ts
 * import { isBlank } from "./stdio_lines.ts";
 * isBlank(new TextEncoder().encode(" \r")); // true
 * ```
 */
export function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

/**
 * A JSON value as one line, LF included.
 *
 * @example
 * ```ts
 * import { line } from "./stdio_lines.ts";
 * new TextDecoder().decode(line({ id: 1 })); // '{"id":1}\n'
 * ```
 */
export function line(value: JsonValue): Uint8Array {
  return encoder.encode(JSON.stringify(value) + "\n");
}

/**
 * Messages waiting to be written in one go: the lines of one chunk, each followed by LF, in
 * a single buffer (one write instead of one per message).
 *
 * @example
 * ```ts
 * import { Outbox } from "./stdio_lines.ts";
 * const out = new Outbox();
 * out.add(new TextEncoder().encode('{"id":1}'));
 * out.addValue({ id: 2 });
 * new TextDecoder().decode(out.take()); // '{"id":1}\n{"id":2}\n'
 * out.take(); // undefined
 * ```
 */
export class Outbox {
  #lines: Uint8Array[] = [];
  #size = 0;

  /** Adds the bytes of one line (without its LF). */
  add(bytes: Uint8Array): void {
    this.#lines.push(bytes);
    this.#size += bytes.length + 1;
  }

  /** Adds a JSON value as one line. */
  addValue(value: JsonValue): void {
    this.add(encoder.encode(JSON.stringify(value)));
  }

  /** The lines added since the last take, each followed by LF; undefined when none were. */
  take(): Uint8Array | undefined {
    if (this.#lines.length === 0) return undefined;
    const out = new Uint8Array(this.#size);
    let at = 0;
    for (const l of this.#lines) {
      out.set(l, at);
      at += l.length;
      out[at++] = NL;
    }
    this.#lines = [];
    this.#size = 0;
    return out;
  }
}
