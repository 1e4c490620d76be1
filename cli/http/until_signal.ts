/**
 * A long-running server (`schemapin serve`, `schemapin guard --listen`) run until this process
 * is asked to stop, or until its listener fails for good: the stop shuts it down (requests in
 * progress get their grace), a failure is returned — a runtime failure, not a bad setup.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { isWindows, onSignal, type Signal } from "../../lib/runtime/process.ts";
import { ListenerFailure } from "../../lib/http/server.ts";

/** A running server: `finished` settles once it has stopped, or rejects when it failed. */
export interface RunningServer {
  /** Settles when the server has stopped; a {@linkcode ListenerFailure} when it failed for good. */
  readonly finished: Promise<void>;
  /** Stops it, giving requests in progress `graceMs` (or the server's default). */
  shutdown(graceMs?: number): Promise<void>;
}

/** The signals that stop a server: SIGINT and SIGTERM; on Windows SIGINT and SIGBREAK. */
export const STOP_SIGNALS: readonly Signal[] = isWindows
  ? ["SIGINT", "SIGBREAK"]
  : ["SIGINT", "SIGTERM"];

/**
 * Waits until `server` has stopped: `stop` resolving shuts it down (with `graceMs`). Returns
 * the {@linkcode ListenerFailure} when the listener failed for good while running instead.
 *
 * @throws what the server's run throws besides a listener failure
 *
 * @example
 * ```ts ignore
 * import { runUntilStopped } from "./until_signal.ts";
 * const failure = await runUntilStopped(server, interrupted, 5_000);
 * if (failure) console.error(failure.message);
 * ```
 */
export async function runUntilStopped(
  server: RunningServer,
  stop: Promise<unknown>,
  graceMs?: number,
): Promise<ListenerFailure | undefined> {
  const stopped = stop.then(() => server.shutdown(graceMs));
  try {
    await Promise.race([server.finished, stopped]);
    return undefined;
  } catch (e) {
    if (e instanceof ListenerFailure) return e;
    throw e;
  }
}

/**
 * Runs `server` until this process receives one of `signals` (default
 * {@linkcode STOP_SIGNALS}), as {@linkcode runUntilStopped} does: the
 * {@linkcode ListenerFailure} when the listener failed for good first, else `undefined`. The
 * signal listeners are removed before it returns.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a `server` that is not an object or `options`
 *   of the wrong type; what the server's run throws besides a listener failure
 *
 * @example
 * ```ts ignore
 * import { runUntilSignalled } from "./until_signal.ts";
 * const failure = await runUntilSignalled(server, { graceMs: 5_000 });
 * if (failure) console.error(failure.message);
 * ```
 */
export async function runUntilSignalled(
  server: RunningServer,
  options: { readonly signals?: readonly Signal[]; readonly graceMs?: number } = {},
): Promise<ListenerFailure | undefined> {
  checkArg("runUntilSignalled", "server", server, "object");
  checkArg("runUntilSignalled", "options", options, "object");
  let stop = () => {};
  const interrupted = new Promise<void>((r) => stop = r);
  const listeners = (options.signals ?? STOP_SIGNALS).map((s) => onSignal(s, stop));
  try {
    return await runUntilStopped(server, interrupted, options.graceMs);
  } finally {
    for (const off of listeners) off();
  }
}
