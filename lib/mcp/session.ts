/**
 * The MCP conversation contractpin needs, independent of transport. The protocol era comes
 * first: `server/discover` at 2026-07-28 (modern: no handshake, the version in every request's
 * `_meta`), falling back to `initialize` and `notifications/initialized` (legacy) on anything
 * that is not positive modern evidence — the way the Python MCP SDK's auto mode does. Then
 * `tools/list`, and for the capabilities the server declares `prompts/list`, `resources/list`
 * and `resources/templates/list`, each following `nextCursor` to the end (contractpin spec §6
 * step 1) with cursor-loop, empty-cursor and page-cap checks.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { ServerFailure } from "./errors.ts";
import { checkArg, checkMethods } from "../arguments.ts";
import type { RequestOptions } from "./pending.ts";
import {
  HEADER_MISMATCH,
  isLegacyVersion,
  META_SERVER_INFO,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  MODERN_PROTOCOL_VERSION,
  type ModernMeta,
  modernParams,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "./era.ts";
import { RAISE_MAX_PAGES } from "../option_hints.ts";

export type { RequestOptions } from "./pending.ts";

/**
 * The legacy protocol revision this client asks for in `initialize`; the server's answer is
 * accepted as given.
 */
export const CLIENT_PROTOCOL_VERSION = "2025-11-25";
/** Default start-up timeout: cold `npx` servers take 20–60 s to download and start. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 90_000;
/** Default timeout for each request after `initialize`. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** Default cap on `tools/list` pages. */
export const DEFAULT_MAX_PAGES = 100;
/**
 * Milliseconds the stdio era probe waits for a `server/discover` answer before it also sends a
 * `ping` (the one request a legacy server answers before `initialize`).
 */
export const PROBE_PING_DELAY_MS = 3_000;
/** Milliseconds a `server/discover` answer may trail the `ping` answer before it is given up. */
export const PROBE_PING_GRACE_MS = 2_000;

/** The protocol eras: `modern` (2026-07-28, no handshake) and `legacy` (`initialize`). */
export type ProtocolEra = "modern" | "legacy";

/** What a transport offers the session. */
export interface McpTransport {
  /**
   * Sends a request; resolves with its result object, or rejects with a {@linkcode
   * ServerFailure} (`rpc_error` for a JSON-RPC error, `timeout`, `exited`, …).
   */
  request(
    method: string,
    params: JsonObject | undefined,
    timeoutMs: number,
    options?: RequestOptions,
  ): Promise<JsonObject>;
  /** Sends a notification. */
  notify(method: string, params?: JsonObject): Promise<void>;
  /** Records the negotiated protocol version (HTTP sends it as a header). */
  setProtocolVersion?(version: string): void;
  /** Ends the session and releases everything (child process, HTTP session). */
  close(): Promise<void>;
  /**
   * True when every request gets an answer of its own (an HTTP status), so the era probe needs
   * no liveness check. Stdio and the legacy HTTP+SSE transport leave it unset: a legacy server
   * may drop a `server/discover` without a word.
   */
  readonly answersEveryRequest?: boolean;
  /**
   * True for a transport that only carries the legacy era (HTTP+SSE, 2024-11-05): `auto` sends
   * `initialize` straight away, and `modern` fails without a request.
   */
  readonly legacyOnly?: boolean;
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
  /**
   * The protocol era: `auto` (default) probes with `server/discover` and falls back to
   * `initialize`; `modern` fails unless the server speaks 2026-07-28; `legacy` sends
   * `initialize` straight away (as before the 2026-07-28 revision).
   */
  era?: "auto" | ProtocolEra;
  /** Enumerate tools only (no prompts, resources, resource templates). */
  toolsOnly?: boolean;
  /**
   * Called once the lists are complete, on the same open session, for a caller that reads more
   * before the session is closed (the skills of SEP-2640, `lib/skill/served_fetch.ts`). A
   * {@linkcode ServerFailure} it throws fails the enumeration as a list failure does.
   */
  afterList?: (session: ListedSession) => Promise<void>;
}

