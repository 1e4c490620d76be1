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
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { messagesOf } from "../mcp/jsonrpc.ts";
import { decodeHeaderValue, HEADER_MISMATCH } from "../mcp/era.ts";
import {
  MAX_HTTP_MESSAGE_BYTES,
  mediaType,
  readEventStream,
  resumeEventStream,
} from "../mcp/http.ts";
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from "../mcp/session.ts";
import { formatSseEvent, type SseEvent, sseMessageData, SseParser } from "../mcp/sse.ts";
import { listenHttp } from "../http/server.ts";
import {
  type ClientProtocol,
  errorResponse,
  fetchOwnToolList,
  type FetchTools,
  GUARD_SERVER_FAILED,
  type GuardCore,
  type GuardSession,
  INVALID_REQUEST,
  PARSE_ERROR,
  type PendingRequests,
} from "./core.ts";
import { checkArg } from "../arguments.ts";

/** How to run an HTTP guard. */
export interface HttpGuardOptions {
  /** The upstream MCP endpoint. */
  readonly upstream: string;
  /** Address to listen on (default 127.0.0.1). */
  readonly hostname?: string;
  /** Port (0: any free port). */
  readonly port: number;
  /** The decisions. */
  readonly core: GuardCore;
  /** Names the server in messages. */
  readonly serverName: string;
  /** Milliseconds for `initialize` answers (default 90 s). */
  readonly startupTimeoutMs?: number;
  /** Milliseconds for `tools/list` answers (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Most pages the guard follows when it lists tools itself. */
  readonly maxPages?: number;
  /**
   * Connection limits of the listener (defaults: 512 connections, 10 s for a request's headers,
   * 30 s idle; see `schemapin guard --help`).
   */
  readonly limits?: {
    /** Most connections open at once (a new one closes the connection idle the longest). */
    readonly maxConnections?: number;
    /** Milliseconds for a request's headers to arrive. */
    readonly headerTimeoutMs?: number;
    /** Milliseconds a keep-alive connection may stay idle, or a client may stall. */
    readonly idleTimeoutMs?: number;
    /** Milliseconds a request's head and body may take to arrive, in all. */
    readonly requestTimeoutMs?: number;
  };
  /** A sentence about the listener itself (out of file descriptors, …), for the log. */
  readonly onEvent?: (message: string) => void;
}

/** A running HTTP guard. */
export interface HttpGuard {
  /** The local endpoint clients use. */
  readonly url: string;
  /** Ends open upstream streams, stops listening (waits at most 3 s for open requests). */
  shutdown(): Promise<void>;
  /**
   * Resolves when the server has stopped; rejects (an `Error` named `ListenerFailure`) when the
   * listener failed for good while running.
   */
  readonly finished: Promise<void>;
}

const encoder = new TextEncoder();

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-authenticate",
  "proxy-connection",
  "host",
  "content-length",
  "accept-encoding",
]);

/**
 * True for a host name or address on the loopback interface.
 *
 * @example
 * ```ts
 * import { isLoopbackHost } from "./http.ts";
 * isLoopbackHost("127.0.0.1"); // true
 * isLoopbackHost("0.0.0.0"); // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  checkArg("isLoopbackHost", "host", host, "string");
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * True for an `Origin` on the loopback interface (a browser page elsewhere must not drive the
 * guard).
 *
 * @example
 * ```ts ignore
 * isLoopbackOrigin("http://127.0.0.1:3000"); // true
 * ```
 */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}

/**
 * The client's headers to send upstream: hop-by-hop headers and `Origin` removed.
 *
 * @example
 * ```ts ignore
 * fetch(upstream, { headers: upstreamHeaders(req.headers) });
 * ```
 */
export function upstreamHeaders(from: Headers): Headers {
  const h = new Headers();
  for (const [k, v] of from) if (!HOP_BY_HOP.has(k) && k !== "origin") h.append(k, v);
  return h;
}

