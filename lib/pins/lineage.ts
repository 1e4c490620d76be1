/**
 * The verifier's lineage store (§18.4): the persisted `LineageStore` that tracks the latest
 * known hash of each `tool_id@domain` and decides whether a new release extends it, and
 * `LineageBatch`, its snapshot for a batch of verifications. The chain check of two signatures
 * (§18.3) it builds on is lib/pins/chain.ts.
 *
 * It works on already-verified signature documents: schema signature documents carry
 * `schema_hash`, skill signature documents `skill_hash`; either is "the hash" here.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { checkDomain } from "../dns/domain.ts";
import { isJsonObject, ownField } from "../json/object.ts";
import { isSha256Ref } from "../crypto/fingerprint.ts";
import { formatRfc3339, isRfc3339 } from "../time/rfc3339.ts";
import { FileKeyedRecords, type KeyedRecordCodec, MemoryKeyedRecords } from "./keyed_records.ts";
import { checkToolId, defaultPinStorePath, pinKey } from "./store.ts";
import {
  compareVersions,
  isLineageCapable,
  type LineageSignature,
  signatureHash,
} from "./chain.ts";
import { checkArg } from "../arguments.ts";

/** One tool's lineage. */
export interface LineageRecord {
  /** Tool id. */
  readonly toolId: string;
  /** Validated domain. */
  readonly domain: string;
  /** The latest accepted hash. */
  readonly latestHash: string;
  /** The latest accepted `schema_version`, when the signature had one. */
  readonly schemaVersion?: string;
  /** Earlier accepted hashes, newest first (at most 64). */
  readonly history: readonly string[];
  /** When the record last changed, RFC 3339. */
  readonly updatedAt: string;
}

/** How many superseded hashes a lineage record remembers (to tell rollbacks from forks). */
export const LINEAGE_HISTORY_MAX = 64;

/** What {@linkcode LineageStore.checkAndAdvance} decided. */
export type LineageOutcome =
  | { readonly status: "anchored"; readonly hash: string }
  | { readonly status: "unchanged"; readonly hash: string }
  | { readonly status: "advanced"; readonly from: string; readonly to: string }
  | {
    readonly status: "rejected";
    /**
     * `legacy` (below 1.4, never an anchor), `missing_previous_hash`, `rollback` (a hash
     * this lineage has already moved past), `fork` (a previous_hash naming an unknown hash),
     * `version_not_increasing`, `version_unparseable`.
     */
    readonly reason:
      | "legacy"
      | "missing_previous_hash"
      | "rollback"
      | "fork"
      | "version_not_increasing"
      | "version_unparseable";
    readonly message: string;
    /** The latest known hash, when there is one. */
    readonly latestHash?: string;
  };

const LINEAGE_FILE_FORMAT = {
  versionField: "schemapin_lineage_version",
  version: 1,
  listField: "lineage",
  what: "lineage store",
} as const;

/**
 * A lineage record as the store file and `schemapin lineage … --json` write it (snake_case:
 * `tool_id`, `domain`, `latest_hash`, `schema_version` when known, `history`, `updated_at`).
 *
 * @example
 * ```ts
 * import { lineageRecordToJson } from "./lineage.ts";
 * lineageRecordToJson({
 *   toolId: "calc",
 *   domain: "example.com",
 *   latestHash: "sha256:" + "a".repeat(64),
 *   history: [],
 *   updatedAt: "2026-12-01T00:00:00Z",
 * }).latest_hash; // "sha256:aaa…"
 * ```
 */
export function lineageRecordToJson(r: LineageRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    tool_id: r.toolId,
    domain: r.domain,
    latest_hash: r.latestHash,
  };
  if (r.schemaVersion !== undefined) out.schema_version = r.schemaVersion;
  out.history = [...r.history];
  out.updated_at = r.updatedAt;
  return out;
}

