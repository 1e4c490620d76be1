/**
 * Writes a handler's `Response` on a connection of the HTTP/1.1 server (lib/http/server.ts):
 * the status line and headers (this layer's own `Connection`, `Content-Length`,
 * `Transfer-Encoding` and `Date`), then the body — in one write when its length is known and
 * at most 1 MiB (head and body in one TLS record: no delayed-ACK stall),
 * else streamed with its length, chunked (HTTP/1.1), or to the end of the connection
 * (HTTP/1.0). Also the refusals the server answers itself (`errorBytes`).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { Connection } from "./connection.ts";
import { latin1Bytes } from "./latin1.ts";

const encoder = new TextEncoder();
/** Responses up to this length (known from Content-Length) are written in one piece. */
const MAX_COALESCED = 1024 * 1024;
/** Response headers this layer writes itself. */
const OWN_HEADERS = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "date",
  "upgrade",
  "proxy-connection",
]);
const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  206: "Partial Content",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  417: "Expectation Failed",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
};

/**
 * A refusal the server answers itself (a `FramingError`'s status and message), with
 * `Connection: close`.
 *
 * @example
 * ```ts
 * import { errorBytes } from "./response_writer.ts";
 * new TextDecoder().decode(errorBytes(400, "malformed request")).split("\r\n")[0];
 * // "HTTP/1.1 400 Bad Request"
 * ```
 */
export function errorBytes(status: number, message: string): Uint8Array {
  const body = `${message}\n`;
  return encoder.encode(
    `HTTP/1.1 ${status} ${REASONS[status] ?? ""}\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
  );
}

let dateAt = 0;
let date = "";

/** The `Date` field's value now (RFC 9110 §6.6.1), made at most once a second. */
function httpDate(): string {
  const now = Date.now();
  if (now - dateAt >= 1000) {
    dateAt = now - (now % 1000);
    date = new Date(dateAt).toUTCString();
  }
  return date;
}

/** The end of a response head: the `Connection` field the version and keep-alive call for. */
function headEnd(keepAlive: boolean, http10: boolean): string {
  return keepAlive
    ? (http10 ? "connection: keep-alive\r\n\r\n" : "\r\n")
    : "connection: close\r\n\r\n";
}

/** What the connection's owner cancels when the client goes away mid-response. */
export interface ResponseInFlight {
  /** The reader of the response body being streamed, if any. */
  reader?: ReadableStreamDefaultReader<Uint8Array>;
}

/** The length a `Content-Length` value declares (-1: none, or not one this layer writes). */
function lengthOf(declared: string | null): number {
  return declared !== null && /^\d{1,15}$/.test(declared) ? Number(declared) : -1;
}

/**
 * Writes `response` to the request whose method was `method`; true when the connection may be
 * kept for another request. A body that does not match its declared length fails
 * (`IO_FAILED`); so does a client that goes away.
 *
 * @example
 * ```ts ignore
 * import { writeResponse } from "./response_writer.ts";
 * const keepAlive = await writeResponse(c, new Response("hi"), "GET", true, false, {});
 * ```
 */
export async function writeResponse(
  c: Connection,
  response: Response,
  method: string,
  keepAlive: boolean,
  http10: boolean,
  gone: ResponseInFlight,
): Promise<boolean> {
  const status = response.status;
  c.responded = true;
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? ""}\r\n`;
  let declared: string | null = null;
  for (const [k, v] of response.headers) {
    if (OWN_HEADERS.has(k)) {
      if (k === "content-length") declared = v;
      continue;
    }
    head += `${k}: ${v}\r\n`;
  }
  head += `date: ${httpDate()}\r\n`;
  const body = response.body;
  const bodiless = method === "HEAD" || status === 204 || status === 304 || status < 200;
  if (bodiless) {
    if (body) await body.cancel().catch(() => {});
    if (method === "HEAD" && declared !== null && /^\d{1,15}$/.test(declared)) {
      head += `content-length: ${declared}\r\n`;
    } else if (method === "HEAD" && body === null && status >= 200) {
      head += "content-length: 0\r\n";
    }
    head += headEnd(keepAlive, http10);
    await c.write(latin1Bytes(head));
    return keepAlive;
  }
  if (body === null) {
    head += "content-length: 0\r\n" + headEnd(keepAlive, http10);
    await c.write(latin1Bytes(head));
    return keepAlive;
  }
  const length = lengthOf(declared);
  if (length >= 0 && length <= MAX_COALESCED) {
    // Head and body in one write: nothing waits for a delayed ACK (Nagle) on TLS. The body
    // of a response that declares its length is read whole (arrayBuffer() is ~10× cheaper
    // than reading the stream).
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length !== length) {
      throw new SchemaPinError(
        "IO_FAILED",
        `the response body is ${bytes.length} bytes, not ${length}`,
      );
    }
    head += `content-length: ${length}\r\n` + headEnd(keepAlive, http10);
    const h = latin1Bytes(head);
    const out = new Uint8Array(h.length + length);
    out.set(h);
    out.set(bytes, h.length);
    await c.write(out);
    return keepAlive;
  }
  const reader = body.getReader();
  gone.reader = reader;
  try {
    return await writeStreamed(c, reader, head, length, keepAlive, http10);
  } catch (e) {
    reader.cancel(e).catch(() => {});
    throw e;
  } finally {
    gone.reader = undefined;
  }
}

