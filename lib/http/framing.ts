/**
 * The framing rules of the HTTP/1.1 server (lib/http/server.ts), in one place: what a request
 * head, a chunk-size line and a trailer field line may look like (RFC 9112), and what is
 * refused. Pure functions over bytes and strings; the server calls them and answers a
 * {@linkcode FramingError} with its status and `Connection: close`, so that nothing after a
 * refused request is ever parsed as a request.
 *
 * The rules are never looser than Node's llhttp (tests/http/framing_differential_test.ts sends
 * the same hostile bytes to both; docs/http-framing.md lists the cases and the figures):
 *
 * - Lines end with CRLF; a bare CR or LF anywhere in a head, a chunk line or a trailer is
 *   refused (400).
 * - Request line: `METHOD SP request-target SP HTTP/1.x`, one space each. Methods are
 *   case-sensitive: one with a lower-case letter is malformed (400), one this server does not
 *   implement is 501 (RFC 9110 §9.1), CONNECT and TRACE too. The target is visible ASCII:
 *   origin form, absolute form (http/https), or `*` for `OPTIONS` only (asterisk form).
 * - Field lines: a token, a colon at once (no space before it), and a value whose optional
 *   whitespace is SP or HTAB only (never U+00A0: `String.prototype.trim` is not used). No
 *   control character but HTAB in a value; no obs-fold.
 * - `Content-Length`: digits only, one field, one value: a repeated field or a list, even of
 *   equal values, is refused (400), as llhttp does. No whitespace inside the value but the
 *   optional SP around it (no HTAB: llhttp refuses one after the digits). The same holds
 *   for `Transfer-Encoding` (llhttp refuses `chunked` followed by a tab).
 * - `Transfer-Encoding`: only a single, final `chunked` is accepted. A list ending in another
 *   coding, `chunked` twice, an empty or malformed element: 400 (RFC 9112 §6.3: the length
 *   cannot be known). Another coding before `chunked` (`gzip, chunked`): 501. With
 *   `Content-Length`, or in an HTTP/1.0 request: 400.
 * - HTTP/1.1 needs exactly one well-formed `Host`.
 * - The head (request line and fields, with their CRLFs) is at most {@linkcode MAX_HEAD_BYTES}
 *   and {@linkcode MAX_FIELD_LINES} lines; the trailer section at most
 *   {@linkcode MAX_TRAILER_BYTES} and as many lines: beyond, 431.
 * - Chunk-size lines: hex digits, then extensions `;name` or `;name=value` (token or quoted
 *   string), with no whitespace at all (llhttp refuses spaces after the size and before `;`).
 *   At most {@linkcode MAX_CHUNK_LINE} bytes per line and {@linkcode MAX_CHUNK_EXTENSIONS}
 *   bytes of extensions per body.
 * - Trailer fields are field lines as above and may not carry framing or routing
 *   (`Content-Length`, `Transfer-Encoding`, `Host`): 400.
 *
 * @module
 */

/** Most bytes of a request head, its CRLFs included (Node's default `maxHeaderSize`). */
export const MAX_HEAD_BYTES = 16 * 1024;
/** Most field lines of a head or of a trailer section. */
export const MAX_FIELD_LINES = 200;
/** Most bytes of a trailer section, its CRLFs included. */
export const MAX_TRAILER_BYTES = 16 * 1024;
/** Most bytes of one chunk-size line. */
export const MAX_CHUNK_LINE = 4096;
/** Most bytes of chunk extensions in one body (Node refuses more than 16 KiB too). */
export const MAX_CHUNK_EXTENSIONS = 16 * 1024;

/** The methods this server implements; another well-formed method is answered 501. */
export const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "OPTIONS",
  "PATCH",
]);

/** A request refused by the framing rules: answered `status` and the connection closed. */
export class FramingError extends Error {
  /** The status of the answer (400, 413, 417, 431, 501 or 505). */
  readonly status: number;
  /** A refusal answered with `status`. */
  constructor(status: number, message: string) {
    super(message);
    this.name = "FramingError";
    this.status = status;
  }
}

