/**
 * The few file-system primitives the skill code trusts with a hostile folder: opening a path
 * that was classified with `lstat` without following a symbolic link or waiting on a FIFO,
 * and reading a small regular file with a size cap.
 *
 * @module
 */
import * as fs from "node:fs";
import { SchemaPinError } from "../errors.ts";
import { type EntryInfo, errorCode, lstatSync } from "../runtime/fs.ts";

const O_NOFOLLOW: number = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK: number = fs.constants.O_NONBLOCK ?? 0;
/**
 * `O_RDONLY | O_NOFOLLOW | O_NONBLOCK`: a FIFO opens without blocking (regular files ignore
 * `O_NONBLOCK`); a symbolic link at the last component fails with `ELOOP` — when Deno runs
 * with full permissions: under scoped ones its permission check resolves the link first.
 * Callers classify paths with `lstat` before opening them; this is the second line.
 */
export const OPEN_FLAGS: number = fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;

/**
 * A path as it may be shown on a terminal: as is, or JSON-quoted when it contains control
 * characters (a file name must not be able to move the cursor or change colours).
 *
 * @example
 * ```ts
 * import { showPath } from "./fs.ts";
 * showPath("a\x1b[31mb"); // "\"a\\u001b[31mb\""
 * ```
 */
export function showPath(path: string): string {
  // deno-lint-ignore no-control-regex
  return /[\x00-\x1f\x7f-\x9f]/.test(path) ? JSON.stringify(path) : path;
}

/**
 * A short reason for a file-system error ("permission denied", …), for messages.
 *
 * @example
 * ```ts
 * import { fsReason } from "./fs.ts";
 * fsReason(Object.assign(new Error("x"), { code: "ENOENT" })); // "no such file or directory"
 * ```
 */
export function fsReason(e: unknown): string {
  const code = errorCode(e);
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ENOTDIR") return "not a directory";
  if (code === "ELOOP") return "it is a symbolic link";
  const msg = (e as Error)?.message ?? String(e);
  return msg.replace(/, (open|stat|lstat|readdir|read) '.*'$/, "");
}

/**
 * Reads a file that must be a regular file of at most `maxBytes`: `lstat` first (a symbolic
 * link, FIFO, socket or device is refused without being opened), then an
 * `O_NOFOLLOW | O_NONBLOCK` open and a bounded read.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a non-regular file or one larger than
 *   `maxBytes`; `IO_FAILED` when it cannot be read. Messages name `what` and the path.
 *
 * @example
 * ```ts ignore
 * const bytes = readRegularFile("skill/.schemapin.sig", 1 << 20, "signature document");
 * ```
 */
export function readRegularFile(path: string, maxBytes: number, what: string): Uint8Array {
  let info: EntryInfo;
  try {
    info = lstatSync(path);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot read ${what} ${showPath(path)}: ${fsReason(e)}`, {
      path,
    });
  }
  if (!info.isFile) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${what} ${showPath(path)} is not a regular file${
        info.isSymlink ? " (it is a symbolic link)" : ""
      }`,
      { path },
    );
  }
  if (info.size > maxBytes) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${what} ${showPath(path)} is ${info.size} bytes, more than the ${maxBytes}-byte limit`,
      { path },
    );
  }
  let fd: number;
  try {
    fd = fs.openSync(path, OPEN_FLAGS);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot read ${what} ${showPath(path)}: ${fsReason(e)}`, {
      path,
    });
  }
  try {
    // One byte more than lstat reported, to notice a file that grew since.
    const buf = new Uint8Array(info.size + 1);
    let n = 0;
    while (n < buf.length) {
      const r = fs.readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
    }
    if (n !== info.size) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${what} ${showPath(path)} changed size while it was being read`,
        { path },
      );
    }
    return buf.slice(0, n);
  } catch (e) {
    if (e instanceof SchemaPinError) throw e;
    throw new SchemaPinError("IO_FAILED", `cannot read ${what} ${showPath(path)}: ${fsReason(e)}`, {
      path,
    });
  } finally {
    fs.closeSync(fd);
  }
}