function recordFromJson(value: unknown, where: string): LineageRecord {
  const bad = (m: string) => new SchemaPinError("INPUT_INVALID", `${where}: ${m}`);
  if (!isJsonObject(value)) throw bad("not an object");
  const toolId = ownField(value, "tool_id");
  const tidProblem = checkToolId(toolId);
  if (tidProblem) throw bad(tidProblem);
  const domain = ownField(value, "domain");
  const dc = checkDomain(domain);
  if (!dc.ok || dc.domain !== domain) throw bad("domain is missing or invalid");
  const latest = ownField(value, "latest_hash");
  if (!isSha256Ref(latest)) throw bad("latest_hash is missing or malformed");
  const sv = ownField(value, "schema_version");
  if (sv !== undefined && typeof sv !== "string") throw bad("schema_version is not a string");
  const history = ownField(value, "history");
  if (!Array.isArray(history) || !history.every(isSha256Ref)) {
    throw bad("history must be an array of sha256: hashes");
  }
  const updatedAt = ownField(value, "updated_at");
  if (!isRfc3339(updatedAt)) throw bad("updated_at is missing or not RFC 3339");
  const rec: LineageRecord = {
    toolId: toolId as string,
    domain: dc.domain,
    latestHash: latest,
    history: history as string[],
    updatedAt,
  };
  return sv === undefined ? rec : { ...rec, schemaVersion: sv as string };
}

const LINEAGE_CODEC: KeyedRecordCodec<LineageRecord> = {
  fromJson: recordFromJson,
  toJson: lineageRecordToJson,
  key: (r) => pinKey(r.toolId, r.domain),
  duplicate: (key) => `${key} twice`,
};

/** Where a {@linkcode LineageStore} keeps its records. */
export interface LineageStoreOptions {
  /** A JSON file (default `$SCHEMAPIN_HOME/lineage.json` or `~/.schemapin/lineage.json`). */
  path?: string;
  /** Keep records in memory only (ignores `path`). */
  memory?: boolean;
}

/**
 * The default lineage file: `lineage.json` in the folder of the pin store `pinStore` (default
 * `defaultPinStorePath()`, so `$SCHEMAPIN_HOME/lineage.json`, else
 * `~/.schemapin/lineage.json`).
 *
 * @example
 * ```ts
 * import { defaultLineageStorePath } from "./lineage.ts";
 * console.log(defaultLineageStorePath()); // "/home/me/.schemapin/lineage.json"
 * defaultLineageStorePath("state/pins.json"); // "state/lineage.json"
 * ```
 */
export function defaultLineageStorePath(pinStore: string = defaultPinStorePath()): string {
  checkArg("defaultLineageStorePath", "pinStore", pinStore, "string");
  const i = pinStore.lastIndexOf("/");
  const dir = i < 0 ? "." : i === 0 ? "/" : pinStore.slice(0, i);
  return `${dir === "/" ? "" : dir}/lineage.json`;
}

/** The refusal of a document below 1.4 (§4b, §18.4), or `undefined` for a 1.4 document. */
function legacyOutcome(signature: LineageSignature): LineageOutcome | undefined {
  if (
    typeof signature.schemapin_version === "string" &&
    isLineageCapable(signature.schemapin_version)
  ) return undefined;
  return {
    status: "rejected",
    reason: "legacy",
    message: `schemapin_version ${
      JSON.stringify(signature.schemapin_version)
    } is below 1.4: its hashes are not covered by its signature, so it cannot anchor or extend a lineage (§4b, §18.4)`,
  };
}

/**
 * The §18.4 decision for a 1.4 signature whose hash is `hash`, given the record held now:
 * the outcome and the record to store (none when nothing changes).
 */
