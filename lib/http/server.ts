/**
 * The HTTP/1.1 server of `schemapin serve` and `schemapin guard --listen`: our own accept loop
 * on `Deno.listen`, TLS (for `serve`) by `node:tls` on those TCP sockets, and a small HTTP/1.1
 * layer that hands `Request`s to a handler and writes its `Response`s.
 *
 * Why, measured on Deno 2.9.6 on loopback (figures in README, Performance):
 *
 * - **`Deno.serve` dies when the process runs out of file descriptors.** It has no connection
 *   cap and no handshake, header or idle timeout, and its `finished` promise rejects when
 *   `accept` fails with EMFILE — the listener is gone for good (a hello-world server dies the
 *   same way): 40 idle TCP connections under `ulimit -n 64` ended it. `onError` only sees
 *   handler errors, no option reaches the accept loop, and there is no public way to hand a
 *   connection to Deno's HTTP layer.
 * - **`node:http` / `node:net` stop accepting after EMFILE** (`maxConnections`,
 *   `headersTimeout` and `keepAliveTimeout` work): the same flood left a server that never
 *   accepted again, and emitted no error to react to.
 * - **Our own loop on `Deno.listen`** sees EMFILE as the error of one `accept`: it closes the
 *   connection idle the longest, backs off and goes on. Measured: it answered during and after
 *   a 500-connection flood under `ulimit -n 64`.
 * - **TLS: not `Deno.listenTls`.** A `Deno.TlsConn` closed before its handshake keeps its file
 *   descriptor until the client sends or closes (rustls-tokio-stream waits for the handshake
 *   task), so a handshake timeout could free nothing; and a `TlsConn` has no `setNoDelay`.
 *   `node:tls` on our own TCP connection releases the descriptor at once, and the TCP socket
 *   gets TCP_NODELAY. Its throughput matched `Deno.listenTls` for the same responses.
 * - **44 ms per request over TLS.** `Deno.serve` sets TCP_NODELAY on plain TCP only and writes
 *   an HTTP/1.1 response's head and body as two TLS records, so the second waits for the
 *   client's delayed ACK (Nagle): 218 requests/s at 10 keep-alive connections, and curl
 *   `--http1.1` waits 44 ms for a second document on one connection. Here every socket has
 *   TCP_NODELAY and a response of known length (every document of `serve`) is one write.
 *   (HTTP/2 by ALPN avoids the stall too, but HTTP/1.1 clients — curl --http1.1, autocannon,
 *   most monitoring — still hit it; this layer speaks HTTP/1.1 only.)
 * - **Cost.** A JS HTTP layer does more work per request than `Deno.serve`'s Rust one; at
 *   hundreds of busy TLS connections it does fewer requests per second than `Deno.serve` once
 *   Nagle's stalls overlap (README has the figures). For the guard, whose requests each cost an
 *   upstream round trip, and for `serve`, whose clients fetch two small documents, staying up
 *   is worth that.
 *
 * What the layer does: HTTP/1.1 and 1.0, keep-alive, pipelined requests (answered in order),
 * `Content-Length` and chunked request bodies (as a stream, with backpressure),
 * `Expect: 100-continue`, responses with a known length written in one piece and others
 * chunked; a client that goes away cancels the response body. (`request.signal` is not tied
 * to the connection: an `AbortSignal` per request tripled the cost of building the `Request`,
 * and neither server needs it.)
 *
 * Framing (lib/http/framing.ts, docs/http-framing.md) is never looser than Node's llhttp
 * (tests/http/framing_differential_test.ts): optional whitespace is SP/HTAB only, one final
 * `chunked` or one `Content-Length` (never both, never repeated or listed), strict chunk-size
 * lines and trailer fields, case-sensitive methods (another method is 501), CONNECT and TRACE
 * 501, heads and trailer sections of at most 16 KiB (431). A refused request is answered
 * (400, 413, 417, 431, 501 or 505) with `Connection: close`, and nothing after it is parsed —
 * also when the handler had already answered before it read the body that broke the rules.
 * `OPTIONS *` is answered here (200), never handed to the handler as a request for `/`. A
 * request with `Upgrade` is answered with its body framed as usual (no protocol switch) and the
 * connection closes. Bodies of GET and HEAD are skipped (at most 64 KiB).
 *
 * `100 Continue` is sent when the handler first reads a body whose client asked for it, never
 * after a final response; a final response to such a request sent before the body was asked
 * for closes the connection (the client is not waited for). A client that half-closes (sends
 * FIN) after its requests still gets every answer it is owed, pipelined ones and those of async
 * handlers included; a client whose connection is reset does not, and its response stream is
 * cancelled.
 *
 * Limits ({@linkcode ServerLimits}): at most `maxConnections` connections, busy or idle — a new
 * connection beyond it closes the connection that has been idle the longest (waiting for a TLS
 * handshake or a request), else the busy one whose request is furthest behind the minimum rate
 * below, and when there is none the newcomer is closed at once (lib/http/admission.ts; the
 * server never leaves connections waiting in the kernel's queue);
 * a TLS handshake must finish within `handshakeTimeoutMs`; a request head must arrive within
 * `headerTimeoutMs` of the connection's start or of its first byte; a request's head and body
 * within `requestTimeoutMs` in all (the time the server spends waiting for its bytes, however
 * steadily they drip), and at `minRequestRate` bytes a second on average once
 * `requestGraceMs` of waiting is over (lib/http/request_progress.ts); a keep-alive connection may wait
 * `idleTimeoutMs` for its next request, and a client that owes bytes of a body, or does not take
 * bytes of a response, for as long (and, once it has half-closed, a response body that produces
 * nothing for as long ends the connection). When `accept` fails for want of file descriptors
 * the server lowers its cap below the number of connections open at that moment (for a minute),
 * closes the oldest idle connections, and backs off (1 ms … 1 s).
 *
 * The parts, each in its own module: the byte stream of a connection, TCP or TLS
 * (lib/http/transport.ts); a connection's buffer, state and deadlines (lib/http/connection.ts);
 * the request body reader (lib/http/body_reader.ts); the requests of one connection
 * (lib/http/exchange.ts) and the writing of their responses (lib/http/response_writer.ts); the
 * accept loop (lib/http/listener.ts); the timer over every deadline (lib/http/deadlines.ts);
 * the options, limits and counters (lib/http/options.ts). This module starts them and stops
 * them.
 *
 * @module
 */
