/**
 * Walking a skill folder (§4b.1–§4b.3) without trusting it.
 *
 * Every entry is classified with `lstat` before anything is opened: a symbolic link (to a
 * file, to a directory, dangling) or a non-regular file (FIFO, socket, device) aborts the walk
 * with an error naming its path, so a FIFO is never opened and unsigned content is never
 * reachable through a link. Names that are not valid UTF-8 abort. The entry and byte caps are
 * checked here, from `lstat` sizes, before any file's data is read.
 *
 * Directories are not entries; the top-level `.schemapin.sig` is excluded (§4b.1: for the 1.4
 * algorithm a `.schemapin.sig` deeper down is an ordinary file). For the legacy (1.3)
 * algorithm, `excludeNestedSignatureFiles` leaves out a regular file named `.schemapin.sig` at
 * every depth, as the 1.3 signers did (see {@linkcode WalkSkillOptions}). Paths are
 * forward-slash relative paths, returned sorted by code point (UTF-8 byte order).
 *
 * The walk uses synchronous file-system calls on purpose: for thousands of small files they
 * are several times faster than the asynchronous ones in Deno (see bench/skill_bench.ts).
 * They go through lib/runtime/fs.ts: `Deno.lstatSync` on Deno (about twice as fast there as
 * `node:fs`), `node:fs` on Node and Bun.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { compareCodePoints } from "../json/order.ts";
import { fsReason, showPath } from "./fs.ts";
import { type EntryInfo, isNotFound, lstatSync, readDirNamesSync } from "../runtime/fs.ts";
import { checkArg } from "../arguments.ts";
import { RAISE_MAX_BYTES, RAISE_MAX_ENTRIES } from "../option_hints.ts";

/**
 * The default cap on the number of files in a skill (the reference SDKs' value, §4b.2).
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_ENTRIES } from "./walk.ts";
 * console.log(DEFAULT_MAX_ENTRIES); // 10000
 * ```
 */
export const DEFAULT_MAX_ENTRIES = 10_000;
/**
 * The default cap on the total size of a skill's files: 256 MiB (§4b.2).
 *
 * @example
 * ```ts
 * import { DEFAULT_MAX_BYTES } from "./walk.ts";
 * console.log(DEFAULT_MAX_BYTES); // 268435456 (256 MiB)
 * ```
 */
export const DEFAULT_MAX_BYTES: number = 256 * 1024 * 1024;
/**
 * The name of the signature document at the top of a skill folder.
 *
 * @example
 * ```ts
 * import { SIGNATURE_FILE_NAME } from "./walk.ts";
 * console.log(SIGNATURE_FILE_NAME); // ".schemapin.sig"
 * ```
 */
export const SIGNATURE_FILE_NAME = ".schemapin.sig";

/**
 * The path of the signature document of the skill folder `dir`: `dir/.schemapin.sig`
 * (trailing slashes of `dir` ignored).
 *
 * @example
 * ```ts
 * import { skillSignaturePath } from "./walk.ts";
 * skillSignaturePath("pdf-tools/"); // "pdf-tools/.schemapin.sig"
 * skillSignaturePath("/"); // "/.schemapin.sig"
 * ```
 */
export function skillSignaturePath(dir: string): string {
  const root = dir.length > 1 ? dir.replace(/\/+$/, "") || "/" : dir;
  return `${root === "/" ? "" : root}/${SIGNATURE_FILE_NAME}`;
}

/** Caps on what a skill folder may hold (§4b.2). */
export interface SkillLimits {
  /** Most files (default {@linkcode DEFAULT_MAX_ENTRIES}); also caps the number of directories. */
  maxEntries?: number;
  /** Most bytes over all files (default {@linkcode DEFAULT_MAX_BYTES}). */
  maxBytes?: number;
}

/** Options of {@linkcode walkSkillDir}. */
export interface WalkSkillOptions extends SkillLimits {
  /**
   * Leave out regular files named `.schemapin.sig` below the top as well (they are listed in
   * {@linkcode SkillWalk.excluded}). Only for the legacy (1.3) algorithm: §4b defines the 1.4
   * algorithm ("The algorithm, identified by `schemapin_version: "1.4"`… is: 1. … The
   * top-level `.schemapin.sig` is excluded"), while documents below 1.4 "use the legacy
   * algorithm", which §4b only summarises and which verifiers "MAY accept … for
   * compatibility": the 1.3 algorithm as every reference SDK signed it skips that name at
   * every depth, so counting a nested one would make a genuine 1.3 folder fail as "added".
   * A symbolic link or special file of that name still aborts (§4b.2, as for any entry), and
   * excluded files count towards the entry cap (never towards the byte cap: they are not read).
   */
  excludeNestedSignatureFiles?: boolean;
  /**
   * Called with the number of files found so far, every {@linkcode WALK_PROGRESS_EVERY} files
   * and at the end (synchronously: the walk is synchronous). For a progress counter.
   */
  onProgress?: (filesFound: number) => void;
}

