import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { formatPem, parsePem } from "../../lib/crypto/pem.ts";
import { thrown } from "./openssl_keys.ts";

const bytes = crypto.getRandomValues(new Uint8Array(90)); // 120 Base64 characters: lines of 64 and 56
const pem = formatPem("TEST DATA", bytes);

function assertPemError(
  text: string,
  pattern: RegExp,
  details: Record<string, unknown> = {},
): void {
  const e = thrown(() => parsePem(text, { source: "f.pem", what: "thing" }));
  assert.ok(e instanceof SchemaPinError);
  assert.equal(e.code, "INPUT_INVALID");
  assert.match(e.message, /^thing in f\.pem: /);
  assert.match(e.message, pattern);
  assert.equal(e.details.source, "f.pem");
  for (const [k, v] of Object.entries(details)) assert.deepEqual(e.details[k], v, `details.${k}`);
}

Deno.test("formatPem writes 64-character lines and a trailing newline; parsePem reads it back", () => {
  const lines = pem.split("\n");
  assert.equal(lines[0], "-----BEGIN TEST DATA-----");
  assert.equal(lines[1].length, 64);
  assert.equal(lines[2].length, 56);
  assert.equal(lines[3], "-----END TEST DATA-----");
  assert.equal(lines[4], "");
  assert.deepEqual(parsePem(pem), { label: "TEST DATA", der: bytes });
});

Deno.test("CRLF, a BOM, surrounding whitespace, other line lengths and no final newline are accepted", () => {
  const body = btoa(String.fromCharCode(...bytes));
  const variants = [
    pem.replaceAll("\n", "\r\n"),
    "\ufeff" + pem,
    "\n\n  \t" + pem + "\n  \n",
    `-----BEGIN TEST DATA-----\n${body}\n-----END TEST DATA-----`,
    `-----BEGIN TEST DATA-----\n${body.slice(0, 10)}\n${body.slice(10)}\n-----END TEST DATA-----\n`,
  ];
  for (const text of variants) assert.deepEqual(parsePem(text).der, bytes);
});

Deno.test("text outside the armor is rejected", () => {
  assertPemError("hello\n" + pem, /unexpected text before the BEGIN line \(line 1\)/, { line: 1 });
  assertPemError(pem + "trailer\n", /unexpected text after the END line \(line 5\)/, { line: 5 });
  assertPemError("nothing here", /not a PEM block/);
});

Deno.test("two blocks are rejected and both labels named", () => {
  assertPemError(pem + formatPem("OTHER", bytes), /found 2 PEM blocks \("TEST DATA", "OTHER"\)/, {
    blocks: 2,
    labels: ["TEST DATA", "OTHER"],
  });
});

Deno.test("mismatched, missing or malformed BEGIN/END lines are rejected", () => {
  assertPemError(pem.replace("END TEST DATA", "END OTHER"), /does not match "BEGIN TEST DATA"/);
  assertPemError(pem.slice(0, pem.indexOf("-----END")), /no END line.*truncated/);
  assertPemError("-----BEGIN TEST DATA-----", /no END line/);
  assertPemError(
    pem.replace("-----BEGIN TEST DATA-----", "-----BEGIN TEST DATA----"),
    /malformed BEGIN line|malformed PEM label/,
  );
  assertPemError(pem.replaceAll("TEST DATA", "TEST  DATA"), /malformed PEM label/);
  assertPemError(pem.replace("\n-----END", "-----END"), /END line must start on its own line/);
});

Deno.test("the body must be strict Base64: spaces, bad characters, non-canonical bits are located", () => {
  const lines = pem.split("\n");
  const spaced = [lines[0], lines[1].slice(0, 5) + " " + lines[1].slice(5), ...lines.slice(2)].join(
    "\n",
  );
  assertPemError(spaced, /not valid Base64: a space \(line 2, column 6\)/, { line: 2, column: 6 });
  const bad = [lines[0], lines[1], "!" + lines[2].slice(1), ...lines.slice(3)].join("\n");
  assertPemError(bad, /"!" \(line 3, column 1\)/, { line: 3, column: 1 });
  assertPemError("-----BEGIN X-----\nZh==\n-----END X-----\n", /non-zero trailing bits/);
  assertPemError("-----BEGIN X-----\nZg\n-----END X-----\n", /multiple of 4/);
});

Deno.test("empty bodies and PEM headers are rejected; legacy encryption is called out", () => {
  assertPemError("-----BEGIN X-----\n-----END X-----\n", /block is empty/);
  assertPemError(
    "-----BEGIN X-----\nComment: hi\n\nZg==\n-----END X-----\n",
    /PEM headers are not supported \(line 2\)/,
  );
  assertPemError(
    "-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00\n\nZg==\n-----END EC PRIVATE KEY-----\n",
    /Proc-Type: 4,ENCRYPTED.*not supported; convert it/,
    { encrypted: true },
  );
});

Deno.test("the caller's error code is used", () => {
  const e = thrown(() => parsePem("x", { code: "KEY_INVALID" }));
  assert.ok(e instanceof SchemaPinError);
  assert.equal(e.code, "KEY_INVALID");
  assert.match(e.message, /^PEM: not a PEM block/);
  assert.throws(() => formatPem("bad\nlabel", bytes), RangeError);
});
