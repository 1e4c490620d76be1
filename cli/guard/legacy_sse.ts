/**
 * The guard in front of a legacy HTTP+SSE server (MCP 2024-11-05): a loopback proxy that speaks
 * the same transport to its clients.
 *
 * - `GET <upstream path>` opens the upstream event stream with the client's headers. The
 *   upstream's `endpoint` event (which must be on the upstream's origin) is rewritten to the
 *   same path and query on the guard, so the client POSTs its messages here; every `message`
 *   event goes through the core (a drifted `tools/list` answer is replaced by the refusal)
 *   and is passed on byte for byte otherwise; other events pass unchanged.
 * - `POST <endpoint path?query>` (known from a stream the guard relays): the strict parser and
 *   the core decide; forwarded messages are POSTed to the upstream endpoint and its status is
 *   passed back; the guard's own answers (refusals) are sent on the client's event stream, where
 *   this transport carries every answer.
 * - When a client calls a tool before listing, the guard lists the tools itself over a session
 *   of its own (the contract client's HTTP+SSE transport, with the client's headers).
 *
 * @module
 */
import { parseJson } from "../../lib/json/parse.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { connectLegacySse } from "../../lib/mcp/legacy_sse.ts";
import { listTools } from "../../lib/mcp/session.ts";
import { formatSseEvent, sseMessageData, SseParser } from "../../lib/mcp/sse.ts";
import { MAX_HTTP_MESSAGE_BYTES, mediaType } from "../../lib/mcp/http.ts";
import type { FetchedTools, GuardSession } from "../../lib/guard/core.ts";
import {
  clientHeaders,
  type HttpGuard,
  type HttpGuardOptions,
  isLoopbackOrigin,
  judgeServerMessages,
  readClientMessage,
  serveGuard,
  upstreamHeaders,
} from "../../lib/guard/http.ts";

/** One client stream the guard relays. */
interface Relay {
  readonly session: GuardSession;
  /** The upstream endpoint its POSTs go to. */
  readonly endpoint: URL;
  /** The client's headers when it opened the stream (for the guard's own listing). */
  readonly headers: Headers;
  /** Sends a message of the guard's own on the client's stream. */
  send(message: JsonValue): void;
}

const MAX_RELAYS = 1024;

/**
 * Starts the guard for a legacy HTTP+SSE upstream (see the module documentation).
 *
 * @example
 * ```ts ignore
 * const guard = await startLegacySseGuard({ upstream: "http://127.0.0.1:3001/sse", port: 0, core, serverName: "x" });
 * console.error(`listening on ${guard.url}`);
 * ```
 */
