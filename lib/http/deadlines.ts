/**
 * The deadlines of a server's connections (lib/http/server.ts), checked by one timer for all of
 * them (cheaper than a timer per connection and request): the handshake, header and idle
 * timeouts each connection carries, and the request deadline and minimum rate of a request
 * whose bytes the server is waiting for (lib/http/request_progress.ts).
 *
 * @module
 */
import type { Admission } from "./admission.ts";
import type { Connection } from "./connection.ts";
import type { ServerLimits, ServerStats } from "./options.ts";
import { requestOverdue } from "./request_progress.ts";

/**
 * How often the deadlines are checked: a quarter of the shortest timeout, from 10 ms to 1 s.
 *
 * @example
 * ```ts
 * import { sweepInterval } from "./deadlines.ts";
 * import { DEFAULT_SERVER_LIMITS } from "./options.ts";
 * sweepInterval(DEFAULT_SERVER_LIMITS); // 1000
 * sweepInterval({ ...DEFAULT_SERVER_LIMITS, headerTimeoutMs: 200 }); // 50
 * ```
 */
export function sweepInterval(limits: ServerLimits): number {
  return Math.max(
    10,
    Math.min(
      1000,
      Math.floor(
        Math.min(
          limits.handshakeTimeoutMs,
          limits.headerTimeoutMs,
          limits.idleTimeoutMs,
          limits.requestTimeoutMs,
          limits.minRequestRate > 0 ? limits.requestGraceMs : Infinity,
        ) / 4,
      ),
    ),
  );
}

/**
 * Closes every connection past its deadline at `now`, or whose request is past the request
 * deadline or below the minimum rate after its grace, and counts each in `stats.timedOut`.
 *
 * @example
 * ```ts ignore
 * import { sweepDeadlines } from "./deadlines.ts";
 * setInterval(() => sweepDeadlines(conns, limits, stats, Date.now()), sweepInterval(limits));
 * ```
 */
export function sweepDeadlines(
  conns: Admission<Connection>,
  limits: ServerLimits,
  stats: ServerStats,
  now: number,
): void {
  for (const c of conns.connections()) {
    if (c.deadline !== 0 && now >= c.deadline) {
      c.deadline = 0;
      stats.timedOut[c.deadlineKind]++;
      c.close();
    } else if (c.waitingSince !== 0) {
      // The request's bytes took too long to arrive in all, or came too slowly after the
      // grace, however steadily they dripped (lib/http/request_progress.ts).
      const overdue = requestOverdue(
        c.waitedMs + now - c.waitingSince,
        c.bytesIn - c.requestStart,
        limits,
      );
      if (overdue) {
        stats.timedOut[overdue]++;
        c.close();
      }
    }
  }
}
