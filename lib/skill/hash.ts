/**
 * Skill folder hashing: the §4b algorithm of SchemaPin 1.4 and the legacy 1.3 algorithm.
 *
 * §4b.4–§4b.5 (`schemapin_version` "1.4"):
 * - entry digest `SHA-256(0x66 ‖ be64(len(path)) ‖ path ‖ be64(len(content)) ‖ content)`;
 * - `file_manifest[path] = "sha256:" + hex(entry digest)`;
 * - root hash `SHA-256` over `be64(len(path)) ‖ path ‖ entry digest` for every entry in code
 *   point order; `skill_hash = "sha256:" + hex(root hash)`.
 *
 * Legacy (`schemapin_version` below "1.4", §4b last paragraph): entry digest
 * `SHA-256(path ‖ content)`, root hash `SHA-256` over the concatenated lowercase hex digests,
 * and `.schemapin.sig` left out at every depth as the 1.3 signers did (the "top-level only"
 * rule of §4b.1 belongs to the 1.4 algorithm; see `WalkSkillOptions` in walk.ts). Only
 * verification uses it; new signatures never do.
 *
 * Files are read in fixed-size chunks into one reused buffer, so memory does not grow with
 * file size. Each file is opened only after the walk classified it as a regular file with
 * `lstat`, and with `O_NONBLOCK | O_NOFOLLOW`: a FIFO swapped in afterwards is never waited
 * on. A file that yields a different number of bytes than its `lstat` size (it grew, shrank
 * or was replaced while being read) is an error, and reading stops as soon as it exceeds that
 * size, so an endless device cannot keep the hasher busy.
 *
 * Under scoped permissions Deno resolves symbolic links while checking them, so `O_NOFOLLOW`
 * only helps with full permissions: a link swapped in between the walk and the open by a
 * concurrent writer is followed, and its target is hashed only if it has the exact size
 * listed. That is no weaker than the writer rewriting the file itself — nothing verified
 * about a folder someone is writing to outlives the verification. (A descriptor identity
 * check with `fstat` costs a third of the time on small files and buys nothing more.)
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";
import * as fs from "node:fs";
import { SchemaPinError } from "../errors.ts";
import { toHex } from "../crypto/hash.ts";
import { fsReason, OPEN_FLAGS, showPath } from "./fs.ts";
import {
  compareBytes,
  SIGNATURE_FILE_NAME,
  type SkillFile,
  type SkillLimits,
  walkSkillDir,
} from "./walk.ts";

/**
 * Which skill hashing algorithm: `"1.4"` (§4b, everything new) or `"legacy"` (documents with
 * `schemapin_version` below "1.4", verification only).
 */
export type SkillAlgorithm = "1.4" | "legacy";

/** One hashed file. */
export interface SkillEntryHash {
  /** Forward-slash path relative to the skill root. */
  readonly path: string;
  /** Its size in bytes. */
  readonly size: number;
  /** `"sha256:" + hex(entry digest)` — its `file_manifest` value. */
  readonly digest: string;
}

/** The hash of a whole skill folder. */
export interface SkillHash {
  /** The algorithm used. */
  readonly algorithm: SkillAlgorithm;
  /** Every file, in code point order of its path. */
  readonly entries: readonly SkillEntryHash[];
  /** `path → "sha256:" + hex(entry digest)`, own properties in code point order. */
  readonly manifest: Record<string, string>;
  /** The 32-byte root hash. */
  readonly rootHash: Uint8Array;
  /** `"sha256:" + hex(rootHash)`. */
  readonly skillHash: string;
  /** Sum of the file sizes. */
  readonly totalBytes: number;
  /**
   * Nested `.schemapin.sig` files the legacy algorithm left out, in code point order (always
   * empty for 1.4, where only the top-level one is excluded). Their contents are not covered.
   */
  readonly excluded: readonly string[];
}