/** The open session {@linkcode ListOptions.afterList} is given. */
export interface ListedSession {
  /** Sends a request in the session's era (modern `_meta` added); resolves with its result. */
  request(method: string, params: JsonObject): Promise<JsonObject>;
  /** The capabilities the server declared. */
  readonly capabilities: JsonObject;
  /** The era of the session. */
  readonly era: ProtocolEra;
  /** Every page of `resources/list`; undefined when not enumerated. */
  readonly resources?: JsonValue[];
  /** Names the server in messages (`server files`). */
  readonly source: string;
  /** Most pages of a list to follow. */
  readonly maxPages: number;
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
  /** The protocol era the listing was made in (absent for files). */
  readonly era?: ProtocolEra;
  /** The server's instructions (discover or initialize result); null when it serves none. */
  readonly instructions?: string | null;
  /** Every page of `prompts/list`, concatenated; undefined when not enumerated. */
  readonly prompts?: JsonValue[];
  /** Every page of `resources/list`, concatenated; undefined when not enumerated. */
  readonly resources?: JsonValue[];
  /** Every page of `resources/templates/list`, concatenated; undefined when not enumerated. */
  readonly resourceTemplates?: JsonValue[];
  /**
   * The surface capabilities (`prompts`, `resources`) the server does not declare, whose kinds
   * are therefore `[]` without a request. Kept out of {@linkcode ToolListing.notices} so a
   * tools-only server's report does not gain a note per kind.
   */
  readonly undeclared?: string[];
}

/**
 * Follows the pages of a paginated list to the end (§6 step 1): `fetchPage(undefined)` first,
 * then the cursor each page names. Fails on a page that is not a result with a `member` array,
 * an empty or repeated cursor (a loop would otherwise run forever, or silently truncate), or
 * more than `maxPages` pages. `method` and `member` name the list in messages
 * (`"prompts/list"`, `"prompts"`).
 *
 * @example
 * ```ts
 * import { collectList } from "./session.ts";
 * import type { JsonValue } from "../json/types.ts";
 * const pages: JsonValue[] = [{ prompts: [{ name: "a" }], nextCursor: "2" }, {
 *   prompts: [{ name: "b" }],
 * }];
 * const r = await collectList(
 *   (c) => Promise.resolve(pages[c ? 1 : 0]),
 *   10,
 *   "demo",
 *   "prompts/list",
 *   "prompts",
 * );
 * console.log(r.items.length, r.pages); // 2 2
 * ```
 */
export async function collectList(
  fetchPage: (cursor: string | undefined, index: number) => Promise<JsonValue>,
  maxPages: number,
  source: string,
  method: string,
  member: string,
): Promise<{ items: JsonValue[]; pages: number }> {
  checkArg("collectList", "fetchPage", fetchPage, "function");
  checkArg("collectList", "maxPages", maxPages, "number");
  checkArg("collectList", "source", source, "string");
  checkArg("collectList", "method", method, "string");
  checkArg("collectList", "member", member, "string");
  const items: JsonValue[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0;; page++) {
    if (page >= maxPages) {
      throw new ServerFailure(
        "protocol",
        `${source}: ${method} still had more pages after ${maxPages} (page cap; ` +
          `${RAISE_MAX_PAGES})`,
      );
    }
    const result = await fetchPage(cursor, page);
    if (!isJsonObject(result)) {
      throw new ServerFailure(
        "malformed",
        `${source}: ${method} page ${page + 1} is not an object`,
      );
    }
    const list = Object.hasOwn(result, member) ? result[member] : undefined;
    if (!Array.isArray(list)) {
      throw new ServerFailure(
        "malformed",
        `${source}: ${method} page ${page + 1} has no "${member}" array`,
      );
    }
    items.push(...list);
    if (!Object.hasOwn(result, "nextCursor")) return { items, pages: page + 1 };
    const next = result.nextCursor;
    if (typeof next !== "string") {
      throw new ServerFailure(
        "malformed",
        `${source}: ${method} page ${page + 1} has a nextCursor that is not a string`,
      );
    }
    if (next === "") {
      throw new ServerFailure(
        "protocol",
        `${source}: ${method} page ${page + 1} has an empty nextCursor (cannot tell the end ` +
          `of the list from a request for the first page)`,
      );
    }
    if (seen.has(next)) {
      throw new ServerFailure(
        "protocol",
        `${source}: ${method} cursor loop: page ${page + 1} repeats the cursor ` +
          `${JSON.stringify(next.length > 40 ? next.slice(0, 40) + "…" : next)}`,
      );
    }
    seen.add(next);
    cursor = next;
  }
}

/**
 * Follows `tools/list` pages to the end: {@linkcode collectList} for `tools/list` and its
 * `tools` member.
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
  const r = await collectList(fetchPage, maxPages, source, "tools/list", "tools");
  return { tools: r.items, pages: r.pages };
}

/** The outcome of the era probe. */
type Verdict =
  | { era: "modern"; discover: JsonObject }
  | { era: "legacy"; why: string };

