/**
 * One schema named by its files (`verify-schema SCHEMA --signature FILE`, and each file of a
 * batch): the tool id the schema names itself ({@linkcode schemaToolId}), and its signature
 * file read and checked ({@linkcode readSchemaSignature}). Kept apart from the batch runs
 * (lib/schema/batch.ts, which re-exports both) so that one verification loads no batch code.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { isJsonObject, ownField } from "../json/object.ts";
import { checkToolId } from "../pins/store.ts";
import { parseSchemaSignatureDocument } from "./document.ts";
import { parseSignatureFile, type ReadInput, sourceName } from "./input.ts";

/**
 * The tool id of a schema that names itself: its `"name"`, when that is a valid tool id.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming `file` otherwise, with `details.reason`
 *   `"no_tool_id"` (the caller then names the tool id itself).
 *
 * @example
 * ```ts
 * import { schemaToolId } from "./schema_file.ts";
 * schemaToolId({ name: "calculate_sum" }, "tool.json"); // "calculate_sum"
 * ```
 */
export function schemaToolId(schema: unknown, file: string): string {
  const name = isJsonObject(schema) ? ownField(schema, "name") : undefined;
  if (typeof name !== "string" || checkToolId(name) !== undefined) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${file} has no usable "name" to use as the tool id`,
      { path: file, reason: "no_tool_id" },
    );
  }
  return name;
}

/**
 * Reads a schema signature file and, for a document, checks its structure now, so that a
 * malformed file is reported as such (naming the file) rather than as a failed verification.
 *
 * @example
 * ```ts ignore
 * import { readSchemaSignature } from "./schema_file.ts";
 * const signature = await readSchemaSignature("tool.json.sig", (p) => Deno.readFile(p));
 * ```
 */
export async function readSchemaSignature(
  path: string,
  read: ReadInput,
): Promise<string | Record<string, unknown>> {
  const signature = parseSignatureFile(await read(path), path);
  if (typeof signature !== "string") parseSchemaSignatureDocument(signature, sourceName(path));
  return signature;
}