/**
 * Writes the rest of a response whose body is streamed from `reader` after `head` (its fields
 * so far): with its `length`, or chunked when the length is unknown (-1; HTTP/1.1), or to the
 * end of the connection (HTTP/1.0). True when the connection may be kept.
 */
async function writeStreamed(
  c: Connection,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  head: string,
  length: number,
  keepAlive: boolean,
  http10: boolean,
): Promise<boolean> {
  /**
   * The next piece of the body. Once the client has ended its stream (half-close), a body
   * that produces nothing for the stall time ends the connection: nobody may be listening.
   */
  const pull = async () => {
    if (!c.eof) return await reader.read();
    c.deadline = Date.now() + c.stallMs;
    c.deadlineKind = "idle";
    try {
      return await reader.read();
    } finally {
      if (c.state !== "closed") c.deadline = 0;
    }
  };
  if (length >= 0) {
    head += `content-length: ${length}\r\n` + headEnd(keepAlive, http10);
    await c.write(latin1Bytes(head));
    let total = 0;
    while (total < length) {
      const r = await pull();
      if (r.done) break;
      total += r.value.length;
      if (total > length) {
        throw new SchemaPinError("IO_FAILED", `the response body exceeds ${length} bytes`);
      }
      await c.write(r.value);
    }
    if (total !== length) {
      throw new SchemaPinError("IO_FAILED", `the response body is ${total} bytes, not ${length}`);
    }
    return keepAlive;
  }
  // Length unknown: chunked (HTTP/1.1), or the end of the connection (HTTP/1.0).
  const chunked = !http10;
  if (!chunked) keepAlive = false;
  head += (chunked ? "transfer-encoding: chunked\r\n" : "") + headEnd(keepAlive, http10);
  await c.write(latin1Bytes(head));
  while (true) {
    const r = await pull();
    if (r.done) break;
    if (r.value.length === 0) continue;
    if (!chunked) {
      await c.write(r.value);
      continue;
    }
    const size = encoder.encode(`${r.value.length.toString(16)}\r\n`);
    const framed = new Uint8Array(size.length + r.value.length + 2);
    framed.set(size);
    framed.set(r.value, size.length);
    framed[framed.length - 2] = 13;
    framed[framed.length - 1] = 10;
    await c.write(framed);
  }
  if (chunked) await c.write(encoder.encode("0\r\n\r\n"));
  return keepAlive;
}
