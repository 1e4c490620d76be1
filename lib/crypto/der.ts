/**
 * A minimal strict DER (X.690 §10) reader and writer: exactly what P-256 keys and ECDSA
 * signatures need. Strict means one encoding per value — definite, minimal lengths, minimal
 * integers, no trailing bytes — so a signature or key cannot be re-encoded into a second
 * accepted form.
 *
 * Also: the object identifiers that name key algorithms and curves (so a wrong key can be
 * described, not just refused) and the ECDSA signature encodings (DER ⇄ IEEE P1363 `r‖s`).
 *
 * @module
 */

import { p256 } from "@noble/curves/nist.js";
import { bytesToNumberBE, numberToBytesBE } from "@noble/curves/utils.js";
import { type ErrorCode, type ErrorDetails, SchemaPinError } from "../errors.ts";
import { checkArg } from "../arguments.ts";

/** The P-256 group order n. */
const N: bigint = p256.Point.Fn.ORDER;

/**
 * Universal tags used here.
 *
 * @example
 * ```ts
 * import { DER_TAG } from "./der.ts";
 * DER_TAG.SEQUENCE; // 0x30
 * ```
 */
export const DER_TAG = {
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  SEQUENCE: 0x30,
} as const;

const TAG_NAMES: Record<number, string> = {
  0x02: "INTEGER",
  0x03: "BIT STRING",
  0x04: "OCTET STRING",
  0x05: "NULL",
  0x06: "OBJECT IDENTIFIER",
  0x30: "SEQUENCE",
};

function tagName(tag: number): string {
  if (TAG_NAMES[tag]) return TAG_NAMES[tag];
  if ((tag & 0xc0) === 0x80) return `[${tag & 0x1f}]`;
  return `tag 0x${tag.toString(16).padStart(2, "0")}`;
}

/** How a {@linkcode DerReader} reports errors. */
export interface DerContext {
  /** What is being read, first words of every message ("public key in key.pem"). */
  readonly what: string;
  /** Error code to throw (`KEY_INVALID` for keys, `INPUT_INVALID` otherwise). */
  readonly code: ErrorCode;
  /** Extra details copied into every error (e.g. `{ source: "key.pem" }`). */
  readonly details?: ErrorDetails;
}

/** One decoded element: its tag, where it starts, and its content bytes. */
export interface DerElement {
  /** The identifier octet. */
  readonly tag: number;
  /** Byte offset of the identifier octet from the start of the whole input. */
  readonly offset: number;
  /** Byte offset of the first content byte from the start of the whole input. */
  readonly contentOffset: number;
  /** The content octets (a view into the input). */
  readonly content: Uint8Array;
}

/**
 * Reads DER elements in order from a byte range, rejecting anything that is not DER.
 * Errors are {@linkcode SchemaPinError}s naming the byte offset (`details.offset`).
 *
 * @example
 * ```ts
 * import { DerReader } from "./der.ts";
 * const der = new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x05]);
 * const outer = new DerReader(der, { what: "example", code: "INPUT_INVALID" });
 * const seq = outer.readSequence("example");
 * outer.finish("example");
 * seq.readUnsignedInteger("value"); // 5n
 * seq.finish("example");
 * ```
 */
export class DerReader {
  readonly #bytes: Uint8Array;
  readonly #end: number;
  readonly #ctx: DerContext;
  #pos: number;

  /**
   * A reader over `bytes[start, end)`; offsets in errors count from the start of `bytes`.
   */
  constructor(bytes: Uint8Array, ctx: DerContext, start = 0, end: number = bytes.length) {
    this.#bytes = bytes;
    this.#ctx = ctx;
    this.#pos = start;
    this.#end = end;
  }

  /** Absolute offset of the next element. */
  get offset(): number {
    return this.#pos;
  }

  /** True when every byte of the range has been read. */
  get done(): boolean {
    return this.#pos >= this.#end;
  }

