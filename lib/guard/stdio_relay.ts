/**
 * One run of the stdio guard between a client and a spawned server (./stdio.ts starts it and
 * says how it behaves): the two pipes written in order, the client's open requests and the
 * guard's own `tools/list` requests with their timeouts, the lines of each side judged by
 * {@linkcode GuardCore}, and the end of the run — the open requests answered, the audit log
 * and stderr told, the exit code decided (./stdio_exit.ts).
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { ServerFailure, type ServerFailureKind } from "../mcp/errors.ts";
import { messagesOf } from "../mcp/jsonrpc.ts";
import {
  LineSplitter,
  MAX_MESSAGE_BYTES,
  signalProcessGroup,
  stopProcessGroup,
} from "../mcp/stdio.ts";
import type { Child, ChildStatus } from "../runtime/process.ts";
import {
  describeRequest,
  type StdioGuardExit,
  stdioGuardExit,
  summarizeOpenRequests,
} from "./stdio_exit.ts";
import { isBlank, line, Outbox } from "./stdio_lines.ts";
import {
  type ClientDecision,
  errorResponse,
  fetchOwnToolList,
  type FetchTools,
  GUARD_SERVER_FAILED,
  type GuardCore,
  type GuardSession,
  idKey,
  INVALID_REQUEST,
  PARSE_ERROR,
} from "./core.ts";

/** What a stdio relay needs: the spawned server, the decisions and the run's settings. */
export interface StdioRelayOptions {
  /** The server, spawned in its own process group with its stderr inherited. */
  readonly child: Child;
  /** The decisions. */
  readonly core: GuardCore;
  /** Names the server in messages (`server NAME`). */
  readonly source: string;
  /** Milliseconds for the server to answer `initialize`. */
  readonly startupMs: number;
  /** Milliseconds for each `tools/list` answer. */
  readonly requestMs: number;
  /** Most pages the guard follows when it lists tools itself. */
  readonly maxPages: number;
  /** Milliseconds a server gets to exit after its stdin closed. */
  readonly graceMs: number;
  /** Writes bytes to the client. */
  readonly output: (bytes: Uint8Array) => Promise<void>;
  /** Writes a human diagnostic line. */
  readonly diagnostic: (line: string) => void;
}

/** A request of the client's, forwarded and not answered yet. */
interface PendingRequest {
  readonly id: JsonValue;
  readonly method: string;
  timer?: ReturnType<typeof setTimeout>;
}

/** A request of the guard's own (its `tools/list`), not answered yet. */
interface GuardPending {
  resolve(result: JsonObject): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * One stdio guard run: `readClient` and `readServer` relay the two sides, `signal` stops the
 * server on a signal the guard received, `end` decides how the run ended once the server's
 * stdout closed, `drain` waits (at most 2 s) for what is owed to the client.
 *
 * @example
 * ```ts ignore
 * const relay = new StdioRelay({ child, core, source, startupMs, requestMs, maxPages, graceMs, output, diagnostic });
 * const clientLoop = relay.readClient(input.getReader());
 * await relay.readServer();
 * const end = await relay.end();
 * await relay.drain();
 * ```
 */
export class StdioRelay {
  readonly #o: StdioRelayOptions;
  readonly #core: GuardCore;
  readonly #child: Child;
  readonly #status: Promise<ChildStatus>;
  readonly #session: GuardSession;
  readonly #serverIn: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<string, PendingRequest>();
  readonly #guardPending = new Map<string, GuardPending>();
  readonly #guardPrefix = `schemapin-guard-${crypto.randomUUID().slice(0, 8)}-`;
  #nextGuardId = 1;
  #serverChain: Promise<void> = Promise.resolve();
  #clientChain: Promise<void> = Promise.resolve();
  #serverInClosed = false;
  #stopping: Promise<ChildStatus> | undefined;
  #failure: string | undefined;
  #signalled: "SIGINT" | "SIGTERM" | undefined;
  #clientGone = false; // the client stopped reading: nothing more is written to it
  #clientLeft = false; // the client closed its side (stdin EOF) or stopped reading
  #stoppedByGuard = false; // the guard had to signal the server to make it exit
  #clientWrites = 0; // writes to the client not finished yet
  readonly #serverOut = new Outbox(); // client lines for the server, flushed per chunk
  readonly #clientOut = new Outbox(); // server lines for the client, flushed per chunk

