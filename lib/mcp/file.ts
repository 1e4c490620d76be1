/**
 * The file transport: a saved `tools/list` result — `{"tools":[…]}`, a whole JSON-RPC response
 * `{"jsonrpc":"2.0","id":…,"result":{"tools":[…]}}`, or an array of result pages in order.
 * Pages are followed exactly like a live server's (§6 step 1: page boundaries are not data).
 *
 * The rest of the model-visible surface (docs/contractpin-surface.md §5) may be saved beside
 * the tools, on the dump object (the first page of an array): `"prompts": […]`,
 * `"resources": […]`, `"resourceTemplates": […]` (each the concatenated items of every page of
 * that list) and `"instructions": "…" | null`. A member left out was not enumerated; any other
 * type, or one of these members on a later page, is malformed.
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../json/types.ts";
import { ServerFailure } from "./errors.ts";
import { collectPages, DEFAULT_MAX_PAGES, type ToolListing } from "./session.ts";
import { checkArg } from "../arguments.ts";
import { isNotFound, readFile } from "../runtime/fs.ts";

/** The surface members a dump may carry beside `tools` (docs/contractpin-surface.md §5). */
const SURFACE_MEMBERS = ["prompts", "resources", "resourceTemplates"] as const;

/** The surface members of the first page, type-checked; later pages may not carry any. */
function surfaceOf(pages: readonly JsonValue[], source: string): Partial<ToolListing> {
  const out: {
    instructions?: string | null;
    prompts?: JsonValue[];
    resources?: JsonValue[];
    resourceTemplates?: JsonValue[];
  } = {};
  pages.forEach((raw, index) => {
    const page = pageOf(raw, `${source} page ${index + 1}`);
    if (!isJsonObject(page)) return; // collectPages reports it
    for (const member of [...SURFACE_MEMBERS, "instructions"] as const) {
      if (!Object.hasOwn(page, member)) continue;
      if (index > 0) {
        throw new ServerFailure(
          "malformed",
          `${source}: page ${index + 1} has "${member}"; the surface members (prompts, ` +
            `resources, resourceTemplates, instructions) belong on the first page only`,
        );
      }
      const value = page[member];
      if (member === "instructions") {
        if (value !== null && typeof value !== "string") {
          throw new ServerFailure(
            "malformed",
            `${source}: "instructions" must be a string or null (got ${
              Array.isArray(value) ? "an array" : typeof value
            })`,
          );
        }
        out.instructions = value;
      } else {
        if (!Array.isArray(value)) {
          throw new ServerFailure(
            "malformed",
            `${source}: "${member}" must be an array of ${member} items (got ${
              value === null ? "null" : typeof value
            })`,
          );
        }
        out[member] = value;
      }
    }
  });
  return out;
}

function pageOf(value: JsonValue, where: string): JsonValue {
  if (isJsonObject(value) && value.jsonrpc === "2.0" && Object.hasOwn(value, "result")) {
    return value.result;
  }
  if (isJsonObject(value) && value.jsonrpc === "2.0" && Object.hasOwn(value, "error")) {
    throw new ServerFailure("rpc_error", `${where} is a JSON-RPC error response, not a tool list`);
  }
  return value;
}

/**
 * The tool listing held by a parsed dump. A last page that still names a `nextCursor` means
 * the dump is incomplete; that is reported as a notice, since the file cannot be asked for more.
 *
 * @throws {ServerFailure} `malformed` / `protocol` for shapes that are not tool lists, cursor
 * chains that loop or are empty, more than `maxPages` pages
 *
 * @example
 * ```ts
 * import { listingFromDump } from "./file.ts";
 * const l = await listingFromDump({ tools: [{ name: "a" }] }, "tools.json");
 * console.log(l.tools.length); // 1
 * ```
 */
