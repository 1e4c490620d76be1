/**
 * The file-system calls of the library, for every runtime: `node:` modules on Node and Bun,
 * Deno's own calls on Deno, picked once, at load time. Deno's calls are measurably faster on
 * hot paths — `node:fs` `lstatSync`/`readdirSync` walk a 50,000-file tree about twice as
 * slowly as `Deno.lstatSync`/`Deno.readDirSync` (bench/runtime_fs_bench.ts) — and under Deno
 * the `node:` modules are never loaded: importing one costs each command ~40 ms of start-up
 * (issue 14).
 *
 * Errors keep the runtime's own type; {@linkcode errorCode} reads the POSIX code (`ENOENT`,
 * `EACCES`, …) from either kind (Deno's errors carry `code` too).
 *
 * @module
 */
import type * as NodeFs from "node:fs";
import type * as NodeFsp from "node:fs/promises";
import type NodeProcess from "node:process";
import { nodeBuiltin } from "./builtin.ts";

/** What the library needs to know of an `lstat`: the kind of entry and its size. */
export interface EntryInfo {
  /** A regular file. */
  readonly isFile: boolean;
  /** A directory. */
  readonly isDirectory: boolean;
  /** A symbolic link (never followed). */
  readonly isSymlink: boolean;
  /** A FIFO (named pipe); `null` when the platform cannot tell (Deno on Windows). */
  readonly isFifo: boolean | null;
  /** A socket; `null` when the platform cannot tell. */
  readonly isSocket: boolean | null;
  /** A character device; `null` when the platform cannot tell. */
  readonly isCharDevice: boolean | null;
  /** A block device; `null` when the platform cannot tell. */
  readonly isBlockDevice: boolean | null;
  /** Size in bytes. */
  readonly size: number;
  /** Last modification time, when known. */
  readonly mtime: Date | null;
}

// `globalThis.Deno` is undefined under Node and Bun; the module must load there too.
const deno: typeof Deno | undefined = (globalThis as { Deno?: typeof Deno }).Deno;

/** True when running on Deno (the `Deno` namespace is present). */
export const isDeno: boolean = deno !== undefined && typeof deno.lstatSync === "function";

/** The `node:` modules the adapters use outside Deno. */
export interface NodeModules {
  /** `node:fs`. */
  readonly fs: typeof NodeFs;
  /** `node:fs/promises`. */
  readonly fsp: typeof NodeFsp;
  /** `node:process`. */
  readonly process: typeof NodeProcess;
}

/**
 * `node:fs`, `node:fs/promises` and `node:process` on Node and Bun; `undefined` on Deno, where
 * every adapter takes Deno's own call and these modules are never loaded: importing any of them
 * starts Deno's Node compatibility layer, ~40 ms added to every command's start-up (issue 14).
 */
export const node: NodeModules | undefined = isDeno ? undefined : {
  fs: nodeBuiltin<typeof NodeFs>("node:fs"),
  fsp: nodeBuiltin<typeof NodeFsp>("node:fs/promises"),
  process: nodeBuiltin<typeof NodeProcess>("node:process"),
};

function fromNode(s: NodeFs.Stats): EntryInfo {
  return {
    isFile: s.isFile(),
    isDirectory: s.isDirectory(),
    isSymlink: s.isSymbolicLink(),
    isFifo: s.isFIFO(),
    isSocket: s.isSocket(),
    isCharDevice: s.isCharacterDevice(),
    isBlockDevice: s.isBlockDevice(),
    size: s.size,
    mtime: s.mtime,
  };
}

/**
 * `lstat` of `path` (a symbolic link is described, never followed). Throws the runtime's
 * error; read its code with {@linkcode errorCode}.
 *
 * @example
 * ```ts
 * import { lstatSync } from "./fs.ts";
 * lstatSync(".").isDirectory; // true
 * ```
 */
export const lstatSync: (path: string) => EntryInfo = isDeno
  ? (path) => deno!.lstatSync(path)
  : (path) => fromNode(node!.fs.lstatSync(path));