  /** Starts relaying for a spawned server: its session opened, its stdin taken. */
  constructor(options: StdioRelayOptions) {
    this.#o = options;
    this.#core = options.core;
    this.#child = options.child;
    this.#status = options.child.status;
    this.#session = options.core.newSession();
    this.#serverIn = options.child.stdin.getWriter();
  }

  // ── the pipes ───────────────────────────────────────────────────────────────────────────

  #toServer(bytes: Uint8Array): void {
    if (this.#serverInClosed) return;
    // The writer queues writes in order; starting this one now (not after the previous one
    // settled) saves a hop per message.
    this.#serverChain = this.#serverIn.write(bytes).catch(() => {
      // The server's stdin is gone: it exited; the stdout side reports that.
    });
  }

  #writeClient(bytes: Uint8Array): Promise<void> {
    try {
      return this.#o.output(bytes);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  #toClient(bytes: Uint8Array): void {
    if (this.#clientGone) return;
    // One write at a time, in order; when none is running, this one starts now.
    const write = this.#clientWrites === 0
      ? this.#writeClient(bytes)
      : this.#clientChain.then(() => this.#writeClient(bytes));
    this.#clientWrites++;
    this.#clientChain = write.then(() => {
      this.#clientWrites--;
    }, () => {
      this.#clientWrites--;
      this.#clientGone = true;
      this.#clientLeft = true;
      this.#stopServer(this.#o.graceMs);
    });
  }

  #flushServer(): void {
    const bytes = this.#serverOut.take();
    if (bytes) this.#toServer(bytes);
  }

  #flushClient(): void {
    const bytes = this.#clientOut.take();
    if (bytes) this.#toClient(bytes);
  }

  #closeServerIn(): void {
    if (this.#serverInClosed) return;
    this.#serverInClosed = true;
    this.#serverChain = this.#serverChain.then(() => this.#serverIn.close()).catch(() => {});
  }

  #stopServer(grace: number): Promise<ChildStatus> {
    this.#closeServerIn();
    this.#stopping ??= this.#serverChain.then(() =>
      stopProcessGroup(this.#child, this.#status, grace, () => {
        this.#stoppedByGuard = true;
      })
    );
    return this.#stopping;
  }

  // ── open requests ───────────────────────────────────────────────────────────────────────

  /**
   * Answers every open request with its own error — `message(that request)`, never a list of
   * the others (N errors listing N methods each would be N² bytes) — and returns the one
   * summary of them for the log, or undefined when none was open. The guard's own requests
   * are rejected with a {@linkcode ServerFailure} of `kind`.
   */
  #answerPending(
    message: (request: string) => string,
    kind: ServerFailureKind,
  ): string | undefined {
    const pending = this.#pending;
    this.#flushClient();
    const summary = pending.size > 0
      ? summarizeOpenRequests([...pending.values()].map((p) => p.method))
      : undefined;
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      const text = message(describeRequest(p.method, p.id));
      this.#toClient(line(errorResponse(p.id, GUARD_SERVER_FAILED, text)));
    }
    pending.clear();
    for (const g of this.#guardPending.values()) {
      clearTimeout(g.timer);
      g.reject(new ServerFailure(kind, message("the guard's own tools/list")));
    }
    this.#guardPending.clear();
    return summary;
  }

  /** The server failed (`kind`, `reason`): open requests answered, logged, server stopped. */
  #fail(reason: string, kind: ServerFailureKind): void {
    if (this.#failure !== undefined || this.#signalled) return;
    this.#failure = reason;
    const source = this.#o.source;
    const open = this.#pending.size;
    const summary = this.#answerPending(
      (r) => `schemapin guard: ${source} failed: ${reason} (unanswered: ${r})`,
      kind,
    );
    const message = summary ? `${reason}; ${summary}` : reason;
    this.#core.log.record({
      decision: "server_failed",
      ...(open > 0 ? { open_requests: open } : {}),
      message,
    });
    this.#o.diagnostic(`schemapin guard: ${source}: ${message}`);
    void this.#stopServer(0);
  }

  #track(id: JsonValue, method: string): void {
    const key = idKey(id);
    const old = this.#pending.get(key);
    if (old) clearTimeout(old.timer);
    const entry: PendingRequest = { id, method };
    const ms = method === "initialize"
      ? this.#o.startupMs
      : method === "tools/list"
      ? this.#o.requestMs
      : 0;
    if (ms > 0) {
      entry.timer = setTimeout(() => {
        if (this.#pending.get(key) !== entry) return;
        this.#fail(`no answer to ${method} within ${ms / 1000} s`, "timeout");
      }, ms);
    }
    this.#pending.set(key, entry);
  }

  #guardRequest(method: string, params: JsonObject, ms: number): Promise<JsonObject> {
    if (this.#failure !== undefined || this.#serverInClosed) {
      return Promise.reject(new ServerFailure("exited", `${this.#o.source} is not running`));
    }
    const id = this.#guardPrefix + this.#nextGuardId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#guardPending.delete(id);
        const message = `no answer to the guard's ${method} within ${ms / 1000} s`;
        reject(new ServerFailure("timeout", message));
        this.#fail(message, "timeout");
      }, ms);
      this.#guardPending.set(id, { resolve, reject, timer });
      this.#flushServer(); // what the client sent before goes first
      this.#toServer(line({ jsonrpc: "2.0", id, method, params }));
    });
  }

  readonly #fetchTools: FetchTools = (protocol) =>
    fetchOwnToolList(
      protocol,
      (params) => this.#guardRequest("tools/list", params, this.#o.requestMs),
      this.#o.maxPages,
      this.#o.source,
    );

  // ── client → server ─────────────────────────────────────────────────────────────────────
  // The handlers finish synchronously (no promise) unless a decision has to wait (the
  // guard's own check of the tool list; a batch).

  #forwardClient(d: ClientDecision, bytes: Uint8Array): void {
    if (d.forward) {
      if (d.request) this.#track(d.request.id, d.request.method);
      this.#serverOut.add(bytes);
    } else if (d.reply) {
      this.#toClient(line(d.reply));
    }
  }

  #handleClientLine(bytes: Uint8Array): Promise<void> | undefined {
    if (isBlank(bytes)) {
      this.#serverOut.add(bytes);
      return;
    }
    let value: JsonValue;
    try {
      value = parseJson(bytes, "client message");
    } catch (e) {
      this.#core.log.record({ decision: "client_malformed", message: (e as Error).message });
      this.#toClient(line(errorResponse(
        null,
        PARSE_ERROR,
        `schemapin guard: the client message is not strict JSON and was not forwarded: ` +
          (e as Error).message,
      )));
      return;
    }
    if (this.#failure !== undefined) {
      for (const m of Array.isArray(value) ? value : [value]) {
        if (isJsonObject(m) && typeof m.method === "string" && Object.hasOwn(m, "id")) {
          this.#toClient(
            line(errorResponse(m.id, GUARD_SERVER_FAILED, `schemapin guard: ${this.#failure}`)),
          );
        }
      }
      return;
    }
    if (!Array.isArray(value)) {
      const d = this.#core.fromClientNow(this.#session, value, this.#fetchTools);
      if (d !== undefined) {
        this.#forwardClient(d, bytes);
        return;
      }
      return this.#core.fromClient(this.#session, value, this.#fetchTools).then((d) =>
        this.#forwardClient(d, bytes)
      );
    }
    return this.#handleClientBatch(value, bytes);
  }

  async #handleClientBatch(value: JsonValue[], bytes: Uint8Array): Promise<void> {
    if (value.length === 0) {
      this.#toClient(line(errorResponse(null, INVALID_REQUEST, "schemapin guard: empty batch")));
      return;
    }
    const forwarded: JsonValue[] = [];
    const replies: JsonObject[] = [];
    for (const m of value) {
      const d = this.#core.fromClientNow(this.#session, m, this.#fetchTools) ??
        await this.#core.fromClient(this.#session, m, this.#fetchTools);
      if (d.forward) {
        forwarded.push(m);
        if (d.request) this.#track(d.request.id, d.request.method);
      } else if (d.reply) {
        replies.push(d.reply);
      }
    }
    if (forwarded.length === value.length) this.#serverOut.add(bytes);
    else if (forwarded.length > 0) this.#serverOut.addValue(forwarded);
    if (replies.length > 0) this.#toClient(line(replies));
  }

  // ── server → client ─────────────────────────────────────────────────────────────────────
  // Synchronous unless a page of a client's tools/list is to be checked.

  /** Takes a guard response or ends a tracked request; true when the item is the guard's. */
  #serverItem(message: JsonObject): boolean {
    const isResponse = typeof message.method !== "string";
    if (isResponse && typeof message.id === "string" && message.id.startsWith(this.#guardPrefix)) {
      const g = this.#guardPending.get(message.id);
      this.#guardPending.delete(message.id);
      if (!g) return true;
      clearTimeout(g.timer);
      if (Object.hasOwn(message, "result")) g.resolve(message.result as JsonObject);
      else {
        const err = message.error as JsonObject;
        g.reject(
          new ServerFailure(
            "rpc_error",
            `tools/list failed: JSON-RPC error ${err.code}: ${err.message}`,
            "",
            typeof err.code === "number" ? err.code : undefined,
          ),
        );
      }
      return true;
    }
    if (isResponse) {
      const key = idKey(message.id);
      const p = this.#pending.get(key);
      if (p) {
        clearTimeout(p.timer);
        this.#pending.delete(key);
      }
    }
    return false;
  }

  #handleServerLine(bytes: Uint8Array): Promise<void> | undefined {
    if (isBlank(bytes)) {
      this.#clientOut.add(bytes);
      return;
    }
    let value: JsonValue;
    try {
      value = parseJson(bytes, `${this.#o.source} stdout`);
      messagesOf(value); // JSON-RPC 2.0 shape, strictly
    } catch (e) {
      const message = e instanceof ServerFailure
        ? e.message
        : `the server wrote something that is not strict JSON to stdout: ${(e as Error).message}`;
      this.#fail(message, e instanceof ServerFailure ? e.kind : "malformed");
      return;
    }
    if (!Array.isArray(value)) {
      // One message (the common case).
      const message = value as JsonObject;
      if (this.#serverItem(message)) return;
      const d = this.#core.fromServerNow(this.#session, message);
      if (d === undefined) {
        return this.#core.fromServer(this.#session, message).then((d) => {
          if (d.kind === "replace") this.#clientOut.addValue(d.message);
          else this.#clientOut.add(bytes);
        });
      }
      if (d.kind === "replace") this.#clientOut.addValue(d.message);
      else this.#clientOut.add(bytes);
      return;
    }
    return this.#handleServerBatch(value, bytes);
  }

  async #handleServerBatch(items: JsonValue[], bytes: Uint8Array): Promise<void> {
    const out: JsonValue[] = [];
    let changed = false;
    for (const m of items) {
      const message = m as JsonObject;
      if (this.#serverItem(message)) {
        changed = true;
        continue;
      }
      const d = this.#core.fromServerNow(this.#session, message) ??
        await this.#core.fromServer(this.#session, message);
      if (d.kind === "replace") {
        out.push(d.message);
        changed = true;
      } else {
        out.push(message);
      }
    }
    if (!changed) this.#clientOut.add(bytes);
    else if (out.length > 0) this.#clientOut.addValue(out);
  }

  // ── the two loops ───────────────────────────────────────────────────────────────────────

  /**
   * Relays the client's lines until its stdin ends or fails; then the server is let finish
   * and stopped.
   */
  async readClient(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const lines = new LineSplitter();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        for (const l of lines.push(value)) {
          const pending = this.#handleClientLine(l);
          if (pending) await pending;
        }
        this.#flushServer();
        if (lines.buffered > MAX_MESSAGE_BYTES) {
          lines.flush();
          this.#toClient(line(errorResponse(
            null,
            PARSE_ERROR,
            `schemapin guard: a client message exceeds ${MAX_MESSAGE_BYTES} bytes`,
          )));
        }
      }
      const rest = lines.flush();
      if (!isBlank(rest)) await this.#handleClientLine(rest);
      this.#flushServer();
    } catch {
      // the client's stdin failed: the same as the client going away
    }
    // The client went away: let the server finish, then stop it.
    this.#clientLeft = true;
    if (this.#failure === undefined && !this.#signalled) void this.#stopServer(this.#o.graceMs);
  }

  /** Relays the server's stdout until it closes (after a failure, drains it unread). */
  async readServer(): Promise<void> {
    const reader = this.#child.stdout.getReader();
    const lines = new LineSplitter();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        if (this.#failure !== undefined) continue; // drain, so the server never blocks on a full pipe
        for (const l of lines.push(value)) {
          const pending = this.#handleServerLine(l);
          if (pending) await pending;
          if (this.#failure !== undefined) break;
        }
        this.#flushClient();
        if (lines.buffered > MAX_MESSAGE_BYTES) {
          this.#fail(`a stdout message exceeds ${MAX_MESSAGE_BYTES} bytes`, "malformed");
        }
      }
      if (this.#failure === undefined) {
        const rest = lines.flush();
        if (!isBlank(rest)) await this.#handleServerLine(rest);
        this.#flushClient();
      }
    } catch (e) {
      if (this.#failure === undefined) {
        this.#fail(`reading the server's stdout failed: ${e}`, "io");
      }
    } finally {
      reader.releaseLock();
    }
  }

  // ── the end ─────────────────────────────────────────────────────────────────────────────

  /**
   * The guard received `sig`: the server is stopped (SIGTERM to its group, then as after the
   * client left); a second signal kills it.
   */
  signal(sig: "SIGINT" | "SIGTERM"): void {
    if (this.#signalled) {
      signalProcessGroup(this.#child, "SIGKILL"); // a second signal: no more patience
      return;
    }
    this.#signalled = sig;
    this.#core.log.record({
      decision: "stopped",
      exit_code: sig === "SIGINT" ? 130 : 143,
      message: `stopped by ${sig}`,
    });
    this.#closeServerIn();
    signalProcessGroup(this.#child, "SIGTERM");
    void this.#stopServer(this.#o.graceMs);
  }

  /**
   * After the server's stdout closed: makes sure the server exited, decides the exit, and
   * (unless the server failed, which was reported when it happened) answers the open requests
   * and tells the audit log and, when the end is not ordinary, stderr.
   */
  async end(): Promise<StdioGuardExit> {
    const source = this.#o.source;
    // stdout closed: the server exited or is about to; make sure of it.
    const final = await this.#stopServer(
      this.#failure !== undefined ? 0 : Math.min(this.#o.graceMs, 1000),
    );
    const end = stdioGuardExit({
      source,
      guardSignal: this.#signalled,
      failure: this.#failure,
      status: final,
      stoppedByGuard: this.#stoppedByGuard,
      clientLeft: this.#clientLeft,
    });
    if (this.#failure === undefined) {
      const open = this.#pending.size;
      const summary = this.#answerPending(
        (r) => `schemapin guard: ${source} ${end.serverStatus} before answering ${r}`,
        "exited",
      );
      const said = [end.note ?? `${source} ${end.serverStatus}`, summary].filter(Boolean).join(
        "; ",
      );
      this.#core.log.record({
        decision: "server_exited",
        exit_code: final.code,
        ...(final.signal ? { signal: final.signal } : {}),
        ...(open > 0 ? { open_requests: open } : {}),
        message: said,
      });
      // stderr, for people: one line when the end is not an ordinary exit with nothing open.
      if (end.note || summary) this.#o.diagnostic(`schemapin guard: ${said}`);
    }
    return end;
  }

  /**
   * Stops the request timers and waits for what is owed to the client (bounded: a client that
   * stopped reading is gone).
   */
  async drain(): Promise<void> {
    for (const p of this.#pending.values()) clearTimeout(p.timer);
    let flushTimer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#clientChain,
      new Promise<void>((r) => flushTimer = setTimeout(r, 2000)),
    ]);
    clearTimeout(flushTimer);
  }
}
