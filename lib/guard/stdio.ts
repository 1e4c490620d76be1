/**
 * The stdio guard: spawns the real MCP server and relays newline-delimited JSON-RPC between
 * it and the client (this process's stdin/stdout), in order, message bytes unchanged — except
 * where {@linkcode GuardCore} replaces or refuses a message. The server's stderr is the
 * guard's stderr.
 *
 * - Every line is read with the strict parser. A client line that is not strict JSON is not
 *   forwarded (a lenient server could read it differently from the guard, e.g. a duplicated
 *   `"name"` in a `tools/call`); the client gets a parse error. A server line that is not
 *   strict JSON-RPC is a broken server: every open client request gets a JSON-RPC error, the
 *   server is stopped and the guard exits 1.
 * - `initialize` and `tools/list` must be answered within the start-up and request timeouts
 *   (the guard depends on them); otherwise the same: errors, stop, exit 1. Other requests
 *   (a long `tools/call`) are the client's to time out.
 * - When the server exits, each open request gets its own JSON-RPC error naming that request
 *   (its method and id, nothing else), and one summary of them all (how many, which methods)
 *   goes to stderr and the audit log — so the output grows with the number of open requests,
 *   never with its square. When the client goes away (stdin closed), the server's stdin is
 *   closed, and after a grace period its process group gets SIGTERM, then SIGKILL.
 *   SIGINT/SIGTERM stop the server the same way.
 * - The exit code: 130/143 when the guard itself got SIGINT/SIGTERM; 1 when the server failed,
 *   was killed by a signal or exited with a code ≥ 128; otherwise the server's own code (the
 *   table and the reason are in ./stdio_exit.ts).
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { ServerFailure } from "../mcp/errors.ts";
import { messagesOf } from "../mcp/jsonrpc.ts";
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from "../mcp/session.ts";
import {
  LineSplitter,
  MAX_MESSAGE_BYTES,
  signalProcessGroup,
  spawnProcessGroup,
  stopProcessGroup,
} from "../mcp/stdio.ts";
import { describeRequest, stdioGuardExit, summarizeOpenRequests } from "./stdio_exit.ts";
import {
  type ClientDecision,
  errorResponse,
  fetchOwnToolList,
  type FetchTools,
  GUARD_SERVER_FAILED,
  type GuardCore,
  idKey,
  INVALID_REQUEST,
  PARSE_ERROR,
} from "./core.ts";
import { checkArg } from "../arguments.ts";
import process from "node:process";
import { Readable } from "node:stream";
import { isDeno } from "../runtime/fs.ts";
import { type ChildStatus, isWindows, onSignal } from "../runtime/process.ts";

/** How to run a stdio guard. */
export interface StdioGuardOptions {
  /** The server's argv. */
  readonly command: readonly string[];
  /** Extra environment for the server. */
  readonly env?: Record<string, string>;
  /** The server's working directory. */
  readonly cwd?: string;
  /** The decisions. */
  readonly core: GuardCore;
  /** Names the server in messages. */
  readonly serverName: string;
  /** Milliseconds for the server to answer `initialize` (default 90 s). */
  readonly startupTimeoutMs?: number;
  /** Milliseconds for each `tools/list` answer (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Most pages the guard follows when it lists tools itself (default 100). */
  readonly maxPages?: number;
  /** Milliseconds a server gets to exit after its stdin closed (default 2 s). */
  readonly graceMs?: number;
  /** Bytes from the client (default: this process's stdin). */
  readonly input?: ReadableStream<Uint8Array>;
  /** Writes bytes to the client (default: this process's stdout). */
  readonly output?: (bytes: Uint8Array) => Promise<void>;
  /** Writes a human diagnostic line (default: this process's stderr). */
  readonly diagnostic?: (line: string) => void;
  /** Stop on SIGINT/SIGTERM (default true). */
  readonly handleSignals?: boolean;
}

const encoder = new TextEncoder();
const NL = 0x0a;

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

function line(value: JsonValue): Uint8Array {
  return encoder.encode(JSON.stringify(value) + "\n");
}

/**
 * Messages waiting to be written in one go: the lines of one chunk, each followed by LF, in
 * a single buffer (one write instead of one per message).
 */
class Outbox {
  #lines: Uint8Array[] = [];
  #size = 0;

  add(bytes: Uint8Array): void {
    this.#lines.push(bytes);
    this.#size += bytes.length + 1;
  }

