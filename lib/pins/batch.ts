/**
 * A pin store for batches (`verify-schema --batch`): the underlying store is read once, every
 * lookup is answered from memory, and the pins the batch adds are written together by
 * {@linkcode BatchPinStore.flush} in one locked transaction of the underlying store, instead of
 * one locked rewrite of the whole file per pin (which made a first-use batch quadratic).
 *
 * Guarantees, as for {@linkcode FilePinStore} alone:
 * - A pin reaches the store only after its verification passed (the flow calls `transact`
 *   only then), and only through `flush`, which holds the store's lock and replaces the file
 *   atomically (temporary file, fsync, rename, directory fsync).
 * - Nothing another process wrote is lost or overwritten: `flush` re-reads the store under the
 *   lock and applies a pending change only when the entry is still what the batch saw when it
 *   made the change (optimistic concurrency). An entry someone else changed meanwhile is left
 *   as they wrote it and reported as a conflict; the caller must then treat the verification
 *   that relied on it as failed (see `pinConflictFailure` in lib/schema/flow.ts).
 * - After `flush` the view is the store as it was under the lock, so changes other processes
 *   made are seen from then on. Between flushes the view is a snapshot: call `flush` often (the
 *   CLI does so about once a second and before it reports a result as pinned).
 *
 * Until `flush`, changes live only in this process: a batch killed before it flushed loses its
 * unflushed pins, never a pin it reported as written, and never the file.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { JournalMap, sortedByKey } from "./keyed_records.ts";
import type { PinRecord, PinStore } from "./store.ts";
import { pinKey } from "./store.ts";

/** An entry `flush` did not write because the store no longer held what the batch saw. */
export interface PinConflict {
  /** What the batch wanted to store (`undefined`: remove the entry). */
  readonly intended: PinRecord | undefined;
  /** What the store holds now (`undefined`: nothing). */
  readonly current: PinRecord | undefined;
}

/** What {@linkcode BatchPinStore.flush} did. */
export interface PinFlushOutcome {
  /** Keys (`tool_id@domain`) whose change was written. */
  readonly written: readonly string[];
  /** Keys whose entry someone else changed meanwhile, with what the store holds now. */
  readonly conflicts: ReadonlyMap<string, PinConflict>;
}

function samePin(a: PinRecord | undefined, b: PinRecord | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return a.toolId === b.toolId && a.domain === b.domain && a.fingerprint === b.fingerprint &&
    a.pinnedAt === b.pinnedAt && a.source === b.source && a.developerName === b.developerName;
}

/**
 * A {@linkcode PinStore} over another one (normally a {@linkcode FilePinStore}) that reads it
 * once and buffers changes until {@linkcode flush} (see the module documentation).
 *
 * @example
 * ```ts ignore
 * const pins = new BatchPinStore(new FilePinStore(path));
 * for (const item of batch) await verifySchemaOffline({ ...options, pinStore: pins });
 * const { conflicts } = await pins.flush();
 * ```
 */
export class BatchPinStore implements PinStore {
  readonly #inner: PinStore;
  #view: JournalMap<PinRecord> | undefined;
  // key → the entry as the batch first saw it, and what the batch wants there now.
  readonly #pending = new Map<
    string,
    { base: PinRecord | undefined; next: PinRecord | undefined }
  >();
  #queue: Promise<unknown> = Promise.resolve();

  /** Wraps `inner`; nothing is read until the first use. */
  constructor(inner: PinStore) {
    this.#inner = inner;
  }

  /** How many changed entries wait for {@linkcode flush}. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  async #load(): Promise<JournalMap<PinRecord>> {
    if (this.#view !== undefined) return this.#view;
    const view = new JournalMap<PinRecord>();
    for (const r of await this.#inner.list()) view.set(pinKey(r.toolId, r.domain), r);
    this.#view = view;
    return view;
  }

  #serial<R>(task: () => Promise<R>): Promise<R> {
    const run = this.#queue.then(task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** The pin for `toolId@domain` as this batch sees it (the store at the last flush, plus the batch's changes). */
  async get(toolId: string, domain: string): Promise<PinRecord | undefined> {
    await this.#queue;
    return (await this.#load()).get(pinKey(toolId, domain));
  }

  /** Every pin as this batch sees it, sorted by key. */
  async list(): Promise<PinRecord[]> {
    await this.#queue;
    return sortedByKey(await this.#load());
  }

  /**
   * Runs `change` on this batch's view; a kept change waits for {@linkcode flush}. Costs time
   * in the number of entries `change` touches.
   */
  transact<R>(
    change: (pins: Map<string, PinRecord>) => { changed: boolean; result: R },
  ): Promise<R> {
    return this.#serial(async () => {
      const view = await this.#load();
      view.begin();
      let outcome: { changed: boolean; result: R };
      try {
        outcome = change(view);
      } catch (e) {
        view.rollback(view.end());
        throw e;
      }
      const journal = view.end();
      if (!outcome.changed) {
        view.rollback(journal);
        return outcome.result;
      }
      for (const [key, before] of journal) {
        const next = view.get(key);
        const pending = this.#pending.get(key);
        const base = pending ? pending.base : before;
        if (samePin(base, next)) this.#pending.delete(key);
        else this.#pending.set(key, { base, next });
      }
      return outcome.result;
    });
  }

  /** The keys (`tool_id@domain`) whose changes wait for {@linkcode flush}. */
  pendingKeys(): Set<string> {
    return new Set(this.#pending.keys());
  }

  /**
   * Writes the pending changes in one transaction of the underlying store (its lock, an atomic
   * rewrite), each only if its entry is still what this batch saw, and refreshes the view from
   * the store. Returns what was written and what was not (conflicts). With nothing pending it
   * only re-reads the store, without its lock (a read-only store stays usable). On an error
   * nothing is written, the pending changes are dropped (the caller reports the verifications
   * that relied on them as failed; see {@linkcode pendingKeys}) and the view is re-read at its
   * next use.
   */
  flush(): Promise<PinFlushOutcome> {
    return this.#serial(async () => {
      const pending = [...this.#pending];
      this.#pending.clear();
      this.#view = undefined;
      if (pending.length === 0) {
        await this.#load();
        return { written: [], conflicts: new Map() };
      }
      let fresh: Map<string, PinRecord> | undefined;
      const outcome = await this.#inner.transact((pins) => {
        const written: string[] = [];
        const conflicts = new Map<string, PinConflict>();
        for (const [key, { base, next }] of pending) {
          const current = pins.get(key);
          if (!samePin(current, base)) {
            conflicts.set(key, { intended: next, current });
            continue;
          }
          if (next === undefined) pins.delete(key);
          else pins.set(key, next);
          written.push(key);
        }
        fresh = pins;
        return { changed: written.length > 0, result: { written, conflicts } };
      });
      if (fresh === undefined) {
        throw new SchemaPinError("IO_FAILED", "the pin store did not run the transaction");
      }
      const view = new JournalMap<PinRecord>();
      for (const [key, record] of fresh) view.set(key, record);
      this.#view = view;
      return outcome;
    });
  }
}
