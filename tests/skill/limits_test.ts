// The caps of a skill folder written as text (lib/skill/limits.ts): a count of files, a size
// in bytes with an optional K, M or G suffix (powers of 1024).
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { parseByteSize, parseEntryCount } from "../../cli/skill/limits.ts";

Deno.test("limits: entry counts", () => {
  assert.equal(parseEntryCount("1"), 1);
  assert.equal(parseEntryCount("999999999"), 999_999_999);
});

Deno.test("limits: byte sizes with and without a suffix", () => {
  assert.equal(parseByteSize("4096"), 4096);
  assert.equal(parseByteSize("512M"), 512 * 1024 ** 2);
  assert.equal(parseByteSize("1gib"), 1024 ** 3);
  assert.equal(parseByteSize("2kB"), 2048);
});

Deno.test("limits: what is not a count", () => {
  for (const text of ["0", "-1", "01", "1.5", "1e3", " 5", "1000000000", "", "ten"]) {
    assert.equal(parseEntryCount(text), undefined, text);
  }
});

Deno.test("limits: what is not a size", () => {
  for (const text of ["0", "0M", "1.5G", "1T", "M", "1 M", "-1", "1Mi", "99999999999999999G"]) {
    assert.equal(parseByteSize(text), undefined, text);
  }
});

Deno.test("limits: misuse is INPUT_INVALID naming the function", () => {
  for (
    const [fn, name] of [[parseEntryCount, "parseEntryCount"], [
      parseByteSize,
      "parseByteSize",
    ]] as const
  ) {
    assert.throws(
      () => fn(5 as unknown as string),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
        e.message.startsWith(`${name}: text must be a string`),
    );
  }
});
