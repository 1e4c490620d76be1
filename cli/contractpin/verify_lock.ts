/**
 * Verifying a lock file against its live servers (`contract verify`, contractpin spec §6):
 * the lock read once — the bytes whose signature is checked are the lock that is verified —
 * with its snapshot and the client config, the lock's signature checked before any server is
 * contacted, then {@linkcode verifyLock}. The caller renders the report (human, JSON, SARIF,
 * GitHub annotations).
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { checkArg } from "../../lib/arguments.ts";
import { CONTRACTPIN_CANONICAL_JSON_1 } from "../../lib/json/canonical_jcs.ts";
import { readConfig } from "../mcp_config/read.ts";
import type { ConfigHost } from "../mcp_config/variables.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";
import { type LockSignatureCheck, lockSignaturePath } from "./lock_signature_check.ts";
import { type ContractLock, parseLock } from "../../lib/contractpin/lock.ts";
import { reportInCliWords } from "./notice_text.ts";
import { finishReport, type VerifyReport } from "../../lib/contractpin/report.ts";
import { type RunOptions, verifyLock } from "../../lib/contractpin/run.ts";
import type { HeaderTemplate } from "../../lib/contractpin/secrets.ts";
import {
  type ContractSnapshot,
  defaultSnapshotPath,
  readSnapshot,
  SNAPSHOT_VERSION,
} from "../../lib/contractpin/snapshot.ts";
import type { ServerTarget } from "../../lib/contractpin/live.ts";

/** The inputs of a run over a lock file (`verifyLockFile`, `approveLock`). */
export interface LockFileRequest {
  /** The lock (`-` may be stdin, read once). */
  readonly lockPath: string;
  /** The snapshot the diffs come from: must exist when given; default next to the lock. */
  readonly snapshot?: string;
  /** Run the servers as this MCP client config defines them (a changed command is reported). */
  readonly config?: string;
  /** How the variables of `config` resolve (the home folder, Windows). */
  readonly configHost?: ConfigHost;
  /** Headers for every HTTP server (never written). */
  readonly headers?: readonly HeaderTemplate[];
}

/** The lock, snapshot and client config of a {@linkcode LockFileRequest}, read. */
export interface LockInputs {
  /** The lock's bytes, as read once. */
  readonly lockBytes: Uint8Array;
  /** The lock, parsed. */
  readonly lock: ContractLock;
  /** The snapshot's path (given, or next to the lock). */
  readonly snapshotPath: string;
  /** The snapshot, when there is one to read (or one was started). */
  readonly snapshot?: ContractSnapshot;
  /** The snapshot was started empty (`snapshot: "start"` and the named file does not exist). */
  readonly snapshotNew: boolean;
  /** The servers of the client config, by name. */
  readonly configured?: Map<string, ServerTarget>;
}

/**
 * Reads the lock (once: the bytes whose signature is checked are the lock that is used), the
 * snapshot and the client config of a run. `snapshot`: `read` it (a named one must exist and
 * parse; the default one is optional, and ignored with `onIgnored` told why when it cannot be
 * used), `none` (no diffs), or `start` (as `read`, but a named one that does not exist yet is
 * started empty: approve writes it).
 *
 * @throws {SchemaPinError} `IO_FAILED` and the parse errors for a lock, a named snapshot or a
 *   config that cannot be used
 *
 * @example
 * ```ts ignore
 * import { readLockInputs } from "./verify_lock.ts";
 * const { lock, snapshot } = await readLockInputs({ lockPath: "contractpin.lock" }, files, "read");
 * ```
 */
export async function readLockInputs(
  request: LockFileRequest,
  files: Pick<ContractFiles, "read" | "exists">,
  snapshotMode: "read" | "none" | "start",
  onIgnored?: (message: string) => void | Promise<void>,
): Promise<LockInputs> {
  const { lockPath } = request;
  const lockBytes = await files.read(lockPath);
  const lock = parseLock(lockBytes, lockPath);
  const snapshotPath = request.snapshot ?? defaultSnapshotPath(lockPath);
  const named = request.snapshot !== undefined;
  let snapshot: ContractSnapshot | undefined;
  let snapshotNew = false;
  if (snapshotMode === "start" && named && !(await files.exists(snapshotPath))) {
    // A snapshot named here that does not exist yet is started with the approved definitions.
    snapshotNew = true;
    snapshot = {
      contractpin_snapshot: SNAPSHOT_VERSION,
      canonicalization: CONTRACTPIN_CANONICAL_JSON_1,
      servers: Object.create(null),
    };
  } else if (snapshotMode !== "none") {
    snapshot = await readSnapshot(snapshotPath, named, files, onIgnored);
  }
  const configured = request.config === undefined
    ? undefined
    : await readConfig(request.config, files.read, request.configHost);
  return {
    lockBytes,
    lock,
    snapshotPath,
    ...(snapshot ? { snapshot } : {}),
    snapshotNew,
    ...(configured ? { configured } : {}),
  };
}

