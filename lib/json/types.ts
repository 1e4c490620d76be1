/**
 * JSON value types as produced by the strict parser ({@linkcode parseJson}) and accepted by
 * the canonicalizers.
 *
 * @module
 */

/**
 * Any JSON value. Objects are plain objects whose own enumerable string keys are the JSON
 * names (a `"__proto__"` name is an own data property, never the prototype).
 *
 * @example
 * ```ts
 * import type { JsonValue } from "jsr:@schemapin/schemapin";
 * const v: JsonValue = { name: "tool", tags: ["a", 1, null, true] };
 * ```
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/**
 * A JSON object.
 *
 * @example
 * ```ts
 * import type { JsonObject } from "jsr:@schemapin/schemapin";
 * const o: JsonObject = { a: 1 };
 * ```
 */
export interface JsonObject {
  /** A member: its name and value. */
  [key: string]: JsonValue;
}

/**
 * True when `v` is a JSON object (not an array, not null).
 *
 * @example
 * ```ts
 * import { isJsonObject } from "./types.ts";
 * isJsonObject({}); // true
 * isJsonObject([]); // false
 * ```
 */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