/** The `supported` list of an UnsupportedProtocolVersion error, or undefined. */
function supportedOf(failure: ServerFailure): string[] | undefined {
  const data = failure.rpcData;
  if (!isJsonObject(data) || !Array.isArray(data.supported)) return undefined;
  const list = data.supported;
  return list.every((v) => typeof v === "string") ? list as string[] : undefined;
}

/**
 * Sends `server/discover` at {@linkcode MODERN_PROTOCOL_VERSION} and judges the era from the
 * answer (denylist, as the Python SDK's `negotiate_auto`): a DiscoverResult listing
 * 2026-07-28 is modern; a recognized modern error (UnsupportedProtocolVersion whose `supported`
 * list names no legacy version, HeaderMismatch, MissingRequiredClientCapability) is a modern
 * server this client cannot talk to and fails; any other JSON-RPC error, a 4xx without a
 * modern error body, a result without a modern version, or silence is legacy. Transport
 * failures (spawn, connect, exit, malformed bytes, 5xx) propagate: never an era verdict.
 *
 * The wait: the whole start-up budget, since the probe is the first message a cold server
 * (`npx` downloading it) reads. A legacy server may drop the probe without a word, so where
 * requests have no answer of their own (stdio), a `ping` follows after
 * {@linkcode PROBE_PING_DELAY_MS}: legacy servers must answer it before `initialize`. When the
 * ping is answered and the probe still is not, {@linkcode PROBE_PING_GRACE_MS} later, the
 * server is legacy. A server that answers neither within the budget is legacy too (the spec's
 * "does not respond within a reasonable timeout"), and `initialize` gets its own budget.
 */
async function probeEra(
  transport: McpTransport,
  meta: ModernMeta,
  timeoutMs: number,
  source: string,
): Promise<Verdict> {
  const abort = new AbortController();
  const options: RequestOptions = { probe: true, signal: abort.signal };
  const discover = transport.request("server/discover", modernParams(undefined, meta), timeoutMs, {
    ...options,
  }).then((result) => ({ result }), (error: unknown) => ({ error }));
  let outcome: { result: JsonObject } | { error: unknown } | "silent";
  if (transport.answersEveryRequest) {
    outcome = await discover;
  } else {
    let done = false;
    let pingTimer: ReturnType<typeof setTimeout> | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const silent = new Promise<"silent">((resolve) => {
      const answered = () => {
        if (!done) graceTimer = setTimeout(() => resolve("silent"), PROBE_PING_GRACE_MS);
      };
      pingTimer = setTimeout(() => {
        transport.request("ping", undefined, timeoutMs, options).then(answered, (e) => {
          if (e instanceof ServerFailure && e.kind === "rpc_error") answered();
        });
      }, PROBE_PING_DELAY_MS);
    });
    outcome = await Promise.race([discover, silent]);
    done = true;
    clearTimeout(pingTimer);
    clearTimeout(graceTimer);
  }
  abort.abort(new ServerFailure("timeout", `${source}: the era probe was given up`));
  if (outcome === "silent") {
    return { era: "legacy", why: "the server answered ping but not server/discover" };
  }
  if ("result" in outcome) {
    const result = outcome.result;
    const versions = result.supportedVersions;
    if (!Array.isArray(versions)) {
      return { era: "legacy", why: "the server/discover result has no supportedVersions list" };
    }
    if (!versions.includes(MODERN_PROTOCOL_VERSION)) {
      return {
        era: "legacy",
        why: `server/discover lists no version this client speaks (${
          versions.map((v) => JSON.stringify(v)).join(", ")
        })`,
      };
    }
    return { era: "modern", discover: result };
  }
  const e = outcome.error;
  if (!(e instanceof ServerFailure)) throw e;
  if (e.kind === "rpc_error") {
    const code = e.rpcCode;
    if (code === UNSUPPORTED_PROTOCOL_VERSION) {
      const supported = supportedOf(e);
      if (supported !== undefined && !supported.some(isLegacyVersion)) {
        throw new ServerFailure(
          "protocol",
          `${source}: the server speaks only ${supported.join(", ") || "no version"} ` +
            `(UnsupportedProtocolVersion to ${MODERN_PROTOCOL_VERSION}); this client speaks ` +
            `${MODERN_PROTOCOL_VERSION} and the legacy initialize handshake`,
          e.stderr,
          code,
        );
      }
    } else if (code === HEADER_MISMATCH || code === MISSING_REQUIRED_CLIENT_CAPABILITY) {
      throw new ServerFailure(
        "protocol",
        `${source}: the server is modern but refused server/discover: ${e.message}`,
        e.stderr,
        code,
      );
    }
    return { era: "legacy", why: `server/discover was refused (${e.message})` };
  }
  const status = e.httpStatus ?? 0;
  // 401/403 are about credentials, not the era: initialize would be refused the same way.
  if (e.kind === "http" && status >= 400 && status < 500 && status !== 401 && status !== 403) {
    return { era: "legacy", why: `server/discover got HTTP ${status}` };
  }
  if (e.kind === "timeout" && !(transport.answersEveryRequest)) {
    return { era: "legacy", why: "the server did not answer server/discover" };
  }
  throw e;
}

