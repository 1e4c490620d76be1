/**
 * A bounded cache of parsed public keys, keyed by the bytes they were parsed from, so that
 * verifying many signatures with the same PEM or DER parses and validates the key once.
 *
 * Each entry holds the decoded noble point. A key that keeps being used also gets a wNAF
 * table (`precompute(8)`), which makes each verification about 4× faster — but the table
 * costs about 30 ms to build (≈ 30 plain verifications) and about 1 MiB of memory, so it is
 * built only once a key has been used {@linkcode PRECOMPUTE_AFTER} times, and at most
 * {@linkcode MAX_PRECOMPUTED} keys hold one (least recently used ones lose theirs).
 *
 * @module
 */

import type { WeierstrassPoint } from "@noble/curves/abstract/weierstrass.js";
import { p256 } from "@noble/curves/nist.js";
import type { PublicKey } from "./key_types.ts";

/** A P-256 point as noble represents it. */
export type P256Point = WeierstrassPoint<bigint>;

/** One cached key. */
export interface CachedKey {
  /** The parsed, normalised key. */
  readonly publicKey: PublicKey;
  /** Its point; replaced by a table-less copy when the entry loses its table. */
  point: P256Point;
  /** Verifications done with this entry since it last lost its table. */
  uses: number;
}

/** Parsed keys kept (any mix of PEM texts and DER byte strings). */
export const MAX_KEYS = 128;
/** Keys allowed to hold a precomputed table at the same time (≈ 1 MiB each). */
export const MAX_PRECOMPUTED = 16;
/** Verifications with one key before its table is built (the table costs ≈ 30 of them). */
export const PRECOMPUTE_AFTER = 32;
/** wNAF window for precomputed keys (measured fastest for P-256 verification). */
const WINDOW = 8;

const entries = new Map<string, CachedKey>(); // insertion order = least recently used first
const precomputed = new Map<CachedKey, true>();

/**
 * Looks an entry up by id (`"pem:" + text` or `"der:" + hex`) and marks it recently used.
 *
 * @example
 * ```ts
 * import { getCachedKey } from "./key_cache.ts";
 * getCachedKey("der:00"); // undefined
 * ```
 */
export function getCachedKey(id: string): CachedKey | undefined {
  const entry = entries.get(id);
  if (entry !== undefined) {
    entries.delete(id);
    entries.set(id, entry);
  }
  return entry;
}

/**
 * Stores an entry under an id, evicting the least recently used id beyond
 * {@linkcode MAX_KEYS}.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { getCachedKey, putCachedKey } from "./key_cache.ts";
 * import { p256 } from "@noble/curves/nist.js";
 * const { publicKey } = generateKeyPair();
 * putCachedKey("example", { publicKey, point: p256.Point.fromBytes(publicKey.point), uses: 0 });
 * getCachedKey("example")?.publicKey === publicKey; // true
 * ```
 */
export function putCachedKey(id: string, entry: CachedKey): void {
  entries.delete(id);
  entries.set(id, entry);
  while (entries.size > MAX_KEYS) {
    const oldest = entries.keys().next().value as string;
    entries.delete(oldest);
  }
}

/**
 * The point to verify with, counting the use and building the table when the key is hot.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { pointForVerification } from "./key_cache.ts";
 * import { p256 } from "@noble/curves/nist.js";
 * const { publicKey } = generateKeyPair();
 * const entry = { publicKey, point: p256.Point.fromBytes(publicKey.point), uses: 0 };
 * pointForVerification(entry).equals(entry.point); // true
 * ```
 */
export function pointForVerification(entry: CachedKey): P256Point {
  entry.uses++;
  if (precomputed.has(entry)) {
    precomputed.delete(entry);
    precomputed.set(entry, true);
  } else if (entry.uses >= PRECOMPUTE_AFTER) {
    if (precomputed.size >= MAX_PRECOMPUTED) {
      const coldest = precomputed.keys().next().value as CachedKey;
      precomputed.delete(coldest);
      // The table lives in a WeakMap keyed by the point object: a fresh object drops it.
      coldest.point = p256.Point.fromBytes(coldest.publicKey.point);
      coldest.uses = 0;
    }
    entry.point.precompute(WINDOW, false);
    precomputed.set(entry, true);
  }
  return entry.point;
}

let fastBase: P256Point | undefined;
let coldVerifications = 0;

/**
 * The base point G to multiply with when verifying with `entry`'s key: noble's `Point.BASE`
 * for a key used only a few times, and — once the key is hot (its own table is built) — a
 * copy of G with a window-8 table of its own, built once per process (~40 ms, ~1 MiB). Measured
 * here: 86 µs per `multiplyUnsafe` against 128 µs with `Point.BASE`.
 *
 * The process's first verification takes a copy of G without a table: noble builds
 * `Point.BASE`'s table on its first use (~30 ms), twice a whole first verification without it
 * (~15 ms), and a command that verifies one signature needs it never (issue 14).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "./keys.ts";
 * import { baseForVerification } from "./key_cache.ts";
 * import { p256 } from "@noble/curves/nist.js";
 * const { publicKey } = generateKeyPair();
 * const entry = { publicKey, point: p256.Point.fromBytes(publicKey.point), uses: 0 };
 * baseForVerification(entry).equals(p256.Point.BASE); // true
 * ```
 */
export function baseForVerification(entry: CachedKey): P256Point {
  if (!precomputed.has(entry)) {
    if (coldVerifications++ === 0) return p256.Point.fromBytes(p256.Point.BASE.toBytes());
    return p256.Point.BASE;
  }
  if (fastBase === undefined) {
    fastBase = p256.Point.fromBytes(p256.Point.BASE.toBytes());
    fastBase.precompute(WINDOW, false);
  }
  return fastBase;
}

/**
 * Empties the cache (tests; or to release memory).
 *
 * @example
 * ```ts
 * import { clearKeyCache, keyCacheStats } from "./key_cache.ts";
 * clearKeyCache();
 * keyCacheStats(); // { keys: 0, precomputed: 0 }
 * ```
 */
export function clearKeyCache(): void {
  entries.clear();
  precomputed.clear();
}

/**
 * How many ids are cached and how many keys hold a precomputed table.
 *
 * @example
 * ```ts
 * import { keyCacheStats } from "./key_cache.ts";
 * keyCacheStats().keys >= 0; // true
 * ```
 */
export function keyCacheStats(): { keys: number; precomputed: number } {
  return { keys: entries.size, precomputed: precomputed.size };
}