/** A parsed request head. */
export interface RequestHead {
  /** The method, as sent (upper case). */
  readonly method: string;
  /** The request target, as sent. */
  readonly target: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  readonly minor: number;
  /** The fields, in order (names as sent, values without their optional whitespace). */
  readonly fields: ReadonlyArray<readonly [string, string]>;
  /** The body's length; -1: chunked. */
  readonly contentLength: number;
  /** The connection may stay open after the answer (before the server's own reasons). */
  readonly keepAlive: boolean;
  /** `Expect: 100-continue` in an HTTP/1.1 request. */
  readonly expectContinue: boolean;
  /** The `Host` value, or null (HTTP/1.0 without one). */
  readonly host: string | null;
  /** The request carries `Upgrade`: it is answered, then the connection closes. */
  readonly upgrade: boolean;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const UPPER_METHOD = /^[A-Z][A-Z0-9_-]*$/;
// deno-lint-ignore no-control-regex -- control characters are what it finds
const BAD_VALUE = /[\x00-\x08\x0a-\x1f\x7f]/;
const BARE_CR_LF = /\r(?!\n)|(?<!\r)\n/;
const HOST = /^(?:[A-Za-z0-9._~!$&'()*+,;=%-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const TARGET = /^[\x21-\x7e]+$/;
const DIGITS = /^\d{1,15}$/;
/** `;name` or `;name=token` or `;name="quoted"`, repeated, no whitespace. */
const CHUNK_LINE = new RegExp(
  "^([0-9A-Fa-f]{1,15})((?:;[!#$%&'*+\\-.^_`|~0-9A-Za-z]+" +
    "(?:=(?:[!#$%&'*+\\-.^_`|~0-9A-Za-z]+|" +
    '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"))?)*)$',
);
/** Fields a trailer may not carry (RFC 9110 §6.5.1: framing and routing). */
const NOT_IN_TRAILERS = new Set(["content-length", "transfer-encoding", "host"]);

/** Optional whitespace is SP and HTAB only (RFC 9110 §5.6.3), never U+00A0 and friends. */
export function stripOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === " " || text[start] === "\t")) start++;
  while (end > start && (text[end - 1] === " " || text[end - 1] === "\t")) end--;
  return text.slice(start, end);
}

/** Name and value of one field line (head or trailer); throws {@linkcode FramingError}. */
export function parseFieldLine(line: string): [string, string] {
  if (line[0] === " " || line[0] === "\t") throw new FramingError(400, "obs-fold in a field");
  const colon = line.indexOf(":");
  if (colon <= 0) throw new FramingError(400, "malformed field line");
  const name = line.slice(0, colon);
  if (!TOKEN.test(name)) throw new FramingError(400, "malformed field name");
  const value = stripOws(line.slice(colon + 1));
  if (BAD_VALUE.test(value)) throw new FramingError(400, "a control character in a field");
  return [name, value];
}

/**
 * The transfer codings of a request: chunked (true), or a refusal. `values` are the values
 * of every `Transfer-Encoding` field, in order.
 */
function checkTransferEncoding(values: string[]): void {
  const codings = values.join(",").split(",").map((c) => stripOws(c).toLowerCase());
  for (const c of codings) {
    // A coding with parameters (`gzip;q=1`) is not a bare token: refused like an empty one.
    if (!TOKEN.test(c)) throw new FramingError(400, "malformed Transfer-Encoding");
  }
  if (codings[codings.length - 1] !== "chunked") {
    // RFC 9112 §6.3: the length of a request whose final coding is not chunked is unknown.
    throw new FramingError(400, "Transfer-Encoding does not end with chunked");
  }
  if (codings.indexOf("chunked") !== codings.length - 1) {
    // RFC 9112 §6.1: chunked is never applied twice.
    throw new FramingError(400, "chunked applied more than once");
  }
  if (codings.length > 1) {
    throw new FramingError(501, "only the chunked transfer coding is accepted");
  }
}

/**
 * Checks the start of a request head that has not ended yet, so that bytes that can never be
 * a request are refused at once instead of waiting for a head that would be refused anyway
 * (llhttp refuses them at once too). Throws {@linkcode FramingError}.
 */
export function checkHeadStart(text: string): void {
  const lineEnd = text.indexOf("\r\n");
  const line = lineEnd < 0 ? text : text.slice(0, lineEnd);
  const space = line.indexOf(" ");
  const method = space < 0 ? line : line.slice(0, space);
  if (method.length > 0 && !/^[A-Z0-9_-]+$/.test(method)) {
    throw new FramingError(400, "malformed method (methods are case-sensitive)");
  }
  // deno-lint-ignore no-control-regex -- control characters are what it finds
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(line.replace(/\r$/, ""))) {
    throw new FramingError(400, "a control character in the request line");
  }
}

/**
 * Parses a request head: the bytes before the empty line, without it (Latin-1 text, one char
 * per byte). Throws {@linkcode FramingError}.
 */