function decideLineage(
  current: LineageRecord | undefined,
  key: string,
  signature: LineageSignature,
  hash: string,
  stamp: string,
): { outcome: LineageOutcome; record?: LineageRecord } {
  const [toolId, domain] = [
    key.slice(0, key.lastIndexOf("@")),
    key.slice(key.lastIndexOf("@") + 1),
  ];
  const next = (history: readonly string[]): LineageRecord => {
    const r: LineageRecord = {
      toolId,
      domain,
      latestHash: hash,
      history: history.slice(0, LINEAGE_HISTORY_MAX),
      updatedAt: stamp,
    };
    return signature.schema_version === undefined
      ? r
      : { ...r, schemaVersion: signature.schema_version };
  };
  if (!current) return { outcome: { status: "anchored", hash }, record: next([]) };
  const reject = (
    reason: Extract<LineageOutcome, { status: "rejected" }>["reason"],
    message: string,
  ) => ({
    outcome: { status: "rejected", reason, message, latestHash: current.latestHash } as const,
  });
  if (hash === current.latestHash) return { outcome: { status: "unchanged", hash } };
  const prev = signature.previous_hash;
  // An older hash that does not claim to extend the latest is a rollback (a missing
  // previous_hash never names the latest, which is always a sha256: hash).
  if (prev !== current.latestHash && current.history.includes(hash)) {
    return reject(
      "rollback",
      `${hash} is an older version of ${key}; the latest is ${current.latestHash}`,
    );
  }
  if (prev === undefined || prev === "") {
    return reject(
      "missing_previous_hash",
      `the signature for ${key} (${hash}) has no previous_hash; the latest known hash is ${current.latestHash}`,
    );
  }
  if (prev !== current.latestHash) {
    return reject(
      "fork",
      `${hash} is a fork of ${key}: its previous_hash ${prev} does not name the latest known hash ${current.latestHash}`,
    );
  }
  if (current.schemaVersion !== undefined && signature.schema_version !== undefined) {
    const cmp = compareVersions(signature.schema_version, current.schemaVersion);
    if (cmp === undefined) {
      return reject(
        "version_unparseable",
        `cannot compare schema_version ${
          JSON.stringify(signature.schema_version)
        } of ${hash} with ${
          JSON.stringify(current.schemaVersion)
        } of the latest known hash ${current.latestHash} numerically (major.minor.patch)`,
      );
    }
    if (cmp <= 0) {
      return reject(
        "version_not_increasing",
        `schema_version ${signature.schema_version} of ${hash} is not higher than ${current.schemaVersion} of the latest known hash ${current.latestHash}`,
      );
    }
  }
  return {
    outcome: { status: "advanced", from: current.latestHash, to: hash },
    record: next([current.latestHash, ...current.history]),
  };
}

/**
 * The store key and the signature's hash a decision is about, after checking the tool id and
 * the domain (`INPUT_INVALID`); or at once the outcome of a legacy document, which never
 * anchors or changes the store.
 */
function lineageSubject(
  toolId: string,
  domain: string,
  signature: LineageSignature,
): { key: string; hash: string } | { outcome: LineageOutcome } {
  const tidProblem = checkToolId(toolId);
  if (tidProblem) throw new SchemaPinError("INPUT_INVALID", tidProblem);
  const dc = checkDomain(domain);
  if (!dc.ok) throw new SchemaPinError("INPUT_INVALID", `invalid domain: ${dc.reason}`);
  const legacy = legacyOutcome(signature);
  if (legacy) return { outcome: legacy };
  return { key: pinKey(toolId, dc.domain), hash: signatureHash(signature) };
}

/**
 * Decides `subject` against the records in `map` and stores the new record there, if any (a
 * legacy subject's outcome is returned as it is).
 */
function decideIn(
  map: Map<string, LineageRecord>,
  subject: ReturnType<typeof lineageSubject>,
  signature: LineageSignature,
  stamp: string,
): { outcome: LineageOutcome; record?: LineageRecord } {
  if ("outcome" in subject) return { outcome: subject.outcome };
  const decision = decideLineage(map.get(subject.key), subject.key, signature, subject.hash, stamp);
  if (decision.record !== undefined) map.set(subject.key, decision.record);
  return decision;
}

