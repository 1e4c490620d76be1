/**
 * The lineage store of `--lineage` / `--lineage-store FILE` (verify-schema, verify-skill,
 * guard, lineage): where it is, and how a verifier reports what lineage decided.
 *
 * @module
 */
import { defaultLineageStorePath, LineageStore } from "../pins/lineage.ts";
import type { LineageReport } from "../schema/lineage_verify.ts";
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

/** The `--json` object of a lineage decision (snake_case). */
export function lineageJson(report: LineageReport): Record<string, string> {
  const out: Record<string, string> = { status: report.status };
  if (report.hash !== undefined) out.hash = report.hash;
  if (report.latestHash !== undefined) out.latest_hash = report.latestHash;
  if (report.reason !== undefined) out.reason = report.reason;
  if (report.store !== undefined) out.store = report.store;
  return out;
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
