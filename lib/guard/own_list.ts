/**
 * The guard's own `tools/list`: for a `tools/call` that arrives before any checked list (or
 * after the list changed or went stale), the guard lists every page itself, in the client's
 * protocol era (`era.ts`), and notes how long the list is fresh (MCP 2026-07-28 `ttlMs`,
 * server/utilities/caching.md).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { collectPages } from "../mcp/session.ts";
import { type ClientProtocol, ownRequestParams } from "./era.ts";

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
 * import { fetchOwnToolList } from "./own_list.ts";
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
 * import { smallestTtl } from "./own_list.ts";
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
