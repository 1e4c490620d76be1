/**
 * A saved `tools/list` the user names (`schemapin sign-tools --file FILE`, `-` for stdin) as an
 * input: read and followed like lib/mcp/file.ts's dumps, with a file that cannot be read or is
 * not a tool list reported as bad input rather than as a server failure.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { parseJson } from "../../lib/json/parse.ts";
import { ServerFailure } from "../../lib/mcp/errors.ts";
import { listingFromDump, readToolsDump } from "../../lib/mcp/file.ts";
import type { ToolListing } from "../../lib/mcp/session.ts";

/**
 * The tool listing saved in `file` (`-`: the bytes of `readStdin`, named `stdin`).
 *
 * @param file The saved tools/list, or `-` for stdin.
 * @param readStdin Reads all of stdin (called only for `-`).
 * @throws {SchemaPinError} `IO_FAILED` for a file that cannot be read, `INPUT_INVALID` for one
 *   that is not strict JSON or not a tool list (the message names it); stdin that is not strict
 *   JSON is `JSON_INVALID` naming `stdin`.
 *
 * @example
 * ```ts
 * import { readSavedToolListing } from "./saved_tools.ts";
 * const stdin = () => Promise.resolve(new TextEncoder().encode('{"tools":[{"name":"a"}]}'));
 * (await readSavedToolListing("-", stdin)).tools.length; // 1
 * ```
 */
export async function readSavedToolListing(
  file: string,
  readStdin: () => Promise<Uint8Array>,
): Promise<ToolListing> {
  try {
    if (file === "-") return await listingFromDump(parseJson(await readStdin(), "stdin"), "stdin");
    return await readToolsDump(file);
  } catch (e) {
    if (!(e instanceof ServerFailure)) throw e;
    // A local file that is missing or is not a tool list is an input error (exit 2).
    throw new SchemaPinError(e.kind === "io" ? "IO_FAILED" : "INPUT_INVALID", e.message);
  }
}
