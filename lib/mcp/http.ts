/**
 * The Streamable HTTP transport: each JSON-RPC message is POSTed with
 * `Accept: application/json, text/event-stream`; the answer is a JSON body or an SSE stream.
 * Legacy requests (no protocol version in `params._meta`): `Mcp-Session-Id` is carried from
 * `initialize` on, `MCP-Protocol-Version` after it; the session is DELETEd at the end. Modern
 * requests (2026-07-28: the version in `params._meta`) carry `MCP-Protocol-Version`,
 * `Mcp-Method` and `Mcp-Name` and never a session id; a 4xx answer whose body is a JSON-RPC
 * error is reported as that error (`rpc_error` with the HTTP status), so the era probe can tell
 * a modern server's refusal from a legacy server's. Redirects are refused (credentials must
 * not follow one).
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { redactUrl } from "./redact.ts";
import { ServerFailure } from "./errors.ts";
import {
  answerServerRequest,
  classifyMessage,
  encodeNotification,
  encodeRequest,
  type IncomingMessage,
  messagesOf,
} from "./jsonrpc.ts";
import type { McpTransport } from "./session.ts";
import type { RequestOptions } from "./pending.ts";
import { mcpRequestHeaders, modernVersionOf } from "./era.ts";
import { sseMessageData, SseParser } from "./sse.ts";
import { checkArg } from "../arguments.ts";
import { CREDENTIALS_HINT } from "../option_hints.ts";

/** Largest response body or SSE event accepted. */
export const MAX_HTTP_MESSAGE_BYTES = 32 * 1024 * 1024;

/**
 * The media type of a response (`Content-Type` without parameters, lower-cased: media types
 * are case-insensitive), or "" when there is none.
 *
 * @example
 * ```ts ignore
 * mediaType(new Response("", { headers: { "content-type": "Text/Event-Stream; charset=utf-8" } }));
 * // "text/event-stream"
 * ```
 */
