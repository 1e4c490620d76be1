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
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { connectLegacySse } from "../../lib/mcp/legacy_sse.ts";
import { listTools } from "../../lib/mcp/session.ts";
import { formatSseEvent, type SseEvent, sseMessageData, SseParser } from "../../lib/mcp/sse.ts";
import { MAX_HTTP_MESSAGE_BYTES, mediaType } from "../../lib/mcp/http.ts";
import type { FetchedTools, GuardCore, GuardSession } from "../../lib/guard/core.ts";
import type { HttpGuard, HttpGuardOptions } from "../../lib/guard/http.ts";
import { readClientMessage } from "../../lib/guard/http_body.ts";
import { clientHeaders, isLoopbackOrigin, upstreamHeaders } from "../../lib/guard/http_headers.ts";
import { serveGuard } from "../../lib/guard/http_listener.ts";
import { judgeServerMessages } from "../../lib/guard/http_relay.ts";

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

/** What the handlers of one legacy guard share. */
interface LegacyGuard {
  readonly options: HttpGuardOptions;
  readonly core: GuardCore;
  readonly upstream: URL;
  /** Names the server in messages (`server NAME`). */
  readonly source: string;
  readonly startupMs: number;
  readonly requestMs: number;
  /** The client streams open, by the path and query of their endpoint on the guard. */
  readonly relays: Map<string, Relay>;
  /** Aborted at shutdown: ends every upstream request and stream still open. */
  readonly stopAll: AbortController;
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
  const g: LegacyGuard = {
    options,
    core: options.core,
    upstream: new URL(options.upstream),
    source: `server ${options.serverName}`,
    startupMs: options.startupTimeoutMs ?? 90_000,
    requestMs: options.requestTimeoutMs ?? 30_000,
    relays: new Map<string, Relay>(),
    stopAll: new AbortController(),
  };
  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const origin = req.headers.get("origin");
    if (origin !== null && !isLoopbackOrigin(origin)) {
      return new Response("schemapin guard: cross-origin requests are refused\n", {
        status: 403,
      });
    }
    if (req.method === "GET" && url.pathname === g.upstream.pathname) {
      return await handleStream(g, req);
    }
    const relay = req.method === "POST" ? g.relays.get(url.pathname + url.search) : undefined;
    if (relay) return await handleMessage(g, req, relay);
    return new Response(
      `schemapin guard: not found; open the event stream at ${g.upstream.pathname} first\n`,
      { status: 404 },
    );
  };
  return Promise.resolve(serveGuard(options, g.upstream.pathname, handler, g.stopAll));
}

/**
 * The guard's own tool list for a client of `session`: listed over a session of its own (the
 * contract client's HTTP+SSE transport with the client's headers), with the client's
 * capabilities.
 */
function ownToolList(g: LegacyGuard, headers: Headers, session: GuardSession) {
  return async (): Promise<FetchedTools> => {
    const h = upstreamHeaders(headers);
    h.delete("content-type");
    const transport = await connectLegacySse({
      url: g.upstream.href,
      headers: [...h],
      source: g.source,
      connectTimeoutMs: g.startupMs,
    });
    try {
      // Asked with the client's own capabilities: a server may list other tools to it.
      const listing = await listTools(transport, {
        startupTimeoutMs: g.startupMs,
        requestTimeoutMs: g.requestMs,
        maxPages: g.options.maxPages,
        clientCapabilities: session.clientCapabilities,
        toolsOnly: true, // the guard's own list before a call: tools, nothing else
      }, g.source);
      return { tools: listing.tools };
    } finally {
      await transport.close();
    }
  };
}

/** A client's GET: the upstream event stream, relayed through the core. */
async function handleStream(g: LegacyGuard, req: Request): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(g.upstream, {
      method: "GET",
      headers: upstreamHeaders(req.headers),
      redirect: "manual",
      signal: g.stopAll.signal,
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
  return new Response(relayStream(g, req, response.body), {
    status: response.status,
    headers: clientHeaders(response.headers),
  });
}

/**
 * The client's copy of one upstream event stream: its endpoint rewritten to the guard (the
 * relay registered under it while the stream is open), its messages judged by the core.
 */
function relayStream(
  g: LegacyGuard,
  req: Request,
  body: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const { core, relays } = g;
  const session = core.newSession();
  const answered = new Set<JsonValue>();
  let key: string | undefined;
  let clientGone = false; // the client closed its stream: not a server failure
  return new ReadableStream<Uint8Array>({
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
              const endpoint = guardEndpoint(g, e, key);
              key = endpoint.pathname + endpoint.search;
              if (relays.size >= MAX_RELAYS) relays.delete(relays.keys().next().value!);
              relays.set(key, { session, endpoint, headers: req.headers, send });
              ctrl.enqueue(formatSseEvent({ event: "endpoint", data: key }));
              continue;
            }
            ctrl.enqueue(await relayMessage(g, e, session, answered));
          }
          if (parser.buffered > MAX_HTTP_MESSAGE_BYTES) {
            throw new ServerFailure(
              "malformed",
              `an event exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`,
            );
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
}

/**
 * The upstream endpoint an `endpoint` event names, which must be on the upstream's origin and
 * named once per stream (`key` is the one named before, if any).
 *
 * @throws {ServerFailure} `protocol` for an endpoint on another origin or named twice
 */
function guardEndpoint(g: LegacyGuard, e: SseEvent, key: string | undefined): URL {
  const endpoint = new URL(new TextDecoder().decode(e.data).trim(), g.upstream);
  if (endpoint.origin !== g.upstream.origin || key !== undefined) {
    throw new ServerFailure(
      "protocol",
      `the upstream named an endpoint on another origin or twice (${endpoint.origin})`,
    );
  }
  return endpoint;
}

/** One upstream event other than `endpoint`: a message judged by the core, else unchanged. */
async function relayMessage(
  g: LegacyGuard,
  e: SseEvent,
  session: GuardSession,
  answered: Set<JsonValue>,
): Promise<Uint8Array> {
  const data = sseMessageData(e);
  if (data === undefined) return e.raw;
  const doc = parseJson(data, `${g.source} event stream`);
  const changed = await judgeServerMessages(g.core, session, doc, answered);
  return changed === undefined
    ? e.raw
    : formatSseEvent({ event: "message", data: JSON.stringify(changed), id: e.id });
}

/**
 * A client's POST to its endpoint: the core decides each message, the guard's own answers go
 * on the client's stream, the rest is POSTed to the upstream endpoint and its status passed
 * back.
 */
async function handleMessage(g: LegacyGuard, req: Request, relay: Relay): Promise<Response> {
  const read = await readClientMessage(req, g.core);
  if (read instanceof Response) return read;
  const { bytes, value, items } = read;
  const forwarded: JsonValue[] = [];
  const fetchTools = ownToolList(g, relay.headers, relay.session);
  for (const m of items) {
    const d = await g.core.fromClient(relay.session, m, fetchTools);
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
      signal: AbortSignal.any([AbortSignal.timeout(g.requestMs), g.stopAll.signal]),
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