  addValue(value: JsonValue): void {
    this.add(encoder.encode(JSON.stringify(value)));
  }

  take(): Uint8Array | undefined {
    if (this.#lines.length === 0) return undefined;
    const out = new Uint8Array(this.#size);
    let at = 0;
    for (const l of this.#lines) {
      out.set(l, at);
      at += l.length;
      out[at++] = NL;
    }
    this.#lines = [];
    this.#size = 0;
    return out;
  }
}

async function writeAllStdout(bytes: Uint8Array): Promise<void> {
  if (!isDeno) {
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(bytes, (e) => e ? reject(e) : resolve())
    );
    return;
  }
  let n = 0;
  while (n < bytes.length) n += await Deno.stdout.write(bytes.subarray(n));
}

function writeStderrLine(text: string): void {
  if (isDeno) Deno.stderr.writeSync(encoder.encode(text + "\n"));
  else process.stderr.write(text + "\n");
}

interface PendingRequest {
  readonly id: JsonValue;
  readonly method: string;
  timer?: ReturnType<typeof setTimeout>;
}

interface GuardPending {
  resolve(result: JsonObject): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Runs the stdio guard until the server exits, the server fails, the client goes away or a
 * signal arrives; returns the exit code (see the module documentation).
 *
 * @throws {ServerFailure} `spawn` when the server cannot be started
 *
 * @example
 * ```ts
 * import {
 *   AuditLog,
 *   GuardCore,
 *   GuardPolicy,
 *   openAuditSink,
 *   runStdioGuard,
 * } from "jsr:@schemapin/schemapin/guard";
 * import { parseLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const core = new GuardCore({
 *   policy: new GuardPolicy({ lock: { serverName: "files", entry: lock.servers["files"] } }),
 *   mode: "enforce",
 *   log: new AuditLog("files", "enforce", openAuditSink()),
 *   serverName: "files",
 * });
 * // this process's stdin/stdout are the client's; the server is spawned
 * Deno.exit(await runStdioGuard({ command: ["node", "server.js"], core, serverName: "files" }));
 * ```
 */
export async function runStdioGuard(options: StdioGuardOptions): Promise<number> {
  checkArg("runStdioGuard", "options", options, "object");
  checkArg("runStdioGuard", "options.command", options.command, "array");
  checkArg("runStdioGuard", "options.core", options.core, "object");
  checkArg("runStdioGuard", "options.serverName", options.serverName, "string");
  const core = options.core;
  const log = core.log;
  const source = `server ${options.serverName}`;
  const startupMs = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const requestMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const graceMs = options.graceMs ?? 2000;
  const output = options.output ?? writeAllStdout;
  const diagnostic = options.diagnostic ??
    writeStderrLine;

  const child = spawnProcessGroup({
    command: options.command,
    env: options.env,
    cwd: options.cwd,
    source,
    stderr: "inherit",
  });
  const status = child.status;
  const session = core.newSession();
  const serverIn = child.stdin.getWriter();
  const pending = new Map<string, PendingRequest>();
  const guardPending = new Map<string, GuardPending>();
  const guardPrefix = `schemapin-guard-${crypto.randomUUID().slice(0, 8)}-`;
  let nextGuardId = 1;
  let serverChain: Promise<void> = Promise.resolve();
  let clientChain: Promise<void> = Promise.resolve();
  let serverInClosed = false;
  let stopping: Promise<ChildStatus> | undefined;
  let failure: string | undefined;
  let signalled: "SIGINT" | "SIGTERM" | undefined;
  let clientGone = false; // the client stopped reading: nothing more is written to it
  let clientLeft = false; // the client closed its side (stdin EOF) or stopped reading
  let stoppedByGuard = false; // the guard had to signal the server to make it exit

  const toServer = (bytes: Uint8Array): void => {
    if (serverInClosed) return;
    // The writer queues writes in order; starting this one now (not after the previous one
    // settled) saves a hop per message.
    serverChain = serverIn.write(bytes).catch(() => {
      // The server's stdin is gone: it exited; the stdout side reports that.
    });
  };
  let clientWrites = 0; // writes to the client not finished yet
  const writeClient = (bytes: Uint8Array): Promise<void> => {
    try {
      return output(bytes);
    } catch (e) {
      return Promise.reject(e);
    }
  };
  const toClient = (bytes: Uint8Array): void => {
    if (clientGone) return;
    // One write at a time, in order; when none is running, this one starts now.
    const write = clientWrites === 0
      ? writeClient(bytes)
      : clientChain.then(() => writeClient(bytes));
    clientWrites++;
    clientChain = write.then(() => {
      clientWrites--;
    }, () => {
      clientWrites--;
      clientGone = true;
      clientLeft = true;
      stopServer(graceMs);
    });
  };
  const serverOut = new Outbox(); // client lines for the server, flushed per chunk
  const clientOut = new Outbox(); // server lines for the client, flushed per chunk
  const flushServer = (): void => {
    const bytes = serverOut.take();
    if (bytes) toServer(bytes);
  };
  const flushClient = (): void => {
    const bytes = clientOut.take();
    if (bytes) toClient(bytes);
  };

  const closeServerIn = (): void => {
    if (serverInClosed) return;
    serverInClosed = true;
    serverChain = serverChain.then(() => serverIn.close()).catch(() => {});
  };
  const stopServer = (grace: number): Promise<ChildStatus> => {
    closeServerIn();
    stopping ??= serverChain.then(() =>
      stopProcessGroup(child, status, grace, () => stoppedByGuard = true)
    );
    return stopping;
  };

  /**
   * Answers every open request with its own error — `message(that request)`, never a list of
   * the others (N errors listing N methods each would be N² bytes) — and returns the one
   * summary of them for the log, or undefined when none was open.
   */
  const answerPending = (message: (request: string) => string): string | undefined => {
    flushClient();
    const summary = pending.size > 0
      ? summarizeOpenRequests([...pending.values()].map((p) => p.method))
      : undefined;
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      const text = message(describeRequest(p.method, p.id));
      toClient(line(errorResponse(p.id, GUARD_SERVER_FAILED, text)));
    }
    pending.clear();
    for (const g of guardPending.values()) {
      clearTimeout(g.timer);
      g.reject(new Error(message("the guard's own tools/list")));
    }
    guardPending.clear();
    return summary;
  };