/**
 * The headers of a request the guard sends on its own (`method`), from the client's headers
 * (auth, session, `MCP-Protocol-Version`): JSON in, JSON or SSE out, `Mcp-Method` naming this
 * request when the client speaks MCP 2026-07-28, and none of the client's per-request headers
 * (`Mcp-Name`, `Mcp-Param-*`: they describe the client's own request).
 *
 * @example
 * ```ts
 * import { ownRequestHeaders } from "./http.ts";
 * const h = ownRequestHeaders(
 *   new Headers({ "mcp-method": "tools/call", "mcp-name": "add" }),
 *   "tools/list",
 * );
 * h.get("mcp-method"); // "tools/list"
 * h.has("mcp-name"); // false
 * ```
 */
export function ownRequestHeaders(
  from: Headers,
  method: string,
  protocol?: ClientProtocol,
): Headers {
  const h = new Headers();
  for (const [k, v] of from) {
    if (k === "mcp-name" || k === "mcp-method" || k.startsWith("mcp-param-")) continue;
    h.append(k, v);
  }
  if (protocol?.era === "modern") {
    // MCP 2026-07-28 (basic/transports/streamable-http.md): every POST names its method and
    // carries the protocol version of its _meta.
    h.set("mcp-method", method);
    h.set("mcp-protocol-version", protocol.version);
  } else if (from.has("mcp-method")) {
    h.set("mcp-method", method);
  }
  h.set("content-type", "application/json");
  h.set("accept", "application/json, text/event-stream");
  return h;
}

/**
 * The upstream's response headers to pass to the client: hop-by-hop headers and
 * `Content-Encoding` removed (the body is passed on decoded).
 *
 * @example
 * ```ts ignore
 * new Response(body, { headers: clientHeaders(response.headers) });
 * ```
 */
export function clientHeaders(from: Headers): Headers {
  const h = new Headers();
  for (const [k, v] of from) {
    if (!HOP_BY_HOP.has(k) && k !== "content-encoding") h.append(k, v);
  }
  return h;
}

/**
 * The key of the guard's state for a request: its `Mcp-Session-Id`; without one (stateless
 * Streamable HTTP — every MCP 2026-07-28 server, and sessionless servers before it), the
 * protocol version and the credentials it is sent with: clients of the same version and
 * authorization context see the same list (MCP 2026-07-28 lists do not vary per connection,
 * and a `cacheScope: "private"` list is shared only within one authorization context). The
 * key stays in memory and is never logged.
 *
 * @example
 * ```ts
 * import { sessionKey } from "./http.ts";
 * sessionKey(new Headers({ "mcp-session-id": "s1" })); // "s1"
 * ```
 */
export function sessionKey(headers: Headers): string {
  const id = headers.get("mcp-session-id");
  if (id !== null) return id;
  const version = headers.get("mcp-protocol-version");
  if (version === null) return "";
  return ["", "stateless", version, headers.get("authorization") ?? "", headers.get("cookie") ?? ""]
    .join("\0");
}

/**
 * Why the MCP 2026-07-28 routing headers of a POST do not match its body, or undefined when
 * they do (basic/transports/streamable-http.md, "Server validation"): `Mcp-Method` must be the
 * body's method and `Mcp-Name` its `params.name` (`params.uri` for `resources/read`), decoded
 * from `=?base64?…?=` when encoded. The guard decides on the body; an upstream that routed on
 * a header that says something else would run what the guard never checked, so a mismatch is
 * refused rather than forwarded.
 *
 * @example
 * ```ts
 * import { headerMismatch } from "./http.ts";
 * const msg = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add" } };
 * headerMismatch(new Headers({ "mcp-method": "tools/call", "mcp-name": "rm" }), [msg]);
 * // "Mcp-Name is \"rm\" but the body names \"add\""
 * ```
 */
export function headerMismatch(headers: Headers, items: readonly JsonValue[]): string | undefined {
  const method = headers.get("mcp-method");
  const name = headers.get("mcp-name");
  if (method === null && name === null) return undefined;
  const requests = items.filter((m) => isJsonObject(m) && typeof m.method === "string");
  if (requests.length !== 1 || items.length !== 1) {
    return "Mcp-Method/Mcp-Name headers on a message that is not exactly one request";
  }
  const m = requests[0] as JsonObject;
  if (method !== null && method !== m.method) {
    return `Mcp-Method is ${JSON.stringify(method)} but the body's method is ` +
      JSON.stringify(m.method);
  }
  const params = isJsonObject(m.params) ? m.params : {};
  const member = m.method === "resources/read" ? "uri" : "name";
  const named = m.method === "tools/call" || m.method === "prompts/get" ||
    m.method === "resources/read";
  if (name === null) {
    return named ? `Mcp-Name is missing for ${m.method}` : undefined;
  }
  const decoded = decodeHeaderValue(name);
  if (!named || decoded !== params[member]) {
    return `Mcp-Name is ${JSON.stringify(decoded ?? name)} but the body names ` +
      JSON.stringify(named ? params[member] ?? null : null);
  }
  return undefined;
}

