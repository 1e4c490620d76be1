/**
 * The audit records of the guard's decisions (`audit.ts` writes them): one per problem, one per
 * hidden-text finding (a warning once per finding), a summary per list, and the records of
 * refused calls, invalid answers and what the guard learnt of the client. The decisions are
 * made in `core.ts`; this module only says what is written about them.
 *
 * @module
 */
import type { AuditEntry, AuditLog } from "./audit.ts";
import { describeProblems, type GuardMode, type ToolVerdict } from "./policy.ts";

/** Distinct hidden-text warnings remembered to log each once (then the memory starts over). */
const MAX_WARNED = 10_000;

/**
 * Writes the guard's audit records for one core (one mode, one log).
 *
 * @example
 * ```ts
 * import { AuditLog } from "./audit.ts";
 * import { GuardRecords } from "./records.ts";
 * const lines: string[] = [];
 * const records = new GuardRecords(new AuditLog("fx", "enforce", (l) => lines.push(l)), "enforce");
 * records.problem({ name: "echo", ok: false, problems: ["drifted"] });
 * JSON.parse(lines[0]).decision; // "refused"
 * ```
 */
export class GuardRecords {
  readonly #log: AuditLog;
  readonly #mode: GuardMode;
  /** Hidden-text warnings and unpinned-list notes already logged. */
  readonly #warned = new Set<string>();

  /** Records for `log`, decided in `mode`. */
  constructor(log: AuditLog, mode: GuardMode) {
    this.#log = log;
    this.#mode = mode;
  }

  /** Writes a record as it is. */
  record(entry: AuditEntry): void {
    this.#log.record(entry);
  }

  /** What a failing item got in this mode: `refused`, `filtered` or `audited`. */
  #itemDecision(): "refused" | "filtered" | "audited" {
    return this.#mode === "enforce" ? "refused" : this.#mode === "filter" ? "filtered" : "audited";
  }

  /** One record for a tool (or other item) with a problem. */
  problem(v: ToolVerdict): void {
    this.#log.record({
      decision: this.#itemDecision(),
      ...(v.kind !== undefined ? { kind: v.kind } : {}),
      tool: v.name,
      reason: v.problems.join(","),
      ...(v.digest !== undefined ? { digest: v.digest } : {}),
      ...(v.lockDigest !== undefined ? { lock_digest: v.lockDigest } : {}),
      ...(v.changedFields ? { fields: v.changedFields } : {}),
      ...(v.errorCode !== undefined ? { error_code: v.errorCode } : {}),
      ...(v.detail !== undefined ? { message: v.detail } : {}),
    });
  }

  /**
   * One line per hidden-text finding (issue 17 item 3): `warn`, or when hidden text fails the
   * item (the policy's `strictText`) the decision the item's failure got. The pointer and the
   * detector's sentence, never arguments.
   */
  hiddenText(v: ToolVerdict): void {
    const failing = v.problems.includes("hidden_text");
    for (const f of v.hiddenText ?? []) {
      if (!failing) {
        // A warning is logged once per guard process for the same finding in the same
        // definition (the digest leaves out title and _meta, so the finding's own text is in
        // the key): a client re-listing, or a server sending list_changed in a loop, must not
        // repeat it on every list. The set is bounded; past the bound it starts over.
        const key = [v.name, v.digest, f.pointer, f.in, f.offset, f.kind, f.message, f.excerpt]
          .join("\0");
        if (this.#warned.has(key)) continue;
        if (this.#warned.size >= MAX_WARNED) this.#warned.clear();
        this.#warned.add(key);
      }
      this.#log.record({
        decision: !failing ? "warn" : this.#itemDecision(),
        ...(v.kind !== undefined ? { kind: v.kind } : {}),
        tool: v.name,
        reason: `hidden_text/${f.kind}`,
        pointer: f.pointer,
        message: `hidden text at ${f.pointer || "/"}${f.in === "key" ? " (key)" : ""} ` +
          `@${f.offset}: ${f.message}`,
      });
    }
  }

  /** The records of a checked page: each problem, then each verdict's hidden text. */
  verdicts(problems: readonly ToolVerdict[], verdicts: readonly ToolVerdict[]): void {
    for (const p of problems) this.problem(p);
    for (const v of verdicts) this.hiddenText(v);
  }

  /**
   * The summary of a tools/list page or list: refused (the session is blocked, enforce),
   * allowed, filtered or audited, with the server digest of a complete list.
   */
  toolListSummary(
    blocked: boolean,
    problems: readonly ToolVerdict[],
    serverDigest: string | undefined,
    count: number,
    byGuard: boolean,
  ): void {
    const decision = blocked && this.#mode === "enforce"
      ? "list_refused"
      : problems.length === 0
      ? "list_allowed"
      : this.#mode === "filter"
      ? "list_filtered"
      : "list_audited";
    this.#log.record({
      decision,
      tool_count: count,
      ...(serverDigest !== undefined ? { server_digest: serverDigest } : {}),
      ...(problems.length ? { reason: describeProblems(problems) } : {}),
      ...(byGuard ? { message: "checked by the guard before a tools/call" } : {}),
    });
  }

  /** The outcome of another list (`list`: its method) that had problems or met a block. */
  listOutcome(list: string, problems: readonly ToolVerdict[]): void {
    this.#log.record({
      decision: this.#mode === "enforce"
        ? "list_refused"
        : this.#mode === "filter"
        ? "list_filtered"
        : "list_audited",
      list,
      ...(problems.length ? { reason: describeProblems(problems) } : {}),
    });
  }

  /**
   * Once per guard for each `key`: a list of a kind the lock does not pin passed unchecked
   * (`message` says so).
   */
  unpinnedOnce(key: string, list: string, message: string): void {
    const note = `unpinned\0${key}`;
    if (this.#warned.has(note)) return;
    this.#warned.add(note);
    this.#log.record({ decision: "list_unpinned", list, message });
  }

  /** An answer that is not what was asked (`why`). */
  listInvalid(why: string, list?: string): void {
    this.#log.record({ decision: "list_invalid", ...(list ? { list } : {}), message: why });
  }

  /** A refused call (or prompt or read: `kind`). */
  callRefused(tool: string | undefined, reason: string, kind?: string): void {
    this.#log.record({
      decision: "call_refused",
      ...(kind !== undefined ? { kind } : {}),
      ...(tool !== undefined ? { tool } : {}),
      reason,
    });
  }

  /** A `tools/call` sent as a notification, dropped. */
  callNotification(tool: string | undefined): void {
    this.#log.record({
      decision: "call_refused",
      ...(tool !== undefined ? { tool } : {}),
      reason: "notification",
      message: "tools/call sent as a notification (no id) was dropped",
    });
  }

  /** The server announced `notifications/tools/list_changed`. */
  listChanged(): void {
    this.#log.record({ decision: "list_changed" });
  }

  /** The guard's own tools/list failed. */
  listCheckFailed(message: string): void {
    this.#log.record({ decision: "list_check_failed", message });
  }

  /** A client announced capabilities: which lock entry its lists are checked against. */
  clientCapabilities(capabilities: readonly string[], lockServer: string, pinned: boolean): void {
    this.#log.record({
      decision: "client_capabilities",
      message: `client capabilities [${capabilities.join(", ")}]: checking lock entry ` +
        `${lockServer}` + (pinned ? "" : " (none is pinned for them)"),
    });
  }
}
