/**
 * The two MCP protocol eras. Modern (2026-07-28 and later) has no `initialize` handshake and
 * no sessions: every request carries its protocol version, client capabilities and client
 * identity in `params._meta`, and on Streamable HTTP also the `MCP-Protocol-Version`,
 * `Mcp-Method` and (for name-bearing methods) `Mcp-Name` headers. Legacy (2025-11-25 and
 * older) opens with `initialize`. This module holds the constants and the request decoration
 * both the contract client (lib/mcp/session.ts) and the guard use.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { checkArg } from "../arguments.ts";

/** The modern protocol revision this client speaks. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/** `_meta` key of the request's protocol version. */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
/** `_meta` key of the client capabilities object. */
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** `_meta` key of the client identity (`{name, version}`). */
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
/** `_meta` key of the server identity in a modern result. */
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
/** JSON-RPC code of `UnsupportedProtocolVersionError` (2026-07-28). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** JSON-RPC code of `HeaderMismatchError` (2026-07-28). */
export const HEADER_MISMATCH = -32020;
/** JSON-RPC code of `MissingRequiredClientCapabilityError` (2026-07-28). */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/** The JSON-RPC error codes only a modern server sends (positive evidence of the era). */
export const MODERN_ERROR_CODES: readonly number[] = [
  HEADER_MISMATCH,
  MISSING_REQUIRED_CLIENT_CAPABILITY,
  UNSUPPORTED_PROTOCOL_VERSION,
];

/** What a modern request declares about its client in `_meta`. */
export interface ModernMeta {
  /** The protocol version of the request (`2026-07-28`). */
  readonly protocolVersion: string;
  /** The client capabilities object (`{}` for none). */
  readonly clientCapabilities: JsonObject;
  /** The client identity. */
  readonly clientInfo: { readonly name: string; readonly version: string };
}

/**
 * The params of a modern request: `params` (or `{}`) with the three required `_meta` keys
 * added, keeping any `_meta` keys the caller already set (`progressToken`, trace context …).
 * Does not modify `params`.
 *
 * @example
 * ```ts
 * import { modernParams } from "./era.ts";
 * const p = modernParams({ cursor: "2" }, {
 *   protocolVersion: "2026-07-28",
 *   clientCapabilities: {},
 *   clientInfo: { name: "demo", version: "1" },
 * });
 * console.log(p._meta); // { "io.modelcontextprotocol/protocolVersion": "2026-07-28", … }
 * ```
 */
export function modernParams(params: JsonObject | undefined, meta: ModernMeta): JsonObject {
  checkArg("modernParams", "meta", meta, "object");
  checkArg("modernParams", "meta.protocolVersion", meta.protocolVersion, "string");
  checkArg("modernParams", "meta.clientCapabilities", meta.clientCapabilities, "object");
  checkArg("modernParams", "meta.clientInfo", meta.clientInfo, "object");
  const base: JsonObject = params === undefined ? {} : { ...params };
  const previous = isJsonObject(base._meta) ? base._meta : {};
  base._meta = {
    ...previous,
    [META_PROTOCOL_VERSION]: meta.protocolVersion,
    [META_CLIENT_CAPABILITIES]: meta.clientCapabilities,
    [META_CLIENT_INFO]: { name: meta.clientInfo.name, version: meta.clientInfo.version },
  };
  return base;
}

/**
 * The protocol version a request's `params._meta` declares, or undefined for a request that
 * does not carry one (a legacy request).
 *
 * @example
 * ```ts
 * import { modernVersionOf } from "./era.ts";
 * modernVersionOf({ _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } });
 * // "2026-07-28"
 * modernVersionOf({ cursor: "x" }); // undefined
 * ```
 */
export function modernVersionOf(params: JsonObject | undefined): string | undefined {
  const meta = params?._meta;
  if (!isJsonObject(meta)) return undefined;
  const v = meta[META_PROTOCOL_VERSION];
  return typeof v === "string" ? v : undefined;
}

/** Methods whose request names its target in `Mcp-Name`, and the param that holds the name. */
const NAME_PARAM: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
};

const SENTINEL = /^=\?base64\?.*\?=$/s;

