/**
 * The guard as an HTTP proxy (`schemapin guard --listen`): the upstream's transport chosen
 * (given, or detected: a legacy HTTP+SSE server opens an event stream whose first event is
 * `endpoint`), the matching proxy started, and its run awaited until the caller stops it or
 * the listener fails for good.
 *
 * @module
 */
import { ListenerFailure } from "../http/server.ts";
import { type HttpGuard, type HttpGuardOptions, startHttpGuard } from "./http.ts";
import { detectUpstreamTransport, startLegacySseGuard } from "./legacy_sse.ts";

/** The upstream transports of an HTTP guard; `auto` detects it. */
export type UpstreamTransportChoice = "auto" | "streamable-http" | "sse";

/** How long `auto` waits for the upstream to show which transport it speaks. */
const DETECT_TIMEOUT_MS = 5_000;

/** Options of {@linkcode startListeningGuard}. */
export interface ListeningGuardOptions extends HttpGuardOptions {
  /** The upstream's transport (default `auto`). */
  readonly transport?: UpstreamTransportChoice;
}

/**
 * Starts the HTTP guard for the upstream's transport: Streamable HTTP, or legacy HTTP+SSE (the
 * clients then use the same transport with the guard).
 *
 * @example
 * ```ts ignore
 * const { guard, transport } = await startListeningGuard({
 *   upstream: "https://mcp.example.com/mcp", port: 8931, core, serverName: "acme",
 * });
 * console.log(guard.url, transport); // "http://127.0.0.1:8931/mcp" "streamable-http"
 * ```
 */
export async function startListeningGuard(
  options: ListeningGuardOptions,
): Promise<{ guard: HttpGuard; transport: "streamable-http" | "sse" }> {
  const { transport: choice = "auto", ...http } = options;
  const transport = choice === "auto"
    ? await detectUpstreamTransport(http.upstream, new Headers(), DETECT_TIMEOUT_MS)
    : choice;
  const start = transport === "sse" ? startLegacySseGuard : startHttpGuard;
  return { guard: await start(http), transport };
}

/**
 * Waits until `guard` has stopped: `stop` resolving shuts it down (open requests get their
 * grace). Returns the {@linkcode ListenerFailure} when the listener failed for good while
 * running instead — a runtime failure, not a bad setup.
 *
 * @example
 * ```ts ignore
 * const failure = await runUntilStopped(guard, interrupted);
 * if (failure) console.error(failure.message);
 * ```
 */
export async function runUntilStopped(
  guard: HttpGuard,
  stop: Promise<unknown>,
): Promise<ListenerFailure | undefined> {
  const stopped = stop.then(() => guard.shutdown());
  try {
    await Promise.race([guard.finished, stopped]);
    return undefined;
  } catch (e) {
    if (e instanceof ListenerFailure) return e;
    throw e;
  }
}
