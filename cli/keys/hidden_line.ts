/**
 * The line editor of a passphrase typed without echo: bytes in (what a terminal in raw mode
 * sends), the line out. It reads through the caller's `read` and prints nothing; the CLI puts
 * the terminal in raw mode around it (cli/commands/private_key.ts `terminalPassphrasePrompt`).
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { MAX_PASSPHRASE_BYTES } from "./private_key.ts";

/**
 * Reads one line from a terminal in raw mode, echoing nothing: Enter ends it; Backspace/Delete
 * removes the last character (a whole UTF-8 sequence), Ctrl-U the whole line; Ctrl-C, or
 * Ctrl-D on an empty line, cancels (`undefined`); escape sequences (arrow keys) and other
 * control characters are ignored. At most {@linkcode MAX_PASSPHRASE_BYTES} bytes.
 *
 * @param read Reads bytes into the buffer, `null` at end of input (`Deno.stdin.read`).
 * @throws {SchemaPinError} `INPUT_INVALID` for a line longer than the limit.
 *
 * @example
 * ```ts
 * import { readHiddenLine } from "./hidden_line.ts";
 * const chunks = [new TextEncoder().encode("s3cret\r")];
 * await readHiddenLine(async (buf) => {
 *   const c = chunks.shift();
 *   if (!c) return null;
 *   buf.set(c);
 *   return c.length;
 * }); // "s3cret"
 * ```
 */
export async function readHiddenLine(
  read: (buf: Uint8Array) => Promise<number | null>,
): Promise<string | undefined> {
  const line: number[] = [];
  const buf = new Uint8Array(256);
  let escape: "none" | "start" | "csi" = "none";
  try {
    for (;;) {
      const n = await read(buf);
      if (n === null) return line.length === 0 ? undefined : decodeLine(line);
      for (const b of buf.subarray(0, n)) {
        if (escape === "start") {
          escape = b === 0x5b || b === 0x4f ? "csi" : "none"; // ESC [ or ESC O
          continue;
        }
        if (escape === "csi") {
          if (b >= 0x40 && b <= 0x7e) escape = "none"; // final byte of the sequence
          continue;
        }
        if (b === 0x0d || b === 0x0a) return decodeLine(line);
        if (b === 0x03) return undefined; // Ctrl-C
        if (b === 0x04) {
          if (line.length === 0) return undefined; // Ctrl-D on an empty line
          continue;
        }
        if (b === 0x7f || b === 0x08) {
          // Remove one character: its continuation bytes (10xxxxxx) and its lead byte.
          while (line.length > 0 && (line[line.length - 1] & 0xc0) === 0x80) line.pop();
          line.pop();
          continue;
        }
        if (b === 0x15) {
          line.fill(0);
          line.length = 0;
          continue;
        }
        if (b === 0x1b) {
          escape = "start";
          continue;
        }
        if (b < 0x20) continue;
        if (line.length >= MAX_PASSPHRASE_BYTES) {
          throw new SchemaPinError(
            "INPUT_INVALID",
            `the passphrase is longer than ${MAX_PASSPHRASE_BYTES} bytes`,
          );
        }
        line.push(b);
      }
    }
  } finally {
    buf.fill(0);
  }
}

function decodeLine(bytes: number[]): string {
  const arr = new Uint8Array(bytes);
  bytes.fill(0);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(arr);
  } catch {
    throw new SchemaPinError("INPUT_INVALID", "the passphrase typed is not valid UTF-8");
  } finally {
    arr.fill(0);
  }
}
