/**
 * Key pinning (SchemaPin §7.2, §15.1 step 4): the trust-on-first-use pin store keyed
 * `toolId@domain` — in memory or in a JSON file shared safely between processes (locked,
 * written atomically) — and its management (seed, rotate, remove). Beside the pinned key,
 * what is pinned about the versions (§18): {@linkcode verifyChain}, the chain check of two
 * signatures (§18.3), and {@linkcode LineageStore}, the latest known hash of each
 * `toolId@domain` that a new release must extend (§18.4, `checkAndAdvance`).
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
  type AddPinOutcome,
  FilePinStore,
  MemoryPinStore,
  type PinRecord,
  type PinSource,
  type PinStore,
  removePin,
  rotatePin,
  seedPin,
} from "./lib/pins/store.ts";

// Version binding (§18): the chain check of two verified signatures (§18.3) and the
// verifier's lineage store, pinned alongside the key (§18.4)
export { type ChainCheck, type LineageSignature, verifyChain } from "./lib/pins/chain.ts";
export {
  type LineageOutcome,
  type LineageRecord,
  type LineageRequest,
  LineageStore,
  type LineageStoreOptions,
} from "./lib/pins/lineage.ts";