/** Progress of {@linkcode hashSkillDir}, reported to `onProgress`. */
export interface SkillHashProgress {
  /** Files finished. */
  readonly filesDone: number;
  /** Files in the skill. */
  readonly filesTotal: number;
  /** Bytes hashed so far. */
  readonly bytesDone: number;
  /** Bytes in the skill. */
  readonly bytesTotal: number;
  /** Milliseconds since hashing started. */
  readonly elapsedMs: number;
}

/** Options of {@linkcode hashSkillDir}. */
export interface HashSkillOptions extends SkillLimits {
  /** `"1.4"` (default) or `"legacy"`. */
  algorithm?: SkillAlgorithm;
  /**
   * Called about every `progressIntervalMs` while hashing, after each chunk of at most 1 MiB
   * (so never for a folder hashed faster than that); hashing waits for a returned promise.
   */
  onProgress?: (progress: SkillHashProgress) => void | Promise<void>;
  /** Milliseconds between `onProgress` calls (default {@linkcode PROGRESS_INTERVAL_MS}). */
  progressIntervalMs?: number;
}

/** How often `onProgress` is called while hashing, in milliseconds. */
export const PROGRESS_INTERVAL_MS = 250;

/** The read buffer: large enough for throughput, small enough to be irrelevant in memory. */
const CHUNK_BYTES = 1 << 20;

/** The entry digest domain-separation byte of §4b.4 (`f` for file). */
const ENTRY_TAG = 0x66;

/** Writes `n` (a safe integer) as 64-bit big-endian at `offset`. */
function putBe64(view: DataView, offset: number, n: number): void {
  view.setUint32(offset, Math.floor(n / 0x1_0000_0000));
  view.setUint32(offset + 4, n >>> 0);
}

function be64(n: number): Uint8Array {
  const out = new Uint8Array(8);
  putBe64(new DataView(out.buffer), 0, n);
  return out;
}

/** A hash with the entry's prefix already fed: §4b.4 or legacy. */
function beginEntry(algorithm: SkillAlgorithm, pathBytes: Uint8Array, size: number): Hash {
  const h = createHash("sha256");
  if (algorithm === "legacy") return h.update(pathBytes); // SHA-256(path ‖ content)
  // 0x66 ‖ be64(len(path)) ‖ path ‖ be64(len(content)), fed in one update.
  const prefix = new Uint8Array(17 + pathBytes.length);
  const view = new DataView(prefix.buffer);
  prefix[0] = ENTRY_TAG;
  putBe64(view, 1, pathBytes.length);
  prefix.set(pathBytes, 9);
  putBe64(view, 9 + pathBytes.length, size);
  return h.update(prefix);
}

interface HashedEntry {
  readonly path: string;
  readonly pathBytes: Uint8Array;
  readonly size: number;
  readonly digest: Uint8Array;
}

function finish(
  algorithm: SkillAlgorithm,
  hashed: readonly HashedEntry[],
  totalBytes: number,
  excluded: readonly string[],
): SkillHash {
  const root = createHash("sha256");
  const entries: SkillEntryHash[] = [];
  for (const e of hashed) {
    const hex = toHex(e.digest);
    if (algorithm === "legacy") {
      root.update(hex); // the concatenated hex digests
    } else {
      root.update(be64(e.pathBytes.length)).update(e.pathBytes).update(e.digest); // §4b.5
    }
    entries.push({ path: e.path, size: e.size, digest: "sha256:" + hex });
  }
  const rootHash = new Uint8Array(root.digest());
  return {
    algorithm,
    entries,
    // Object.fromEntries defines own data properties: a file named `__proto__` is an
    // ordinary key, not the prototype.
    manifest: Object.fromEntries(entries.map((e) => [e.path, e.digest])),
    rootHash,
    skillHash: "sha256:" + toHex(rootHash),
    totalBytes,
    excluded,
  };
}

