/**
 * The DNS wire format (RFC 1035 §4) for one question of type TXT: building the query and
 * reading the answer — pure functions over bytes, so the parsing of hostile responses is
 * tested without a network.
 *
 * Why not `Deno.resolveDns`: it reports NXDOMAIN, NODATA, SERVFAIL and REFUSED alike as
 * `NotFound` ("no records found"), and §17 needs "absent" (NXDOMAIN, no record: no effect)
 * told apart from "the resolver failed" (SERVFAIL, REFUSED, timeout). Reading the response
 * code ourselves is the only way to tell them apart.
 *
 * @module
 */

/** DNS record type TXT (RFC 1035 §3.3.14). */
export const TYPE_TXT = 16;
/** DNS record type CNAME. */
export const TYPE_CNAME = 5;
const CLASS_IN = 1;

/** Response codes (RFC 1035 §4.1.1, RFC 6895). */
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 };

const RCODE_NAMES: Record<number, string> = {
  0: "NOERROR",
  1: "FORMERR",
  2: "SERVFAIL",
  3: "NXDOMAIN",
  4: "NOTIMP",
  5: "REFUSED",
};

/**
 * The name of a response code (`SERVFAIL`, …, or `RCODE n`).
 *
 * @example
 * ```ts
 * import { rcodeName } from "./wire.ts";
 * rcodeName(2); // "SERVFAIL"
 * ```
 */
export function rcodeName(rcode: number): string {
  return RCODE_NAMES[rcode] ?? `RCODE ${rcode}`;
}

/** Thrown for a response that cannot be read (truncated, looping names, …). */
export class DnsWireError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "DnsWireError";
  }
}

/**
 * Encodes a TXT query for `name` (ASCII host name, no trailing dot) with message id `id`
 * and the recursion-desired flag. Throws `DnsWireError` for a label over 63 bytes or a name
 * over 253 characters.
 *
 * @example
 * ```ts
 * import { encodeTxtQuery } from "./wire.ts";
 * encodeTxtQuery("_schemapin.example.com", 0x1234).length; // 40
 * ```
 */
export function encodeTxtQuery(name: string, id: number): Uint8Array {
  const labels = name.split(".");
  if (name.length > 253 || labels.some((l) => l.length === 0 || l.length > 63)) {
    throw new DnsWireError(`cannot encode ${JSON.stringify(name)} as a DNS name`);
  }
  const qname = labels.reduce((n, l) => n + 1 + l.length, 1);
  const out = new Uint8Array(12 + qname + 4);
  const view = new DataView(out.buffer);
  view.setUint16(0, id & 0xffff);
  view.setUint16(2, 0x0100); // RD
  view.setUint16(4, 1); // QDCOUNT
  let at = 12;
  for (const label of labels) {
    out[at++] = label.length;
    for (let i = 0; i < label.length; i++) {
      const c = label.charCodeAt(i);
      if (c > 0x7f) throw new DnsWireError(`non-ASCII DNS name ${JSON.stringify(name)}`);
      out[at++] = c;
    }
  }
  out[at++] = 0;
  view.setUint16(at, TYPE_TXT);
  view.setUint16(at + 2, CLASS_IN);
  return out;
}

/** One resource record of the answer section. */
export interface DnsAnswer {
  /** Owner name, lower case, without trailing dot. */
  readonly name: string;
  /** Record type. */
  readonly type: number;
  /** For TXT: the character-strings (chunks) of the record, in order, one char per byte. */
  readonly chunks?: readonly string[];
  /** For CNAME: the target, lower case. */
  readonly target?: string;
}

/** A decoded response. */
export interface DnsResponse {
  /** Message id. */
  readonly id: number;
  /** Response code (see {@linkcode RCODE}). */
  readonly rcode: number;
  /** Truncated (TC): retry over TCP. */
  readonly truncated: boolean;
  /** The question name, lower case (undefined when the response has no question). */
  readonly question?: string;
  /** The question type. */
  readonly questionType?: number;
  /** The answer section (only IN-class records). */
  readonly answers: readonly DnsAnswer[];
}

