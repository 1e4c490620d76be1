// lib/schema/input.ts: strict UTF-8 text inputs and values given as inline signatures.
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { signDocument } from "../../lib/crypto/ecdsa.ts";
import { inspectInlineSignature, readTextInput } from "../../lib/schema/input.ts";

const SIGNATURE = signDocument(new TextEncoder().encode("{}"), generateKeyPair());

Deno.test("inspectInlineSignature: a Base64 DER signature that names no path is inline", async () => {
  assert.deepEqual(await inspectInlineSignature(SIGNATURE), { path: "none", derSignature: true });
  assert.deepEqual(await inspectInlineSignature(` ${SIGNATURE}\n`), {
    path: "none",
    derSignature: true,
  });
});

Deno.test("inspectInlineSignature: an existing file is a file, whatever its name looks like", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/sig`;
    await Deno.writeTextFile(file, SIGNATURE);
    assert.equal((await inspectInlineSignature(file)).path, "file");
    assert.equal((await inspectInlineSignature(dir)).path, "other");
    assert.equal((await inspectInlineSignature("-")).path, "other");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("inspectInlineSignature: text that is not Base64 says why and where", async () => {
  const inline = await inspectInlineSignature("not base64!");
  assert.equal(inline.derSignature, false);
  assert.equal(inline.base64Problem?.offset, 3);
});

Deno.test("inspectInlineSignature: Base64 that is not a DER signature is not a signature", async () => {
  const inline = await inspectInlineSignature("aGVsbG8=");
  assert.deepEqual(inline, { path: "none", derSignature: false });
});

Deno.test("inspectInlineSignature: misuse is INPUT_INVALID", async () => {
  await assert.rejects(
    inspectInlineSignature(undefined as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});

Deno.test("readTextInput: UTF-8 text", async () => {
  const text = await readTextInput("a.pem", () => Promise.resolve(new TextEncoder().encode("é")));
  assert.equal(text, "é");
});

Deno.test("readTextInput: bytes that are not UTF-8 are INPUT_INVALID naming the file", async () => {
  await assert.rejects(
    readTextInput("a.pem", () => Promise.resolve(new Uint8Array([0xc3]))),
    (e) => isSchemaPinError(e, "INPUT_INVALID") && e.message === "a.pem is not valid UTF-8 text",
  );
});

Deno.test("readTextInput: misuse is INPUT_INVALID", async () => {
  await assert.rejects(
    readTextInput(1 as never, () => Promise.resolve(new Uint8Array())),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
  await assert.rejects(
    readTextInput("a.pem", "read" as never),
    (e) => isSchemaPinError(e, "INPUT_INVALID"),
  );
});