/**
 * A JSON response.
 *
 * @example
 * ```ts ignore
 * return jsonResponse(errorResponse(null, PARSE_ERROR, "…"), 400);
 * ```
 */
export function jsonResponse(value: JsonValue, status = 200, headers?: Headers): Response {
  const h = headers ?? new Headers();
  const bytes = encoder.encode(JSON.stringify(value));
  h.set("content-type", "application/json");
  h.set("content-length", String(bytes.length)); // written in one piece with its head
  return new Response(bytes, { status, headers: h });
}

/**
 * Reads a whole body, refusing one above {@linkcode MAX_HTTP_MESSAGE_BYTES}.
 *
 * @example
 * ```ts ignore
 * const bytes = await readLimited(req.body);
 * ```
 */
export async function readLimited(
  body: ReadableStream<Uint8Array> | null,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.length;
    if (size > MAX_HTTP_MESSAGE_BYTES) {
      throw new Error(`a body exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`);
    }
    chunks.push(c);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

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
          ctrl.error(new Error(`a body exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`));
          return;
        }
        ctrl.enqueue(chunk);
      },
    }),
  );
  return { stream, exceeded: () => over };
}

/** A JSON-RPC message of the guard's own, as one SSE event. */
function sseEvent(value: JsonValue): Uint8Array {
  return formatSseEvent({ data: JSON.stringify(value) });
}

/**
 * Runs every message of a server document (one message or a batch) through the core; returns
 * the document to pass on when the core replaced a message, undefined when it is unchanged.
 * Ids of answers seen are added to `answered`.
 *
 * @example
 * ```ts ignore
 * const changed = await judgeServerMessages(core, session, doc, new Set());
 * ```
 */
export async function judgeServerMessages(
  core: GuardCore,
  session: GuardSession,
  value: JsonValue,
  answered: Set<JsonValue>,
  pending: PendingRequests = session.pending,
): Promise<JsonValue | undefined> {
  messagesOf(value); // strict JSON-RPC 2.0 shape
  const items = Array.isArray(value) ? value : [value];
  const out: JsonValue[] = [];
  let changed = false;
  for (const m of items) {
    if (isJsonObject(m) && typeof m.method !== "string") answered.add(m.id);
    const d = await core.fromServer(session, m, pending);
    if (d.kind === "replace") {
      changed = true;
      out.push(d.message);
    } else {
      out.push(m);
    }
  }
  if (!changed) return undefined;
  return Array.isArray(value) ? out : out[0];
}

/**
 * Reads a client's POST body: at most {@linkcode MAX_HTTP_MESSAGE_BYTES}, strict JSON, not an
 * empty batch. Anything else is answered here (413 or 400 with a JSON-RPC error) and never
 * forwarded; a body that is not strict JSON is logged as `client_malformed`.
 *
 * @example
 * ```ts ignore
 * const read = await readClientMessage(req, core);
 * if (read instanceof Response) return read;
 * ```
 */
export async function readClientMessage(
  req: Request,
  core: GuardCore,
): Promise<{ bytes: Uint8Array; value: JsonValue; items: JsonValue[] } | Response> {
  let bytes: Uint8Array;
  try {
    bytes = await readLimited(req.body);
  } catch (e) {
    return jsonResponse(errorResponse(null, INVALID_REQUEST, (e as Error).message), 413);
  }
  let value: JsonValue;
  try {
    value = parseJson(bytes, "client message");
  } catch (e) {
    core.log.record({ decision: "client_malformed", message: (e as Error).message });
    return jsonResponse(
      errorResponse(
        null,
        PARSE_ERROR,
        `schemapin guard: the request body is not strict JSON and was not forwarded: ` +
          (e as Error).message,
      ),
      400,
    );
  }
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) {
    return jsonResponse(errorResponse(null, INVALID_REQUEST, "schemapin guard: empty batch"), 400);
  }
  return { bytes, value, items };
}

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

