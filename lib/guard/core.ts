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
import { collectPages } from "../mcp/session.ts";
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../mcp/era.ts";
import { SURFACE_SPECS } from "../contractpin/surface.ts";
import type { SurfaceKind } from "../contractpin/surface.ts";
import {
  checkSurfacePage,
  type PendingSurfaceList,
  SURFACE_LIST_METHODS,
  type SurfaceListing,
} from "./surface.ts";
import { approveCommand } from "../contractpin/approve.ts";
import { DEFAULT_LOCK_FILE } from "../contractpin/lock.ts";
import { judgeSkillAnswer, SKILL_METHODS, type SkillRequest } from "./skills.ts";

/**
 * JSON-RPC error code of a guard refusal (a list or call that failed the checks).
 *
 * @example
 * ```ts
 * import { GUARD_REFUSED } from "./core.ts";
 * console.log(GUARD_REFUSED); // -32010
 * ```
 */
export const GUARD_REFUSED: number = -32010;
/**
 * JSON-RPC error code when the guarded server failed (exited, garbage, no answer).
 *
 * @example
 * ```ts
 * import { GUARD_SERVER_FAILED } from "./core.ts";
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
 * idKey(1) === idKey("1"); // true: the SDKs take them for the same id
 * idKey("a") === idKey(1); // false
 * ```
 */
export function idKey(id: JsonValue | undefined): string {
  // The SDKs read "1" and 1 as the same id (TS: Number(id); Python: coerce_request_id): an
  // answer with the other spelling must still be matched with the request it answers, or a
  // server could slip a list past the checks by quoting its id.
  if (typeof id === "string" && /^-?(0|[1-9][0-9]{0,15})$/.test(id)) return `n${Number(id)}`;
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
  /** The smallest `ttlMs` of its pages so far (see {@linkcode smallestTtl}). */
  ttlMs?: number;
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
  /**
   * The client's requests waiting for their answers, by {@linkcode idKey} (a transport may keep
   * them elsewhere: stateless HTTP keeps one set per POST).
   */
  readonly pending: PendingRequests = new Map();
  /** Surface lists in progress, one per kind. */
  readonly surfaceListings: Map<SurfaceKind, SurfaceListing> = new Map();
  /** Filter: prompts and resources withheld by the latest check, by `kind` and key. */
  readonly withheldItems: Map<string, ToolVerdict> = new Map();
  /** The guard's own check in flight. */
  checking: Promise<void> | undefined;
  /** The client's capability names from its `initialize` (undefined before it). */
  clientCapabilities: string[] | undefined;
  /** The policy pinned for those capabilities, when it is not the core's default. */
  policy: GuardPolicy | undefined;
  /**
   * The protocol era and version the client speaks, learnt from its messages: `initialize`
   * (legacy) or the protocol `_meta` of a request (MCP 2026-07-28). What the guard sends
   * upstream on its own follows it (see {@linkcode ownRequestParams}).
   */
  protocol: ClientProtocol | undefined;
  /**
   * MCP 2026-07-28 lists are fresh for their `ttlMs` only (server/utilities/caching.md): the
   * time (ms since the epoch) after which the guard's view of the list is stale and a
   * `tools/call` makes it list again. Undefined: no expiry (legacy: `list_changed` only).
   */
  freshUntil: number | undefined;

  /**
   * Takes over what `other` knows (the checked list, what is allowed, withheld or blocked, the
   * client's protocol and policy): for an upstream that names a session only after the first
   * answers, so nothing the guard decided is forgotten.
   */
  adoptStateOf(other: GuardSession): void {
    this.generation = other.generation;
    this.checkedGeneration = other.checkedGeneration;
    for (const [k, v] of other.allowed) this.allowed.set(k, v);
    for (const [k, v] of other.withheld) this.withheld.set(k, v);
    for (const [k, v] of other.withheldItems) this.withheldItems.set(k, v);
    if (other.blocked) this.blocked = [...other.blocked];
    this.clientCapabilities = other.clientCapabilities;
    this.policy = other.policy;
    this.protocol = other.protocol;
    this.freshUntil = other.freshUntil;
  }
}

