/**
 * The TOFU key pin store (§7.2, §9, §15.1): which key fingerprint is trusted for each
 * `tool_id@domain`. Two implementations share one interface: {@linkcode MemoryPinStore} for
 * library users and tests, {@linkcode FilePinStore} persisted as JSON (default
 * `$SCHEMAPIN_HOME/pins.json` or `~/.schemapin/pins.json`) with locked, atomic updates.
 *
 * Verification never writes here before a signature has verified (§15.1 step 7); changing a
 * pinned key needs an explicit {@linkcode rotatePin}.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { checkDomain } from "../dns/domain.ts";
import { isJsonObject, ownField } from "../json/object.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import { formatRfc3339, isRfc3339 } from "../time/rfc3339.ts";
import { schemapinHome } from "./json_file.ts";
import { FileKeyedRecords, type KeyedRecordCodec, MemoryKeyedRecords } from "./keyed_records.ts";
import { checkArg, checkMethods } from "../arguments.ts";

/** How a pin came to be. */
export type PinSource = "first_use" | "confirmed" | "seeded" | "rotated" | "imported";

const PIN_SOURCES: readonly PinSource[] = [
  "first_use",
  "confirmed",
  "seeded",
  "rotated",
  "imported",
];

/** One pin. */
export interface PinRecord {
  /** The tool identifier (any non-empty string without control characters). */
  readonly toolId: string;
  /** The validated, lower-case domain (§9). */
  readonly domain: string;
  /** The pinned key's `sha256:` fingerprint (§8.2). */
  readonly fingerprint: string;
  /** When it was pinned, RFC 3339. */
  readonly pinnedAt: string;
  /** How: automatic first use (opted in), confirmed by the user, seeded, rotated, imported. */
  readonly source: PinSource;
  /** The developer name of the discovery document at pin time, informational. */
  readonly developerName?: string;
}

/**
 * Storage of pins. `transact` runs `change` on a consistent snapshot and persists what it
 * did atomically; implementations serialise concurrent transactions (across processes, for
 * files).
 */
export interface PinStore {
  /** The pin for `toolId@domain`, if any. Never writes. */
  get(toolId: string, domain: string): Promise<PinRecord | undefined>;
  /** Every pin, sorted by key. */
  list(): Promise<PinRecord[]>;
  /**
   * Runs `change` on the pins (keyed by {@linkcode pinKey}) under the store's lock; the map
   * is persisted afterwards when `change` returns `{ changed: true }`.
   */
  transact<R>(
    change: (pins: Map<string, PinRecord>) => { changed: boolean; result: R },
  ): Promise<R>;
}

/** The longest accepted tool id, in UTF-16 code units. */
export const MAX_TOOL_ID_LENGTH = 512;

/**
 * Why `toolId` is not usable, or `undefined`. Tool ids are ordinary strings: `constructor`,
 * `__proto__` and ids containing `@` are fine; empty ids, control characters and ids longer
 * than {@linkcode MAX_TOOL_ID_LENGTH} are not.
 *
 * @example
 * ```ts
 * import { checkToolId } from "./store.ts";
 * checkToolId("__proto__"); // undefined
 * checkToolId(""); // "the tool id is empty"
 * ```
 */
export function checkToolId(toolId: unknown): string | undefined {
  if (typeof toolId !== "string") return "the tool id is not a string";
  if (toolId.length === 0) return "the tool id is empty";
  if (toolId.length > MAX_TOOL_ID_LENGTH) {
    return `the tool id is longer than ${MAX_TOOL_ID_LENGTH} characters`;
  }
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f\x7f-\x9f]/.test(toolId)) return "the tool id contains control characters";
  if (/[\ud800-\udfff]/.test(toolId) && !toolId.isWellFormed()) {
    return "the tool id contains a lone surrogate";
  }
  return undefined;
}

