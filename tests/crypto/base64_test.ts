import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { decodeBase64Strict, encodeBase64, scanBase64 } from "../../lib/crypto/base64.ts";
import { thrown } from "./openssl_keys.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

Deno.test("RFC 4648 §10 test vectors encode and decode", () => {
  const vectors: [string, string][] = [
    ["", ""],
    ["f", "Zg=="],
    ["fo", "Zm8="],
    ["foo", "Zm9v"],
    ["foob", "Zm9vYg=="],
    ["fooba", "Zm9vYmE="],
    ["foobar", "Zm9vYmFy"],
  ];
  for (const [plain, b64] of vectors) {
    assert.equal(encodeBase64(utf8(plain)), b64);
    assert.deepEqual(decodeBase64Strict(b64, "vector"), utf8(plain));
  }
});

Deno.test("random byte strings round-trip and agree with btoa", () => {
  for (let len = 0; len < 200; len += 7) {
    const bytes = crypto.getRandomValues(new Uint8Array(len));
    const text = encodeBase64(bytes);
    assert.equal(text, btoa(String.fromCharCode(...bytes)));
    assert.deepEqual(decodeBase64Strict(text, "random"), bytes);
  }
});

function assertBad(text: string, offset: number, pattern: RegExp): void {
  const e = thrown(() => decodeBase64Strict(text, "test signature"));
  assert.ok(e instanceof SchemaPinError);
  assert.equal(e.code, "INPUT_INVALID");
  assert.match(e.message, /^test signature is not valid Base64: /);
  assert.match(e.message, pattern);
  assert.equal(e.details.offset, offset);
  assert.equal(e.details.what, "test signature");
  assert.match(e.message, new RegExp(`at offset ${offset}$`));
}

Deno.test("missing or misplaced padding is rejected", () => {
  assertBad("Zg", 2, /length 2 is not a multiple of 4/);
  assertBad("Zm8", 3, /padding "=" is required/);
  assertBad("Zg=", 3, /multiple of 4/);
  assertBad("Z===", 1, /padding "=" before the end/);
  assertBad("Zg==Zg==", 4, /"Z" after padding/);
  assertBad("====", 0, /before the end/);
});

Deno.test("whitespace and line breaks are rejected at their offset", () => {
  assertBad("Zm9v Zm9v", 4, /a space/);
  assertBad("Zm9v\nZm9v", 4, /a line break/);
  assertBad("Zm9v\r\n", 4, /a line break/);
  assertBad("\tZm9v", 0, /a tab/);
  assertBad("Zm9vYg==\n", 8, /a line break/);
});

Deno.test("URL-safe and other foreign characters are rejected", () => {
  assertBad("Zm-v", 2, /URL-safe/);
  assertBad("Zm_v", 2, /URL-safe/);
  assertBad("Zm9v!A==", 4, /"!"/);
  assertBad("Zm9é", 3, /"é"/);
  assertBad("Zm9\u0000", 3, /control character U\+0000/);
});

Deno.test("non-canonical trailing bits are rejected", () => {
  assertBad("Zh==", 1, /non-zero trailing bits/); // "Zg==" is canonical
  assertBad("Zm9=", 2, /non-zero trailing bits/); // "Zm8=" is canonical
  assertBad("Zm9vYh==", 5, /non-zero trailing bits/);
});

Deno.test("scanBase64 reports problems as values", () => {
  assert.deepEqual(scanBase64("Zg=="), new Uint8Array([0x66]));
  assert.deepEqual(scanBase64("Z g="), { problem: "a space", offset: 1 });
});
