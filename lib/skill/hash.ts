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
import { hexInto, sha256Hex, toHex } from "../crypto/hash.ts";
import { fsReason, OPEN_FLAGS, showPath } from "./fs.ts";
import {
  compareBytes,
  SIGNATURE_FILE_NAME,
  type SkillFile,
  type SkillLimits,
  walkSkillDir,
} from "./walk.ts";
import { checkArg } from "../arguments.ts";

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
   * Called about every `progressIntervalMs` while hashing, after a file or a chunk of at most
   * 1 MiB (so never for a folder hashed faster than that); hashing waits for a returned promise.
   */
  onProgress?: (progress: SkillHashProgress) => void | Promise<void>;
  /** Milliseconds between `onProgress` calls (default {@linkcode PROGRESS_INTERVAL_MS}). */
  progressIntervalMs?: number;
  /**
   * Called while the folder is walked, before hashing, with the number of files found so far
   * (synchronously; see `WalkSkillOptions.onProgress`).
   */
  onWalkProgress?: (filesFound: number) => void;
}

/** How often `onProgress` is called while hashing, in milliseconds. */
export const PROGRESS_INTERVAL_MS = 250;

/** The read buffer: large enough for throughput, small enough to be irrelevant in memory. */
const CHUNK_BYTES = 1 << 20;

const encoder = new TextEncoder();

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
 * ```ts
 * import { hashSkillDir } from "./hash.ts";
 * const { skillHash, manifest } = await hashSkillDir("./my-skill", {
 *   maxEntries: 1000,
 *   onProgress: (p) => console.error(`${p.filesDone}/${p.filesTotal} files`),
 * });
 * console.log(skillHash, Object.keys(manifest).length);
 * ```
 */
export async function hashSkillDir(
  dir: string,
  options: HashSkillOptions = {},
): Promise<SkillHash> {
  checkArg("hashSkillDir", "options", options, "object");
  const algorithm = options.algorithm ?? "1.4";
  const legacy = algorithm === "legacy";
  const { files, totalBytes, excluded } = walkSkillDir(dir, {
    maxEntries: options.maxEntries,
    maxBytes: options.maxBytes,
    excludeNestedSignatureFiles: legacy,
    onProgress: options.onWalkProgress,
  });
  const root = dir.length > 1 ? dir.replace(/\/+$/, "") || "/" : dir;
  // One buffer for everything: a small file is read right behind its entry prefix and the
  // whole entry hashed in one call; a large one is streamed through it in chunks.
  const buffer = new Uint8Array(CHUNK_BYTES);
  const view = new DataView(buffer.buffer);
  const rootInput = new RootInput(legacy);
  const entries: SkillEntryHash[] = [];
  const started = performance.now();
  const onProgress = options.onProgress;
  const interval = options.progressIntervalMs ?? PROGRESS_INTERVAL_MS;
  let nextReport = started + interval;
  let bytesDone = 0;
  const report = async () => {
    const now = performance.now();
    nextReport = now + interval;
    await onProgress!({
      filesDone: entries.length,
      filesTotal: files.length,
      bytesDone,
      bytesTotal: totalBytes,
      elapsedMs: now - started,
    });
  };
  for (const file of files) {
    const path = file.path;
    // The entry prefix, with the path written once as UTF-8 (its byte length is known after).
    let prefix: number;
    let pathLength: number;
    if (legacy) {
      pathLength = encoder.encodeInto(path, buffer).written; // SHA-256(path ‖ content)
      prefix = pathLength;
    } else {
      // 0x66 ‖ be64(len(path)) ‖ path ‖ be64(len(content))
      pathLength = encoder.encodeInto(path, buffer.subarray(9)).written;
      buffer[0] = ENTRY_TAG;
      putBe64(view, 1, pathLength);
      putBe64(view, 9 + pathLength, file.size);
      prefix = 17 + pathLength;
    }
    let fd: number;
    try {
      fd = fs.openSync(file.fsPath, OPEN_FLAGS);
    } catch (e) {
      throw openError(root, file, e);
    }
    let hex: string;
    try {
      const read = (offset: number): number => {
        try {
          return fs.readSync(fd, buffer, offset, buffer.length - offset, null);
        } catch (e) {
          throw openError(root, file, e);
        }
      };
      if (prefix + file.size < buffer.length) {
        // Room for one byte more than listed: a file that grew is noticed.
        const n = read(prefix);
        if (n !== file.size) throw sizeChanged(root, file, n);
        hex = sha256Hex(buffer.subarray(0, prefix + n));
        bytesDone += n;
      } else {
        const h = createHash("sha256").update(buffer.subarray(0, prefix));
        let total = 0;
        while (true) {
          const n = read(0);
          total += n;
          // Stop at once when a file grows: a device or an endless writer cannot keep us here.
          if (total > file.size) throw sizeChanged(root, file, total);
          if (n > 0) h.update(n === buffer.length ? buffer : buffer.subarray(0, n));
          bytesDone += n;
          // A regular file returns less than asked for only at its end; a file that grows
          // after this read is hashed as it was when read (a consistent snapshot).
          if (n < buffer.length) break;
          if (onProgress !== undefined && performance.now() >= nextReport) await report();
        }
        if (total !== file.size) throw sizeChanged(root, file, total);
        hex = h.digest("hex");
      }
    } finally {
      fs.closeSync(fd);
    }
    rootInput.add(path, hex);
    entries.push({ path, size: file.size, digest: "sha256:" + hex });
    if (onProgress !== undefined && performance.now() >= nextReport) await report();
  }
  const rootHash = rootInput.digest();
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

/**
 * The root hash input (§4b.5: `be64(len(path)) ‖ path ‖ entry digest` per entry; legacy: the
 * concatenated hex digests), collected in a 64 KiB buffer and hashed a buffer at a time.
 */
class RootInput {
  readonly #hash = createHash("sha256");
  readonly #legacy: boolean;
  readonly #buffer = new Uint8Array(1 << 16);
  readonly #view = new DataView(this.#buffer.buffer);
  #used = 0;

  constructor(legacy: boolean) {
    this.#legacy = legacy;
  }

  #room(bytes: number): void {
    if (this.#used + bytes <= this.#buffer.length) return;
    this.#hash.update(this.#buffer.subarray(0, this.#used));
    this.#used = 0;
  }

  /** Adds the entry `path` whose digest is `hex` (64 lowercase hex digits). */
  add(path: string, hex: string): void {
    const b = this.#buffer;
    if (this.#legacy) {
      this.#room(64);
      this.#used += encoder.encodeInto(hex, b.subarray(this.#used)).written;
      return;
    }
    // At most 3 UTF-8 bytes per UTF-16 code unit; a path longer than the buffer is hashed
    // through its own update.
    const most = 8 + path.length * 3 + 32;
    if (most > b.length) {
      this.#room(b.length);
      const bytes = encoder.encode(path);
      this.#hash.update(be64(bytes.length)).update(bytes).update(hexToBytes(hex));
      return;
    }
    this.#room(most);
    const at = this.#used;
    const n = encoder.encodeInto(path, b.subarray(at + 8)).written;
    putBe64(this.#view, at, n);
    hexInto(hex, b, at + 8 + n);
    this.#used = at + 8 + n + 32;
  }

  /** The root hash. */
  digest(): Uint8Array {
    this.#hash.update(this.#buffer.subarray(0, this.#used));
    this.#used = 0;
    return new Uint8Array(this.#hash.digest());
  }
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  hexInto(hex, out, 0);
  return out;
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
  checkArg("hashSkillFiles", "files", files, "iterable");
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
