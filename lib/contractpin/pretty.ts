/**
 * Readable, stable JSON text for files people review in git (the lock, the snapshot): object
 * names sorted, two-space indent, LF line endings, trailing newline (contractpin spec §5
 * "Formatting"). Not a canonical form — nothing hashes these bytes.
 *
 * @module
 */

/**
 * Serialises a JSON value with sorted object names and two-space indentation, without the
 * trailing newline (see {@linkcode prettyJsonFile}).
 *
 * @example
 * ```ts
 * import { prettyJson } from "./pretty.ts";
 * prettyJson({ b: 1, a: [true] }); // '{\n  "a": [\n    true\n  ],\n  "b": 1\n}'
 * ```
 */
export function prettyJson(value: unknown, indent = ""): string {
  if (value === null || typeof value !== "object") {
    const text = JSON.stringify(value);
    // Programming-error assertion: the lock and snapshot writers pass JSON values only.
    if (text === undefined) throw new TypeError(`${typeof value} is not a JSON value`);
    return text;
  }
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return "[\n" + value.map((v) => inner + prettyJson(v, inner)).join(",\n") + "\n" + indent +
      "]";
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  if (keys.length === 0) return "{}";
  return "{\n" +
    keys.map((k) => inner + JSON.stringify(k) + ": " + prettyJson(record[k], inner)).join(",\n") +
    "\n" + indent + "}";
}

/**
 * {@linkcode prettyJson} plus the trailing newline a file ends with.
 *
 * @example
 * ```ts
 * import { prettyJsonFile } from "./pretty.ts";
 * prettyJsonFile({ a: 1 }); // '{\n  "a": 1\n}\n'
 * ```
 */
export function prettyJsonFile(value: unknown): string {
  return prettyJson(value) + "\n";
}
