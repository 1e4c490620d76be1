/**
 * The bundle authority allow-list (§21.1, §21.4): which key fingerprint is expected for each
 * authority `kid`. A signed bundle is accepted only from a seeded authority, or — with an
 * explicit opt-in — pinned on first use after its signature verified.
 *
 * Two stores share one interface: {@linkcode MemoryBundleAuthorityStore} (library users,
 * tests) and {@linkcode FileBundleAuthorityStore}, persisted like the pin store (same
 * locked, atomic JSON record file; default `$SCHEMAPIN_HOME/bundle_authorities.json`, else
 * `~/.schemapin/bundle_authorities.json`).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parsePublicKeyPem } from "../crypto/keys.ts";
import { isJsonObject, ownField } from "../json/object.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import { formatRfc3339, isRfc3339 } from "../time/rfc3339.ts";
import { schemapinHome } from "../pins/json_file.ts";
import {
  FileKeyedRecords,
  type KeyedRecordCodec,
  MemoryKeyedRecords,
} from "../pins/keyed_records.ts";
import { checkKid } from "./bundle.ts";
import { checkArg, checkMethods } from "../arguments.ts";

/** How an authority entered the allow-list. */
export type AuthoritySource = "seeded" | "first_use";

/** One allow-listed bundle authority. */
export interface BundleAuthorityRecord {
  /** The authority key id. */
  readonly kid: string;
  /** The expected `sha256:` fingerprint of its public key (§8.2). */
  readonly fingerprint: string;
  /** When it was recorded, RFC 3339. */
  readonly pinnedAt: string;
  /** Seeded out of band, or pinned on (opted-in) first use. */
  readonly source: AuthoritySource;
}

/**
 * Storage of the authority allow-list. `transact` runs `change` on a consistent snapshot
 * (keyed by kid) and persists it when `changed`; implementations serialise transactions.
 */
export interface BundleAuthorityStore {
  /** The record for `kid`, if any. Never writes. */
  get(kid: string): Promise<BundleAuthorityRecord | undefined>;
  /** Every record, sorted by kid. */
  list(): Promise<BundleAuthorityRecord[]>;
  /** Runs `change` under the store's lock; persists the map when it returns `changed`. */
  transact<R>(
    change: (authorities: Map<string, BundleAuthorityRecord>) => { changed: boolean; result: R },
  ): Promise<R>;
}

/**
 * Builds a validated record (`pinnedAt` defaults to now); throws `INPUT_INVALID`.
 *
 * @example
 * ```ts
 * import { makeAuthorityRecord } from "./authority.ts";
 * makeAuthorityRecord({ kid: "a", fingerprint: "sha256:" + "0".repeat(64), source: "seeded" }).kid; // "a"
 * ```
 */
export function makeAuthorityRecord(fields: {
  kid: string;
  fingerprint: string;
  source: AuthoritySource;
  pinnedAt?: string;
}): BundleAuthorityRecord {
  checkArg("makeAuthorityRecord", "fields", fields, "object");
  const kidProblem = checkKid(fields.kid);
  if (kidProblem) {
    throw new SchemaPinError("INPUT_INVALID", `bundle authority kid: ${kidProblem}`);
  }
  if (!isSha256Ref(fields.fingerprint)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `bundle authority fingerprint ${JSON.stringify(fields.fingerprint)} ${
        describeBadSha256Ref(fields.fingerprint)
      }`,
    );
  }
  if (fields.source !== "seeded" && fields.source !== "first_use") {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `unknown bundle authority source ${JSON.stringify(fields.source)}`,
    );
  }
  const pinnedAt = fields.pinnedAt ?? formatRfc3339(Date.now());
  if (!isRfc3339(pinnedAt)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `pinned_at ${JSON.stringify(pinnedAt)} is not RFC 3339`,
    );
  }
  return { kid: fields.kid, fingerprint: fields.fingerprint, pinnedAt, source: fields.source };
}

/**
 * An allow-list held in memory.
 *
 * @example
 * ```ts
 * import { MemoryBundleAuthorityStore } from "jsr:@schemapin/schemapin/bundle";
 * const store = new MemoryBundleAuthorityStore();
 * ```
 */
export class MemoryBundleAuthorityStore implements BundleAuthorityStore {
  readonly #records: MemoryKeyedRecords<BundleAuthorityRecord>;

  /** Creates a store, optionally with initial records. */
  constructor(records: Iterable<BundleAuthorityRecord> = []) {
    checkArg("MemoryBundleAuthorityStore", "records", records, "iterable");
    this.#records = new MemoryKeyedRecords(Array.from(records, (r) => [r.kid, r] as const));
  }

  /** The record for `kid`. */
  get(kid: string): Promise<BundleAuthorityRecord | undefined> {
    return this.#records.get(kid);
  }

