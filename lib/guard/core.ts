/**
 * The guard's decisions on JSON-RPC messages, shared by the stdio and Streamable HTTP
 * guards. The transports parse bytes and move them; this module says, message by message,
 * what passes, what is replaced and what is refused:
 *
 * - client → server: `tools/list` requests are remembered (their responses are checked);
 *   `tools/call` is refused unless the tool passed the latest check (enforce, filter); before a
 *   call the list is checked by the guard itself when it never was, or when the server
 *   announced `notifications/tools/list_changed` since; everything else passes;
 * - server → client: the response to a remembered `tools/list` is checked page by page (all
 *   pages: removed tools are known at the last one) and passed, filtered or replaced by a
 *   JSON-RPC error according to the mode; `notifications/tools/list_changed` marks the list
 *   stale; everything else passes.
 *
 * Modes: `enforce` answers a list with any drifted, added, removed, unsigned or invalid tool
 * with an error naming them and from then on refuses every `tools/call` of the session (a
 * person reviews and approves them with `schemapin contract approve --server S --tool T`, then
 * restarts the client);
 * `filter` withholds the tools that fail and refuses calls to them; `audit` passes everything
 * and logs.
 *
 * @module
 */
import { shellLine } from "../contractpin/display_text.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import type { AuditLog } from "./audit.ts";
import {
  describeProblems,
  type GuardMode,
  type GuardPolicy,
  type SeenTools,
  type ToolVerdict,
} from "./policy.ts";
import { checkArg } from "../arguments.ts";
import { approveCommand } from "../contractpin/approve.ts";
import { DEFAULT_LOCK_FILE } from "../contractpin/lock.ts";

/**
 * JSON-RPC error code of a guard refusal (a list or call that failed the checks).
 *
 * @example
 * ```ts
 * import { GUARD_REFUSED } from "jsr:@schemapin/schemapin/guard";
 * console.log(GUARD_REFUSED); // -32010
 * ```
 */
export const GUARD_REFUSED: number = -32010;
/**
 * JSON-RPC error code when the guarded server failed (exited, garbage, no answer).
 *
 * @example
 * ```ts
 * import { GUARD_SERVER_FAILED } from "jsr:@schemapin/schemapin/guard";
 * console.log(GUARD_SERVER_FAILED); // -32011
 * ```
 */
export const GUARD_SERVER_FAILED: number = -32011;
/** JSON-RPC parse error (the guard could not read a client message strictly). */
export const PARSE_ERROR: number = -32700;
/** JSON-RPC invalid request. */
export const INVALID_REQUEST: number = -32600;
/** JSON-RPC invalid params. */
export const INVALID_PARAMS: number = -32602;

/**
 * A key for a JSON-RPC id: string and number ids are distinct (`"1"` is not `1`).
 *
 * @example
 * ```ts
 * import { idKey } from "./core.ts";
 * idKey(1) === idKey("1"); // false
 * ```
 */
export function idKey(id: JsonValue | undefined): string {
  return typeof id === "string" ? `s${id}` : `n${JSON.stringify(id ?? null)}`;
}

/**
 * A JSON-RPC error response.
 *
 * @example
 * ```ts
 * import { errorResponse } from "./core.ts";
 * errorResponse(1, -32010, "refused"); // { jsonrpc: "2.0", id: 1, error: { code: -32010, message: "refused" } }
 * ```
 */
export function errorResponse(
  id: JsonValue | undefined,
  code: number,
  message: string,
  data?: JsonValue,
): JsonObject {
  const error: JsonObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: "2.0", id: id ?? null, error };
}

/** What to do with a client message. */
export type ClientDecision =
  | { readonly forward: true; readonly request?: { id: JsonValue; method: string } }
  | { readonly forward: false; readonly reply?: JsonObject };

/** What to do with a server message. */
export type ServerDecision =
  | { readonly kind: "pass" }
  | { readonly kind: "replace"; readonly message: JsonObject };

const PASS: ServerDecision = { kind: "pass" };