/** How many files the walk finds between two `onProgress` calls. */
export const WALK_PROGRESS_EVERY = 64;

/** One file of a skill folder, as found by {@linkcode walkSkillDir}. */
export interface SkillFile {
  /** Forward-slash path relative to the skill root (`scripts/run.sh`). */
  readonly path: string;
  /** `path` as UTF-8 — what is hashed and what the order is defined on. */
  readonly pathBytes: Uint8Array;
  /** The path to open (`root/path`). */
  readonly fsPath: string;
  /** Size in bytes at `lstat` time; reading a different number of bytes is an error. */
  readonly size: number;
}

/** The files of a skill folder, sorted by code point, and their total size. */
export interface SkillWalk {
  /** The files, sorted by the UTF-8 bytes of their paths. */
  readonly files: readonly SkillFile[];
  /** Sum of the files' sizes. */
  readonly totalBytes: number;
  /**
   * Nested `.schemapin.sig` files left out (only with `excludeNestedSignatureFiles`; else
   * empty), sorted by code point.
   */
  readonly excluded: readonly string[];
}

const encoder = new TextEncoder();

/**
 * A file found by the walk. Only the path, the size and the shared root are kept: the UTF-8
 * path and the path to open are computed when asked for, so a walk of 50,000 files keeps no
 * per-file buffers.
 */
class WalkedFile implements SkillFile {
  readonly path: string;
  readonly size: number;
  readonly #root: string;

  constructor(root: string, path: string, size: number) {
    this.#root = root;
    this.path = path;
    this.size = size;
  }

  get pathBytes(): Uint8Array {
    return encoder.encode(this.path);
  }

  get fsPath(): string {
    return `${this.#root}/${this.path}`;
  }
}

const byPath = (a: SkillFile, b: SkillFile) => compareCodePoints(a.path, b.path);

/** Compares two byte strings lexicographically (UTF-8 byte order = code point order). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Resolves and validates the caps; throws `INPUT_INVALID` for a cap that is not a count. */
export function resolveLimits(limits: SkillLimits = {}): Required<SkillLimits> {
  const check = (value: number | undefined, fallback: number, name: string): number => {
    if (value === undefined) return fallback;
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new SchemaPinError("INPUT_INVALID", `${name} must be a positive integer`, {
        field: name,
      });
    }
    return value;
  };
  return {
    maxEntries: check(limits.maxEntries, DEFAULT_MAX_ENTRIES, "maxEntries"),
    maxBytes: check(limits.maxBytes, DEFAULT_MAX_BYTES, "maxBytes"),
  };
}

function refuse(root: string, path: string, message: string, reason: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", `skill folder ${showPath(root)}: ${message}`, {
    path,
    reason,
  });
}

/** Why a non-regular, non-directory entry is refused, or `undefined` for a regular file. */
function nonRegularKind(info: EntryInfo): string | undefined {
  if (info.isSymlink) return "symlink";
  if (info.isFile) return undefined;
  if (info.isFifo) return "fifo";
  if (info.isSocket) return "socket";
  if (info.isCharDevice) return "character device";
  if (info.isBlockDevice) return "block device";
  return "special file";
}

/**
 * The root of a skill folder, without trailing slashes; throws unless it is a directory
 * (a symbolic link given as the root is refused too: pass the directory it points to).
 */
export function checkSkillRoot(dir: string): string {
  if (typeof dir !== "string" || dir === "") {
    throw new SchemaPinError("INPUT_INVALID", "the skill folder path is empty");
  }
  const root = dir.length > 1 ? dir.replace(/\/+$/, "") || "/" : dir;
  let info: EntryInfo;
  try {
    info = lstatSync(root);
  } catch (e) {
    throw new SchemaPinError(
      "IO_FAILED",
      `cannot open skill folder ${showPath(root)}: ${fsReason(e)}`,
      {
        path: root,
      },
    );
  }
  if (info.isSymlink) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `skill folder ${showPath(root)} is a symbolic link; pass the directory it points to instead`,
      { path: root, reason: "symlink" },
    );
  }
  if (!info.isDirectory) {
    throw new SchemaPinError("INPUT_INVALID", `${showPath(root)} is not a directory`, {
      path: root,
    });
  }
  return root;
}

/**
 * Lists the files of the skill folder `dir` (§4b.1–§4b.3), enforcing the caps before any data
 * is read. Synchronous; opens no file.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming the path for a symbolic link, FIFO, socket,
 *   device, a name that is not valid UTF-8, more than `maxEntries` files (or directories),
 *   more than `maxBytes` in total, or a folder without any file; `IO_FAILED` for a folder or
 *   entry that cannot be listed or inspected.
 *
 * @example
 * ```ts ignore
 * const { files, totalBytes } = walkSkillDir("./my-skill");
 * console.log(files.map((f) => f.path)); // ["SKILL.md", "scripts/run.sh"]
 * ```
 */
