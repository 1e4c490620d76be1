/**
 * The legacy HTTP+SSE transport of MCP 2024-11-05, which many deployed servers still offer
 * alone: the client opens `GET <url>` as an event stream; the server's first event is
 * `endpoint`, whose data is the URL to POST messages to; every answer and server message then
 * arrives as a `message` event on that stream (the POSTs are answered 202 Accepted).
 *
 * Same rules as Streamable HTTP: redirects are refused (credentials must not follow one), the
 * endpoint must be on the same origin as the stream (for the same reason), every event goes
 * through the strict JSON parser, an open event is capped at
 * {@linkcode MAX_HTTP_MESSAGE_BYTES}, and every wait has a timeout.
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject } from "../json/types.ts";
import { redactUrl } from "./redact.ts";
import { ServerFailure } from "./errors.ts";
import { encodeNotification, messagesOf } from "./jsonrpc.ts";
import { MAX_HTTP_MESSAGE_BYTES, mediaType } from "./http.ts";
import { PendingRequests, type RequestOptions } from "./pending.ts";
import type { McpTransport } from "./session.ts";
import { SseParser } from "./sse.ts";

/** How to reach a legacy HTTP+SSE server. */
export interface LegacySseOptions {
  /** The event-stream URL (often `…/sse`), `${VAR}` already expanded. */
  readonly url: string;
  /** Extra headers (`Authorization` …) for the stream and every POST. Never logged. */
  readonly headers?: readonly [string, string][];
  /** Names the server in messages. */
  readonly source?: string;
  /** Milliseconds allowed to open the stream and receive the `endpoint` event. */
  readonly connectTimeoutMs: number;
}

/**
 * Opens the event stream and waits for the `endpoint` event.
 *
 * @throws {ServerFailure} `connect`, `http` (status, content type, redirect, foreign endpoint),
 * `malformed` or `timeout`
 *
 * @example
 * ```ts ignore
 * const t = await connectLegacySse({ url: "http://127.0.0.1:3001/sse", connectTimeoutMs: 30_000 });
 * try { console.log(await listTools(t)); } finally { await t.close(); }
 * ```
 */
export async function connectLegacySse(options: LegacySseOptions): Promise<LegacySseTransport> {
  const source = options.source ?? redactUrl(options.url);
  const headers = new Headers(options.headers as [string, string][] ?? []);
  headers.set("Accept", "text/event-stream");
  const stop = new AbortController();
  const deadline = Date.now() + options.connectTimeoutMs;
  const timer = setTimeout(() => stop.abort(), options.connectTimeoutMs);
  let response: Response;
  try {
    response = await fetch(options.url, {
      method: "GET",
      headers,
      redirect: "manual",
      signal: stop.signal,
    });
  } catch (e) {
    clearTimeout(timer);
    if (stop.signal.aborted) throw connectTimeout(source, options.connectTimeoutMs);
    throw new ServerFailure(
      "connect",
      `${source}: cannot reach ${redactUrl(options.url)}: ${(e as Error).message}`,
    );
  }
  clearTimeout(timer); // from here on, started() keeps the time
  const type = mediaType(response);
  if (response.status >= 300 || type !== "text/event-stream" || !response.body) {
    await response.body?.cancel().catch(() => {});
    const why = response.status >= 300 && response.status < 400
      ? `HTTP ${response.status} redirect (not followed; pin the final URL)`
      : response.status >= 400
      ? `HTTP ${response.status} ${response.statusText}`
      : `Content-Type ${JSON.stringify(type)} (expected text/event-stream)`;
    throw new ServerFailure("http", `${source}: opening the HTTP+SSE event stream: ${why}`);
  }
  const transport = new LegacySseTransport(options.url, options.headers ?? [], source, stop);
  try {
    await transport.started(
      response.body,
      Math.max(0, deadline - Date.now()),
      options.connectTimeoutMs,
    );
  } catch (e) {
    await transport.close();
    throw e;
  }
  return transport;
}

function connectTimeout(source: string, ms: number): ServerFailure {
  return new ServerFailure(
    "timeout",
    `${source}: no endpoint event on the HTTP+SSE stream within ${ms / 1000} s`,
  );
}

/** A legacy HTTP+SSE session. Create with {@linkcode connectLegacySse}. */
export class LegacySseTransport implements McpTransport {
  /** HTTP+SSE (2024-11-05) carries only the legacy era (see {@linkcode McpTransport}). */
  readonly legacyOnly = true;
  readonly #url: string;
  readonly #extra: readonly [string, string][];
  readonly #source: string;
  readonly #stop: AbortController;
  readonly #table: PendingRequests;
  #endpoint: URL | undefined;
  #reading: Promise<void> | undefined;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #closed = false;

  /** See {@linkcode connectLegacySse}. */
  constructor(
    url: string,
    headers: readonly [string, string][],
    source: string,
    stop: AbortController,
  ) {
    this.#url = url;
    this.#extra = headers;
    this.#source = source;
    this.#stop = stop;
    this.#table = new PendingRequests(source, (line) => this.#post(line));
  }

  /** The URL messages are POSTed to (from the `endpoint` event). */
  get endpoint(): string | undefined {
    return this.#endpoint?.href;
  }