function openError(root: string, file: SkillFile, e: unknown): SchemaPinError {
  const code = (e as { code?: string })?.code;
  const at = `skill folder ${showPath(root)}: ${showPath(file.path)}`;
  if (code === "ELOOP" || code === "EMLINK") {
    return new SchemaPinError(
      "INPUT_INVALID",
      `${at} became a symbolic link while the skill was being hashed (§4b.2)`,
      { path: file.path, reason: "symlink" },
    );
  }
  if (code === "ENXIO" || code === "EAGAIN" || code === "EWOULDBLOCK") {
    return new SchemaPinError(
      "INPUT_INVALID",
      `${at} is no longer a regular file (it changed while the skill was being hashed)`,
      { path: file.path, reason: "changed" },
    );
  }
  if (code === "EACCES" || code === "EPERM") {
    return new SchemaPinError("IO_FAILED", `${at}: cannot read: permission denied`, {
      path: file.path,
    });
  }
  if (code === "ENOENT") {
    return new SchemaPinError("IO_FAILED", `${at} disappeared while the skill was being hashed`, {
      path: file.path,
    });
  }
  return new SchemaPinError("IO_FAILED", `${at}: cannot read: ${fsReason(e)}`, {
    path: file.path,
  });
}

function sizeChanged(root: string, file: SkillFile, read: number): SchemaPinError {
  return new SchemaPinError(
    "INPUT_INVALID",
    `skill folder ${showPath(root)}: ${
      showPath(file.path)
    } changed size while it was being hashed ` +
      `(${file.size} bytes when listed, ${read > file.size ? "more" : read} when read); ` +
      `hash a folder nothing is writing to`,
    { path: file.path, reason: "changed", listedSize: file.size },
  );
}

/**
 * Hashes the skill folder `dir` (§4b, or the legacy algorithm): walks it with
 * {@linkcode walkSkillDir} (caps checked before any data is read), then streams each file.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a hostile or unusable tree (symbolic link,
 *   FIFO, socket, device, non-UTF-8 name, caps exceeded, no file, a file that changed while
 *   read), `IO_FAILED` for an unreadable folder or file; the message names the path.
 *
 * @example
 * ```ts ignore
 * const { skillHash, manifest } = await hashSkillDir("./my-skill");
 * console.log(skillHash, Object.keys(manifest).length);
 * ```
 */
export async function hashSkillDir(
  dir: string,
  options: HashSkillOptions = {},
): Promise<SkillHash> {
  const algorithm = options.algorithm ?? "1.4";
  const { files, totalBytes, excluded } = walkSkillDir(dir, {
    maxEntries: options.maxEntries,
    maxBytes: options.maxBytes,
    excludeNestedSignatureFiles: algorithm === "legacy",
  });
  const root = dir.length > 1 ? dir.replace(/\/+$/, "") || "/" : dir;
  const buffer = new Uint8Array(CHUNK_BYTES);
  const hashed: HashedEntry[] = [];
  const started = performance.now();
  const onProgress = options.onProgress;
  const interval = options.progressIntervalMs ?? PROGRESS_INTERVAL_MS;
  let nextReport = started + interval;
  let bytesDone = 0;
  const report = async () => {
    const now = performance.now();
    nextReport = now + interval;
    await onProgress!({
      filesDone: hashed.length,
      filesTotal: files.length,
      bytesDone,
      bytesTotal: totalBytes,
      elapsedMs: now - started,
    });
  };
  for (const file of files) {
    const h = beginEntry(algorithm, file.pathBytes, file.size);
    let fd: number;
    try {
      fd = fs.openSync(file.fsPath, OPEN_FLAGS);
    } catch (e) {
      throw openError(root, file, e);
    }
    try {
      let read = 0;
      while (true) {
        let n: number;
        try {
          n = fs.readSync(fd, buffer, 0, buffer.length, null);
        } catch (e) {
          throw openError(root, file, e);
        }
        read += n;
        // Stop at once when a file grows: a device or an endless writer cannot keep us here.
        if (read > file.size) throw sizeChanged(root, file, read);
        if (n > 0) h.update(n === buffer.length ? buffer : buffer.subarray(0, n));
        bytesDone += n;
        // A regular file returns less than asked for only at its end; a file that grows
        // after this read is hashed as it was when read (a consistent snapshot).
        if (n < buffer.length) break;
        if (onProgress !== undefined && performance.now() >= nextReport) await report();
      }
      if (read !== file.size) throw sizeChanged(root, file, read);
    } finally {
      fs.closeSync(fd);
    }
    hashed.push({
      path: file.path,
      pathBytes: file.pathBytes,
      size: file.size,
      digest: h.digest(),
    });
  }
  return finish(algorithm, hashed, totalBytes, excluded);
}

