import assert from "node:assert/strict";
import { closest, didYouMean, editDistance } from "../../cli/args/suggest.ts";

// Distances worked out by hand (insert, delete, substitute, swap neighbours: 1 each).
const DISTANCES: [string, string, number][] = [
  ["", "", 0],
  ["", "abc", 3],
  ["abc", "", 3],
  ["verify", "verify", 0],
  ["verfy-schema", "verify-schema", 1], // insert i
  ["sing", "sign", 1], // swap
  ["--ouput", "--out", 2], // delete u, p
  ["kitten", "sitting", 3],
  ["ca", "abc", 3], // optimal string alignment, not unrestricted Damerau (2)
  ["keygen", "revoke", 5],
];

Deno.test("editDistance: hand-computed distances, symmetric", () => {
  for (const [a, b, d] of DISTANCES) {
    assert.deepEqual(editDistance(a, b), d, `${a} → ${b}`);
    assert.deepEqual(editDistance(b, a), d, `${b} → ${a}`);
  }
});

const COMMANDS = ["keygen", "sign-schema", "verify-schema", "sign-skill", "verify-skill", "pins"];

Deno.test("closest: offers only close words", () => {
  assert.deepEqual(closest("verfy-schema", COMMANDS), ["verify-schema"]);
  assert.deepEqual(closest("keygne", COMMANDS), ["keygen"]);
  assert.deepEqual(closest("--ouput", ["--out", "--json", "--key"]), ["--out"]);
  assert.deepEqual(closest("--output", ["--out", "--json"]), ["--out"]); // prefix
  assert.deepEqual(closest("verify", COMMANDS), ["verify-schema", "verify-skill"]); // tie, in order
  assert.deepEqual(closest("VERIFY-SCHEMA", COMMANDS), ["verify-schema"]); // case ignored
  assert.deepEqual(closest("pin", COMMANDS), ["pins"]);
});

Deno.test("closest: nothing for far or very short words", () => {
  assert.deepEqual(closest("frobnicate", COMMANDS), []);
  assert.deepEqual(closest("x", ["y", "z"]), []); // one letter: no guess
  assert.deepEqual(closest("ab", ["ac"]), []); // two letters: no guess
  assert.deepEqual(closest("--zzzz", ["--out", "--json"]), []);
  assert.deepEqual(closest("abcd", ["wxyz"]), []);
  assert.deepEqual(closest("verify-everything", COMMANDS), []);
  assert.deepEqual(closest("ve", COMMANDS), []); // a prefix of under 3 letters is no hint
  assert.deepEqual(closest("anything", []), []);
});

Deno.test("didYouMean: the text, or nothing", () => {
  assert.deepEqual(didYouMean("verfy-schema", COMMANDS), "; did you mean verify-schema?");
  assert.deepEqual(
    didYouMean("verify", COMMANDS),
    "; did you mean verify-schema or verify-skill?",
  );
  assert.deepEqual(
    didYouMean("abc", ["abd", "abe", "abf", "abg"]),
    "; did you mean abd, abe or abf?",
  );
  assert.deepEqual(didYouMean("frobnicate", COMMANDS), "");
  assert.deepEqual(didYouMean("", COMMANDS), "");
});
