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
      pending.reject(
        new ServerFailure(
          "rpc_error",
          `${this.#source}: ${pending.method} failed: JSON-RPC error ${m.code}: ${m.message}`,
          "",
          m.code,
        ),
      );
    }
  }

  /**
   * Sends a request and waits for its answer. A timeout ends the session (the server is
   * unresponsive); a failed send ends it with `sendFailure(error)`.
   */
  request(
    method: string,
    params: JsonObject | undefined,
    timeoutMs: number,
    sendFailure: (e: Error) => ServerFailure,
  ): Promise<JsonObject> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        const failure = new ServerFailure(
          "timeout",
          `${this.#source}: no answer to ${method} within ${timeoutMs / 1000} s`,
        );
        this.fail(failure);
        reject(failure);
      }, timeoutMs);
      this.#pending.set(id, {
        method,
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.#send(encodeRequest(id, method, params)).catch((e) => {
        this.fail(e instanceof ServerFailure ? e : sendFailure(e as Error));
      });
    });
  }
}