export function parseRequestHead(text: string): RequestHead {
  if (BARE_CR_LF.test(text)) throw new FramingError(400, "a bare CR or LF in the head");
  const lines = text.split("\r\n");
  if (lines.length - 1 > MAX_FIELD_LINES) throw new FramingError(431, "too many header fields");
  const requestLine = lines[0];
  const parts = requestLine.split(" ");
  if (parts.length !== 3) throw new FramingError(400, "malformed request line");
  const [method, target, version] = parts;
  const v = /^HTTP\/(\d)\.(\d)$/.exec(version);
  if (!v) throw new FramingError(400, "malformed request line");
  if (v[1] !== "1" || (v[2] !== "0" && v[2] !== "1")) {
    throw new FramingError(505, "only HTTP/1.0 and HTTP/1.1 are served");
  }
  if (!TOKEN.test(method) || !UPPER_METHOD.test(method)) {
    throw new FramingError(400, "malformed method (methods are case-sensitive)");
  }
  if (method === "CONNECT" || method === "TRACE") {
    throw new FramingError(501, `${method} is not served`);
  }
  if (!KNOWN_METHODS.has(method)) throw new FramingError(501, `${method} is not implemented`);
  if (!TARGET.test(target)) throw new FramingError(400, "malformed request target");
  if (target === "*" ? method !== "OPTIONS" : !/^\/|^https?:\/\//i.test(target)) {
    throw new FramingError(400, "malformed request target");
  }
  const minor = Number(v[2]);
  const fields: [string, string][] = [];
  let contentLength: number | undefined;
  const transferEncodings: string[] = [];
  let host: string | null = null;
  let hosts = 0;
  const connection: string[] = [];
  let expect: string | undefined;
  let upgrade = false;
  for (let i = 1; i < lines.length; i++) {
    const [name, value] = parseFieldLine(lines[i]);
    switch (name.toLowerCase()) {
      case "content-length":
        // One field with one value; `42, 42` and a repeated field are refused like llhttp.
        if (contentLength !== undefined) throw new FramingError(400, "repeated Content-Length");
        // llhttp refuses a tab after the digits; a tab anywhere around them is refused here.
        if (lines[i].includes("\t")) throw new FramingError(400, "a tab in Content-Length");
        if (!DIGITS.test(value)) throw new FramingError(400, "malformed Content-Length");
        contentLength = Number(value);
        break;
      case "transfer-encoding":
        // As for Content-Length: llhttp refuses `chunked` followed by a tab.
        if (lines[i].includes("\t")) throw new FramingError(400, "a tab in Transfer-Encoding");
        transferEncodings.push(value);
        break;
      case "host":
        hosts++;
        host = value;
        break;
      case "connection":
        for (const t of value.split(",")) connection.push(stripOws(t).toLowerCase());
        break;
      case "expect":
        if (expect !== undefined) throw new FramingError(417, "repeated Expect");
        expect = value.toLowerCase();
        break;
      case "upgrade":
        upgrade = true;
        break;
    }
    fields.push([name, value]);
  }
  let length = contentLength ?? 0;
  if (transferEncodings.length > 0) {
    if (contentLength !== undefined) {
      throw new FramingError(400, "both Content-Length and Transfer-Encoding");
    }
    if (minor === 0) throw new FramingError(400, "Transfer-Encoding in an HTTP/1.0 request");
    checkTransferEncoding(transferEncodings);
    length = -1;
  }
  if (minor === 1 && hosts !== 1) throw new FramingError(400, "a request needs one Host field");
  if (hosts > 1) throw new FramingError(400, "repeated Host");
  if (host !== null && !HOST.test(host)) throw new FramingError(400, "malformed Host");
  if (expect !== undefined && expect !== "100-continue") {
    throw new FramingError(417, "unknown expectation");
  }
  const keepAlive = minor === 1 ? !connection.includes("close") : connection.includes("keep-alive");
  return {
    method,
    target,
    minor,
    fields,
    contentLength: length,
    keepAlive: keepAlive && !upgrade,
    expectContinue: expect === "100-continue" && minor === 1,
    host,
    upgrade,
  };
}

/**
 * The size of the chunk a chunk-size line announces, and the bytes of its extensions (which
 * mean nothing here and are dropped). Throws {@linkcode FramingError}.
 */
export function parseChunkSizeLine(line: string): { size: number; extensionBytes: number } {
  const m = CHUNK_LINE.exec(line);
  if (!m) throw new FramingError(400, "malformed chunk-size line");
  return { size: parseInt(m[1], 16), extensionBytes: m[2].length };
}

/** Checks one trailer field line. Throws {@linkcode FramingError}. */
export function checkTrailerLine(line: string): void {
  if (line.includes("\r")) throw new FramingError(400, "a bare CR in a trailer");
  const [name] = parseFieldLine(line);
  if (NOT_IN_TRAILERS.has(name.toLowerCase())) {
    throw new FramingError(400, `${name} is not allowed in a trailer`);
  }
}
