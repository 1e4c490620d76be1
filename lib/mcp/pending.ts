/**
 * The request table of a client whose answers arrive on one inbound channel (a stdio server's
 * stdout, a legacy HTTP+SSE server's event stream): ids, timeouts, matching answers to
 * requests, answering server → client requests, and failing everything at once.
 *
 * @module
 */
import type { JsonObject } from "../json/types.ts";
import { ServerFailure } from "./errors.ts";
import { answerServerRequest, encodeRequest, type IncomingMessage } from "./jsonrpc.ts";

/** How one request is sent ({@linkcode McpTransport.request}). */
export interface RequestOptions {
  /**
   * A probe (the `server/discover` era probe): its timeout fails only this request, not the
   * session, and an answer that arrives after it was given up is dropped.
   */
  readonly probe?: boolean;
  /** Gives the request up (rejects it with the signal's reason; a late answer is dropped). */
  readonly signal?: AbortSignal;
}

interface Pending {
  resolve(result: JsonObject): void;
  reject(e: ServerFailure): void;
  method: string;
}

/**
 * Requests waiting for their answers.
 *
 * @example
 * ```ts ignore
 * const table = new PendingRequests("server x", (line) => write(line));
 * const result = await table.request("tools/list", {}, 30_000);
 * // …and for every message read: table.dispatch(message)
 * ```
 */
export class PendingRequests {
  readonly #pending = new Map<number, Pending>();
  /** Ids of requests given up (probe timeout, abort) whose late answer is dropped. */
  readonly #abandoned = new Set<number>();
  readonly #source: string;
  readonly #send: (line: string) => Promise<void>;
  #nextId = 1;
  #failure: ServerFailure | undefined;

  /**
   * @param source names the server in messages
   * @param send delivers one encoded JSON-RPC message to the server
   */
  constructor(source: string, send: (line: string) => Promise<void>) {
    this.#source = source;
    this.#send = send;
  }

  /** The failure that ended the session, if any. */
  get failure(): ServerFailure | undefined {
    return this.#failure;
  }

  /** How many requests wait for an answer. */
  get size(): number {
    return this.#pending.size;
  }

  /** Methods of the requests still waiting (for messages). */
  get waiting(): string[] {
    return [...this.#pending.values()].map((p) => p.method);
  }

  /** Ends the session: every waiting request (and every later one) fails with `failure`. */
  fail(failure: ServerFailure): void {
    if (this.#failure) return;
    this.#failure = failure;
    for (const p of this.#pending.values()) p.reject(failure);
    this.#pending.clear();
  }

  /** Fails the requests still waiting (at close), without ending later use. */
  rejectAll(failure: ServerFailure): void {
    for (const p of this.#pending.values()) p.reject(failure);
    this.#pending.clear();
  }

  /**
   * Handles one message from the server: an answer settles its request (an unknown id ends the
   * session as malformed), a server → client request is answered (`ping` with `{}`, anything
   * else with "method not found"), notifications are ignored.
   */
  dispatch(m: IncomingMessage): void {
    if (m.type === "notification") return; // logging, list_changed …: not needed
    if (m.type === "request") {
      this.#send(answerServerRequest(m.id, m.method)).catch(() => {});
      return;
    }
    const pending = typeof m.id === "number" ? this.#pending.get(m.id) : undefined;
    if (!pending && typeof m.id === "number" && this.#abandoned.delete(m.id)) return;
    if (!pending) {
      this.fail(
        new ServerFailure(
          "malformed",
          `${this.#source}: response to unknown request id ${JSON.stringify(m.id)}`,
        ),
      );
      return;
    }
    this.#pending.delete(m.id as number);
    if (m.type === "result") pending.resolve(m.result);
    else {
      const failure = new ServerFailure(
        "rpc_error",
        `${this.#source}: ${pending.method} failed: JSON-RPC error ${m.code}: ${m.message}`,
        "",
        m.code,
      );
      if (Object.hasOwn(m, "data")) failure.rpcData = m.data;
      pending.reject(failure);
    }
  }

  /**
   * Sends a request and waits for its answer. A timeout ends the session (the server is
   * unresponsive) unless the request is a probe; a failed send ends it with
   * `sendFailure(error)`.
   */
  request(
    method: string,
    params: JsonObject | undefined,
    timeoutMs: number,
    sendFailure: (e: Error) => ServerFailure,
    options: RequestOptions = {},
  ): Promise<JsonObject> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const { signal } = options;
      const giveUp = (failure: unknown) => {
        this.#pending.delete(id);
        this.#abandoned.add(id);
        cleanup();
        reject(failure);
      };
      const onAbort = () => giveUp(signal?.reason);
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const timer = setTimeout(() => {
        const failure = new ServerFailure(
          "timeout",
          `${this.#source}: no answer to ${method} within ${timeoutMs / 1000} s`,
        );
        if (options.probe) return giveUp(failure);
        this.#pending.delete(id);
        this.fail(failure);
        reject(failure);
      }, timeoutMs);
      if (signal?.aborted) return giveUp(signal.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        method,
        resolve: (r) => {
          cleanup();
          resolve(r);
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
      });
      this.#send(encodeRequest(id, method, params)).catch((e) => {
        this.fail(e instanceof ServerFailure ? e : sendFailure(e as Error));
      });
    });
  }
}
