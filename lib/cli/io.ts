/**
 * The file I/O of the CLI shell: reading inputs with errors that name the file, and writing
 * outputs atomically (temporary file in the same directory, fsync, rename) so a failed
 * command never leaves a partial file behind.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { processAlive, syncDirectory } from "../pins/json_file.ts";
import { trackTempFile, untrackTempFile } from "../temp_files.ts";
import type { CliIO } from "./command.ts";
import { describeFsError } from "../runtime/fs.ts";

/** A short reason for a file-system error (lib/runtime/fs.ts), for messages naming the path. */
export { describeFsError };

/**
 * Reads a file (or stdin for `-`) as bytes; a missing or unreadable file is `IO_FAILED`
 * naming the path.
 *
 * @example
 * ```ts ignore
 * const bytes = await readInput("schema.json", io);
 * ```
 */
export async function readInput(path: string, io: CliIO): Promise<Uint8Array> {
  if (path === "-") return await io.readStdin();
  try {
    // Synchronous: for the small files the CLI reads (schemas, signatures, keys, documents)
    // it costs a fraction of the asynchronous read, which a batch pays thousands of times.
    return Deno.readFileSync(path);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot read ${path}: ${describeFsError(e)}`, {
      path,
    });
  }
}

/**
 * Reads a text file (or stdin for `-`) as strict UTF-8.
 *
 * @example
 * ```ts ignore
 * const pem = await readTextInput("key.pem", io);
 * ```
 */
export async function readTextInput(path: string, io: CliIO): Promise<string> {
  const bytes = await readInput(path, io);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SchemaPinError("INPUT_INVALID", `${path} is not valid UTF-8 text`, { path });
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
 * Writes `data` to `path` atomically: a temporary file next to it with the final mode from
 * the start, fsync, then rename. Refuses to replace an existing file unless `overwrite`.
 * On any failure the temporary file is removed and the original is untouched.
 *
 * @example
 * ```ts ignore
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
      `${path} already exists; refusing to overwrite it (use --force)`,
      { path },
    );
  }
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
  const base = path.slice(dir.length);
  const tmp = `${dir}.${base}.tmp-${crypto.randomUUID()}`;
  let file: Deno.FsFile | undefined;
  trackTempFile(tmp); // removed if the process is stopped before the rename (interrupt.ts)
  try {
    // Created synchronously: the Ctrl-C handler (interrupt.ts) runs between tasks, so no
    // creation can be in flight when it removes the tracked temporary files and exits.
    file = Deno.openSync(tmp, { write: true, createNew: true, mode });
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.sync();
    file.close();
    file = undefined;
    if (Deno.build.os !== "windows") Deno.chmodSync(tmp, mode);
    Deno.renameSync(tmp, path); // sync for the same reason: renamed and untracked in one task
    untrackTempFile(tmp);
  } catch (e) {
    file?.close();
    await Deno.remove(tmp).catch(() => {});
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
 * const writer = new AtomicBatchWriter();
 * writer.add("sigs/a.json.sig", "MEUCIQ…\n");
 * const outcomes = await writer.commit();
 * ```
 */
export class AtomicBatchWriter {
  #pending: { path: string; tmp: string; file: Deno.FsFile }[] = [];

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
    }.tmp-${Deno.pid}-${crypto.randomUUID()}`;
    let file: Deno.FsFile | undefined;
    trackTempFile(tmp); // until commit or abort (removed if the process is stopped before)
    try {
      file = Deno.openSync(tmp, { write: true, createNew: true, mode });
      let n = 0;
      while (n < bytes.length) n += file.writeSync(bytes.subarray(n));
      if (Deno.build.os !== "windows") Deno.chmodSync(tmp, mode); // not narrowed by the umask
      this.#pending.push({ path, tmp, file });
    } catch (e) {
      file?.close();
      try {
        Deno.removeSync(tmp);
      } catch {
        // never created
      }
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
          Deno.renameSync(tmp, path);
          untrackTempFile(tmp);
          const slash = path.lastIndexOf("/");
          dirs.add(slash < 0 ? "." : slash === 0 ? "/" : path.slice(0, slash));
          return { path };
        } catch (e) {
          error = e;
        }
      }
      try {
        Deno.removeSync(tmp);
      } catch {
        // already gone
      }
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
      try {
        Deno.removeSync(tmp);
      } catch {
        // already gone
      }
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
 * ```ts ignore
 * removeDeadWriterTempFiles("sigs");
 * ```
 */
export function removeDeadWriterTempFiles(dir: string): string[] {
  const removed: string[] = [];
  try {
    for (const entry of Deno.readDirSync(dir)) {
      const m = BATCH_TEMP_NAME.exec(entry.name);
      if (!m || !entry.isFile || processAlive(Number(m[1])) !== false) continue;
      try {
        Deno.removeSync(`${dir}/${entry.name}`);
        removed.push(entry.name);
      } catch {
        // vanished or not removable: leave it
      }
    }
  } catch {
    // cannot list: nothing to clean
  }
  return removed;
}

/**
 * True when something exists at `path` (a dangling symlink counts).
 *
 * @example
 * ```ts ignore
 * if (await exists("pins.json")) console.log("pinned");
 * ```
 */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw new SchemaPinError("IO_FAILED", `cannot inspect ${path}: ${describeFsError(e)}`, {
      path,
    });
  }
}
