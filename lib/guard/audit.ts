/**
 * The guard's audit log: one JSON object per line (JSON Lines) with the time, the server,
 * the mode, the tool, the decision, the reason and the digests. It never holds tool arguments
 * or results — they may carry secrets — only names, digests, codes and the guard's own
 * sentences.
 *
 * @module
 */
import type { GuardMode } from "./policy.ts";
import { checkArg } from "../arguments.ts";
import * as fs from "node:fs";
import { isDeno } from "../runtime/fs.ts";

/** A synchronous writer on a file descriptor (Node and Bun). */
function nodeSink(fd: number): { writeSync(p: Uint8Array): number } {
  return { writeSync: (p) => fs.writeSync(fd, p) };
}

/** What happened. */
export type AuditDecision =
  | "started" // the guard is running (once)
  | "list_allowed" // a tools/list page or list passed unchanged
  | "list_refused" // enforce: a tools/list was answered with an error
  | "list_filtered" // filter: tools were withheld from a page
  | "list_audited" // audit: a list with problems passed
  | "list_invalid" // a tools/list result that is not a tool list
  | "list_unpinned" // a prompts/resources/templates list of a kind the lock does not pin passed
  | "list_changed" // the server announced notifications/tools/list_changed
  | "list_check_failed" // the guard's own tools/list (before a call) failed
  | "refused" // enforce: this tool made the list fail
  | "filtered" // filter: this tool was withheld
  | "audited" // audit: this tool has a problem and passed
  | "skill_unchecked" // a read of a dynamic pinned skill passed: nothing pinned to compare with
  | "warn" // hidden text in a tool's definition, reported without failing it (no strictText)
  | "call_refused" // a tools/call was refused
  | "client_malformed" // the client sent bytes that are not strict JSON-RPC
  | "client_capabilities" // a client announced capabilities: the lock entry checked for it
  | "server_failed" // the server wrote garbage or did not answer in time
  | "server_exited" // the server exited
  | "stopped"; // the guard stopped (signal, client gone)

/** One audit record (the fields besides time, server and mode). */
export interface AuditEntry {
  /** What happened. */
  decision: AuditDecision;
  /**
   * What `tool` names when it is not a tool: `prompt`, `resource`, `resource_template`,
   * `instructions` (docs/contractpin-surface.md).
   */
  kind?: string;
  /** The tool concerned, if one (or the prompt name, resource URI, URI template). */
  tool?: string;
  /** The list method a list record is about, when not `tools/list`. */
  list?: string;
  /**
   * Why: `drifted`, `added`, `removed`, `unsigned`, `signature_invalid`, `malformed`, … —
   * `hidden_text/KIND` for one hidden-text finding.
   */
  reason?: string;
  /** The live contract digest. */
  digest?: string;
  /** The digest pinned in the lock. */
  lock_digest?: string;
  /** Contract fields that changed. */
  fields?: readonly string[];
  /** The SchemaPin error code of a signature failure. */
  error_code?: string;
  /** Hidden text: the JSON Pointer of the string in the tool definition. */
  pointer?: string;
  /** The server digest of a complete list (contractpin §4.3). */
  server_digest?: string;
  /** How many tools a page or list held. */
  tool_count?: number;
  /** A sentence for people (never arguments or results). */
  message?: string;
  /** The process exit status: the server's for `server_exited`, the guard's for `stopped`. */
  exit_code?: number;
  /** The signal that killed the server (`server_exited`). */
  signal?: string;
  /** How many client requests the server left unanswered (each got error -32011). */
  open_requests?: number;
}

/**
 * Formats one record as a JSON line (fields in a fixed order, trailing LF).
 *
 * @example
 * ```ts
 * import { formatAuditEntry } from "./audit.ts";
 * formatAuditEntry(
 *   "demo",
 *   "enforce",
 *   { decision: "refused", tool: "x", reason: "added" },
 *   new Date(0),
 * );
 * // '{"time":"1970-01-01T00:00:00.000Z","server":"demo","mode":"enforce","decision":"refused","tool":"x","reason":"added"}\n'
 * ```
 */
export function formatAuditEntry(
  server: string,
  mode: GuardMode,
  entry: AuditEntry,
  now: Date = new Date(),
): string {
  checkArg("formatAuditEntry", "server", server, "string");
  checkArg("formatAuditEntry", "mode", mode, "string");
  checkArg("formatAuditEntry", "entry", entry, "object");
  checkArg("formatAuditEntry", "now", now, "date");
  const record: Record<string, unknown> = { time: now.toISOString(), server, mode };
  const order: (keyof AuditEntry)[] = [
    "decision",
    "list",
    "kind",
    "tool",
    "reason",
    "digest",
    "lock_digest",
    "fields",
    "error_code",
    "pointer",
    "server_digest",
    "tool_count",
    "exit_code",
    "signal",
    "open_requests",
    "message",
  ];
  for (const k of order) if (entry[k] !== undefined) record[k] = entry[k];
  return JSON.stringify(record) + "\n";
}

/**
 * Where the log goes: a function taking one formatted line. Writes are synchronous so lines
 * are never interleaved or lost on exit.
 */
export type AuditSink = (line: string) => void;

/**
 * The audit log of one guarded server.
 *
 * @example
 * ```ts
 * import { AuditLog, openAuditSink } from "jsr:@schemapin/schemapin/guard";
 * // One JSON line per decision of the guard that is given this log
 * const log = new AuditLog("files", "filter", openAuditSink("guard.jsonl"));
 * const lines: string[] = [];
 * const inMemory = new AuditLog("files", "audit", (line) => lines.push(line));
 * ```
 */
export class AuditLog {
  readonly #server: string;
  readonly #mode: GuardMode;
  readonly #sink: AuditSink;

  /** A log for `server` in `mode` writing to `sink`. */
  constructor(server: string, mode: GuardMode, sink: AuditSink) {
    checkArg("AuditLog", "server", server, "string");
    checkArg("AuditLog", "mode", mode, "string");
    checkArg("AuditLog", "sink", sink, "function");
    this.#server = server;
    this.#mode = mode;
    this.#sink = sink;
  }

  /**
   * Writes one record. A sink failure is swallowed: logging never stops the relay.
   *
   * @ignore Internal: the guard writes the records; not public API.
   */
  record(entry: AuditEntry): void {
    try {
      this.#sink(formatAuditEntry(this.#server, this.#mode, entry));
    } catch {
      // the log is best effort; the decision itself already happened
    }
  }
}

const encoder = new TextEncoder();

/**
 * A sink appending to a file (created when missing), or to stderr when `path` is undefined.
 *
 * @example
 * ```ts
 * import { AuditLog, openAuditSink } from "jsr:@schemapin/schemapin/guard";
 * const log = new AuditLog("files", "enforce", openAuditSink("./guard-audit.jsonl")); // or stderr
 * // the log of a GuardCore: new GuardCore({ policy, mode: "enforce", log, serverName: "files" })
 * ```
 */
export function openAuditSink(path?: string): AuditSink {
  checkArg("openAuditSink", "path", path, "string", true);
  const target: { writeSync(p: Uint8Array): number } = isDeno
    ? (path === undefined
      ? Deno.stderr
      : Deno.openSync(path, { append: true, create: true, mode: 0o600 }))
    : nodeSink(path === undefined ? 2 : fs.openSync(path, "a", 0o600));
  return (line) => {
    const bytes = encoder.encode(line);
    let n = 0;
    while (n < bytes.length) n += target.writeSync(bytes.subarray(n));
  };
}
