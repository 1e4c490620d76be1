/**
 * Server messages on their way to an HTTP guard's client: every message of a document goes
 * through the core (a drifted `tools/list` answer is replaced by the refusal), an SSE block is
 * passed on byte for byte unless the core replaced its message, and a forwarded request the
 * upstream left unanswered gets a JSON-RPC error of its own.
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { messagesOf } from "../mcp/jsonrpc.ts";
import { formatSseEvent, type SseEvent, sseMessageData } from "../mcp/sse.ts";
import {
  errorResponse,
  GUARD_SERVER_FAILED,
  type GuardCore,
  type GuardSession,
  type PendingRequests,
} from "./core.ts";

/**
 * Runs every message of a server document (one message or a batch) through the core; returns
 * the document to pass on when the core replaced a message, undefined when it is unchanged.
 * Ids of answers seen are added to `answered`.
 *
 * @example
 * ```ts ignore
 * const changed = await judgeServerMessages(core, session, doc, new Set());
 * ```
 */
export async function judgeServerMessages(
  core: GuardCore,
  session: GuardSession,
  value: JsonValue,
  answered: Set<JsonValue>,
  pending: PendingRequests = session.pending,
): Promise<JsonValue | undefined> {
  messagesOf(value); // strict JSON-RPC 2.0 shape
  const items = Array.isArray(value) ? value : [value];
  const out: JsonValue[] = [];
  let changed = false;
  for (const m of items) {
    if (isJsonObject(m) && typeof m.method !== "string") answered.add(m.id);
    const d = await core.fromServer(session, m, pending);
    if (d.kind === "replace") {
      changed = true;
      out.push(d.message);
    } else {
      out.push(m);
    }
  }
  if (!changed) return undefined;
  return Array.isArray(value) ? out : out[0];
}

/**
 * One upstream SSE block on its way to the client: a JSON-RPC message goes through the core
 * and is passed on byte for byte unless the core replaced it (then re-encoded with the
 * block's own `id`, `event` and `retry`). Every other block — priming events (`id:` with
 * empty data, MCP 2025-11-25), `retry:`, comments — is passed on unchanged, so the client's
 * `Last-Event-ID` resumption works through the guard.
 *
 * @example
 * ```ts ignore
 * for (const e of parser.push(chunk)) ctrl.enqueue(await relayEvent(core, source, e, session, answered));
 * ```
 */
export async function relayEvent(
  core: GuardCore,
  source: string,
  e: SseEvent,
  session: GuardSession,
  answered: Set<JsonValue>,
  pending?: PendingRequests,
): Promise<Uint8Array> {
  const data = sseMessageData(e);
  if (data === undefined) return e.raw;
  const doc = parseJson(data, `${source} event stream`);
  const changed = await judgeServerMessages(core, session, doc, answered, pending);
  if (changed === undefined) return e.raw;
  return formatSseEvent({
    data: JSON.stringify(changed),
    event: e.event,
    id: e.id,
    retry: e.retry,
  });
}

/**
 * The JSON-RPC errors of the forwarded requests the upstream has not answered: one per
 * request, naming the server and why.
 *
 * @example
 * ```ts
 * import { failForwarded } from "./http_relay.ts";
 * failForwarded("server acme", [{ id: 1 }, { id: 2 }], new Set([1]), "no answer within 30 s");
 * // [{ jsonrpc: "2.0", id: 2, error: { code: -32011, message: "schemapin guard: server acme: …" } }]
 * ```
 */
export function failForwarded(
  source: string,
  requests: readonly { id: JsonValue }[],
  answered: Set<JsonValue>,
  why: string,
): JsonObject[] {
  return requests.filter((r) => !answered.has(r.id)).map((r) =>
    errorResponse(r.id, GUARD_SERVER_FAILED, `schemapin guard: ${source}: ${why}`)
  );
}

/**
 * A JSON-RPC message of the guard's own, as one SSE event.
 *
 * @example
 * ```ts
 * import { sseEvent } from "./http_relay.ts";
 * new TextDecoder().decode(sseEvent({ jsonrpc: "2.0", method: "ping" }));
 * // 'data: {"jsonrpc":"2.0","method":"ping"}\n\n'
 * ```
 */
export function sseEvent(value: JsonValue): Uint8Array {
  return formatSseEvent({ data: JSON.stringify(value) });
}
