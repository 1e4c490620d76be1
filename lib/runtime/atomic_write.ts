/**
 * Atomic file writes for every runtime (Deno's own calls on Deno, `node:fs` on Node and Bun):
 * a temporary file next to the destination with its final mode from the start, fsync, then a
 * rename, so a failed write never leaves a partial file behind and the destination is always
 * entirely old or entirely new. One file at a time ({@linkcode writeFileAtomic}) or many made
 * durable together ({@linkcode AtomicBatchWriter}). Every temporary file is recorded in
 * lib/runtime/temp_files.ts from before it is created until it was renamed or removed, so a
 * process stopped in between removes it.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import {
  describeFsError,
  isDeno,
  isNotFound,
  lstatSync,
  node,
  processId,
  readDirNamesSync,
  removeFileSync,
  syncDir,
} from "./fs.ts";
import { processAlive } from "./pid.ts";
import { trackTempFile, untrackTempFile } from "./temp_files.ts";

/** A file created for writing, open until {@linkcode NewFile.close}. */
interface NewFile {
  /** Writes all of `bytes` (synchronously). */
  writeAllSync(bytes: Uint8Array): void;
  /** Writes all of `bytes`. */
  writeAll(bytes: Uint8Array): Promise<void>;
  /** Flushes the file's data to the disk (fsync). */
  sync(): Promise<void>;
  /** Closes the file (synchronously). */
  close(): void;
}

const deno: typeof Deno | undefined = isDeno ? Deno : undefined;

/** True on Windows, where a file has no POSIX mode to set. */
const isWindows: boolean = deno !== undefined
  ? deno.build.os === "windows"
  : node!.process.platform === "win32";

/**
 * Creates `path` (failing when it exists) with `mode`, synchronously: a signal handler
 * (cli/commands/interrupt.ts) runs between tasks, so no creation can be in flight when it removes
 * the tracked temporary files.
 */
const createNewFileSync: (path: string, mode: number) => NewFile = deno !== undefined
  ? (path, mode) => {
    const file = deno.openSync(path, { write: true, createNew: true, mode });
    return {
      writeAllSync(bytes) {
        let n = 0;
        while (n < bytes.length) n += file.writeSync(bytes.subarray(n));
      },
      async writeAll(bytes) {
        let n = 0;
        while (n < bytes.length) n += await file.write(bytes.subarray(n));
      },
      sync: () => file.sync(),
      close: () => file.close(),
    };
  }
  : (path, mode) => {
    const fs = node!.fs;
    const fd = fs.openSync(path, "wx", mode);
    const writeAllSync = (bytes: Uint8Array) => {
      let n = 0;
      while (n < bytes.length) n += fs.writeSync(fd, bytes, n, bytes.length - n);
    };
    return {
      writeAllSync,
      writeAll: (bytes) => Promise.resolve().then(() => writeAllSync(bytes)),
      sync: () =>
        new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => e ? reject(e) : resolve())),
      close: () => fs.closeSync(fd),
    };
  };

/** Sets the mode of `path` (not narrowed by the umask); nothing on Windows. */
const chmodSync: (path: string, mode: number) => void = isWindows
  ? () => {}
  : deno !== undefined
  ? (path, mode) => deno.chmodSync(path, mode)
  : (path, mode) => node!.fs.chmodSync(path, mode);

/** Renames `from` to `to` synchronously (atomically replacing `to`). */
const renameSync: (from: string, to: string) => void = deno !== undefined
  ? (from, to) => deno.renameSync(from, to)
  : (from, to) => node!.fs.renameSync(from, to);

/** Removes `path`, ignoring every failure (never created, already gone). */
function removeQuietly(path: string): void {
  try {
    removeFileSync(path);
  } catch {
    // never created, or already gone
  }
}

/**
 * Makes renames in `dir` durable (fsync of the directory). Best effort: not every platform can
 * open a directory, which is harmless there.
 *
 * @example
 * ```ts ignore
 * await rename(tmp, path);
 * await syncDirectory(dirname(path));
 * ```
 */
export async function syncDirectory(dir: string): Promise<void> {
  try {
    await syncDir(dir);
  } catch {
    // best effort
  }
}

