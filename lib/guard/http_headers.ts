/**
 * The headers of the HTTP guard: which client headers go upstream and which upstream headers
 * come back, the headers of the guard's own requests, the key of a request's guard session,
 * the loopback checks of the listener and of `Origin` (DNS rebinding), and the MCP 2026-07-28
 * routing headers checked against the body (basic/transports/streamable-http.md).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { decodeHeaderValue } from "../mcp/era.ts";
import type { ClientProtocol } from "./core.ts";
import { checkArg } from "../arguments.ts";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-authenticate",
  "proxy-connection",
  "host",
  "content-length",
  "accept-encoding",
]);

/**
 * True for a host name or address on the loopback interface.
 *
 * @example
 * ```ts
 * import { isLoopbackHost } from "./http_headers.ts";
 * isLoopbackHost("127.0.0.1"); // true
 * isLoopbackHost("0.0.0.0"); // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  checkArg("isLoopbackHost", "host", host, "string");
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * True for an `Origin` on the loopback interface (a browser page elsewhere must not drive the
 * guard).
 *
 * @example
 * ```ts ignore
 * isLoopbackOrigin("http://127.0.0.1:3000"); // true
 * ```
 */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") && isLoopbackHost(u.hostname);
  } catch {
    return false;
  }
}

/**
 * The client's headers to send upstream: hop-by-hop headers and `Origin` removed.
 *
 * @example
 * ```ts ignore
 * fetch(upstream, { headers: upstreamHeaders(req.headers) });
 * ```
 */
export function upstreamHeaders(from: Headers): Headers {
  const h = new Headers();
  for (const [k, v] of from) if (!HOP_BY_HOP.has(k) && k !== "origin") h.append(k, v);
  return h;
}

/**
 * The headers of a request the guard sends on its own (`method`), from the client's headers
 * (auth, session, `MCP-Protocol-Version`): JSON in, JSON or SSE out, `Mcp-Method` naming this
 * request when the client speaks MCP 2026-07-28, and none of the client's per-request headers
 * (`Mcp-Name`, `Mcp-Param-*`: they describe the client's own request).
 *
 * @example
 * ```ts
 * import { ownRequestHeaders } from "./http_headers.ts";
 * const h = ownRequestHeaders(
 *   new Headers({ "mcp-method": "tools/call", "mcp-name": "add" }),
 *   "tools/list",
 * );
 * h.get("mcp-method"); // "tools/list"
 * h.has("mcp-name"); // false
 * ```
 */
export function ownRequestHeaders(
  from: Headers,
  method: string,
  protocol?: ClientProtocol,
): Headers {
  const h = new Headers();
  for (const [k, v] of from) {
    if (k === "mcp-name" || k === "mcp-method" || k.startsWith("mcp-param-")) continue;
    h.append(k, v);
  }
  if (protocol?.era === "modern") {
    // MCP 2026-07-28 (basic/transports/streamable-http.md): every POST names its method and
    // carries the protocol version of its _meta.
    h.set("mcp-method", method);
    h.set("mcp-protocol-version", protocol.version);
  } else if (from.has("mcp-method")) {
    h.set("mcp-method", method);
  }
  h.set("content-type", "application/json");
  h.set("accept", "application/json, text/event-stream");
  return h;
}

/**
 * The upstream's response headers to pass to the client: hop-by-hop headers and
 * `Content-Encoding` removed (the body is passed on decoded).
 *
 * @example
 * ```ts ignore
 * new Response(body, { headers: clientHeaders(response.headers) });
 * ```
 */
export function clientHeaders(from: Headers): Headers {
  const h = new Headers();
  for (const [k, v] of from) {
    if (!HOP_BY_HOP.has(k) && k !== "content-encoding") h.append(k, v);
  }
  return h;
}

/**
 * The key of the guard's state for a request: its `Mcp-Session-Id`; without one (stateless
 * Streamable HTTP — every MCP 2026-07-28 server, and sessionless servers before it), the
 * protocol version and the credentials it is sent with: clients of the same version and
 * authorization context see the same list (MCP 2026-07-28 lists do not vary per connection,
 * and a `cacheScope: "private"` list is shared only within one authorization context). The
 * key stays in memory and is never logged.
 *
 * @example
 * ```ts
 * import { sessionKey } from "./http_headers.ts";
 * sessionKey(new Headers({ "mcp-session-id": "s1" })); // "s1"
 * ```
 */
export function sessionKey(headers: Headers): string {
  const id = headers.get("mcp-session-id");
  if (id !== null) return id;
  const version = headers.get("mcp-protocol-version");
  if (version === null) return "";
  return ["", "stateless", version, headers.get("authorization") ?? "", headers.get("cookie") ?? ""]
    .join("\0");
}

/**
 * Why the MCP 2026-07-28 routing headers of a POST do not match its body, or undefined when
 * they do (basic/transports/streamable-http.md, "Server validation"): `Mcp-Method` must be the
 * body's method and `Mcp-Name` its `params.name` (`params.uri` for `resources/read`), decoded
 * from `=?base64?…?=` when encoded. The guard decides on the body; an upstream that routed on
 * a header that says something else would run what the guard never checked, so a mismatch is
 * refused rather than forwarded.
 *
 * @example
 * ```ts
 * import { headerMismatch } from "./http_headers.ts";
 * const msg = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add" } };
 * headerMismatch(new Headers({ "mcp-method": "tools/call", "mcp-name": "rm" }), [msg]);
 * // "Mcp-Name is \"rm\" but the body names \"add\""
 * ```
 */
export function headerMismatch(headers: Headers, items: readonly JsonValue[]): string | undefined {
  const method = headers.get("mcp-method");
  const name = headers.get("mcp-name");
  if (method === null && name === null) return undefined;
  const requests = items.filter((m) => isJsonObject(m) && typeof m.method === "string");
  if (requests.length !== 1 || items.length !== 1) {
    return "Mcp-Method/Mcp-Name headers on a message that is not exactly one request";
  }
  const m = requests[0] as JsonObject;
  if (method !== null && method !== m.method) {
    return `Mcp-Method is ${JSON.stringify(method)} but the body's method is ` +
      JSON.stringify(m.method);
  }
  const params = isJsonObject(m.params) ? m.params : {};
  const member = m.method === "resources/read" ? "uri" : "name";
  const named = m.method === "tools/call" || m.method === "prompts/get" ||
    m.method === "resources/read";
  if (name === null) {
    return named ? `Mcp-Name is missing for ${m.method}` : undefined;
  }
  const decoded = decodeHeaderValue(name);
  if (!named || decoded !== params[member]) {
    return `Mcp-Name is ${JSON.stringify(decoded ?? name)} but the body names ` +
      JSON.stringify(named ? params[member] ?? null : null);
  }
  return undefined;
}
