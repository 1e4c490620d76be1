/**
 * The stdio transport: spawn the server command, newline-delimited JSON-RPC 2.0 on its
 * stdin/stdout, stderr captured (never parsed as protocol), and a clean shutdown — close
 * stdin, wait, then SIGTERM and SIGKILL to the server's whole process group (`npx` runs the
 * real server as a grandchild). Runs on Deno (`Deno.Command`), Node and Bun
 * (`node:child_process`) through lib/runtime/process.ts.
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject } from "../json/types.ts";
import { ServerFailure } from "./errors.ts";
import { encodeNotification, type IncomingMessage, messagesOf } from "./jsonrpc.ts";
import { PendingRequests, type RequestOptions } from "./pending.ts";
import type { McpTransport } from "./session.ts";
import { checkArg } from "../arguments.ts";
import { errorCode } from "../runtime/fs.ts";
import {
  type Child,
  type ChildStatus,
  exitProcess,
  isWindows,
  killGroup,
  onSignal,
  type Signal,
  spawnChild,
} from "../runtime/process.ts";

/** Largest single stdout message accepted. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const STDERR_TAIL_BYTES = 16 * 1024;

/** How to start a stdio server. */
export interface StdioOptions {
  /** argv: the program and its arguments. */
  readonly command: readonly string[];
  /** Extra environment (added to the inherited environment); values already expanded. */
  readonly env?: Record<string, string>;
  /** Working directory. */
  readonly cwd?: string;
  /** Milliseconds to wait for a clean exit after stdin is closed, before signals. */
  readonly graceMs?: number;
  /** Names the server in messages. */
  readonly source?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Spawns a stdio MCP server. Fails with a {@linkcode ServerFailure} `spawn` when the program
 * cannot be started (not found, not executable, not permitted).
 *
 * @example
 * ```ts
 * import { listTools } from "./session.ts";
 * import { spawnStdio } from "./stdio.ts";
 * const transport = spawnStdio({
 *   command: ["npx", "-y", "@modelcontextprotocol/server-everything"],
 * });
 * try {
 *   console.log((await listTools(transport)).tools.length);
 * } finally {
 *   await transport.close();
 * }
 * ```
 */
export function spawnStdio(options: StdioOptions): StdioTransport {
  checkArg("spawnStdio", "options", options, "object");
  checkArg("spawnStdio", "options.command", options.command, "array");
  return new StdioTransport(options);
}

/**
 * A running stdio server. Create with {@linkcode spawnStdio}.
 *
 * @example
 * ```ts
 * import { listTools } from "./session.ts";
 * import { spawnStdio, type StdioTransport } from "./stdio.ts";
 * const transport: StdioTransport = spawnStdio({ command: ["node", "server.js"] });
 * try {
 *   console.log((await listTools(transport)).tools.length);
 * } finally {
 *   await transport.close();
 * }
 * ```
 */
export class StdioTransport implements McpTransport {
  readonly #child: Child;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #table: PendingRequests;
  readonly #source: string;
  readonly #graceMs: number;
  #stderrTail = new Uint8Array(0);
  #closed = false;
  #status: Promise<ChildStatus>;
  #readers: Promise<void>[];
  #stopListening: (() => void) | undefined;