/** The decision for `signature` against the record `lookup` finds; writes nothing. */
async function decideReadOnly(
  lookup: (key: string) => Promise<LineageRecord | undefined>,
  toolId: string,
  domain: string,
  signature: LineageSignature,
): Promise<LineageOutcome> {
  const subject = lineageSubject(toolId, domain, signature);
  if ("outcome" in subject) return subject.outcome;
  const { key, hash } = subject;
  return decideLineage(await lookup(key), key, signature, hash, "").outcome;
}

/** One signature to decide in {@linkcode LineageStore.checkAndAdvanceMany}. */
export interface LineageRequest {
  /** Tool id. */
  readonly toolId: string;
  /** The tool's domain. */
  readonly domain: string;
  /** The verified signature document. */
  readonly signature: LineageSignature;
}

/**
 * Per-tool lineage (§18.4), keyed by `tool_id@domain`, persisted as JSON with the same
 * locked, atomic writes as the pin store (or kept in memory).
 *
 * The spec's `check_and_advance(tool_id, domain, signature)` is
 * {@linkcode LineageStore.checkAndAdvance} `(toolId, domain, signature)`; call it with a
 * signature document only after it verified.
 *
 * @example Anchor on release 1, advance to release 2, refuse a fork
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { signSchemaDocument } from "jsr:@schemapin/schemapin/schema";
 * import { LineageStore } from "jsr:@schemapin/schemapin/pins";
 *
 * const key = generateKeyPair();
 * const first = signSchemaDocument({ name: "calc", description: "v1" }, key, {
 *   schemaVersion: "1.0.0",
 * });
 * const second = signSchemaDocument({ name: "calc", description: "v2" }, key, {
 *   schemaVersion: "1.1.0",
 *   previousHash: first.schema_hash,
 * });
 * const fork = signSchemaDocument({ name: "calc", description: "evil" }, key, {
 *   schemaVersion: "9.0.0",
 * });
 * // Each document verified with verifySchemaOffline first; memory: true for a test,
 * // a path (default ~/.schemapin/lineage.json) to keep the lineage between runs.
 * const lineage = new LineageStore({ memory: true });
 * console.log((await lineage.checkAndAdvance("calc", "example.com", first)).status); // anchored
 * console.log((await lineage.checkAndAdvance("calc", "example.com", second)).status); // advanced
 * const refused = await lineage.checkAndAdvance("calc", "example.com", fork);
 * if (refused.status === "rejected") console.log(refused.reason); // missing_previous_hash
 * ```
 */
export class LineageStore {
  readonly #records: FileKeyedRecords<LineageRecord> | MemoryKeyedRecords<LineageRecord>;