/** What {@linkcode verifyLockFile} verifies. */
export interface VerifyFileRequest extends LockFileRequest {
  /** No diffs: the snapshot is not read. */
  readonly noDiff?: boolean;
  /** Only these servers of the lock (default: all). */
  readonly select?: readonly string[];
  /** Tools the lock does not pin do not fail. */
  readonly allowNew?: boolean;
  /** Hidden text in a live definition fails the run. */
  readonly strictText?: boolean;
}

/** Options of a run over a lock file: the run's limits, and what is said of the snapshot. */
export interface LockFileOptions extends RunOptions {
  /** The default snapshot exists but cannot be used: diffs are unavailable, and why. */
  readonly onSnapshotIgnored?: (message: string) => void | Promise<void>;
}

/** Options of {@linkcode verifyLockFile}: a run over a lock file's, and the signature check. */
export interface VerifyFileOptions extends LockFileOptions {
  /**
   * Checks the lock's signature over the bytes read, before any server is contacted (e.g.
   * `runLockSignatureCheck` of cli/contractpin/lock_signature_check.ts); without it the
   * signature is `not_checked`. An `invalid` check stops the run: no server is contacted.
   */
  readonly checkSignature?: (lockBytes: Uint8Array) => Promise<LockSignatureCheck>;
}

/** What {@linkcode verifyLockFile} found. */
export interface VerifyFileResult {
  /** The lock as parsed. */
  readonly lock: ContractLock;
  /** The lock's text (for SARIF and annotation line numbers). */
  readonly lockText: string;
  /** The signature check (`not_checked` without `checkSignature`). */
  readonly signature: LockSignatureCheck;
  /**
   * The report; when the signature is `invalid`, no server was contacted: `servers` is empty
   * and the result is a failure (`exit_code` 1).
   */
  readonly report: VerifyReport;
}

/**
 * Reads the lock, its snapshot and the client config, checks the lock's signature, and
 * verifies the lock against the live servers (§6).
 *
 * @throws {SchemaPinError} `IO_FAILED` and the parse errors for a lock, snapshot (named, or
 *   the default when it cannot be parsed is only reported) or config that cannot be used;
 *   `INPUT_INVALID` for an unknown server or an unset `${VAR}`; what `checkSignature` throws
 *
 * @example
 * ```ts ignore
 * import { verifyLockFile } from "./verify_lock.ts";
 * const { report } = await verifyLockFile({ lockPath: "contractpin.lock" }, files);
 * Deno.exit(report.exit_code); // 0 match; 1 drift, removed or unreachable
 * ```
 */
export async function verifyLockFile(
  request: VerifyFileRequest,
  files: Pick<ContractFiles, "read" | "exists">,
  options: VerifyFileOptions = {},
): Promise<VerifyFileResult> {
  checkArg("verifyLockFile", "request", request, "object");
  checkArg("verifyLockFile", "request.lockPath", request.lockPath, "string");
  checkArg("verifyLockFile", "files", files, "object");
  checkArg("verifyLockFile", "options", options, "object");
  const { lockPath } = request;
  const allowNew = request.allowNew === true;
  const { lockBytes, lock, snapshot, snapshotPath, configured } = await readLockInputs(
    request,
    files,
    request.noDiff ? "none" : "read",
    options.onSnapshotIgnored,
  );
  const lockText = new TextDecoder().decode(lockBytes);
  // The lock's signature, before any server is contacted: a failure stops here.
  const signature: LockSignatureCheck = options.checkSignature
    ? await options.checkSignature(lockBytes)
    : { status: "not_checked", required: false, file: lockSignaturePath(lockPath) };
  if (signature.status === "invalid") {
    const report: VerifyReport = {
      ...finishReport(lockPath, allowNew, null, []),
      result: "drift",
      exit_code: 1,
    };
    return { lock, lockText, signature, report };
  }
  const report = await verifyLock({
    lock,
    lockPath,
    baseDir: dirname(resolve(lockPath)),
    select: request.select,
    allowNew,
    snapshot,
    snapshotPath: snapshot ? snapshotPath : undefined,
    headers: request.headers ? [...request.headers] : undefined,
    configured,
    strictText: request.strictText === true,
  }, options);
  reportInCliWords(report);
  // --no-diff: the snapshot was not read because no diff was asked for, not because it is missing.
  if (request.noDiff) {
    for (const s of report.servers) {
      s.notices = s.notices.filter((n) => n.kind !== "snapshot_unavailable");
    }
  }
  return { lock, lockText, signature, report };
}
