/**
 * A client's request of any other method (`DELETE` ending a session, …) through the Streamable
 * HTTP guard: passed to the upstream and its answer passed back, with the body capped at
 * {@linkcode MAX_HTTP_MESSAGE_BYTES} like a POST's. A `DELETE` the upstream accepted
 * ends the guard's session too.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { MAX_HTTP_MESSAGE_BYTES } from "../mcp/http.ts";
import type { HttpGuardContext } from "./http_context.ts";
import { clientHeaders, upstreamHeaders } from "./http_headers.ts";

/** The answer to a request body above {@linkcode MAX_HTTP_MESSAGE_BYTES}. */
function tooLarge(): Response {
  return new Response(`schemapin guard: a body exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes\n`, {
    status: 413,
  });
}

/**
 * A request body passed on as a stream that fails once it exceeds
 * {@linkcode MAX_HTTP_MESSAGE_BYTES}; `exceeded` tells whether it did.
 */
function capped(
  body: ReadableStream<Uint8Array>,
): { stream: ReadableStream<Uint8Array>; exceeded: () => boolean } {
  let size = 0;
  let over = false;
  const stream = body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, ctrl) {
        size += chunk.length;
        if (size > MAX_HTTP_MESSAGE_BYTES) {
          over = true;
          ctrl.error(
            new SchemaPinError("INPUT_INVALID", `a body exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`),
          );
          return;
        }
        ctrl.enqueue(chunk);
      },
    }),
  );
  return { stream, exceeded: () => over };
}

/**
 * Answers a client's request of a method other than POST and GET (see the module
 * documentation).
 *
 * @example
 * ```ts ignore
 * if (req.method !== "POST" && req.method !== "GET") return await handleOther(ctx, req);
 * ```
 */
export async function handleOther(ctx: HttpGuardContext, req: Request): Promise<Response> {
  const { sessions, stopAll, upstream } = ctx;
  // Bodies of every method are capped like a POST's (issue 28): a declared length above the
  // cap is refused before anything is forwarded, a chunked one when it crosses the cap.
  const declared = req.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_HTTP_MESSAGE_BYTES) {
    return tooLarge();
  }
  const body = req.method === "DELETE" || req.body === null ? null : capped(req.body);
  let response: Response;
  try {
    response = await fetch(upstream, {
      method: req.method,
      headers: upstreamHeaders(req.headers),
      body: body?.stream,
      redirect: "manual",
      signal: stopAll.signal,
    });
  } catch (e) {
    if (body?.exceeded()) return tooLarge();
    return new Response(`schemapin guard: cannot reach the upstream: ${(e as Error).message}`, {
      status: 502,
    });
  }
  if (req.method === "DELETE" && response.ok) {
    sessions.delete(req.headers.get("mcp-session-id") ?? "");
  }
  return new Response(response.body, {
    status: response.status,
    headers: clientHeaders(response.headers),
  });
}
