/**
 * JSON-RPC 2.0 message handling shared by the transports: every incoming message is checked
 * against the JSON-RPC shape before anything uses it (responses must match a request we sent;
 * requests and notifications from the server are recognised so they can be answered or
 * ignored).
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { ServerFailure } from "./errors.ts";

/** A JSON-RPC id as this client issues them. */
export type RequestId = number;

/** A classified incoming message. */
export type IncomingMessage =
  | { type: "result"; id: JsonValue; result: JsonObject }
  | { type: "error"; id: JsonValue; code: number; message: string; data?: JsonValue }
  | { type: "request"; id: JsonValue; method: string }
  | { type: "notification"; method: string };

/**
 * Classifies one parsed JSON value as a JSON-RPC 2.0 message, or throws `malformed`.
 *
 * @example
 * ```ts
 * import { classifyMessage } from "./jsonrpc.ts";
 * classifyMessage({ jsonrpc: "2.0", id: 1, result: {} }).type; // "result"
 * ```
 */
export function classifyMessage(value: JsonValue): IncomingMessage {
  if (!isJsonObject(value)) {
    throw new ServerFailure("malformed", "server sent a JSON value that is not a JSON-RPC object");
  }
  if (value.jsonrpc !== "2.0") {
    throw new ServerFailure("malformed", 'server sent a message without "jsonrpc": "2.0"');
  }
  const hasId = Object.hasOwn(value, "id");
  if (typeof value.method === "string") {
    return hasId
      ? { type: "request", id: value.id, method: value.method }
      : { type: "notification", method: value.method };
  }
  if (!hasId) {
    throw new ServerFailure("malformed", "server sent a message with neither method nor id");
  }
  const hasResult = Object.hasOwn(value, "result");
  const hasError = Object.hasOwn(value, "error");
  if (hasResult === hasError) {
    throw new ServerFailure(
      "malformed",
      `server response ${JSON.stringify(value.id)} must have exactly one of "result" and "error"`,
    );
  }
  if (hasError) {
    const err = value.error;
    if (!isJsonObject(err) || !Number.isInteger(err.code) || typeof err.message !== "string") {
      throw new ServerFailure(
        "malformed",
        "server sent an error without an integer code and message",
      );
    }
    const out: IncomingMessage = {
      type: "error",
      id: value.id,
      code: err.code as number,
      message: err.message,
    };
    if (Object.hasOwn(err, "data")) out.data = err.data;
    return out;
  }
  if (!isJsonObject(value.result)) {
    throw new ServerFailure(
      "malformed",
      `server response ${JSON.stringify(value.id)} has a result that is not an object`,
    );
  }
  return { type: "result", id: value.id, result: value.result };
}

/**
 * The JSON-RPC messages an incoming document holds: one object, or (older protocol
 * revisions) a batch array.
 *
 * @example
 * ```ts
 * import { messagesOf } from "./jsonrpc.ts";
 * messagesOf([{ jsonrpc: "2.0", method: "x" }]).length; // 1
 * ```
 */
export function messagesOf(value: JsonValue): IncomingMessage[] {
  if (Array.isArray(value)) {
    if (value.length === 0) throw new ServerFailure("malformed", "server sent an empty batch");
    return value.map(classifyMessage);
  }
  return [classifyMessage(value)];
}

/**
 * Serialises a request we send.
 *
 * @example
 * ```ts
 * import { encodeRequest } from "./jsonrpc.ts";
 * encodeRequest(1, "tools/list", {}); // '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'
 * ```
 */
export function encodeRequest(id: RequestId, method: string, params?: JsonObject): string {
  return JSON.stringify(
    params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
  );
}

/**
 * Serialises a notification we send.
 *
 * @example
 * ```ts
 * import { encodeNotification } from "./jsonrpc.ts";
 * encodeNotification("notifications/initialized");
 * ```
 */
export function encodeNotification(method: string, params?: JsonObject): string {
  return JSON.stringify(
    params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params },
  );
}

/**
 * Our answer to a request the server sent: `ping` gets an empty result (MCP requires it);
 * anything else gets "method not found", since this client offers no capabilities.
 *
 * @example
 * ```ts
 * import { answerServerRequest } from "./jsonrpc.ts";
 * answerServerRequest(7, "ping"); // '{"jsonrpc":"2.0","id":7,"result":{}}'
 * ```
 */
export function answerServerRequest(id: JsonValue, method: string): string {
  if (method === "ping") return JSON.stringify({ jsonrpc: "2.0", id, result: {} });
  // A client that announced `roots` is asked for them: it has none to share.
  if (method === "roots/list") return JSON.stringify({ jsonrpc: "2.0", id, result: { roots: [] } });
  return JSON.stringify({
    jsonrpc: "2.0",
    id,
    error: { code: -32601, message: `Method not found: ${method}` },
  });
}