  /** Throws this reader's error type with `message` at `offset`. */
  fail(message: string, offset: number, extra: ErrorDetails = {}): never {
    throw new SchemaPinError(this.#ctx.code, `${this.#ctx.what}: ${message}`, {
      ...this.#ctx.details,
      offset,
      ...extra,
    });
  }

  /** The tag of the next element, or `undefined` at the end of the range. */
  peekTag(): number | undefined {
    return this.done ? undefined : this.#bytes[this.#pos];
  }

  /** Reads the next element; if `expectedTag` is given, the element must have it. */
  read(name: string, expectedTag?: number): DerElement {
    const bytes = this.#bytes;
    const start = this.#pos;
    if (start >= this.#end) {
      if (this.#end >= bytes.length) {
        this.fail(`truncated DER at byte ${start}: ${name} is missing`, start);
      }
      this.fail(`${name} is missing at byte ${start}`, start);
    }
    const tag = bytes[start];
    if ((tag & 0x1f) === 0x1f) this.fail(`unsupported high tag number at byte ${start}`, start);
    if (expectedTag !== undefined && tag !== expectedTag) {
      this.fail(
        `expected ${tagName(expectedTag)} for ${name} at byte ${start}, found ${tagName(tag)}`,
        start,
      );
    }
    let p = start + 1;
    if (p >= this.#end) this.#cutShort(start, p, name);
    const first = bytes[p++];
    let length: number;
    if (first < 0x80) {
      length = first;
    } else if (first === 0x80) {
      this.fail(`indefinite length at byte ${p - 1} (BER, not DER) in ${name}`, p - 1);
    } else {
      const count = first & 0x7f;
      if (count > 4) this.fail(`length of ${name} at byte ${p - 1} is too large`, p - 1);
      if (p + count > this.#end) this.#cutShort(start, this.#end, name);
      if (bytes[p] === 0) {
        this.fail(`non-minimal length encoding at byte ${p - 1} in ${name}`, p - 1);
      }
      length = 0;
      for (let i = 0; i < count; i++) length = length * 256 + bytes[p++];
      if (length < 0x80) {
        this.fail(`non-minimal length encoding at byte ${p - count - 1} in ${name}`, p - count - 1);
      }
    }
    const contentEnd = p + length;
    if (contentEnd > this.#end) {
      this.#cutShort(
        start,
        this.#end,
        name,
        `declares ${length} content bytes but only ${this.#end - p} remain`,
      );
    }
    this.#pos = contentEnd;
    return { tag, offset: start, contentOffset: p, content: bytes.subarray(p, contentEnd) };
  }

  /** The element starting at `start` does not fit before `at` (the end of the range). */
  #cutShort(start: number, at: number, name: string, why = "is cut short"): never {
    if (this.#end >= this.#bytes.length) {
      return this.fail(`truncated DER at byte ${at}: ${name} (at byte ${start}) ${why}`, at);
    }
    return this.fail(
      `${name} at byte ${start} runs past the end of its enclosing element at byte ${this.#end}`,
      start,
    );
  }

  /** Reads a SEQUENCE and returns a reader over its content. */
  readSequence(name: string): DerReader {
    const el = this.read(name, DER_TAG.SEQUENCE);
    return this.#sub(el);
  }

  /** Reads an explicitly tagged, constructed context-specific element `[n]`. */
  readExplicit(n: number, name: string): DerReader {
    const el = this.read(name, 0xa0 | n);
    return this.#sub(el);
  }

  #sub(el: DerElement): DerReader {
    return new DerReader(
      this.#bytes,
      this.#ctx,
      el.contentOffset,
      el.contentOffset + el.content.length,
    );
  }

  /** Reads a non-negative, minimally encoded INTEGER. */
  readUnsignedInteger(name: string): bigint {
    const el = this.read(name, DER_TAG.INTEGER);
    const c = el.content;
    if (c.length === 0) this.fail(`empty INTEGER ${name} at byte ${el.offset}`, el.offset);
    if (c.length > 1 && ((c[0] === 0 && c[1] < 0x80) || (c[0] === 0xff && c[1] >= 0x80))) {
      this.fail(`non-minimal INTEGER ${name} at byte ${el.offset}`, el.offset);
    }
    if (c[0] & 0x80) this.fail(`negative INTEGER ${name} at byte ${el.offset}`, el.offset);
    return bytesToNumberBE(c);
  }

  /** Reads an OBJECT IDENTIFIER and returns it in dotted form. */
  readOid(name: string): string {
    const el = this.read(name, DER_TAG.OID);
    const c = el.content;
    if (c.length === 0) {
      this.fail(`empty OBJECT IDENTIFIER ${name} at byte ${el.offset}`, el.offset);
    }
    const arcs: bigint[] = [];
    let value = 0n;
    let fresh = true;
    for (let i = 0; i < c.length; i++) {
      if (fresh && c[i] === 0x80) {
        this.fail(`non-minimal OBJECT IDENTIFIER ${name} at byte ${el.offset}`, el.offset);
      }
      value = (value << 7n) | BigInt(c[i] & 0x7f);
      fresh = (c[i] & 0x80) === 0;
      if (fresh) {
        arcs.push(value);
        value = 0n;
      }
    }
    if (!fresh) this.fail(`truncated OBJECT IDENTIFIER ${name} at byte ${el.offset}`, el.offset);
    const first = arcs[0] < 80n ? arcs[0] / 40n : 2n;
    const second = arcs[0] - first * 40n;
    return [first, second, ...arcs.slice(1)].join(".");
  }

  /** Reads an OCTET STRING. */
  readOctetString(name: string): Uint8Array {
    return this.read(name, DER_TAG.OCTET_STRING).content;
  }

  /** Reads a BIT STRING whose length is a whole number of bytes and returns those bytes. */
  readBitString(name: string): Uint8Array {
    const el = this.read(name, DER_TAG.BIT_STRING);
    if (el.content.length === 0) {
      this.fail(`empty BIT STRING ${name} at byte ${el.offset}`, el.offset);
    }
    if (el.content[0] !== 0) {
      this.fail(`BIT STRING ${name} at byte ${el.offset} has unused bits`, el.offset);
    }
    return el.content.subarray(1);
  }

  /** Reads a NULL. */
  readNull(name: string): void {
    const el = this.read(name, DER_TAG.NULL);
    if (el.content.length !== 0) {
      this.fail(`NULL ${name} at byte ${el.offset} has content`, el.offset);
    }
  }

  /** Requires that nothing is left in the range. */
  finish(name: string): void {
    if (!this.done) {
      this.fail(`trailing bytes after ${name} at byte ${this.#pos}`, this.#pos);
    }
  }
}

