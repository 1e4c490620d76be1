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
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
} from "../mcp/session.ts";
import { spawnProcessGroup } from "../mcp/stdio.ts";
import type { GuardCore } from "./core.ts";
import { StdioRelay } from "./stdio_relay.ts";
import { checkArg } from "../arguments.ts";
import process from "node:process";
import { Readable } from "node:stream";
import { isDeno } from "../runtime/fs.ts";
import { isWindows, onSignal } from "../runtime/process.ts";

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

/** This process's stdin as a stream. */
function stdinReadable(): ReadableStream<Uint8Array> {
  return isDeno
    ? Deno.stdin.readable
    : Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>;
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
  const source = `server ${options.serverName}`;
  const child = spawnProcessGroup({
    command: options.command,
    env: options.env,
    cwd: options.cwd,
    source,
    stderr: "inherit",
  });
  const relay = new StdioRelay({
    child,
    core: options.core,
    source,
    startupMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
    requestMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    maxPages: options.maxPages ?? DEFAULT_MAX_PAGES,
    graceMs: options.graceMs ?? 2000,
    output: options.output ?? writeAllStdout,
    diagnostic: options.diagnostic ?? writeStderrLine,
  });
  const clientReader = (options.input ?? stdinReadable()).getReader();
  const clientLoop = relay.readClient(clientReader);
  const serverLoop = relay.readServer();
  const signals: (() => void)[] = [];
  if (options.handleSignals !== false && !isWindows) {
    for (const sig of ["SIGINT", "SIGTERM"] as const) {
      signals.push(onSignal(sig, () => relay.signal(sig)));
    }
  }
  await serverLoop;
  const end = await relay.end();
  for (const stopListening of signals) stopListening();
  // Flush what is owed to the client (bounded: a client that stopped reading is gone).
  await relay.drain();
  await clientReader.cancel().catch(() => {});
  await clientLoop.catch(() => {});
  return end.code;
}
