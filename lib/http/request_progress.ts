/**
 * How long a request may keep the server waiting for its bytes (lib/http/server.ts): the
 * request deadline in all, and a minimum rate once a grace period is over. Only the time the
 * server spends waiting for the client's bytes counts (from the request's first byte: head,
 * body, chunk lines and trailers alike), never the handler's own time.
 *
 * The minimum rate: a request may keep the server waiting `graceMs`, plus one second for every
 * `minRate` bytes of it received so far. A client that sends one byte every two seconds is cut
 * after about `graceMs`; one that keeps up `minRate` bytes a second is cut only by the
 * request deadline. A real client on a slow link sends far more than 500 bytes a second (the
 * default; GSM data did 1,200): it is never cut unless it stalls for about the grace period.
 *
 * When every slot of the server is busy, a newcomer takes the slot of the request furthest
 * behind the minimum rate, grace or not ({@linkcode requestDeficitMs}, lib/http/admission.ts):
 * a dripping client keeps its slot only while nobody else wants it.
 *
 * @module
 */

/** The limits {@linkcode requestOverdue} checks (a part of `ServerLimits`). */
export interface RequestProgressLimits {
  /** Milliseconds a request's bytes may keep the server waiting in all. */
  readonly requestTimeoutMs: number;
  /** Bytes a second a request must average once its grace is over (0: no minimum). */
  readonly minRequestRate: number;
  /** Milliseconds of waiting a request gets before the minimum rate counts. */
  readonly requestGraceMs: number;
}

/**
 * Why a request that has kept the server waiting `waitedMs` for its bytes, of which
 * `received` have come, must be cut: `"request"` past the request deadline, `"slow"` below the
 * minimum rate after its grace; undefined while it may go on.
 *
 * @example
 * ```ts
 * import { requestOverdue } from "./request_progress.ts";
 * const limits = { requestTimeoutMs: 60_000, minRequestRate: 500, requestGraceMs: 10_000 };
 * requestOverdue(9_000, 100, limits); // undefined: within the grace
 * requestOverdue(11_000, 100, limits); // "slow": 10.2 s of waiting earned, 11 s used
 * requestOverdue(30_000, 20_000, limits); // undefined: 50 s earned
 * requestOverdue(60_000, 1_000_000, limits); // "request"
 * ```
 */
export function requestOverdue(
  waitedMs: number,
  received: number,
  limits: RequestProgressLimits,
): "request" | "slow" | undefined {
  if (waitedMs >= limits.requestTimeoutMs) return "request";
  if (limits.minRequestRate > 0) {
    const earnedMs = limits.requestGraceMs + (received * 1000) / limits.minRequestRate;
    if (waitedMs > earnedMs) return "slow";
  }
  return undefined;
}

/**
 * How far a request that has kept the server waiting `waitedMs` for its bytes, of which
 * `received` have come, is behind the minimum rate, grace not counted: the milliseconds it has
 * waited beyond one second per `minRequestRate` bytes (0 or less: not behind; always 0 without
 * a minimum rate).
 *
 * @example
 * ```ts
 * import { requestDeficitMs } from "./request_progress.ts";
 * const limits = { requestTimeoutMs: 60_000, minRequestRate: 500, requestGraceMs: 10_000 };
 * requestDeficitMs(3_000, 100, limits); // 2800: 100 bytes earn 200 ms
 * requestDeficitMs(3_000, 5_000, limits); // -7000: ahead
 * ```
 */
export function requestDeficitMs(
  waitedMs: number,
  received: number,
  limits: RequestProgressLimits,
): number {
  if (limits.minRequestRate <= 0) return 0;
  return waitedMs - (received * 1000) / limits.minRequestRate;
}