export async function listingFromDump(
  value: JsonValue,
  source: string,
  maxPages = DEFAULT_MAX_PAGES,
): Promise<ToolListing> {
  checkArg("listingFromDump", "source", source, "string");
  checkArg("listingFromDump", "maxPages", maxPages, "number");
  const pages = Array.isArray(value) ? value : [value];
  if (pages.length === 0) {
    throw new ServerFailure("malformed", `${source}: an empty array holds no tools/list page`);
  }
  const notices: string[] = [];
  const listed = await collectPages(
    (_cursor, index) => {
      const page = pageOf(pages[index], `${source} page ${index + 1}`);
      if (index === pages.length - 1 && isJsonObject(page) && Object.hasOwn(page, "nextCursor")) {
        notices.push(
          `${source}: the last saved page names nextCursor ${JSON.stringify(page.nextCursor)}; ` +
            `the dump may be incomplete`,
        );
        const { nextCursor: _, ...rest } = page;
        return Promise.resolve(rest);
      }
      return Promise.resolve(page);
    },
    maxPages,
    source,
  );
  if (listed.pages !== pages.length) {
    throw new ServerFailure(
      "protocol",
      `${source}: page ${listed.pages} has no nextCursor but ${pages.length} pages were saved`,
    );
  }
  return { tools: listed.tools, pages: listed.pages, notices, ...surfaceOf(pages, source) };
}

/**
 * Reads and parses a dump file strictly, then {@linkcode listingFromDump}.
 *
 * @throws {ServerFailure} `io` when the file cannot be read, `malformed` when it is not strict
 * JSON or not a tool list
 *
 * @example
 * ```ts
 * import { digestToolList } from "jsr:@schemapin/schemapin/contractpin";
 * import { readToolsDump } from "./file.ts";
 * // tools.json: a saved tools/list result (or an array of them, one per page)
 * const listing = await readToolsDump("tools.json");
 * console.log(digestToolList(listing.tools).digest);
 * ```
 */
export async function readToolsDump(
  path: string,
  maxPages = DEFAULT_MAX_PAGES,
  source = path,
): Promise<ToolListing> {
  checkArg("readToolsDump", "path", path, "string");
  checkArg("readToolsDump", "maxPages", maxPages, "number");
  checkArg("readToolsDump", "source", source, "string");
  return await listingFromDump(await readDumpJson(path, source), source, maxPages);
}

/**
 * The JSON of a saved dump file, strictly parsed: a file that cannot be read is an `io`
 * {@linkcode ServerFailure}, one that is not strict JSON `malformed` (both name `source`).
 *
 * @example
 * ```ts ignore
 * const value = await readDumpJson("tools.json", "server saved");
 * ```
 */
export async function readDumpJson(path: string, source: string): Promise<JsonValue> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    const reason = isNotFound(e) ? "no such file" : (e as Error).message;
    throw new ServerFailure("io", `${source}: cannot read ${path}: ${reason}`);
  }
  try {
    return parseJson(bytes, path);
  } catch (e) {
    throw new ServerFailure("malformed", `${source}: ${(e as Error).message}`);
  }
}

/**
 * The dump of a listing, in the shape {@linkcode listingFromDump} reads: one page with
 * `tools` and, where the listing enumerated them, `prompts`, `resources`,
 * `resourceTemplates` and `instructions` (docs/contractpin-surface.md §5). Reading it back
 * gives the same items, so the same digests.
 *
 * @example
 * ```ts
 * import { dumpOfListing, listingFromDump } from "./file.ts";
 * const dump = dumpOfListing({ tools: [{ name: "a" }], pages: 2, notices: [], prompts: [] });
 * console.log(dump); // { tools: [ { name: "a" } ], prompts: [] }
 * console.log((await listingFromDump(dump, "dump")).tools.length); // 1
 * ```
 */
export function dumpOfListing(listing: ToolListing): JsonObject {
  checkArg("dumpOfListing", "listing", listing, "object");
  const dump: JsonObject = { tools: [...listing.tools] };
  for (const member of SURFACE_MEMBERS) {
    const items = listing[member];
    if (items !== undefined) dump[member] = [...items];
  }
  if (listing.instructions !== undefined) dump.instructions = listing.instructions;
  return dump;
}
