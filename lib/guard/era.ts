/**
 * The protocol era a client speaks, as the guard learns it from the client's messages: the
 * `initialize` handshake (MCP 2025-11-25 and older) or the per-request protocol `_meta` of MCP
 * 2026-07-28 (basic/versioning.md), and what the guard's own requests upstream carry to follow
 * it. The session state built on it is in `session.ts`.
 *
 * @module
 */
import type { JsonObject } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from "../mcp/era.ts";

/**
 * The `_meta` keys of MCP 2026-07-28 that carry a request's protocol version, the client's
 * capabilities and identity (basic/versioning.md); the guard copies them from the client's
 * latest request into its own requests.
 *
 * @example
 * ```ts
 * import { PROTOCOL_META_KEYS } from "./era.ts";
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
 * import { protocolOf } from "./era.ts";
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
 * import { ownRequestParams } from "./era.ts";
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

/**
 * Capability names as the lock records them: sorted, `experimental` and `extensions` left out.
 *
 * @example
 * ```ts
 * import { capabilityNames } from "./era.ts";
 * capabilityNames({ sampling: {}, experimental: {}, roots: {} }); // ["roots", "sampling"]
 * ```
 */
export function capabilityNames(capabilities: JsonObject): string[] {
  return Object.keys(capabilities).filter((c) => c !== "experimental" && c !== "extensions")
    .sort();
}