export function walkSkillDir(dir: string, limits: WalkSkillOptions = {}): SkillWalk {
  checkArg("walkSkillDir", "limits", limits, "object");
  const { maxEntries, maxBytes } = resolveLimits(limits);
  const excludeNested = limits.excludeNestedSignatureFiles === true;
  const onProgress = limits.onProgress;
  const root = checkSkillRoot(dir);
  const files: SkillFile[] = [];
  const excluded: SkillFile[] = [];
  let totalBytes = 0;
  let directories = 0;
  // An explicit stack: nesting depth is bounded only by PATH_MAX, not by the JS call stack.
  const pending: string[] = [""];
  while (pending.length > 0) {
    const rel = pending.pop()!;
    const fsDir = rel === "" ? root : `${root}/${rel}`;
    let names: string[];
    try {
      names = readDirNamesSync(fsDir);
    } catch (e) {
      throw new SchemaPinError(
        "IO_FAILED",
        `skill folder ${showPath(root)}: cannot list ${
          rel === "" ? "the folder" : showPath(rel) + "/"
        }: ${fsReason(e)}`,
        { path: rel },
      );
    }
    const seen = new Set<string>();
    for (const name of names) {
      const path = rel === "" ? name : `${rel}/${name}`;
      if (rel === "" && name === SIGNATURE_FILE_NAME) continue; // §4b.1
      const fsPath = `${root}/${path}`;
      let info: EntryInfo | undefined;
      try {
        info = lstatSync(fsPath);
      } catch (e) {
        // Deno and Node decode names lossily: a name that is not UTF-8 comes back with U+FFFD
        // and then does not exist under that spelling.
        if (!(isNotFound(e) && name.includes("\ufffd"))) {
          throw new SchemaPinError(
            "IO_FAILED",
            `skill folder ${showPath(root)}: cannot inspect ${showPath(path)}: ${fsReason(e)}`,
            { path },
          );
        }
      }
      if (info === undefined || seen.has(name)) {
        // Two raw names decoding to the same string also means one was not valid UTF-8.
        throw refuse(
          root,
          path,
          `an entry in ${
            rel === "" ? "the top folder" : showPath(rel) + "/"
          } has a name that is not ` +
            `valid UTF-8 (shown as ${JSON.stringify(name)}); skill paths must be UTF-8 ` +
            `(§4b.2): rename it`,
          "non_utf8_name",
        );
      }
      if (name.includes("\ufffd")) seen.add(name);
      if (info.isDirectory) {
        if (++directories > maxEntries) {
          throw refuse(
            root,
            path,
            `more than ${maxEntries} directories; a skill is capped at ${maxEntries} entries`,
            "too_many_entries",
          );
        }
        pending.push(path);
        continue;
      }
      const kind = nonRegularKind(info);
      if (kind !== undefined) {
        throw refuse(
          root,
          path,
          kind === "symlink"
            ? `${
              showPath(path)
            } is a symbolic link; links are not allowed in a signed skill, because ` +
              `they would make unsigned content reachable (§4b.2): replace it with the file ` +
              `or directory it points to`
            : `${
              showPath(path)
            } is a ${kind}, not a regular file; only regular files and directories ` +
              `are allowed in a signed skill (§4b.2)`,
          kind === "symlink" ? "symlink" : kind.replace(" ", "_"),
        );
      }
      if (files.length + excluded.length >= maxEntries) {
        throw refuse(
          root,
          path,
          `more than ${maxEntries} files (the cap; ${RAISE_MAX_ENTRIES})`,
          "too_many_entries",
        );
      }
      if (excludeNested && name === SIGNATURE_FILE_NAME) {
        // Legacy (1.3) algorithm only: see WalkSkillOptions.excludeNestedSignatureFiles (§4b).
        excluded.push(new WalkedFile(root, path, info.size));
        continue;
      }
      totalBytes += info.size;
      if (totalBytes > maxBytes) {
        throw refuse(
          root,
          path,
          `the files add up to more than ${maxBytes} bytes (the cap, reached at ${
            showPath(path)
          }; ` +
            `${RAISE_MAX_BYTES})`,
          "too_large",
        );
      }
      files.push(new WalkedFile(root, path, info.size));
      if (onProgress !== undefined && files.length % WALK_PROGRESS_EVERY === 0) {
        onProgress(files.length);
      }
    }
  }
  onProgress?.(files.length);
  if (files.length === 0) {
    throw refuse(
      root,
      "",
      "it holds no file (directories alone are not covered by a signature, §4b.1)",
      "empty",
    );
  }
  files.sort(byPath);
  excluded.sort(byPath);
  return { files, totalBytes, excluded: excluded.map((f) => f.path) };
}