  /** Creates a store (file-backed unless `memory`). */
  constructor(options: LineageStoreOptions = {}) {
    checkArg("LineageStore", "options", options, "object");
    this.#records = options.memory ? new MemoryKeyedRecords() : new FileKeyedRecords(
      options.path ?? defaultLineageStorePath(),
      LINEAGE_FILE_FORMAT,
      LINEAGE_CODEC,
    );
  }

  /** The file path, or `undefined` for an in-memory store. */
  get path(): string | undefined {
    return this.#records instanceof FileKeyedRecords ? this.#records.path : undefined;
  }

  /** The lineage of `toolId@domain`, if any. */
  async get(toolId: string, domain: string): Promise<LineageRecord | undefined> {
    return await this.#records.get(pinKey(toolId, domain));
  }

  /** Every lineage record, sorted by key. */
  async list(): Promise<LineageRecord[]> {
    return await this.#records.list();
  }

  /**
   * §18.4: given an already-verified signature document for `toolId@domain`:
   * no record yet → anchor on it; same hash as the latest → unchanged; `previous_hash` equal
   * to the latest and (when both carry one) a numerically higher `schema_version` → advance;
   * anything else is rejected (fork or rollback). Documents below 1.4 are refused as anchors
   * and never change the store.
   */
  async checkAndAdvance(
    toolId: string,
    domain: string,
    signature: LineageSignature,
    now: Date | number = Date.now(),
  ): Promise<LineageOutcome> {
    return (await this.checkAndAdvanceMany([{ toolId, domain, signature }], now))[0];
  }

  /**
   * {@linkcode checkAndAdvance} for several signatures in one transaction (one lock, at most
   * one rewrite of the file): each is decided in order against the store as the ones before it
   * left it, so the same tool twice is anchored, then unchanged or advanced. The outcomes are
   * in the order of `requests`. A batch of verifications commits its advances this way instead
   * of rewriting the whole file once per schema.
   *
   * @example
   * ```ts
   * import { generateKeyPair } from "jsr:@schemapin/schemapin";
   * import { signSchemaDocument } from "jsr:@schemapin/schemapin/schema";
   * import { LineageStore } from "jsr:@schemapin/schemapin/pins";
   *
   * const key = generateKeyPair();
   * const v1 = signSchemaDocument({ name: "calc" }, key, { schemaVersion: "1.0.0" });
   * const v2 = signSchemaDocument({ name: "calc", description: "2" }, key, {
   *   schemaVersion: "2.0.0",
   *   previousHash: v1.schema_hash,
   * });
   * const store = new LineageStore({ path: "lineage.json" });
   * const [first, second] = await store.checkAndAdvanceMany([
   *   { toolId: "calc", domain: "example.com", signature: v1 },
   *   { toolId: "calc", domain: "example.com", signature: v2 },
   * ]);
   * console.log(first.status, second.status); // anchored advanced
   * ```
   */
  async checkAndAdvanceMany(
    requests: readonly LineageRequest[],
    now: Date | number = Date.now(),
  ): Promise<LineageOutcome[]> {
    checkArg("checkAndAdvanceMany", "requests", requests, "array");
    const subjects = requests.map((r) => lineageSubject(r.toolId, r.domain, r.signature));
    if (subjects.every((s) => "outcome" in s)) {
      return subjects.map((s) => (s as { outcome: LineageOutcome }).outcome);
    }
    const stamp = formatRfc3339(now);
    return await this.#records.transact<LineageOutcome[]>((map) => {
      let changed = false;
      const outcomes = subjects.map((subject, i) => {
        const { outcome, record } = decideIn(map, subject, requests[i].signature, stamp);
        if (record !== undefined) changed = true;
        return outcome;
      });
      return { changed, result: outcomes };
    });
  }

  /**
   * What {@linkcode checkAndAdvance} would decide for `signature` now, without writing: a
   * pre-check before anything else is written (the verifiers run it before a first-use pin,
   * then {@linkcode checkAndAdvance} after the verification succeeded, which decides again
   * under the store's lock).
   */
  async check(
    toolId: string,
    domain: string,
    signature: LineageSignature,
  ): Promise<LineageOutcome> {
    return await decideReadOnly((key) => this.#records.get(key), toolId, domain, signature);
  }

  /**
   * Operator override after inspection (like a TOFU rotation): make `signature` the latest
   * version of `toolId@domain` regardless of the chain. Still refuses documents below 1.4.
   */
  async override(
    toolId: string,
    domain: string,
    signature: LineageSignature,
    now: Date | number = Date.now(),
  ): Promise<LineageRecord> {
    const dc = checkDomain(domain);
    if (!dc.ok) throw new SchemaPinError("INPUT_INVALID", `invalid domain: ${dc.reason}`);
    const tidProblem = checkToolId(toolId);
    if (tidProblem) throw new SchemaPinError("INPUT_INVALID", tidProblem);
    if (!isLineageCapable(String(signature.schemapin_version))) {
      throw new SchemaPinError("INPUT_INVALID", "a document below 1.4 cannot anchor a lineage");
    }
    const hash = signatureHash(signature);
    const key = pinKey(toolId, dc.domain);
    return await this.#records.transact((map) => {
      const current = map.get(key);
      const history = current ? [current.latestHash, ...current.history] : [];
      const r: LineageRecord = {
        toolId,
        domain: dc.domain,
        latestHash: hash,
        history: history.filter((h) => h !== hash).slice(0, LINEAGE_HISTORY_MAX),
        updatedAt: formatRfc3339(now),
      };
      const rec = signature.schema_version === undefined
        ? r
        : { ...r, schemaVersion: signature.schema_version };
      map.set(key, rec);
      return { changed: true, result: rec };
    });
  }

  /**
   * Forgets the lineage of `toolId@domain` (`lineage reset`, the operator's override after
   * inspection: the next verified release anchors it anew); returns the record it had, read in
   * the same transaction, or `undefined` when there was none.
   */
  async remove(toolId: string, domain: string): Promise<LineageRecord | undefined> {
    const dc = checkDomain(domain);
    if (!dc.ok) throw new SchemaPinError("INPUT_INVALID", `invalid domain: ${dc.reason}`);
    const key = pinKey(toolId, dc.domain);
    return await this.#records.transact((map) => {
      const had = map.get(key);
      map.delete(key);
      return { changed: had !== undefined, result: had };
    });
  }
}