export function mediaType(response: Response): string {
  return (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/** Most times one request's event stream is resumed after the server ended it early. */
const MAX_STREAM_RESUMPTIONS = 8;
/** Wait before resuming when the server gave no `retry:` (milliseconds). */
const DEFAULT_RESUME_DELAY_MS = 500;
/** Longest `retry:` honoured before resuming (milliseconds); the request timeout still applies. */
const MAX_RESUME_DELAY_MS = 5_000;

/** Resolves after `ms`, or rejects when `signal` aborts. */
function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** How {@linkcode readEventStream} reads one stream. */
export interface EventStreamReading {
  /** What the stream answers (`tools/list`), for messages. */
  readonly what: string;
  /** Names the server in messages. */
  readonly source: string;
  /** Ends the wait for a resumption delay (the request's timeout). */
  readonly signal: AbortSignal;
  /** Called with each JSON-RPC payload; returns true when the awaited answer was seen. */
  onMessage(data: Uint8Array): boolean;
  /** Opens the stream again from `lastEventId` ({@linkcode resumeEventStream}). */
  resume(lastEventId: string): Promise<Response>;
}

/**
 * Reads an MCP event stream until `onMessage` has the awaited answer. Blocks without a JSON-RPC
 * payload (priming events, comments, other event types) only update the last event ID and the
 * `retry:` delay. MCP 2025-11-25 lets a server end the stream early after an event with an ID
 * and continue it on a GET with `Last-Event-ID`: that is followed after the server's delay (at
 * most 5 s; the request's timeout still applies), up to 8 times. A stream that ends without
 * any event ID, or an open event larger than {@linkcode MAX_HTTP_MESSAGE_BYTES}, is a failure.
 *
 * @throws {ServerFailure} `malformed` when the stream ends without the answer
 *
 * @example
 * ```ts ignore
 * await readEventStream(response, {
 *   what: "tools/list", source: "server x", signal,
 *   onMessage: (data) => isMyAnswer(parseJson(data)),
 *   resume: (id) => resumeEventStream(url, headers, id, signal, "tools/list", "server x"),
 * });
 * ```
 */
export async function readEventStream(
  response: Response,
  reading: EventStreamReading,
): Promise<void> {
  const { what, source } = reading;
  let lastEventId = "";
  let retryMs = DEFAULT_RESUME_DELAY_MS;
  for (let resumed = 0;; resumed++) {
    if (!response.body) {
      throw new ServerFailure("malformed", `${source}: ${what}: empty event stream`);
    }
    const reader = response.body.getReader();
    const parser = new SseParser();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const event of parser.push(value)) {
          if (event.lastEventId !== "") lastEventId = event.lastEventId;
          if (event.retry !== undefined) retryMs = event.retry;
          const data = sseMessageData(event); // priming events and other types carry none
          if (data !== undefined && reading.onMessage(data)) return;
        }
        if (parser.buffered > MAX_HTTP_MESSAGE_BYTES) {
          throw new ServerFailure(
            "malformed",
            `${source}: an event exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`,
          );
        }
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
    if (lastEventId === "" || resumed >= MAX_STREAM_RESUMPTIONS) {
      throw new ServerFailure(
        "malformed",
        `${source}: ${what}: the event stream ended before the response` +
          (lastEventId === "" ? "" : ` (after ${resumed} resumptions)`),
      );
    }
    await abortableDelay(Math.min(retryMs, MAX_RESUME_DELAY_MS), reading.signal);
    response = await reading.resume(lastEventId);
  }
}

/**
 * Opens an MCP event stream again from `lastEventId`: a GET with `Accept: text/event-stream`
 * and `Last-Event-ID`, the other `headers` (session, protocol version, credentials) kept.
 * Redirects are not followed.
 *
 * @throws {ServerFailure} when the server cannot be reached or does not answer with a stream
 *
 * @example
 * ```ts ignore
 * const response = await resumeEventStream(url, headers, "ev-7", signal, "tools/list", "server x");
 * ```
 */
export async function resumeEventStream(
  url: string | URL,
  headers: Headers,
  lastEventId: string,
  signal: AbortSignal,
  what: string,
  source: string,
): Promise<Response> {
  const h = new Headers(headers);
  h.delete("content-type");
  h.set("accept", "text/event-stream");
  h.set("last-event-id", lastEventId);
  let response: Response;
  try {
    response = await fetch(url, { method: "GET", headers: h, signal, redirect: "manual" });
  } catch (e) {
    if (signal.aborted) throw signal.reason ?? e;
    throw new ServerFailure(
      "connect",
      `${source}: cannot resume the ${what} event stream: ${(e as Error).message}`,
    );
  }
  const type = mediaType(response);
  if (!response.ok || type !== "text/event-stream") {
    await response.body?.cancel();
    throw new ServerFailure(
      "http",
      `${source}: ${what}: resuming the event stream (Last-Event-ID) got HTTP ` +
        `${response.status}${response.ok ? ` with Content-Type ${JSON.stringify(type)}` : ""}`,
    );
  }
  return response;
}

/** How to reach a Streamable HTTP server. */
export interface HttpOptions {
  /** The endpoint, `${VAR}` already expanded. */
  readonly url: string;
  /** Extra headers (`Authorization` …), values already expanded. Never logged. */
  readonly headers?: readonly [string, string][];
  /** Names the server in messages. */
  readonly source?: string;
  /** Milliseconds allowed for the final DELETE. */
  readonly closeTimeoutMs?: number;
}

/**
 * Opens a Streamable HTTP client (no request is made until the first message).
 *
 * @example
 * ```ts
 * import { connectHttp } from "./http.ts";
 * import { listTools } from "./session.ts";
 * const transport = connectHttp({
 *   url: "http://127.0.0.1:3000/mcp",
 *   headers: [["Authorization", `Bearer ${Deno.env.get("MCP_TOKEN")}`]],
 * });
 * try {
 *   console.log((await listTools(transport)).tools.length);
 * } finally {
 *   await transport.close();
 * }
 * ```
 */
export function connectHttp(options: HttpOptions): HttpTransport {
  checkArg("connectHttp", "options", options, "object");
  checkArg("connectHttp", "options.url", options.url, "string");
  return new HttpTransport(options);
}

/**
 * A Streamable HTTP client session. Create with {@linkcode connectHttp}.
 *
 * @example
 * ```ts
 * import { connectHttp, type HttpTransport } from "./http.ts";
 * import { listTools } from "./session.ts";
 * const transport: HttpTransport = connectHttp({ url: "http://127.0.0.1:3000/mcp" });
 * try {
 *   console.log((await listTools(transport)).tools.length);
 * } finally {
 *   await transport.close();
 * }
 * ```
 */
export class HttpTransport implements McpTransport {
  /** Every POST gets an HTTP status of its own (see {@linkcode McpTransport}). */
  readonly answersEveryRequest = true;
  readonly #url: string;
  readonly #extra: readonly [string, string][];
  readonly #source: string;
  readonly #closeTimeoutMs: number;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #nextId = 1;
  #answered = false;

  /** See {@linkcode connectHttp}. */
  constructor(options: HttpOptions) {
    checkArg("HttpTransport", "options", options, "object");
    checkArg("HttpTransport", "options.url", options.url, "string");
    this.#url = options.url;
    this.#extra = options.headers ?? [];
    this.#source = options.source ?? redactUrl(options.url);
    this.#closeTimeoutMs = options.closeTimeoutMs ?? 5000;
  }

  /** Whether any POST was answered with a success status (so this is Streamable HTTP). */
  get answered(): boolean {
    return this.#answered;
  }

  /** The session id the server assigned, if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Records the negotiated protocol version, sent as `MCP-Protocol-Version` from now on. */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  /**
   * The headers of one POST: legacy (session id and negotiated version), or for a modern
   * request the 2026-07-28 request headers and no session id.
   */
  #headers(modern?: [string, string][]): Headers {
    const h = new Headers();
    for (const [k, v] of this.#extra) h.append(k, v);
    h.set("Content-Type", "application/json");
    h.set("Accept", "application/json, text/event-stream");
    if (modern) {
      for (const [k, v] of modern) h.set(k, v);
      return h;
    }
    if (this.#sessionId !== undefined) h.set("Mcp-Session-Id", this.#sessionId);
    if (this.#protocolVersion !== undefined) h.set("MCP-Protocol-Version", this.#protocolVersion);
    return h;
  }

  async #post(
    body: string,
    signal: AbortSignal,
    what: string,
    modern?: [string, string][],
  ): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(this.#url, {
        method: "POST",
        headers: this.#headers(modern),
        body,
        signal,
        redirect: "manual",
      });
    } catch (e) {
      if (signal.aborted) throw this.#timeoutFailure(what, signal);
      throw new ServerFailure(
        "connect",
        `${this.#source}: cannot reach ${redactUrl(this.#url)}: ${(e as Error).message}`,
      );
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new ServerFailure(
        "http",
        `${this.#source}: ${what}: HTTP ${response.status} redirect to ` +
          `${redactUrl(response.headers.get("location") ?? "?")}; pin the final URL instead ` +
          `(redirects are not followed, so headers never go to another host)`,
      );
    }
    if (!response.ok && modern && response.status >= 400 && response.status < 500) {
      // 2026-07-28: a modern server refuses with 4xx and a JSON-RPC error body
      // (UnsupportedProtocolVersion, HeaderMismatch, method not found …).
      const text = await readExcerptText(response);
      const rpc = jsonRpcErrorOf(text);
      if (rpc) {
        const failure = new ServerFailure(
          "rpc_error",
          `${this.#source}: ${what} failed: HTTP ${response.status}, JSON-RPC error ` +
            `${rpc.code}: ${rpc.message}`,
          "",
          rpc.code,
        );
        failure.httpStatus = response.status;
        if (Object.hasOwn(rpc, "data")) failure.rpcData = rpc.data;
        throw failure;
      }
      const failure = new ServerFailure(
        "http",
        `${this.#source}: ${what}: HTTP ${response.status} ${response.statusText}` +
          this.#hint(response.status) + (text ? `: ${cleanExcerpt(text)}` : ""),
      );
      failure.httpStatus = response.status;
      throw failure;
    }
    if (!response.ok) {
      const excerpt = await readExcerpt(response);
      const hint = this.#hint(response.status);
      const failure = new ServerFailure(
        "http",
        `${this.#source}: ${what}: HTTP ${response.status} ${response.statusText}${hint}` +
          (excerpt ? `: ${excerpt}` : ""),
      );
      failure.httpStatus = response.status;
      throw failure;
    }
    this.#answered = true;
    return response;
  }

  /** What to do about an HTTP error status, for the message. */
  #hint(status: number): string {
    return status === 401 || status === 403
      ? CREDENTIALS_HINT
      : status === 404 && this.#sessionId !== undefined
      ? " (the server ended the session)"
      : "";
  }

  #timeoutFailure(what: string, signal: AbortSignal): ServerFailure {
    const reason = signal.reason as { ms?: number } | undefined;
    return new ServerFailure(
      "timeout",
      `${this.#source}: no answer to ${what} within ${(reason?.ms ?? 0) / 1000} s`,
    );
  }

  /**
   * Sends a request; see {@linkcode McpTransport.request}. A request whose `params._meta`
   * names a protocol version is sent the modern way (2026-07-28 headers, no session id).
   */
  async request(
    method: string,
    params: JsonObject | undefined,
    timeoutMs: number,
    options: RequestOptions = {},
  ): Promise<JsonObject> {
    const id = this.#nextId++;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort({ ms: timeoutMs }), timeoutMs);
    const given = options.signal;
    const onAbort = () => controller.abort({ caller: given?.reason });
    if (given?.aborted) onAbort();
    given?.addEventListener("abort", onAbort, { once: true });
    const version = modernVersionOf(params);
    const modern = version === undefined ? undefined : mcpRequestHeaders(method, params, version);
    try {
      const response = await this.#post(
        encodeRequest(id, method, params),
        controller.signal,
        method,
        modern,
      );
      if (method === "initialize" && !modern) {
        const session = response.headers.get("mcp-session-id");
        if (session !== null) {
          if (!/^[\x21-\x7e]+$/.test(session)) {
            await response.body?.cancel();
            throw new ServerFailure(
              "malformed",
              `${this.#source}: Mcp-Session-Id holds characters outside visible ASCII`,
            );
          }
          this.#sessionId = session;
        }
      }
      const type = mediaType(response);
      let found: IncomingMessage | undefined;
      const handle = (m: IncomingMessage): boolean => {
        if (m.type === "notification") return false;
        if (m.type === "request") {
          this.#answer(m.id, m.method);
          return false;
        }
        if (m.id !== id) {
          throw new ServerFailure(
            "malformed",
            `${this.#source}: response to unknown request id ${JSON.stringify(m.id)}`,
          );
        }
        found = m;
        return true;
      };
      try {
        if (type === "application/json") {
          const bytes = await readLimited(response, this.#source);
          for (const m of messagesOf(parseJson(bytes, `${this.#source} ${method} response`))) {
            if (handle(m)) break;
          }
        } else if (type === "text/event-stream") {
          await this.#readStream(response, method, handle, controller.signal, !!modern);
        } else {
          await response.body?.cancel();
          throw new ServerFailure(
            "http",
            `${this.#source}: ${method}: unexpected Content-Type ${JSON.stringify(type)} ` +
              `(expected application/json or text/event-stream)`,
          );
        }
      } catch (e) {
        if (controller.signal.aborted) throw this.#timeoutFailure(method, controller.signal);
        if (e instanceof ServerFailure) throw e;
        throw new ServerFailure(
          "malformed",
          `${this.#source}: ${method} response is not strict JSON: ${(e as Error).message}`,
        );
      }
      const answer = found as IncomingMessage | undefined;
      if (!answer) {
        throw new ServerFailure(
          "malformed",
          `${this.#source}: ${method}: the response held no answer to request ${id}`,
        );
      }
      if (answer.type === "error") {
        const failure = new ServerFailure(
          "rpc_error",
          `${this.#source}: ${method} failed: JSON-RPC error ${answer.code}: ${answer.message}`,
          "",
          answer.code,
        );
        if (Object.hasOwn(answer, "data")) failure.rpcData = answer.data;
        throw failure;
      }
      return (answer as { result: JsonObject }).result;
    } catch (e) {
      // Given up by the caller (the era probe): its reason, not a timeout.
      if (given?.aborted) throw given.reason;
      throw e;
    } finally {
      clearTimeout(timer);
      given?.removeEventListener("abort", onAbort);
    }
  }

  async #readStream(
    response: Response,
    method: string,
    handle: (m: IncomingMessage) => boolean,
    signal: AbortSignal,
    modern: boolean,
  ): Promise<void> {
    await readEventStream(response, {
      what: method,
      source: this.#source,
      signal,
      onMessage: (data) => {
        const messages = messagesOf(parseJson(data, `${this.#source} ${method} event stream`));
        return messages.some(handle);
      },
      resume: (lastEventId) => {
        if (modern) {
          // 2026-07-28 removed resumption: a broken stream loses the request.
          return Promise.reject(
            new ServerFailure(
              "malformed",
              `${this.#source}: ${method}: the event stream ended before the response ` +
                `(2026-07-28 streams are not resumable)`,
            ),
          );
        }
        const headers = this.#headers();
        return resumeEventStream(this.#url, headers, lastEventId, signal, method, this.#source);
      },
    });
  }

  #answer(id: unknown, method: string): void {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort({ ms: 5000 }), 5000);
    this.#post(answerServerRequest(id as number, method), controller.signal, `answer to ${method}`)
      .then((r) => r.body?.cancel())
      .catch(() => {})
      .finally(() => clearTimeout(timer));
  }

  /** Sends a notification (the server answers 202 Accepted). */
  async notify(method: string, params?: JsonObject): Promise<void> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort({ ms: 30_000 }), 30_000);
    try {
      const response = await this.#post(
        encodeNotification(method, params),
        controller.signal,
        method,
      );
      await response.body?.cancel();
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends the session with DELETE (best effort: 405 means the server does not allow it). */
  async close(): Promise<void> {
    if (this.#sessionId === undefined) return;
    const headers = this.#headers();
    headers.delete("Content-Type");
    this.#sessionId = undefined;
    try {
      const response = await fetch(this.#url, {
        method: "DELETE",
        headers,
        redirect: "manual",
        signal: AbortSignal.timeout(this.#closeTimeoutMs),
      });
      await response.body?.cancel();
    } catch {
      // The listing is complete; a failed DELETE only leaves a session for the server to expire.
    }
  }
}

