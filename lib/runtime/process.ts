/**
 * Child processes and process signals for every runtime: `Deno.Command` on Deno (as before),
 * `node:child_process` on Node and Bun, behind one small shape ({@linkcode Child}) that the
 * stdio transport and the stdio guard use. Both start the child in its own process group
 * when asked (`detached`), so a group signal reaches grandchildren (`npx` runs the real server
 * as one).
 *
 * @module
 */
import * as childProcess from "node:child_process";
import * as fs from "node:fs";
import { constants as osConstants } from "node:os";
import process from "node:process";
import { Readable, Writable } from "node:stream";
import { isDeno } from "./fs.ts";

/** The signals the library sends or listens to (SIGBREAK: Ctrl-Break, Windows only). */
export type Signal = "SIGINT" | "SIGTERM" | "SIGKILL" | "SIGHUP" | "SIGQUIT" | "SIGBREAK";

/** How a child ended, as `Deno.CommandStatus` reports it on every runtime. */
export interface ChildStatus {
  /** Exit code 0. */
  readonly success: boolean;
  /** The exit code; 128 + the signal number when a signal ended it. */
  readonly code: number;
  /** The signal that ended it, or `null`. */
  readonly signal: string | null;
}

/** A running child with piped stdin and stdout. */
export interface Child {
  /** The process id (also its process group id when started `detached`). */
  readonly pid: number;
  /** Its standard input. */
  readonly stdin: WritableStream<Uint8Array>;
  /** Its standard output. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Its standard error (only when spawned with `stderr: "piped"`). */
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles when it exits. */
  readonly status: Promise<ChildStatus>;
  /** Sends `signal` to the child alone. */
  kill(signal?: Signal): void;
}

/** What {@linkcode spawnChild} needs. */
export interface SpawnChildOptions {
  /** Arguments after the program. */
  readonly args: readonly string[];
  /** Added to the inherited environment. */
  readonly env?: Record<string, string>;
  /** Working directory. */
  readonly cwd?: string;
  /** `piped` to read stderr, `inherit` to pass it through. */
  readonly stderr: "piped" | "inherit";
  /** Start the child in a new process group. */
  readonly detached: boolean;
}

/** True on Windows (no process groups, no POSIX signals). */
export const isWindows: boolean = process.platform === "win32";

/** Why a program could not be started, for a message: `ENOENT`, `EACCES` or `undefined`. */
function spawnFailureCode(program: string, env?: Record<string, string>): string | undefined {
  const candidates = program.includes("/")
    ? [program]
    : (env?.PATH ?? process.env.PATH ?? "").split(":").filter((d) => d !== "").map((d) =>
      `${d}/${program}`
    );
  let found = false;
  for (const path of candidates) {
    try {
      if (!fs.statSync(path).isFile()) continue;
    } catch {
      continue;
    }
    found = true;
    try {
      fs.accessSync(path, fs.constants.X_OK);
      return undefined;
    } catch {
      // present, not executable: keep looking along PATH
    }
  }
  return found ? "EACCES" : "ENOENT";
}

/**
 * Spawns `program` with piped stdin and stdout. Throws an error whose `code` is `ENOENT`
 * (not found) or `EACCES` (not executable, or not permitted) when it cannot be started —
 * under Deno the `Deno.errors.NotFound`/`PermissionDenied` it throws, which carry the same
 * codes.
 *
 * @example
 * ```ts ignore
 * const child = spawnChild("cat", { args: [], stderr: "inherit", detached: true });
 * ```
 */
export function spawnChild(program: string, options: SpawnChildOptions): Child {
  if (isDeno) {
    return new Deno.Command(program, {
      args: [...options.args],
      env: options.env,
      cwd: options.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: options.stderr,
      detached: options.detached,
    }).spawn();
  }
  const child = childProcess.spawn(program, [...options.args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio: ["pipe", "pipe", options.stderr === "piped" ? "pipe" : "inherit"],
    detached: options.detached,
  });
  if (child.pid === undefined) {
    // Node reports a failed spawn asynchronously; say now why, as Deno does.
    child.on("error", () => {});
    const code = spawnFailureCode(program, options.env) ?? "EIO";
    // Not a SchemaPinError on purpose: the same OS error, with its `code`, as Deno.Command throws
    // (the one caller, lib/mcp/stdio.ts, reads the code on both runtimes into a ServerFailure).
    throw Object.assign(new Error(`cannot start ${program}: ${code}`), { code });
  }
  child.stdin!.on("error", () => {}); // EPIPE after the child exited: the stdout side reports
  const status = new Promise<ChildStatus>((resolve) => {
    child.once("exit", (code, signal) => {
      const number = signal ? (osConstants.signals as Record<string, number>)[signal] : 0;
      resolve({
        success: code === 0,
        code: code ?? 128 + (number ?? 0),
        signal: signal ?? null,
      });
    });
  });
  const stdin = Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>;
  const stdout = Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>;
  const stderr = child.stderr
    ? Readable.toWeb(child.stderr) as unknown as ReadableStream<Uint8Array>
    : undefined;
  return {
    pid: child.pid,
    stdin,
    stdout,
    get stderr(): ReadableStream<Uint8Array> {
      // Programming-error assertion: only a caller that asked not to pipe stderr reads it.
      if (stderr === undefined) throw new TypeError("stderr is not piped");
      return stderr;
    },
    status,
    kill(signal: Signal = "SIGTERM") {
      child.kill(signal);
    },
  };
}

/**
 * Sends `signal` to the process group `pgid` (a child started `detached`). Throws when there
 * is no such group.
 *
 * @example
 * ```ts ignore
 * killGroup(child.pid, "SIGTERM");
 * ```
 */
export function killGroup(pgid: number, signal: Signal): void {
  if (isDeno) Deno.kill(-pgid, signal);
  else process.kill(-pgid, signal);
}

/**
 * Calls `handler` when this process receives `signal`; returns the function that stops
 * listening.
 *
 * @example
 * ```ts ignore
 * const stop = onSignal("SIGINT", () => console.error("interrupted"));
 * stop();
 * ```
 */
export function onSignal(signal: Signal, handler: () => void): () => void {
  if (isDeno) {
    Deno.addSignalListener(signal, handler);
    return () => Deno.removeSignalListener(signal, handler);
  }
  process.on(signal, handler);
  return () => void process.off(signal, handler);
}

/**
 * Ends this process with `code`.
 *
 * @example
 * ```ts ignore
 * exitProcess(130);
 * ```
 */
export function exitProcess(code: number): never {
  if (isDeno) Deno.exit(code);
  process.exit(code);
}
