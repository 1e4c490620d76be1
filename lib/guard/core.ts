/**
 * The guard's decisions on JSON-RPC messages, shared by the stdio and Streamable HTTP
 * guards. The transports parse bytes and move them; this module says, message by message,
 * what passes, what is replaced and what is refused:
 *
 * - client → server (`client_decisions.ts`): `tools/list` requests are remembered (their
 *   responses are checked); `tools/call` is refused unless the tool passed the latest check
 *   (enforce, filter); before a call the list is checked by the guard itself when it never was,
 *   or when the server announced `notifications/tools/list_changed` since; everything else
 *   passes;
 * - server → client (`server_decisions.ts`): the response to a remembered `tools/list` is
 *   checked page by page (all pages: removed tools are known at the last one) and passed,
 *   filtered or replaced by a JSON-RPC error according to the mode;
 *   `notifications/tools/list_changed` marks the list stale; everything else passes.
 *
 * Modes: `enforce` answers a list with any drifted, added, removed, unsigned or invalid tool
 * with an error naming them and from then on refuses every `tools/call` of the session (a
 * person reviews and approves the changes in the lock, then restarts the client; the words of
 * that remedy are the core's `remedyText`); `filter` withholds the tools that fail and refuses
 * calls to them; `audit` passes everything and logs.
 *
 * The session state is in `session.ts`, what it learns of the client's protocol era in
 * `era.ts` and `session_era.ts`, the audit records in `records.ts` and the words of refusals in
 * `refusal_text.ts`.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import type { AuditLog } from "./audit.ts";
import type { GuardMode } from "./policy.ts";
import { checkArg } from "../arguments.ts";
import type { ClientDecision, ServerDecision } from "./jsonrpc.ts";
import { idKey } from "./jsonrpc.ts";
import type { FetchTools } from "./own_list.ts";
import { GuardSession, type PendingRequests } from "./session.ts";
import type { GuardCoreOptions } from "./core_options.ts";
import type { GuardContext } from "./context.ts";
import { GuardRecords } from "./records.ts";
import { neutralRemedyText } from "./refusal_text.ts";
import { noteInitialize } from "./session_era.ts";
import { checkThenCall, decideClientNow } from "./client_decisions.ts";
import { decideServerNow, decideToolListPage } from "./server_decisions.ts";

// The transports (stdio.ts, http.ts, cli/guard/) and the tests import these from here.
export {
  type ClientDecision,
  errorResponse,
  GUARD_REFUSED,
  GUARD_SERVER_FAILED,
  idKey,
  INVALID_PARAMS,
  INVALID_REQUEST,
  PARSE_ERROR,
  type ServerDecision,
} from "./jsonrpc.ts";
export { type ClientProtocol, ownRequestParams, PROTOCOL_META_KEYS, protocolOf } from "./era.ts";
export { type FetchedTools, fetchOwnToolList, type FetchTools, smallestTtl } from "./own_list.ts";
export {
  type GuardListing,
  GuardSession,
  type PendingRequest,
  type PendingRequests,
} from "./session.ts";
export type { GuardCoreOptions } from "./core_options.ts";

/**
 * The guard's decisions (see the module documentation).
 *
 * @example
 * ```ts
 * import {
 *   AuditLog,
 *   GuardCore,
 *   GuardPolicy,
 *   startHttpGuard,
 * } from "jsr:@schemapin/schemapin/guard";
 * import { parseLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const core = new GuardCore({
 *   policy: new GuardPolicy({ lock: { serverName: "files", entry: lock.servers["files"] } }),
 *   mode: "filter",
 *   log: new AuditLog("files", "filter", (line) => console.error(line)),
 *   serverName: "files",
 * });
 * // One core per guarded server: give it to runStdioGuard or startHttpGuard
 * const guard = await startHttpGuard({
 *   upstream: "http://127.0.0.1:3000/mcp",
 *   port: 0,
 *   core,
 *   serverName: "files",
 * });
 * console.log(guard.url);
 * ```
 */
