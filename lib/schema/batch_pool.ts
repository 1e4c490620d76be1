/**
 * Worker threads for the elliptic-curve work of `verify-schema --batch` and
 * `sign-schema --batch` (issue 14): ECDSA in JavaScript is most of a batch's time, and one
 * thread leaves the other cores idle. The main thread keeps every I/O, ordering, pin and
 * reporting decision; the workers (`batch_worker.ts`) only compute:
 *
 * - {@linkcode BatchPool.precheck}: which signatures verify (ids handed to
 *   `acceptPrecheckedSignature`; the verification flow still runs every step, and checks again
 *   anything not prechecked);
 * - {@linkcode BatchPool.sign}: the signature files' text (deterministic, the same bytes the
 *   main thread would write).
 *
 * Around the pool: {@linkcode chunksAhead} reads a batch a few chunks ahead of the main thread's
 * work, {@linkcode BatchWorkers} turns a failing pool into one warning and main-thread work
 * (never a different result), and {@linkcode batchThreadsSetting} / {@linkcode batchThreads}
 * decide how many threads (`SCHEMAPIN_BATCH_THREADS`, else none below {@linkcode POOL_FROM}
 * schemas and one per core but one from there).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { PrivateKey, PublicKey } from "../crypto/keys.ts";
import { privateKeyToPkcs8Der } from "../crypto/keys.ts";
import type { SchemaDocumentOptions } from "./document.ts";
import type { BatchTask, SentError, SignOutcome } from "./batch_worker.ts";
import type { SignedSchema } from "./sign_one.ts";

/** Items per chunk of a batch: read, and handed to the worker threads, together. */
export const BATCH_CHUNK = 256;
/** Chunks prepared ahead of the one the main thread works on. */
export const BATCH_AHEAD = 4;

/**
 * The chunks of a batch of `total` items, in order, each prepared by `prepare(from)` (items
 * `from` … `from + BATCH_CHUNK - 1`) up to {@linkcode BATCH_AHEAD} chunks ahead of the one
 * being consumed — so the worker threads have work while the main thread handles a chunk.
 *
 * @example
 * ```ts
 * import { chunksAhead } from "./batch_pool.ts";
 * for await (const from of chunksAhead(600, (from) => Promise.resolve(from))) {
 *   console.log(from); // 0, 256, 512
 * }
 * ```
 */
export async function* chunksAhead<T>(
  total: number,
  prepare: (from: number) => Promise<T>,
): AsyncGenerator<T> {
  const ahead: Promise<T>[] = [];
  let next = 0;
  const refill = () => {
    while (ahead.length < BATCH_AHEAD && next < total) {
      const p = prepare(next);
      p.catch(() => {}); // awaited below; an early rejection is not "unhandled"
      ahead.push(p);
      next += BATCH_CHUNK;
    }
  };
  refill();
  while (ahead.length > 0) {
    const chunk = await ahead.shift()!;
    refill();
    yield chunk;
  }
}

/** Most worker threads a batch starts. */
export const MAX_BATCH_THREADS = 8;
/** Items per message to a worker. */
const ITEMS_PER_TASK = 32;

/**
 * Batches from this size use worker threads. Measured on 2 cores (README, "Performance"):
 * below, a worker's start and its warm-up (JIT, precomputed tables) cost more than it saves —
 * 1,000 schemas took 0.80 s on one thread and 0.95–1.2 s with workers; 3,000 took 1.7–2.5 s
 * and 1.5–1.8 s.
 */
export const POOL_FROM = 2000;

/**
 * `SCHEMAPIN_BATCH_THREADS` as a number, or `undefined` when it is not set (or the environment
 * cannot be read). Read it when a batch command starts, before anything is read or written.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when it is not a whole number from 0 to
 *   {@linkcode MAX_BATCH_THREADS}.
 *
 * @example
 * ```ts
 * import { batchThreadsSetting } from "./batch_pool.ts";
 * batchThreadsSetting(); // undefined unless SCHEMAPIN_BATCH_THREADS is set
 * ```
 */
