/**
 * The JSON-RPC side of the guard's decisions: the error codes it answers with, the key that
 * matches an answer with its request, the error response it sends, and the shape of a decision
 * on a client or server message (`core.ts` makes the decisions).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";

/**
 * JSON-RPC error code of a guard refusal (a list or call that failed the checks).
 *
 * @example
 * ```ts
 * import { GUARD_REFUSED } from "./jsonrpc.ts";
 * console.log(GUARD_REFUSED); // -32010
 * ```
 */
export const GUARD_REFUSED: number = -32010;
/**
 * JSON-RPC error code when the guarded server failed (exited, garbage, no answer).
 *
 * @example
 * ```ts
 * import { GUARD_SERVER_FAILED } from "./jsonrpc.ts";
 * console.log(GUARD_SERVER_FAILED); // -32011
 * ```
 */
export const GUARD_SERVER_FAILED: number = -32011;
/** JSON-RPC parse error (the guard could not read a client message strictly). */
export const PARSE_ERROR: number = -32700;
/** JSON-RPC invalid request. */
export const INVALID_REQUEST: number = -32600;
/** JSON-RPC invalid params. */
export const INVALID_PARAMS: number = -32602;

/**
 * A key for a JSON-RPC id: string and number ids are distinct (`"1"` is not `1`).
 *
 * @example
 * ```ts
 * import { idKey } from "./jsonrpc.ts";
 * idKey(1) === idKey("1"); // true: the SDKs take them for the same id
 * idKey("a") === idKey(1); // false
 * ```
 */
export function idKey(id: JsonValue | undefined): string {
  // The SDKs read "1" and 1 as the same id (TS: Number(id); Python: coerce_request_id): an
  // answer with the other spelling must still be matched with the request it answers, or a
  // server could slip a list past the checks by quoting its id.
  if (typeof id === "string" && /^-?(0|[1-9][0-9]{0,15})$/.test(id)) return `n${Number(id)}`;
  return typeof id === "string" ? `s${id}` : `n${JSON.stringify(id ?? null)}`;
}

/**
 * A JSON-RPC error response.
 *
 * @example
 * ```ts
 * import { errorResponse } from "./jsonrpc.ts";
 * errorResponse(1, -32010, "refused"); // { jsonrpc: "2.0", id: 1, error: { code: -32010, message: "refused" } }
 * ```
 */
export function errorResponse(
  id: JsonValue | undefined,
  code: number,
  message: string,
  data?: JsonValue,
): JsonObject {
  const error: JsonObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: "2.0", id: id ?? null, error };
}

/** What to do with a client message. */
export type ClientDecision =
  | { readonly forward: true; readonly request?: { id: JsonValue; method: string } }
  | { readonly forward: false; readonly reply?: JsonObject };

/** What to do with a server message. */
export type ServerDecision =
  | { readonly kind: "pass" }
  | { readonly kind: "replace"; readonly message: JsonObject };

/**
 * The server message passes unchanged.
 *
 * @example
 * ```ts
 * import { PASS } from "./jsonrpc.ts";
 * PASS.kind; // "pass"
 * ```
 */
export const PASS: ServerDecision = { kind: "pass" };
