/**
 * The CLI's words for a schema that names no usable tool id (`schemaToolId` of
 * lib/schema/batch.ts, `details.reason: "no_tool_id"`): the option that gives one.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";

/**
 * `error` with the CLI's remedy when it is a schema without a usable tool id ("…; give
 * --tool-id"); any other error as it is.
 *
 * @example
 * ```ts
 * import { SchemaPinError } from "../../lib/errors.ts";
 * import { withToolIdRemedy } from "./tool_id.ts";
 * const e = new SchemaPinError("INPUT_INVALID", 't.json has no usable "name" to use as the tool id', {
 *   path: "t.json",
 *   reason: "no_tool_id",
 * });
 * withToolIdRemedy(e).message; // 't.json has no usable "name" to use as the tool id; give --tool-id'
 * ```
 */
export function withToolIdRemedy(error: SchemaPinError): SchemaPinError {
  if (error.details?.reason !== "no_tool_id") return error;
  return new SchemaPinError(error.code, `${error.message}; give --tool-id`, error.details);
}
