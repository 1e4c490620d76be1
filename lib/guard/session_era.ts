/**
 * What a session learns of its client (`era.ts`): the protocol era and version from its
 * `initialize` or from the protocol `_meta` of each MCP 2026-07-28 request, its capabilities,
 * and the policy the lock pins for them. A client that starts over in another era, version or
 * with other capabilities is checked again (a new generation of the session).
 *
 * @module
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../json/types.ts";
import { capabilityNames, PROTOCOL_META_KEYS, protocolOf } from "./era.ts";
import type { GuardSession } from "./session.ts";
import { type GuardContext, policyOf } from "./context.ts";

/**
 * Records the capabilities of a client's `initialize` (its `params`) in a session and picks
 * the lock entry pinned for them.
 *
 * @example
 * ```ts ignore
 * import { noteInitialize } from "./session_era.ts";
 * noteInitialize(context, session, { protocolVersion: "2025-11-25", capabilities: {} });
 * session.protocol; // { era: "legacy", version: "2025-11-25" }
 * ```
 */
export function noteInitialize(
  context: GuardContext,
  session: GuardSession,
  params: JsonValue | undefined,
): void {
  // A client that starts over (another era, other capabilities) is checked again.
  if (session.protocol !== undefined) session.generation++;
  session.protocol = protocolOf({ method: "initialize", params: params ?? null });
  session.freshUntil = undefined;
  noteCapabilities(
    context,
    session,
    isJsonObject(params) && isJsonObject(params.capabilities) ? params.capabilities : undefined,
  );
}

/**
 * A request of an MCP 2026-07-28 client (protocol version in `params._meta`): there is no
 * `initialize`, so the era, version and capabilities the guard uses come from each request.
 *
 * @example
 * ```ts ignore
 * import { noteModern } from "./session_era.ts";
 * noteModern(context, session, {
 *   jsonrpc: "2.0", id: 1, method: "tools/list",
 *   params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
 * });
 * session.protocol?.era; // "modern"
 * ```
 */
export function noteModern(
  context: GuardContext,
  session: GuardSession,
  message: JsonObject,
): void {
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
    noteCapabilities(context, session, isJsonObject(caps) ? caps : undefined);
  }
}

/** Records a client's capability names and picks the lock entry pinned for them. */
function noteCapabilities(
  context: GuardContext,
  session: GuardSession,
  capabilities: JsonObject | undefined,
): void {
  const caps = capabilities ? capabilityNames(capabilities) : [];
  session.clientCapabilities = caps;
  session.policy = context.policyFor?.(caps);
  const lock = policyOf(context, session).lock;
  if (lock && caps.length > 0) {
    context.records.clientCapabilities(caps, lock.serverName, session.policy !== undefined);
  }
}