/**
 * True when something exists at `path` (a dangling symlink counts).
 *
 * @throws {SchemaPinError} `IO_FAILED` naming `path` when it cannot be inspected (a parent
 *   folder that cannot be searched).
 *
 * @example
 * ```ts
 * import { exists } from "./atomic_write.ts";
 * await exists("."); // true
 * ```
 */
export function exists(path: string): Promise<boolean> {
  try {
    lstatSync(path);
    return Promise.resolve(true);
  } catch (e) {
    if (isNotFound(e)) return Promise.resolve(false);
    return Promise.reject(
      new SchemaPinError("IO_FAILED", `cannot inspect ${path}: ${describeFsError(e)}`, { path }),
    );
  }
}

/** Options for {@linkcode writeFileAtomic}. */
export interface WriteOptions {
  /** File mode of the new file (default 0o644; private keys use 0o600). */
  mode?: number;
  /** Replace an existing file (default false: an existing file is an error). */
  overwrite?: boolean;
}

/**
 * Writes `data` to `path` atomically: a temporary file next to it (`.<name>.tmp-<uuid>`) with
 * the final mode from the start, fsync, then rename. Refuses to replace an existing file
 * unless `overwrite`. On any failure the temporary file is removed and the original is
 * untouched.
 *
 * @throws {SchemaPinError} `IO_FAILED` naming `path`: with `details.exists` true when the file
 *   exists and `overwrite` is not set; otherwise the reason the write failed.
 *
 * @example
 * ```ts ignore
 * import { writeFileAtomic } from "./atomic_write.ts";
 * await writeFileAtomic("out/private.pem", pem, { mode: 0o600 });
 * ```
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const mode = options.mode ?? 0o644;
  if (!options.overwrite && await exists(path)) {
    throw new SchemaPinError(
      "IO_FAILED",
      `${path} already exists; refusing to overwrite it`,
      { path, exists: true },
    );
  }
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
  const base = path.slice(dir.length);
  const tmp = `${dir}.${base}.tmp-${crypto.randomUUID()}`;
  let file: NewFile | undefined;
  trackTempFile(tmp); // removed if the process is stopped before the rename (interrupt.ts)
  try {
    file = createNewFileSync(tmp, mode);
    await file.writeAll(bytes);
    await file.sync();
    file.close();
    file = undefined;
    chmodSync(tmp, mode);
    renameSync(tmp, path); // sync for the same reason: renamed and untracked in one task
    untrackTempFile(tmp);
  } catch (e) {
    file?.close();
    removeQuietly(tmp);
    untrackTempFile(tmp);
    if (e instanceof SchemaPinError) throw e;
    throw new SchemaPinError("IO_FAILED", `cannot write ${path}: ${describeFsError(e)}`, {
      path,
    });
  }
}

/** How many fsyncs {@linkcode AtomicBatchWriter} keeps in flight at once. */
const SYNCS_IN_FLIGHT = 64;

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
const BATCH_TEMP_NAME = new RegExp(`^\\..+\\.tmp-([1-9][0-9]{0,9})-${UUID}$`);

/** One file written by an {@linkcode AtomicBatchWriter}, or why it was not. */
export interface BatchWriteOutcome {
  /** The destination path. */
  readonly path: string;
  /** Why it was not written (`IO_FAILED`), when it was not. */
  readonly error?: SchemaPinError;
}

/**
 * Atomic writes of many files, made durable together (`sign-schema --batch`): {@linkcode add}
 * writes each file to a temporary file next to it (`.<name>.tmp-<pid>-<uuid>`, with its final
 * mode), and {@linkcode commit} then fsyncs all of them — many at once, so the file system
 * commits them together instead of once per file — renames each over its destination, and
 * fsyncs each directory once. Each file is either entirely old or entirely new at any moment,
 * and a file reported as written is durable. A writer killed before `commit` leaves temporary
 * files, which {@linkcode removeDeadWriterTempFiles} removes on the next batch.
 *
 * @example
 * ```ts ignore
 * import { AtomicBatchWriter } from "./atomic_write.ts";
 * const writer = new AtomicBatchWriter();
 * writer.add("sigs/a.json.sig", "MEUCIQ…\n");
 * const outcomes = await writer.commit();
 * ```
 */