  /** Spawns the process; see {@linkcode spawnStdio}. */
  constructor(options: StdioOptions) {
    checkArg("StdioTransport", "options", options, "object");
    checkArg("StdioTransport", "options.command", options.command, "array");
    this.#source = options.source ?? options.command[0];
    this.#graceMs = options.graceMs ?? 2000;
    this.#child = spawnProcessGroup({ ...options, source: this.#source, stderr: "piped" });
    this.#writer = this.#child.stdin.getWriter();
    this.#table = new PendingRequests(this.#source, (line) => this.#write(line));
    this.#status = this.#child.status;
    this.#readers = [this.#readStdout(), this.#readStderr()];
    if (!isWindows) {
      // Ctrl-C while a server runs: take its process group down with us.
      this.#stopListening = onSignal("SIGINT", () => {
        this.#signalGroup("SIGKILL");
        exitProcess(130);
      });
    }
  }

  /** The tail of the server's stderr so far (decoded leniently, for messages only). */
  get stderr(): string {
    return decoder.decode(this.#stderrTail);
  }

  #fail(failure: ServerFailure): void {
    if (this.#table.failure) return;
    failure.stderr = failure.stderr || this.stderr;
    this.#table.fail(failure);
  }

  get #failure(): ServerFailure | undefined {
    return this.#table.failure;
  }

  async #readStdout(): Promise<void> {
    const reader = this.#child.stdout.getReader();
    const lines = new LineSplitter();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        if (this.#failure) continue; // drain, so the child never blocks on a full pipe
        for (const line of lines.push(value)) {
          this.#line(line);
          if (this.#failure) break;
        }
        if (lines.buffered > MAX_MESSAGE_BYTES) {
          this.#fail(
            new ServerFailure(
              "malformed",
              `${this.#source}: a stdout message exceeds ${MAX_MESSAGE_BYTES} bytes`,
            ),
          );
        }
      }
    } catch (e) {
      if (!this.#closed) {
        this.#fail(new ServerFailure("exited", `${this.#source}: stdout failed: ${e}`));
      }
    } finally {
      reader.releaseLock();
    }
    if (!this.#failure && !this.#closed) {
      const buffer = lines.flush();
      if (buffer.some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d)) {
        // A final message without its newline is still a message.
        this.#line(buffer);
      }
      if (this.#table.size > 0 || !this.#closed) {
        const status = await Promise.race([
          this.#status,
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000)),
        ]);
        const how = status === undefined
          ? "closed its stdout"
          : status.signal
          ? `was killed by ${status.signal}`
          : `exited with code ${status.code}`;
        const waiting = this.#table.waiting;
        this.#fail(
          new ServerFailure(
            "exited",
            `${this.#source}: server ${how}` +
              (waiting.length ? ` before answering ${waiting.join(", ")}` : ""),
          ),
        );
      }
    }
  }

  async #readStderr(): Promise<void> {
    const reader = this.#child.stderr.getReader();
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        const joined = new Uint8Array(this.#stderrTail.length + value.length);
        joined.set(this.#stderrTail);
        joined.set(value, this.#stderrTail.length);
        this.#stderrTail = joined.length > STDERR_TAIL_BYTES
          ? joined.slice(joined.length - STDERR_TAIL_BYTES)
          : joined;
      }
    } catch {
      // stderr is diagnostics only
    } finally {
      reader.releaseLock();
    }
  }

  #line(bytes: Uint8Array): void {
    // Blank lines carry no message; anything else must be one strict JSON-RPC message.
    if (bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) return;
    let messages: IncomingMessage[];
    try {
      messages = messagesOf(parseJson(bytes, `${this.#source} stdout`));
    } catch (e) {
      this.#fail(
        e instanceof ServerFailure
          ? new ServerFailure(e.kind, `${this.#source}: ${e.message}`)
          : new ServerFailure(
            "malformed",
            `${this.#source}: server wrote something that is not strict JSON to stdout: ` +
              (e as Error).message,
          ),
      );
      return;
    }
    for (const m of messages) this.#table.dispatch(m);
  }

  async #write(line: string): Promise<void> {
    await this.#writer.write(encoder.encode(line + "\n"));
  }

  /** Sends a request; see {@linkcode McpTransport.request}. */
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
      (e) =>
        new ServerFailure("exited", `${this.#source}: cannot write to the server: ${e.message}`),
      options,
    );
  }

  /** Sends a notification. */
  async notify(method: string, params?: JsonObject): Promise<void> {
    if (this.#failure) throw this.#failure;
    try {
      await this.#write(encodeNotification(method, params));
    } catch (e) {
      this.#fail(
        new ServerFailure("exited", `${this.#source}: cannot write to the server: ${e}`),
      );
      throw this.#failure;
    }
  }

  #signalGroup(signal: Signal): void {
    signalProcessGroup(this.#child, signal);
  }

  /**
   * Terminates the server: close stdin and wait (a clean exit), then SIGTERM, then SIGKILL,
   * to its whole process group. Immediate signals when the session failed (e.g. timeout).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer.close().catch(() => {});
    await stopProcessGroup(this.#child, this.#status, this.#failure ? 0 : this.#graceMs);
    await Promise.allSettled(this.#readers);
    this.#stopListening?.();
    this.#table.rejectAll(new ServerFailure("exited", `${this.#source}: transport closed`));
  }
}

/** How {@linkcode spawnProcessGroup} starts a server. */
export interface SpawnOptions extends StdioOptions {
  /** `piped` to read the server's stderr, `inherit` to pass it straight through. */
  readonly stderr: "piped" | "inherit";
}