  /** Every record, sorted by kid. */
  list(): Promise<BundleAuthorityRecord[]> {
    return this.#records.list();
  }

  /** Runs `change` on a copy and keeps it when `changed`; one transaction at a time. */
  transact<R>(
    change: (authorities: Map<string, BundleAuthorityRecord>) => { changed: boolean; result: R },
  ): Promise<R> {
    return this.#records.transact(change);
  }
}

const AUTHORITY_FILE_FORMAT = {
  versionField: "schemapin_bundle_authorities_version",
  version: 1,
  listField: "authorities",
  what: "bundle authority store",
} as const;

/**
 * The default allow-list file: `$SCHEMAPIN_HOME/bundle_authorities.json`, else
 * `~/.schemapin/bundle_authorities.json`.
 *
 * @example
 * ```ts
 * import { defaultBundleAuthorityStorePath } from "./authority.ts";
 * console.log(defaultBundleAuthorityStorePath()); // "/home/me/.schemapin/bundle_authorities.json"
 * ```
 */
export function defaultBundleAuthorityStorePath(): string {
  return `${schemapinHome()}/bundle_authorities.json`;
}

function recordToJson(r: BundleAuthorityRecord): Record<string, string> {
  return { kid: r.kid, fingerprint: r.fingerprint, pinned_at: r.pinnedAt, source: r.source };
}

function recordFromJson(value: unknown, where: string): BundleAuthorityRecord {
  if (!isJsonObject(value)) throw new SchemaPinError("INPUT_INVALID", `${where} is not an object`);
  const str = (k: string): string => {
    const v = ownField(value, k);
    if (typeof v !== "string") {
      throw new SchemaPinError("INPUT_INVALID", `${where}: "${k}" is missing or not a string`);
    }
    return v;
  };
  try {
    return makeAuthorityRecord({
      kid: str("kid"),
      fingerprint: str("fingerprint"),
      pinnedAt: str("pinned_at"),
      source: str("source") as AuthoritySource,
    });
  } catch (e) {
    throw new SchemaPinError("INPUT_INVALID", `${where}: ${(e as Error).message}`);
  }
}

const AUTHORITY_CODEC: KeyedRecordCodec<BundleAuthorityRecord> = {
  fromJson: recordFromJson,
  toJson: recordToJson,
  key: (r) => r.kid,
  duplicate: (kid) => `kid ${JSON.stringify(kid)} is listed twice`,
};

/**
 * An allow-list persisted as JSON, with the pin store's locked, atomic updates:
 *
 * ```json
 * { "schemapin_bundle_authorities_version": 1,
 *   "authorities": [ { "kid": "…", "fingerprint": "sha256:…",
 *                      "pinned_at": "2026-05-15T00:00:00Z", "source": "seeded" } ] }
 * ```
 *
 * A corrupt file, another tool's file, or a kid listed twice is an error (`INPUT_INVALID`)
 * and the file is never overwritten while unreadable.
 *
 * @example
 * ```ts
 * import { FileBundleAuthorityStore, seedBundleAuthority } from "jsr:@schemapin/schemapin/bundle";
 * const store = new FileBundleAuthorityStore("./bundle_authorities.json");
 * await seedBundleAuthority(store, "authority-2026", "sha256:" + "ab".repeat(32));
 * console.log((await store.list()).map((a) => a.kid)); // ["authority-2026"]
 * ```
 */
export class FileBundleAuthorityStore implements BundleAuthorityStore {
  readonly #records: FileKeyedRecords<BundleAuthorityRecord>;

  /** A store at `path` (default {@linkcode defaultBundleAuthorityStorePath}). */
  constructor(path: string = defaultBundleAuthorityStorePath()) {
    this.#records = new FileKeyedRecords(path, AUTHORITY_FILE_FORMAT, AUTHORITY_CODEC);
  }

  /** The file's path. */
  get path(): string {
    return this.#records.path;
  }

  /** The record for `kid` (the file is read on every call). */
  get(kid: string): Promise<BundleAuthorityRecord | undefined> {
    return this.#records.get(kid);
  }

  /** Every record, sorted by kid. */
  list(): Promise<BundleAuthorityRecord[]> {
    return this.#records.list();
  }

  /** Runs `change` under the file lock and rewrites the file atomically when `changed`. */
  transact<R>(
    change: (authorities: Map<string, BundleAuthorityRecord>) => { changed: boolean; result: R },
  ): Promise<R> {
    return this.#records.transact(change);
  }
}

/** What seeding found or did. */
export type SeedAuthorityOutcome =
  | { readonly status: "added"; readonly record: BundleAuthorityRecord }
  | { readonly status: "exists"; readonly record: BundleAuthorityRecord };

/**
 * Adds `record` unless its kid is present (under one lock); returns what is stored now.
 * Used by seeding and by first-use pinning.
 *
 * @example
 * ```ts ignore
 * const outcome = await addAuthorityIfAbsent(store, record);
 * ```
 */