/** A client request the guard forwarded, waiting for its answer. */
export interface PendingRequest {
  /** Its method. */
  readonly method: string;
  /** The cursor of a list request (undefined: the first page). */
  readonly cursor?: string;
  /** `params.uri` of a request about skills (`lib/guard/skills.ts`). */
  readonly uri?: string;
  /** The session generation when it was sent. */
  readonly generation: number;
}

/** Requests waiting for their answers, by {@linkcode idKey}. */
export type PendingRequests = Map<string, PendingRequest>;

/** Most requests remembered at once: a server that never answers cannot grow the guard. */
const MAX_PENDING = 10_000;
/** Most withheld prompts and resources remembered (filter); past it the memory starts over. */
const MAX_WITHHELD_ITEMS = 10_000;
/** The longest a list is taken as fresh, whatever `ttlMs` the server gives. */
const MAX_FRESH_MS = 3_600_000;

/**
 * The `_meta` keys of MCP 2026-07-28 that carry a request's protocol version, the client's
 * capabilities and identity (basic/versioning.md); the guard copies them from the client's
 * latest request into its own requests.
 *
 * @example
 * ```ts
 * import { PROTOCOL_META_KEYS } from "./core.ts";
 * PROTOCOL_META_KEYS[0]; // "io.modelcontextprotocol/protocolVersion"
 * ```
 */
export const PROTOCOL_META_KEYS: readonly string[] = [
  META_PROTOCOL_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
];

/** How a client talks to the server, as the guard learnt it from the client's messages. */
export type ClientProtocol =
  /** `initialize` handshake (MCP 2025-11-25 and older); the version the client asked for. */
  | { readonly era: "legacy"; readonly version?: string }
  /** MCP 2026-07-28: per-request `_meta` (`meta` holds the keys of PROTOCOL_META_KEYS). */
  | { readonly era: "modern"; readonly version: string; readonly meta: JsonObject };

/**
 * The protocol a client message shows, or undefined when it shows none: `initialize` is the
 * legacy era; a request whose `params._meta` names `io.modelcontextprotocol/protocolVersion` is
 * MCP 2026-07-28 (its protocol `_meta` keys are kept for the guard's own requests).
 *
 * @example
 * ```ts
 * import { protocolOf } from "./core.ts";
 * protocolOf({
 *   jsonrpc: "2.0", id: 1, method: "tools/list",
 *   params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
 * })?.era; // "modern"
 * ```
 */
export function protocolOf(message: JsonObject): ClientProtocol | undefined {
  const params = message.params;
  if (message.method === "initialize") {
    const v = isJsonObject(params) ? params.protocolVersion : undefined;
    return typeof v === "string" ? { era: "legacy", version: v } : { era: "legacy" };
  }
  const meta = isJsonObject(params) && isJsonObject(params._meta) ? params._meta : undefined;
  const version = meta?.[PROTOCOL_META_KEYS[0]];
  if (meta === undefined || typeof version !== "string") return undefined;
  const kept: JsonObject = {};
  for (const k of PROTOCOL_META_KEYS) if (Object.hasOwn(meta, k)) kept[k] = meta[k];
  return { era: "modern", version, meta: kept };
}

/**
 * The params of a request the guard sends upstream on its own (its `tools/list` and the pages
 * after it): in the MCP 2026-07-28 era they carry the client's protocol `_meta` — the server
 * refuses a request without it — and otherwise they are sent as given.
 *
 * @example
 * ```ts
 * import { ownRequestParams } from "./core.ts";
 * ownRequestParams({ era: "modern", version: "2026-07-28", meta: { a: 1 } }, { cursor: "2" });
 * // { cursor: "2", _meta: { a: 1 } }
 * ```
 */
