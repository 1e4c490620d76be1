// lib/crypto/hash.ts against node:crypto: the one-shot hex hash, the text hash (including the
// JavaScript SHA-256 of short texts: every length around the 55/56/64-byte padding
// boundaries, 2-, 3- and 4-byte UTF-8 characters, lone surrogates) and the byte forms.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { hexInto, sha256, sha256Hex, sha256HexOfText, toHex } from "../../lib/crypto/hash.ts";

const reference = (data: string | Uint8Array) =>
  createHash("sha256").update(data as Uint8Array).digest("hex");

// First in this file: until 1 MiB has been hashed in JavaScript, or an input over 64 KiB
// arrives, lib/crypto/hash.ts hashes in JavaScript (under Deno it loads node:crypto on first need).
Deno.test("sha256Hex and sha256HexOfText in JavaScript equal node:crypto at every block boundary", () => {
  const sizes = [...Array(200).keys(), 447, 448, 511, 512, 4095, 4096, 65_535, 65_536];
  for (const size of sizes) {
    const data = new Uint8Array(size).map((_, i) => (i * 131 + size * 7) & 0xff);
    assert.equal(sha256Hex(data), reference(data), `${size} bytes`);
  }
  for (const n of [49, 63, 64, 100, 1000, 21_845, 65_536]) {
    const text = "\u00e9a\u{1F600}\ud800".repeat(n).slice(0, n); // lone surrogates → U+FFFD
    assert.equal(sha256HexOfText(text), reference(new TextEncoder().encode(text)), `${n} units`);
  }
  // Across the 1 MiB budget (the inputs above are ~0.4 MiB), then over 64 KiB: native.
  const big = new Uint8Array(700_000).map((_, i) => (i * 7) & 0xff);
  for (let i = 0; i < 12; i++) {
    const part = big.subarray(i, i + 65_536);
    assert.equal(sha256Hex(part), reference(part), `64 KiB part ${i}`);
  }
  assert.equal(sha256Hex(big), reference(big));
  assert.equal(sha256Hex(new Uint8Array(3)), reference(new Uint8Array(3)));
});

Deno.test("sha256HexOfText equals node:crypto over UTF-8 for every short length and alphabet", () => {
  const alphabet = ["a", "\u00e9", "\u4e2d", "\u{1F600}", "\ud800", "\udc00", "\u0000", "\u007f"];
  let checked = 0;
  for (let n = 0; n <= 80; n++) {
    for (let variant = 0; variant < alphabet.length; variant++) {
      let text = "";
      for (let i = 0; text.length < n; i++) text += alphabet[(i * 3 + variant) % alphabet.length];
      text = text.slice(0, n);
      const utf8 = new TextEncoder().encode(text); // lone surrogates → U+FFFD
      assert.equal(sha256HexOfText(text), reference(utf8), `length ${n}, variant ${variant}`);
      checked++;
    }
  }
  assert.ok(checked > 600);
  assert.equal(
    sha256HexOfText(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    sha256HexOfText("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  const long = "x".repeat(1000) + "\u00e9";
  assert.equal(sha256HexOfText(long), reference(new TextEncoder().encode(long)));
});

Deno.test("sha256, sha256Hex, hexInto and toHex agree with node:crypto", () => {
  for (const size of [0, 1, 55, 56, 64, 1000, 70_000]) {
    const data = new Uint8Array(size).map((_, i) => (i * 31 + size) & 0xff);
    assert.equal(sha256Hex(data), reference(data));
    assert.equal(toHex(sha256(data)), reference(data));
  }
  const out = new Uint8Array(4);
  hexInto("00ff7a", out, 1);
  assert.deepEqual([...out], [0, 0, 255, 122]);
  assert.throws(() => hexInto("0G", out, 0), TypeError);
  assert.throws(() => hexInto("AB", out, 0), TypeError, "upper case is not lowercase hex");
});
