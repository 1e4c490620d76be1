/**
 * The Streamable HTTP guard: a local reverse proxy in front of one MCP endpoint, with the
 * checks of the stdio guard. The client talks to `http://127.0.0.1:PORT<upstream path>`; every
 * request is forwarded to the upstream URL with its headers (`Authorization`,
 * `Mcp-Session-Id`, `MCP-Protocol-Version` …), and every answer — a JSON body or an SSE
 * stream — comes back through {@linkcode GuardCore}: `tools/list` results are checked,
 * refused calls never reach the upstream, `Mcp-Session-Id` passes through both ways and keys
 * the guard's per-session state.
 *
 * - Bound to loopback by default (a non-loopback address needs an explicit opt-in). Requests
 *   with an `Origin` header that is not a loopback origin are refused (DNS rebinding).
 * - Request bodies go through the strict parser; a body that is not strict JSON is answered
 *   400 with a parse error and never forwarded. Bodies of every method are capped at
 *   `MAX_HTTP_MESSAGE_BYTES` (413); malformed framing is answered 400 by the listener.
 * - An upstream that is unreachable, answers garbage, or does not answer `initialize` /
 *   `tools/list` in time: the client gets JSON-RPC errors for those requests; the proxy keeps
 *   running (it serves every session).
 * - Redirects from the upstream are passed to the client unchanged, never followed.
 * - The listener is lib/http/server.ts (not `Deno.serve`, which dies when the process runs out
 *   of file descriptors): strict HTTP/1.1 framing (lib/http/framing.ts), a connection cap that
 *   closes the connection idle the longest, header, request and idle timeouts, and an accept
 *   loop that survives EMFILE.
 *
 * @module
 */
import { handleGet } from "./http_get.ts";
import { httpGuardContext } from "./http_context.ts";
import { isLoopbackOrigin, sessionKey } from "./http_headers.ts";
import { serveGuard } from "./http_listener.ts";
import type { HttpGuard, HttpGuardOptions } from "./http_options.ts";
import { handleOther } from "./http_other.ts";
import { handlePost } from "./http_post.ts";
import { checkArg } from "../arguments.ts";

export type { HttpGuard, HttpGuardOptions } from "./http_options.ts";

/**
 * Starts the HTTP guard (see the module documentation).
 *
 * @example
 * ```ts
 * import {
 *   AuditLog,
 *   GuardCore,
 *   GuardPolicy,
 *   openAuditSink,
 *   startHttpGuard,
 * } from "jsr:@schemapin/schemapin/guard";
 * import { parseLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const core = new GuardCore({
 *   policy: new GuardPolicy({ lock: { serverName: "remote", entry: lock.servers["remote"] } }),
 *   mode: "filter",
 *   log: new AuditLog("remote", "filter", openAuditSink()),
 *   serverName: "remote",
 * });
 * const guard = await startHttpGuard({
 *   upstream: "https://mcp.example.com/mcp",
 *   port: 0,
 *   core,
 *   serverName: "remote",
 * });
 * console.log("point the client at", guard.url);
 * Deno.addSignalListener("SIGINT", () => guard.shutdown());
 * await guard.finished;
 * ```
 */
export function startHttpGuard(options: HttpGuardOptions): Promise<HttpGuard> {
  checkArg("startHttpGuard", "options", options, "object");
  checkArg("startHttpGuard", "options.upstream", options.upstream, "string");
  checkArg("startHttpGuard", "options.port", options.port, "number");
  checkArg("startHttpGuard", "options.core", options.core, "object");
  checkArg("startHttpGuard", "options.serverName", options.serverName, "string");
  const ctx = httpGuardContext(options);
  const { upstream } = ctx;

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    if (url.pathname !== upstream.pathname) {
      return new Response(
        `schemapin guard: not found; the MCP endpoint is ${upstream.pathname}\n`,
        { status: 404 },
      );
    }
    const origin = req.headers.get("origin");
    if (origin !== null && !isLoopbackOrigin(origin)) {
      return new Response("schemapin guard: cross-origin requests are refused\n", {
        status: 403,
      });
    }
    const session = ctx.sessionFor(sessionKey(req.headers));
    if (req.method === "POST") return await handlePost(ctx, req, session);
    if (req.method === "GET") return await handleGet(ctx, req, session);
    return await handleOther(ctx, req);
  };

  return Promise.resolve(serveGuard(options, upstream.pathname, handler, ctx.stopAll));
}