/** The handshake result the enumeration works from, whichever era. */
interface Opening {
  era: ProtocolEra;
  version: string;
  capabilities: JsonObject;
  instructions: string | null;
  serverInfo?: JsonObject;
  notices: string[];
}

function instructionsOf(result: JsonObject, what: string, source: string): string | null {
  if (!Object.hasOwn(result, "instructions")) return null;
  const text = result.instructions;
  if (typeof text !== "string") {
    throw new ServerFailure(
      "malformed",
      `${source}: ${what} result has instructions that are not a string`,
    );
  }
  return text;
}

function modernOpening(discover: JsonObject, source: string): Opening {
  checkComplete(discover, "server/discover", source);
  if (!isJsonObject(discover.capabilities)) {
    throw new ServerFailure(
      "malformed",
      `${source}: server/discover result has no capabilities object`,
    );
  }
  const meta = discover._meta;
  const info = isJsonObject(meta) ? meta[META_SERVER_INFO] : undefined;
  return {
    era: "modern",
    version: MODERN_PROTOCOL_VERSION,
    capabilities: discover.capabilities,
    instructions: instructionsOf(discover, "server/discover", source),
    ...(isJsonObject(info) ? { serverInfo: info } : {}),
    notices: [],
  };
}

/** A modern result with a `resultType` other than `complete` cannot be used as a list. */
function checkComplete(result: JsonObject, method: string, source: string): JsonObject {
  if (Object.hasOwn(result, "resultType") && result.resultType !== "complete") {
    throw new ServerFailure(
      "protocol",
      `${source}: ${method} answered with resultType ${
        JSON.stringify(result.resultType)
      } (a list needs a complete result)`,
    );
  }
  return result;
}

async function legacyOpening(
  transport: McpTransport,
  options: ListOptions,
  startup: number,
  source: string,
): Promise<Opening> {
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
  const instructions = instructionsOf(init, "initialize", source);
  transport.setProtocolVersion?.(version);
  await transport.notify("notifications/initialized");
  return {
    era: "legacy",
    version,
    capabilities: init.capabilities,
    instructions,
    ...(isJsonObject(init.serverInfo) ? { serverInfo: init.serverInfo } : {}),
    notices: [],
  };
}

/** The other kinds of the model-visible surface: capability, list method, result member. */
const SURFACE_KINDS = [
  { capability: "prompts", method: "prompts/list", member: "prompts", key: "prompts" },
  { capability: "resources", method: "resources/list", member: "resources", key: "resources" },
  {
    capability: "resources",
    method: "resources/templates/list",
    member: "resourceTemplates",
    key: "resourceTemplates",
  },
] as const;