/**
 * Spawns a server with piped stdin and stdout, in its own process group (so shutdown reaches
 * grandchildren: `npx` runs the real server as one). Fails with a {@linkcode ServerFailure}
 * `spawn` when the program cannot be started (not found, not executable, not permitted).
 *
 * @example
 * ```ts ignore
 * const child = spawnProcessGroup({ command: ["my-server"], stderr: "inherit" });
 * ```
 */
export function spawnProcessGroup(options: SpawnOptions): Child {
  const [program, ...args] = options.command;
  const source = options.source ?? program;
  try {
    return spawnChild(program, {
      args,
      env: options.env,
      cwd: options.cwd,
      stderr: options.stderr,
      detached: !isWindows,
    });
  } catch (e) {
    const code = errorCode(e);
    const reason = code === "ENOENT"
      ? `command not found: ${program}`
      : code === "EACCES" || code === "EPERM"
      ? `permission denied running ${program}`
      : `cannot start ${program}: ${(e as Error).message}`;
    throw new ServerFailure("spawn", `${source}: ${reason}`);
  }
}

/**
 * Sends `signal` to a child's whole process group (the child alone on Windows); a group that
 * is already gone is not an error.
 *
 * @example
 * ```ts ignore
 * signalProcessGroup(child, "SIGTERM");
 * ```
 */
export function signalProcessGroup(child: Child, signal: Signal): void {
  try {
    if (isWindows) child.kill(signal);
    else killGroup(child.pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Stops a server whose stdin the caller has closed: wait `graceMs` for a clean exit, then
 * SIGTERM, 2 s later SIGKILL, to its whole process group; finally SIGKILL whatever it left
 * running in the group. `onSignal` hears of the SIGTERM/SIGKILL sent because the server did
 * not exit in time (not of the final sweep of the group).
 *
 * @example
 * ```ts ignore
 * await stopProcessGroup(child, child.status, 2000);
 * ```
 */
export async function stopProcessGroup(
  child: Child,
  status: Promise<ChildStatus>,
  graceMs: number,
  onSignal?: (signal: Signal) => void,
): Promise<ChildStatus> {
  const waitExit = async (ms: number): Promise<boolean> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      status.then(() => true),
      new Promise<boolean>((r) => timer = setTimeout(() => r(false), ms)),
    ]);
    clearTimeout(timer);
    return done;
  };
  if (!(await waitExit(graceMs))) {
    onSignal?.("SIGTERM");
    signalProcessGroup(child, "SIGTERM");
    if (!(await waitExit(2000))) {
      onSignal?.("SIGKILL");
      signalProcessGroup(child, "SIGKILL");
    }
  }
  const final = await status;
  signalProcessGroup(child, "SIGKILL");
  return final;
}

/**
 * Splits a byte stream into newline-delimited messages (the stdio transport's framing): each
 * LF ends one; the bytes before it — a CR included — are the message, never copied when they
 * lie within one chunk.
 *
 * @example
 * ```ts
 * import { LineSplitter } from "./stdio.ts";
 * const s = new LineSplitter();
 * s.push(new TextEncoder().encode('{"a":1}\n{"b"')).length; // 1
 * s.push(new TextEncoder().encode(":2}\n")).length; // 1
 * ```
 */
export class LineSplitter {
  #parts: Uint8Array[] = [];
  #size = 0;

  /** Bytes held for a message whose LF has not arrived yet. */
  get buffered(): number {
    return this.#size;
  }

  /** Adds a chunk; returns the messages it completes, without their LF. */
  push(chunk: Uint8Array): Uint8Array[] {
    const lines: Uint8Array[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.#size === 0) {
        lines.push(piece);
      } else {
        this.#parts.push(piece);
        lines.push(this.flush());
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#parts.push(rest);
      this.#size += rest.length;
    }
    return lines;
  }

  /** Returns the held bytes (a final message without its LF) and empties the buffer. */
  flush(): Uint8Array {
    const size = this.#parts.reduce((n, p) => n + p.length, 0);
    const out = this.#parts.length === 1 ? this.#parts[0] : new Uint8Array(size);
    if (this.#parts.length !== 1) {
      let at = 0;
      for (const p of this.#parts) {
        out.set(p, at);
        at += p.length;
      }
    }
    this.#parts = [];
    this.#size = 0;
    return out;
  }
}
