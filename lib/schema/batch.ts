/**
 * Batches of schemas (`verify-schema --batch`, `sign-schema --batch`): many files of one
 * folder verified with one set of trust inputs, or signed with one key, in order. The files
 * are read a few chunks ahead of the work ({@linkcode chunksAhead}); the elliptic-curve work
 * runs on worker threads for large batches ({@linkcode BatchWorkers}, lib/schema/batch_pool.ts)
 * and on this thread otherwise — the same results either way.
 *
 * Results are handed to the caller in order, and only once they are durable: a verified
 * schema once its first-use pin is written (the pins of a batch are written together, under
 * the store's lock, about once a second: lib/pins/batch.ts), a signed one once its signature
 * file is committed (the caller's {@linkcode BatchWriter}). A batch that is interrupted has
 * reported only what it wrote.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { PrivateKey, PublicKey } from "../crypto/keys.ts";
import type { Signer } from "../crypto/signer.ts";
import type { JsonValue } from "../json/types.ts";
import { loadDiscoveryKey, parseDiscoveryDocument } from "../discovery/document.ts";
import { BatchPinStore } from "../pins/batch.ts";
import type { PinStore } from "../pins/store.ts";
import { LineageBatch, type LineageStore } from "../pins/lineage.ts";
import { advanceLineage, commitLineage, lineageBeforePinHook } from "./lineage_verify.ts";
import { type BeforePinHook, settleBatchPins } from "./flow.ts";
import type { SchemaDocumentOptions } from "./document.ts";
import {
  acceptPrecheckedSignature,
  type SchemaVerificationResult,
  type VerifySchemaOfflineOptions,
  verifySchemaOfflineWithHook,
} from "./verify.ts";
import { type ReadInput, readJsonInput } from "./input.ts";
import { BATCH_CHUNK, batchThreads, BatchWorkers, chunksAhead } from "./batch_pool.ts";
import { signOne, signOneWithSigner } from "./sign_one.ts";
import { joinPath } from "./batch_list.ts";
import { readSchemaSignature, schemaToolId } from "./schema_file.ts";

// A batch's folder listing and one schema's files, in modules of their own (one verification
// loads no batch code); re-exported here, where the batch runs use them.
export { type BatchListing, globToRegExp, joinPath, listBatch } from "./batch_list.ts";
export { readSchemaSignature, schemaToolId } from "./schema_file.ts";

/** How often a verify batch writes the pins of first use it has collected, in milliseconds. */
export const PIN_FLUSH_INTERVAL_MS = 1000;
/** How often a sign batch commits the signature files it has written, in milliseconds. */
export const COMMIT_INTERVAL_MS = 1000;
/** Most signature files waiting for a commit (each holds an open file until then). */
export const COMMIT_MAX_FILES = 2048;

/** How far a batch is, for a progress line. */
export interface BatchProgress {
  /** Items handled. */
  readonly done: number;
  /** Items in the batch. */
  readonly total: number;
  /** Items that failed so far. */
  readonly failed: number;
}

/**
 * The key the verification flow will take from the discovery document (the same
 * `parseDiscoveryDocument` + `loadDiscoveryKey`, §15.1 step 2), if the document is valid: what
 * a batch prechecks signatures with. The flow reads the document itself and decides; a missing
 * key here only means no threads.
 */
function discoveryKey(discovery: unknown): PublicKey | undefined {
  try {
    return loadDiscoveryKey(parseDiscoveryDocument(discovery).document);
  } catch {
    return undefined;
  }
}

/** One schema of a verify batch, once its pins are written: its result, or why it has none. */
export interface VerifiedBatchItem {
  /** The schema file. */
  readonly path: string;
  /** Its signature file. */
  readonly sigPath: string;
  /** The verification result (a failed one included). */
  result?: SchemaVerificationResult;
  /** Why the schema could not be verified (unreadable, unsigned, no tool id, …). */
  error?: SchemaPinError;
}