/**
 * Opens the conversation in the right protocol era and enumerates the model-visible surface
 * over an open transport: every tool and, for the capabilities the server declares, every
 * prompt, resource and resource template, plus its instructions. Does not close the transport
 * (the caller does, also on failure).
 *
 * Era (`options.era`, default `auto`): see {@linkcode ListOptions.era}; in modern mode every
 * request carries the 2026-07-28 `_meta` (and on HTTP its headers), and a list answered with a
 * `resultType` other than `complete` fails. A kind whose capability is not declared is `[]`
 * (named in `undeclared`); a declared kind whose list fails is a {@linkcode ServerFailure}
 * (fail closed).
 *
 * @example
 * ```ts
 * import { listTools } from "./session.ts";
 * import { spawnStdio } from "./stdio.ts";
 * const transport = spawnStdio({ command: ["node", "server.js"] });
 * try {
 *   const listing = await listTools(transport, { requestTimeoutMs: 5000 });
 *   console.log(
 *     listing.era,
 *     listing.serverInfo?.name,
 *     listing.tools.length,
 *     "tools in",
 *     listing.pages,
 *     "pages",
 *     listing.prompts?.length,
 *     "prompts",
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
  const era = options.era ?? "auto";
  if (era !== "auto" && era !== "modern" && era !== "legacy") {
    // Programming-error assertion: the type admits only these eras; only a cast reaches here
    // (a TypeError, which callers and tests/mcp/era_test.ts catch by type).
    throw new TypeError(`listTools: options.era must be "auto", "modern" or "legacy"`);
  }
  const startup = options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const timeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const meta: ModernMeta = {
    protocolVersion: MODERN_PROTOCOL_VERSION,
    clientCapabilities: Object.fromEntries(
      (options.clientCapabilities ?? []).map((c) => [c, {}]),
    ),
    clientInfo: { name: "schemapin-contractpin", version: options.clientVersion ?? "0" },
  };
  let opening: Opening;
  if (era === "modern" && transport.legacyOnly) {
    throw new ServerFailure(
      "protocol",
      `${source}: the transport carries only legacy MCP (HTTP+SSE), not ${MODERN_PROTOCOL_VERSION}`,
    );
  }
  if (era === "legacy" || transport.legacyOnly) {
    opening = await legacyOpening(transport, options, startup, source);
  } else {
    const verdict = await probeEra(transport, meta, startup, source);
    if (verdict.era === "modern") {
      opening = modernOpening(verdict.discover, source);
    } else if (era === "modern") {
      throw new ServerFailure(
        "protocol",
        `${source}: the server does not speak ${MODERN_PROTOCOL_VERSION} (${verdict.why})`,
      );
    } else {
      opening = await legacyAfterProbe(transport, options, meta, startup, source, verdict.why);
    }
  }
  const request = opening.era === "modern"
    ? async (method: string, params: JsonObject) =>
      checkComplete(
        await transport.request(method, modernParams(params, meta), timeout),
        method,
        source,
      )
    : (method: string, params: JsonObject) => transport.request(method, params, timeout);
  const maxPages = options.maxPages ?? DEFAULT_MAX_PAGES;
  const notices = opening.notices;
  const caps = opening.capabilities;
  const declaresTools = Object.hasOwn(caps, "tools");
  let listed: { tools: JsonValue[]; pages: number };
  try {
    listed = await collectPages(
      (cursor) => request("tools/list", cursor === undefined ? {} : { cursor }),
      maxPages,
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
  const undeclared: string[] = [];
  const surface: {
    prompts?: JsonValue[];
    resources?: JsonValue[];
    resourceTemplates?: JsonValue[];
  } = {};
  if (!options.toolsOnly) {
    for (const kind of SURFACE_KINDS) {
      if (!Object.hasOwn(caps, kind.capability)) {
        if (!undeclared.includes(kind.capability)) undeclared.push(kind.capability);
        surface[kind.key] = [];
        continue;
      }
      try {
        surface[kind.key] = (await collectList(
          (cursor) => request(kind.method, cursor === undefined ? {} : { cursor }),
          maxPages,
          source,
          kind.method,
          kind.member,
        )).items;
      } catch (e) {
        if (!(e instanceof ServerFailure)) throw e;
        const failure = new ServerFailure(
          e.kind,
          `${e.message} (the server declares the ${kind.capability} capability)`,
          e.stderr,
          e.rpcCode,
        );
        if (e.httpStatus !== undefined) failure.httpStatus = e.httpStatus;
        if (e.rpcData !== undefined) failure.rpcData = e.rpcData;
        throw failure;
      }
    }
  }
  if (options.afterList) {
    await options.afterList({
      request,
      capabilities: caps,
      era: opening.era,
      resources: surface.resources,
      source,
      maxPages,
    });
  }
  const out: ToolListing = {
    tools: listed.tools,
    pages: listed.pages,
    protocolVersion: opening.version,
    notices,
    ...(opening.serverInfo ? { serverInfo: opening.serverInfo } : {}),
    era: opening.era,
    instructions: opening.instructions,
    ...surface,
    ...(options.toolsOnly ? {} : { undeclared }),
  };
  return out;
}

/**
 * The legacy handshake after a probe said legacy. An `initialize` refused with
 * UnsupportedProtocolVersion naming 2026-07-28 is modern evidence after all (a probe given up
 * on a slow server that then locked the connection modern): one more probe, as the Python SDK.
 */
async function legacyAfterProbe(
  transport: McpTransport,
  options: ListOptions,
  meta: ModernMeta,
  startup: number,
  source: string,
  why: string,
): Promise<Opening> {
  try {
    return await legacyOpening(transport, options, startup, source);
  } catch (e) {
    if (
      e instanceof ServerFailure && e.rpcCode === UNSUPPORTED_PROTOCOL_VERSION &&
      (supportedOf(e) ?? []).includes(MODERN_PROTOCOL_VERSION)
    ) {
      const again = await probeEra(transport, meta, startup, source);
      if (again.era === "modern") return modernOpening(again.discover, source);
    }
    if (e instanceof ServerFailure) e.message += ` (after the era probe: ${why})`;
    throw e;
  }
}
