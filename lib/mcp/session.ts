/**
 * The MCP conversation contractpin needs, independent of transport: `initialize`, the
 * `notifications/initialized` notification, then `tools/list` following `nextCursor` to the
 * end (contractpin spec §6 step 1), with cursor-loop, empty-cursor and page-cap checks.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { ServerFailure } from "./errors.ts";
import { checkArg, checkMethods } from "../arguments.ts";

/** The protocol revision this client asks for; the server's answer is accepted as given. */
export const CLIENT_PROTOCOL_VERSION = "2025-11-25";
/** Default start-up timeout: cold `npx` servers take 20–60 s to download and start. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 90_000;
/** Default timeout for each request after `initialize`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default cap on `tools/list` pages. */
export const DEFAULT_MAX_PAGES = 100;

/** What a transport offers the session. */
export interface McpTransport {
  /**
   * Sends a request; resolves with its result object, or rejects with a {@linkcode
   * ServerFailure} (`rpc_error` for a JSON-RPC error, `timeout`, `exited`, …).
   */
  request(method: string, params: JsonObject | undefined, timeoutMs: number): Promise<JsonObject>;
  /** Sends a notification. */
  notify(method: string, params?: JsonObject): Promise<void>;
  /** Records the negotiated protocol version (HTTP sends it as a header). */
  setProtocolVersion?(version: string): void;
  /** Ends the session and releases everything (child process, HTTP session). */
  close(): Promise<void>;
}

/** Limits of one enumeration. */
export interface ListOptions {
  /** Milliseconds for start-up (spawn or connect) plus the `initialize` answer. */
  startupTimeoutMs?: number;
  /** Milliseconds for every later request. */
  requestTimeoutMs?: number;
  /** Most `tools/list` pages to follow before failing. */
  maxPages?: number;
  /** Client version sent in `clientInfo`. */
  clientVersion?: string;
  /**
   * Client capabilities to announce (`roots`, `sampling`, `elicitation` …, each as `{}`);
   * none by default. Some servers list other tools to clients that have them.
   */
  clientCapabilities?: readonly string[];
}

/** A complete tool enumeration. */
export interface ToolListing {
  /** The `tools` arrays of every page, concatenated in order. */
  readonly tools: JsonValue[];
  /** How many pages the list came in. */
  readonly pages: number;
  /** The protocol version the server answered (absent for files). */
  readonly protocolVersion?: string;
  /** The server's `serverInfo` (absent for files). */
  readonly serverInfo?: JsonObject;
  /** Informational notes (e.g. "server does not declare the tools capability"). */
  readonly notices: string[];
  era?: "modern" | "legacy";
  instructions?: string | null; // from the discover or initialize result; null = none served
  prompts?: JsonValue[]; // every page of prompts/list, concatenated; undefined = not enumerated
  resources?: JsonValue[]; // resources/list
  resourceTemplates?: JsonValue[]; // resources/templates/list
}

/**
 * Follows pages to the end (§6 step 1): `fetchPage(undefined)` first, then the cursor each
 * page names. Fails on a page that is not a `tools/list` result, an empty or repeated cursor
 * (a loop would otherwise run forever, or silently truncate), or more than `maxPages` pages.
 *
 * @example
 * ```ts
 * import { collectPages } from "./session.ts";
 * import type { JsonValue } from "../json/types.ts";
 * const pages: JsonValue[] = [{ tools: [{ name: "a" }], nextCursor: "2" }, {
 *   tools: [{ name: "b" }],
 * }];
 * const r = await collectPages((c) => Promise.resolve(pages[c ? 1 : 0]), 10, "demo");
 * console.log(r.tools.length, r.pages); // 2 2
 * ```
 */