import tls from "node:tls";
import { Admission } from "./admission.ts";
import type { Connection } from "./connection.ts";
import { sweepDeadlines, sweepInterval } from "./deadlines.ts";
import type { ServerContext } from "./exchange.ts";
import { acceptLoop, eventReporter } from "./listener.ts";
import {
  DEFAULT_SERVER_LIMITS,
  type HttpServer,
  type HttpServerOptions,
  type ServerLimits,
} from "./options.ts";
import { requestDeficitMs } from "./request_progress.ts";

export {
  DEFAULT_SERVER_LIMITS,
  type HttpServer,
  type HttpServerOptions,
  ListenerFailure,
  type RequestInfo,
  type ServerLimits,
  type ServerStats,
} from "./options.ts";

/**
 * Starts a server (see the module documentation). Throws at once when the address cannot be
 * used (`Deno.listen` / `Deno.listenTls` errors: in use, not permitted, bad certificate).
 *
 * @example
 * ```ts ignore
 * const server = listenHttp({ hostname: "127.0.0.1", port: 0, handler: () => new Response("hi") });
 * await server.shutdown();
 * ```
 */
export function listenHttp(options: HttpServerOptions): HttpServer {
  const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  // TLS runs on our own TCP connections (lib/http/transport.ts); a bad certificate or key
  // fails here.
  const context = options.tls
    ? tls.createSecureContext({ cert: options.tls.cert, key: options.tls.key })
    : undefined;
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  const addr = listener.addr;
  // Which connections are open, which idle, and who gets a slot (lib/http/admission.ts): at
  // the cap, the one idle the longest, else the request furthest behind the minimum rate,
  // gives its slot to a newcomer.
  const conns = new Admission<Connection>(
    limits.maxConnections,
    (c) =>
      c.waitingSince === 0 ? 0 : requestDeficitMs(
        c.waitedMs + Date.now() - c.waitingSince,
        c.bytesIn - c.requestStart,
        limits,
      ),
  );
  const server: ServerContext = {
    limits,
    options,
    scheme: options.tls ? "https" : "http",
    defaultHost: addr.hostname.includes(":")
      ? `[${addr.hostname}]:${addr.port}`
      : `${addr.hostname}:${addr.port}`,
    conns,
    stats: {
      open: 0,
      idle: 0,
      accepted: 0,
      requests: 0,
      evicted: 0,
      refused: 0,
      timedOut: { handshake: 0, header: 0, idle: 0, request: 0, slow: 0 },
      outOfFiles: 0,
    },
    closing: false,
    allClosed: undefined,
  };
  const { stats } = server;

  // One timer checks every deadline (cheaper than a timer per connection and request).
  const sweeper = setInterval(
    () => sweepDeadlines(conns, limits, stats, Date.now()),
    sweepInterval(limits),
  );
  Deno.unrefTimer(sweeper);

  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** Ends every connection; a handler that does not return is not waited for. */
  const closeAll = () => {
    conns.closeAll();
    server.allClosed?.();
  };
  const finished = (async () => {
    try {
      await acceptLoop(server, listener, context, eventReporter(options));
    } catch (e) {
      server.closing = true;
      closeAll();
      throw e;
    } finally {
      clearInterval(sweeper);
      try {
        listener.close();
      } catch { /* closed by shutdown */ }
    }
    if (conns.size > 0) await new Promise<void>((r) => server.allClosed = r);
    clearTimeout(graceTimer);
  })();
  finished.catch(() => {}); // the owner awaits it; an unobserved rejection must not end the process

  return {
    addr,
    finished,
    shutdown(graceMs?: number) {
      if (!server.closing) {
        server.closing = true;
        try {
          listener.close();
        } catch { /* already closed */ }
        for (const c of conns.idleConnections()) c.close();
        if (graceMs !== undefined) graceTimer = setTimeout(closeAll, graceMs);
      }
      return finished.catch(() => {});
    },
    stats: () => ({
      ...stats,
      open: conns.size,
      idle: conns.idleCount,
      evicted: conns.evicted,
      refused: conns.refused,
      timedOut: { ...stats.timedOut },
    }),
  };
}