export function ownRequestParams(
  protocol: ClientProtocol | undefined,
  params: JsonObject,
): JsonObject {
  return protocol?.era === "modern" ? { ...params, _meta: { ...protocol.meta } } : params;
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
export type FetchTools = (protocol: ClientProtocol | undefined) => Promise<FetchedTools>;

/** The guard's own tool list: every page's tools, and the smallest `ttlMs` of the pages. */
export interface FetchedTools {
  /** The `tools` arrays of every page, concatenated. */
  readonly tools: JsonValue[];
  /** The smallest `ttlMs` the pages carried (MCP 2026-07-28), when any did. */
  readonly ttlMs?: number;
}

/**
 * Fetches every page of the guard's own `tools/list` with `request(params)` — the params
 * following the client's protocol ({@linkcode ownRequestParams}) — and notes the pages'
 * smallest `ttlMs`. The transports supply `request`.
 *
 * @example
 * ```ts
 * import { fetchOwnToolList } from "./core.ts";
 * const r = await fetchOwnToolList(undefined, () => Promise.resolve({ tools: [], ttlMs: 5 }), 10, "s");
 * console.log(r.tools.length, r.ttlMs); // 0 5
 * ```
 */
export async function fetchOwnToolList(
  protocol: ClientProtocol | undefined,
  request: (params: JsonObject) => Promise<JsonValue>,
  maxPages: number,
  source: string,
): Promise<FetchedTools> {
  const pages: JsonValue[] = [];
  const listed = await collectPages(
    async (cursor) => {
      const page = await request(
        ownRequestParams(protocol, cursor === undefined ? {} : { cursor }),
      );
      pages.push(page);
      return page;
    },
    maxPages,
    source,
  );
  const ttlMs = smallestTtl(pages);
  return ttlMs === undefined ? { tools: listed.tools } : { tools: listed.tools, ttlMs };
}

/**
 * The smallest `ttlMs` of list pages: a page without a valid one counts as 0 (stale at once —
 * MCP 2026-07-28 requires the field; a guard does not guess a freshness the server did not
 * give). Undefined when there are no pages.
 *
 * @example
 * ```ts
 * import { smallestTtl } from "./core.ts";
 * smallestTtl([{ ttlMs: 5000 }, { ttlMs: 200 }]); // 200
 * smallestTtl([{}]); // 0
 * ```
 */
export function smallestTtl(pages: readonly JsonValue[]): number | undefined {
  let least: number | undefined;
  for (const page of pages) {
    const t = isJsonObject(page) ? page.ttlMs : undefined;
    const ttl = typeof t === "number" && Number.isFinite(t) && t >= 0 ? t : 0;
    least = least === undefined ? ttl : Math.min(least, ttl);
  }
  return least;
}

/**
 * The problems that block a session, with later findings added: a tool the guard already
 * blocked on for the same problems (its own check before a call, then the client's list) is
 * named once.
 */
function mergeVerdicts(
  blocked: readonly ToolVerdict[] | undefined,
  problems: readonly ToolVerdict[],
): ToolVerdict[] {
  const out = [...(blocked ?? [])];
  const keyOf = (v: ToolVerdict) =>
    JSON.stringify([v.name, v.problems, v.digest ?? null, ...(v.file ? [v.file] : [])]);
  const seen = new Set(out.map(keyOf));
  for (const p of problems) {
    const k = keyOf(p);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(p);
    }
  }
  return out;
}

/** Capability names as the lock records them: sorted, `experimental` and `extensions` left out. */
function capabilityNames(capabilities: JsonObject): string[] {
  return Object.keys(capabilities).filter((c) => c !== "experimental" && c !== "extensions")
    .sort();
}

