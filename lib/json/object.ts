/**
 * Small helpers for reading untrusted parsed JSON objects without touching their prototype.
 *
 * @module
 */

/**
 * True when `value` is a JSON object (not null, not an array).
 *
 * @example
 * ```ts
 * import { isJsonObject } from "./object.ts";
 * isJsonObject({}); // true
 * isJsonObject([]); // false
 * ```
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The value of an own property, or `undefined` when `obj` does not have it itself (inherited
 * properties such as `constructor` or a polluted prototype never count).
 *
 * @example
 * ```ts
 * import { ownField } from "./object.ts";
 * ownField({ a: 1 }, "a"); // 1
 * ownField({}, "constructor"); // undefined
 * ```
 */
export function ownField(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * A plain object with the given entries, built with `Object.defineProperty` so that keys such
 * as `__proto__` become ordinary own properties.
 *
 * @example
 * ```ts
 * import { objectFromEntries } from "./object.ts";
 * Object.keys(objectFromEntries([["__proto__", 1]])); // ["__proto__"]
 * ```
 */
export function objectFromEntries<T>(entries: Iterable<[string, T]>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [k, v] of entries) {
    Object.defineProperty(out, k, {
      value: v,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * A short name of a JSON value's type for error messages.
 *
 * @example
 * ```ts
 * import { typeName } from "./object.ts";
 * typeName([]); // "an array"
 * ```
 */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return "a string";
  if (typeof value === "number") return "a number";
  if (typeof value === "boolean") return "a boolean";
  return typeof value;
}
