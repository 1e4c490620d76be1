/**
 * The persistence under the pin store and the lineage store: a JSON file holding a versioned
 * list of records, read without locks (writers replace it atomically) and updated under an
 * exclusive lock file so several processes can verify at once without losing updates.
 *
 * Update protocol: create the parent directory (mode 0700) if needed; open
 * `<file>.lock` and take an exclusive `flock` (released by the kernel if the process dies, so
 * no stale locks; on Node and Bun, which have no `flock`, an owner file `<file>.lock.owner`
 * instead — see lib/runtime/lock.ts); read the current file; apply the change; write a temporary file
 * `.<name>.tmp-<pid>-<uuid>` in the same directory, fsync it, rename it over the file, fsync
 * the directory; unlock. The lock file itself is never deleted (deleting it would let two
 * writers lock different inodes).
 *
 * A writer killed between creating its temporary file and the rename (`kill -9`, a crash, a
 * power cut) leaves that file behind. Every later write of the same store removes such
 * leftovers, holding the lock, before it writes (see {@linkcode STALE_TEMP_FILE_MS}): only
 * regular files whose name is this store's temporary name (`.<name>.tmp-<pid>-<uuid>`, or
 * `.<name>.tmp-<uuid>` from versions before the pid was recorded), and only when the writer
 * whose pid the name carries is dead, or the file is older than the threshold.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parseJson } from "../json/parse.ts";
import { isJsonObject, ownField } from "../json/object.ts";
import { trackTempFile, untrackTempFile } from "../runtime/temp_files.ts";
import {
  errorCode,
  getEnv,
  isNotFound,
  lstatSync,
  mkdirAll,
  processId,
  readDirNamesSync,
  readFile,
  removeFileSync,
  rename,
  writeNewFileSynced,
} from "../runtime/fs.ts";
import { type HeldLock, lockFile } from "../runtime/lock.ts";
import { processAlive } from "../runtime/pid.ts";
import { syncDirectory } from "../runtime/atomic_write.ts";

/** How a {@linkcode RecordFile} names its format marker and its list. */
export interface RecordFileFormat {
  /** Top-level field carrying the format version, e.g. `schemapin_pins_version`. */
  readonly versionField: string;
  /** The only format version written and read. */
  readonly version: number;
  /** Top-level field holding the records array, e.g. `pins`. */
  readonly listField: string;
  /** What the file is, for messages ("pin store"). */
  readonly what: string;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

function describeFsError(e: unknown): string {
  const code = errorCode(e);
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return (e as Error)?.message ?? String(e);
}

/**
 * How old (by modification time) a leftover temporary file of a store must be before a write
 * removes it although its writer may be alive: 10 minutes. A live writer holds its temporary
 * file for the milliseconds of one write, and always under the store's lock, which the
 * cleaner holds too; the age rule only covers what the pid cannot tell (a name from an older
 * version without a pid, a pid reused by another process, a platform where liveness cannot
 * be checked). A file whose recorded writer is known to be dead is removed at once.
 */
export const STALE_TEMP_FILE_MS: number = 10 * 60 * 1000;

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/** The temporary-file name pattern of the store file named `base`: pid (optional), uuid. */
function tempNamePattern(base: string): RegExp {
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\.${escaped}\\.tmp-(?:([1-9][0-9]{0,9})-)?${UUID}$`);
}

/**
 * Removes the stale temporary files of the store file `path` (see the module documentation).
 * Call only while holding the store's lock. Best effort: a file that cannot be inspected or
 * removed is left alone, and nothing here makes the write fail. Returns the names removed.
 */
function removeStaleTempFiles(path: string, now: number): string[] {
  const dir = dirname(path);
  const pattern = tempNamePattern(path.slice(path.lastIndexOf("/") + 1));
  const removed: string[] = [];
  let names: string[];
  try {
    names = readDirNamesSync(dir);
  } catch {
    return removed;
  }
  try {
    for (const name of names) {
      const m = pattern.exec(name);
      if (!m) continue;
      const full = `${dir}/${name}`;
      try {
        const info = lstatSync(full);
        if (!info.isFile) continue; // never a link, a directory or another store's file
        const age = now - (info.mtime?.getTime() ?? now);
        const stale = age > STALE_TEMP_FILE_MS ||
          (m[1] !== undefined && processAlive(Number(m[1])) === false);
        if (!stale) continue;
        removeFileSync(full);
        removed.push(name);
      } catch {
        // vanished or not removable: leave it
      }
    }
  } catch {
    // the listing failed part way: what was removed stays removed
  }
  return removed;
}

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  if (i < 0) return ".";
  if (i === 0) return "/";
  return path.slice(0, i);
}

/**
 * A JSON file of records with atomic, locked updates (see the module documentation).
 *
 * @example
 * ```ts ignore
 * const file = new RecordFile("/tmp/pins.json", { versionField: "v", version: 1, listField: "pins", what: "pin store" });
 * await file.update((records) => ({ records: [...records, { a: 1 }], result: undefined }));
 * ```
 */
export class RecordFile {
  /** The file's path. */
  readonly path: string;
  readonly #format: RecordFileFormat;
  // The last file contents read and their records: an unchanged file is not parsed again.
  #cache: { text: string; records: unknown[] } | undefined;

  /** Creates a handle; nothing is read or written until used. */
  constructor(path: string, format: RecordFileFormat) {
    if (typeof path !== "string" || path === "") {
      throw new SchemaPinError("INPUT_INVALID", `${format.what} path must not be empty`);
    }
    this.path = path;
    this.#format = format;
  }

  /**
   * Reads the records; a missing file has none. A corrupt file is an error, never "empty".
   * The result is shared with later reads of identical contents: do not modify it.
   */
  async read(): Promise<unknown[]> {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(this.path);
    } catch (e) {
      if (isNotFound(e)) return [];
      throw new SchemaPinError(
        "IO_FAILED",
        `cannot read ${this.#format.what} ${this.path}: ${describeFsError(e)}`,
        { path: this.path },
      );
    }
    let text: string | undefined;
    try {
      text = UTF8.decode(bytes);
    } catch {
      text = undefined; // not UTF-8: let the strict parser report it
    }
    if (text !== undefined && this.#cache?.text === text) return this.#cache.records;
    const records = this.#parse(bytes);
    this.#cache = text === undefined ? undefined : { text, records };
    return records;
  }

