/**
 * The files of a batch folder (`verify-schema --batch`, `sign-schema --batch`): the regular
 * files whose names match a file-name pattern, in code-point order, and the entries skipped.
 * Kept apart from the batch runs (lib/schema/batch.ts, which re-exports it) so that checking a
 * pattern or listing a folder loads no signing or verification code.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { compareCodePoints } from "../json/order.ts";
import { describeFsError, type EntryInfo, lstatSync, readDirNamesSync } from "../runtime/fs.ts";

/**
 * `dir/name`, without doubling slashes.
 *
 * @example
 * ```ts
 * import { joinPath } from "./batch_list.ts";
 * joinPath("schemas/", "a.json"); // "schemas/a.json"
 * ```
 */
export function joinPath(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, "") || "/"}/${name}`.replace(/^\/\//, "/");
}

/**
 * A regular expression for a file-name glob: `*` any run of characters, `?` one character,
 * everything else literal. Matches names, not paths.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for an empty pattern or one with a `/`.
 *
 * @example
 * ```ts
 * import { globToRegExp } from "./batch_list.ts";
 * globToRegExp("*.json").test("tool.json"); // true
 * ```
 */
export function globToRegExp(pattern: string): RegExp {
  if (pattern === "" || pattern.includes("/")) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `pattern ${JSON.stringify(pattern)} must be a file-name pattern`,
    );
  }
  let re = "^";
  for (const ch of pattern) {
    if (ch === "*") re += "[^/]*";
    else if (ch === "?") re += "[^/]";
    else re += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(re + "$", "u");
}

/** The files of a batch folder ({@linkcode listBatch}). */
export interface BatchListing {
  /** The names of the regular files to handle, sorted by code point. */
  readonly files: string[];
  /** The paths of matching entries that are neither regular files nor folders, sorted. */
  readonly skipped: string[];
}

/**
 * The regular files in `dir` whose names match `pattern` ({@linkcode globToRegExp}), sorted
 * by code point; `.sig` files are never in a batch. Symbolic links and other non-regular
 * entries are left out and reported in `skipped`; subfolders are not entered.
 *
 * @throws {SchemaPinError} `IO_FAILED` naming `dir` when it cannot be listed;
 *   `INPUT_INVALID` for a pattern that is not a file-name pattern.
 *
 * @example
 * ```ts ignore
 * import { listBatch } from "./batch_list.ts";
 * const { files, skipped } = listBatch("schemas", "*.json"); // files: ["a.json", "b.json"]
 * ```
 */
export function listBatch(dir: string, pattern: string): BatchListing {
  const re = globToRegExp(pattern);
  const files: string[] = [];
  const skipped: string[] = [];
  let names: string[];
  try {
    names = readDirNamesSync(dir);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot list ${dir}: ${describeFsError(e)}`, {
      path: dir,
    });
  }
  for (const name of names) {
    if (!re.test(name) || name.endsWith(".sig")) continue;
    let entry: EntryInfo;
    try {
      entry = lstatSync(joinPath(dir, name));
    } catch {
      continue; // gone since it was listed
    }
    if (entry.isFile) files.push(name);
    else if (!entry.isDirectory) skipped.push(name);
  }
  return {
    files: files.sort(compareCodePoints),
    skipped: skipped.sort(compareCodePoints).map((name) => joinPath(dir, name)),
  };
}
