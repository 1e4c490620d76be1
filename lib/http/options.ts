/**
 * What the HTTP/1.1 server (lib/http/server.ts) is given and what it gives back: its limits
 * and their defaults, its options, the counters and the handle of a running server, and the
 * failure of its listener. `listenHttp` itself is in lib/http/server.ts.
 *
 * @module
 */

/**
 * The limits of one server (see the module documentation).
 *
 * @example
 * ```ts
 * import { DEFAULT_SERVER_LIMITS, type ServerLimits } from "./options.ts";
 * const limits: ServerLimits = { ...DEFAULT_SERVER_LIMITS, maxConnections: 64 };
 * ```
 */
export interface ServerLimits {
  /** Most connections open at once. */
  readonly maxConnections: number;
  /** Milliseconds for a TLS handshake. */
  readonly handshakeTimeoutMs: number;
  /** Milliseconds for a complete request head (from the connection's start or its first byte). */
  readonly headerTimeoutMs: number;
  /** Milliseconds a keep-alive connection waits for its next request, and a read or write may stall. */
  readonly idleTimeoutMs: number;
  /**
   * Milliseconds a request's head and body may take to arrive, in all (counted while the
   * server waits for the client's bytes, from the request's first byte): a client that
   * drips bytes loses its connection.
   */
  readonly requestTimeoutMs: number;
  /**
   * Bytes a second a request's head, body and trailers must average once `requestGraceMs` of
   * waiting is over: a request may keep the server waiting `requestGraceMs` plus one second
   * per `minRequestRate` bytes received (0: no minimum).
   */
  readonly minRequestRate: number;
  /** Milliseconds of waiting for a request's bytes before `minRequestRate` counts. */
  readonly requestGraceMs: number;
}

/**
 * The defaults of both servers' flags.
 *
 * @example
 * ```ts
 * import { DEFAULT_SERVER_LIMITS } from "./options.ts";
 * DEFAULT_SERVER_LIMITS.maxConnections; // 512
 * ```
 */
export const DEFAULT_SERVER_LIMITS: ServerLimits = Object.freeze({
  maxConnections: 512,
  handshakeTimeoutMs: 10_000,
  headerTimeoutMs: 10_000,
  idleTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  minRequestRate: 500,
  requestGraceMs: 10_000,
});

/**
 * What the handler is told besides the request.
 *
 * @example
 * ```ts
 * import type { RequestInfo } from "./options.ts";
 * const handler = (_request: Request, info: RequestInfo) => new Response(info.remoteAddr.hostname);
 * ```
 */
export interface RequestInfo {
  /** The client's address. */
  readonly remoteAddr: Deno.NetAddr;
  /** The request target as the client sent it (origin or absolute form). */
  readonly target: string;
}

/**
 * How to run a server.
 *
 * @example
 * ```ts
 * import type { HttpServerOptions } from "./options.ts";
 * const options: HttpServerOptions = {
 *   hostname: "127.0.0.1",
 *   port: 0,
 *   limits: { idleTimeoutMs: 5_000 },
 *   handler: () => new Response("hi"),
 * };
 * ```
 */
export interface HttpServerOptions {
  /** Address to listen on. */
  readonly hostname: string;
  /** Port (0: any free port). */
  readonly port: number;
  /** PEM certificate chain and key: HTTPS. */
  readonly tls?: { readonly cert: string; readonly key: string };
  /** Limits (defaults: {@linkcode DEFAULT_SERVER_LIMITS}). */
  readonly limits?: Partial<ServerLimits>;
  /** Answers one request. */
  readonly handler: (request: Request, info: RequestInfo) => Response | Promise<Response>;
  /** The response when the handler throws (default: 500). */
  readonly onError?: (error: unknown) => Response;
  /** A sentence about the server itself (out of file descriptors, …), at most one per 10 s. */
  readonly onEvent?: (message: string) => void;
}

/**
 * Counters of a running server.
 *
 * @example
 * ```ts
 * import type { HttpServer, ServerStats } from "./options.ts";
 * const busy = (server: HttpServer) => {
 *   const stats: ServerStats = server.stats();
 *   return stats.open - stats.idle;
 * };
 * ```
 */
export interface ServerStats {
  /** Connections open now. */
  open: number;
  /** Of those, idle (handshake, or waiting for a request). */
  idle: number;
  /** Connections accepted so far (those closed at once at the cap included). */
  accepted: number;
  /** Requests answered so far. */
  requests: number;
  /**
   * Connections closed to make room (the cap, or out of file descriptors): idle ones, and busy
   * ones whose request was behind the minimum rate.
   */
  evicted: number;
  /** Connections closed as soon as they were accepted: the cap was reached, none was idle. */
  refused: number;
  /**
   * Connections closed by a timeout, by kind (`slow`: a request below the minimum rate after
   * its grace).
   */
  timedOut: { handshake: number; header: number; idle: number; request: number; slow: number };
  /** `accept` calls that failed for want of file descriptors. */
  outOfFiles: number;
}

/**
 * A running server.
 *
 * @example
 * ```ts
 * import type { HttpServer } from "./options.ts";
 * const stop = (server: HttpServer) => server.shutdown(5_000);
 * ```
 */
export interface HttpServer {
  /** The address it listens on. */
  readonly addr: Deno.NetAddr;
  /**
   * Resolves when the server has stopped after {@linkcode HttpServer.shutdown}; rejects with
   * {@linkcode ListenerFailure} when the listener failed for good while running.
   */
  readonly finished: Promise<void>;
  /**
   * Stops accepting, closes idle connections, lets requests in progress finish, and closes
   * whatever is still open after `graceMs` (default: wait for them).
   */
  shutdown(graceMs?: number): Promise<void>;
  /** Counters. */
  stats(): ServerStats;
}

/**
 * The listener failed while the server was running (a runtime failure, not a bad setup).
 *
 * @example
 * ```ts
 * import { ListenerFailure } from "./options.ts";
 * const failure = new ListenerFailure("the listener was closed", new Error("closed"));
 * failure.name; // "ListenerFailure"
 * ```
 */
export class ListenerFailure extends Error {
  /** The error of the failed `accept`. */
  override readonly cause: unknown;
  /** A failure with `message` caused by `cause`. */
  constructor(message: string, cause: unknown) {
    super(message);
    this.name = "ListenerFailure";
    this.cause = cause;
  }
}