export function batchThreadsSetting(): number | undefined {
  let env: string | undefined;
  try {
    env = Deno.env.get("SCHEMAPIN_BATCH_THREADS");
  } catch {
    return undefined; // no --allow-env: the default
  }
  if (env === undefined) return undefined;
  if (!/^[0-9]$/.test(env) || Number(env) > MAX_BATCH_THREADS) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `SCHEMAPIN_BATCH_THREADS must be a whole number from 0 to ${MAX_BATCH_THREADS}, ` +
        `got ${JSON.stringify(env)}`,
    );
  }
  return Number(env);
}

/**
 * How many worker threads a batch of `items` uses: `setting` (see
 * {@linkcode batchThreadsSetting}; 0 = none) for a batch of any size, else 0 below
 * {@linkcode POOL_FROM} and from there one per core but one — the main thread keeps a core for
 * reading, writing and the verification flow; one worker on 2 cores measured as fast as two for
 * verifying and faster for signing — at least 1 and at most {@linkcode MAX_BATCH_THREADS}.
 *
 * @example
 * ```ts
 * import { batchThreads } from "./batch_pool.ts";
 * batchThreads(10, undefined); // 0: too small to be worth a thread
 * batchThreads(10, 2); // 2
 * ```
 */
export function batchThreads(items: number, setting: number | undefined): number {
  if (items === 0) return 0;
  if (setting !== undefined) return setting;
  if (items < POOL_FROM) return 0;
  const cores = navigator.hardwareConcurrency ?? 1;
  return Math.max(1, Math.min(cores - 1, MAX_BATCH_THREADS));
}

/**
 * A batch's worker threads, or none: {@linkcode BatchWorkers.use} runs work on the pool while
 * it works. The first failure closes the pool and is reported once through `warn` (the batch
 * then does that work on the main thread: the same result, not silently); after
 * {@linkcode BatchWorkers.stop} nothing more runs and nothing is reported.
 *
 * @example
 * ```ts ignore
 * const workers = new BatchWorkers(1, "signing", (m) => io.stderr(m));
 * try {
 *   const out = await workers.use((pool) => pool.sign(key, undefined, items));
 *   // out === undefined: sign on this thread
 * } finally {
 *   workers.stop();
 * }
 * ```
 */
export class BatchWorkers {
  #pool: BatchPool | undefined;
  #stopped = false;
  readonly #what: string;
  readonly #warn: (line: string) => Promise<void> | void;

  /**
   * `threads` workers (none when 0); `what` names the work in the warning (`"signing"`),
   * `warn` writes it (its own failure is ignored).
   */
  constructor(threads: number, what: string, warn: (line: string) => Promise<void> | void) {
    this.#pool = threads > 0 ? new BatchPool(threads) : undefined;
    this.#what = what;
    this.#warn = warn;
  }

  /** Whether work still goes to the threads. */
  get active(): boolean {
    return this.#pool !== undefined;
  }

  /** `work(pool)`, or `undefined` when there is no pool, it failed, or it was stopped. */
  async use<T>(work: (pool: BatchPool) => Promise<T>): Promise<T | undefined> {
    const pool = this.#pool;
    if (pool === undefined) return undefined;
    try {
      return await work(pool);
    } catch (e) {
      if (this.#stopped || this.#pool !== pool) return undefined; // stopped, or already told
      this.#pool = undefined;
      pool.close();
      const why = e instanceof Error ? e.message : String(e);
      try {
        await this.#warn(`warning: ${this.#what} on one thread from now on: ${why}\n`);
      } catch {
        // the warning could not be written: the batch's own output says what happened
      }
      return undefined;
    }
  }

  /** Closes the pool; later {@linkcode BatchWorkers.use} calls do nothing. */
  stop(): void {
    this.#stopped = true;
    this.#pool?.close();
    this.#pool = undefined;
  }
}

interface Call {
  resolve: (value: unknown[]) => void;
  reject: (error: Error) => void;
  worker: number;
}

/**
 * A pool of worker threads. Tasks go to the worker with the fewest pending ones. A worker that
 * fails (its module did not load, it threw) rejects its pending tasks; callers decide what a
 * failure means. Always {@linkcode BatchPool.close} it (workers keep the process alive).
 *
 * @example
 * ```ts ignore
 * const pool = new BatchPool(2);
 * try {
 *   const ids = await pool.precheck(publicKey, [{ schema, signature }]);
 * } finally {
 *   pool.close();
 * }
 * ```
 */
export class BatchPool {
  #workers: Worker[] = [];
  #pending: number[] = [];
  #dead: boolean[] = [];
  #calls = new Map<number, Call>();
  #nextId = 1;
  #deathReason = "no worker thread";
  #pkcs8 = new WeakMap<PrivateKey, Uint8Array>();