/** Inputs of {@linkcode verifySchemaBatch}. */
export interface VerifySchemaBatchOptions {
  /** The folder of the schemas. */
  readonly dir: string;
  /** The schema file names in `dir`, in the order reported. */
  readonly files: readonly string[];
  /** Where `<name>.sig` is found. */
  readonly sigDir: string;
  /** Reads the schema and signature files. */
  readonly read: ReadInput;
  /** The verification options every schema shares (its own schema, signature, tool id aside). */
  readonly flow: Omit<VerifySchemaOfflineOptions, "schema" | "signature" | "toolId" | "pinStore">;
  /** Runs before a first-use pin is written (the DNS cross-check). */
  readonly beforePin?: BeforePinHook<SchemaVerificationResult>;
  /** The pin store. */
  readonly pinStore: PinStore;
  /**
   * Enforce lineage (§18.4) with this store: checked before a pin is written (against a
   * snapshot read once), and the advances of a group written together after its pins
   * ({@linkcode LineageBatch}).
   */
  readonly lineage?: LineageStore;
  /**
   * Write the pins of first use together (default true); false for a store nothing is written
   * to (an explicit key).
   */
  readonly batchPins?: boolean;
  /** Worker threads (`SCHEMAPIN_BATCH_THREADS`, {@linkcode batchThreads}); default by size. */
  readonly threads?: number;
  /**
   * Adds to each finished result (where its trust came from; a lineage store moved forward,
   * lib/schema/lineage_verify.ts).
   */
  readonly finish?: (result: SchemaVerificationResult) => void | Promise<void>;
  /** Receives the results in order, a group at a time, once their pins are written. */
  readonly onResults: (items: readonly VerifiedBatchItem[]) => Promise<void>;
  /** After each schema. */
  readonly onProgress?: (progress: BatchProgress) => void;
  /** A warning line (the worker threads failed: the rest runs on this thread). */
  readonly onWarning?: (line: string) => Promise<void> | void;
}

/** One schema of a batch as read: what to verify, or why it cannot be. */
interface Loaded {
  path: string;
  sigPath: string;
  schema?: JsonValue;
  signature?: string | Record<string, unknown>;
  toolId?: string;
  error?: SchemaPinError;
}

async function loadBatchItem(
  dir: string,
  name: string,
  sigDir: string,
  read: ReadInput,
): Promise<Loaded> {
  const path = joinPath(dir, name);
  const sigPath = joinPath(sigDir, `${name}.sig`);
  try {
    const schema = await readJsonInput(path, read, "schema");
    let signature: string | Record<string, unknown>;
    try {
      signature = await readSchemaSignature(sigPath, read);
    } catch (e) {
      if (e instanceof SchemaPinError && e.code === "IO_FAILED") {
        // An unsigned schema is a verification failure, not a tool error (§10).
        throw new SchemaPinError("SIGNATURE_INVALID", `unsigned: ${e.message}`, { path });
      }
      throw e;
    }
    return { path, sigPath, schema, signature, toolId: schemaToolId(schema, path) };
  } catch (e) {
    if (!(e instanceof SchemaPinError)) throw e;
    return { path, sigPath, error: e };
  }
}

/**
 * Verifies every schema of a batch against `<sigDir>/<name>.sig` with the shared trust of
 * `flow`, in order (§15.1 for each). The pins of first use are written together about every
 * {@linkcode PIN_FLUSH_INTERVAL_MS} and at the end; a result whose pin could not be written
 * fails (`IO_FAILED`), and a pin another verifier wrote meanwhile is never overwritten (that
 * schema then fails with `KEY_PIN_MISMATCH`, or passes when the key is the same). A schema
 * that cannot be read or is unsigned is an item with an `error`, not the batch's failure.
 *
 * @example
 * ```ts ignore
 * import { verifySchemaBatch } from "./batch.ts";
 * await verifySchemaBatch({
 *   dir: "schemas", files: ["a.json"], sigDir: "schemas", read: (p) => Deno.readFile(p),
 *   flow: { domain: "example.com", discovery }, pinStore: new FilePinStore("pins.json"),
 *   onResults: async (items) => console.log(items.map((i) => i.result?.valid)),
 * });
 * ```
 */
