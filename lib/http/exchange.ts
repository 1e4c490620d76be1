/**
 * The requests of one connection of the HTTP/1.1 server (lib/http/server.ts), one after the
 * other: its TLS handshake, each request head (lib/http/framing.ts), the handler's answer
 * (lib/http/response_writer.ts), keep-alive or close, and the refusal of a request that breaks
 * the framing rules (its status and `Connection: close`, then nothing more is parsed).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { Admission } from "./admission.ts";
import { BodyReader, drain, MAX_DRAIN } from "./body_reader.ts";
import { type Connection, type DeadlineKind, linger } from "./connection.ts";
import {
  checkHeadStart,
  FramingError,
  MAX_HEAD_BYTES,
  parseRequestHead,
  type RequestHead,
} from "./framing.ts";
import { latin1 } from "./latin1.ts";
import type { HttpServerOptions, ServerLimits, ServerStats } from "./options.ts";
import { errorBytes, type ResponseInFlight, writeResponse } from "./response_writer.ts";
import { TlsTransport } from "./transport.ts";

/**
 * What serving a connection needs of its server: one per server, shared by its connections.
 *
 * @example
 * ```ts ignore
 * import { serveConnection, type ServerContext } from "./exchange.ts";
 * const server: ServerContext = { limits, options, scheme: "http", defaultHost, conns, stats, closing: false, allClosed: undefined };
 * serveConnection(server, c);
 * ```
 */
export interface ServerContext {
  /** The server's limits (defaults filled in). */
  readonly limits: ServerLimits;
  /** The server's options (its handler and `onError`). */
  readonly options: HttpServerOptions;
  /** `http` or `https`: the scheme of a request's URL. */
  readonly scheme: string;
  /** The authority of a request's URL when it has no Host field (HTTP/1.0). */
  readonly defaultHost: string;
  /** The connections open, which are idle, and the cap (lib/http/admission.ts). */
  readonly conns: Admission<Connection>;
  /** The server's counters. */
  readonly stats: ServerStats;
  /** The server is shutting down: no connection is kept for another request. */
  closing: boolean;
  /** Called when the last connection has closed while shutting down. */
  allClosed: (() => void) | undefined;
}

/** The connection waits (its handshake, a request head, its next request) `timeoutMs` at most. */
function setIdle(
  server: ServerContext,
  c: Connection,
  timeoutMs: number,
  kind: DeadlineKind,
): void {
  c.state = kind === "handshake" ? "handshake" : "idle";
  c.deadline = Date.now() + timeoutMs;
  c.deadlineKind = kind;
  server.conns.idle(c);
}

/** The connection is answering a request. */
function setActive(server: ServerContext, c: Connection): void {
  c.state = "active";
  c.deadline = 0;
  server.conns.busy(c);
}

/**
 * Serves the requests of `c` until it closes (by either side, a timeout, or the server's
 * shutdown), then removes it from the server's connections.
 *
 * @example
 * ```ts ignore
 * import { serveConnection } from "./exchange.ts";
 * server.conns.add(c);
 * serveConnection(server, c); // runs on its own
 * ```
 */
export async function serveConnection(server: ServerContext, c: Connection): Promise<void> {
  const { limits, conns, stats } = server;
  try {
    if (c.transport instanceof TlsTransport) {
      setIdle(server, c, limits.handshakeTimeoutMs, "handshake");
      await c.transport.secure;
      if (c.state === "closed") return;
    }
    setIdle(server, c, limits.headerTimeoutMs, "header");
    while (!server.closing) {
      let head: RequestHead | null;
      try {
        head = await readHead(c, limits);
        if (head === null) break;
        if (!await answer(server, c, head)) {
          // Closed by this side: the client may still be sending (a body that was not
          // read, pipelined requests); reading on for a moment lets it see the answer.
          if (!c.gone && !c.eof) await linger(c);
          break;
        }
      } catch (e) {
        if (e instanceof FramingError && !c.gone) {
          if (!c.responded) await c.write(errorBytes(e.status, e.message)).catch(() => {});
          if (!c.gone) await linger(c);
        }
        break;
      }
      c.inRequest = false;
      c.responded = false;
      setIdle(server, c, limits.idleTimeoutMs, "idle");
      if (server.closing) break;
    }
  } catch {
    // a failed handshake, read or write ends this connection only
  } finally {
    c.close();
    conns.remove(c);
    stats.open = conns.size;
    if (server.closing && conns.size === 0) server.allClosed?.();
  }
}

/** The next request head; null at the end of the connection. */
async function readHead(c: Connection, limits: ServerLimits): Promise<RequestHead | null> {
  let scanned = 0;
  let skipped = 0;
  while (true) {
    let v = c.view();
    if (v.length > 0 && !c.inRequest) {
      // The first byte of a request: the head must now arrive within the header timeout,
      // head and body within the request timeout.
      c.inRequest = true;
      c.waitedMs = 0;
      c.requestStart = c.bytesIn - v.length;
      if (c.state === "idle" && c.deadlineKind === "idle") {
        c.deadline = Date.now() + limits.headerTimeoutMs;
        c.deadlineKind = "header";
      }
    }
    // Empty lines before a request line are skipped (RFC 9112 §2.2), within the head's cap.
    while (v.length >= 2 && v[0] === 13 && v[1] === 10) {
      c.consume(2);
      skipped += 2;
      v = c.view();
      scanned = 0;
    }
    for (let i = Math.max(0, scanned - 3); i + 3 < v.length; i++) {
      i = v.indexOf(13, i);
      if (i < 0 || i + 3 >= v.length) break;
      if (v[i + 1] === 10 && v[i + 2] === 13 && v[i + 3] === 10) {
        if (skipped + i + 4 > MAX_HEAD_BYTES) {
          throw new FramingError(431, "the request head is too large");
        }
        const head = parseRequestHead(latin1(v.subarray(0, i)));
        c.consume(i + 4);
        return head;
      }
    }
    scanned = v.length;
    if (v.length > 0) checkHeadStart(latin1(v.subarray(0, Math.min(v.length, 256))));
    if (skipped + v.length > MAX_HEAD_BYTES) {
      throw new FramingError(431, "the request head is too large");
    }
    if (!await c.awaitClient()) {
      // The client ended its stream inside a head: refused (it may still read the answer).
      if (c.view().length > 0 && !c.gone) throw new FramingError(400, "an incomplete request");
      return null;
    }
  }
}