  /**
   * Starts `size` worker threads (at least one) running `module` (tests give another one; a
   * compiled binary must include `batch_worker.ts`: scripts/compile.ts).
   */
  constructor(size: number, module: URL = new URL("./batch_worker.ts", import.meta.url)) {
    for (let i = 0; i < Math.max(1, size); i++) {
      const worker = new Worker(module, { type: "module" });
      worker.onmessage = (e: MessageEvent) => this.#answer(e.data);
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault(); // a worker's failure is this pool's result, not the process's end
        this.#failWorker(i, `worker thread failed: ${e.message}`);
      };
      worker.onmessageerror = () => this.#failWorker(i, "worker thread: unreadable message");
      this.#workers.push(worker);
      this.#pending.push(0);
      this.#dead.push(false);
    }
  }

  /**
   * The ids of the schema signature checks that pass under `publicKey` (undefined for one that
   * does not, or cannot be checked), in order.
   */
  async precheck(
    publicKey: PublicKey,
    items: { schema: unknown; signature: string | Record<string, unknown> }[],
  ): Promise<(string | undefined)[]> {
    const spki = publicKey.spki;
    const parts = await Promise.all(
      chunks(items).map((part) => this.#run({ kind: "precheck", spki, items: part })),
    );
    return parts.flat() as (string | undefined)[];
  }

  /**
   * Each schema signed by `key` as `sign-schema` writes it; a schema that cannot be signed is
   * its `SchemaPinError` (the rest are still signed).
   */
  async sign(
    key: PrivateKey,
    docOptions: SchemaDocumentOptions | undefined,
    items: { schema: unknown; file: string }[],
  ): Promise<(SignedSchema | SchemaPinError)[]> {
    let pkcs8 = this.#pkcs8.get(key);
    if (pkcs8 === undefined) this.#pkcs8.set(key, pkcs8 = privateKeyToPkcs8Der(key));
    const parts = await Promise.all(
      chunks(items).map((part) =>
        this.#run({ kind: "sign", pkcs8: pkcs8!, docOptions, items: part })
      ),
    );
    return (parts.flat() as SignOutcome[]).map((o) => "error" in o ? rebuildError(o.error) : o);
  }

  /** Stops every worker; pending tasks are rejected. */
  close(): void {
    for (let i = 0; i < this.#workers.length; i++) this.#failWorker(i, "the pool was closed");
  }

  #run(task: BatchTask): Promise<unknown[]> {
    let worker = -1;
    for (let i = 0; i < this.#workers.length; i++) {
      if (!this.#dead[i] && (worker < 0 || this.#pending[i] < this.#pending[worker])) worker = i;
    }
    if (worker < 0) return Promise.reject(new Error(this.#deathReason));
    const id = this.#nextId++;
    this.#pending[worker]++;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject, worker });
      this.#workers[worker].postMessage({ id, task });
    });
  }

  #answer(data: { id: number; ok: boolean; value?: unknown[]; message?: string }): void {
    const call = this.#calls.get(data.id);
    if (call === undefined) return;
    this.#calls.delete(data.id);
    this.#pending[call.worker]--;
    if (data.ok) call.resolve(data.value!);
    else call.reject(new Error(`worker thread: ${data.message}`));
  }

  #failWorker(worker: number, message: string): void {
    if (!this.#dead[worker]) {
      this.#dead[worker] = true; // nothing more is sent to it: it may never answer
      this.#deathReason = message;
      this.#workers[worker].terminate();
    }
    for (const [id, call] of this.#calls) {
      if (call.worker !== worker) continue;
      this.#calls.delete(id);
      this.#pending[worker]--;
      call.reject(new Error(message));
    }
  }
}

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += ITEMS_PER_TASK) {
    out.push(items.slice(i, i + ITEMS_PER_TASK));
  }
  return out;
}

function rebuildError(e: SentError): SchemaPinError {
  return new SchemaPinError(e.code, e.message, e.details);
}