export async function verifySchemaBatch(options: VerifySchemaBatchOptions): Promise<void> {
  const { files, flow } = options;
  const pins = options.batchPins === false ? undefined : new BatchPinStore(options.pinStore);
  const pinStore = pins ?? options.pinStore;
  const lineage = options.lineage === undefined ? undefined : new LineageBatch(options.lineage);
  const beforePin = lineage ? lineageBeforePinHook(lineage, options.beforePin) : options.beforePin;
  let failed = 0;
  let waiting: VerifiedBatchItem[] = [];
  let lastFlush = performance.now();

  // Writes the pins of the waiting results (one locked transaction), settles the results a
  // concurrent writer overtook, then hands them over in order.
  const settle = async () => {
    const items = waiting;
    waiting = [];
    const results = items.map((item) => item.result);
    if (pins) await settleBatchPins(pins, results);
    lastFlush = performance.now();
    // Lineage moves only for results still valid once their pins are written.
    if (lineage) await commitLineage(lineage, results);
    await options.onResults(items);
  };

  // Reads (and, on worker threads, the elliptic-curve checks) run a few chunks ahead of the
  // verification flow, which stays here and in order.
  const key = discoveryKey(flow.discovery);
  const workers = new BatchWorkers(
    key === undefined ? 0 : batchThreads(files.length, options.threads),
    "checking signatures",
    (line) => options.onWarning?.(line),
  );
  const prepare = async (from: number) => {
    const items: Loaded[] = [];
    for (const name of files.slice(from, from + BATCH_CHUNK)) {
      items.push(await loadBatchItem(options.dir, name, options.sigDir, options.read));
    }
    const ready = items.filter((it) => it.schema !== undefined);
    const batch = ready.map((it) => ({ schema: it.schema, signature: it.signature! }));
    // Without threads (any more), the flow makes every check itself: the same result.
    const prechecked = workers.use((pool) => pool.precheck(key!, batch)).then((ids) => {
      for (const id of ids ?? []) if (id !== undefined) acceptPrecheckedSignature(id);
    });
    return { items, prechecked };
  };
  let done = 0;
  try {
    for await (const chunk of chunksAhead(files.length, prepare)) {
      await chunk.prechecked;
      for (const loaded of chunk.items) {
        done++;
        const item: VerifiedBatchItem = { path: loaded.path, sigPath: loaded.sigPath };
        if (loaded.error !== undefined) {
          item.error = loaded.error;
          failed++;
        } else {
          try {
            const result = await verifySchemaOfflineWithHook({
              ...flow,
              pinStore,
              schema: loaded.schema,
              signature: loaded.signature!,
              toolId: loaded.toolId!,
              sources: { ...flow.sources, signature: loaded.sigPath },
            }, beforePin);
            if (lineage) await advanceLineage(lineage, result);
            await options.finish?.(result);
            item.result = result;
            if (!result.valid) failed++;
          } catch (e) {
            if (!(e instanceof SchemaPinError)) throw e;
            item.error = e; // this schema's failure, not the batch's
            failed++;
          }
        }
        waiting.push(item);
        if (performance.now() - lastFlush >= PIN_FLUSH_INTERVAL_MS) await settle();
        options.onProgress?.({ done, total: files.length, failed });
      }
    }
  } finally {
    workers.stop();
  }
  await settle();
}

/** One schema of a sign batch, once its signature file is committed, or why it is not. */
export interface SignedBatchItem {
  /** The schema file. */
  readonly path: string;
  /** Its signature file. */
  readonly out: string;
  /** The fields `--json` reports (`{file, signature}` or `{file, document}`), when signed. */
  readonly json?: Record<string, unknown>;
  /** Why it was not signed or written. */
  readonly error?: SchemaPinError;
}

/**
 * Where a sign batch writes: atomic files made durable together (lib/runtime/atomic_write.ts
 * has one).
 */
export interface BatchWriter {
  /** Files added and not committed yet. */
  readonly size: number;
  /** Writes `data` to a temporary file for `path`; throws `IO_FAILED` naming `path`. */
  add(path: string, data: string): void;
  /** Makes every added file durable and puts it in place; one outcome per file. */
  commit(): Promise<readonly { readonly path: string; readonly error?: SchemaPinError }[]>;
  /** Removes every temporary file not committed yet. */
  abort(): void;
}

/** Inputs of {@linkcode signSchemaBatch}. */
export interface SignSchemaBatchOptions {
  /** The folder of the schemas. */
  readonly dir: string;
  /** The schema file names in `dir`, in the order reported. */
  readonly files: readonly string[];
  /** Where `<name>.sig` is written. */
  readonly outDir: string;
  /** The signing key (signs on worker threads when the batch is large). */
  readonly key?: PrivateKey;
  /**
   * Or a signer, when the key is not in this process (an SSH agent): it signs on this thread,
   * one schema after the other; its first failure stops the batch. Give `key` or `signer`.
   */
  readonly signer?: Signer;
  /** A 1.4 signature document's metadata, or undefined for bare signatures. */
  readonly docOptions?: SchemaDocumentOptions;
  /** Reads the schema files. */
  readonly read: ReadInput;
  /** Writes the signature files. */
  readonly writer: BatchWriter;
  /** Worker threads (`SCHEMAPIN_BATCH_THREADS`, {@linkcode batchThreads}); default by size. */
  readonly threads?: number;
  /** Receives the items in order, a group at a time, once their files are committed. */
  readonly onResults: (items: readonly SignedBatchItem[]) => Promise<void>;
  /** After each schema. */
  readonly onProgress?: (progress: BatchProgress) => void;
  /** A warning line (the worker threads failed: the rest runs on this thread). */
  readonly onWarning?: (line: string) => Promise<void> | void;
}

