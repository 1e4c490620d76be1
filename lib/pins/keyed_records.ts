/**
 * The keyed record maps under the pin store, the lineage store and the bundle authority
 * allow-list: records looked up by a string key, changed in serialised transactions, kept
 * either in memory or in a {@linkcode RecordFile} (locked, atomic JSON file).
 *
 * Listing and writing order records by key (code-unit order), so a file's contents depend
 * only on its records.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { RecordFile, type RecordFileFormat } from "./json_file.ts";

/**
 * A transaction: changes `records` in place and says whether anything `changed` (only
 * then is the change kept) and what to return.
 */
export type KeyedChange<T, R> = (records: Map<string, T>) => { changed: boolean; result: R };

/** Records keyed by a string, read freely and changed one transaction at a time. */
export interface KeyedRecords<T> {
  /** The record under `key`, if any. Never writes. */
  get(key: string): Promise<T | undefined>;
  /** Every record, sorted by key. */
  list(): Promise<T[]>;
  /** Runs `change` on a consistent snapshot; keeps the result when it returns `changed`. */
  transact<R>(change: KeyedChange<T, R>): Promise<R>;
}

/**
 * The values of `map` ordered by their keys (code-unit order).
 *
 * @example
 * ```ts
 * import { sortedByKey } from "./keyed_records.ts";
 * sortedByKey(new Map([["b", 2], ["a", 1]])); // [1, 2]
 * ```
 */