/** Distinct hidden-text warnings remembered to log each once (then the memory starts over). */
const MAX_WARNED = 10_000;

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
      : await this.#checkThenCall(session, message as JsonObject, fetchTools!);
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
    if (!isJsonObject(message) || typeof message.method !== "string") return { forward: true };
    const method = message.method;
    const hasId = Object.hasOwn(message, "id");
    if (method === "initialize" && hasId) this.noteInitialize(session, message.params);
    else if (hasId) this.#noteModern(session, message);
    if (method !== "tools/call") {
      if (!hasId) return { forward: true };
      if (method === "prompts/get" || method === "resources/read") {
        const refused = this.#itemRequestRefusal(session, message.id, method, message.params);
        if (refused) return refused;
      }
      // Every request is remembered with its method (a reused id replaces the earlier one):
      // its answer is judged as what was asked, and an answer to nothing is recognised.
      const params = message.params;
      const cursor = isJsonObject(params) && typeof params.cursor === "string"
        ? params.cursor
        : undefined;
      const uri = SKILL_METHODS.has(method) && isJsonObject(params) &&
          typeof params.uri === "string"
        ? params.uri
        : undefined;
      const key = idKey(message.id);
      pending.delete(key);
      if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
      pending.set(key, {
        method,
        ...(cursor !== undefined ? { cursor } : {}),
        ...(uri !== undefined ? { uri } : {}),
        generation: session.generation,
      });
      return { forward: true, request: { id: message.id, method } };
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
    if (session.freshUntil !== undefined && Date.now() >= session.freshUntil) {
      // MCP 2026-07-28: the list's ttlMs has passed; the guard's view of it is stale.
      session.freshUntil = undefined;
      session.generation++;
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
   *
   * @ignore Internal: the stdio and HTTP transports call it; not public API.
   */
  noteInitialize(session: GuardSession, params: JsonValue | undefined): void {
    // A client that starts over (another era, other capabilities) is checked again.
    if (session.protocol !== undefined) session.generation++;
    session.protocol = protocolOf({ method: "initialize", params: params ?? null });
    session.freshUntil = undefined;
    this.#noteCapabilities(
      session,
      isJsonObject(params) && isJsonObject(params.capabilities) ? params.capabilities : undefined,
    );
  }

  /**
   * A request of an MCP 2026-07-28 client (protocol version in `params._meta`): there is no
   * `initialize`, so the era, version and capabilities the guard uses come from each request.
   */
  #noteModern(session: GuardSession, message: JsonObject): void {
    const protocol = protocolOf(message);
    if (protocol?.era !== "modern") return;
    const before = session.protocol;
    session.protocol = protocol;
    const caps = protocol.meta[PROTOCOL_META_KEYS[1]];
    const names = isJsonObject(caps) ? capabilityNames(caps) : [];
    if (
      before?.era !== "modern" || before.version !== protocol.version ||
      session.clientCapabilities?.join() !== names.join()
    ) {
      // Another version or other capabilities may see another list: what was checked for the
      // previous ones no longer counts.
      if (before !== undefined) session.generation++;
      this.#noteCapabilities(session, isJsonObject(caps) ? caps : undefined);
    }
  }

  /** Records a client's capability names and picks the lock entry pinned for them. */
  #noteCapabilities(session: GuardSession, capabilities: JsonObject | undefined): void {
    const caps = capabilities ? capabilityNames(capabilities) : [];
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
          if (v.kind !== undefined) o.kind = v.kind;
          if (v.file !== undefined) o.file = v.file;
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
      v.kind !== "skill" && v.problems.some((p) => p === "unsigned" || p === "signature_invalid")
    );
    // docs/guard.md, "Skills served over MCP": skills pinned without a verified signature.
    const unsignedSkills = verdicts.some((v) =>
      v.kind === "skill" && v.problems.includes("unsigned")
    );
    const parts: string[] = [];
    if (lockProblem) {
      const lock = this.#policyOf(session).lock;
      const changedVerdicts = verdicts.filter((v) =>
        v.problems.some((p) => p === "drifted" || p === "added" || p === "removed")
      );
      const changed = changedVerdicts.flatMap((v) =>
        v.kind === "skill" ? [] : [v.kind === undefined ? v.name : { kind: v.kind, key: v.name }]
      );
      // Skills are approved one by one with --skill URI (docs/guard.md, "Skills served over
      // MCP").
      const skills = [
        ...new Set(changedVerdicts.filter((v) => v.kind === "skill").map((v) => v.name)),
      ];
      // Issue 17 item 1: the command that shows these very changes and pins only them.
      const approve = shellLine([
        ...approveCommand(
          lock?.file ?? DEFAULT_LOCK_FILE,
          lock?.serverName ?? this.#server,
          changed,
          { yes: false },
        ),
        ...skills.flatMap((uri) => ["--skill", uri]),
      ]);
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
    if (unsignedSkills) {
      parts.push(
        "Skills must be pinned with their SchemaPin signature verified: `schemapin contract " +
          "init` or `approve` with skill signatures required records each check in the lock.",
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
    const lockName = policy.lock?.file ?? DEFAULT_LOCK_FILE;
    const what = policy.lock && policy.signatures
      ? `${lockName} or lack valid SchemaPin signatures`
      : policy.lock
      ? lockName
      : undefined;
    const head = verdicts.every((v) => v.problems.every((p) => p === "hidden_text"))
      ? `tools of server ${this.#server} hold hidden text`
      : verdicts.every((v) => v.kind === "skill" && v.problems.every((p) => p === "unsigned"))
      ? `skills of server ${this.#server} have no verified signature recorded in ${lockName}`
      : what === undefined
      ? `tools of server ${this.#server} lack valid SchemaPin signatures`
      : policy.lock && !policy.signatures
      ? `the ${verdicts.some((v) => v.kind !== undefined) ? "" : "tool "}contracts of server ` +
        `${this.#server} differ from ${what}`
      : `tools of server ${this.#server} differ from ${what}`;
    return `${head} (${describeProblems(verdicts)}). ${this.#remedy(session, verdicts)}`;
  }

  async #ensureChecked(session: GuardSession, fetchTools: FetchTools): Promise<void> {
    if (session.checking) return await session.checking;
    const generation = session.generation;
    const run = (async () => {
      let tools: JsonValue[];
      let ttlMs: number | undefined;
      try {
        ({ tools, ttlMs } = await fetchTools(session.protocol));
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
      this.#noteFreshness(session, ttlMs);
      this.#summary(session, problems, seen, tools.length, true);
    })();
    session.checking = run;
    try {
      await run;
    } finally {
      session.checking = undefined;
    }
  }

  /**
   * After a complete check: in the MCP 2026-07-28 era the list is fresh for its `ttlMs`
   * (0 when the server gave none); before it, until `notifications/tools/list_changed`.
   */
  #noteFreshness(session: GuardSession, ttlMs: number | undefined): void {
    session.freshUntil = session.protocol?.era === "modern"
      ? Date.now() + Math.min(ttlMs ?? 0, MAX_FRESH_MS)
      : undefined;
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
      if (problems.length > 0) session.blocked = mergeVerdicts(session.blocked, problems);
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
        ...(v.kind !== undefined ? { kind: v.kind } : {}),
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

  /**
   * Enforce: a session stopped by a problem refuses `prompts/get` and `resources/read` as it
   * refuses calls; filter: a withheld prompt or resource cannot be fetched by name.
   */
  #itemRequestRefusal(
    session: GuardSession,
    requestId: JsonValue,
    method: string,
    params: JsonValue | undefined,
  ): ClientDecision | undefined {
    if (this.#mode === "audit") return undefined;
    const kind = method === "prompts/get" ? "prompt" : "resource";
    const key = isJsonObject(params) ? params[kind === "prompt" ? "name" : "uri"] : undefined;
    const label = `${method} ${typeof key === "string" ? JSON.stringify(key) : ""}`.trim();
    let refusal: { reason: string; message: string; data: JsonObject } | undefined;
    if (session.blocked) {
      refusal = this.#refusal(
        "blocked",
        `schemapin guard: ${label} refused: ${this.#listProblemSentence(session, session.blocked)}`,
        session.blocked,
      );
    } else if (typeof key === "string") {
      const withheld = session.withheldItems.get(`${kind}\0${key}`);
      if (withheld) {
        refusal = this.#refusal(
          withheld.problems.join(","),
          `schemapin guard: ${label} refused: it was withheld ` +
            `(${describeProblems([withheld])}). ${this.#remedy(session, [withheld])}`,
          [withheld],
        );
      }
    }
    if (refusal === undefined) return undefined;
    this.#log.record({
      decision: "call_refused",
      kind,
      ...(typeof key === "string" ? { tool: key } : {}),
      reason: refusal.reason,
    });
    return {
      forward: false,
      reply: errorResponse(requestId, GUARD_REFUSED, refusal.message, refusal.data),
    };
  }

  /**
   * A page of a client's `prompts/list`, `resources/list` or `resources/templates/list`,
   * checked against the lock entry of that kind like a tools/list page: enforce answers a list
   * with a problem with an error (and stops the session), filter withholds the items that fail,
   * audit passes and logs. A kind the lock does not pin (a lock made before issue 24) passes
   * unchecked, as before, with one log line saying so.
   */
  #surfaceResult(
    session: GuardSession,
    message: JsonObject,
    pending: PendingSurfaceList,
  ): ServerDecision {
    if (!Object.hasOwn(message, "result")) return PASS; // an error answer stays an error
    const result = message.result;
    const policy = this.#policyOf(session);
    const method = SURFACE_SPECS[pending.kind].method;
    if (!policy.pinsSurface(pending.kind)) {
      const note = `unpinned\0${pending.kind}`;
      if (policy.lock && !this.#warned.has(note)) {
        this.#warned.add(note);
        this.#log.record({
          decision: "list_unpinned",
          list: method,
          message: `the lock does not pin ${pending.kind.replace("_", " ")}: ${method} passes ` +
            `unchecked (re-run \`schemapin contract init\` to pin it)`,
        });
      }
      return PASS;
    }
    const page = checkSurfacePage(policy, session.surfaceListings, pending, result);
    if (page.bad !== undefined) {
      return this.#refuseInvalid(
        message.id,
        page.bad,
        `${method} refused: the server's answer is not a list (${page.bad})`,
        method,
      );
    }
    for (const p of page.problems) this.#logProblem(p);
    for (const v of page.verdicts) this.#logHiddenText(v);
    for (const v of page.verdicts) {
      const key = `${v.kind}\0${v.name}`;
      if (v.ok) {
        session.withheldItems.delete(key);
      } else if (this.#mode === "filter") {
        if (session.withheldItems.size >= MAX_WITHHELD_ITEMS) session.withheldItems.clear();
        session.withheldItems.set(key, v);
      }
    }
    if (page.problems.length === 0 && !session.blocked) return PASS;
    this.#log.record({
      decision: this.#mode === "enforce"
        ? "list_refused"
        : this.#mode === "filter"
        ? "list_filtered"
        : "list_audited",
      list: method,
      ...(page.problems.length ? { reason: describeProblems(page.problems) } : {}),
    });
    if (this.#mode === "audit") return PASS;
    if (this.#mode === "enforce") {
      return this.#blockSession(session, message.id, `${method} refused`, page.problems);
    }
    const filtered: JsonObject = {};
    for (const [k, v] of Object.entries(result as JsonObject)) {
      filtered[k] = k === page.member ? page.items.filter((_, i) => page.verdicts[i].ok) : v;
    }
    return { kind: "replace", message: { jsonrpc: "2.0", id: message.id, result: filtered } };
  }

  /**
   * The answer to a client's request about skills (`skills/list`, `skills/get`,
   * `resources/read`, `resources/directory/read`), judged by `lib/guard/skills.ts` against the
   * lock's pinned skills, then decided like a surface list: enforce replaces the answer with an
   * error and stops the session; filter removes the failing skills or directory children (a
   * read or a `skills/get` cannot be partial: refused); audit passes and logs.
   */
  #skillResult(
    session: GuardSession,
    message: JsonObject,
    request: SkillRequest,
  ): ServerDecision {
    if (!Object.hasOwn(message, "result")) return PASS; // an error answer stays an error
    const policy = this.#policyOf(session);
    const j = judgeSkillAnswer(
      policy.lock?.entry.skills,
      request,
      message.result,
      session,
      policy.strictText,
      policy.requireSkillSignature,
    );
    if (j === undefined) return PASS;
    for (const note of j.notes) this.#log.record(note);
    if (j.unpinned) {
      if (policy.lock && !this.#warned.has("unpinned\0skills")) {
        this.#warned.add("unpinned\0skills");
        this.#log.record({
          decision: "list_unpinned",
          list: j.method,
          message: `the lock does not pin skills: ${j.method} passes unchecked (re-run ` +
            "`schemapin contract init` to pin them)",
        });
      }
      return PASS;
    }
    if (j.bad !== undefined) {
      return this.#refuseInvalid(
        message.id,
        j.bad,
        `${j.what} refused: the server's answer is not what was asked (${j.bad})`,
        j.method,
      );
    }
    for (const p of j.problems) this.#logProblem(p);
    for (const v of j.verdicts) this.#logHiddenText(v);
    if (j.problems.length === 0 && !(session.blocked && this.#mode === "enforce")) return PASS;
    this.#log.record({
      decision: this.#mode === "enforce"
        ? "list_refused"
        : this.#mode === "filter"
        ? "list_filtered"
        : "list_audited",
      list: j.method,
      ...(j.problems.length ? { reason: describeProblems(j.problems) } : {}),
    });
    if (this.#mode === "audit") return PASS;
    if (this.#mode === "enforce") {
      return this.#blockSession(session, message.id, `${j.what} refused`, j.problems);
    }
    if (j.filtered) {
      return { kind: "replace", message: { jsonrpc: "2.0", id: message.id, result: j.filtered } };
    }
    return {
      kind: "replace",
      message: errorResponse(
        message.id,
        GUARD_REFUSED,
        `schemapin guard: ${j.what} refused: ${this.#listProblemSentence(session, j.problems)}`,
        this.#errorData(j.problems),
      ),
    };
  }

  /**
   * Enforce: `problems` stop the session (every later call, prompt or read is refused) and the
   * server's answer `id` is replaced by an error that names them.
   */
  #blockSession(
    session: GuardSession,
    id: JsonValue,
    what: string,
    problems: readonly ToolVerdict[],
  ): ServerDecision {
    const blocked = mergeVerdicts(session.blocked, problems);
    session.blocked = blocked;
    session.allowed.clear();
    return {
      kind: "replace",
      message: errorResponse(
        id,
        GUARD_REFUSED,
        `schemapin guard: ${what}: ${this.#listProblemSentence(session, blocked)}`,
        this.#errorData(blocked),
      ),
    };
  }

  /**
   * The answer to an `initialize` (legacy) or `server/discover` (MCP 2026-07-28): its
   * `instructions` are text the model reads, checked against the lock's instructions digest
   * when the lock pins them. Enforce replaces the answer with an error (the client cannot
   * start with instructions nobody approved) and stops the session; filter removes the
   * instructions from the answer; audit passes and logs.
   */
  #instructionsResult(session: GuardSession, message: JsonObject): ServerDecision {
    const result = message.result;
    if (!isJsonObject(result)) return PASS;
    const policy = this.#policyOf(session);
    // An interim (input_required) answer is not allowed here (basic/patterns/mrtr.md): it is
    // judged as instructions that are not a string, so a lock that pins them refuses it.
    const notComplete = Object.hasOwn(result, "resultType") && result.resultType !== "complete";
    const verdict = policy.checkInstructions(
      notComplete
        ? { resultType: result.resultType }
        : Object.hasOwn(result, "instructions")
        ? result.instructions
        : undefined,
    );
    if (verdict === undefined) return PASS;
    this.#logHiddenText(verdict);
    if (verdict.ok) return PASS;
    this.#logProblem(verdict);
    if (this.#mode === "audit") return PASS;
    if (this.#mode === "enforce") {
      return this.#blockSession(session, message.id, "the server's answer was refused", [
        verdict,
      ]);
    }
    const filtered: JsonObject = {};
    for (const [k, v] of Object.entries(result)) if (k !== "instructions") filtered[k] = v;
    return { kind: "replace", message: { jsonrpc: "2.0", id: message.id, result: filtered } };
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
    return await this.#listResult(session, m.id, m.result, request);
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
    const request = pending.get(key);
    if (request === undefined) return this.#unmatched(message);
    if (request.method === "tools/list" && Object.hasOwn(message, "result")) {
      return undefined; // a page to check: fromServer
    }
    pending.delete(key);
    const surface = SURFACE_LIST_METHODS[request.method];
    if (surface !== undefined) {
      return this.#surfaceResult(session, message, {
        kind: surface,
        ...(request.cursor !== undefined ? { cursor: request.cursor } : {}),
      });
    }
    if (request.method === "initialize" || request.method === "server/discover") {
      return this.#instructionsResult(session, message);
    }
    if (SKILL_METHODS.has(request.method)) return this.#skillResult(session, message, request);
    return PASS; // an error answer stays an error; other answers carry no definitions
  }

  /**
   * An answer that is not what was asked (`why`, logged as `list_invalid`): passed in audit,
   * otherwise replaced by an error saying `what`.
   */
  #refuseInvalid(id: JsonValue, why: string, what: string, list?: string): ServerDecision {
    this.#log.record({ decision: "list_invalid", ...(list ? { list } : {}), message: why });
    if (this.#mode === "audit") return PASS;
    return {
      kind: "replace",
      message: errorResponse(id, GUARD_REFUSED, `schemapin guard: ${what}`, this.#errorData([])),
    };
  }

  /**
   * An answer to no request the guard saw (an id it never forwarded, or one already answered):
   * passed, unless it carries definitions — a `tools`, `prompts`, `resources` or
   * `resourceTemplates` array, or `instructions` — that nothing checked (enforce and filter
   * replace it with an error; audit logs it).
   */
  #unmatched(message: JsonObject): ServerDecision {
    const result = message.result;
    if (!isJsonObject(result)) return PASS;
    const members = ["tools", "prompts", "resources", "resourceTemplates", "skills"].filter((m) =>
      Array.isArray(result[m])
    );
    if (Object.hasOwn(result, "instructions")) members.push("instructions");
    if (members.length === 0) return PASS;
    const why = `an answer to no request the guard forwarded carries ${members.join(", ")}`;
    return this.#refuseInvalid(
      message.id,
      why,
      `refused: ${why} (unchecked definitions never reach the client)`,
    );
  }

  async #listResult(
    session: GuardSession,
    id: JsonValue,
    result: JsonValue,
    pending: PendingRequest,
  ): Promise<ServerDecision> {
    const bad = !isJsonObject(result)
      ? "the result is not an object"
      : Object.hasOwn(result, "resultType") && result.resultType !== "complete"
      ? `resultType is ${JSON.stringify(result.resultType)}, not "complete"`
      : !Array.isArray(result.tools)
      ? 'the result has no "tools" array'
      : Object.hasOwn(result, "nextCursor") &&
          (typeof result.nextCursor !== "string" || result.nextCursor === "")
      ? "nextCursor is not a non-empty string"
      : undefined;
    if (bad !== undefined) {
      session.listing = undefined;
      return this.#refuseInvalid(
        id,
        bad,
        `tools/list refused: the server's answer is not a tool list (${bad})`,
      );
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
    const ttl = smallestTtl([page]);
    listing.ttlMs = listing.ttlMs === undefined ? ttl : Math.min(listing.ttlMs, ttl!);
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
      if (listing.complete) {
        session.checkedGeneration = listing.generation;
        this.#noteFreshness(session, listing.ttlMs);
      }
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
