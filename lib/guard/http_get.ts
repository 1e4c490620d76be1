/**
 * A client's GET through the Streamable HTTP guard: the upstream's event stream (server
 * requests and notifications, or a broken POST stream resumed with `Last-Event-ID`) relayed
 * event by event through the core. A 2xx answer that is not an event stream cannot be checked
 * message by message and is refused.
 *
 * @module
 */
import type { JsonValue } from "../json/types.ts";
import { mediaType } from "../mcp/http.ts";
import { SseParser } from "../mcp/sse.ts";
import type { GuardSession } from "./core.ts";
import type { HttpGuardContext } from "./http_context.ts";
import { clientHeaders, upstreamHeaders } from "./http_headers.ts";
import { relayEvent } from "./http_relay.ts";

/**
 * Answers a client's GET (see the module documentation).
 *
 * @example
 * ```ts ignore
 * if (req.method === "GET") return await handleGet(ctx, req, ctx.sessionFor(sessionKey(req.headers)));
 * ```
 */
export async function handleGet(
  ctx: HttpGuardContext,
  req: Request,
  session: GuardSession,
): Promise<Response> {
  const { core, source, stopAll, upstream } = ctx;
  let response: Response;
  try {
    response = await fetch(upstream, {
      method: "GET",
      headers: upstreamHeaders(req.headers),
      redirect: "manual",
      signal: stopAll.signal, // a client that goes away cancels the stream below
    });
  } catch (e) {
    return new Response(`schemapin guard: cannot reach the upstream: ${(e as Error).message}`, {
      status: 502,
    });
  }
  const headers = clientHeaders(response.headers);
  const type = mediaType(response);
  if (response.ok && response.status !== 202 && type !== "text/event-stream") {
    // A 2xx GET answer that is not an event stream cannot be checked message by message.
    await response.body?.cancel();
    core.log.record({
      decision: "server_failed",
      message: `the upstream answered a GET with content type ${JSON.stringify(type)}`,
    });
    return new Response("schemapin guard: the upstream's answer is not an event stream\n", {
      status: 502,
    });
  }
  if (!response.ok || !response.body || type !== "text/event-stream") {
    return new Response(response.body, { status: response.status, headers });
  }
  const body = response.body;
  const answered = new Set<JsonValue>();
  let clientGone = false; // the client closed its stream: not a server failure
  const stream = new ReadableStream<Uint8Array>({
    async start(ctrl) {
      const parser = new SseParser();
      try {
        for await (const chunk of body) {
          for (const e of parser.push(chunk)) {
            ctrl.enqueue(await relayEvent(core, source, e, session, answered));
          }
        }
      } catch (e) {
        // A client that went away, or the guard stopping, is not a failure of the server.
        if (!clientGone && !stopAll.signal.aborted) {
          core.log.record({
            decision: "server_failed",
            message: `the upstream event stream failed: ${(e as Error).message}`,
          });
        }
        await body.cancel().catch(() => {});
      } finally {
        try {
          ctrl.close();
        } catch { /* already closed */ }
      }
    },
    cancel() {
      clientGone = true;
      return body.cancel().catch(() => {});
    },
  });
  return new Response(stream, { status: response.status, headers });
}
