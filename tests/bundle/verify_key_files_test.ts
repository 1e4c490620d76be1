// Reading the authority key (and its revocation document) of `bundle verify --public-key`.
import assert from "node:assert/strict";
import { isSchemaPinError } from "../../lib/errors.ts";
import { readAuthorityKeyFiles } from "../../cli/bundle/verify_key.ts";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import { AUTH_1, revocationDoc } from "./_helpers.ts";

const FILES: Record<string, string> = {
  "public.pem": AUTH_1.publicKey.pem,
  "private.pem": privateKeyToPem(AUTH_1),
  "revocations.json": JSON.stringify(revocationDoc("example.com", AUTH_1.publicKey.fingerprint)),
  "broken.json": "{",
  "latin1.pem": "\xff",
};

const read = (path: string) => {
  if (!(path in FILES)) return Promise.reject(new Error(`unexpected read of ${path}`));
  const text = FILES[path];
  return Promise.resolve(
    path === "latin1.pem" ? new Uint8Array([0xff]) : new TextEncoder().encode(text),
  );
};

Deno.test("readAuthorityKeyFiles: the public key alone", async () => {
  const { key, revocation } = await readAuthorityKeyFiles({ publicKey: "public.pem" }, read);
  assert.equal(key.fingerprint, AUTH_1.publicKey.fingerprint);
  assert.equal(revocation, undefined);
});

Deno.test("readAuthorityKeyFiles: the key and its revocation document", async () => {
  const { revocation } = await readAuthorityKeyFiles(
    { publicKey: "public.pem", revocation: "revocations.json" },
    read,
  );
  assert.equal(revocation?.source, "revocations.json");
  assert.equal(revocation?.document.revoked_keys[0].fingerprint, AUTH_1.publicKey.fingerprint);
});

Deno.test("readAuthorityKeyFiles: a private key is KEY_INVALID, saying how to derive the public one", async () => {
  await assert.rejects(
    readAuthorityKeyFiles({ publicKey: "private.pem" }, read),
    (e) =>
      isSchemaPinError(e, "KEY_INVALID") &&
      e.message.startsWith("--public-key private.pem holds a private key") &&
      e.message.includes("openssl pkey"),
  );
});

Deno.test("readAuthorityKeyFiles: text that is not UTF-8 is INPUT_INVALID naming the file", async () => {
  await assert.rejects(
    readAuthorityKeyFiles({ publicKey: "latin1.pem" }, read),
    (e) =>
      isSchemaPinError(e, "INPUT_INVALID") && e.message === "latin1.pem is not valid UTF-8 text",
  );
});

Deno.test("readAuthorityKeyFiles: a malformed revocation document names the file", async () => {
  await assert.rejects(
    readAuthorityKeyFiles({ publicKey: "public.pem", revocation: "broken.json" }, read),
    (e) => isSchemaPinError(e, "JSON_INVALID") && e.message.includes("broken.json"),
  );
});

Deno.test("readAuthorityKeyFiles: misuse is INPUT_INVALID", async () => {
  for (
    const [files, reader] of [
      [undefined, read],
      [{ publicKey: 42 }, read],
      [{ publicKey: "public.pem", revocation: 1 }, read],
      [{ publicKey: "public.pem" }, undefined],
    ] as const
  ) {
    await assert.rejects(
      readAuthorityKeyFiles(files as never, reader as never),
      (e) => isSchemaPinError(e, "INPUT_INVALID"),
    );
  }
});
