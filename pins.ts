/**
 * Key pinning (SchemaPin §7.2, §15.1 step 4) and version lineage (§18): the trust-on-first-use
 * pin store keyed `toolId@domain` — in memory or in a JSON file shared safely between
 * processes (locked, written atomically) — its management (seed, rotate, remove, import), and
 * the opt-in chain of `previous_hash` across signed versions.
 *
 * The verifiers (`verifySchemaOffline`, `verifySkillOffline`, …) take a {@linkcode PinStore}
 * and write a pin only after everything else verified.
 *
 * @example Seed a pin from a fingerprint obtained out of band, then list the store
 * ```ts
 * import { FilePinStore, seedPin } from "jsr:@schemapin/schemapin/pins";
 *
 * const store = new FilePinStore("./pins.json");
 * const outcome = await seedPin(store, "add", "example.com", "sha256:" + "ab".repeat(32));
 * console.log(outcome.status, (await store.list()).length);
 * ```
 *
 * @module
 */

export {
  addPinIfAbsent,
  type AddPinOutcome,
  defaultPinStorePath,
  FilePinStore,
  type ImportOutcome,
  importPins,
  MemoryPinStore,
  parsePinKey,
  pinKey,
  type PinRecord,
  type PinSource,
  type PinStore,
  removePin,
  rotatePin,
  seedPin,
} from "./lib/pins/store.ts";
export {
  type ChainCheck,
  compareVersions,
  defaultLineageStorePath,
  type LineageOutcome,
  type LineageRecord,
  type LineageSignature,
  LineageStore,
  type LineageStoreOptions,
  verifyChain,
} from "./lib/pins/lineage.ts";
