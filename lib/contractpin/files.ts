/**
 * The files of the contract operations that read and write a lock (`initLock`, `approveLock`,
 * `verifyLockFile`, `discoverServers`): the caller supplies how a file is read, whether one
 * exists, and how one is replaced atomically (the CLI's are lib/cli/io.ts), so the operations
 * decide what is read and written, and in which order, without doing the I/O themselves.
 *
 * @module
 */
import { type ErrorDetails, SchemaPinError } from "../errors.ts";
import type { ReadInput } from "../schema/input.ts";

/**
 * How a contract operation reads and writes files.
 *
 * @example
 * ```ts ignore
 * import type { ContractFiles } from "./files.ts";
 * const files: ContractFiles = {
 *   read: (path) => Deno.readFile(path),
 *   exists: async (path) => await Deno.lstat(path).then(() => true, () => false),
 *   write: (path, text) => Deno.writeTextFile(path, text),
 * };
 * ```
 */
export interface ContractFiles {
  /**
   * The bytes of `path` (`-` may be stdin); a missing or unreadable file throws a
   * `SchemaPinError` (`IO_FAILED`) naming it.
   */
  readonly read: ReadInput;
  /** True when something exists at `path` (a dangling symbolic link counts). */
  readonly exists: (path: string) => Promise<boolean>;
  /** Replaces `path` with `text` atomically: a failed write leaves the old file whole. */
  readonly write: (path: string, text: string) => Promise<void>;
}

/**
 * An error about how an operation was asked — servers named twice, nothing to pin, an option
 * that does not fit the others — rather than about a file or a server: `INPUT_INVALID` with
 * `details.usage` true (the CLI reports it as a usage error, {@linkcode isUsageError}).
 *
 * @example
 * ```ts
 * import { usageError } from "./files.ts";
 * usageError("no servers to pin").details; // { usage: true }
 * ```
 */
export function usageError(message: string, details: ErrorDetails = {}): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", message, { ...details, usage: true });
}

/**
 * True when `e` is an error about how the operation was asked ({@linkcode usageError}).
 *
 * @example
 * ```ts
 * import { isUsageError, usageError } from "./files.ts";
 * isUsageError(usageError("no servers to pin")); // true
 * ```
 */
export function isUsageError(e: unknown): e is SchemaPinError {
  return e instanceof SchemaPinError && e.details.usage === true;
}