/**
 * A header value as the 2026-07-28 Streamable HTTP transport carries it: a plain value when it
 * is visible ASCII and spaces (0x20–0x7E) without leading or trailing whitespace, else
 * `=?base64?{Base64 of the UTF-8}?=` — also for a plain value that looks like that sentinel.
 * Empty strings are plain.
 *
 * @example
 * ```ts
 * import { encodeHeaderValue } from "./era.ts";
 * encodeHeaderValue("get_weather"); // "get_weather"
 * encodeHeaderValue("Hello, 世界"); // "=?base64?SGVsbG8sIOS4lueVjA==?="
 * encodeHeaderValue(" padded "); // "=?base64?IHBhZGRlZCA=?="
 * ```
 */
export function encodeHeaderValue(value: string): string {
  checkArg("encodeHeaderValue", "value", value, "string");
  const plain = /^[\x20-\x7e]*$/.test(value) && !/^\s|\s$/.test(value) &&
    !SENTINEL.test(value);
  if (plain) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `=?base64?${btoa(binary)}?=`;
}

/**
 * A header value as {@linkcode encodeHeaderValue} wrote it, decoded from the `=?base64?…?=`
 * form when it has it (basic/transports/streamable-http.md); undefined when that form holds
 * bad Base64 or bytes that are not UTF-8.
 *
 * @example
 * ```ts
 * import { decodeHeaderValue } from "./era.ts";
 * decodeHeaderValue("=?base64?YWRk?="); // "add"
 * decodeHeaderValue("add"); // "add"
 * ```
 */
export function decodeHeaderValue(value: string): string | undefined {
  const m = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (!m) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(atob(m[1]), (c) => c.charCodeAt(0)),
    );
  } catch {
    return undefined;
  }
}

/**
 * The 2026-07-28 request headers of one Streamable HTTP POST: `MCP-Protocol-Version`,
 * `Mcp-Method`, and `Mcp-Name` for `tools/call` and `prompts/get` (`params.name`) and
 * `resources/read` (`params.uri`) when that param is a string. Values outside plain visible
 * ASCII are Base64-encoded ({@linkcode encodeHeaderValue}).
 *
 * @example
 * ```ts
 * import { mcpRequestHeaders } from "./era.ts";
 * mcpRequestHeaders("tools/call", { name: "add" }, "2026-07-28");
 * // [["MCP-Protocol-Version", "2026-07-28"], ["Mcp-Method", "tools/call"], ["Mcp-Name", "add"]]
 * ```
 */
export function mcpRequestHeaders(
  method: string,
  params: JsonObject | undefined,
  protocolVersion: string,
): [string, string][] {
  checkArg("mcpRequestHeaders", "method", method, "string");
  checkArg("mcpRequestHeaders", "protocolVersion", protocolVersion, "string");
  const out: [string, string][] = [
    ["MCP-Protocol-Version", encodeHeaderValue(protocolVersion)],
    ["Mcp-Method", encodeHeaderValue(method)],
  ];
  const key = Object.hasOwn(NAME_PARAM, method) ? NAME_PARAM[method] : undefined;
  const name: JsonValue | undefined = key === undefined ? undefined : params?.[key];
  if (typeof name === "string") out.push(["Mcp-Name", encodeHeaderValue(name)]);
  return out;
}

/**
 * Whether a protocol version string names a modern revision (a `YYYY-MM-DD` date from
 * 2026-07-28 on).
 *
 * @example
 * ```ts
 * import { isModernVersion } from "./era.ts";
 * isModernVersion("2026-07-28"); // true
 * isModernVersion("2025-11-25"); // false
 * ```
 */
export function isModernVersion(version: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(version) && version >= MODERN_PROTOCOL_VERSION;
}

/**
 * Whether a protocol version string names a legacy (handshake-era) revision: a `YYYY-MM-DD`
 * date before 2026-07-28.
 *
 * @example
 * ```ts
 * import { isLegacyVersion } from "./era.ts";
 * isLegacyVersion("2025-11-25"); // true
 * isLegacyVersion("2026-07-28"); // false
 * ```
 */
export function isLegacyVersion(version: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(version) && version < MODERN_PROTOCOL_VERSION;
}
