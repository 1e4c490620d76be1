/**
 * The §18.3 chain check between two signature documents read from files (`schemapin chain`):
 * each read as strict JSON, its lineage fields taken (cli/schema/lineage_document.ts) and the
 * two compared by `verifyChain` (lib/pins/lineage.ts). Metadata only: neither signature is
 * verified here.
 *
 * @module
 */
import { type ChainCheck, verifyChain } from "../../lib/pins/chain.ts";
import { type ReadInput, readJsonInput, sourceName } from "../../lib/schema/input.ts";
import { lineageSignatureOf } from "./lineage_document.ts";

/**
 * Whether the signature document at `currentPath` succeeds the one at `previousPath` (its
 * `previous_hash` names the other's hash); a legacy (1.3) skill document on either side, a
 * missing `previous_hash` and a mismatch are failed checks.
 *
 * @throws {SchemaPinError} what `read` throws; `JSON_INVALID` or `INPUT_INVALID` naming a file
 *   that is not a signature document.
 *
 * @example
 * ```ts ignore
 * import { checkChainFiles } from "./chain_files.ts";
 * const check = await checkChainFiles("v2.sig", "v1.sig", (p) => Deno.readFile(p));
 * check.valid; // true when v2's previous_hash is v1's hash
 * ```
 */
export async function checkChainFiles(
  currentPath: string,
  previousPath: string,
  read: ReadInput,
): Promise<ChainCheck> {
  const document = async (path: string) =>
    lineageSignatureOf(await readJsonInput(path, read, "signature document"), sourceName(path));
  const current = await document(currentPath);
  return verifyChain(current, await document(previousPath));
}