export function sortedByKey<T>(map: ReadonlyMap<string, T>): T[] {
  return [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

/**
 * A `Map` that can journal what a transaction changes — the previous value of each key at its
 * first change — so a transaction costs time in the entries it touches, not in the size of
 * the map, and can be rolled back.
 *
 * @example
 * ```ts
 * import { JournalMap } from "./keyed_records.ts";
 * const map = new JournalMap<number>();
 * map.set("a", 1);
 * map.begin();
 * map.set("a", 2);
 * map.rollback(map.end());
 * map.get("a"); // 1
 * ```
 */
export class JournalMap<T> extends Map<string, T> {
  #journal: Map<string, T | undefined> | undefined;

  /** Starts journaling. */
  begin(): void {
    this.#journal = new Map();
  }

  /** Stops journaling; returns the journal (key → value before the first change). */
  end(): Map<string, T | undefined> {
    const journal = this.#journal ?? new Map();
    this.#journal = undefined;
    return journal;
  }

  /** Undoes the changes recorded in `journal`. */
  rollback(journal: ReadonlyMap<string, T | undefined>): void {
    for (const [key, before] of journal) {
      if (before === undefined) super.delete(key);
      else super.set(key, before);
    }
  }

  #note(key: string): void {
    if (this.#journal !== undefined && !this.#journal.has(key)) {
      this.#journal.set(key, super.get(key));
    }
  }

  /** Sets `key`, journaling its previous value. */
  override set(key: string, value: T): this {
    this.#note(key);
    return super.set(key, value);
  }

  /** Deletes `key`, journaling its previous value. */
  override delete(key: string): boolean {
    this.#note(key);
    return super.delete(key);
  }

  /** Deletes every key, journaling their values. */
  override clear(): void {
    for (const key of this.keys()) this.#note(key);
    super.clear();
  }
}

/**
 * Keyed records held in memory; transactions run one at a time, each on the map itself with a
 * journal (rolled back unless it returns `changed`), so a transaction costs time in the
 * records it touches, not in the number of records.
 *
 * @example
 * ```ts
 * import { MemoryKeyedRecords } from "./keyed_records.ts";
 * const records = new MemoryKeyedRecords<number>([["a", 1]]);
 * await records.transact((m) => ({ changed: m.delete("a"), result: undefined }));
 * ```
 */
export class MemoryKeyedRecords<T> implements KeyedRecords<T> {
  readonly #map: JournalMap<T> = new JournalMap<T>();
  #queue: Promise<unknown> = Promise.resolve();

  /** Creates the map, optionally with initial `[key, record]` entries. */
  constructor(entries: Iterable<readonly [string, T]> = []) {
    for (const [k, v] of entries) this.#map.set(k, v);
  }

  /** The record under `key`. */
  get(key: string): Promise<T | undefined> {
    return Promise.resolve(this.#map.get(key));
  }

  /** Every record, sorted by key. */
  list(): Promise<T[]> {
    return Promise.resolve(sortedByKey(this.#map));
  }

  /** Runs `change` and keeps what it did when `changed`; one transaction at a time. */
  transact<R>(change: KeyedChange<T, R>): Promise<R> {
    const run = this.#queue.then(() => {
      const map = this.#map;
      map.begin();
      let outcome: { changed: boolean; result: R };
      try {
        outcome = change(map);
      } catch (e) {
        map.rollback(map.end());
        throw e;
      }
      const journal = map.end();
      if (!outcome.changed) map.rollback(journal);
      return outcome.result;
    });
    this.#queue = run.catch(() => {});
    return run;
  }
}

/** How a {@linkcode FileKeyedRecords} reads, keys and writes one record. */
export interface KeyedRecordCodec<T> {
  /** Parses one entry of the file's list; throws `SchemaPinError` naming `where`. */
  fromJson(value: unknown, where: string): T;
  /** The entry written for `record`. */
  toJson(record: T): unknown;
  /** The key `record` is stored under. */
  key(record: T): string;
  /** What is wrong when `key` occurs twice, e.g. `kid "a" is listed twice`. */
  duplicate(key: string, record: T): string;
}

/**
 * Keyed records persisted in a {@linkcode RecordFile}. Reads take no lock and re-validate
 * only a changed file; transactions hold the file's lock and rewrite it atomically, sorted
 * by key. Entry `i` that does not parse is reported as `<what> <path>: <list>[i]: …`, a key
 * listed twice as `<what> <path>: <duplicate>`, both `INPUT_INVALID`.
 *
 * @example
 * ```ts ignore
 * const records = new FileKeyedRecords("/tmp/pins.json", PIN_FILE_FORMAT, pinCodec);
 * const pin = await records.get("calc@example.com");
 * ```
 */
export class FileKeyedRecords<T> implements KeyedRecords<T> {
  readonly #file: RecordFile;
  readonly #format: RecordFileFormat;
  readonly #codec: KeyedRecordCodec<T>;
  #cache: { records: unknown[]; map: Map<string, T> } | undefined;

  /** A handle on `path`; nothing is read or written until used. */
  constructor(path: string, format: RecordFileFormat, codec: KeyedRecordCodec<T>) {
    this.#file = new RecordFile(path, format);
    this.#format = format;
    this.#codec = codec;
  }

  /** The file's path. */
  get path(): string {
    return this.#file.path;
  }

  #toMap(records: unknown[]): Map<string, T> {
    const { what, listField } = this.#format;
    const map = new Map<string, T>();
    records.forEach((raw, i) => {
      const rec = this.#codec.fromJson(raw, `${what} ${this.path}: ${listField}[${i}]`);
      const key = this.#codec.key(rec);
      if (map.has(key)) {
        throw new SchemaPinError(
          "INPUT_INVALID",
          `${what} ${this.path}: ${this.#codec.duplicate(key, rec)}`,
        );
      }
      map.set(key, rec);
    });
    return map;
  }

  /** The validated records of the file as it is now (re-validated only when it changed). */
  async #current(): Promise<Map<string, T>> {
    const records = await this.#file.read();
    if (this.#cache?.records === records) return this.#cache.map;
    const map = this.#toMap(records);
    this.#cache = { records, map };
    return map;
  }

  /** The record under `key` (the file is read on every call). */
  async get(key: string): Promise<T | undefined> {
    return (await this.#current()).get(key);
  }

  /** Every record, sorted by key. */
  async list(): Promise<T[]> {
    return sortedByKey(await this.#current());
  }

  /**
   * Runs `change` under the file lock and rewrites the file atomically when `changed`. An
   * unchanged file (the same text as the last read or write) is not validated again.
   */
  transact<R>(change: KeyedChange<T, R>): Promise<R> {
    return this.#file.update((records) => {
      const map = this.#cache?.records === records
        ? new Map(this.#cache.map)
        : this.#toMap(records);
      const { changed, result } = change(map);
      if (!changed) return { records: undefined, result };
      const written = sortedByKey(map).map((r) => this.#codec.toJson(r));
      // RecordFile caches what it writes: the next read of this text returns `written`.
      this.#cache = { records: written, map };
      return { records: written, result };
    });
  }
}