/**
 * Lineage for a batch of verifications (`verify-schema --batch --lineage`, one page of the
 * guard's tools): the store is read once, {@linkcode check} and {@linkcode checkAndAdvance}
 * answer from that snapshot (an advance changes only the snapshot, so later items of the batch
 * see it), and {@linkcode commit} writes the advances of the verifications that passed in one
 * transaction of the store, deciding each again under its lock
 * ({@linkcode LineageStore.checkAndAdvanceMany}): a release another verifier moved the
 * lineage past meanwhile is refused then, as {@linkcode LineageStore.checkAndAdvance} would.
 * Without it every schema of a batch rewrote the whole file (quadratic: 4,000 schemas took
 * 39 s). Use it from one caller at a time.
 *
 * @example
 * ```ts ignore
 * const batch = new LineageBatch(new LineageStore({ path: "lineage.json" }));
 * await batch.check("calc", "example.com", v1); // { status: "anchored", … }: nothing written
 * await batch.checkAndAdvance("calc", "example.com", v1); // the snapshot only
 * const [outcome] = await batch.commit([{ toolId: "calc", domain: "example.com", signature: v1 }]);
 * ```
 */
export class LineageBatch {
  readonly #store: LineageStore;
  #view: Map<string, LineageRecord> | undefined;

  /** Wraps `store`; nothing is read until the first use. */
  constructor(store: LineageStore) {
    checkArg("LineageBatch", "store", store, "object");
    this.#store = store;
  }

  /** The store's file, or `undefined` for an in-memory store. */
  get path(): string | undefined {
    return this.#store.path;
  }

  async #load(): Promise<Map<string, LineageRecord>> {
    if (this.#view !== undefined) return this.#view;
    const view = new Map<string, LineageRecord>();
    for (const r of await this.#store.list()) view.set(pinKey(r.toolId, r.domain), r);
    this.#view = view;
    return view;
  }

  /** What the store would decide for `signature`, as this batch sees it; writes nothing. */
  async check(
    toolId: string,
    domain: string,
    signature: LineageSignature,
  ): Promise<LineageOutcome> {
    return await decideReadOnly(
      async (key) => (await this.#load()).get(key),
      toolId,
      domain,
      signature,
    );
  }

  /**
   * The decision for `signature` against this batch's snapshot, which it then updates; the
   * store is written only by {@linkcode commit}, which decides again.
   */
  async checkAndAdvance(
    toolId: string,
    domain: string,
    signature: LineageSignature,
    now: Date | number = Date.now(),
  ): Promise<LineageOutcome> {
    const subject = lineageSubject(toolId, domain, signature);
    const view = await this.#load();
    return decideIn(view, subject, signature, formatRfc3339(now)).outcome;
  }

  /**
   * Decides `requests` again, in order, in one transaction of the store and writes what they
   * change; the snapshot is read again at the next use (so changes of other processes are seen
   * from then on, and advances not committed are forgotten).
   */
  async commit(
    requests: readonly LineageRequest[],
    now: Date | number = Date.now(),
  ): Promise<LineageOutcome[]> {
    this.#view = undefined;
    return await this.#store.checkAndAdvanceMany(requests, now);
  }
}
