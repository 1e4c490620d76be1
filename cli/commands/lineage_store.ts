/**
 * The lineage store of `--lineage` / `--lineage-store FILE` (verify-schema, verify-skill,
 * guard, lineage): where it is, and the line a verifier prints about what lineage decided
 * (its `--json` object is `lineageReportJson` of cli/schema/lineage_json.ts).
 *
 * @module
 */
import { defaultLineageStorePath, LineageStore } from "../../lib/pins/lineage.ts";
import type { LineageReport } from "../../lib/schema/lineage_verify.ts";
import type { CliIO } from "./command.ts";

/** The flags naming the lineage store (`--lineage`, `--lineage-store`, `--pin-store`). */
export interface LineageStoreFlags {
  readonly lineage?: boolean;
  readonly "lineage-store"?: string;
  readonly "pin-store"?: string;
}

/**
 * The lineage file the flags name: `--lineage-store FILE`, else `lineage.json` beside the pin
 * store (`--pin-store FILE` or the default one).
 */
export function lineageStorePath(values: LineageStoreFlags): string {
  return values["lineage-store"] ?? defaultLineageStorePath(values["pin-store"]);
}

/**
 * The store `--lineage` or `--lineage-store FILE` asks for (the latter implies the former),
 * or `undefined` when lineage is not enforced.
 */
export function lineageStoreFromFlags(values: LineageStoreFlags): LineageStore | undefined {
  if (values.lineage !== true && values["lineage-store"] === undefined) return undefined;
  return new LineageStore({ path: lineageStorePath(values) });
}

/** One line on stderr saying what lineage did with a valid release (nothing when quiet). */
export async function printLineage(
  report: LineageReport | undefined,
  io: CliIO,
): Promise<void> {
  if (report === undefined || report.status === "rejected") return;
  const text = report.status === "anchored"
    ? `lineage anchored at ${report.hash}`
    : report.status === "unchanged"
    ? `lineage unchanged (${report.hash})`
    : `lineage advanced ${report.latestHash} -> ${report.hash}`;
  await io.stderr(`${text}\n`);
}
