/**
 * Reading the members of a lock document strictly (contractpin spec §5): the format version
 * the unknown-member errors name, the error of a malformed member (with its JSON Pointer), and
 * the readers of keys, strings, digests and string records that lib/contractpin/lock.ts and
 * lock_surface.ts share.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "./contract.ts";
import { DIGEST_PATTERN } from "./digest.ts";

/**
 * The lock format version this implementation reads and writes (§5 `contractpin`).
 *
 * @example
 * ```ts
 * import { LOCK_VERSION } from "./lock_fields.ts";
 * console.log(LOCK_VERSION); // "1"
 * ```
 */
export const LOCK_VERSION = "1";

/**
 * The error of a malformed lock member: `INPUT_INVALID`, the message prefixed with the lock's
 * name, `details.source` and `details.field` (a JSON Pointer) for programs.
 *
 * @example
 * ```ts
 * import { invalid } from "./lock_fields.ts";
 * invalid("contractpin.lock", "/servers must be an object", "/servers").details.field; // "/servers"
 * ```
 */
export function invalid(source: string, message: string, field?: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", `${source}: ${message}`, { source, field });
}

/**
 * A JSON Pointer (RFC 6901) of member names, each escaped.
 *
 * @example
 * ```ts
 * import { ptr } from "./lock_fields.ts";
 * ptr("servers", "a/b"); // "/servers/a~1b"
 * ```
 */
export function ptr(...parts: string[]): string {
  return "/" + parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

/**
 * Refuses a member of `o` that `allowed` does not name (a misspelt key would otherwise be
 * ignored silently).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming the member and the allowed ones
 *
 * @example
 * ```ts
 * import { checkKeys } from "./lock_fields.ts";
 * checkKeys({ digest: "x" }, ["digest"], "contractpin.lock", "/servers/a");
 * ```
 */
export function checkKeys(o: JsonObject, allowed: string[], source: string, at: string): void {
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) {
      throw invalid(
        source,
        `unknown member ${JSON.stringify(key)} at ${at || "/"} (lock format ${LOCK_VERSION} ` +
          `allows ${allowed.join(", ")})`,
        `${at}/${key}`,
      );
    }
  }
}

/**
 * The string member `key` of `o`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when it is missing or not a string
 *
 * @example
 * ```ts
 * import { str } from "./lock_fields.ts";
 * str({ url: "https://h/mcp" }, "url", "contractpin.lock", "/servers/a"); // "https://h/mcp"
 * ```
 */
export function str(o: JsonObject, key: string, source: string, at: string): string {
  const v = Object.hasOwn(o, key) ? o[key] : undefined;
  if (typeof v !== "string") {
    throw invalid(
      source,
      `${at}/${key} must be a string${v === undefined ? " (missing)" : ""}`,
      `${at}/${key}`,
    );
  }
  return v;
}

/**
 * The digest member `key` of `o`: `sha256:` and 64 lowercase hex digits.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when it is missing or not such a digest
 *
 * @example
 * ```ts
 * import { digestAt } from "./lock_fields.ts";
 * digestAt({ digest: "sha256:" + "0".repeat(64) }, "digest", "contractpin.lock", "").length; // 71
 * ```
 */
export function digestAt(o: JsonObject, key: string, source: string, at: string): string {
  const v = str(o, key, source, at);
  if (!DIGEST_PATTERN.test(v)) {
    throw invalid(source, `${at}/${key} is not a sha256 digest ("sha256:" + 64 lowercase hex)`);
  }
  return v;
}

/**
 * An object whose members are all strings (an `env`, the field digests of an item).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when it is not one
 *
 * @example
 * ```ts
 * import { stringRecord } from "./lock_fields.ts";
 * stringRecord({ MODE: "fast" }, "contractpin.lock", "/servers/a/env"); // { MODE: "fast" }
 * ```
 */
export function stringRecord(
  v: JsonValue | undefined,
  source: string,
  at: string,
): Record<string, string> {
  if (!isJsonObject(v)) throw invalid(source, `${at} must be an object of strings`, at);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== "string") throw invalid(source, `${at}/${k} must be a string`, `${at}/${k}`);
    out[k] = val;
  }
  return out;
}