function encodeLength(length: number): number[] {
  if (length < 0x80) return [length];
  const out: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) out.unshift(n & 0xff);
  return [0x80 | out.length, ...out];
}

/**
 * Encodes one element from its tag and content.
 *
 * @example
 * ```ts
 * import { derElement } from "./der.ts";
 * derElement(0x05, new Uint8Array()); // Uint8Array [5, 0]
 * ```
 */
export function derElement(tag: number, content: Uint8Array): Uint8Array<ArrayBuffer> {
  const header = [tag, ...encodeLength(content.length)];
  const out = new Uint8Array(header.length + content.length);
  out.set(header, 0);
  out.set(content, header.length);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * Encodes a SEQUENCE of already encoded elements.
 *
 * @example
 * ```ts
 * import { derInteger, derSequence } from "./der.ts";
 * derSequence(derInteger(5n)); // Uint8Array [0x30, 3, 2, 1, 5]
 * ```
 */
export function derSequence(...elements: Uint8Array[]): Uint8Array<ArrayBuffer> {
  return derElement(DER_TAG.SEQUENCE, concat(elements));
}

/**
 * Encodes an explicitly tagged, constructed context-specific element `[n]`.
 *
 * @example
 * ```ts
 * import { derExplicit, derNull } from "./der.ts";
 * derExplicit(1, derNull()); // Uint8Array [0xa1, 2, 5, 0]
 * ```
 */
export function derExplicit(n: number, ...elements: Uint8Array[]): Uint8Array<ArrayBuffer> {
  return derElement(0xa0 | n, concat(elements));
}

/**
 * Encodes a non-negative INTEGER minimally.
 *
 * @example
 * ```ts
 * import { derInteger } from "./der.ts";
 * derInteger(128n); // Uint8Array [2, 2, 0, 128]
 * ```
 */
export function derInteger(value: bigint): Uint8Array<ArrayBuffer> {
  // Programming-error assertion: callers encode key scalars and lengths, never negative.
  if (value < 0n) throw new RangeError("derInteger: negative values are not supported");
  let hex = value.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  const magnitude: Uint8Array = numberToBytesBE(value, hex.length / 2);
  // A leading 1 bit would read as negative: prefix a zero byte (X.690 §8.3).
  const content = magnitude[0] & 0x80 ? concat([new Uint8Array([0]), magnitude]) : magnitude;
  return derElement(DER_TAG.INTEGER, content);
}

/**
 * Encodes an OCTET STRING.
 *
 * @example
 * ```ts
 * import { derOctetString } from "./der.ts";
 * derOctetString(new Uint8Array([1])); // Uint8Array [4, 1, 1]
 * ```
 */
export function derOctetString(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return derElement(DER_TAG.OCTET_STRING, bytes);
}

/**
 * Encodes a BIT STRING holding whole bytes (no unused bits).
 *
 * @example
 * ```ts
 * import { derBitString } from "./der.ts";
 * derBitString(new Uint8Array([4])); // Uint8Array [3, 2, 0, 4]
 * ```
 */
export function derBitString(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return derElement(DER_TAG.BIT_STRING, concat([new Uint8Array([0]), bytes]));
}

/**
 * Encodes a NULL.
 *
 * @example
 * ```ts
 * import { derNull } from "./der.ts";
 * derNull(); // Uint8Array [5, 0]
 * ```
 */
export function derNull(): Uint8Array<ArrayBuffer> {
  return derElement(DER_TAG.NULL, new Uint8Array());
}

/**
 * Encodes an OBJECT IDENTIFIER given in dotted form.
 *
 * @example
 * ```ts
 * import { derOid, OID } from "./der.ts";
 * derOid(OID.prime256v1); // 06 08 2a 86 48 ce 3d 03 01 07
 * ```
 */
export function derOid(dotted: string): Uint8Array<ArrayBuffer> {
  const arcs = dotted.split(".").map((a) => {
    // Programming-error assertion: OIDs are the constants of this module, never input.
    if (!/^(0|[1-9][0-9]*)$/.test(a)) throw new RangeError(`derOid: bad arc in "${dotted}"`);
    return BigInt(a);
  });
  if (arcs.length < 2 || arcs[0] > 2n || (arcs[0] < 2n && arcs[1] >= 40n)) {
    // Programming-error assertion: OIDs are the constants of this module, never input.
    throw new RangeError(`derOid: "${dotted}" is not an object identifier`);
  }
  const subs = [arcs[0] * 40n + arcs[1], ...arcs.slice(2)];
  const out: number[] = [];
  for (const sub of subs) {
    const chunk: number[] = [Number(sub & 0x7fn)];
    for (let v = sub >> 7n; v > 0n; v >>= 7n) chunk.unshift(Number(v & 0x7fn) | 0x80);
    out.push(...chunk);
  }
  return derElement(DER_TAG.OID, new Uint8Array(out));
}

/**
 * Object identifiers of key algorithms and elliptic curves that keys are checked against.
 *
 * @example
 * ```ts
 * import { OID } from "./der.ts";
 * OID.ecPublicKey; // "1.2.840.10045.2.1"
 * ```
 */
export const OID = {
  ecPublicKey: "1.2.840.10045.2.1",
  prime256v1: "1.2.840.10045.3.1.7",
  secp384r1: "1.3.132.0.34",
  secp521r1: "1.3.132.0.35",
  secp256k1: "1.3.132.0.10",
  rsaEncryption: "1.2.840.113549.1.1.1",
  rsassaPss: "1.2.840.113549.1.1.10",
  dsa: "1.2.840.10040.4.1",
  x25519: "1.3.101.110",
  x448: "1.3.101.111",
  ed25519: "1.3.101.112",
  ed448: "1.3.101.113",
} as const;

const KEY_ALGORITHMS: Record<string, string> = {
  [OID.ecPublicKey]: "EC",
  [OID.rsaEncryption]: "RSA",
  [OID.rsassaPss]: "RSA-PSS",
  [OID.dsa]: "DSA",
  "1.2.840.10046.2.1": "Diffie-Hellman (X9.42)",
  "1.2.840.113549.1.3.1": "Diffie-Hellman (PKCS #3)",
  [OID.x25519]: "X25519",
  [OID.x448]: "X448",
  [OID.ed25519]: "Ed25519",
  [OID.ed448]: "Ed448",
  "2.16.840.1.101.3.4.3.17": "ML-DSA-44",
  "2.16.840.1.101.3.4.3.18": "ML-DSA-65",
  "2.16.840.1.101.3.4.3.19": "ML-DSA-87",
  "2.16.840.1.101.3.4.4.1": "ML-KEM-512",
  "2.16.840.1.101.3.4.4.2": "ML-KEM-768",
  "2.16.840.1.101.3.4.4.3": "ML-KEM-1024",
};

const CURVES: Record<string, string> = {
  [OID.prime256v1]: "P-256 (prime256v1)",
  [OID.secp384r1]: "secp384r1 (P-384)",
  [OID.secp521r1]: "secp521r1 (P-521)",
  [OID.secp256k1]: "secp256k1",
  "1.2.840.10045.3.1.1": "prime192v1 (P-192)",
  "1.3.132.0.33": "secp224r1 (P-224)",
  "1.3.36.3.3.2.8.1.1.7": "brainpoolP256r1",
  "1.3.36.3.3.2.8.1.1.11": "brainpoolP384r1",
  "1.3.36.3.3.2.8.1.1.13": "brainpoolP512r1",
  "1.2.156.10197.1.301": "SM2",
};

/**
 * A human name for a key-algorithm OID ("RSA", "Ed25519", …), or `undefined` if unknown.
 *
 * @example
 * ```ts
 * import { keyAlgorithmName } from "./der.ts";
 * keyAlgorithmName("1.3.101.112"); // "Ed25519"
 * ```
 */
export function keyAlgorithmName(oid: string): string | undefined {
  return KEY_ALGORITHMS[oid];
}

/**
 * A human name for a named-curve OID ("secp384r1 (P-384)", …), or `undefined` if unknown.
 *
 * @example
 * ```ts
 * import { curveName } from "./der.ts";
 * curveName("1.3.132.0.10"); // "secp256k1"
 * ```
 */
export function curveName(oid: string): string | undefined {
  return CURVES[oid];
}

/** An ECDSA signature's two scalars. */
export interface EcdsaSignatureScalars {
  /** r, 1 ≤ r < n. */
  readonly r: bigint;
  /** s, 1 ≤ s < n. */
  readonly s: bigint;
}

function checkScalars(r: bigint, s: bigint, fail: (m: string) => never): void {
  if (r === 0n) fail("r is zero");
  if (s === 0n) fail("s is zero");
  if (r >= N) fail("r is not less than the P-256 group order n");
  if (s >= N) fail("s is not less than the P-256 group order n");
}

/**
 * Decodes a DER ECDSA-Sig-Value (`SEQUENCE { INTEGER r, INTEGER s }`) strictly and checks
 * 1 ≤ r, s < n for P-256.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` saying what is wrong and at which byte.
 *
 * @example
 * ```ts
 * import { decodeEcdsaDer, encodeEcdsaDer } from "./der.ts";
 * decodeEcdsaDer(encodeEcdsaDer({ r: 1n, s: 2n })); // { r: 1n, s: 2n }
 * ```
 */
export function decodeEcdsaDer(der: Uint8Array, what = "signature"): EcdsaSignatureScalars {
  const outer = new DerReader(der, { what, code: "INPUT_INVALID" });
  const seq = outer.readSequence("ECDSA signature");
  outer.finish("the ECDSA signature");
  const r = seq.readUnsignedInteger("r");
  const s = seq.readUnsignedInteger("s");
  seq.finish("s");
  checkScalars(r, s, (m) => outer.fail(m, 0));
  return { r, s };
}

/**
 * Encodes r and s as a DER ECDSA-Sig-Value (checking 1 ≤ r, s < n).
 *
 * @example
 * ```ts
 * import { encodeEcdsaDer } from "./der.ts";
 * encodeEcdsaDer({ r: 1n, s: 2n }); // Uint8Array [0x30, 6, 2, 1, 1, 2, 1, 2]
 * ```
 */
export function encodeEcdsaDer(sig: EcdsaSignatureScalars): Uint8Array<ArrayBuffer> {
  checkScalars(sig.r, sig.s, (m) => {
    throw new SchemaPinError("INPUT_INVALID", `signature: ${m}`);
  });
  return derSequence(derInteger(sig.r), derInteger(sig.s));
}

/**
 * Converts a DER ECDSA P-256 signature to IEEE P1363 form (`r‖s`, 64 bytes), the form
 * WebCrypto signs and verifies.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` if `der` is not a strict DER P-256 signature.
 *
 * @example
 * ```ts
 * import { derToP1363, signDocument } from "./ecdsa.ts";
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeyToPkcs8Der } from "./keys.ts";
 * // Verify a schemapin signature with WebCrypto, which wants r ‖ s (64 bytes), not DER
 * const key = generateKeyPair();
 * const data = new TextEncoder().encode('{"a":1}');
 * const der = Uint8Array.from(atob(signDocument(data, key)), (c) => c.charCodeAt(0));
 * const alg = { name: "ECDSA", namedCurve: "P-256" };
 * const publicKey = await crypto.subtle.importKey("spki", key.publicKey.spki, alg, false, [
 *   "verify",
 * ]);
 * const ok = await crypto.subtle.verify(
 *   { name: "ECDSA", hash: "SHA-256" },
 *   publicKey,
 *   derToP1363(der),
 *   data,
 * );
 * console.log(ok, privateKeyToPkcs8Der(key).length); // true 138
 * ```
 */
export function derToP1363(der: Uint8Array): Uint8Array<ArrayBuffer> {
  checkArg("derToP1363", "der", der, "bytes");
  const { r, s } = decodeEcdsaDer(der);
  const out = new Uint8Array(64);
  out.set(numberToBytesBE(r, 32), 0);
  out.set(numberToBytesBE(s, 32), 32);
  return out;
}

/**
 * Converts an IEEE P1363 P-256 signature (`r‖s`, 64 bytes, as WebCrypto produces) to DER.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` if the length is not 64 or r, s are out of range.
 *
 * @example
 * ```ts
 * import { p1363ToDer } from "./ecdsa.ts";
 * const raw = new Uint8Array(64);
 * raw[31] = 1;
 * raw[63] = 2;
 * p1363ToDer(raw); // Uint8Array [0x30, 6, 2, 1, 1, 2, 1, 2]
 * ```
 */
export function p1363ToDer(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  checkArg("p1363ToDer", "raw", raw, "bytes");
  if (raw.length !== 64) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `signature: a P-256 r‖s signature is 64 bytes, got ${raw.length}`,
      { length: raw.length },
    );
  }
  return encodeEcdsaDer({
    r: bytesToNumberBE(raw.subarray(0, 32)),
    s: bytesToNumberBE(raw.subarray(32)),
  });
}