/**
 * Signs every schema of a batch with `key` or `signer` (the bytes `sign-schema` writes for one: bare, or
 * a document with `docOptions`) into `<outDir>/<name>.sig` through `writer`, committing about
 * every {@linkcode COMMIT_INTERVAL_MS} or {@linkcode COMMIT_MAX_FILES} files; each item is
 * handed over once its file is durable. A schema that cannot be read or signed, or whose file
 * cannot be written, is an item with an `error`; the others are still signed. On an
 * unexpected error nothing more is committed and the pending temporary files are removed.
 * Returns how many failed.
 *
 * @example
 * ```ts ignore
 * import { signSchemaBatch } from "./batch.ts";
 * const { failed } = await signSchemaBatch({
 *   dir: "schemas", files: ["a.json"], outDir: "sigs", key, read: (p) => Deno.readFile(p),
 *   writer: new AtomicBatchWriter(), onResults: async (items) => console.log(items),
 * });
 * ```
 */
export async function signSchemaBatch(
  options: SignSchemaBatchOptions,
): Promise<{ failed: number }> {
  const { files, key, signer, docOptions, writer } = options;
  if ((key === undefined) === (signer === undefined)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      "signSchemaBatch: give options.key or options.signer",
    );
  }
  let failed = 0;
  let waiting: SignedBatchItem[] = [];
  let lastCommit = performance.now();
  const commit = async () => {
    const items = waiting;
    waiting = [];
    const outcomes = new Map((await writer.commit()).map((o) => [o.path, o]));
    lastCommit = performance.now();
    const settled = items.map((item): SignedBatchItem => {
      const error = item.error ?? outcomes.get(item.out)?.error;
      if (error === undefined) return item;
      failed++;
      return { path: item.path, out: item.out, error };
    });
    await options.onResults(settled);
  };

  // Reading and writing stay here; signing runs on worker threads when the batch is large,
  // a chunk ahead of the writes. Either way the bytes are the same.
  const workers = new BatchWorkers(
    key === undefined ? 0 : batchThreads(files.length, options.threads),
    "signing",
    (line) => options.onWarning?.(line),
  );
  const prepare = async (from: number) => {
    const items: { path: string; out: string; schema?: unknown; error?: SchemaPinError }[] = [];
    for (const name of files.slice(from, from + BATCH_CHUNK)) {
      const path = joinPath(options.dir, name);
      const item: (typeof items)[number] = { path, out: joinPath(options.outDir, `${name}.sig`) };
      try {
        item.schema = await readJsonInput(path, options.read, "schema");
      } catch (e) {
        if (!(e instanceof SchemaPinError)) throw e;
        item.error = e;
      }
      items.push(item);
    }
    const toSign = items.filter((it) => it.error === undefined);
    // undefined: no threads (any more): this thread signs them.
    const signed = workers.use((pool) =>
      pool.sign(key!, docOptions, toSign.map((it) => ({ schema: it.schema, file: it.path })))
    );
    return { items, toSign, signed };
  };

  try {
    let done = 0;
    for await (const chunk of chunksAhead(files.length, prepare)) {
      const signed = await chunk.signed;
      const bySchema = new Map(chunk.toSign.map((it, k) => [it, signed?.[k]]));
      for (const item of chunk.items) {
        done++;
        if (item.error !== undefined) {
          waiting.push({ path: item.path, out: item.out, error: item.error });
        } else {
          try {
            const one = bySchema.get(item) ??
              (key !== undefined
                ? signOne(item.schema, key, docOptions, item.path)
                : await signOneWithSigner(item.schema, signer!, docOptions, item.path));
            if (one instanceof SchemaPinError) throw one;
            writer.add(item.out, one.text);
            waiting.push({ path: item.path, out: item.out, json: one.json });
          } catch (e) {
            if (!(e instanceof SchemaPinError)) throw e;
            // The signer failed (an agent gone, refusing, timed out), not the schema (which is
            // INPUT_INVALID naming it): so would every schema left.
            if (
              signer !== undefined && !(e.code === "INPUT_INVALID" && e.details.path === item.path)
            ) {
              throw e;
            }
            waiting.push({ path: item.path, out: item.out, error: e });
          }
        }
        if (
          writer.size >= COMMIT_MAX_FILES ||
          performance.now() - lastCommit >= COMMIT_INTERVAL_MS
        ) {
          await commit();
        }
        options.onProgress?.({ done, total: files.length, failed });
      }
    }
    await commit();
  } finally {
    workers.stop();
    writer.abort(); // only after an unexpected error: nothing is pending otherwise
  }
  return { failed };
}