export class AtomicBatchWriter {
  #pending: { path: string; tmp: string; file: NewFile }[] = [];

  /** Files added and not committed yet. */
  get size(): number {
    return this.#pending.length;
  }

  /**
   * Writes `data` to a temporary file for `path` (replacing `path` at {@linkcode commit}).
   * Throws `IO_FAILED` naming `path` when the temporary file cannot be written (nothing is
   * left behind then).
   */
  add(path: string, data: string | Uint8Array, mode = 0o644): void {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const slash = path.lastIndexOf("/");
    const tmp = `${path.slice(0, slash + 1)}.${
      path.slice(slash + 1)
    }.tmp-${processId()}-${crypto.randomUUID()}`;
    let file: NewFile | undefined;
    trackTempFile(tmp); // until commit or abort (removed if the process is stopped before)
    try {
      file = createNewFileSync(tmp, mode);
      file.writeAllSync(bytes);
      chmodSync(tmp, mode); // not narrowed by the umask
      this.#pending.push({ path, tmp, file });
    } catch (e) {
      file?.close();
      removeQuietly(tmp);
      untrackTempFile(tmp);
      throw new SchemaPinError("IO_FAILED", `cannot write ${path}: ${describeFsError(e)}`, {
        path,
      });
    }
  }

  /**
   * Makes every added file durable and puts it in place (see the class documentation).
   * Returns one outcome per file, in the order added; a file whose temporary file could not
   * be synced or renamed is not written (its temporary file is removed) and says why.
   */
  async commit(): Promise<BatchWriteOutcome[]> {
    const pending = this.#pending;
    this.#pending = [];
    const errors = new Map<number, unknown>();
    for (let i = 0; i < pending.length; i += SYNCS_IN_FLIGHT) {
      const flight = pending.slice(i, i + SYNCS_IN_FLIGHT);
      const settled = await Promise.allSettled(flight.map((p) => p.file.sync()));
      settled.forEach((r, j) => {
        if (r.status === "rejected") errors.set(i + j, r.reason);
      });
    }
    const dirs = new Set<string>();
    const outcomes = pending.map(({ path, tmp, file }, i): BatchWriteOutcome => {
      file.close();
      let error = errors.get(i);
      if (error === undefined) {
        try {
          renameSync(tmp, path);
          untrackTempFile(tmp);
          const slash = path.lastIndexOf("/");
          dirs.add(slash < 0 ? "." : slash === 0 ? "/" : path.slice(0, slash));
          return { path };
        } catch (e) {
          error = e;
        }
      }
      removeQuietly(tmp);
      untrackTempFile(tmp);
      return {
        path,
        error: new SchemaPinError("IO_FAILED", `cannot write ${path}: ${describeFsError(error)}`, {
          path,
        }),
      };
    });
    // Make the renames durable.
    for (const dir of dirs) await syncDirectory(dir);
    return outcomes;
  }

  /** Closes and removes every temporary file not committed yet. */
  abort(): void {
    for (const { tmp, file } of this.#pending) {
      file.close();
      removeQuietly(tmp);
      untrackTempFile(tmp);
    }
    this.#pending = [];
  }
}

/**
 * Removes, from `dir`, the temporary files of {@linkcode AtomicBatchWriter}s whose process is
 * known to be dead (a batch killed before it committed). Only regular files with such a name
 * whose pid does not exist are removed; nothing else is touched, and nothing here fails.
 * Returns the names removed.
 *
 * @example
 * ```ts
 * import { removeDeadWriterTempFiles } from "./atomic_write.ts";
 * removeDeadWriterTempFiles("."); // [] unless a killed batch left files here
 * ```
 */
export function removeDeadWriterTempFiles(dir: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readDirNamesSync(dir);
  } catch {
    return removed; // cannot list: nothing to clean
  }
  for (const name of names) {
    const m = BATCH_TEMP_NAME.exec(name);
    if (!m) continue;
    try {
      if (!lstatSync(`${dir}/${name}`).isFile || processAlive(Number(m[1])) !== false) continue;
      removeFileSync(`${dir}/${name}`);
      removed.push(name);
    } catch {
      // vanished or not removable: leave it
    }
  }
  return removed;
}
