// Reading an explicit public key given as a flag (`--public-key` of the verify commands and of
// `bundle verify`): a P-256 public key passes; a private key, a key of another curve, text that
// is not UTF-8 and a file that is not a key are refused naming the flag and the file.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { isSchemaPinError } from "../../lib/errors.ts";
import { readPublicKeyInput } from "../../lib/schema/input.ts";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import { AUTH_1 } from "../bundle/_helpers.ts";

const P384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" }).publicKey
  .export({ type: "spki", format: "pem" }) as string;

const FILES: Record<string, Uint8Array> = {
  "public.pem": new TextEncoder().encode(AUTH_1.publicKey.pem),
  "private.pem": new TextEncoder().encode(privateKeyToPem(AUTH_1)),
  "p384.pem": new TextEncoder().encode(P384),
  "latin1.pem": new Uint8Array([0xff]),
  "notes.txt": new TextEncoder().encode("not a key\n"),
};
const read = (path: string) =>
  path in FILES ? Promise.resolve(FILES[path]) : Promise.reject(new Error(`no ${path}`));
const OPTIONS = { flag: "--public-key", advice: "give public.pem" };

Deno.test("readPublicKeyInput: a P-256 public key is read and parsed", async () => {
  const key = await readPublicKeyInput("public.pem", read, OPTIONS);
  assert.equal(key.fingerprint, AUTH_1.publicKey.fingerprint);
});

Deno.test("readPublicKeyInput: a private key is KEY_INVALID with the advice, naming flag and file", async () => {
  await assert.rejects(
    readPublicKeyInput("private.pem", read, OPTIONS),
    (e) =>
      isSchemaPinError(e) && e.code === "KEY_INVALID" &&
      e.message === "--public-key private.pem holds a private key; verifying needs only the " +
          "public key: give public.pem" &&
      e.details.path === "private.pem",
  );
});

Deno.test("readPublicKeyInput: another curve, not UTF-8, not a key: refused naming the file", async () => {
  await assert.rejects(
    readPublicKeyInput("p384.pem", read, OPTIONS),
    (e) => isSchemaPinError(e) && e.code === "KEY_INVALID" && /p384\.pem/.test(e.message),
  );
  await assert.rejects(
    readPublicKeyInput("latin1.pem", read, OPTIONS),
    (e) => isSchemaPinError(e) && e.code === "INPUT_INVALID" && /latin1\.pem/.test(e.message),
  );
  await assert.rejects(
    readPublicKeyInput("notes.txt", read, OPTIONS),
    (e) => isSchemaPinError(e) && /--public-key notes\.txt/.test(e.message),
  );
});

Deno.test("readPublicKeyInput: a path or options of the wrong type is INPUT_INVALID", async () => {
  for (const [path, options] of [[undefined, OPTIONS], ["public.pem", undefined]] as const) {
    await assert.rejects(
      readPublicKeyInput(path as never, read, options as never),
      (e) => isSchemaPinError(e) && e.code === "INPUT_INVALID",
    );
  }
});
