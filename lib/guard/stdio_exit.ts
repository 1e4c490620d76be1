/**
 * How a stdio guard run ends, decided from what happened (pure): the guard's exit code, the
 * sentence that names the server's status, and the one summary of the requests the server
 * left unanswered.
 *
 * Exit codes of `schemapin guard -- CMD…`:
 *
 * | what happened                                                   | exit |
 * |-----------------------------------------------------------------|------|
 * | the guard itself received SIGINT / SIGTERM                      | 130 / 143 |
 * | the server failed: garbage on stdout, no answer in time, could not start | 1 |
 * | the server was killed by a signal the guard did not send (SIGKILL, SIGSEGV, the OOM killer …) | 1 |
 * | the server exited with a code ≥ 128 (a shell or `npx` reporting a child killed by a signal) | 1 |
 * | the client left and the server had to be stopped with SIGTERM/SIGKILL | 0 |
 * | the server exited on its own with code 0–127                    | that code |
 *
 * Why: codes from 128 up are how every shell reports "killed by signal N" (128 + N). If the
 * guard passed a killed server's status through, 143 would mean both "someone stopped the
 * guard with SIGTERM" and "the server died of SIGTERM", and a supervisor could not tell a
 * requested stop from a crash. So 128 and above belong to the guard's own signals, and a
 * server that died of (or reported) a signal is what it is — a failed server, exit 1, like
 * the other server failures — with its real status on stderr and in the audit log.
 *
 * @module
 */
import type { JsonValue } from "../json/types.ts";

/** What the guard knows when the server is gone. */
export interface StdioRunFacts {
  /** Names the server in sentences (`server acme`). */
  readonly source: string;
  /** The signal the guard itself received (it then stopped the server). */
  readonly guardSignal?: "SIGINT" | "SIGTERM";
  /** Why the guard judged the server failed (garbage, timeout), if it did. */
  readonly failure?: string;
  /** The server's final status. */
  readonly status: { readonly code: number; readonly signal: string | null };
  /** The guard sent the server SIGTERM/SIGKILL itself because it did not exit in time. */
  readonly stoppedByGuard: boolean;
  /** The client closed the guard's stdin (or stopped reading) before the server ended. */
  readonly clientLeft: boolean;
}

/** The guard's exit code and how to report it. */
export interface StdioGuardExit {
  /** The process exit code. */
  readonly code: number;
  /** The server's status in words: `exited with code 3`, `was killed by SIGKILL`. */
  readonly serverStatus: string;
  /**
   * A sentence for stderr when the end is not an ordinary exit of the server (a signal, a
   * forced stop); undefined otherwise, and for a failure (the guard reported it when it
   * happened).
   */
  readonly note?: string;
}

/**
 * Decides the exit code (see the module documentation for the table and why).
 *
 * @example
 * ```ts
 * import { stdioGuardExit } from "./stdio_exit.ts";
 * const run = { source: "server acme", stoppedByGuard: false, clientLeft: false };
 * stdioGuardExit({ ...run, status: { code: 137, signal: "SIGKILL" } }).code; // 1
 * stdioGuardExit({ ...run, guardSignal: "SIGTERM", status: { code: 143, signal: "SIGTERM" } }).code; // 143
 * stdioGuardExit({ ...run, status: { code: 3, signal: null } }).code; // 3
 * ```
 */
export function stdioGuardExit(facts: StdioRunFacts): StdioGuardExit {
  const { status, source } = facts;
  const serverStatus = status.signal
    ? `was killed by ${status.signal}`
    : `exited with code ${status.code}`;
  if (facts.guardSignal) {
    const code = facts.guardSignal === "SIGINT" ? 130 : 143;
    return {
      code,
      serverStatus,
      note: `stopped by ${facts.guardSignal} (exit ${code}); ${source} ${serverStatus}`,
    };
  }
  if (facts.failure !== undefined) {
    return { code: 1, serverStatus };
  }
  if (facts.stoppedByGuard) {
    const stopped = `did not exit after its stdin closed and was stopped by the guard ` +
      `(it ${serverStatus})`;
    // The MCP stdio shutdown (close stdin, then SIGTERM, then SIGKILL) after the client left
    // is an ordinary end; a server that closed its stdout but kept running is not.
    return facts.clientLeft
      ? { code: 0, serverStatus, note: `the client left; ${source} ${stopped}` }
      : { code: 1, serverStatus, note: `${source} closed its stdout but ${stopped} (exit 1)` };
  }
  if (status.signal) {
    return {
      code: 1,
      serverStatus,
      note: `${source} ${serverStatus} (exit 1: server failed; 130/143 would mean the guard ` +
        `itself was stopped)`,
    };
  }
  if (status.code >= 128) {
    return {
      code: 1,
      serverStatus,
      note: `${source} ${serverStatus} (128 + ${status.code - 128}: a shell's way of ` +
        `reporting a process killed by signal ${status.code - 128}; exit 1: server failed)`,
    };
  }
  return { code: status.code, serverStatus };
}

const CLIP = 100;

function clip(text: string): string {
  return text.length <= CLIP ? text : text.slice(0, CLIP) + "…";
}

/**
 * Names one unanswered request for its own error message: its method and id, each cut to 100
 * characters (both come from the client), so every error stays small whatever else was open.
 *
 * @example
 * ```ts
 * import { describeRequest } from "./stdio_exit.ts";
 * describeRequest("tools/call", 7); // "tools/call, id 7"
 * ```
 */
export function describeRequest(method: string, id: JsonValue): string {
  return `${clip(method)}, id ${clip(JSON.stringify(id))}`;
}

/** At most this many methods are named in a summary; the rest are counted. */
export const SUMMARY_METHODS = 10;

/**
 * The one summary of the unanswered requests (for the log, once per run): how many, and how
 * many of each method — the 10 most frequent named, the others counted — so its size does not
 * grow with the number of requests.
 *
 * @example
 * ```ts
 * import { summarizeOpenRequests } from "./stdio_exit.ts";
 * summarizeOpenRequests(["ping", "tools/call", "ping"]);
 * // "3 requests unanswered: ping ×2, tools/call ×1"
 * ```
 */
export function summarizeOpenRequests(methods: Iterable<string>): string {
  const counts = new Map<string, number>();
  let total = 0;
  for (const m of methods) {
    counts.set(m, (counts.get(m) ?? 0) + 1);
    total++;
  }
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const named = sorted.slice(0, SUMMARY_METHODS).map(([m, n]) => `${clip(m)} ×${n}`);
  const rest = sorted.slice(SUMMARY_METHODS);
  if (rest.length > 0) {
    const n = rest.reduce((sum, [, c]) => sum + c, 0);
    named.push(`${rest.length} other methods ×${n}`);
  }
  return `${total} request${total === 1 ? "" : "s"} unanswered: ${named.join(", ")}`;
}
