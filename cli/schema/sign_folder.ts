/**
 * A folder of schemas signed (`sign-schema --batch`): set up without replacing anything
 * (cli/schema/sign_output.ts), the temporary files of a killed batch removed, every schema
 * signed into `<outDir>/<name>.sig` (lib/schema/batch.ts) and each file's result counted.
 *
 * @module
 */
import { checkSignerArg } from "../../lib/arguments.ts";
import type { Signer } from "../../lib/crypto/signer.ts";
import { EXIT_OK } from "../exit_codes.ts";
import { privateKeyOf } from "../keys/signer.ts";
import { AtomicBatchWriter, removeDeadWriterTempFiles } from "../../lib/runtime/atomic_write.ts";
import {
  type BatchProgress,
  type SignedBatchItem,
  signSchemaBatch,
} from "../../lib/schema/batch.ts";
import { BatchOutcome } from "./batch_outcome.ts";
import type { SchemaDocumentOptions } from "../../lib/schema/document.ts";
import type { ReadInput } from "../../lib/schema/input.ts";
import { prepareSignBatch, type SignBatchTarget } from "./sign_output.ts";

/** Inputs of {@linkcode signSchemaFolder}. */
export interface SignFolderOptions extends SignBatchTarget {
  /** The key: a key from a file signs on worker threads, an SSH agent's on this thread. */
  readonly signer: Signer;
  /** A 1.4 signature document's options, or undefined for bare signatures. */
  readonly docOptions?: SchemaDocumentOptions;
  /** Reads the schema files. */
  readonly read: ReadInput;
  /** Worker threads (`SCHEMAPIN_BATCH_THREADS`); default by size. */
  readonly threads?: number;
  /** Each file, in order, once its signature file is durable (or why it is not). */
  readonly onItem?: (item: SignedBatchItem) => Promise<void> | void;
  /** After each schema. */
  readonly onProgress?: (progress: BatchProgress) => void;
  /** A warning line (the worker threads failed: the rest runs on this thread). */
  readonly onWarning?: (line: string) => Promise<void> | void;
}

/**
 * Signs every schema of `dir` matching `pattern` into `<outDir>/<name>.sig`: refuses (without
 * `force`) before anything is written when a signature file is in the way, then signs; a
 * schema that cannot be read, signed or written is a failed result (`{file, ok: false,
 * error}`), the others are `{file, ok: true, signature | document, out}`.
 *
 * @throws {SchemaPinError} `IO_FAILED` naming the folder or the files in the way;
 *   `INPUT_INVALID` for a pattern that is not a file-name pattern.
 *
 * @example
 * ```ts ignore
 * import { signSchemaFolder } from "./sign_folder.ts";
 * const outcome = await signSchemaFolder({
 *   dir: "schemas", pattern: "*.json", outDir: "sigs", format: "bare", signer,
 *   read: (p) => Deno.readFile(p),
 * });
 * outcome.failed; // 0
 * ```
 */
export async function signSchemaFolder(options: SignFolderOptions): Promise<BatchOutcome> {
  const { dir, outDir, signer } = options;
  checkSignerArg("signSchemaFolder", "options.signer", signer);
  const { files, skipped } = await prepareSignBatch(options);
  removeDeadWriterTempFiles(outDir); // left by a batch that was killed before it committed
  const outcome = new BatchOutcome(files.length, skipped);
  const key = privateKeyOf(signer);
  await signSchemaBatch({
    dir,
    files,
    outDir,
    // A key held by an SSH agent is not in this process: it signs one request per schema.
    ...(key !== undefined ? { key } : { signer }),
    docOptions: options.docOptions,
    read: options.read,
    writer: new AtomicBatchWriter(),
    threads: options.threads,
    onResults: async (items) => {
      for (const item of items) {
        if (item.error !== undefined) outcome.addError(item.path, item.error);
        else outcome.add({ file: item.path, ok: true, ...item.json, out: item.out }, EXIT_OK);
        await options.onItem?.(item);
      }
    },
    onProgress: options.onProgress,
    onWarning: options.onWarning,
  });
  return outcome;
}
