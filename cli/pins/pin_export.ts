/**
 * The pin export of `schemapin pins export` and `schemapin pins import`: the document
 * (`{"schemapin_pins_version": 1, "pins": […]}`, the records in the pin file's JSON form), its
 * parser, and the import of its records into a store in one transaction. The CLI's own file
 * format: the library's pin stores (lib/pins/store.ts) are what it reads and writes.
 *
 * @module
 */
import { checkArg, checkMethods } from "../../lib/arguments.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { isJsonObject, ownField } from "../../lib/json/object.ts";
import {
  pinKey,
  type PinRecord,
  pinRecordFromJson,
  pinRecordToJson,
  type PinStore,
} from "../../lib/pins/store.ts";

/** What {@linkcode importPins} did. */
export interface ImportOutcome {
  /** Keys newly pinned. */
  readonly added: string[];
  /** Keys already pinned to the same fingerprint. */
  readonly unchanged: string[];
  /** Keys pinned to a different fingerprint (replaced only with `overwrite`). */
  readonly conflicts: string[];
  /** Whether the store was written. */
  readonly written: boolean;
}

/**
 * Imports records (e.g. from `pins export`) in one transaction. A conflicting fingerprint
 * aborts the whole import (nothing written) unless `overwrite`, which is a bulk rotation.
 *
 * @example
 * ```ts
 * import { FilePinStore, MemoryPinStore } from "jsr:@schemapin/schemapin/pins";
 * import { importPins } from "./pin_export.ts";
 * const from = new FilePinStore("./team-pins.json");
 * const into = new MemoryPinStore();
 * const outcome = await importPins(into, await from.list()); // all or nothing
 * console.log(outcome);
 * ```
 */
export function importPins(
  store: PinStore,
  records: readonly PinRecord[],
  options: { overwrite?: boolean } = {},
): Promise<ImportOutcome> {
  checkMethods("importPins", "store", store, ["transact"], "a PinStore");
  checkArg("importPins", "records", records, "array");
  checkArg("importPins", "options", options, "object");
  return store.transact((pins) => {
    const added: string[] = [];
    const unchanged: string[] = [];
    const same = new Set<string>();
    const conflicts: string[] = [];
    const seen = new Set<string>();
    for (const r of records) {
      const key = pinKey(r.toolId, r.domain);
      if (seen.has(key)) {
        throw new SchemaPinError("INPUT_INVALID", `the import pins ${key} twice`);
      }
      seen.add(key);
      const existing = pins.get(key);
      if (!existing) added.push(key);
      else if (existing.fingerprint === r.fingerprint) {
        unchanged.push(key);
        same.add(key);
      } else conflicts.push(key);
    }
    if (conflicts.length > 0 && !options.overwrite) {
      return { changed: false, result: { added, unchanged, conflicts, written: false } };
    }
    for (const r of records) {
      const key = pinKey(r.toolId, r.domain);
      if (!same.has(key)) pins.set(key, { ...r, source: "imported" });
    }
    const changed = added.length + (options.overwrite ? conflicts.length : 0) > 0;
    return { changed, result: { added, unchanged, conflicts, written: changed } };
  });
}

/** `schemapin_pins_version` of a pin export. */
export const PIN_EXPORT_VERSION = 1;

/**
 * A pin export (`schemapin pins export`): `{"schemapin_pins_version": 1, "pins": […]}`, the
 * records in their JSON form, in the order given.
 *
 * @example
 * ```ts ignore
 * JSON.stringify(pinExportDocument(await store.list()));
 * ```
 */
export function pinExportDocument(
  records: readonly PinRecord[],
): { schemapin_pins_version: number; pins: Record<string, string>[] } {
  return { schemapin_pins_version: PIN_EXPORT_VERSION, pins: records.map(pinRecordToJson) };
}

/**
 * The records of a pin export read from `source` (for {@linkcode importPins}); throws
 * `SchemaPinError` `INPUT_INVALID` naming `source` (and the record) for anything else, with
 * `details.path` (default `source`).
 *
 * @example
 * ```ts ignore
 * const records = parsePinExport(parseJson(await Deno.readFile("pins-export.json")), "pins-export.json");
 * ```
 */
export function parsePinExport(value: unknown, source: string, path = source): PinRecord[] {
  const details = { path };
  if (!isJsonObject(value) || ownField(value, "schemapin_pins_version") !== PIN_EXPORT_VERSION) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${source} is not a schemapin pin export ("schemapin_pins_version": 1)`,
      details,
    );
  }
  const list = ownField(value, "pins");
  if (!Array.isArray(list)) {
    throw new SchemaPinError("INPUT_INVALID", `${source}: "pins" must be an array`, details);
  }
  return list.map((r, i) => pinRecordFromJson(r, `${source}: pins[${i}]`));
}
