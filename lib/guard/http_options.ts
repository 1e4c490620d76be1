/**
 * How an HTTP guard is run ({@linkcode HttpGuardOptions}) and what a running one is
 * ({@linkcode HttpGuard}): shared by the Streamable HTTP guard (./http.ts) and the guard in
 * front of a legacy HTTP+SSE server.
 *
 * @module
 */
import type { GuardCore } from "./core.ts";

/** How to run an HTTP guard. */
export interface HttpGuardOptions {
  /** The upstream MCP endpoint. */
  readonly upstream: string;
  /** Address to listen on (default 127.0.0.1). */
  readonly hostname?: string;
  /** Port (0: any free port). */
  readonly port: number;
  /** The decisions. */
  readonly core: GuardCore;
  /** Names the server in messages. */
  readonly serverName: string;
  /** Milliseconds for `initialize` answers (default 90 s). */
  readonly startupTimeoutMs?: number;
  /** Milliseconds for `tools/list` answers (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Most pages the guard follows when it lists tools itself. */
  readonly maxPages?: number;
  /**
   * Connection limits of the listener (the defaults of lib/http/server.ts: 512 connections, 10 s
   * for a request's headers, 30 s idle).
   */
  readonly limits?: {
    /** Most connections open at once (a new one closes the connection idle the longest). */
    readonly maxConnections?: number;
    /** Milliseconds for a request's headers to arrive. */
    readonly headerTimeoutMs?: number;
    /** Milliseconds a keep-alive connection may stay idle, or a client may stall. */
    readonly idleTimeoutMs?: number;
    /** Milliseconds a request's head and body may take to arrive, in all. */
    readonly requestTimeoutMs?: number;
  };
  /** A sentence about the listener itself (out of file descriptors, …), for the log. */
  readonly onEvent?: (message: string) => void;
}

/** A running HTTP guard. */
export interface HttpGuard {
  /** The local endpoint clients use. */
  readonly url: string;
  /** Ends open upstream streams, stops listening (waits at most 3 s for open requests). */
  shutdown(): Promise<void>;
  /**
   * Resolves when the server has stopped; rejects (an `Error` named `ListenerFailure`) when the
   * listener failed for good while running.
   */
  readonly finished: Promise<void>;
}