export function startLegacySseGuard(options: HttpGuardOptions): Promise<HttpGuard> {
  const core = options.core;
  const upstream = new URL(options.upstream);
  const source = `server ${options.serverName}`;
  const startupMs = options.startupTimeoutMs ?? 90_000;
  const requestMs = options.requestTimeoutMs ?? 30_000;
  const relays = new Map<string, Relay>(); // by the endpoint's path and query
  const stopAll = new AbortController();

  const fetchToolsWith = (
    headers: Headers,
    session: GuardSession,
  ) =>
  async (): Promise<FetchedTools> => {
    const h = upstreamHeaders(headers);
    h.delete("content-type");
    const transport = await connectLegacySse({
      url: upstream.href,
      headers: [...h],
      source,
      connectTimeoutMs: startupMs,
    });
    try {
      // Asked with the client's own capabilities: a server may list other tools to it.
      const listing = await listTools(transport, {
        startupTimeoutMs: startupMs,
        requestTimeoutMs: requestMs,
        maxPages: options.maxPages,
        clientCapabilities: session.clientCapabilities,
        toolsOnly: true, // the guard's own list before a call: tools, nothing else
      }, source);
      return { tools: listing.tools };
    } finally {
      await transport.close();
    }
  };

  const handleStream = async (req: Request): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(upstream, {
        method: "GET",
        headers: upstreamHeaders(req.headers),
        redirect: "manual",
        signal: stopAll.signal,
      });
    } catch (e) {
      return new Response(`schemapin guard: cannot reach the upstream: ${(e as Error).message}`, {
        status: 502,
      });
    }
    const type = mediaType(response);
    if (!response.ok || !response.body || type !== "text/event-stream") {
      return new Response(response.body, {
        status: response.status,
        headers: clientHeaders(response.headers),
      });
    }
    const body = response.body;
    const session = core.newSession();
    const answered = new Set<JsonValue>();
    let key: string | undefined;
    let clientGone = false; // the client closed its stream: not a server failure
    const stream = new ReadableStream<Uint8Array>({
      async start(ctrl) {
        const parser = new SseParser();
        const send = (message: JsonValue) => {
          try {
            ctrl.enqueue(formatSseEvent({ event: "message", data: JSON.stringify(message) }));
          } catch { /* the client went away */ }
        };
        try {
          for await (const chunk of body) {
            for (const e of parser.push(chunk)) {
              if (e.dispatch && e.event === "endpoint") {
                const endpoint = new URL(new TextDecoder().decode(e.data).trim(), upstream);
                if (endpoint.origin !== upstream.origin || key !== undefined) {
                  throw new Error(
                    `the upstream named an endpoint on another origin or twice (${endpoint.origin})`,
                  );
                }
                key = endpoint.pathname + endpoint.search;
                if (relays.size >= MAX_RELAYS) relays.delete(relays.keys().next().value!);
                relays.set(key, { session, endpoint, headers: req.headers, send });
                ctrl.enqueue(formatSseEvent({ event: "endpoint", data: key }));
                continue;
              }
              const data = sseMessageData(e);
              if (data === undefined) {
                ctrl.enqueue(e.raw);
                continue;
              }
              const doc = parseJson(data, `${source} event stream`);
              const changed = await judgeServerMessages(core, session, doc, answered);
              ctrl.enqueue(
                changed === undefined
                  ? e.raw
                  : formatSseEvent({ event: "message", data: JSON.stringify(changed), id: e.id }),
              );
            }
            if (parser.buffered > MAX_HTTP_MESSAGE_BYTES) {
              throw new Error(`an event exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`);
            }
          }
        } catch (e) {
          if (!clientGone) {
            core.log.record({
              decision: "server_failed",
              message: `the upstream event stream failed: ${(e as Error).message}`,
            });
          }
        } finally {
          if (key !== undefined) relays.delete(key);
          await body.cancel().catch(() => {});
          try {
            ctrl.close();
          } catch { /* already closed */ }
        }
      },
      cancel() {
        clientGone = true;
        if (key !== undefined) relays.delete(key);
        return body.cancel().catch(() => {});
      },
    });
    return new Response(stream, {
      status: response.status,
      headers: clientHeaders(response.headers),
    });
  };

  const handleMessage = async (req: Request, relay: Relay): Promise<Response> => {
    const read = await readClientMessage(req, core);
    if (read instanceof Response) return read;
    const { bytes, value, items } = read;
    const forwarded: JsonValue[] = [];
    const fetchTools = fetchToolsWith(relay.headers, relay.session);
    for (const m of items) {
      const d = await core.fromClient(relay.session, m, fetchTools);
      if (d.forward) forwarded.push(m);
      else if (d.reply) relay.send(d.reply);
    }
    if (forwarded.length === 0) return new Response("Accepted", { status: 202 });
    const body = forwarded.length === items.length
      ? bytes
      : new TextEncoder().encode(JSON.stringify(Array.isArray(value) ? forwarded : forwarded[0]));
    try {
      const response = await fetch(relay.endpoint, {
        method: "POST",
        headers: upstreamHeaders(req.headers),
        body: body as Uint8Array<ArrayBuffer>,
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(requestMs), stopAll.signal]),
      });
      return new Response(response.body, {
        status: response.status,
        headers: clientHeaders(response.headers),
      });
    } catch (e) {
      return new Response(`schemapin guard: cannot reach the upstream: ${(e as Error).message}`, {
        status: 502,
      });
    }
  };

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const origin = req.headers.get("origin");
    if (origin !== null && !isLoopbackOrigin(origin)) {
      return new Response("schemapin guard: cross-origin requests are refused\n", {
        status: 403,
      });
    }
    if (req.method === "GET" && url.pathname === upstream.pathname) return await handleStream(req);
    const relay = req.method === "POST" ? relays.get(url.pathname + url.search) : undefined;
    if (relay) return await handleMessage(req, relay);
    return new Response(
      `schemapin guard: not found; open the event stream at ${upstream.pathname} first\n`,
      { status: 404 },
    );
  };

  return Promise.resolve(serveGuard(options, upstream.pathname, handler, stopAll));
}

/**
 * Which transport an HTTP upstream speaks: a `GET` that opens an event stream whose first event
 * is `endpoint` is a legacy HTTP+SSE server; anything else (Streamable HTTP answers such a GET
 * with 400/405, or with a stream only for a session) is treated as Streamable HTTP, as is an
 * upstream that cannot be reached yet.
 *
 * @example
 * ```ts ignore
 * const kind = await detectUpstreamTransport("http://127.0.0.1:3001/sse", new Headers(), 5000);
 * ```
 */
export async function detectUpstreamTransport(
  url: string,
  headers: Headers,
  timeoutMs: number,
): Promise<"sse" | "streamable-http"> {
  const h = new Headers(headers);
  h.set("accept", "text/event-stream");
  let response: Response;
  try {
    response = await fetch(url, {
      method: "GET",
      headers: h,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch {
    return "streamable-http";
  }
  const type = mediaType(response);
  if (!response.ok || !response.body || type !== "text/event-stream") {
    await response.body?.cancel().catch(() => {});
    return "streamable-http";
  }
  const parser = new SseParser();
  const reader = response.body.getReader();
  const deadline = setTimeout(() => reader.cancel().catch(() => {}), timeoutMs);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return "streamable-http";
      for (const e of parser.push(value)) {
        if (e.dispatch) return e.event === "endpoint" ? "sse" : "streamable-http";
      }
      if (parser.buffered > 64 * 1024) return "streamable-http";
    }
  } catch {
    return "streamable-http";
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => {});
  }
}
