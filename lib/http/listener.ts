/**
 * The accept loop of the HTTP/1.1 server (lib/http/server.ts) on `Deno.listen`: every
 * connection is accepted, also at the cap (lib/http/admission.ts makes room or closes the
 * newcomer at once: none is left in the kernel's queue); running out of file descriptors
 * lowers the cap, closes the oldest idle connections and backs off (1 ms … 1 s); other
 * transient failures are retried, and the listener is given up ({@linkcode ListenerFailure})
 * only when it was closed or kept failing.
 *
 * @module
 */
import type tls from "node:tls";
import { Connection } from "./connection.ts";
import { serveConnection, type ServerContext } from "./exchange.ts";
import { type HttpServerOptions, ListenerFailure } from "./options.ts";
import { TcpTransport, TlsTransport } from "./transport.ts";

/** Errors of `accept` after which the server goes on (after a pause). */
const TRANSIENT_ACCEPT = new Set([
  "ENFILE",
  "ENOBUFS",
  "ENOMEM",
  "ECONNABORTED",
  "ECONNRESET",
  "EPROTO",
  "EPERM",
  "ETIMEDOUT",
  "EAGAIN",
  "EINTR",
  "ENETDOWN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENONET",
  "EOPNOTSUPP",
]);
/** Consecutive failures of `accept` with an unknown error before the listener is given up. */
const MAX_UNKNOWN_ACCEPT_FAILURES = 50;

/** Tells a sentence about the server, of a kind (`emfile`, `accept`). */
export type EventReporter = (kind: string, message: string) => void;

/**
 * Tells `options.onEvent` each event at most once per 10 s per kind; the ones held back are counted
 * in the next. A log that fails does not stop the server.
 *
 * @example
 * ```ts
 * import { eventReporter } from "./listener.ts";
 * const told: string[] = [];
 * const event = eventReporter({ onEvent: (m) => told.push(m) });
 * event("accept", "first");
 * event("accept", "second"); // held back: within 10 s of the first
 * told; // ["first"]
 * ```
 */
export function eventReporter(options: Pick<HttpServerOptions, "onEvent">): EventReporter {
  const lastEvent = new Map<string, { at: number; held: number }>();
  return (kind: string, message: string) => {
    if (!options.onEvent) return;
    const now = Date.now();
    const e = lastEvent.get(kind);
    if (e && now - e.at < 10_000) {
      e.held++;
      return;
    }
    const held = e?.held ? ` (${e.held} more since the last report)` : "";
    lastEvent.set(kind, { at: now, held: 0 });
    try {
      options.onEvent(message + held);
    } catch { /* a log that fails must not stop the server */ }
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Accepts connections until the server is closing, and serves each
 * (lib/http/exchange.ts) over TCP, or TLS with `context`. Rejects with
 * {@linkcode ListenerFailure} when the listener fails for good.
 *
 * @example
 * ```ts ignore
 * import { acceptLoop, eventReporter } from "./listener.ts";
 * await acceptLoop(server, Deno.listen({ port: 0 }), undefined, eventReporter({ onEvent: console.error }));
 * ```
 */
export async function acceptLoop(
  server: ServerContext,
  listener: Deno.TcpListener,
  context: tls.SecureContext | undefined,
  event: EventReporter,
): Promise<void> {
  const { conns, stats, limits } = server;
  let backoff = 0;
  let unknownFailures = 0;
  while (!server.closing) {
    // Accepting goes on at the cap: a connection beyond it is closed at once (below), never
    // left in the kernel's queue where its client waits on an open connection.
    let conn: Deno.TcpConn;
    try {
      conn = await listener.accept();
    } catch (e) {
      if (server.closing) break;
      const code = (e as { code?: string }).code;
      if (code === "EMFILE" || code === "ENFILE") {
        stats.outOfFiles++;
        // Room for the other descriptors the process needs (upstream connections, logs).
        const open = conns.size;
        const lowered = conns.lowerCap();
        event(
          "emfile",
          `out of file descriptors (${(e as Error).message}) with ${open} connections open: ` +
            `closing the oldest idle connections, at most ${lowered.cap} connections for the ` +
            `next minute (raise the open-file limit, or lower maxConnections)`,
        );
        backoff = lowered.evicted ? 1 : Math.min(1000, Math.max(10, backoff * 2));
        await sleep(backoff);
        continue;
      }
      if (e instanceof Deno.errors.BadResource || e instanceof Deno.errors.Interrupted) {
        throw new ListenerFailure(`the listener was closed: ${(e as Error).message}`, e);
      }
      if (code === undefined || !TRANSIENT_ACCEPT.has(code)) {
        if (++unknownFailures >= MAX_UNKNOWN_ACCEPT_FAILURES) {
          throw new ListenerFailure(
            `accepting connections failed ${unknownFailures} times in a row: ` +
              (e as Error).message,
            e,
          );
        }
      }
      event("accept", `accepting a connection failed: ${(e as Error).message}; retrying`);
      backoff = Math.min(1000, Math.max(10, backoff * 2));
      await sleep(backoff);
      continue;
    }
    backoff = 0;
    unknownFailures = 0;
    stats.accepted++;
    // Room for the newcomer: the connection idle the longest goes; when every slot is busy,
    // the newcomer itself is closed at once (as node's server.maxConnections does).
    if (!conns.makeRoom()) {
      try {
        conn.close();
      } catch { /* closed already */ }
      continue;
    }
    try {
      conn.setNoDelay(true); // responses go out at once, TLS or not (no 40 ms delayed-ACK stalls)
    } catch { /* closed already */ }
    const transport = context ? new TlsTransport(conn, context) : new TcpTransport(conn);
    const c = new Connection(transport, conn.remoteAddr, limits.idleTimeoutMs);
    conns.add(c);
    stats.open = conns.size;
    serveConnection(server, c);
  }
}