const MAX_SESSIONS = 1024;

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
  const core = options.core;
  const upstream = new URL(options.upstream);
  const source = `server ${options.serverName}`;
  const startupMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const requestMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const sessions = new Map<string, GuardSession>();
  const guardPrefix = `schemapin-guard-${crypto.randomUUID().slice(0, 8)}-`;
  let nextGuardId = 1;
  // Aborted at shutdown: ends every upstream request and stream still open, so the graceful
  // shutdown of the listener does not wait on a client that keeps a stream open.
  const stopAll = new AbortController();

  const sessionFor = (id: string): GuardSession => {
    let s = sessions.get(id);
    if (!s) {
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
      s = core.newSession();
      sessions.set(id, s);
    }
    return s;
  };

  /**
   * The guard's own `tools/list` (all pages), with the client's headers (auth, session) and in
   * the client's protocol: in the MCP 2026-07-28 era the protocol `_meta` in the params, the
   * `MCP-Protocol-Version` of the client and `Mcp-Method: tools/list` (the client's own
   * `Mcp-Name` and `Mcp-Param-*` headers belong to its call, not to this list), and no
   * resumption of a broken stream (that revision has none: the check fails instead).
   */
  const fetchToolsWith = (headers: Headers): FetchTools => (protocol) =>
    fetchOwnToolList(
      protocol,
      async (params) => {
        const id = guardPrefix + nextGuardId++;
        const h = ownRequestHeaders(upstreamHeaders(headers), "tools/list", protocol);
        const signal = AbortSignal.any([AbortSignal.timeout(requestMs), stopAll.signal]);
        const response = await fetch(upstream, {
          method: "POST",
          headers: h,
          body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params }),
          redirect: "manual",
          signal,
        });
        if (!response.ok) {
          await response.body?.cancel();
          throw new Error(`${source}: tools/list: HTTP ${response.status}`);
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
                throw new Error(`${source}: tools/list: the upstream ended the event stream early`);
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
        if (!answer) throw new Error(`${source}: tools/list: no answer to the guard's request`);
        if (!Object.hasOwn(answer, "result")) {
          const err = answer.error as JsonObject;
          throw new Error(`tools/list failed: JSON-RPC error ${err?.code}: ${err?.message}`);
        }
        return answer.result;
      },
      options.maxPages ?? DEFAULT_MAX_PAGES,
      source,
    );

  const judgeServerDocument = (
    session: GuardSession,
    value: JsonValue,
    answered: Set<JsonValue>,
    pending?: PendingRequests,
  ) => judgeServerMessages(core, session, value, answered, pending);

  /**
   * One upstream SSE block on its way to the client: a JSON-RPC message goes through the core
   * and is passed on byte for byte unless the core replaced it (then re-encoded with the
   * block's own `id`, `event` and `retry`). Every other block — priming events (`id:` with
   * empty data, MCP 2025-11-25), `retry:`, comments — is passed on unchanged, so the client's
   * `Last-Event-ID` resumption works through the guard.
   */
  const relayEvent = async (
    e: SseEvent,
    session: GuardSession,
    answered: Set<JsonValue>,
    pending?: PendingRequests,
  ): Promise<Uint8Array> => {
    const data = sseMessageData(e);
    if (data === undefined) return e.raw;
    const doc = parseJson(data, `${source} event stream`);
    const changed = await judgeServerDocument(session, doc, answered, pending);
    if (changed === undefined) return e.raw;
    return formatSseEvent({
      data: JSON.stringify(changed),
      event: e.event,
      id: e.id,
      retry: e.retry,
    });
  };

  const failForwarded = (requests: { id: JsonValue }[], answered: Set<JsonValue>, why: string) =>
    requests.filter((r) => !answered.has(r.id)).map((r) =>
      errorResponse(r.id, GUARD_SERVER_FAILED, `schemapin guard: ${source}: ${why}`)
    );

  const handlePost = async (req: Request, session: GuardSession): Promise<Response> => {
    const read = await readClientMessage(req, core);
    if (read instanceof Response) return read;
    const { bytes: body, value, items } = read;
    const mismatch = headerMismatch(req.headers, items);
    if (mismatch !== undefined) {
      core.log.record({ decision: "client_malformed", message: mismatch });
      const id = isJsonObject(value) && Object.hasOwn(value, "id") ? value.id : null;
      return jsonResponse(
        errorResponse(id, HEADER_MISMATCH, `schemapin guard: header mismatch: ${mismatch}`),
        400,
      );
    }
    const fetchTools = fetchToolsWith(req.headers);
    // The answers to a POST's requests come on its own response. Without a session (stateless
    // HTTP, shared by every client of one version and credentials) they are remembered for this
    // POST alone: two clients' requests with the same id must not take each other's answers.
    // With a session they are the session's: a broken stream is resumed with GET.
    let pending: PendingRequests = req.headers.has("mcp-session-id") ? session.pending : new Map();
    const forwarded: JsonValue[] = [];
    const replies: JsonObject[] = [];
    const requests: { id: JsonValue; method: string }[] = [];
    for (const m of items) {
      const d = await core.fromClient(session, m, fetchTools, pending);
      if (d.forward) {
        forwarded.push(m);
        if (d.request) requests.push(d.request);
      } else if (d.reply) {
        replies.push(d.reply);
      }
    }
    const merge = (outs: JsonValue[]): JsonValue =>
      Array.isArray(value) || outs.length > 1 ? outs : outs[0];
    if (forwarded.length === 0) {
      return replies.length === 0 ? new Response(null, { status: 202 }) : jsonResponse(
        merge(replies),
      );
    }
    const upstreamBody = forwarded.length === items.length
      ? body
      : encoder.encode(JSON.stringify(Array.isArray(value) ? forwarded : forwarded[0]));
    // initialize and tools/list must be answered in time: the guard depends on them.
    const critical = requests.filter((r) => r.method === "initialize" || r.method === "tools/list");
    const controller = new AbortController();
    const limitMs = critical.some((r) => r.method === "initialize") ? startupMs : requestMs;
    const timer = critical.length > 0
      ? setTimeout(() => controller.abort(new Error("timeout")), limitMs)
      : undefined;
    const answered = new Set<JsonValue>();
    let response: Response;
    try {
      response = await fetch(upstream, {
        method: "POST",
        headers: upstreamHeaders(req.headers),
        body: upstreamBody as Uint8Array<ArrayBuffer>,
        redirect: "manual",
        signal: AbortSignal.any([controller.signal, stopAll.signal]),
      });
    } catch (e) {
      clearTimeout(timer);
      const why = controller.signal.aborted
        ? `no answer within ${limitMs / 1000} s`
        : `cannot reach the upstream: ${(e as Error).message}`;
      core.log.record({ decision: "server_failed", message: why });
      const errors = [...replies, ...failForwarded(requests, answered, why)];
      return errors.length ? jsonResponse(merge(errors), 502) : new Response(why, { status: 502 });
    }
    const sid = response.headers.get("mcp-session-id");
    const opened = sid !== null && sid !== (req.headers.get("mcp-session-id") ?? "") &&
      !sessions.has(sid);
    const target = sid !== null && sid !== (req.headers.get("mcp-session-id") ?? "")
      ? sessionFor(sid)
      : session;
    if (target !== session) {
      // The upstream opened a session. For an initialize, a new conversation: the client's
      // capabilities (from this very initialize) pick its lock entry. Otherwise the upstream
      // named a session late: it starts with everything the guard knew, so nothing decided
      // (blocked, withheld, the client's protocol) is forgotten.
      const init = items.find((m) => isJsonObject(m) && m.method === "initialize") as
        | JsonObject
        | undefined;
      if (init) core.noteInitialize(target, init.params);
      else if (opened) target.adoptStateOf(session);
      if (pending === session.pending) {
        for (const [k, v] of session.pending) target.pending.set(k, v);
        session.pending.clear();
        pending = target.pending;
      }
    }
    const headers = clientHeaders(response.headers);
    const type = mediaType(response);
    if (response.status === 202) {
      // Accepted (notifications and responses only): no body, whatever its content type says.
      clearTimeout(timer);
      await response.body?.cancel();
      return replies.length > 0
        ? jsonResponse(merge(replies), 200, headers)
        : new Response(null, { status: 202, headers });
    }
    if (
      !response.ok || !response.body ||
      (type !== "application/json" && type !== "text/event-stream")
    ) {
      clearTimeout(timer);
      if (response.ok && requests.length > 0) {
        // A 2xx answer to requests that is neither JSON nor an event stream cannot be checked:
        // a client that reads it anyway (a lenient content-type match) must not get it.
        await response.body?.cancel();
        const why = `the upstream answered with content type ${JSON.stringify(type)}, ` +
          `not application/json or text/event-stream`;
        core.log.record({ decision: "server_failed", message: why });
        return jsonResponse(merge([...replies, ...failForwarded(requests, answered, why)]), 502);
      }
      return new Response(response.body, { status: response.status, headers });
    }
    if (type === "application/json") {
      let out: Uint8Array;
      try {
        const bytes = await readLimited(response.body);
        clearTimeout(timer);
        const doc = parseJson(bytes, `${source} response`);
        const changed = await judgeServerDocument(target, doc, answered, pending);
        if (changed === undefined && replies.length === 0) {
          out = bytes;
        } else {
          const outs = [
            ...replies,
            ...(Array.isArray(doc) ? (changed ?? doc) as JsonValue[] : [
              changed ?? doc,
            ]),
          ];
          out = encoder.encode(JSON.stringify(merge(outs)));
        }
      } catch (e) {
        clearTimeout(timer);
        const why = controller.signal.aborted
          ? `no answer within ${limitMs / 1000} s`
          : `the upstream answered something that is not strict JSON-RPC: ${(e as Error).message}`;
        core.log.record({ decision: "server_failed", message: why });
        return jsonResponse(merge([...replies, ...failForwarded(requests, answered, why)]), 502);
      }
      headers.set("content-type", "application/json");
      headers.set("content-length", String(out.length)); // written in one piece with its head
      return new Response(out as Uint8Array<ArrayBuffer>, { status: response.status, headers });
    }
    // text/event-stream: re-emit each event after the core has seen it.
    const upstreamBodyStream = response.body;
    let clientGone = false; // the client cancelled (it gave up the call): not a server failure
    const stream = new ReadableStream<Uint8Array>({
      async start(ctrl) {
        for (const r of replies) ctrl.enqueue(sseEvent(r));
        const parser = new SseParser();
        let done = false;
        try {
          for await (const chunk of upstreamBodyStream) {
            for (const e of parser.push(chunk)) {
              ctrl.enqueue(await relayEvent(e, target, answered, pending));
            }
            if (critical.every((r) => answered.has(r.id))) clearTimeout(timer);
            if (parser.buffered > MAX_HTTP_MESSAGE_BYTES) {
              throw new Error(`an event exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`);
            }
          }
          done = true;
        } catch (e) {
          if (!clientGone) {
            const why = controller.signal.aborted
              ? `no answer within ${limitMs / 1000} s`
              : `the upstream event stream failed: ${(e as Error).message}`;
            // The guard stopping ends the stream: not a failure of the server (the client
            // still gets an answer to each forwarded request).
            if (!stopAll.signal.aborted) {
              core.log.record({ decision: "server_failed", message: why });
            }
            for (const r of failForwarded(requests, answered, why)) {
              ctrl.enqueue(sseEvent(r));
            }
          }
        } finally {
          clearTimeout(timer);
          if (!done) await upstreamBodyStream.cancel().catch(() => {});
          try {
            ctrl.close();
          } catch { /* the client already went away */ }
        }
      },
      cancel() {
        clientGone = true;
        clearTimeout(timer);
        return upstreamBodyStream.cancel().catch(() => {});
      },
    });
    headers.set("content-type", "text/event-stream");
    return new Response(stream, { status: response.status, headers });
  };

  const handleGet = async (req: Request, session: GuardSession): Promise<Response> => {
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
              ctrl.enqueue(await relayEvent(e, session, answered));
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
  };

  const handleOther = async (req: Request): Promise<Response> => {
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
  };

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
    const session = sessionFor(sessionKey(req.headers));
    if (req.method === "POST") return await handlePost(req, session);
    if (req.method === "GET") return await handleGet(req, session);
    return await handleOther(req);
  };

  return Promise.resolve(serveGuard(options, upstream.pathname, handler, stopAll));
}
