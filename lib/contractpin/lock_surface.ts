/**
 * The surface members of a lock server entry (docs/contractpin-surface.md §4): the protocol it
 * was pinned with, the instructions, each pinned kind of prompts, resources and resource
 * templates, and the skills (docs/contractpin-skills.md): their types, and how
 * lib/contractpin/lock.ts reads them strictly.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "./contract.ts";
import { DIGEST_PATTERN } from "./digest.ts";
import { parseLockSkills } from "./skills_lock.ts";
import {
  type PinnedProtocol,
  SURFACE_KINDS,
  SURFACE_SPECS,
  type SurfaceKind,
  surfaceKindDigest,
} from "./surface.ts";
import type { LockSkills } from "./skills_lock.ts";
import { checkKeys, digestAt, invalid, ptr, str, stringRecord } from "./lock_fields.ts";
import { LOCK_EDITED, LOCK_INCONSISTENT } from "../option_hints.ts";

/** One pinned prompt, resource or resource template (docs/contractpin-surface.md §4). */
export interface LockSurfaceItem {
  /** Item digest. */
  digest: string;
  /** Advisory field digests (§4.2); optional in the format. */
  fields?: Record<string, string>;
}

/**
 * One pinned surface kind (docs/contractpin-surface.md §4): present with `count` 0 means
 * "pinned as empty"; an absent kind is not pinned at all.
 */
export interface LockSurfaceKind {
  /** Number of items (must equal the size of `items`). */
  count: number;
  /** Kind digest: the §4 digest of `{key: item digest}` (must recompute). */
  digest: string;
  /** Items by key (prompt name, resource URI, URI template). */
  items: Record<string, LockSurfaceItem>;
}

/** The surface members a lock server entry may carry (docs/contractpin-surface.md §4). */
export interface LockSurface {
  /** The protocol era and version pinned with (live servers after issue 24). */
  protocol?: PinnedProtocol;
  /** The instructions digest (of the JSON string, or of null when none were served). */
  instructions?: { digest: string };
  /** Pinned prompts. */
  prompts?: LockSurfaceKind;
  /** Pinned resources. */
  resources?: LockSurfaceKind;
  /** Pinned resource templates. */
  resource_templates?: LockSurfaceKind;
  /** Pinned skills served over MCP (docs/skills-over-mcp.md). */
  skills?: LockSkills;
}

/**
 * The surface members of one server entry (docs/contractpin-surface.md §4), strictly: unknown
 * members refused, `count` equal to the items, the kind digest recomputed from the items.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming the member that is wrong
 *
 * @example
 * ```ts
 * import { parseSurface } from "./lock_surface.ts";
 * import type { LockSurface } from "./lock_surface.ts";
 * const entry: LockSurface = {};
 * parseSurface({ instructions: { digest: "sha256:" + "0".repeat(64) } }, entry, "contractpin.lock", "/servers/a");
 * ```
 */
export function parseSurface(v: JsonObject, entry: LockSurface, source: string, at: string): void {
  if (Object.hasOwn(v, "protocol")) {
    const pat = `${at}/protocol`;
    const p = v.protocol;
    if (!isJsonObject(p)) throw invalid(source, `${pat} must be an object`, pat);
    checkKeys(p, ["era", "version"], source, pat);
    if (p.era !== "modern" && p.era !== "legacy") {
      throw invalid(source, `${pat}/era must be "modern" or "legacy"`, `${pat}/era`);
    }
    const version = str(p, "version", source, pat);
    if (version === "") throw invalid(source, `${pat}/version must not be empty`, `${pat}/version`);
    entry.protocol = { era: p.era, version };
  }
  if (Object.hasOwn(v, "instructions")) {
    const iat = `${at}/instructions`;
    const ins = v.instructions;
    if (!isJsonObject(ins)) throw invalid(source, `${iat} must be an object`, iat);
    checkKeys(ins, ["digest"], source, iat);
    entry.instructions = { digest: digestAt(ins, "digest", source, iat) };
  }
  for (const kind of SURFACE_KINDS) {
    if (Object.hasOwn(v, kind)) entry[kind] = parseSurfaceKind(kind, v[kind], source, at);
  }
  // Skills served over MCP (docs/contractpin-skills.md): read strictly, digests recomputed.
  if (Object.hasOwn(v, "skills")) entry.skills = parseLockSkills(v.skills, source, `${at}/skills`);
}

/** One pinned kind of a server entry: its items, `count` and kind digest, all checked. */
function parseSurfaceKind(
  kind: SurfaceKind,
  v: JsonValue,
  source: string,
  serverAt: string,
): LockSurfaceKind {
  const spec = SURFACE_SPECS[kind];
  const fieldNames = [...spec.required, ...spec.optional];
  const at = `${serverAt}/${kind}`;
  if (!isJsonObject(v)) throw invalid(source, `${at} must be an object`, at);
  checkKeys(v, ["count", "digest", "items"], source, at);
  const itemsValue = v.items;
  if (!isJsonObject(itemsValue)) throw invalid(source, `${at}/items must be an object`, at);
  const items: Record<string, LockSurfaceItem> = Object.create(null);
  for (const [key, item] of Object.entries(itemsValue)) {
    const kat = `${at}/items${ptr(key)}`;
    if (key === "") throw invalid(source, `${kat}: an item key must not be empty`, kat);
    if (!isJsonObject(item)) throw invalid(source, `${kat} must be an object`, kat);
    checkKeys(item, ["digest", "fields"], source, kat);
    const out: LockSurfaceItem = { digest: digestAt(item, "digest", source, kat) };
    if (Object.hasOwn(item, "fields")) {
      const fields = stringRecord(item.fields, source, `${kat}/fields`);
      for (const [f, d] of Object.entries(fields)) {
        if (!fieldNames.includes(f)) {
          throw invalid(
            source,
            `${kat}/fields has unknown ${spec.item} contract field ${JSON.stringify(f)} ` +
              `(allowed: ${fieldNames.join(", ")})`,
            `${kat}/fields`,
          );
        }
        if (!DIGEST_PATTERN.test(d)) throw invalid(source, `${kat}/fields/${f} is not a digest`);
      }
      out.fields = fields;
    }
    items[key] = out;
  }
  const count = v.count;
  const n = Object.keys(items).length;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0) {
    throw invalid(source, `${at}/count must be a non-negative integer`, `${at}/count`);
  }
  if (count !== n) {
    throw invalid(
      source,
      `${at}/count is ${count} but ${n} ${kind} are listed (${LOCK_INCONSISTENT})`,
      `${at}/count`,
    );
  }
  const digest = digestAt(v, "digest", source, at);
  const recomputed = surfaceKindDigest(
    new Map(Object.entries(items).map(([k, i]) => [k, i.digest])),
  );
  if (digest !== recomputed) {
    throw invalid(
      source,
      `${at}/digest does not match its items (expected ${recomputed}; ${LOCK_EDITED})`,
      `${at}/digest`,
    );
  }
  return { count, digest, items };
}