/**
 * The names in the directory `path`, in the order the system lists them (not sorted). Names
 * that are not valid UTF-8 come back with U+FFFD in every runtime.
 *
 * @example
 * ```ts
 * import { readDirNamesSync } from "./fs.ts";
 * readDirNamesSync(".").length > 0; // true
 * ```
 */
export const readDirNamesSync: (path: string) => string[] = isDeno
  ? (path) => {
    const names: string[] = [];
    for (const entry of deno!.readDirSync(path)) names.push(entry.name);
    return names;
  }
  : (path) => node!.fs.readdirSync(path);

/**
 * The POSIX error code of a file-system error (`ENOENT`, `EACCES`, `ENOTDIR`, …), from a
 * `node:fs` error or a `Deno.errors` one; `undefined` when it has none.
 *
 * @example
 * ```ts
 * import { errorCode, lstatSync } from "./fs.ts";
 * try {
 *   lstatSync("/no/such/path");
 * } catch (e) {
 *   errorCode(e); // "ENOENT"
 * }
 * ```
 */
export function errorCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null | undefined)?.code;
  if (typeof code === "string") return code;
  if (deno !== undefined) {
    if (e instanceof deno.errors.NotFound) return "ENOENT";
    if (e instanceof deno.errors.PermissionDenied) return "EACCES";
    if (e instanceof deno.errors.NotADirectory) return "ENOTDIR";
    if (e instanceof deno.errors.IsADirectory) return "EISDIR";
    if (e instanceof deno.errors.AlreadyExists) return "EEXIST";
  }
  return undefined;
}

/**
 * Whether `e` says the path does not exist (`ENOENT`).
 *
 * @example
 * ```ts
 * import { isNotFound } from "./fs.ts";
 * isNotFound(Object.assign(new Error("x"), { code: "ENOENT" })); // true
 * ```
 */
export function isNotFound(e: unknown): boolean {
  return errorCode(e) === "ENOENT";
}

/**
 * A short reason for a file-system error, for messages that name the path themselves: "no
 * such file or directory", "permission denied", "is a directory", "already exists", else the
 * runtime's message without the path Deno appends (`, stat '/x'`).
 *
 * @example
 * ```ts
 * import { describeFsError } from "./fs.ts";
 * describeFsError(Object.assign(new Error("x"), { code: "ENOENT" })); // "no such file or directory"
 * ```
 */
export function describeFsError(e: unknown): string {
  const code = errorCode(e);
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  if (code === "EEXIST") return "already exists";
  const msg = (e as Error)?.message ?? String(e);
  return msg.replace(/, (open|stat|lstat|rename|readfile|mkdir) '.*'$/, "");
}

/**
 * The value of the environment variable `name`, or `undefined` when it is unset, empty or
 * cannot be read (Deno without `--allow-env` for it).
 *
 * @example
 * ```ts
 * import { getEnv } from "./fs.ts";
 * getEnv("HOME"); // "/home/me"
 * ```
 */
