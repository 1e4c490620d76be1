/**
 * The file I/O of the CLI shell: reading inputs (`-` is stdin) with errors that name the file,
 * and writing outputs atomically through lib/runtime/atomic_write.ts (temporary file in the
 * same directory, fsync, rename) so a failed command never leaves a partial file behind.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import type { CliIO } from "./command.ts";
import { describeFsError } from "../../lib/runtime/fs.ts";
import {
  writeFileAtomic as writeFileAtomicOnce,
  type WriteOptions,
} from "../../lib/runtime/atomic_write.ts";
import { readTextInput as readText } from "../../lib/schema/input.ts";

/** A short reason for a file-system error (lib/runtime/fs.ts), for messages naming the path. */
export { describeFsError };
/** Whether a path exists (lib/runtime/atomic_write.ts). */
export { exists } from "../../lib/runtime/atomic_write.ts";

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
export function readTextInput(path: string, io: CliIO): Promise<string> {
  return readText(path, (p) => readInput(p, io));
}

/**
 * `error` with the CLI's hint when it refused to replace an existing file (`details.exists`
 * from lib/runtime/atomic_write.ts): `… (use --force)`; any other error unchanged.
 *
 * @example
 * ```ts ignore
 * try { await writeKeyPairFiles(dir, key); } catch (e) { throw withForceHint(e); }
 * ```
 */
export function withForceHint(error: unknown): unknown {
  if (!(error instanceof SchemaPinError) || error.details.exists !== true) return error;
  return new SchemaPinError(error.code, `${error.message} (use --force)`, error.details);
}

/**
 * Writes an output file atomically (lib/runtime/atomic_write.ts `writeFileAtomic`); refusing
 * to replace an existing file without `overwrite`, the error says how to (`use --force`).
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
  try {
    await writeFileAtomicOnce(path, data, options);
  } catch (e) {
    throw withForceHint(e);
  }
}
