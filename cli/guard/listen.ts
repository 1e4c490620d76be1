/**
 * The guard as an HTTP proxy (`schemapin guard --listen`): the upstream's transport chosen
 * (given, or detected: a legacy HTTP+SSE server opens an event stream whose first event is
 * `endpoint`), the matching proxy started, and its run awaited until the caller stops it or
 * the listener fails for good.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { usageError } from "../../lib/errors.ts";
import type { ListenerFailure } from "../../lib/http/server.ts";
import { runUntilSignalled as runServerUntilSignalled } from "../http/until_signal.ts";
import { isWindows } from "../../lib/runtime/process.ts";
import { type HttpGuard, type HttpGuardOptions, startHttpGuard } from "../../lib/guard/http.ts";
import { isLoopbackHost } from "../../lib/guard/http_headers.ts";
import { detectUpstreamTransport, startLegacySseGuard } from "./legacy_sse.ts";

/** The upstream transports of an HTTP guard; `auto` detects it. */
export type UpstreamTransportChoice = "auto" | "streamable-http" | "sse";

/**
 * The address of `--listen`: `HOST:PORT` or `PORT` (host 127.0.0.1; an IPv6 host in brackets).
 * The guard listens on loopback only unless `allowRemote`: anyone who can reach it can use the
 * server behind it.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` (`usageError` of lib/errors.ts) for
 *   text that is not an address, or a host that is not loopback without `allowRemote`;
 *   `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts
 * import { parseListenAddress } from "./listen.ts";
 * parseListenAddress("8931", false); // { hostname: "127.0.0.1", port: 8931 }
 * parseListenAddress("[::1]:0", false); // { hostname: "::1", port: 0 }
 * ```
 */
export function parseListenAddress(
  text: string,
  allowRemote: boolean,
): { hostname: string; port: number } {
  checkArg("parseListenAddress", "text", text, "string");
  checkArg("parseListenAddress", "allowRemote", allowRemote, "boolean");
  const m = /^(?:(\[[^\]]+\]|[^:]+):)?(\d{1,5})$/.exec(text);
  if (!m || Number(m[2]) > 65535) {
    throw usageError(`--listen expects HOST:PORT or PORT (got ${JSON.stringify(text)})`, {
      option: "listen",
    });
  }
  const hostname = (m[1] ?? "127.0.0.1").replace(/^\[|\]$/g, "");
  if (!isLoopbackHost(hostname) && !allowRemote) {
    throw usageError(
      `--listen ${hostname} is not a loopback address; the guard listens on loopback only ` +
        `unless --allow-remote is given (anyone who can reach it can use the server)`,
      { option: "listen" },
    );
  }
  return { hostname, port: Number(m[2]) };
}

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
 * Runs `guard` until this process receives SIGINT or SIGTERM (SIGINT only on Windows), as
 * `runUntilSignalled` of cli/http/until_signal.ts does: the {@linkcode ListenerFailure} when the
 * listener failed for good first, else `undefined`. The signal listeners are removed before it
 * returns.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a `guard` that is not an object; what the
 *   guard's run throws besides a listener failure
 *
 * @example
 * ```ts ignore
 * const failure = await runUntilSignalled(guard);
 * if (failure) console.error(failure.message);
 * ```
 */
export async function runUntilSignalled(guard: HttpGuard): Promise<ListenerFailure | undefined> {
  checkArg("runUntilSignalled", "guard", guard, "object");
  return await runServerUntilSignalled(guard, { signals: isWindows ? ["SIGINT"] : undefined });
}

/**
 * Runs the HTTP guard until this process receives SIGINT or SIGTERM: started as
 * {@linkcode startListeningGuard} does, its address, upstream and transport reported through
 * `onEvent` (`listening on URL (upstream ORIGIN, Streamable HTTP)`), then run as
 * {@linkcode runUntilSignalled} does: the {@linkcode ListenerFailure} when the listener failed
 * for good, else `undefined`. Its end is the `stopped` line of the core's audit log (with exit
 * code 1 and the failure's message when the listener failed: a runtime failure, not a bad
 * setup).
 *
 * @throws {SchemaPinError} what starting the guard throws; what its run throws besides a
 *   listener failure
 *
 * @example
 * ```ts ignore
 * const failure = await runListeningGuard({
 *   upstream: "https://mcp.example.com/mcp", port: 8931, core, serverName: "acme",
 *   onEvent: (message) => console.error(message),
 * });
 * ```
 */
export async function runListeningGuard(
  options: ListeningGuardOptions,
): Promise<ListenerFailure | undefined> {
  const { guard, transport } = await startListeningGuard(options);
  options.onEvent?.(
    `listening on ${guard.url} (upstream ${new URL(options.upstream).origin}, ` +
      `${transport === "sse" ? "legacy HTTP+SSE" : "Streamable HTTP"})`,
  );
  const failure = await runUntilSignalled(guard);
  options.core.log.record(
    failure
      ? { decision: "stopped", exit_code: 1, message: failure.message }
      : { decision: "stopped" },
  );
  return failure;
}