  const fail = (reason: string): void => {
    if (failure !== undefined || signalled) return;
    failure = reason;
    const open = pending.size;
    const summary = answerPending((r) =>
      `schemapin guard: ${source} failed: ${reason} (unanswered: ${r})`
    );
    const message = summary ? `${reason}; ${summary}` : reason;
    log.record({
      decision: "server_failed",
      ...(open > 0 ? { open_requests: open } : {}),
      message,
    });
    diagnostic(`schemapin guard: ${source}: ${message}`);
    void stopServer(0);
  };

  const track = (id: JsonValue, method: string): void => {
    const key = idKey(id);
    const old = pending.get(key);
    if (old) clearTimeout(old.timer);
    const entry: PendingRequest = { id, method };
    const ms = method === "initialize" ? startupMs : method === "tools/list" ? requestMs : 0;
    if (ms > 0) {
      entry.timer = setTimeout(() => {
        if (pending.get(key) !== entry) return;
        fail(`no answer to ${method} within ${ms / 1000} s`);
      }, ms);
    }
    pending.set(key, entry);
  };

  const guardRequest = (method: string, params: JsonObject, ms: number): Promise<JsonObject> => {
    if (failure !== undefined || serverInClosed) {
      return Promise.reject(new Error(`${source} is not running`));
    }
    const id = guardPrefix + nextGuardId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        guardPending.delete(id);
        const message = `no answer to the guard's ${method} within ${ms / 1000} s`;
        reject(new Error(message));
        fail(message);
      }, ms);
      guardPending.set(id, { resolve, reject, timer });
      flushServer(); // what the client sent before goes first
      toServer(line({ jsonrpc: "2.0", id, method, params }));
    });
  };
  const fetchTools: FetchTools = (protocol) =>
    fetchOwnToolList(
      protocol,
      (params) => guardRequest("tools/list", params, requestMs),
      options.maxPages ?? DEFAULT_MAX_PAGES,
      source,
    );

  // Client → server. The handlers finish synchronously (no promise) unless a decision has
  // to wait (the guard's own check of the tool list; a batch).
  const forwardClient = (d: ClientDecision, bytes: Uint8Array): void => {
    if (d.forward) {
      if (d.request) track(d.request.id, d.request.method);
      serverOut.add(bytes);
    } else if (d.reply) {
      toClient(line(d.reply));
    }
  };
  const handleClientLine = (bytes: Uint8Array): Promise<void> | undefined => {
    if (isBlank(bytes)) {
      serverOut.add(bytes);
      return;
    }
    let value: JsonValue;
    try {
      value = parseJson(bytes, "client message");
    } catch (e) {
      log.record({ decision: "client_malformed", message: (e as Error).message });
      toClient(line(errorResponse(
        null,
        PARSE_ERROR,
        `schemapin guard: the client message is not strict JSON and was not forwarded: ` +
          (e as Error).message,
      )));
      return;
    }
    if (failure !== undefined) {
      for (const m of Array.isArray(value) ? value : [value]) {
        if (isJsonObject(m) && typeof m.method === "string" && Object.hasOwn(m, "id")) {
          toClient(line(errorResponse(m.id, GUARD_SERVER_FAILED, `schemapin guard: ${failure}`)));
        }
      }
      return;
    }
    if (!Array.isArray(value)) {
      const d = core.fromClientNow(session, value, fetchTools);
      if (d !== undefined) {
        forwardClient(d, bytes);
        return;
      }
      return core.fromClient(session, value, fetchTools).then((d) => forwardClient(d, bytes));
    }
    return handleClientBatch(value, bytes);
  };
  const handleClientBatch = async (value: JsonValue[], bytes: Uint8Array): Promise<void> => {
    if (value.length === 0) {
      toClient(line(errorResponse(null, INVALID_REQUEST, "schemapin guard: empty batch")));
      return;
    }
    const forwarded: JsonValue[] = [];
    const replies: JsonObject[] = [];
    for (const m of value) {
      const d = core.fromClientNow(session, m, fetchTools) ??
        await core.fromClient(session, m, fetchTools);
      if (d.forward) {
        forwarded.push(m);
        if (d.request) track(d.request.id, d.request.method);
      } else if (d.reply) {
        replies.push(d.reply);
      }
    }
    if (forwarded.length === value.length) serverOut.add(bytes);
    else if (forwarded.length > 0) serverOut.addValue(forwarded);
    if (replies.length > 0) toClient(line(replies));
  };

  // Server → client. Synchronous unless a page of a client's tools/list is to be checked.
  /** Takes a guard response or ends a tracked request; true when the item is the guard's. */
  const serverItem = (message: JsonObject): boolean => {
    const isResponse = typeof message.method !== "string";
    if (isResponse && typeof message.id === "string" && message.id.startsWith(guardPrefix)) {
      const g = guardPending.get(message.id);
      guardPending.delete(message.id);
      if (!g) return true;
      clearTimeout(g.timer);
      if (Object.hasOwn(message, "result")) g.resolve(message.result as JsonObject);
      else {
        const err = message.error as JsonObject;
        g.reject(new Error(`tools/list failed: JSON-RPC error ${err.code}: ${err.message}`));
      }
      return true;
    }
    if (isResponse) {
      const key = idKey(message.id);
      const p = pending.get(key);
      if (p) {
        clearTimeout(p.timer);
        pending.delete(key);
      }
    }
    return false;
  };
  const handleServerLine = (bytes: Uint8Array): Promise<void> | undefined => {
    if (isBlank(bytes)) {
      clientOut.add(bytes);
      return;
    }
    let value: JsonValue;
    try {
      value = parseJson(bytes, `${source} stdout`);
      messagesOf(value); // JSON-RPC 2.0 shape, strictly
    } catch (e) {
      const message = e instanceof ServerFailure
        ? e.message
        : `the server wrote something that is not strict JSON to stdout: ${(e as Error).message}`;
      fail(message);
      return;
    }
    if (!Array.isArray(value)) {
      // One message (the common case).
      const message = value as JsonObject;
      if (serverItem(message)) return;
      const d = core.fromServerNow(session, message);
      if (d === undefined) {
        return core.fromServer(session, message).then((d) => {
          if (d.kind === "replace") clientOut.addValue(d.message);
          else clientOut.add(bytes);
        });
      }
      if (d.kind === "replace") clientOut.addValue(d.message);
      else clientOut.add(bytes);
      return;
    }
    return handleServerBatch(value, bytes);
  };
  const handleServerBatch = async (items: JsonValue[], bytes: Uint8Array): Promise<void> => {
    const out: JsonValue[] = [];
    let changed = false;
    for (const m of items) {
      const message = m as JsonObject;
      if (serverItem(message)) {
        changed = true;
        continue;
      }
      const d = core.fromServerNow(session, message) ?? await core.fromServer(session, message);
      if (d.kind === "replace") {
        out.push(d.message);
        changed = true;
      } else {
        out.push(message);
      }
    }
    if (!changed) clientOut.add(bytes);
    else if (out.length > 0) clientOut.addValue(out);
  };

  const input = options.input ??
    (isDeno
      ? Deno.stdin.readable
      : Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>);
  const clientReader = input.getReader();
  const clientLoop = (async () => {
    const lines = new LineSplitter();
    try {
      while (true) {
        const { value, done } = await clientReader.read();
        if (done) break;
        for (const l of lines.push(value)) {
          const pending = handleClientLine(l);
          if (pending) await pending;
        }
        flushServer();
        if (lines.buffered > MAX_MESSAGE_BYTES) {
          lines.flush();
          toClient(line(errorResponse(
            null,
            PARSE_ERROR,
            `schemapin guard: a client message exceeds ${MAX_MESSAGE_BYTES} bytes`,
          )));
        }
      }
      const rest = lines.flush();
      if (!isBlank(rest)) await handleClientLine(rest);
      flushServer();
    } catch {
      // the client's stdin failed: the same as the client going away
    }
    // The client went away: let the server finish, then stop it.
    clientLeft = true;
    if (failure === undefined && !signalled) void stopServer(graceMs);
  })();

  const serverLoop = (async () => {
    const reader = child.stdout.getReader();
    const lines = new LineSplitter();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        if (failure !== undefined) continue; // drain, so the server never blocks on a full pipe
        for (const l of lines.push(value)) {
          const pending = handleServerLine(l);
          if (pending) await pending;
          if (failure !== undefined) break;
        }
        flushClient();
        if (lines.buffered > MAX_MESSAGE_BYTES) {
          fail(`a stdout message exceeds ${MAX_MESSAGE_BYTES} bytes`);
        }
      }
      if (failure === undefined) {
        const rest = lines.flush();
        if (!isBlank(rest)) await handleServerLine(rest);
        flushClient();
      }
    } catch (e) {
      if (failure === undefined) fail(`reading the server's stdout failed: ${e}`);
    } finally {
      reader.releaseLock();
    }
  })();

  const signals: (() => void)[] = [];
  if (options.handleSignals !== false && !isWindows) {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      const handler = () => {
        if (signalled) {
          signalProcessGroup(child, "SIGKILL"); // a second signal: no more patience
          return;
        }
        signalled = sig;
        log.record({
          decision: "stopped",
          exit_code: sig === "SIGINT" ? 130 : 143,
          message: `stopped by ${sig}`,
        });
        closeServerIn();
        signalProcessGroup(child, "SIGTERM");
        void stopServer(graceMs);
      };
      signals.push(onSignal(sig, handler));
    }
  }

  await serverLoop;
  // stdout closed: the server exited or is about to; make sure of it.
  const final = await stopServer(failure !== undefined ? 0 : Math.min(graceMs, 1000));
  const end = stdioGuardExit({
    source,
    guardSignal: signalled,
    failure,
    status: final,
    stoppedByGuard,
    clientLeft,
  });
  if (failure === undefined) {
    const open = pending.size;
    const summary = answerPending((r) =>
      `schemapin guard: ${source} ${end.serverStatus} before answering ${r}`
    );
    const said = [end.note ?? `${source} ${end.serverStatus}`, summary].filter(Boolean).join("; ");
    log.record({
      decision: "server_exited",
      exit_code: final.code,
      ...(final.signal ? { signal: final.signal } : {}),
      ...(open > 0 ? { open_requests: open } : {}),
      message: said,
    });
    // stderr, for people: one line when the end is not an ordinary exit with nothing open.
    if (end.note || summary) diagnostic(`schemapin guard: ${said}`);
  }
  for (const stopListening of signals) stopListening();
  for (const p of pending.values()) clearTimeout(p.timer);
  // Flush what is owed to the client (bounded: a client that stopped reading is gone).
  let flushTimer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    clientChain,
    new Promise<void>((r) => flushTimer = setTimeout(r, 2000)),
  ]);
  clearTimeout(flushTimer);
  await clientReader.cancel().catch(() => {});
  await clientLoop.catch(() => {});
  return end.code;
}
