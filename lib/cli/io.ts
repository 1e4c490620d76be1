/**
 * The file I/O of the CLI shell: reading inputs with errors that name the file, and writing
 * outputs atomically (temporary file in the same directory, fsync, rename) so a failed
 * command never leaves a partial file behind.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { CliIO } from "./command.ts";

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
  try {
    file = await Deno.open(tmp, { write: true, createNew: true, mode });
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.sync();
    file.close();
    file = undefined;
    if (Deno.build.os !== "windows") await Deno.chmod(tmp, mode);
    await Deno.rename(tmp, path);
  } catch (e) {
    file?.close();
    await Deno.remove(tmp).catch(() => {});
    if (e instanceof SchemaPinError) throw e;
    throw new SchemaPinError("IO_FAILED", `cannot write ${path}: ${describeFsError(e)}`, {
      path,
    });
  }
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

/**
 * A short reason for a file-system error ("no such file", "permission denied", …).
 *
 * @example
 * ```ts
 * import { describeFsError } from "./io.ts";
 * describeFsError(new Deno.errors.NotFound("x")); // "no such file or directory"
 * ```
 */
export function describeFsError(e: unknown): string {
  if (e instanceof Deno.errors.NotFound) return "no such file or directory";
  if (e instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (e instanceof Deno.errors.IsADirectory) return "is a directory";
  if (e instanceof Deno.errors.AlreadyExists) return "already exists";
  const msg = (e as Error)?.message ?? String(e);
  return msg.replace(/, (open|stat|lstat|rename|readfile|mkdir) '.*'$/, "");
}