export function addAuthorityIfAbsent(
  store: BundleAuthorityStore,
  record: BundleAuthorityRecord,
): Promise<SeedAuthorityOutcome> {
  checkMethods(
    "addAuthorityIfAbsent",
    "store",
    store,
    ["transact"],
    "a BundleAuthorityStore",
  );
  checkArg("addAuthorityIfAbsent", "record", record, "object");
  return store.transact<SeedAuthorityOutcome>((map) => {
    const existing = map.get(record.kid);
    if (existing) return { changed: false, result: { status: "exists", record: existing } };
    map.set(record.kid, record);
    return { changed: true, result: { status: "added", record } };
  });
}

/**
 * Records an expected authority: bundles signed under `kid` are accepted only with the key
 * whose fingerprint is `fingerprint` (§21.4 `seed_bundle_authority`). The fingerprint must
 * come out of band (e.g. the authority domain's `.well-known/schemapin.json` or DNS TXT).
 * Seeding the same fingerprint again is a no-op; a different one for a seeded kid throws
 * `KEY_PIN_MISMATCH` (remove the old entry deliberately first). Bad input: `INPUT_INVALID`.
 *
 * @example
 * ```ts
 * import {
 *   MemoryBundleAuthorityStore,
 *   seedBundleAuthority,
 * } from "jsr:@schemapin/schemapin/bundle";
 * const store = new MemoryBundleAuthorityStore();
 * await seedBundleAuthority(store, "authority-2026", "sha256:" + "ab".repeat(32));
 * ```
 */
export async function seedBundleAuthority(
  store: BundleAuthorityStore,
  kid: string,
  fingerprint: string,
  now: Date | number = Date.now(),
): Promise<SeedAuthorityOutcome> {
  const record = makeAuthorityRecord({
    kid,
    fingerprint,
    source: "seeded",
    pinnedAt: formatRfc3339(now),
  });
  const outcome = await addAuthorityIfAbsent(store, record);
  if (outcome.status === "exists" && outcome.record.fingerprint !== fingerprint) {
    throw new SchemaPinError(
      "KEY_PIN_MISMATCH",
      `bundle authority ${JSON.stringify(kid)} is already recorded with ` +
        `${outcome.record.fingerprint}, not ${fingerprint}`,
      { kid, expected: outcome.record.fingerprint, actual: fingerprint },
    );
  }
  return outcome;
}

/**
 * {@linkcode seedBundleAuthority} with the authority's public key PEM instead of its
 * fingerprint (`KEY_INVALID` for a key that is not ECDSA P-256).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { MemoryBundleAuthorityStore } from "jsr:@schemapin/schemapin/bundle";
 * import { seedBundleAuthorityFromPem } from "./authority.ts";
 * const store = new MemoryBundleAuthorityStore();
 * const authority = generateKeyPair(); // in practice: the authority's published public key PEM
 * const outcome = await seedBundleAuthorityFromPem(
 *   store,
 *   "authority-2026",
 *   authority.publicKey.pem,
 * );
 * console.log(outcome.status); // "added"
 * ```
 */
export async function seedBundleAuthorityFromPem(
  store: BundleAuthorityStore,
  kid: string,
  publicKeyPem: string,
  now: Date | number = Date.now(),
): Promise<SeedAuthorityOutcome> {
  checkMethods(
    "seedBundleAuthorityFromPem",
    "store",
    store,
    ["transact"],
    "a BundleAuthorityStore",
  );
  checkArg("seedBundleAuthorityFromPem", "kid", kid, "string");
  checkArg("seedBundleAuthorityFromPem", "publicKeyPem", publicKeyPem, "string");
  const key = parsePublicKeyPem(publicKeyPem, `bundle authority ${kid} public key`);
  return await seedBundleAuthority(store, kid, key.fingerprint, now);
}

/**
 * Removes `kid` from the allow-list; returns whether it was there.
 *
 * @example
 * ```ts
 * import {
 *   MemoryBundleAuthorityStore,
 *   seedBundleAuthority,
 * } from "jsr:@schemapin/schemapin/bundle";
 * import { removeBundleAuthority } from "./authority.ts";
 * const store = new MemoryBundleAuthorityStore();
 * await seedBundleAuthority(store, "authority-2025", "sha256:" + "ab".repeat(32));
 * await removeBundleAuthority(store, "authority-2025"); // true
 * ```
 */
export function removeBundleAuthority(store: BundleAuthorityStore, kid: string): Promise<boolean> {
  checkMethods(
    "removeBundleAuthority",
    "store",
    store,
    ["transact"],
    "a BundleAuthorityStore",
  );
  checkArg("removeBundleAuthority", "kid", kid, "string");
  return store.transact((map) => {
    const had = map.delete(kid);
    return { changed: had, result: had };
  });
}