export function getEnv(name: string): string | undefined {
  try {
    return readEnv(name) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The value of the environment variable `name` (`""` when set but empty), or `undefined` when
 * it is unset. Throws the runtime's error when it cannot be read (Deno without `--allow-env`
 * for it), where {@linkcode getEnv} answers `undefined`.
 *
 * @example
 * ```ts
 * import { readEnv } from "./fs.ts";
 * readEnv("HOME"); // "/home/me"
 * ```
 */
export function readEnv(name: string): string | undefined {
  return deno !== undefined ? deno.env.get(name) : node!.process.env[name];
}

/**
 * The bytes of the file `path` (`Deno.readFile` on Deno, `node:fs/promises` elsewhere: the
 * error messages stay those of the runtime). Throws the runtime's error.
 *
 * @example
 * ```ts
 * import { readFile } from "./fs.ts";
 * (await readFile("deno.json")).length > 0; // true
 * ```
 */
export const readFile: (path: string) => Promise<Uint8Array> = isDeno
  ? (path) => deno!.readFile(path)
  : async (path) => new Uint8Array(await node!.fsp.readFile(path));

/**
 * `stat` of `path` (a symbolic link is followed). Throws the runtime's error.
 *
 * @example
 * ```ts
 * import { stat } from "./fs.ts";
 * (await stat(".")).isDirectory; // true
 * ```
 */
export const stat: (path: string) => Promise<EntryInfo> = isDeno
  ? (path) => deno!.stat(path)
  : async (path) => fromNode(await node!.fsp.stat(path));

/**
 * Creates `path` (failing when it exists, `O_CREAT | O_EXCL`) with `mode`, writes `bytes` and
 * fsyncs it before closing: the first half of an atomic replace (then {@linkcode rename}).
 * `Deno.open` on Deno (its per-call cost is lower there than `node:fs/promises`), `node:fs`
 * elsewhere. Throws the runtime's error; a file created before the failure is left for the
 * caller to remove.
 *
 * @example
 * ```ts ignore
 * await writeNewFileSynced(".pins.json.tmp-1", bytes, 0o644);
 * await rename(".pins.json.tmp-1", "pins.json");
 * ```
 */
export const writeNewFileSynced: (path: string, bytes: Uint8Array, mode: number) => Promise<void> =
  isDeno
    ? async (path, bytes, mode) => {
      // Created synchronously: a signal handler (cli/commands/interrupt.ts) runs between tasks, so it
      // never sees a creation in flight that would land after it removed the temporary files.
      const file = deno!.openSync(path, { write: true, createNew: true, mode });
      try {
        let n = 0;
        while (n < bytes.length) n += await file.write(bytes.subarray(n));
        await file.sync();
      } finally {
        file.close();
      }
    }
    : async (path, bytes, mode) => {
      const file = await node!.fsp.open(path, "wx", mode);
      try {
        await file.writeFile(bytes);
        await file.sync();
      } finally {
        await file.close();
      }
    };

/**
 * Renames `from` to `to` (atomically replacing `to`). Throws the runtime's error.
 *
 * @example
 * ```ts ignore
 * await rename(".pins.json.tmp-1", "pins.json");
 * ```
 */
export const rename: (from: string, to: string) => Promise<void> = isDeno
  ? (from, to) => deno!.rename(from, to)
  : (from, to) => node!.fsp.rename(from, to);

/**
 * Creates the directory `path` and its parents with `mode` (an existing one is fine).
 *
 * @example
 * ```ts ignore
 * await mkdirAll("state", 0o700);
 * ```
 */
export const mkdirAll: (path: string, mode: number) => Promise<void> = isDeno
  ? (path, mode) => deno!.mkdir(path, { recursive: true, mode })
  : async (path, mode) => void await node!.fsp.mkdir(path, { recursive: true, mode });

/**
 * Fsyncs the directory `path` (makes a rename in it durable). Throws when the directory
 * cannot be opened (not every platform can open one).
 *
 * @example
 * ```ts ignore
 * await syncDir("state");
 * ```
 */
export const syncDir: (path: string) => Promise<void> = isDeno
  ? async (path) => {
    const d = await deno!.open(path, { read: true });
    try {
      await d.sync();
    } finally {
      d.close();
    }
  }
  : async (path) => {
    const d = await node!.fsp.open(path, "r");
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  };

/**
 * Removes the file `path` synchronously (`unlink`; safe in a signal handler). Throws the
 * runtime's error.
 *
 * @example
 * ```ts ignore
 * removeFileSync(".pins.json.tmp-1");
 * ```
 */
export const removeFileSync: (path: string) => void = isDeno
  ? (path) => deno!.removeSync(path)
  : (path) => node!.fs.unlinkSync(path);

/**
 * The id of this process.
 *
 * @example
 * ```ts
 * import { processId } from "./fs.ts";
 * processId() > 0; // true
 * ```
 */
export function processId(): number {
  return deno !== undefined ? deno.pid : node!.process.pid;
}
