/**
 * The HTTP guard's own `tools/list`: when a client calls a tool before the guard has checked
 * the list, the guard asks the upstream itself, with the client's headers and in the client's
 * protocol, and follows every page.
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { ServerFailure } from "../mcp/errors.ts";
import { mediaType, readEventStream, resumeEventStream } from "../mcp/http.ts";
import { type ClientProtocol, fetchOwnToolList, type FetchTools } from "./core.ts";
import { readLimited } from "./http_body.ts";
import type { HttpGuardContext } from "./http_context.ts";
import { ownRequestHeaders, upstreamHeaders } from "./http_headers.ts";

/**
 * The guard's own `tools/list` (all pages), with the client's headers (auth, session) and in
 * the client's protocol: in the MCP 2026-07-28 era the protocol `_meta` in the params, the
 * `MCP-Protocol-Version` of the client and `Mcp-Method: tools/list` (the client's own
 * `Mcp-Name` and `Mcp-Param-*` headers belong to its call, not to this list), and no
 * resumption of a broken stream (that revision has none: the check fails instead).
 *
 * @example
 * ```ts ignore
 * const d = await ctx.core.fromClient(session, message, ownToolList(ctx, req.headers));
 * ```
 */
export function ownToolList(ctx: HttpGuardContext, headers: Headers): FetchTools {
  return (protocol) =>
    fetchOwnToolList(
      protocol,
      (params) => ownToolListPage(ctx, headers, protocol, params),
      ctx.maxPages,
      ctx.source,
    );
}

/**
 * One page of the guard's own `tools/list`: its result.
 *
 * @throws {ServerFailure} `http` for an HTTP error status, `malformed` for an answer without
 *   the guard's response or a modern stream that ended early, `rpc_error` for a JSON-RPC error
 */
async function ownToolListPage(
  ctx: HttpGuardContext,
  headers: Headers,
  protocol: ClientProtocol | undefined,
  params: JsonObject,
): Promise<JsonValue> {
  const { source, upstream } = ctx;
  const id = ctx.ownRequestId();
  const h = ownRequestHeaders(upstreamHeaders(headers), "tools/list", protocol);
  const signal = AbortSignal.any([AbortSignal.timeout(ctx.requestMs), ctx.stopAll.signal]);
  const response = await fetch(upstream, {
    method: "POST",
    headers: h,
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params }),
    redirect: "manual",
    signal,
  });
  if (!response.ok) {
    await response.body?.cancel();
    const failure = new ServerFailure("http", `${source}: tools/list: HTTP ${response.status}`);
    failure.httpStatus = response.status;
    throw failure;
  }
  const type = mediaType(response);
  const candidates: JsonValue[] = [];
  if (type === "text/event-stream") {
    await readEventStream(response, {
      what: "tools/list",
      source,
      signal,
      onMessage: (data) => {
        const v = parseJson(data, `${source} tools/list event`);
        candidates.push(...(Array.isArray(v) ? v : [v]));
        return candidates.some((m) => isJsonObject(m) && m.id === id);
      },
      resume: (lastEventId) => {
        if (protocol?.era === "modern") {
          // MCP 2026-07-28 removed SSE resumability (changelog, major change 9).
          throw new ServerFailure(
            "malformed",
            `${source}: tools/list: the upstream ended the event stream early`,
          );
        }
        // Resumed with Last-Event-ID (MCP 2025-11-25).
        const g = upstreamHeaders(headers);
        return resumeEventStream(upstream, g, lastEventId, signal, "tools/list", source);
      },
    });
  } else {
    const v = parseJson(await readLimited(response.body), `${source} tools/list response`);
    candidates.push(...(Array.isArray(v) ? v : [v]));
  }
  const answer = candidates.find((m) => isJsonObject(m) && m.id === id) as
    | JsonObject
    | undefined;
  if (!answer) {
    throw new ServerFailure("malformed", `${source}: tools/list: no answer to the guard's request`);
  }
  if (!Object.hasOwn(answer, "result")) {
    const err = answer.error as JsonObject;
    throw new ServerFailure(
      "rpc_error",
      `tools/list failed: JSON-RPC error ${err?.code}: ${err?.message}`,
      "",
      typeof err?.code === "number" ? err.code : undefined,
    );
  }
  return answer.result;
}