export async function collectPages(
  fetchPage: (cursor: string | undefined, index: number) => Promise<JsonValue>,
  maxPages: number,
  source: string,
): Promise<{ tools: JsonValue[]; pages: number }> {
  checkArg("collectPages", "fetchPage", fetchPage, "function");
  checkArg("collectPages", "maxPages", maxPages, "number");
  checkArg("collectPages", "source", source, "string");
  const tools: JsonValue[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0;; page++) {
    if (page >= maxPages) {
      throw new ServerFailure(
        "protocol",
        `${source}: tools/list still had more pages after ${maxPages} (page cap; raise it ` +
          `with --max-pages if the server really has that many)`,
      );
    }
    const result = await fetchPage(cursor, page);
    if (!isJsonObject(result)) {
      throw new ServerFailure(
        "malformed",
        `${source}: tools/list page ${page + 1} is not an object`,
      );
    }
    if (!Array.isArray(result.tools)) {
      throw new ServerFailure(
        "malformed",
        `${source}: tools/list page ${page + 1} has no "tools" array`,
      );
    }
    tools.push(...result.tools);
    if (!Object.hasOwn(result, "nextCursor")) return { tools, pages: page + 1 };
    const next = result.nextCursor;
    if (typeof next !== "string") {
      throw new ServerFailure(
        "malformed",
        `${source}: tools/list page ${page + 1} has a nextCursor that is not a string`,
      );
    }
    if (next === "") {
      throw new ServerFailure(
        "protocol",
        `${source}: tools/list page ${page + 1} has an empty nextCursor (cannot tell the end ` +
          `of the list from a request for the first page)`,
      );
    }
    if (seen.has(next)) {
      throw new ServerFailure(
        "protocol",
        `${source}: tools/list cursor loop: page ${page + 1} repeats the cursor ` +
          `${JSON.stringify(next.length > 40 ? next.slice(0, 40) + "…" : next)}`,
      );
    }
    seen.add(next);
    cursor = next;
  }
}

/**
 * Runs the MCP handshake and enumerates every tool over an open transport. Does not close
 * the transport (the caller does, also on failure).
 *
 * @example
 * ```ts
 * import { listTools, spawnStdio } from "jsr:@schemapin/schemapin/contractpin";
 * const transport = spawnStdio({ command: ["node", "server.js"] });
 * try {
 *   const listing = await listTools(transport, { requestTimeoutMs: 5000 });
 *   console.log(
 *     listing.serverInfo?.name,
 *     listing.tools.length,
 *     "tools in",
 *     listing.pages,
 *     "pages",
 *   );
 * } finally {
 *   await transport.close();
 * }
 * ```
 */
export async function listTools(
  transport: McpTransport,
  options: ListOptions = {},
  source = "server",
): Promise<ToolListing> {
  checkMethods(
    "listTools",
    "transport",
    transport,
    ["request", "notify", "close"],
    "an McpTransport",
  );
  checkArg("listTools", "options", options, "object");
  checkArg("listTools", "source", source, "string");
  const startup = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const timeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const init = await transport.request("initialize", {
    protocolVersion: CLIENT_PROTOCOL_VERSION,
    capabilities: Object.fromEntries((options.clientCapabilities ?? []).map((c) => [c, {}])),
    clientInfo: { name: "schemapin-contractpin", version: options.clientVersion ?? "0" },
  }, startup);
  const version = init.protocolVersion;
  if (typeof version !== "string" || version === "") {
    throw new ServerFailure("malformed", `${source}: initialize result has no protocolVersion`);
  }
  if (!isJsonObject(init.capabilities)) {
    throw new ServerFailure("malformed", `${source}: initialize result has no capabilities object`);
  }
  transport.setProtocolVersion?.(version);
  await transport.notify("notifications/initialized");
  const notices: string[] = [];
  const declaresTools = Object.hasOwn(init.capabilities, "tools");
  let listed: { tools: JsonValue[]; pages: number };
  try {
    listed = await collectPages(
      (cursor) => transport.request("tools/list", cursor === undefined ? {} : { cursor }, timeout),
      options.maxPages ?? DEFAULT_MAX_PAGES,
      source,
    );
  } catch (e) {
    // A server that declares no tools capability and does not know tools/list has no tools.
    if (!declaresTools && e instanceof ServerFailure && e.rpcCode === -32601) {
      notices.push("server does not declare the tools capability and has no tools/list");
      listed = { tools: [], pages: 0 };
    } else {
      throw e;
    }
  }
  if (!declaresTools && listed.pages > 0) {
    notices.push("server does not declare the tools capability but answered tools/list");
  }
  const out: ToolListing = {
    tools: listed.tools,
    pages: listed.pages,
    protocolVersion: version,
    notices,
    ...(isJsonObject(init.serverInfo) ? { serverInfo: init.serverInfo } : {}),
  };
  return out;
}
