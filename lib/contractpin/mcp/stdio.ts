/**
 * The stdio transport: spawn the server command, newline-delimited JSON-RPC 2.0 on its
 * stdin/stdout, stderr captured (never parsed as protocol), and a clean shutdown — close
 * stdin, wait, then SIGTERM and SIGKILL to the server's whole process group (`npx` runs the
 * real server as a grandchild).
 *
 * @module
 */
import { parseJson } from "../../json/parse.ts";
import type { JsonObject } from "../../json/types.ts";
import { ServerFailure } from "./errors.ts";
import {
  answerServerRequest,
  encodeNotification,
  encodeRequest,
  type IncomingMessage,
  messagesOf,
} from "./jsonrpc.ts";
import type { McpTransport } from "./session.ts";

/** Largest single stdout message accepted. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const STDERR_TAIL_BYTES = 16 * 1024;
const isWindows = Deno.build.os === "windows";

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

interface Pending {
  resolve(result: JsonObject): void;
  reject(e: ServerFailure): void;
  method: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Spawns a stdio MCP server. Fails with a {@linkcode ServerFailure} `spawn` when the program
 * cannot be started (not found, not executable, not permitted).
 *
 * @example
 * ```ts ignore
 * const t = spawnStdio({ command: ["npx", "-y", "@modelcontextprotocol/server-everything"] });
 * try { console.log(await listTools(t)); } finally { await t.close(); }
 * ```
 */
export function spawnStdio(options: StdioOptions): StdioTransport {
  return new StdioTransport(options);
}

/** A running stdio server. Create with {@linkcode spawnStdio}. */
export class StdioTransport implements McpTransport {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, Pending>();
  readonly #source: string;
  readonly #graceMs: number;
  #nextId = 1;
  #failure: ServerFailure | undefined;
  #stderrTail = new Uint8Array(0);
  #exited = false;
  #closed = false;
  #status: Promise<Deno.CommandStatus>;
  #readers: Promise<void>[];
  #onSignal: (() => void) | undefined;

  /** Spawns the process; see {@linkcode spawnStdio}. */
  constructor(options: StdioOptions) {
    const [program, ...args] = options.command;
    this.#source = options.source ?? program;
    this.#graceMs = options.graceMs ?? 2000;
    try {
      this.#child = new Deno.Command(program, {
        args,
        env: options.env,
        cwd: options.cwd,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        // Own process group, so shutdown reaches grandchildren (npx → node server).
        detached: !isWindows,
      }).spawn();
    } catch (e) {
      const reason = e instanceof Deno.errors.NotFound
        ? `command not found: ${program}`
        : e instanceof Deno.errors.PermissionDenied
        ? `permission denied running ${program}`
        : `cannot start ${program}: ${(e as Error).message}`;
      throw new ServerFailure("spawn", `${this.#source}: ${reason}`);
    }
    this.#writer = this.#child.stdin.getWriter();
    this.#status = this.#child.status.then((s) => {
      this.#exited = true;
      return s;
    });
    this.#readers = [this.#readStdout(), this.#readStderr()];
    if (!isWindows) {
      // Ctrl-C while a server runs: take its process group down with us.
      this.#onSignal = () => {
        this.#signalGroup("SIGKILL");
        Deno.exit(130);
      };
      Deno.addSignalListener("SIGINT", this.#onSignal);
    }
  }

  /** The tail of the server's stderr so far (decoded leniently, for messages only). */
  get stderr(): string {
    return decoder.decode(this.#stderrTail);
  }

  #fail(failure: ServerFailure): void {
    if (this.#failure) return;
    failure.stderr = failure.stderr || this.stderr;
    this.#failure = failure;
    for (const p of this.#pending.values()) p.reject(failure);
    this.#pending.clear();
  }

  async #readStdout(): Promise<void> {
    const reader = this.#child.stdout.getReader();
    let buffer = new Uint8Array(0);
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        if (this.#failure) continue; // drain, so the child never blocks on a full pipe
        const joined = new Uint8Array(buffer.length + value.length);
        joined.set(buffer);
        joined.set(value, buffer.length);
        let start = 0;
        for (let nl = joined.indexOf(0x0a, start); nl >= 0; nl = joined.indexOf(0x0a, start)) {
          this.#line(joined.subarray(start, nl));
          start = nl + 1;
          if (this.#failure) break;
        }
        buffer = joined.slice(start);
        if (buffer.length > MAX_MESSAGE_BYTES) {
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
      if (buffer.some((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d)) {
        // A final message without its newline is still a message.
        this.#line(buffer);
      }
      if (this.#pending.size > 0 || !this.#closed) {
        const status = await Promise.race([
          this.#status,
          new Promise<undefined>((r) => setTimeout(() => r(undefined), 1000)),
        ]);
        const how = status === undefined
          ? "closed its stdout"
          : status.signal
          ? `was killed by ${status.signal}`
          : `exited with code ${status.code}`;
        const waiting = [...this.#pending.values()].map((p) => p.method);
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
    for (const m of messages) this.#dispatch(m);
  }

  #dispatch(m: IncomingMessage): void {
    if (m.type === "notification") return; // logging, list_changed …: not needed
    if (m.type === "request") {
      this.#write(answerServerRequest(m.id, m.method)).catch(() => {});
      return;
    }
    const pending = typeof m.id === "number" ? this.#pending.get(m.id) : undefined;
    if (!pending) {
      this.#fail(
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

  async #write(line: string): Promise<void> {
    await this.#writer.write(encoder.encode(line + "\n"));
  }

  /** Sends a request; see {@linkcode McpTransport.request}. */
  request(method: string, params: JsonObject | undefined, timeoutMs: number): Promise<JsonObject> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<JsonObject>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        const failure = new ServerFailure(
          "timeout",
          `${this.#source}: no answer to ${method} within ${timeoutMs / 1000} s`,
        );
        this.#fail(failure);
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
      this.#write(encodeRequest(id, method, params)).catch((e) => {
        this.#fail(
          new ServerFailure("exited", `${this.#source}: cannot write to the server: ${e.message}`),
        );
      });
    });
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

  #signalGroup(signal: Deno.Signal): void {
    try {
      if (isWindows) this.#child.kill(signal);
      else Deno.kill(-this.#child.pid, signal);
    } catch {
      // already gone
    }
  }

  async #waitExit(ms: number): Promise<boolean> {
    if (this.#exited) return true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      this.#status.then(() => true),
      new Promise<boolean>((r) => timer = setTimeout(() => r(false), ms)),
    ]);
    clearTimeout(timer);
    return done;
  }

  /**
   * Terminates the server: close stdin and wait (a clean exit), then SIGTERM, then SIGKILL,
   * to its whole process group. Immediate signals when the session failed (e.g. timeout).
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#writer.close().catch(() => {});
    const grace = this.#failure ? 0 : this.#graceMs;
    if (!(await this.#waitExit(grace))) {
      this.#signalGroup("SIGTERM");
      if (!(await this.#waitExit(2000))) {
        this.#signalGroup("SIGKILL");
        await this.#status;
      }
    }
    // Anything the server left running in its group goes too.
    this.#signalGroup("SIGKILL");
    await Promise.allSettled(this.#readers);
    if (this.#onSignal) Deno.removeSignalListener("SIGINT", this.#onSignal);
    for (const p of this.#pending.values()) {
      p.reject(new ServerFailure("exited", `${this.#source}: transport closed`));
    }
    this.#pending.clear();
  }
}
