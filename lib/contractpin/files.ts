/**
 * The files of the contract operations that read and write a lock (`initLock`, `approveLock`,
 * `verifyLockFile`, `discoverServers`): the caller supplies how a file is read, whether one
 * exists, and how one is replaced atomically (the CLI's are cli/commands/io.ts), so the operations
 * decide what is read and written, and in which order, without doing the I/O themselves.
 *
 * @module
 */
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