/** A client's `tools/list` in progress, page by page. */
export interface GuardListing {
  /** The session generation when its first page was asked for. */
  readonly generation: number;
  /** True when it started at the first page (so removed tools can be told at the end). */
  readonly complete: boolean;
  /** Names and digests served so far. */
  readonly seen: SeenTools;
  /** Names that passed so far. */
  readonly approved: Set<string>;
  /** The cursor the next page must be asked with. */
  expectCursor: string | undefined;
  /** Pages so far. */
  pages: number;
}

/**
 * The state of one client session (one stdio guard; one `Mcp-Session-Id` over HTTP).
 *
 * @example
 * ```ts
 * import { AuditLog, GuardCore, GuardPolicy } from "jsr:@schemapin/schemapin/guard";
 * import { parseLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const core = new GuardCore({
 *   policy: new GuardPolicy({ lock: { serverName: "files", entry: lock.servers["files"] } }),
 *   mode: "enforce",
 *   log: new AuditLog("files", "enforce", () => {}),
 *   serverName: "files",
 * });
 * const session = core.newSession(); // one per client connection
 * await core.fromServer(session, { jsonrpc: "2.0", id: 1, result: { tools: [] } });
 * ```
 */
export class GuardSession {
  /** Bumped by every `notifications/tools/list_changed`. */
  generation: number = 0;
  /** The generation of the latest complete check (-1: never). */
  checkedGeneration: number = -1;
  /** Tools that passed, with the generation of the check that passed them. */
  readonly allowed: Map<string, number> = new Map();
  /** Tools withheld by the latest check (filter), with why. */
  readonly withheld: Map<string, ToolVerdict> = new Map();
  /** Enforce: the problems that stopped this session (sticky). */
  blocked: ToolVerdict[] | undefined;
  /** The client's list in progress. */
  listing: GuardListing | undefined;
  /** Outstanding client `tools/list` requests by {@linkcode idKey}. */
  readonly pendingLists: Map<string, { cursor?: string; generation: number }> = new Map();
  /** The guard's own check in flight. */
  checking: Promise<void> | undefined;
  /** The client's capability names from its `initialize` (undefined before it). */
  clientCapabilities: string[] | undefined;
  /** The policy pinned for those capabilities, when it is not the core's default. */
  policy: GuardPolicy | undefined;
}

/** What the core needs. */
export interface GuardCoreOptions {
  /** What is checked. */
  readonly policy: GuardPolicy;
  /** What happens to a list that fails. */
  readonly mode: GuardMode;
  /** Where decisions are recorded. */
  readonly log: AuditLog;
  /** The server's name, for messages. */
  readonly serverName: string;
  /**
   * The policy for a client that announced these capability names (sorted, `experimental`
   * left out), when the lock pins an entry for exactly them; undefined: the default policy.
   */
  readonly policyFor?: (capabilities: readonly string[]) => GuardPolicy | undefined;
}

/**
 * Fetches the server's complete tool list (all pages) on the guard's own behalf, for a
 * `tools/call` that arrives before any checked list.
 */
export type FetchTools = () => Promise<JsonValue[]>;

/** Distinct hidden-text warnings remembered to log each once (then the memory starts over). */
const MAX_WARNED = 10_000;

/**
 * The guard's decisions (see the module documentation).
 *
 * @example
 * ```ts
 * import { AuditLog, GuardCore, GuardPolicy } from "jsr:@schemapin/schemapin/guard";
 * import { parseLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const core = new GuardCore({
 *   policy: new GuardPolicy({ lock: { serverName: "files", entry: lock.servers["files"] } }),
 *   mode: "filter",
 *   log: new AuditLog("files", "filter", (line) => console.error(line)),
 *   serverName: "files",
 * });
 * // A transport of your own passes each message through the core:
 * const session = core.newSession();
 * const decision = await core.fromClient(session, { jsonrpc: "2.0", id: 1, method: "tools/list" });
 * console.log(decision.forward);
 * ```
 */
export class GuardCore {
  readonly #policy: GuardPolicy;
  readonly #mode: GuardMode;
  readonly #log: AuditLog;
  readonly #server: string;
  /** Hidden-text warnings already logged (see #logHiddenText). */
  readonly #warned = new Set<string>();

