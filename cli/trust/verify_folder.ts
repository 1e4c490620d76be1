/**
 * A folder of schemas verified with trust (`verify-schema --batch`): each schema against
 * `<sigDir>/<name>.sig` with a {@linkcode TrustedVerifier} (lib/schema/batch.ts writes the
 * first-use pins together), each file's result counted as the JSON fields of
 * cli/trust/result_json.ts with its exit code.
 *
 * @module
 */
import { checkArg, checkMethods } from "../../lib/arguments.ts";
import type { BatchListing, VerifiedBatchItem } from "../../lib/schema/batch.ts";
import { BatchOutcome } from "../schema/batch_outcome.ts";
import { withToolIdRemedy } from "../schema/tool_id.ts";
import { trustedSchemaJson } from "./result_json.ts";
import { resultExitCode } from "../exit_codes.ts";
import type {
  TrustedBatchInput,
  TrustedSchemaResult,
  TrustedVerifier,
} from "../../lib/trust/verify.ts";

/** A schema of {@linkcode verifySchemaFolder}: its result (with trust), or why it has none. */
export type TrustedBatchItem = VerifiedBatchItem & { result?: TrustedSchemaResult };

/** Inputs of {@linkcode verifySchemaFolder}. */
export type VerifyFolderInput = Omit<TrustedBatchInput, "files" | "onResults"> & {
  /** The schemas of `dir` to verify (`listBatch` of lib/schema/batch.ts). */
  readonly listing: BatchListing;
  /** Each schema, in order, once its pin is written. */
  readonly onItem?: (item: TrustedBatchItem) => Promise<void> | void;
};

/**
 * Verifies the schemas of `input.listing` with `verifier`; each is counted as
 * `{file, signature_file, ok, …}` (or `{file, ok: false, error}` when it could not be verified
 * at all: unreadable, unsigned) with its exit code, a failed verification included.
 *
 * @example
 * ```ts ignore
 * import { verifySchemaFolder } from "./verify_folder.ts";
 * const outcome = await verifySchemaFolder(verifier, {
 *   dir: "schemas", listing: listBatch("schemas", "*.json"), sigDir: "schemas",
 *   read: (p) => Deno.readFile(p),
 * });
 * outcome.failed; // 0 when every schema verified
 * ```
 */
export async function verifySchemaFolder(
  verifier: TrustedVerifier,
  input: VerifyFolderInput,
): Promise<BatchOutcome> {
  checkMethods("verifySchemaFolder", "verifier", verifier, ["verifySchemaBatch"], "a verifier");
  checkArg("verifySchemaFolder", "input.listing", input?.listing, "object");
  const { listing, onItem, ...batch } = input;
  const outcome = new BatchOutcome(listing.files.length, listing.skipped);
  await verifier.verifySchemaBatch({
    ...batch,
    files: listing.files,
    onResults: async (items) => {
      for (const given of items as readonly TrustedBatchItem[]) {
        const item = given.error ? { ...given, error: withToolIdRemedy(given.error) } : given;
        const { path, sigPath, result } = item;
        if (result !== undefined) {
          const entry = { file: path, signature_file: sigPath, ...trustedSchemaJson(result) };
          outcome.add(entry, resultExitCode(result));
        } else outcome.addError(path, item.error!);
        await onItem?.(item);
      }
    },
  });
  return outcome;
}
