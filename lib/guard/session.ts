/**
 * The state of one client session of the guard (one stdio guard; one `Mcp-Session-Id` over
 * HTTP): what was checked and when, which tools pass, which are withheld, what blocked the
 * session, the client's requests waiting for answers, and the changes a decision makes to it.
 * The decisions themselves are in `core.ts`; what a session learns of its client's protocol era
 * is in `session_era.ts`.
 *
 * @module
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../json/types.ts";
import type { SurfaceKind } from "../contractpin/surface.ts";
import type { GuardMode, GuardPolicy, SeenTools, ToolVerdict } from "./policy.ts";
import type { SurfaceListing } from "./surface.ts";
import type { ClientProtocol } from "./era.ts";
import { idKey } from "./jsonrpc.ts";
import { smallestTtl } from "./own_list.ts";

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
   * upstream on its own follows it (see `ownRequestParams` in `era.ts`).
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

/**
 * Remembers a client request with its method (a reused id replaces the earlier one), so that
 * its answer is judged as what was asked and an answer to nothing is recognised; the oldest is
 * forgotten past a bound.
 *
 * @example
 * ```ts
 * import { GuardSession, rememberRequest } from "./session.ts";
 * const s = new GuardSession();
 * rememberRequest(s.pending, s.generation, 1, "tools/list", { cursor: "2" }, false);
 * s.pending.get("n1"); // { method: "tools/list", cursor: "2", generation: 0 }
 * ```
 */
export function rememberRequest(
  pending: PendingRequests,
  generation: number,
  id: JsonValue | undefined,
  method: string,
  params: JsonValue | undefined,
  aboutSkills: boolean,
): void {
  const cursor = isJsonObject(params) && typeof params.cursor === "string"
    ? params.cursor
    : undefined;
  const uri = aboutSkills && isJsonObject(params) && typeof params.uri === "string"
    ? params.uri
    : undefined;
  const key = idKey(id);
  pending.delete(key);
  if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value!);
  pending.set(key, {
    method,
    ...(cursor !== undefined ? { cursor } : {}),
    ...(uri !== undefined ? { uri } : {}),
    generation,
  });
}

/**
 * MCP 2026-07-28: once the list's `ttlMs` has passed, the guard's view of it is stale (a new
 * generation: the next `tools/call` makes the guard list again).
 *
 * @example
 * ```ts
 * import { expireIfStale, GuardSession } from "./session.ts";
 * const s = new GuardSession();
 * s.freshUntil = 0;
 * expireIfStale(s, 1);
 * s.generation; // 1
 * ```
 */
export function expireIfStale(session: GuardSession, now: number): void {
  if (session.freshUntil !== undefined && now >= session.freshUntil) {
    session.freshUntil = undefined;
    session.generation++;
  }
}

/**
 * After a complete check: in the MCP 2026-07-28 era the list is fresh for its `ttlMs`
 * (0 when the server gave none); before it, until `notifications/tools/list_changed`.
 *
 * @example
 * ```ts
 * import { GuardSession, noteFreshness } from "./session.ts";
 * const s = new GuardSession();
 * noteFreshness(s, 5000);
 * s.freshUntil; // undefined: a legacy client's list is fresh until list_changed
 * ```
 */
export function noteFreshness(session: GuardSession, ttlMs: number | undefined): void {
  session.freshUntil = session.protocol?.era === "modern"
    ? Date.now() + Math.min(ttlMs ?? 0, MAX_FRESH_MS)
    : undefined;
}

/**
 * The problems that block a session, with later findings added: a tool the guard already
 * blocked on for the same problems (its own check before a call, then the client's list) is
 * named once.
 *
 * @example
 * ```ts
 * import { mergeVerdicts } from "./session.ts";
 * const v = { name: "echo", ok: false, problems: ["drifted" as const] };
 * mergeVerdicts([v], [v]).length; // 1
 * ```
 */