/** A file given in memory to {@linkcode hashSkillFiles}. */
export interface SkillFileContent {
  /** Forward-slash relative path (`scripts/run.sh`). */
  readonly path: string;
  /** The file's bytes. */
  readonly content: Uint8Array;
}

/** Why `path` cannot be a skill entry path, or `undefined`. */
export function checkSkillPath(path: unknown): string | undefined {
  if (typeof path !== "string" || path === "") return "a path must be a non-empty string";
  if (!path.isWellFormed()) return "a path must be valid Unicode (no lone surrogates)";
  if (path.includes("\0")) return "a path must not contain NUL";
  if (path.includes("\\")) return "a path must use forward slashes";
  const segments = path.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    return "a path must be relative, without empty, '.' or '..' segments";
  }
  return undefined;
}

/**
 * Hashes a skill given in memory — the pure core of {@linkcode hashSkillDir}, for tests,
 * other storage and conformance vectors. Paths are sorted by code point; a top-level
 * `.schemapin.sig` is excluded as in a folder, and with the legacy algorithm a nested one too
 * (listed in `excluded`).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for an invalid or duplicate path, or no file.
 *
 * @example
 * ```ts
 * import { hashSkillFiles } from "./hash.ts";
 * const enc = new TextEncoder();
 * const h = hashSkillFiles([{ path: "SKILL.md", content: enc.encode("# hi\n") }]);
 * h.skillHash.startsWith("sha256:"); // true
 * ```
 */
export function hashSkillFiles(
  files: Iterable<SkillFileContent>,
  algorithm: SkillAlgorithm = "1.4",
): SkillHash {
  const encoder = new TextEncoder();
  const items: { path: string; pathBytes: Uint8Array; content: Uint8Array }[] = [];
  const excluded: { path: string; pathBytes: Uint8Array }[] = [];
  const seen = new Set<string>();
  for (const f of files) {
    const problem = checkSkillPath(f?.path);
    if (problem) {
      throw new SchemaPinError("INPUT_INVALID", `${JSON.stringify(f?.path)}: ${problem}`, {
        path: f?.path,
      });
    }
    if (!(f.content instanceof Uint8Array)) {
      throw new SchemaPinError("INPUT_INVALID", `${f.path}: content must be a Uint8Array`, {
        path: f.path,
      });
    }
    if (f.path === SIGNATURE_FILE_NAME) continue;
    if (seen.has(f.path)) {
      throw new SchemaPinError("INPUT_INVALID", `${f.path} is given twice`, { path: f.path });
    }
    seen.add(f.path);
    if (algorithm === "legacy" && f.path.endsWith(`/${SIGNATURE_FILE_NAME}`)) {
      excluded.push({ path: f.path, pathBytes: encoder.encode(f.path) }); // as in walk.ts
      continue;
    }
    items.push({ path: f.path, pathBytes: encoder.encode(f.path), content: f.content });
  }
  if (items.length === 0) {
    throw new SchemaPinError("INPUT_INVALID", "a skill must hold at least one file", {
      reason: "empty",
    });
  }
  items.sort((a, b) => compareBytes(a.pathBytes, b.pathBytes));
  let total = 0;
  const hashed = items.map((it) => {
    total += it.content.length;
    const digest = beginEntry(algorithm, it.pathBytes, it.content.length).update(it.content)
      .digest();
    return { ...it, size: it.content.length, digest: new Uint8Array(digest) };
  });
  excluded.sort((a, b) => compareBytes(a.pathBytes, b.pathBytes));
  return finish(algorithm, hashed, total, excluded.map((e) => e.path));
}
