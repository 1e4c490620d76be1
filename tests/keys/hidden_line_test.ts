// The line editor of a passphrase typed without echo (cli/keys/hidden_line.ts): bytes in, the
// line out; the raw-mode terminal around it is the CLI's (tests/cli/private_key_test.ts).
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { readHiddenLine } from "../../cli/keys/hidden_line.ts";

const enc = new TextEncoder();

/** A reader handing out the given chunks, then end of input. */
function chunks(...parts: (string | number[])[]) {
  const queue = parts.map((p) => typeof p === "string" ? enc.encode(p) : new Uint8Array(p));
  return (buf: Uint8Array) => {
    const c = queue.shift();
    if (c === undefined) return Promise.resolve(null);
    if (c.length > buf.length) queue.unshift(c.subarray(buf.length));
    const part = c.subarray(0, buf.length);
    buf.set(part);
    return Promise.resolve(part.length);
  };
}

Deno.test("readHiddenLine: Enter ends the line; edits, UTF-8 and escape sequences are handled", async () => {
  assert.equal(await readHiddenLine(chunks("secret\r", "ignored")), "secret");
  assert.equal(await readHiddenLine(chunks("sec", "ret\n")), "secret");
  // Backspace removes a whole UTF-8 character; Ctrl-U clears; arrow keys are ignored.
  assert.equal(await readHiddenLine(chunks("pä", [0x7f], "a", [0x08], "ß\r")), "pß");
  assert.equal(await readHiddenLine(chunks("wrong", [0x15], "right\r")), "right");
  assert.equal(await readHiddenLine(chunks("ab", [0x1b, 0x5b, 0x44], "c\r")), "abc");
  assert.equal(
    await readHiddenLine(chunks("x", [0x1b, 0x5b, 0x31, 0x3b, 0x35, 0x43], "y\r")),
    "xy",
  );
  assert.equal(await readHiddenLine(chunks("a", [0x01, 0x04], "b\r")), "ab", "controls dropped");
  assert.equal(await readHiddenLine(chunks("no newline")), "no newline", "end of input ends it");
});

Deno.test("readHiddenLine: Ctrl-C, Ctrl-D on an empty line and empty input cancel", async () => {
  assert.equal(await readHiddenLine(chunks("abc", [0x03], "def\r")), undefined);
  assert.equal(await readHiddenLine(chunks([0x04])), undefined);
  assert.equal(await readHiddenLine(chunks()), undefined);
});

Deno.test("readHiddenLine: an over-long line and invalid UTF-8 are INPUT_INVALID", async () => {
  await assert.rejects(
    readHiddenLine(chunks("x".repeat(1025) + "\r")),
    (e: unknown) => e instanceof SchemaPinError && /longer than 1024 bytes/.test(e.message),
  );
  await assert.rejects(
    readHiddenLine(chunks([0xc3, 0x28, 0x0d])),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      /not valid UTF-8/.test(e.message),
  );
});

Deno.test("readHiddenLine: a line of exactly the limit, read across many chunks, is kept", async () => {
  const max = "y".repeat(1024);
  assert.equal(await readHiddenLine(chunks(max.slice(0, 700), max.slice(700) + "\r")), max);
  // Backspace and Ctrl-U on an empty line do nothing; ESC O (SS3) sequences are skipped.
  assert.equal(await readHiddenLine(chunks([0x7f, 0x15], "a", [0x1b, 0x4f, 0x41], "b\n")), "ab");
});

Deno.test("readHiddenLine: the limit counts bytes, not characters, across chunks", async () => {
  await assert.rejects(
    readHiddenLine(chunks("ä".repeat(400), "ä".repeat(113) + "\r")),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      /longer than 1024 bytes/.test(e.message),
  );
  // A lone continuation byte left behind by the end of input is not valid UTF-8 either.
  await assert.rejects(
    readHiddenLine(chunks([0x61, 0xa4])),
    (e: unknown) => e instanceof SchemaPinError && /not valid UTF-8/.test(e.message),
  );
});
