/**
 * The guard's view of the rest of the model-visible surface (issue 24, docs/contractpin-surface.md):
 * which requests are `prompts/list`, `resources/list` and `resources/templates/list`, and the
 * page-by-page state of one such list in a session — the same paging rules as tools (a list
 * that starts at its first page can tell removed items at its last; a page out of sequence
 * starts a partial one). The decisions (modes, messages, the log) stay in `core.ts`.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import {
  LISTING_MEMBER,
  SURFACE_KINDS,
  SURFACE_SPECS,
  type SurfaceKind,
} from "../contractpin/surface.ts";
import type { GuardPolicy, SeenTools, ToolVerdict } from "./policy.ts";

/**
 * The list method of each surface kind.
 *
 * @example
 * ```ts
 * import { SURFACE_LIST_METHODS } from "./surface.ts";
 * SURFACE_LIST_METHODS["prompts/list"]; // "prompts"
 * ```
 */
export const SURFACE_LIST_METHODS: Readonly<Record<string, SurfaceKind>> = Object.fromEntries(
  SURFACE_KINDS.map((kind) => [SURFACE_SPECS[kind].method, kind]),
);

/** A client's surface list request waiting for its answer. */
export interface PendingSurfaceList {
  /** Which kind. */
  readonly kind: SurfaceKind;
  /** The cursor it asked with (undefined: the first page). */
  readonly cursor?: string;
}

/** One surface list in progress in a session. */
export interface SurfaceListing {
  /** True when it started at the first page. */
  readonly complete: boolean;
  /** Keys and digests served so far. */
  readonly seen: SeenTools;
  /** The cursor the next page must be asked with. */
  expectCursor: string | undefined;
}

/** The judgement of one page of a surface list. */
export type SurfacePage =
  /** Not a list of that kind: `why`. */
  | { readonly bad: string }
  /** Judged: every item's verdict, the problems (with removed items at a complete end). */
  | {
    readonly bad?: undefined;
    readonly member: string;
    readonly items: readonly JsonValue[];
    readonly verdicts: readonly ToolVerdict[];
    readonly problems: readonly ToolVerdict[];
  };

/**
 * Judges one page of a surface list answer (`result`) for `pending`, keeping the list's state
 * in `listings` (one per kind). Call it only when the policy pins the kind.
 *
 * @example
 * ```ts ignore
 * const page = checkSurfacePage(policy, session.surfaceListings, pending, message.result);
 * ```
 */
export function checkSurfacePage(
  policy: GuardPolicy,
  listings: Map<SurfaceKind, SurfaceListing>,
  pending: PendingSurfaceList,
  result: JsonValue,
): SurfacePage {
  // The list result's member is named like the listing's (MCP schema: resourceTemplates).
  const member = LISTING_MEMBER[pending.kind];
  const bad = badListPage(result, member);
  if (bad !== undefined) {
    listings.delete(pending.kind);
    return { bad };
  }
  const page = result as JsonObject;
  const items = page[member] as JsonValue[];
  const next = page.nextCursor as string | undefined;
  let listing = listings.get(pending.kind);
  if (pending.cursor === undefined || !listing || listing.expectCursor !== pending.cursor) {
    listing = { complete: pending.cursor === undefined, seen: new Map(), expectCursor: undefined };
    listings.set(pending.kind, listing);
  }
  listing.expectCursor = next;
  const verdicts = policy.checkSurface(pending.kind, items, listing.seen);
  const last = next === undefined;
  const removed = last && listing.complete ? policy.removedSurface(pending.kind, listing.seen) : [];
  if (last) listings.delete(pending.kind);
  return { member, items, verdicts, problems: [...verdicts.filter((v) => !v.ok), ...removed] };
}

/**
 * Why a list page is not one (a `member` array, `resultType` complete, a non-empty string
 * `nextCursor` when there is one), or `undefined` — for every list the guard checks.
 *
 * @example
 * ```ts
 * import { badListPage } from "./surface.ts";
 * badListPage({ prompts: [] }, "prompts"); // undefined
 * badListPage({ prompts: [], nextCursor: "" }, "prompts"); // "nextCursor is not a non-empty string"
 * ```
 */
export function badListPage(result: JsonValue, member: string): string | undefined {
  return !isJsonObject(result)
    ? "the result is not an object"
    : Object.hasOwn(result, "resultType") && result.resultType !== "complete"
    ? `resultType is ${JSON.stringify(result.resultType)}, not "complete"`
    : !Array.isArray(result[member])
    ? `the result has no "${member}" array`
    : Object.hasOwn(result, "nextCursor") &&
        (typeof result.nextCursor !== "string" || result.nextCursor === "")
    ? "nextCursor is not a non-empty string"
    : undefined;
}