  /** Reads the stream in the background; resolves once the `endpoint` event arrived. */
  started(body: ReadableStream<Uint8Array>, timeoutMs: number, totalMs = timeoutMs): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(connectTimeout(this.#source, totalMs));
        this.#stop.abort();
      }, timeoutMs);
      const ready = (e?: ServerFailure) => {
        clearTimeout(timer);
        if (e) reject(e);
        else resolve();
      };
      this.#reading = this.#read(body, ready);
    });
  }

  async #read(body: ReadableStream<Uint8Array>, ready: (e?: ServerFailure) => void) {
    const reader = body.getReader();
    this.#reader = reader;
    const parser = new SseParser();
    let failure: ServerFailure | undefined;
    try {
      while (!failure) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const event of parser.push(value)) {
          failure = this.#event(event.event, event.data, event.dispatch);
          if (failure) break;
          if (this.#endpoint && event.event === "endpoint") ready();
        }
        if (!failure && parser.buffered > MAX_HTTP_MESSAGE_BYTES) {
          failure = new ServerFailure(
            "malformed",
            `${this.#source}: an event exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`,
          );
        }
      }
    } catch (e) {
      if (!this.#closed) {
        failure = new ServerFailure(
          "exited",
          `${this.#source}: the HTTP+SSE event stream failed: ${(e as Error).message}`,
        );
      }
    } finally {
      await reader.cancel().catch(() => {});
    }
    if (this.#closed) return;
    failure ??= new ServerFailure(
      "exited",
      `${this.#source}: the server closed the HTTP+SSE event stream` +
        (this.#table.size ? ` before answering ${this.#table.waiting.join(", ")}` : ""),
    );
    this.#table.fail(failure);
    ready(failure); // no-op once the endpoint arrived
  }

  /** One dispatched event; returns a failure that ends the session. */
  #event(type: string, data: Uint8Array, dispatch: boolean): ServerFailure | undefined {
    if (!dispatch) return undefined;
    if (type === "endpoint") {
      if (this.#endpoint) {
        return new ServerFailure("malformed", `${this.#source}: a second endpoint event`);
      }
      const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
      let url: URL;
      try {
        url = new URL(text.decode(data).trim(), this.#url);
      } catch {
        return new ServerFailure("malformed", `${this.#source}: the endpoint event is not a URL`);
      }
      if (url.origin !== new URL(this.#url).origin) {
        return new ServerFailure(
          "http",
          `${this.#source}: the endpoint event names another origin (${url.origin}); ` +
            `messages and credentials are only sent to ${new URL(this.#url).origin}`,
        );
      }
      this.#endpoint = url;
      return undefined;
    }
    if (type !== "message" || data.length === 0) return undefined;
    if (!this.#endpoint) {
      return new ServerFailure(
        "malformed",
        `${this.#source}: a message arrived before the endpoint event`,
      );
    }
    try {
      for (const m of messagesOf(parseJson(data, `${this.#source} event stream`))) {
        this.#table.dispatch(m);
      }
    } catch (e) {
      return e instanceof ServerFailure ? e : new ServerFailure(
        "malformed",
        `${this.#source}: an event is not strict JSON-RPC: ${(e as Error).message}`,
      );
    }
    return undefined;
  }

  async #post(line: string): Promise<void> {
    const headers = new Headers(this.#extra as [string, string][]);
    headers.set("Content-Type", "application/json");
    const timeout = AbortSignal.timeout(30_000);
    let response: Response;
    try {
      response = await fetch(this.#endpoint!, {
        method: "POST",
        headers,
        body: line,
        redirect: "manual",
        signal: AbortSignal.any([timeout, this.#stop.signal]),
      });
    } catch (e) {
      throw new ServerFailure(
        "connect",
        `${this.#source}: cannot POST to the HTTP+SSE endpoint: ${(e as Error).message}`,
      );
    }
    await response.body?.cancel().catch(() => {});
    if (response.status < 200 || response.status >= 300) {
      throw new ServerFailure(
        "http",
        `${this.#source}: the HTTP+SSE endpoint answered HTTP ${response.status}` +
          (response.status >= 300 && response.status < 400 ? " (redirects are not followed)" : ""),
      );
    }
  }

  /** Sends a request; its answer arrives on the event stream. */
  request(
    method: string,
    params: JsonObject | undefined,
    timeoutMs: number,
    options?: RequestOptions,
  ): Promise<JsonObject> {
    return this.#table.request(
      method,
      params,
      timeoutMs,
      (e) => new ServerFailure("connect", `${this.#source}: ${e.message}`),
      options,
    );
  }

  /** Sends a notification. */
  async notify(method: string, params?: JsonObject): Promise<void> {
    if (this.#table.failure) throw this.#table.failure;
    try {
      await this.#post(encodeNotification(method, params));
    } catch (e) {
      const failure = e instanceof ServerFailure
        ? e
        : new ServerFailure("connect", `${this.#source}: ${(e as Error).message}`);
      this.#table.fail(failure);
      throw failure;
    }
  }

  /** Closes the event stream (which ends the session on the server). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop.abort();
    // Cancelling the reader ends a pending read at once, whatever the abort does to the body.
    await this.#reader?.cancel().catch(() => {});
    await this.#reading?.catch(() => {});
    this.#table.rejectAll(new ServerFailure("exited", `${this.#source}: transport closed`));
  }
}