export class GuardCore {
  readonly #mode: GuardMode;
  readonly #log: AuditLog;
  readonly #context: GuardContext;

  /** A core with the given policy and mode. */
  constructor(options: GuardCoreOptions) {
    checkArg("GuardCore", "options", options, "object");
    if (options.policyFor === undefined) {
      checkArg("GuardCore", "options.policy", options.policy, "object");
    }
    checkArg("GuardCore", "options.remedyText", options.remedyText, "function", true);
    this.#mode = options.mode;
    this.#log = options.log;
    this.#context = {
      mode: options.mode,
      server: options.serverName,
      records: new GuardRecords(options.log, options.mode),
      policy: options.policy,
      policyFor: options.policyFor,
      remedyText: options.remedyText ?? neutralRemedyText,
    };
  }

  /** The mode. */
  get mode(): GuardMode {
    return this.#mode;
  }

  /** The audit log. */
  get log(): AuditLog {
    return this.#log;
  }

  /**
   * A fresh session state.
   *
   * @ignore Internal: the stdio and HTTP transports call it; not public API.
   */
  newSession(): GuardSession {
    return new GuardSession();
  }

  /**
   * Decides a client → server message (one element of a batch at a time). `fetchTools`
   * lets the guard check the list itself before a call; without it such a call is refused.
   *
   * @ignore Internal: the stdio and HTTP transports call it; not public API.
   */
  async fromClient(
    session: GuardSession,
    message: JsonValue,
    fetchTools?: FetchTools,
    pending: PendingRequests = session.pending,
  ): Promise<ClientDecision> {
    const d = this.fromClientNow(session, message, fetchTools, pending);
    return d !== undefined
      ? d
      : await checkThenCall(this.#context, session, message as JsonObject, fetchTools!);
  }

  /**
   * {@linkcode GuardCore.fromClient} without waiting, for the relay's common case: the
   * decision, or `undefined` when it needs the guard's own check of the tool list first (a
   * `tools/call` before any checked list, or after `list_changed`) — then call
   * `fromClient`, which does that check and decides. Same decisions, same log records.
   *
   * @ignore Internal: the stdio and HTTP transports call it; not public API.
   */
  fromClientNow(
    session: GuardSession,
    message: JsonValue,
    fetchTools?: FetchTools,
    pending: PendingRequests = session.pending,
  ): ClientDecision | undefined {
    return decideClientNow(this.#context, session, message, fetchTools, pending);
  }

  /**
   * Records the capabilities of a client's `initialize` (its `params`) in a session and picks
   * the lock entry pinned for them. The relay calls it for the session an HTTP server opens
   * in answer to that `initialize`.
   *
   * @ignore Internal: the stdio and HTTP transports call it; not public API.
   */
  noteInitialize(session: GuardSession, params: JsonValue | undefined): void {
    noteInitialize(this.#context, session, params);
  }

  /**
   * Decides a server → client message (one element of a batch at a time).
   *
   * @ignore Internal: the stdio and HTTP transports call it; not public API.
   */
  async fromServer(
    session: GuardSession,
    message: JsonValue,
    pending: PendingRequests = session.pending,
  ): Promise<ServerDecision> {
    const d = this.fromServerNow(session, message, pending);
    if (d !== undefined) return d;
    const m = message as JsonObject;
    const key = idKey(m.id);
    const request = pending.get(key)!;
    pending.delete(key);
    return await decideToolListPage(this.#context, session, m.id, m.result, request);
  }

  /**
   * {@linkcode GuardCore.fromServer} without waiting, for the relay's common case: the
   * decision, or `undefined` (and nothing changed) for a page of a client's `tools/list`,
   * which only `fromServer` checks.
   *
   * @ignore Internal: the stdio and HTTP transports call it; not public API.
   */
  fromServerNow(
    session: GuardSession,
    message: JsonValue,
    pending: PendingRequests = session.pending,
  ): ServerDecision | undefined {
    return decideServerNow(this.#context, session, message, pending);
  }
}