  readonly #policyFor: GuardCoreOptions["policyFor"];

  /** A core with the given policy and mode. */
  constructor(options: GuardCoreOptions) {
    checkArg("GuardCore", "options", options, "object");
    if (options.policyFor === undefined) {
      checkArg("GuardCore", "options.policy", options.policy, "object");
    }
    this.#policyFor = options.policyFor;
    this.#policy = options.policy;
    this.#mode = options.mode;
    this.#log = options.log;
    this.#server = options.serverName;
  }

  /** The mode. */
  get mode(): GuardMode {
    return this.#mode;
  }

  /** The audit log. */
  get log(): AuditLog {
    return this.#log;
  }

  /** A fresh session state. */
  newSession(): GuardSession {
    return new GuardSession();
  }

  /**
   * Decides a client → server message (one element of a batch at a time). `fetchTools`
   * lets the guard check the list itself before a call; without it such a call is refused.
   */
  async fromClient(
    session: GuardSession,
    message: JsonValue,
    fetchTools?: FetchTools,
  ): Promise<ClientDecision> {
    const d = this.fromClientNow(session, message, fetchTools);
    return d !== undefined
      ? d
      : await this.#checkThenCall(session, message as JsonObject, fetchTools!);
  }

  /**
   * {@linkcode GuardCore.fromClient} without waiting, for the relay's common case: the
   * decision, or `undefined` when it needs the guard's own check of the tool list first (a
   * `tools/call` before any checked list, or after `list_changed`) — then call
   * `fromClient`, which does that check and decides. Same decisions, same log records.
   */
  fromClientNow(
    session: GuardSession,
    message: JsonValue,
    fetchTools?: FetchTools,
  ): ClientDecision | undefined {
    if (!isJsonObject(message) || typeof message.method !== "string") return { forward: true };
    const method = message.method;
    const hasId = Object.hasOwn(message, "id");
    if (method === "initialize" && hasId) this.noteInitialize(session, message.params);
    if (method === "tools/list" && hasId) {
      const params = message.params;
      const cursor = isJsonObject(params) && typeof params.cursor === "string"
        ? params.cursor
        : undefined;
      session.pendingLists.set(idKey(message.id), {
        ...(cursor !== undefined ? { cursor } : {}),
        generation: session.generation,
      });
      return { forward: true, request: { id: message.id, method } };
    }
    if (method !== "tools/call") {
      return hasId ? { forward: true, request: { id: message.id, method } } : { forward: true };
    }
    const params = message.params;
    const name = isJsonObject(params) ? params.name : undefined;
    if (!hasId) {
      // A call without an id cannot be answered; a lenient server might still run it.
      this.#log.record({
        decision: "call_refused",
        ...(typeof name === "string" ? { tool: name } : {}),
        reason: "notification",
        message: "tools/call sent as a notification (no id) was dropped",
      });
      return { forward: false };
    }
    if (typeof name !== "string") {
      return {
        forward: false,
        reply: errorResponse(
          message.id,
          INVALID_PARAMS,
          'schemapin guard: tools/call needs a string "name" in params',
        ),
      };
    }
    if (
      this.#mode !== "audit" && !session.blocked &&
      session.allowed.get(name) !== session.generation &&
      session.checkedGeneration !== session.generation && fetchTools
    ) {
      return undefined; // the guard checks the list first: fromClient
    }
    return this.#callDecision(message.id, name, this.#callRefusalNow(session, name));
  }

  /** The policy a session is checked with: the one pinned for its client's capabilities. */
  #policyOf(session: GuardSession): GuardPolicy {
    return session.policy ?? this.#policy;
  }

  /**
   * Records the capabilities of a client's `initialize` (its `params`) in a session and picks
   * the lock entry pinned for them. The relay calls it for the session an HTTP server opens
   * in answer to that `initialize`.
   */
  noteInitialize(session: GuardSession, params: JsonValue | undefined): void {
    const caps = isJsonObject(params) && isJsonObject(params.capabilities)
      ? Object.keys(params.capabilities).filter((c) => c !== "experimental").sort()
      : [];
    session.clientCapabilities = caps;
    session.policy = this.#policyFor?.(caps);
    const lock = this.#policyOf(session).lock;
    if (lock && caps.length > 0) {
      this.#log.record({
        decision: "client_capabilities",
        message: `client capabilities [${caps.join(", ")}]: checking lock entry ` +
          `${lock.serverName}` + (session.policy ? "" : " (none is pinned for them)"),
      });
    }
  }

  /** A `tools/call` (with an id and a string name) once the list has been checked. */
  async #checkThenCall(
    session: GuardSession,
    message: JsonObject,
    fetchTools: FetchTools,
  ): Promise<ClientDecision> {
    const name = (message.params as JsonObject).name as string;
    try {
      await this.#ensureChecked(session, fetchTools);
    } catch (e) {
      return this.#callDecision(
        message.id,
        name,
        this.#refusal(
          "check_failed",
          `schemapin guard: tools/call ${JSON.stringify(name)} refused: the guard could not ` +
            `check the tool list: ${(e as Error).message}`,
          [],
        ),
      );
    }
    const refusal = !session.blocked && session.allowed.has(name)
      ? undefined
      : this.#callRefusalAfterCheck(session, name);
    return this.#callDecision(message.id, name, refusal);
  }

  #callDecision(
    id: JsonValue,
    name: string,
    refusal: { reason: string; message: string; data: JsonObject } | undefined,
  ): ClientDecision {
    if (refusal === undefined) return { forward: true, request: { id, method: "tools/call" } };
    this.#log.record({ decision: "call_refused", tool: name, reason: refusal.reason });
    return {
      forward: false,
      reply: errorResponse(id, GUARD_REFUSED, refusal.message, refusal.data),
    };
  }

  /** The refusal of a call when no check of the list is due (or none can be made). */
  #callRefusalNow(
    session: GuardSession,
    name: string,
  ): { reason: string; message: string; data: JsonObject } | undefined {
    if (this.#mode === "audit") return undefined;
    if (!session.blocked && session.allowed.get(name) === session.generation) return undefined;
    if (!session.blocked && session.checkedGeneration !== session.generation) {
      return this.#refusal(
        "unchecked",
        `schemapin guard: tools/call ${JSON.stringify(name)} refused: the tool list has not ` +
          `been checked since it changed; list the tools first`,
        [],
      );
    }
    return this.#callRefusalAfterCheck(session, name);
  }

  /** The refusal of a call the checked list does not allow. */
  #callRefusalAfterCheck(
    session: GuardSession,
    name: string,
  ): { reason: string; message: string; data: JsonObject } | undefined {
    if (session.blocked) {
      return this.#refusal(
        "blocked",
        `schemapin guard: tools/call ${JSON.stringify(name)} refused: ` +
          this.#listProblemSentence(session, session.blocked),
        session.blocked,
      );
    }
    const withheld = session.withheld.get(name);
    if (withheld) {
      return this.#refusal(
        withheld.problems.join(","),
        `schemapin guard: tools/call ${JSON.stringify(name)} refused: the tool was withheld ` +
          `(${describeProblems([withheld])}). ${this.#remedy(session, [withheld])}`,
        [withheld],
      );
    }
    return this.#refusal(
      "not_listed",
      `schemapin guard: tools/call ${JSON.stringify(name)} refused: the tool is not in the ` +
        `checked tool list of server ${this.#server}`,
      [],
    );
  }

  #refusal(
    reason: string,
    message: string,
    verdicts: readonly ToolVerdict[],
  ): { reason: string; message: string; data: JsonObject } {
    return { reason, message, data: this.#errorData(verdicts) };
  }

  #errorData(verdicts: readonly ToolVerdict[]): JsonObject {
    return {
      schemapin: {
        server: this.#server,
        mode: this.#mode,
        tools: verdicts.map((v) => {
          const o: JsonObject = { name: v.name, problems: [...v.problems] };
          if (v.digest !== undefined) o.digest = v.digest;
          if (v.lockDigest !== undefined) o.lock_digest = v.lockDigest;
          if (v.changedFields) o.changed_fields = [...v.changedFields];
          if (v.errorCode !== undefined) o.error_code = v.errorCode;
          if (v.problems.includes("hidden_text") && v.hiddenText) {
            o.hidden_text = v.hiddenText.map((f) => ({
              pointer: f.pointer,
              offset: f.offset,
              kind: f.kind,
            }));
          }
          return o;
        }),
      },
    };
  }

  #remedy(session: GuardSession, verdicts: readonly ToolVerdict[]): string {
    const lockProblem = verdicts.some((v) =>
      v.problems.some((p) => p === "drifted" || p === "added" || p === "removed")
    );
    const sigProblem = verdicts.some((v) =>
      v.problems.some((p) => p === "unsigned" || p === "signature_invalid")
    );
    const parts: string[] = [];
    if (lockProblem) {
      const lock = this.#policyOf(session).lock;
      const changed = verdicts.filter((v) =>
        v.problems.some((p) => p === "drifted" || p === "added" || p === "removed")
      ).map((v) => v.name);
      // Issue 17 item 1: the command that shows these very changes and pins only them.
      const approve = shellLine(
        approveCommand(
          lock?.file ?? DEFAULT_LOCK_FILE,
          lock?.serverName ?? this.#server,
          changed,
          { yes: false },
        ),
      );
      parts.push(
        `If these changes are expected, review and approve them with \`${approve}\`, then ` +
          `restart the client.`,
      );
      const caps = session.clientCapabilities ?? [];
      if (caps.length > 0 && session.policy === undefined) {
        // No entry is pinned for this client's capabilities: its list may legitimately differ.
        parts.push(
          `The client announced the capabilities ${caps.join(", ")}, and servers may list ` +
            `other tools to such clients: pin an entry for them with \`schemapin contract init ` +
            `--client-capabilities ${caps.join(",")}\` (same command or URL, another name).`,
        );
      }
    }
    if (verdicts.some((v) => v.problems.includes("hidden_text"))) {
      parts.push(
        "Their definitions hold text a person cannot see or would not expect (the audit log " +
          "names each place); the guard runs with --strict-text.",
      );
    }
    if (sigProblem) {
      parts.push(
        "Tools must carry a valid SchemaPin signature over their contract " +
          '(_meta "dev.schemapin/signature", made with `schemapin sign-tools`) by a key the ' +
          "domain publishes and that is neither revoked nor expired.",
      );
    }
    return parts.join(" ");
  }

  #listProblemSentence(session: GuardSession, verdicts: readonly ToolVerdict[]): string {
    const policy = this.#policyOf(session);
    const what = policy.lock && policy.signatures
      ? `contractpin.lock or lack valid SchemaPin signatures`
      : policy.lock
      ? `contractpin.lock`
      : undefined;
    const head = verdicts.every((v) => v.problems.every((p) => p === "hidden_text"))
      ? `tools of server ${this.#server} hold hidden text`
      : what === undefined
      ? `tools of server ${this.#server} lack valid SchemaPin signatures`
      : policy.lock && !policy.signatures
      ? `the tool contracts of server ${this.#server} differ from ${what}`
      : `tools of server ${this.#server} differ from ${what}`;
    return `${head} (${describeProblems(verdicts)}). ${this.#remedy(session, verdicts)}`;
  }

  async #ensureChecked(session: GuardSession, fetchTools: FetchTools): Promise<void> {
    if (session.checking) return await session.checking;
    const generation = session.generation;
    const run = (async () => {
      let tools: JsonValue[];
      try {
        tools = await fetchTools();
      } catch (e) {
        this.#log.record({ decision: "list_check_failed", message: (e as Error).message });
        throw e;
      }
      const seen: SeenTools = new Map();
      const policy = this.#policyOf(session);
      const verdicts = await policy.checkTools(tools, seen);
      const problems = [...verdicts.filter((v) => !v.ok), ...policy.removed(seen)];
      this.#apply(session, generation, verdicts, problems, true);
      session.checkedGeneration = generation;
      this.#summary(session, problems, seen, tools.length, true);
    })();
    session.checking = run;
    try {
      await run;
    } finally {
      session.checking = undefined;
    }
  }

  /** Records the verdicts of a page or whole list in the session; logs each problem. */
  #apply(
    session: GuardSession,
    generation: number,
    verdicts: readonly ToolVerdict[],
    problems: readonly ToolVerdict[],
    whole: boolean,
  ): void {
    for (const p of problems) this.#logProblem(p);
    for (const v of verdicts) this.#logHiddenText(v);
    if (this.#mode === "audit") return;
    if (this.#mode === "enforce" && (problems.length > 0 || session.blocked)) {
      if (problems.length > 0) session.blocked = [...(session.blocked ?? []), ...problems];
      session.allowed.clear();
      return;
    }
    if (whole) {
      session.allowed.clear();
      session.withheld.clear();
    }
    for (const v of verdicts) {
      if (v.ok) {
        session.allowed.set(v.name, generation);
        session.withheld.delete(v.name);
      } else if (!v.problems.includes("malformed") || !session.allowed.has(v.name)) {
        session.withheld.set(v.name, v);
        session.allowed.delete(v.name);
      }
    }
  }

  /**
   * One line per hidden-text finding (issue 17 item 3): `warn`, or with `--strict-text` the
   * decision the tool's failure got. The pointer and the detector's sentence, never arguments.
   */
  #logHiddenText(v: ToolVerdict): void {
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
        decision: !failing
          ? "warn"
          : this.#mode === "enforce"
          ? "refused"
          : this.#mode === "filter"
          ? "filtered"
          : "audited",
        tool: v.name,
        reason: `hidden_text/${f.kind}`,
        pointer: f.pointer,
        message: `hidden text at ${f.pointer || "/"}${f.in === "key" ? " (key)" : ""} ` +
          `@${f.offset}: ${f.message}`,
      });
    }
  }

  #logProblem(v: ToolVerdict): void {
    const decision = this.#mode === "enforce"
      ? "refused"
      : this.#mode === "filter"
      ? "filtered"
      : "audited";
    this.#log.record({
      decision,
      tool: v.name,
      reason: v.problems.join(","),
      ...(v.digest !== undefined ? { digest: v.digest } : {}),
      ...(v.lockDigest !== undefined ? { lock_digest: v.lockDigest } : {}),
      ...(v.changedFields ? { fields: v.changedFields } : {}),
      ...(v.errorCode !== undefined ? { error_code: v.errorCode } : {}),
      ...(v.detail !== undefined ? { message: v.detail } : {}),
    });
  }

  #summary(
    session: GuardSession,
    problems: readonly ToolVerdict[],
    seen: SeenTools | undefined,
    count: number,
    byGuard: boolean,
  ): void {
    const decision = session.blocked && this.#mode === "enforce"
      ? "list_refused"
      : problems.length === 0
      ? "list_allowed"
      : this.#mode === "filter"
      ? "list_filtered"
      : "list_audited";
    this.#log.record({
      decision,
      tool_count: count,
      ...(seen ? { server_digest: this.#policyOf(session).serverDigest(seen) } : {}),
      ...(problems.length ? { reason: describeProblems(problems) } : {}),
      ...(byGuard ? { message: "checked by the guard before a tools/call" } : {}),
    });
  }

  /** Decides a server → client message (one element of a batch at a time). */
  async fromServer(session: GuardSession, message: JsonValue): Promise<ServerDecision> {
    const d = this.fromServerNow(session, message);
    if (d !== undefined) return d;
    const m = message as JsonObject;
    const key = idKey(m.id);
    const pending = session.pendingLists.get(key)!;
    session.pendingLists.delete(key);
    return await this.#listResult(session, m.id, m.result, pending);
  }

  /**
   * {@linkcode GuardCore.fromServer} without waiting, for the relay's common case: the
   * decision, or `undefined` (and nothing changed) for a page of a client's `tools/list`,
   * which only `fromServer` checks.
   */
  fromServerNow(session: GuardSession, message: JsonValue): ServerDecision | undefined {
    if (!isJsonObject(message)) return PASS;
    if (typeof message.method === "string") {
      if (message.method === "notifications/tools/list_changed" && !Object.hasOwn(message, "id")) {
        session.generation++;
        this.#log.record({ decision: "list_changed" });
      }
      return PASS;
    }
    if (!Object.hasOwn(message, "id")) return PASS;
    const key = idKey(message.id);
    if (!session.pendingLists.has(key)) return PASS;
    if (Object.hasOwn(message, "result")) return undefined; // a page to check: fromServer
    session.pendingLists.delete(key);
    return PASS; // an error answer stays an error
  }

  async #listResult(
    session: GuardSession,
    id: JsonValue,
    result: JsonValue,
    pending: { cursor?: string; generation: number },
  ): Promise<ServerDecision> {
    const bad = !isJsonObject(result)
      ? "the result is not an object"
      : !Array.isArray(result.tools)
      ? 'the result has no "tools" array'
      : Object.hasOwn(result, "nextCursor") &&
          (typeof result.nextCursor !== "string" || result.nextCursor === "")
      ? "nextCursor is not a non-empty string"
      : undefined;
    if (bad !== undefined) {
      this.#log.record({ decision: "list_invalid", message: bad });
      session.listing = undefined;
      if (this.#mode === "audit") return PASS;
      return {
        kind: "replace",
        message: errorResponse(
          id,
          GUARD_REFUSED,
          `schemapin guard: tools/list refused: the server's answer is not a tool list (${bad})`,
          this.#errorData([]),
        ),
      };
    }
    const page = result as JsonObject;
    const tools = page.tools as JsonValue[];
    const next = page.nextCursor as string | undefined;
    let listing = session.listing;
    if (
      pending.cursor === undefined || !listing || listing.expectCursor !== pending.cursor ||
      listing.generation !== pending.generation
    ) {
      // A first page starts a list; a page out of sequence starts a partial one (no
      // "removed" check: the guard has not seen the whole list).
      listing = {
        generation: pending.generation,
        complete: pending.cursor === undefined,
        seen: new Map(),
        approved: new Set(),
        expectCursor: undefined,
        pages: 0,
      };
      session.listing = listing;
    }
    listing.pages++;
    listing.expectCursor = next;
    const policy = this.#policyOf(session);
    const verdicts = await policy.checkTools(tools, listing.seen);
    const last = next === undefined;
    const removed = last && listing.complete ? policy.removed(listing.seen) : [];
    const problems = [...verdicts.filter((v) => !v.ok), ...removed];
    for (const v of verdicts) if (v.ok) listing.approved.add(v.name);
    const wasBlocked = session.blocked !== undefined;
    this.#apply(session, listing.generation, verdicts, problems, false);
    if (last) {
      session.listing = undefined;
      if (listing.complete && !session.blocked && this.#mode !== "audit") {
        for (const name of [...session.allowed.keys()]) {
          if (!listing.approved.has(name)) session.allowed.delete(name);
        }
      }
      if (listing.complete) session.checkedGeneration = listing.generation;
    }
    if (problems.length > 0 || last || wasBlocked) {
      this.#summary(
        session,
        problems,
        last && listing.complete ? listing.seen : undefined,
        tools.length,
        false,
      );
    }
    if (this.#mode === "enforce" && session.blocked) {
      return {
        kind: "replace",
        message: errorResponse(
          id,
          GUARD_REFUSED,
          `schemapin guard: tools/list refused: ${
            this.#listProblemSentence(session, session.blocked)
          }`,
          this.#errorData(session.blocked),
        ),
      };
    }
    if (this.#mode === "filter" && verdicts.some((v) => !v.ok)) {
      const filtered: JsonObject = {};
      for (const [k, v] of Object.entries(page)) {
        filtered[k] = k === "tools" ? tools.filter((_, i) => verdicts[i].ok) : v;
      }
      return { kind: "replace", message: { jsonrpc: "2.0", id, result: filtered } };
    }
    return PASS;
  }
}