function readName(buf: Uint8Array, start: number): { name: string; next: number } {
  const labels: string[] = [];
  let at = start;
  let next = -1;
  let jumps = 0;
  let length = 0;
  for (;;) {
    if (at >= buf.length) throw new DnsWireError("a name runs past the end of the message");
    const len = buf[at];
    if ((len & 0xc0) === 0xc0) {
      if (at + 1 >= buf.length) throw new DnsWireError("a name pointer is cut off");
      if (++jumps > 32) throw new DnsWireError("name compression pointers loop");
      if (next < 0) next = at + 2;
      at = ((len & 0x3f) << 8) | buf[at + 1];
      continue;
    }
    if ((len & 0xc0) !== 0) throw new DnsWireError("a name uses a reserved label type");
    if (len === 0) {
      if (next < 0) next = at + 1;
      break;
    }
    if (at + 1 + len > buf.length) throw new DnsWireError("a label runs past the end");
    length += len + 1;
    if (length > 255) throw new DnsWireError("a name is longer than 255 bytes");
    labels.push(String.fromCharCode(...buf.subarray(at + 1, at + 1 + len)).toLowerCase());
    at += 1 + len;
  }
  return { name: labels.join("."), next };
}

/**
 * Decodes a DNS response. TXT records become their chunks (RFC 1464: concatenated by the
 * caller, in order); bytes map one to one onto characters U+0000–U+00FF, so nothing is lost
 * and non-ASCII is visible to the record parser. Throws `DnsWireError` for a message that
 * cannot be read.
 *
 * @example
 * ```ts ignore
 * const response = decodeResponse(bytes);
 * if (response.rcode === RCODE.NXDOMAIN) console.log("absent");
 * ```
 */
export function decodeResponse(buf: Uint8Array): DnsResponse {
  if (buf.length < 12) throw new DnsWireError(`a ${buf.length}-byte message has no header`);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const id = view.getUint16(0);
  const flags = view.getUint16(2);
  if ((flags & 0x8000) === 0) throw new DnsWireError("the message is a query, not a response");
  const qd = view.getUint16(4);
  const an = view.getUint16(6);
  let at = 12;
  let question: string | undefined;
  let questionType: number | undefined;
  for (let i = 0; i < qd; i++) {
    const { name, next } = readName(buf, at);
    if (next + 4 > buf.length) throw new DnsWireError("the question is cut off");
    if (i === 0) {
      question = name;
      questionType = view.getUint16(next);
    }
    at = next + 4;
  }
  const answers: DnsAnswer[] = [];
  for (let i = 0; i < an; i++) {
    const { name, next } = readName(buf, at);
    if (next + 10 > buf.length) throw new DnsWireError("a record header is cut off");
    const type = view.getUint16(next);
    const cls = view.getUint16(next + 2);
    const rdlength = view.getUint16(next + 8);
    const rdata = next + 10;
    if (rdata + rdlength > buf.length) throw new DnsWireError("a record's data is cut off");
    at = rdata + rdlength;
    if (cls !== CLASS_IN) continue;
    if (type === TYPE_TXT) {
      const chunks: string[] = [];
      let p = rdata;
      while (p < rdata + rdlength) {
        const len = buf[p];
        if (p + 1 + len > rdata + rdlength) {
          throw new DnsWireError("a TXT character-string runs past its record");
        }
        chunks.push(String.fromCharCode(...buf.subarray(p + 1, p + 1 + len)));
        p += 1 + len;
      }
      answers.push({ name, type, chunks });
    } else if (type === TYPE_CNAME) {
      answers.push({ name, type, target: readName(buf, rdata).name });
    } else {
      answers.push({ name, type });
    }
  }
  return {
    id,
    rcode: flags & 0x000f,
    truncated: (flags & 0x0200) !== 0,
    question,
    questionType,
    answers,
  };
}

/**
 * The TXT records for `name` in a response's answers, each as its list of chunks, following
 * CNAMEs from `name` (at most 8) and ignoring records for any other owner.
 *
 * @example
 * ```ts ignore
 * const records = txtRecordsFor(decodeResponse(bytes), "_schemapin.example.com");
 * ```
 */
export function txtRecordsFor(response: DnsResponse, name: string): string[][] {
  let owner = name.toLowerCase();
  for (let hop = 0; hop < 8; hop++) {
    const cname = response.answers.find((a) => a.type === TYPE_CNAME && a.name === owner);
    if (!cname?.target) break;
    owner = cname.target;
  }
  return response.answers
    .filter((a) => a.type === TYPE_TXT && a.name === owner)
    .map((a) => [...a.chunks!]);
}
