import assert from "node:assert/strict";
import { p256 } from "@noble/curves/nist.js";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  curveName,
  decodeEcdsaDer,
  DER_TAG,
  derBitString,
  derElement,
  derExplicit,
  derInteger,
  derNull,
  derOctetString,
  derOid,
  DerReader,
  derSequence,
  encodeEcdsaDer,
  keyAlgorithmName,
  OID,
} from "../../lib/crypto/der.ts";
import { toHex } from "../../lib/crypto/hash.ts";
import { thrown } from "./openssl_keys.ts";

const ctx = { what: "test", code: "INPUT_INVALID" as const };
const reader = (bytes: number[]) => new DerReader(new Uint8Array(bytes), ctx);

function assertDerError(fn: () => unknown, pattern: RegExp, offset?: number): void {
  const e = thrown(fn);
  assert.ok(e instanceof SchemaPinError);
  assert.equal(e.code, "INPUT_INVALID");
  assert.match(e.message, /^test: /);
  assert.match(e.message, pattern);
  if (offset !== undefined) assert.equal(e.details.offset, offset);
}

Deno.test("integers encode minimally and decode back", () => {
  const cases: [bigint, string][] = [
    [0n, "020100"],
    [1n, "020101"],
    [127n, "02017f"],
    [128n, "02020080"],
    [255n, "020200ff"],
    [256n, "02020100"],
    [p256.Point.Fn.ORDER, "022100" + p256.Point.Fn.ORDER.toString(16)],
  ];
  for (const [value, hex] of cases) {
    assert.equal(toHex(derInteger(value)), hex);
    assert.equal(new DerReader(derInteger(value), ctx).readUnsignedInteger("v"), value);
  }
});

Deno.test("object identifiers encode to the known bytes and decode back", () => {
  assert.equal(toHex(derOid(OID.ecPublicKey)), "06072a8648ce3d0201");
  assert.equal(toHex(derOid(OID.prime256v1)), "06082a8648ce3d030107");
  assert.equal(toHex(derOid(OID.ed25519)), "06032b6570");
  for (
    const oid of [
      ...Object.values(OID),
      "2.999.3",
      "1.2.840.113549.1.1.1",
      "2.25.1234567890123456789",
    ]
  ) {
    assert.equal(new DerReader(derOid(oid), ctx).readOid("oid"), oid);
  }
  assert.equal(keyAlgorithmName(OID.ed25519), "Ed25519");
  assert.equal(curveName(OID.secp384r1), "secp384r1 (P-384)");
  assert.equal(keyAlgorithmName("1.2.3.4"), undefined);
});

Deno.test("long-form lengths are written and read minimally", () => {
  const content = new Uint8Array(300);
  const el = derOctetString(content);
  assert.equal(toHex(el.subarray(0, 4)), "0482012c");
  assert.equal(new DerReader(el, ctx).readOctetString("x").length, 300);
  assert.equal(toHex(derOctetString(new Uint8Array(128)).subarray(0, 3)), "048180");
});

Deno.test("nested structures read back: SEQUENCE, [n], BIT STRING, NULL", () => {
  const der = derSequence(derExplicit(1, derBitString(new Uint8Array([4, 5]))), derNull());
  const outer = new DerReader(der, ctx);
  const seq = outer.readSequence("s");
  outer.finish("s");
  const tagged = seq.readExplicit(1, "t");
  assert.deepEqual(tagged.readBitString("b"), new Uint8Array([4, 5]));
  tagged.finish("t");
  assert.equal(seq.peekTag(), DER_TAG.NULL);
  seq.readNull("n");
  seq.finish("s");
  assert.equal(seq.done, true);
});

Deno.test("ECDSA signature DER round-trips", () => {
  const sig = { r: 0x80n, s: p256.Point.Fn.ORDER - 1n };
  assert.deepEqual(decodeEcdsaDer(encodeEcdsaDer(sig)), sig);
});

Deno.test("indefinite, non-minimal and oversized lengths are rejected", () => {
  assertDerError(
    () => reader([0x30, 0x80, 0, 0]).readSequence("s"),
    /indefinite length at byte 1/,
    1,
  );
  assertDerError(
    () => reader([0x04, 0x81, 0x05, 1, 2, 3, 4, 5]).read("o"),
    /non-minimal length/,
    1,
  );
  assertDerError(
    () => reader([0x04, 0x82, 0x00, 0x85, ...new Array(0x85).fill(0)]).read("o"),
    /non-minimal length/,
  );
  assertDerError(() => reader([0x04, 0x85, 1, 1, 1, 1, 1]).read("o"), /too large/);
});

