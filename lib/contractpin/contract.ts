/**
 * The contract object of an MCP tool (contractpin spec §2): the text and schemas a model reads
 * when it decides whether and how to call the tool — and nothing else.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/types.ts";

/** The members always present in a contract, in the order §2 lists them. */
export const REQUIRED_CONTRACT_FIELDS: readonly string[] = ["name", "description", "inputSchema"];
/** The members present only when the tool defines them with a non-null value (§2). */
export const OPTIONAL_CONTRACT_FIELDS: readonly string[] = ["outputSchema", "annotations"];
/**
 * Every member a contract can have.
 *
 * @example
 * ```ts
 * import { CONTRACT_FIELDS } from "./contract.ts";
 * console.log(CONTRACT_FIELDS); // ["name", "description", "inputSchema", "outputSchema", …]
 * ```
 */
export const CONTRACT_FIELDS: readonly string[] = [
  ...REQUIRED_CONTRACT_FIELDS,
  ...OPTIONAL_CONTRACT_FIELDS,
];

export { isJsonObject };

function own(o: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/**
 * Builds the contract object of one tool definition (§2): `name`, `description` (or null) and
 * `inputSchema` (or null) always; `outputSchema` and `annotations` only when present and not
 * null; every other member (`title`, `_meta`, vendor fields) ignored. Values are taken as
 * served — never reordered, pruned or coerced (the canonicalization orders object names).
 *
 * @param tool one element of a `tools/list` result's `tools` array
 * @param where names the tool in error messages ("tools[3]")
 * @throws {SchemaPinError} `INPUT_INVALID` when `tool` is not an object or has no string `name`
 *
 * @example
 * ```ts
 * import { projectContract } from "./contract.ts";
 * projectContract({ name: "add", title: "Add", inputSchema: { type: "object" } });
 * // { name: "add", description: null, inputSchema: { type: "object" } }
 * ```
 */
export function projectContract(tool: JsonValue, where = "tool"): JsonObject {
  if (!isJsonObject(tool)) {
    throw new SchemaPinError("INPUT_INVALID", `${where} is not a JSON object`, { where });
  }
  const name = own(tool, "name");
  if (typeof name !== "string") {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${where} has no string "name" (got ${name === undefined ? "nothing" : typeof name})`,
      { where },
    );
  }
  const contract: JsonObject = {
    name,
    // §2: absent and null give the same contract.
    description: own(tool, "description") ?? null,
    inputSchema: own(tool, "inputSchema") ?? null,
  };
  for (const field of OPTIONAL_CONTRACT_FIELDS) {
    const value = own(tool, field);
    if (value !== undefined && value !== null) contract[field] = value;
  }
  return contract;
}