  #parse(bytes: Uint8Array): unknown[] {
    const f = this.#format;
    let value: unknown;
    try {
      value = parseJson(bytes, this.path);
    } catch (e) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${f.what} ${this.path} is not valid JSON (${(e as Error).message}); ` +
          `fix or move it away — it is never overwritten while unreadable`,
        { path: this.path },
      );
    }
    if (!isJsonObject(value) || ownField(value, f.versionField) !== f.version) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${this.path} is not a schemapin ${f.what} (expected "${f.versionField}": ${f.version}); ` +
          `it may belong to another tool — use a different path`,
        { path: this.path },
      );
    }
    const list = ownField(value, f.listField);
    if (!Array.isArray(list)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${f.what} ${this.path}: "${f.listField}" must be an array`,
        { path: this.path },
      );
    }
    return list;
  }

  /**
   * Applies `change` to the current records under the lock and writes the result atomically
   * when `change` returns `records` (return `records: undefined` to leave the file alone).
   */
  async update<R>(
    change: (records: unknown[]) => { records?: unknown[]; result: R },
  ): Promise<R> {
    const f = this.#format;
    const dir = dirname(this.path);
    try {
      await mkdirAll(dir, 0o700);
    } catch (e) {
      throw new SchemaPinError(
        "IO_FAILED",
        `cannot create the directory of ${f.what} ${this.path}: ${describeFsError(e)}`,
        { path: this.path },
      );
    }
    let lock: HeldLock;
    try {
      lock = await lockFile(`${this.path}.lock`);
    } catch (e) {
      throw new SchemaPinError(
        "IO_FAILED",
        `cannot open the lock file ${this.path}.lock: ${describeFsError(e)}`,
        { path: this.path },
      );
    }
    try {
      const current = await this.read();
      const { records, result } = change(current);
      if (records !== undefined) {
        // Under the lock, so no live writer of this store is between create and rename.
        removeStaleTempFiles(this.path, Date.now());
        await this.#write(records);
      }
      return result;
    } finally {
      await lock.release();
    }
  }

  async #write(records: unknown[]): Promise<void> {
    const f = this.#format;
    const body = {} as Record<string, unknown>;
    body[f.versionField] = f.version;
    body[f.listField] = records;
    const text = JSON.stringify(body, null, 2) + "\n";
    const bytes = new TextEncoder().encode(text);
    const dir = dirname(this.path);
    const base = this.path.slice(this.path.lastIndexOf("/") + 1);
    // The pid lets a later writer tell a dead writer's leftover from a live one's file.
    const tmp = `${dir}/.${base}.tmp-${processId()}-${crypto.randomUUID()}`;
    trackTempFile(tmp); // removed if the process is stopped before the rename
    try {
      await writeNewFileSynced(tmp, bytes, 0o644);
      await rename(tmp, this.path);
      untrackTempFile(tmp);
      // The file now holds exactly these records: a later read of the same text is not parsed.
      this.#cache = { text, records };
    } catch (e) {
      try {
        removeFileSync(tmp);
      } catch {
        // never created, or not removable
      }
      untrackTempFile(tmp);
      throw new SchemaPinError(
        "IO_FAILED",
        `cannot write ${f.what} ${this.path}: ${describeFsError(e)}`,
        { path: this.path },
      );
    }
    await syncDirectory(dir);
  }
}

/**
 * The schemapin state directory: `$SCHEMAPIN_HOME` when set, else `$HOME/.schemapin`.
 * Throws `SchemaPinError` `INPUT_INVALID` when neither is set (or readable).
 *
 * @example
 * ```ts ignore
 * const dir = schemapinHome(); // "/home/me/.schemapin"
 * ```
 */
export function schemapinHome(): string {
  const get = getEnv;
  const home = get("SCHEMAPIN_HOME");
  if (home) return home.replace(/\/+$/, "") || "/";
  const user = get("HOME");
  if (user) return `${user.replace(/\/+$/, "")}/.schemapin`;
  throw new SchemaPinError(
    "INPUT_INVALID",
    "cannot locate the schemapin directory: set SCHEMAPIN_HOME or HOME, or give a path",
  );
}