export function mergeVerdicts(
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

/**
 * Enforce: `problems` stop the session (every later call, prompt or read is refused); returns
 * everything that blocks it now.
 *
 * @example
 * ```ts
 * import { blockSession, GuardSession } from "./session.ts";
 * const s = new GuardSession();
 * blockSession(s, [{ name: "echo", ok: false, problems: ["drifted"] }]).length; // 1
 * ```
 */
export function blockSession(
  session: GuardSession,
  problems: readonly ToolVerdict[],
): ToolVerdict[] {
  const blocked = mergeVerdicts(session.blocked, problems);
  session.blocked = blocked;
  session.allowed.clear();
  return blocked;
}

/**
 * Records the verdicts of a tools/list page or whole list in the session: enforce blocks the
 * session on a problem; filter allows the tools that passed and withholds the others (a
 * malformed entry does not withdraw a tool that passed under the same name); audit changes
 * nothing.
 *
 * @example
 * ```ts
 * import { applyVerdicts, GuardSession } from "./session.ts";
 * const s = new GuardSession();
 * applyVerdicts(s, "filter", 0, [{ name: "echo", ok: true, problems: [] }], [], true);
 * s.allowed.get("echo"); // 0
 * ```
 */
export function applyVerdicts(
  session: GuardSession,
  mode: GuardMode,
  generation: number,
  verdicts: readonly ToolVerdict[],
  problems: readonly ToolVerdict[],
  whole: boolean,
): void {
  if (mode === "audit") return;
  if (mode === "enforce" && (problems.length > 0 || session.blocked)) {
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
 * Records the verdicts of a prompts or resources page: an item that passed is no longer
 * withheld; filter withholds one that failed (the memory is bounded and starts over).
 *
 * @example
 * ```ts
 * import { GuardSession, noteWithheldItems } from "./session.ts";
 * const s = new GuardSession();
 * noteWithheldItems(s, "filter", [{ name: "greet", kind: "prompt", ok: false, problems: ["added"] }]);
 * s.withheldItems.has("prompt\0greet"); // true
 * ```
 */
export function noteWithheldItems(
  session: GuardSession,
  mode: GuardMode,
  verdicts: readonly ToolVerdict[],
): void {
  for (const v of verdicts) {
    const key = `${v.kind}\0${v.name}`;
    if (v.ok) {
      session.withheldItems.delete(key);
    } else if (mode === "filter") {
      if (session.withheldItems.size >= MAX_WITHHELD_ITEMS) session.withheldItems.clear();
      session.withheldItems.set(key, v);
    }
  }
}

/**
 * The client's `tools/list` a page belongs to, counted with the page: a first page starts a
 * list; a page out of sequence starts a partial one (no "removed" check: the guard has not seen
 * the whole list).
 *
 * @example
 * ```ts
 * import { GuardSession, toolListingOf } from "./session.ts";
 * const s = new GuardSession();
 * const l = toolListingOf(s, { method: "tools/list", generation: 0 }, { tools: [], ttlMs: 9 });
 * [l.complete, l.pages, l.ttlMs]; // [true, 1, 9]
 * ```
 */
export function toolListingOf(
  session: GuardSession,
  pending: PendingRequest,
  page: JsonObject,
): GuardListing {
  let listing = session.listing;
  if (
    pending.cursor === undefined || !listing || listing.expectCursor !== pending.cursor ||
    listing.generation !== pending.generation
  ) {
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
  listing.expectCursor = page.nextCursor as string | undefined;
  const ttl = smallestTtl([page]);
  listing.ttlMs = listing.ttlMs === undefined ? ttl : Math.min(listing.ttlMs, ttl!);
  return listing;
}

/**
 * The last page of a client's `tools/list` has been checked: a list that started at its first
 * page is the checked list (tools it did not approve are no longer allowed, and it is fresh
 * from now).
 *
 * @example
 * ```ts
 * import { endToolListing, GuardSession, toolListingOf } from "./session.ts";
 * const s = new GuardSession();
 * const l = toolListingOf(s, { method: "tools/list", generation: 0 }, { tools: [] });
 * endToolListing(s, l, "enforce");
 * s.checkedGeneration; // 0
 * ```
 */
export function endToolListing(
  session: GuardSession,
  listing: GuardListing,
  mode: GuardMode,
): void {
  session.listing = undefined;
  if (listing.complete && !session.blocked && mode !== "audit") {
    for (const name of [...session.allowed.keys()]) {
      if (!listing.approved.has(name)) session.allowed.delete(name);
    }
  }
  if (listing.complete) {
    session.checkedGeneration = listing.generation;
    noteFreshness(session, listing.ttlMs);
  }
}