/** The `Request` the handler gets for `head` (with `body` when it has one). */
function requestOf(
  server: ServerContext,
  head: RequestHead,
  body: ReadableStream<Uint8Array> | undefined,
): Request {
  let url: string;
  if (head.target.startsWith("/")) {
    url = `${server.scheme}://${head.host ?? server.defaultHost}${head.target}`;
  } else {
    url = head.target; // absolute form (RFC 9112 §3.2.2: its authority, not Host)
  }
  try {
    const headers = new Headers();
    for (const [name, value] of head.fields) headers.append(name, value);
    return new Request(url, {
      method: head.method,
      headers,
      ...(body ? { body, duplex: "half" } as RequestInit : {}),
    });
  } catch {
    throw new FramingError(400, "malformed request");
  }
}

/** The handler's response to `request`, or the error response when it throws. */
async function handle(
  server: ServerContext,
  c: Connection,
  request: Request,
  target: string,
  bodyFailed: () => unknown,
): Promise<Response> {
  const { options } = server;
  try {
    const response = await options.handler(request, { remoteAddr: c.remoteAddr, target });
    // A programming-error assertion: the handler's type promises a Response.
    if (!(response instanceof Response)) throw new TypeError("the handler returned no Response");
    return response;
  } catch (e) {
    const failed = bodyFailed();
    if (failed instanceof FramingError) throw failed;
    return options.onError?.(e) ??
      new Response("internal error\n", {
        status: 500,
        headers: { "content-type": "text/plain; charset=utf-8" },
      });
  }
}

/** Answers one request; false when the connection must close. */
async function answer(server: ServerContext, c: Connection, head: RequestHead): Promise<boolean> {
  setActive(server, c);
  c.watch();
  c.responded = false;
  server.stats.requests++;
  // Upgrade is not switched: the request is answered with its body framed as usual, and the
  // connection closes (what follows is never parsed as a request: parseRequestHead).
  let keepAlive = head.keepAlive && !server.closing;
  const http10 = head.minor === 0;
  const bodyDeadline = (on: boolean) => {
    c.deadline = on ? Date.now() + server.limits.idleTimeoutMs : 0;
    c.deadlineKind = "idle";
  };
  const reader = new BodyReader(c, head.contentLength, head.expectContinue, bodyDeadline);
  const gone: ResponseInFlight = {};
  if (head.target === "*") {
    // Asterisk form (OPTIONS * only, parseRequestHead): about the server, not a resource.
    // Answered here; the handler never sees it as a request for "/".
    if (!reader.done) await drain(reader);
    reader.finalSent = true;
    keepAlive = await writeResponse(c, new Response(null), "OPTIONS", keepAlive, http10, gone);
    return keepAlive && !server.closing && !c.gone;
  }
  let bodyFailed: unknown;
  const withBody = !reader.done && head.method !== "GET" && head.method !== "HEAD";
  if (!reader.done && !withBody) {
    // A body on GET or HEAD means nothing here: it is skipped (up to MAX_DRAIN bytes).
    await drain(reader);
  }
  const body = withBody ? reader.stream((e) => bodyFailed = e) : undefined;
  const request = requestOf(server, head, body);
  c.onGone = () => {
    gone.reader?.cancel(new SchemaPinError("IO_FAILED", "the client closed the connection"))
      .catch(() => {});
  };
  const response = await handle(server, c, request, head.target, () => bodyFailed);
  if (bodyFailed instanceof FramingError) {
    // The body broke the framing rules: whatever the handler made of it, the answer is the
    // refusal (400, 413, 431), and the connection closes.
    await response.body?.cancel().catch(() => {});
    throw bodyFailed;
  }
  if (c.gone) {
    await response.body?.cancel().catch(() => {});
    return false;
  }
  if (withBody && !reader.done) {
    if (reader.continuePending) {
      // The client waits for 100 Continue before it sends its body, and the body was never
      // asked for: a final answer, no 100 after it, and the connection closes (nothing to
      // wait for, nothing to skip).
      keepAlive = false;
    } else if (
      reader.started || (head.contentLength < 0 ? false : head.contentLength > MAX_DRAIN)
    ) {
      // The handler did not read the whole body: skip the rest when it is small and untouched.
      keepAlive = false;
    }
  }
  reader.finalSent = true;
  keepAlive = await writeResponse(c, response, head.method, keepAlive, http10, gone);
  c.onGone = undefined;
  if (withBody && !reader.done && keepAlive) {
    try {
      keepAlive = await drain(reader);
    } catch {
      keepAlive = false;
    }
  }
  return keepAlive && !server.closing && !c.gone;
}
