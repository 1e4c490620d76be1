/**
 * The listener of an HTTP guard: lib/http/server.ts on loopback (or the address asked for),
 * and the running guard it becomes — its URL, its shutdown and its end.
 *
 * @module
 */
import { listenHttp } from "../http/server.ts";
import type { HttpGuard, HttpGuardOptions } from "./http_options.ts";

/**
 * Listens for a guard's clients on loopback (or `options.hostname`) and returns the running
 * guard: its URL ends with `path`; `shutdown` aborts `stopAll` (every upstream request and
 * stream still open), then stops listening, waiting at most 3 s for open requests. The listener
 * is lib/http/server.ts with `options.limits`.
 *
 * @example
 * ```ts ignore
 * return Promise.resolve(serveGuard(options, upstream.pathname, handler, stopAll));
 * ```
 */
export function serveGuard(
  options: Pick<HttpGuardOptions, "hostname" | "port" | "limits" | "onEvent">,
  path: string,
  handler: (req: Request) => Promise<Response>,
  stopAll: AbortController,
): HttpGuard {
  const server = listenHttp({
    hostname: options.hostname ?? "127.0.0.1",
    port: options.port,
    limits: options.limits,
    onEvent: options.onEvent,
    handler,
  });
  const addr = server.addr;
  const host = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  return {
    url: `http://${host}:${addr.port}${path}`,
    shutdown: async () => {
      stopAll.abort(new Error("the guard is stopping"));
      await server.shutdown(3000);
    },
    finished: server.finished,
  };
}