/**
 * The store key of a pin: `tool_id@domain`. The domain cannot contain `@`, so the key splits
 * unambiguously at its last `@`.
 *
 * @example
 * ```ts
 * import { pinKey } from "./store.ts";
 * pinKey("constructor", "example.com"); // "constructor@example.com"
 * ```
 */
export function pinKey(toolId: string, domain: string): string {
  checkArg("pinKey", "toolId", toolId, "string");
  checkArg("pinKey", "domain", domain, "string");
  return `${toolId}@${domain}`;
}

/**
 * The domain `target` names when it means every pin of a domain — `*@example.com` or a bare
 * `example.com` — else `undefined` (a `TOOL_ID@DOMAIN`). Such a target is refused where one pin
 * is meant: a tool id `*` would otherwise be looked up literally.
 *
 * @example
 * ```ts
 * import { domainPatternOf } from "./store.ts";
 * domainPatternOf("*@example.com"); // "example.com"
 * domainPatternOf("calculate_sum@example.com"); // undefined
 * ```
 */
export function domainPatternOf(target: string): string | undefined {
  const at = target.lastIndexOf("@");
  if (at >= 0 && target.slice(0, at) !== "*") return undefined;
  return at < 0 ? target : target.slice(at + 1);
}

/**
 * Splits `tool_id@domain` at its last `@` and validates both halves; throws
 * `SchemaPinError` `INPUT_INVALID` otherwise.
 *
 * @example
 * ```ts
 * import { parsePinKey } from "./store.ts";
 * parsePinKey("a@b@example.com"); // { toolId: "a@b", domain: "example.com" }
 * ```
 */