Deno.test("truncation names the byte where the data ends", () => {
  assertDerError(
    () => reader([0x30, 0x05, 0x02, 0x01]).readSequence("s"),
    /truncated DER at byte 4/,
    4,
  );
  assertDerError(() => reader([0x30]).readSequence("s"), /truncated DER at byte 1/, 1);
  assertDerError(() => reader([]).readSequence("s"), /truncated DER at byte 0: s is missing/, 0);
  assertDerError(() => reader([0x04, 0x82, 0x01]).read("o"), /truncated DER at byte 3/);
  // an element running past its parent (not the end of the input) is said so
  const r = reader([0x30, 0x02, 0x04, 0x05, 0, 0, 0, 0, 0]);
  assertDerError(
    () => r.readSequence("s").read("o"),
    /runs past the end of its enclosing element at byte 4/,
  );
});

Deno.test("non-minimal, negative and empty integers are rejected", () => {
  assertDerError(
    () => reader([0x02, 0x02, 0x00, 0x7f]).readUnsignedInteger("r"),
    /non-minimal INTEGER r/,
    0,
  );
  assertDerError(
    () => reader([0x02, 0x02, 0xff, 0x80]).readUnsignedInteger("r"),
    /non-minimal INTEGER r/,
  );
  assertDerError(() => reader([0x02, 0x01, 0x80]).readUnsignedInteger("r"), /negative INTEGER r/);
  assertDerError(() => reader([0x02, 0x00]).readUnsignedInteger("r"), /empty INTEGER r/);
});

Deno.test("wrong tags, high tag numbers, trailing bytes and bad BIT STRINGs are rejected", () => {
  assertDerError(
    () => reader([0x31, 0x00]).readSequence("s"),
    /expected SEQUENCE for s at byte 0, found tag 0x31/,
  );
  assertDerError(() => reader([0x1f, 0x81, 0x00]).read("x"), /high tag number/);
  const r = reader([0x05, 0x00, 0x05]);
  r.readNull("n");
  assertDerError(() => r.finish("n"), /trailing bytes after n at byte 2/, 2);
  assertDerError(() => reader([0x03, 0x02, 0x01, 0x80]).readBitString("b"), /unused bits/);
  assertDerError(() => reader([0x03, 0x00]).readBitString("b"), /empty BIT STRING/);
  assertDerError(() => reader([0x05, 0x01, 0x00]).readNull("n"), /has content/);
});

Deno.test("malformed object identifiers are rejected", () => {
  assertDerError(() => reader([0x06, 0x00]).readOid("o"), /empty OBJECT IDENTIFIER/);
  assertDerError(
    () => reader([0x06, 0x02, 0x2a, 0x86]).readOid("o"),
    /truncated OBJECT IDENTIFIER/,
  );
  assertDerError(
    () => reader([0x06, 0x03, 0x2a, 0x80, 0x01]).readOid("o"),
    /non-minimal OBJECT IDENTIFIER/,
  );
});

Deno.test("ECDSA signatures with r or s out of [1, n) are rejected", () => {
  const n = p256.Point.Fn.ORDER;
  const bad = (r: bigint, s: bigint) => derSequence(derInteger(r), derInteger(s));
  const cases: [Uint8Array, RegExp][] = [
    [bad(0n, 1n), /r is zero/],
    [bad(1n, 0n), /s is zero/],
    [bad(n, 1n), /r is not less than/],
    [bad(1n, n), /s is not less than/],
  ];
  for (const [der, pattern] of cases) {
    const e = thrown(() => decodeEcdsaDer(der));
    assert.ok(e instanceof SchemaPinError && e.code === "INPUT_INVALID");
    assert.match(e.message, pattern);
  }
  assert.match(thrown(() => encodeEcdsaDer({ r: 0n, s: 1n })).message, /r is zero/);
});

Deno.test("writer misuse throws", () => {
  assert.throws(() => derInteger(-1n), RangeError);
  assert.throws(() => derOid("1"), RangeError);
  assert.throws(() => derOid("3.1"), RangeError);
  assert.throws(() => derOid("1.40"), RangeError);
  assert.throws(() => derOid("1.2.x"), RangeError);
  assert.equal(toHex(derElement(0x05, new Uint8Array())), "0500");
});
