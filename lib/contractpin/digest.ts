/**
 * Contract digests (contractpin spec §4): the tool digest, the advisory field digests and the
 * server digest, all `"sha256:" + lowercase hex(SHA-256(contractpin-canonical-json/1(…)))`.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { canonicalizeJcs } from "../json/canonical_jcs.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { sha256HexOfText } from "../crypto/hash.ts";
import { projectContract } from "./contract.ts";
import { checkArg } from "../arguments.ts";
import { ServerFailure } from "../mcp/errors.ts";
import { listingFromDump } from "../mcp/file.ts";

/** A digest as written in a lock: `sha256:` and 64 lowercase hex digits (71 characters). */
export const DIGEST_PATTERN: RegExp = /^sha256:[0-9a-f]{64}$/;

/**
 * `"sha256:" + hex(SHA-256(canonical_json(value)))` — the one digest construction of §4.
 *
 * @throws {SchemaPinError} `SCHEMA_CANONICALIZATION_FAILED` when `value` has no canonical form
 *
 * @example
 * ```ts
 * import { digestJson } from "./digest.ts";
 * digestJson({}).length; // 71
 * ```
 */
export function digestJson(value: unknown): string {
  // Hashed as text: the runtime encodes the UTF-8 while hashing (no separate encoding call).
  return "sha256:" + sha256HexOfText(canonicalizeJcs(value));
}

/**
 * The tool digest of a contract object (§4.1). Pass the output of
 * {@linkcode projectContract}, not a raw tool.
 *
 * @example
 * ```ts
 * import { projectContract } from "./contract.ts";
 * import { toolDigest } from "./digest.ts";
 * toolDigest(projectContract({ name: "echo" }));
 * ```
 */
export function toolDigest(contract: JsonObject): string {
  return digestJson(contract);
}

/**
 * The advisory field digests of a contract (§4.2): one per member present. Never an input to
 * the tool digest; recorded so a verifier can say which part of a tool moved.
 *
 * @example
 * ```ts
 * import { fieldDigests } from "./digest.ts";
 * Object.keys(fieldDigests({ name: "echo", description: null, inputSchema: null }));
 * // ["description", "inputSchema", "name"]
 * ```
 */
export function fieldDigests(contract: JsonObject): Record<string, string> {
  checkArg("fieldDigests", "contract", contract, "object");
  const out: Record<string, string> = {};
  for (const key of Object.keys(contract).sort()) out[key] = digestJson(contract[key]);
  return out;
}

/**
 * The server digest (§4.3): the digest of the object mapping every tool name to its digest.
 *
 * @example
 * ```ts
 * import { serverDigest } from "./digest.ts";
 * serverDigest(new Map([["echo", "sha256:" + "0".repeat(64)]]));
 * ```
 */
export function serverDigest(toolDigests: ReadonlyMap<string, string>): string {
  checkArg("serverDigest", "toolDigests", toolDigests, "map");
  // A null-prototype object: a tool named "__proto__" is an ordinary member here.
  const map: Record<string, string> = Object.create(null);
  for (const [name, digest] of toolDigests) map[name] = digest;
  return digestJson(map);
}

/**
 * `tool` with `fields` computed on first read (then kept as an ordinary property): verifying a
 * lock needs them only for a tool that drifted, so a list of unchanged tools costs one hash per
 * tool instead of one per member as well.
 */
export function lazyFields<T extends { readonly fields: Record<string, string> }>(
  tool: Omit<T, "fields">,
  members: readonly (readonly [string, string])[],
): T {
  return Object.defineProperty(tool, "fields", {
    configurable: true,
    enumerable: true,
    get(this: T) {
      const fields: Record<string, string> = {};
      for (const [key, text] of members) fields[key] = "sha256:" + sha256HexOfText(text);
      Object.defineProperty(this, "fields", { value: fields, enumerable: true });
      return fields;
    },
  }) as T;
}

/**
 * The tool digest of `contract` (§4.1) from the canonical text of each member, which the field
 * digests (§4.2) hash as well: the contract is canonicalized once. RFC 8785 writes an object
 * as its members sorted by UTF-16 code units, `name:value` joined by commas, so the text is
 * exactly `canonicalizeJcs(contract)`. A contract without a canonical form is reported by
 * {@linkcode toolDigest}, with the pointer into the contract.
 */