async function readLimited(response: Response, source: string): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > MAX_HTTP_MESSAGE_BYTES) {
        throw new ServerFailure(
          "malformed",
          `${source}: a response exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`,
        );
      }
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Most bytes of an error body read to look for a JSON-RPC error in it. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** The text of an error body, at most {@linkcode MAX_ERROR_BODY_BYTES} (the rest is dropped). */
async function readExcerptText(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < MAX_ERROR_BODY_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // an excerpt only
  } finally {
    await reader.cancel().catch(() => {});
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all.subarray(0, MAX_ERROR_BODY_BYTES));
}

/** The JSON-RPC error an error body holds (strict JSON, one error response), or undefined. */
function jsonRpcErrorOf(
  text: string,
): { code: number; message: string; data?: JsonValue } | undefined {
  // The id may be missing or null here (the server may not have read the request's).
  let value: JsonValue;
  try {
    value = parseJson(new TextEncoder().encode(text), "error body");
  } catch {
    return undefined;
  }
  if (!isJsonObject(value) || !Object.hasOwn(value, "error")) return undefined;
  try {
    const m = classifyMessage({ ...value, id: value.id ?? null });
    return m.type === "error" ? m : undefined;
  } catch {
    return undefined;
  }
}

function cleanExcerpt(text: string): string {
  // deno-lint-ignore no-control-regex
  const clean = text.replace(/[\x00-\x1f\x7f]+/g, " ").trim();
  return clean.length > 200 ? clean.slice(0, 200) + "…" : clean;
}

async function readExcerpt(response: Response): Promise<string> {
  try {
    const text = await response.text();
    // deno-lint-ignore no-control-regex
    const clean = text.replace(/[\x00-\x1f\x7f]+/g, " ").trim();
    return clean.length > 200 ? clean.slice(0, 200) + "…" : clean;
  } catch {
    return "";
  }
}
