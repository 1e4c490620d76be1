/**
 * What the request handlers of one Streamable HTTP guard share: the core, the upstream, the
 * timeouts, the guard's sessions (keyed as `sessionKey` of ./http_headers.ts says) and the
 * signal that ends every upstream request and stream when the guard stops.
 *
 * @module
 */
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from "../mcp/session.ts";
import type { GuardCore, GuardSession } from "./core.ts";
import type { HttpGuardOptions } from "./http_options.ts";

/** The guard keeps at most this many sessions; a new one drops the oldest. */
const MAX_SESSIONS = 1024;

/** The state of one running HTTP guard, shared by its handlers. */
export interface HttpGuardContext {
  /** The decisions. */
  readonly core: GuardCore;
  /** The upstream MCP endpoint. */
  readonly upstream: URL;
  /** Names the server in messages (`server NAME`). */
  readonly source: string;
  /** Milliseconds for `initialize` answers. */
  readonly startupMs: number;
  /** Milliseconds for `tools/list` answers. */
  readonly requestMs: number;
  /** Most pages the guard follows when it lists tools itself. */
  readonly maxPages: number;
  /**
   * Aborted at shutdown: ends every upstream request and stream still open, so the graceful
   * shutdown of the listener does not wait on a client that keeps a stream open.
   */
  readonly stopAll: AbortController;
  /** The guard's sessions by key. */
  readonly sessions: Map<string, GuardSession>;
  /** The session of a key, created (the oldest dropped beyond 1024) when there is none. */
  sessionFor(id: string): GuardSession;
  /** A fresh id for a request of the guard's own (never one a client would use). */
  ownRequestId(): string;
}

/**
 * The context of a new HTTP guard, from its options (defaults applied).
 *
 * @throws {TypeError} for an `upstream` that is not a URL
 *
 * @example
 * ```ts ignore
 * const ctx = httpGuardContext(options);
 * const session = ctx.sessionFor(sessionKey(req.headers));
 * ```
 */
export function httpGuardContext(options: HttpGuardOptions): HttpGuardContext {
  const core = options.core;
  const sessions = new Map<string, GuardSession>();
  const guardPrefix = `schemapin-guard-${crypto.randomUUID().slice(0, 8)}-`;
  let nextGuardId = 1;
  return {
    core,
    upstream: new URL(options.upstream),
    source: `server ${options.serverName}`,
    startupMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
    requestMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
    stopAll: new AbortController(),
    sessions,
    sessionFor: (id) => {
      let s = sessions.get(id);
      if (!s) {
        if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
        s = core.newSession();
        sessions.set(id, s);
      }
      return s;
    },
    ownRequestId: () => guardPrefix + nextGuardId++,
  };
}