export function digestMembers(
  contract: JsonObject,
): { digest: string; members: [string, string][] } {
  try {
    const members = Object.keys(contract).sort().map((k): [string, string] => [
      k,
      canonicalizeJcs(contract[k]),
    ]);
    const text = "{" + members.map(([k, v]) => canonicalizeJcs(k) + ":" + v).join(",") + "}";
    return { digest: "sha256:" + sha256HexOfText(text), members };
  } catch {
    return { digest: toolDigest(contract), members: [] }; // throws, naming where
  }
}

/** One tool of a digested tool list. */
export interface DigestedTool {
  /** The tool name. */
  readonly name: string;
  /** The contract object (§2). */
  readonly contract: JsonObject;
  /** The tool digest (§4.1). */
  readonly digest: string;
  /** The field digests (§4.2), keyed by contract member (computed when first read). */
  readonly fields: Record<string, string>;
  /** The raw tool definition as served (for notices about `title` and `_meta`). */
  readonly raw: JsonObject;
}

/** A whole `tools/list` result, digested. */
export interface DigestedToolList {
  /** Tools by name, in the order served. */
  readonly tools: ReadonlyMap<string, DigestedTool>;
  /** The server digest (§4.3). */
  readonly digest: string;
}

/**
 * Projects and digests every tool of a complete `tools/list` result (all pages concatenated).
 *
 * @param tools the concatenated `tools` arrays
 * @param source names the list in error messages (a file, a server name)
 * @throws {SchemaPinError} `INPUT_INVALID` for a tool that is not an object, has no string
 * name, or repeats a name (§4.4: fail rather than pick one)
 *
 * @example
 * ```ts
 * import { digestToolList } from "jsr:@schemapin/schemapin/contractpin";
 * const list = digestToolList([{ name: "a" }, { name: "b", description: "B" }]);
 * console.log(list.tools.size, list.digest);
 * ```
 */
export function digestToolList(
  tools: readonly JsonValue[],
  source = "tools/list",
): DigestedToolList {
  checkArg("digestToolList", "tools", tools, "array");
  checkArg("digestToolList", "source", source, "string");
  const out = new Map<string, DigestedTool>();
  const digests = new Map<string, string>();
  tools.forEach((tool, i) => {
    const contract = projectContract(tool, `${source}: tools[${i}]`);
    const name = contract.name as string;
    if (out.has(name)) {
      // §4.4
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${source}: duplicate tool name ${JSON.stringify(name)} (tools[${i}]); a tools/list ` +
          `result with two tools of the same name is malformed`,
        { source, tool: name, index: i },
      );
    }
    const { digest, members } = digestMembers(contract);
    out.set(
      name,
      lazyFields<DigestedTool>({ name, contract, digest, raw: tool as JsonObject }, members),
    );
    digests.set(name, digest);
  });
  return { tools: out, digest: serverDigest(digests) };
}

/**
 * Digests a saved `tools/list` result — `{"tools":[…]}`, a JSON-RPC response, or an array of
 * pages, as a `--file` dump holds it (`contract digest FILE`): its tools, and the notices of
 * reading it (an incomplete last page).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a value that is not a tool list, or as
 *   {@linkcode digestToolList}
 *
 * @example
 * ```ts
 * import { digestSavedToolList } from "./digest.ts";
 * const { list } = await digestSavedToolList({ tools: [{ name: "a" }] }, "tools.json");
 * console.log(list.tools.size); // 1
 * ```
 */
export async function digestSavedToolList(
  value: JsonValue,
  source: string,
): Promise<{ list: DigestedToolList; notices: string[] }> {
  checkArg("digestSavedToolList", "source", source, "string");
  let listing;
  try {
    listing = await listingFromDump(value, source);
  } catch (e) {
    if (e instanceof ServerFailure) {
      throw new SchemaPinError("INPUT_INVALID", e.message, { source });
    }
    throw e;
  }
  return { list: digestToolList(listing.tools, source), notices: [...listing.notices] };
}