export function parsePinKey(key: string): { toolId: string; domain: string } {
  checkArg("parsePinKey", "key", key, "string");
  const at = key.lastIndexOf("@");
  if (at <= 0) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${JSON.stringify(key)} is not TOOL_ID@DOMAIN`,
    );
  }
  const toolId = key.slice(0, at);
  const tidProblem = checkToolId(toolId);
  if (tidProblem) {
    throw new SchemaPinError("INPUT_INVALID", `${JSON.stringify(key)}: ${tidProblem}`);
  }
  const dc = checkDomain(key.slice(at + 1));
  if (!dc.ok) throw new SchemaPinError("INPUT_INVALID", `${JSON.stringify(key)}: ${dc.reason}`);
  return { toolId, domain: dc.domain };
}

function requireIds(toolId: string, domain: string): string {
  const tidProblem = checkToolId(toolId);
  if (tidProblem) throw new SchemaPinError("INPUT_INVALID", tidProblem);
  const dc = checkDomain(domain);
  if (!dc.ok) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `invalid domain ${JSON.stringify(domain)}: ${dc.reason}`,
    );
  }
  return dc.domain;
}

/**
 * Builds a validated pin record (`pinnedAt` defaults to now).
 *
 * @example
 * ```ts
 * import { makePinRecord } from "./store.ts";
 * makePinRecord({
 *   toolId: "t",
 *   domain: "example.com",
 *   fingerprint: "sha256:" + "0".repeat(64),
 *   source: "seeded",
 * }).domain;
 * ```
 */
export function makePinRecord(fields: {
  toolId: string;
  domain: string;
  fingerprint: string;
  source: PinSource;
  developerName?: string;
  pinnedAt?: string;
}): PinRecord {
  const domain = requireIds(fields.toolId, fields.domain);
  if (!isSha256Ref(fields.fingerprint)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `fingerprint ${JSON.stringify(fields.fingerprint)} ${
        describeBadSha256Ref(fields.fingerprint)
      }`,
    );
  }
  const pinnedAt = fields.pinnedAt ?? formatRfc3339(Date.now());
  if (!isRfc3339(pinnedAt)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `pinned_at ${JSON.stringify(pinnedAt)} is not RFC 3339`,
    );
  }
  const rec: { -readonly [K in keyof PinRecord]: PinRecord[K] } = {
    toolId: fields.toolId,
    domain,
    fingerprint: fields.fingerprint,
    pinnedAt,
    source: fields.source,
  };
  if (fields.developerName !== undefined) rec.developerName = fields.developerName;
  return rec;
}

/**
 * The JSON form of a pin record in a pin file (snake_case fields).
 *
 * @example
 * ```ts ignore
 * pinRecordToJson(record); // { tool_id, domain, fingerprint, pinned_at, source }
 * ```
 */
export function pinRecordToJson(r: PinRecord): Record<string, string> {
  const out: Record<string, string> = {
    tool_id: r.toolId,
    domain: r.domain,
    fingerprint: r.fingerprint,
    pinned_at: r.pinnedAt,
    source: r.source,
  };
  if (r.developerName !== undefined) out.developer_name = r.developerName;
  return out;
}

/**
 * Parses one pin record from its JSON form; throws `SchemaPinError` `INPUT_INVALID` naming
 * `where`.
 *
 * @example
 * ```ts ignore
 * const rec = pinRecordFromJson(entry, "pins.json pins[0]");
 * ```
 */
export function pinRecordFromJson(value: unknown, where: string): PinRecord {
  if (!isJsonObject(value)) throw new SchemaPinError("INPUT_INVALID", `${where} is not an object`);
  const str = (k: string): string => {
    const v = ownField(value, k);
    if (typeof v !== "string") {
      throw new SchemaPinError("INPUT_INVALID", `${where}: "${k}" is missing or not a string`);
    }
    return v;
  };
  const source = str("source");
  if (!(PIN_SOURCES as readonly string[]).includes(source)) {
    throw new SchemaPinError("INPUT_INVALID", `${where}: unknown source ${JSON.stringify(source)}`);
  }
  const dn = ownField(value, "developer_name");
  if (dn !== undefined && typeof dn !== "string") {
    throw new SchemaPinError("INPUT_INVALID", `${where}: "developer_name" is not a string`);
  }
  try {
    const rec = makePinRecord({
      toolId: str("tool_id"),
      domain: str("domain"),
      fingerprint: str("fingerprint"),
      pinnedAt: str("pinned_at"),
      source: source as PinSource,
      developerName: dn as string | undefined,
    });
    if (rec.domain !== str("domain")) {
      throw new SchemaPinError("INPUT_INVALID", "the domain is not in lower case");
    }
    return rec;
  } catch (e) {
    throw new SchemaPinError("INPUT_INVALID", `${where}: ${(e as Error).message}`);
  }
}

/**
 * A pin store held in memory (for library users who persist pins themselves, and tests).
 *
 * @example
 * ```ts
 * import { MemoryPinStore } from "jsr:@schemapin/schemapin/pins";
 * const store = new MemoryPinStore();
 * ```
 */
export class MemoryPinStore implements PinStore {
  readonly #pins: MemoryKeyedRecords<PinRecord>;

  /** Creates a store, optionally with initial records. */
  constructor(records: Iterable<PinRecord> = []) {
    checkArg("MemoryPinStore", "records", records, "iterable");
    this.#pins = new MemoryKeyedRecords(
      Array.from(records, (r) => [pinKey(r.toolId, r.domain), r] as const),
    );
  }

  /** The pin for `toolId@domain`. */
  get(toolId: string, domain: string): Promise<PinRecord | undefined> {
    return this.#pins.get(pinKey(toolId, domain));
  }

  /** Every pin, sorted by key. */
  list(): Promise<PinRecord[]> {
    return this.#pins.list();
  }

  /** Runs `change` on a copy and keeps it when `changed`; transactions run one at a time. */
  transact<R>(
    change: (pins: Map<string, PinRecord>) => { changed: boolean; result: R },
  ): Promise<R> {
    return this.#pins.transact(change);
  }
}

const PIN_FILE_FORMAT = {
  versionField: "schemapin_pins_version",
  version: 1,
  listField: "pins",
  what: "pin store",
} as const;

const PIN_CODEC: KeyedRecordCodec<PinRecord> = {
  fromJson: pinRecordFromJson,
  toJson: pinRecordToJson,
  key: (r) => pinKey(r.toolId, r.domain),
  duplicate: (key) => `${JSON.stringify(key)} is pinned twice`,
};

/**
 * The default pin file: `$SCHEMAPIN_HOME/pins.json`, else `~/.schemapin/pins.json`.
 *
 * @example
 * ```ts
 * import { defaultPinStorePath } from "./store.ts";
 * console.log(defaultPinStorePath()); // "/home/me/.schemapin/pins.json"
 * ```
 */
export function defaultPinStorePath(): string {
  return `${schemapinHome()}/pins.json`;
}

/**
 * A pin store persisted as a JSON file:
 *
 * ```json
 * { "schemapin_pins_version": 1,
 *   "pins": [ { "tool_id": "calc", "domain": "example.com", "fingerprint": "sha256:…",
 *               "pinned_at": "2026-05-01T10:00:00Z", "source": "first_use" } ] }
 * ```
 *
 * Reads take no lock (files are replaced atomically); transactions hold `<file>.lock`. A file
 * that is not a schemapin pin store (corrupt, or another tool's format) is an error and is
 * never overwritten. Duplicate `tool_id@domain` entries make the file invalid.
 *
 * @example
 * ```ts
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * const store = new FilePinStore("./pins.json"); // default: ~/.schemapin/pins.json
 * const pin = await store.get("calc", "example.com");
 * console.log(pin?.fingerprint, pin?.source, (await store.list()).length);
 * ```
 */
export class FilePinStore implements PinStore {
  readonly #pins: FileKeyedRecords<PinRecord>;

  /** A store at `path` (default {@linkcode defaultPinStorePath}). */
  constructor(path: string = defaultPinStorePath()) {
    this.#pins = new FileKeyedRecords(path, PIN_FILE_FORMAT, PIN_CODEC);
  }

  /** The file's path. */
  get path(): string {
    return this.#pins.path;
  }

  /** The pin for `toolId@domain` (the file is read on every call). */
  get(toolId: string, domain: string): Promise<PinRecord | undefined> {
    return this.#pins.get(pinKey(toolId, domain));
  }

  /** Every pin, sorted by key. */
  list(): Promise<PinRecord[]> {
    return this.#pins.list();
  }

  /** Runs `change` under the file lock and rewrites the file atomically when `changed`. */
  transact<R>(
    change: (pins: Map<string, PinRecord>) => { changed: boolean; result: R },
  ): Promise<R> {
    return this.#pins.transact(change);
  }
}

/** What {@linkcode addPinIfAbsent} found or did. */
export type AddPinOutcome =
  | { readonly status: "added"; readonly record: PinRecord }
  | { readonly status: "exists"; readonly record: PinRecord };

/**
 * Adds `record` unless `tool_id@domain` is already pinned (in which case the existing pin is
 * returned and nothing changes). Used for first-use pinning and seeding; the check and the
 * write happen under one lock, so two racing first uses cannot overwrite each other.
 *
 * @example
 * ```ts
 * import { addPinIfAbsent } from "./store.ts";
 * import { MemoryPinStore } from "jsr:@schemapin/schemapin/pins";
 * const store = new MemoryPinStore();
 * const record = {
 *   toolId: "calc",
 *   domain: "example.com",
 *   fingerprint: "sha256:" + "ab".repeat(32),
 *   pinnedAt: "2026-05-01T10:00:00Z",
 *   source: "seeded" as const,
 * };
 * const outcome = await addPinIfAbsent(store, record);
 * if (outcome.status === "exists" && outcome.record.fingerprint !== record.fingerprint) {
 *   console.error("pinned to another key:", outcome.record.fingerprint);
 * }
 * ```
 */
export function addPinIfAbsent(store: PinStore, record: PinRecord): Promise<AddPinOutcome> {
  checkMethods("addPinIfAbsent", "store", store, ["transact"], "a PinStore");
  checkArg("addPinIfAbsent", "record", record, "object");
  const key = pinKey(record.toolId, record.domain);
  return store.transact<AddPinOutcome>((pins) => {
    const existing = pins.get(key);
    if (existing) return { changed: false, result: { status: "exists", record: existing } };
    pins.set(key, record);
    return { changed: true, result: { status: "added", record } };
  });
}

/**
 * Seeds a fingerprint obtained out of band (§7.2), e.g. from a DNS TXT record. Refuses to
 * replace a different existing pin (`KEY_PIN_MISMATCH`; rotate explicitly instead).
 *
 * @example
 * ```ts
 * import { FilePinStore, seedPin } from "jsr:@schemapin/schemapin/pins";
 * // a fingerprint obtained out of band (a DNS TXT record, the publisher's page)
 * const outcome = await seedPin(
 *   new FilePinStore("./pins.json"),
 *   "calc",
 *   "example.com",
 *   "sha256:" + "ab".repeat(32),
 * );
 * console.log(outcome.status); // "added", or "exists" when the same key was pinned already
 * ```
 */
export async function seedPin(
  store: PinStore,
  toolId: string,
  domain: string,
  fingerprint: string,
  now: Date | number = Date.now(),
): Promise<AddPinOutcome> {
  checkMethods("seedPin", "store", store, ["transact"], "a PinStore");
  const record = makePinRecord({
    toolId,
    domain,
    fingerprint,
    source: "seeded",
    pinnedAt: formatRfc3339(now),
  });
  const outcome = await addPinIfAbsent(store, record);
  if (outcome.status === "exists" && outcome.record.fingerprint !== fingerprint) {
    throw new SchemaPinError(
      "KEY_PIN_MISMATCH",
      `${pinKey(toolId, record.domain)} is already pinned to ${outcome.record.fingerprint}; ` +
        `use rotate to replace it`,
    );
  }
  return outcome;
}

/**
 * Replaces the pin of `toolId@domain` with `fingerprint` — the explicit user consent §9
 * requires for a changed key. Throws `KEY_NOT_FOUND` when nothing is pinned yet. Returns the
 * previous record.
 *
 * @example
 * ```ts
 * import { MemoryPinStore, rotatePin, seedPin } from "jsr:@schemapin/schemapin/pins";
 * const store = new MemoryPinStore();
 * await seedPin(store, "calc", "example.com", "sha256:" + "ab".repeat(32));
 * const previous = await rotatePin(store, "calc", "example.com", "sha256:" + "cd".repeat(32));
 * console.log(previous.fingerprint, (await store.get("calc", "example.com"))?.source); // "rotated"
 * ```
 */
export async function rotatePin(
  store: PinStore,
  toolId: string,
  domain: string,
  fingerprint: string,
  now: Date | number = Date.now(),
): Promise<PinRecord> {
  checkMethods("rotatePin", "store", store, ["transact"], "a PinStore");
  const record = makePinRecord({
    toolId,
    domain,
    fingerprint,
    source: "rotated",
    pinnedAt: formatRfc3339(now),
  });
  const key = pinKey(toolId, record.domain);
  return await store.transact((pins) => {
    const previous = pins.get(key);
    if (!previous) {
      throw new SchemaPinError("KEY_NOT_FOUND", `${key} is not pinned; nothing to rotate`);
    }
    pins.set(
      key,
      previous.developerName === undefined
        ? record
        : { ...record, developerName: previous.developerName },
    );
    return { changed: true, result: previous };
  });
}

/** What {@linkcode rotateDomainPins} did. */
export interface DomainRotation {
  /** The pins moved to the new key, as they were before. */
  readonly rotated: readonly PinRecord[];
  /** The pins of the domain already on the new key (left alone). */
  readonly unchanged: readonly PinRecord[];
}

/**
 * Moves every pin of `domain` to `fingerprint` in one transaction — a publisher's key
 * rotation consented to once for all its tools (§9). All or nothing: throws `KEY_NOT_FOUND`
 * (nothing written) when no tool of the domain is pinned. Pins of other domains are not
 * touched.
 *
 * Matching is exact: a pin moves when its domain is `domain` itself — not a subdomain
 * (`api.example.com`), not a name that merely shares a suffix (`evilexample.com`). Case:
 * `domain` is folded to lower case (DNS names are case-insensitive, §9) and pins hold
 * lower-case domains ({@linkcode makePinRecord} folds them, a pin file with any other spelling
 * is refused), so `Example.COM` and `example.com` name the same pins.
 *
 * @example
 * ```ts
 * import { MemoryPinStore, seedPin } from "jsr:@schemapin/schemapin/pins";
 * import { rotateDomainPins } from "./store.ts";
 * const store = new MemoryPinStore();
 * await seedPin(store, "calc", "example.com", "sha256:" + "ab".repeat(32));
 * await seedPin(store, "sum", "example.com", "sha256:" + "ab".repeat(32));
 * const { rotated } = await rotateDomainPins(store, "example.com", "sha256:" + "cd".repeat(32));
 * console.log(rotated.length); // 2
 * ```
 */
export async function rotateDomainPins(
  store: PinStore,
  domain: string,
  fingerprint: string,
  now: Date | number = Date.now(),
): Promise<DomainRotation> {
  checkMethods("rotateDomainPins", "store", store, ["transact"], "a PinStore");
  const dc = checkDomain(domain);
  if (!dc.ok) throw new SchemaPinError("INPUT_INVALID", `invalid domain: ${dc.reason}`);
  if (!isSha256Ref(fingerprint)) {
    throw new SchemaPinError("INPUT_INVALID", "the fingerprint is not sha256: and 64 hex digits");
  }
  const pinnedAt = formatRfc3339(now);
  return await store.transact((pins) => {
    const rotated: PinRecord[] = [];
    const unchanged: PinRecord[] = [];
    for (const [key, pin] of [...pins.entries()]) {
      if (pin.domain !== dc.domain) continue;
      if (pin.fingerprint === fingerprint) {
        unchanged.push(pin);
        continue;
      }
      rotated.push(pin);
      const record: PinRecord = {
        toolId: pin.toolId,
        domain: pin.domain,
        fingerprint,
        pinnedAt,
        source: "rotated",
      };
      pins.set(
        key,
        pin.developerName === undefined ? record : { ...record, developerName: pin.developerName },
      );
    }
    if (rotated.length + unchanged.length === 0) {
      throw new SchemaPinError(
        "KEY_NOT_FOUND",
        `no tool of ${dc.domain} is pinned; nothing to rotate`,
      );
    }
    return { changed: rotated.length > 0, result: { rotated, unchanged } };
  });
}

/**
 * Removes the pin of `toolId@domain`; returns whether there was one.
 *
 * @example
 * ```ts
 * import { MemoryPinStore, removePin, seedPin } from "jsr:@schemapin/schemapin/pins";
 * const store = new MemoryPinStore();
 * await seedPin(store, "calc", "example.com", "sha256:" + "ab".repeat(32));
 * await removePin(store, "calc", "example.com"); // true
 * ```
 */
export function removePin(store: PinStore, toolId: string, domain: string): Promise<boolean> {
  checkMethods("removePin", "store", store, ["transact"], "a PinStore");
  const key = pinKey(toolId, requireIds(toolId, domain));
  return store.transact((pins) => {
    const had = pins.delete(key);
    return { changed: had, result: had };
  });
}
