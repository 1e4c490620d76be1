import assert from "node:assert/strict";
import { checkDomain, validateDomain } from "../../lib/dns/domain.ts";
import { isSchemaPinError } from "../../lib/errors.ts";

Deno.test("checkDomain accepts RFC 1123 host names and folds case", () => {
  const good: [string, string][] = [
    ["example.com", "example.com"],
    ["tools.example.com", "tools.example.com"],
    ["a-b.example.co.uk", "a-b.example.co.uk"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["Example.COM", "example.com"],
    ["1.example.com", "1.example.com"],
    ["123.example.io", "123.example.io"],
    ["a.b", "a.b"],
    [`${"a".repeat(63)}.com`, `${"a".repeat(63)}.com`],
  ];
  for (const [input, out] of good) {
    const c = checkDomain(input);
    assert.deepEqual(c, { ok: true, domain: out }, input);
  }
  // 253 characters in total is the maximum.
  const long = Array(4).fill("a".repeat(62)).join(".") + ".com";
  assert.equal(long.length, 255);
  assert.equal(checkDomain(long).ok, false);
  const max = Array(3).fill("a".repeat(63)).join(".") + "." + "b".repeat(61);
  assert.equal(max.length, 253);
  assert.equal(checkDomain(max).ok, true);
});

Deno.test("checkDomain rejects schemes, paths, ports, userinfo, IP literals and junk", () => {
  const bad: [unknown, RegExp][] = [
    ["", /empty/],
    ["localhost", /two labels/],
    ["https://example.com", /scheme/],
    ["http://example.com", /scheme/],
    ["example.com/path", /path/],
    ["example.com/../etc", /path/],
    ["..\\example.com", /path/],
    ["example.com:443", /port/],
    ["user@example.com", /userinfo/],
    ["user:pw@example.com", /userinfo/],
    ["192.168.0.1", /IP address|numeric/],
    ["10.0.0.1", /IP address|numeric/],
    ["[::1]", /IP literal/],
    ["::1", /colon/],
    ["example.com.", /trailing dot/],
    [".example.com", /empty label/],
    ["a..com", /empty label/],
    ["exa mple.com", /whitespace/],
    ["example.com\n", /whitespace/],
    ["-example.com", /label/],
    ["example-.com", /label/],
    ["ex_ample.com", /label/],
    ["*.example.com", /wildcard/],
    ["bücher.example", /non-ASCII/],
    [`${"a".repeat(64)}.com`, /longer than 63/],
    ["example.123", /numeric/],
    [42, /not a string/],
    [null, /not a string/],
  ];
  for (const [input, why] of bad) {
    const c = checkDomain(input);
    assert.equal(c.ok, false, String(input));
    if (!c.ok) assert.match(c.reason, why, String(input));
  }
});

Deno.test("validateDomain throws INPUT_INVALID naming the domain", () => {
  assert.equal(validateDomain("Tools.Example.com"), "tools.example.com");
  assert.throws(
    () => validateDomain("https://example.com"),
    (e) => isSchemaPinError(e, "INPUT_INVALID") && /https:\/\/example\.com/.test(e.message),
  );
});
