/**
 * The rest of the model-visible surface of an MCP server — prompts, resources, resource
 * templates and the server `instructions` — as contract objects and digests, the extension of
 * contractpin.lock v1 specified in docs/contractpin-surface.md. Tool contracts, tool digests
 * and the v1 server digest (contractpin spec §2–§4.3) are untouched; every digest here is the
 * same §4 construction ({@linkcode digestJson}: SHA-256 over contractpin-canonical-json/1).
 *
 * Pure: no I/O. The guard and `contract init/verify/approve` use the same functions.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { isJsonObject, type JsonObject, type JsonValue } from "../json/types.ts";
import { checkArg } from "../arguments.ts";
import { digestJson, digestMembers, lazyFields } from "./digest.ts";

/** The list kinds of the surface, named as their lock members (docs/contractpin-surface.md §3). */
export type SurfaceKind = "prompts" | "resources" | "resource_templates";

/** Every list kind, in the order reports show them. */
export const SURFACE_KINDS: readonly SurfaceKind[] = ["prompts", "resources", "resource_templates"];

/**
 * What a change is about, in reports and `contract approve`: a tool (contractpin spec §6), an
 * item of one surface kind, or the server instructions.
 */
export type ItemKind =
  | "tool"
  | "prompt"
  | "resource"
  | "resource_template"
  | "instructions"
  | "skill";

/** How one surface kind is projected (docs/contractpin-surface.md §2). */
export interface SurfaceSpec {
  /** The lock member (`prompts`, `resources`, `resource_templates`). */
  readonly kind: SurfaceKind;
  /** The singular item kind of reports. */
  readonly item: ItemKind;
  /** The MCP list method the items come from. */
  readonly method: string;
  /** The member of a served item that keys it (`name`, `uri`, `uriTemplate`). */
  readonly key: string;
  /** Always in the contract: the served value, or JSON null when absent. */
  readonly required: readonly string[];
  /** In the contract if and only if served with a value that is not null. */
  readonly optional: readonly string[];
}

/**
 * The projection rules of each surface kind (docs/contractpin-surface.md §2).
 *
 * @example
 * ```ts
 * import { SURFACE_SPECS } from "./surface.ts";
 * console.log(SURFACE_SPECS.resources.required); // ["uri", "name", "description"]
 * ```
 */
export const SURFACE_SPECS: Readonly<Record<SurfaceKind, SurfaceSpec>> = {
  prompts: {
    kind: "prompts",
    item: "prompt",
    method: "prompts/list",
    key: "name",
    required: ["name", "description", "arguments"],
    optional: [],
  },
  resources: {
    kind: "resources",
    item: "resource",
    method: "resources/list",
    key: "uri",
    required: ["uri", "name", "description"],
    optional: ["mimeType"],
  },
  resource_templates: {
    kind: "resource_templates",
    item: "resource_template",
    method: "resources/templates/list",
    key: "uriTemplate",
    required: ["uriTemplate", "name", "description"],
    optional: ["mimeType"],
  },
};

/** The surface kind of an item kind (`prompt` → `prompts`); undefined for tools/instructions. */
export function surfaceKindOf(item: ItemKind): SurfaceKind | undefined {
  return SURFACE_KINDS.find((k) => SURFACE_SPECS[k].item === item);
}

function checkKind(fn: string, kind: unknown): SurfaceKind {
  if (typeof kind !== "string" || !(SURFACE_KINDS as readonly string[]).includes(kind)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${fn}: kind must be one of ${SURFACE_KINDS.join(", ")} (got ${JSON.stringify(kind)})`,
      { kind: String(kind) },
    );
  }
  return kind as SurfaceKind;
}

function own(o: JsonObject, key: string): JsonValue | undefined {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/**
 * The contract object of one served prompt, resource or resource template
 * (docs/contractpin-surface.md §2, the same rules as contractpin spec §2): the required
 * members as served or JSON null when absent, the optional ones iff served and not null,
 * everything else (`title`, `icons`, `_meta`, `annotations`, `size` …) ignored. Values are
 * pinned as served — `arguments` is not checked to be an array, nothing is reordered.
 *
 * @param where names the item in messages (`prompts[3]`)
 * @throws {SchemaPinError} `INPUT_INVALID` when the item is not an object or its key member
 * (`name`, `uri`, `uriTemplate`) is not a non-empty string
 *
 * @example
 * ```ts
 * import { projectSurfaceItem } from "./surface.ts";
 * projectSurfaceItem("resources", { uri: "file:///a", name: "a", title: "A", mimeType: null });
 * // { uri: "file:///a", name: "a", description: null }
 * ```
 */
export function projectSurfaceItem(
  kind: SurfaceKind,
  item: JsonValue,
  where: string = kind,
): JsonObject {
  const spec = SURFACE_SPECS[checkKind("projectSurfaceItem", kind)];
  checkArg("projectSurfaceItem", "where", where, "string");
  if (!isJsonObject(item)) {
    throw new SchemaPinError("INPUT_INVALID", `${where} is not a JSON object`, {
      kind,
      where,
    });
  }
  const key = own(item, spec.key);
  if (typeof key !== "string" || key === "") {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${where} has no non-empty string "${spec.key}" (got ${
        key === undefined ? "nothing" : typeof key === "string" ? "an empty string" : typeof key
      }); a ${spec.method} item is keyed by its ${spec.key}`,
      { kind, where, key: spec.key },
    );
  }
  const contract: JsonObject = {};
  for (const field of spec.required) contract[field] = own(item, field) ?? null;
  for (const field of spec.optional) {
    const value = own(item, field);
    if (value !== undefined && value !== null) contract[field] = value;
  }
  return contract;
}

/** One item of a digested surface list. */
export interface DigestedSurfaceItem {
  /** The item's key: a prompt's `name`, a resource's `uri`, a template's `uriTemplate`. */
  readonly key: string;
  /** The item digest: §4.1's construction over the item's contract object. */
  readonly digest: string;
  /** Field digests (§4.2), keyed by contract member (computed when first read). */
  readonly fields: Record<string, string>;
  /** The contract object (docs/contractpin-surface.md §2). */
  readonly contract: JsonObject;
  /** The item as served (for the hidden-text lint). */
  readonly raw: JsonObject;
}

/** A whole served list of one surface kind, digested. */
export interface DigestedSurfaceList {
  /** Which kind. */
  readonly kind: SurfaceKind;
  /** Items by key, in the order served. */
  readonly items: ReadonlyMap<string, DigestedSurfaceItem>;
  /** The kind digest: the §4 digest of `{key: item digest, …}` (like the server digest §4.3). */
  readonly digest: string;
}

/**
 * The kind digest of item digests: `digestJson({key: digest, …})` (docs/contractpin-surface.md
 * §3, the construction of contractpin spec §4.3).
 *
 * @example
 * ```ts
 * import { surfaceKindDigest } from "./surface.ts";
 * surfaceKindDigest(new Map()).length; // 71
 * ```
 */
export function surfaceKindDigest(itemDigests: ReadonlyMap<string, string>): string {
  checkArg("surfaceKindDigest", "itemDigests", itemDigests, "map");
  // A null-prototype object: an item keyed "__proto__" is an ordinary member.
  const map: Record<string, string> = Object.create(null);
  for (const [key, digest] of itemDigests) map[key] = digest;
  return digestJson(map);
}

/**
 * Projects and digests every item of one complete list (all pages concatenated) — the function
 * the guard and the lock share (docs/contractpin-surface.md §3).
 *
 * @param kind `prompts`, `resources` or `resource_templates`
 * @param items the concatenated `prompts` / `resources` / `resourceTemplates` arrays
 * @param source names the list in messages (a file, a server)
 * @throws {SchemaPinError} `INPUT_INVALID`, naming the kind, the index and the key, for an item
 * that is not an object, has no non-empty string key, or repeats a key (malformed: fail rather
 * than pick one, like §4.4)
 *
 * @example
 * ```ts
 * import { digestSurfaceList } from "./surface.ts";
 * const list = digestSurfaceList("prompts", [{ name: "review", description: "Review code." }]);
 * console.log(list.items.get("review")?.digest, list.digest);
 * ```
 */
export function digestSurfaceList(
  kind: SurfaceKind,
  items: readonly JsonValue[],
  source?: string,
): DigestedSurfaceList {
  checkKind("digestSurfaceList", kind);
  checkArg("digestSurfaceList", "items", items, "array");
  if (source !== undefined) checkArg("digestSurfaceList", "source", source, "string");
  const spec = SURFACE_SPECS[kind];
  const prefix = source === undefined ? "" : `${source}: `;
  const out = new Map<string, DigestedSurfaceItem>();
  const firstIndex = new Map<string, number>();
  const digests = new Map<string, string>();
  items.forEach((item, i) => {
    const contract = projectSurfaceItem(kind, item, `${prefix}${kind}[${i}]`);
    const key = contract[spec.key] as string;
    if (out.has(key)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${prefix}${kind}[${i}]: duplicate ${spec.key} ${JSON.stringify(key)} (also ${kind}[${
          firstIndex.get(key)
        }]); a ${spec.method} result with two items of the same ${spec.key} is malformed`,
        { kind, index: i, key },
      );
    }
    const { digest, members } = digestMembers(contract);
    out.set(
      key,
      lazyFields<DigestedSurfaceItem>({ key, digest, contract, raw: item as JsonObject }, members),
    );
    firstIndex.set(key, i);
    digests.set(key, digest);
  });
  return { kind, items: out, digest: surfaceKindDigest(digests) };
}

/**
 * The instructions digest (docs/contractpin-surface.md §3): the §4 digest of the instructions
 * as a JSON string, or of JSON `null` when the server serves none.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when `text` is neither a string nor null
 *
 * @example
 * ```ts
 * import { instructionsDigest } from "./surface.ts";
 * instructionsDigest(null) !== instructionsDigest(""); // true: none is not empty
 * ```
 */
export function instructionsDigest(text: string | null): string {
  if (text !== null && typeof text !== "string") {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `instructionsDigest: instructions must be a string or null (got ${typeof text})`,
    );
  }
  return digestJson(text);
}

/** The protocol a lock entry was pinned with (docs/contractpin-surface.md §4). */
export interface PinnedProtocol {
  /** `modern` (2026-07-28, `server/discover`) or `legacy` (the `initialize` handshake). */
  readonly era: "modern" | "legacy";
  /** The protocol version the server answered. */
  readonly version: string;
}

/** Everything of the surface a listing enumerated, digested; absent members were not. */
export interface DigestedSurface {
  /** From `listing.era` and `listing.protocolVersion` when both are present. */
  readonly protocol?: PinnedProtocol;
  /** The instructions and their digest, when the listing carries them (null = none served). */
  readonly instructions?: { readonly text: string | null; readonly digest: string };
  /** Prompts, when enumerated. */
  readonly prompts?: DigestedSurfaceList;
  /** Resources, when enumerated. */
  readonly resources?: DigestedSurfaceList;
  /** Resource templates, when enumerated. */
  readonly resource_templates?: DigestedSurfaceList;
}

/** The members of a listing this module reads (a `ToolListing` has them all). */
export interface SurfaceListing {
  /** The protocol era (live listings after issue 24). */
  readonly era?: "modern" | "legacy";
  /** The protocol version answered. */
  readonly protocolVersion?: string;
  /** Server instructions; null = none served; undefined = not known. */
  readonly instructions?: string | null;
  /** prompts/list, all pages; undefined = not enumerated. */
  readonly prompts?: JsonValue[];
  /** resources/list, all pages. */
  readonly resources?: JsonValue[];
  /** resources/templates/list, all pages. */
  readonly resourceTemplates?: JsonValue[];
}

/** The listing member of each kind. */
export const LISTING_MEMBER: Readonly<Record<SurfaceKind, keyof SurfaceListing>> = {
  prompts: "prompts",
  resources: "resources",
  resource_templates: "resourceTemplates",
};

/**
 * Digests every part of the surface a listing enumerated (docs/contractpin-surface.md §3–§4).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a malformed list (see
 * {@linkcode digestSurfaceList}) or instructions that are neither a string nor null
 *
 * @example
 * ```ts
 * import { digestSurface } from "./surface.ts";
 * const s = digestSurface({ instructions: null, prompts: [{ name: "p" }] });
 * console.log(s.prompts?.items.size, s.resources); // 1 undefined
 * ```
 */
export function digestSurface(listing: SurfaceListing, source?: string): DigestedSurface {
  checkArg("digestSurface", "listing", listing, "object");
  const out: {
    -readonly [K in keyof DigestedSurface]: DigestedSurface[K];
  } = {};
  if (
    (listing.era === "modern" || listing.era === "legacy") &&
    typeof listing.protocolVersion === "string" && listing.protocolVersion !== ""
  ) {
    out.protocol = { era: listing.era, version: listing.protocolVersion };
  }
  if (listing.instructions !== undefined) {
    const text = listing.instructions;
    if (text !== null && typeof text !== "string") {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${source ? source + ": " : ""}instructions must be a string or null (got ${typeof text})`,
        { kind: "instructions" },
      );
    }
    out.instructions = { text, digest: instructionsDigest(text) };
  }
  for (const kind of SURFACE_KINDS) {
    const items = listing[LISTING_MEMBER[kind]];
    if (items === undefined) continue;
    if (!Array.isArray(items)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${source ? source + ": " : ""}${kind} must be an array`,
        { kind },
      );
    }
    out[kind] = digestSurfaceList(kind, items, source);
  }
  return out;
}

/**
 * How reports name one item: a tool by its name, the others prefixed with their kind
 * (`prompt review`, `resource file:///a`, `resource template t/{x}`, `instructions`).
 *
 * @example
 * ```ts
 * import { itemLabel } from "./surface.ts";
 * itemLabel("resource_template", "t/{x}"); // "resource template t/{x}"
 * ```
 */
export function itemLabel(kind: ItemKind | undefined, key: string): string {
  switch (kind) {
    case undefined:
    case "tool":
      return key;
    case "instructions":
      return "instructions";
    case "resource_template":
      return `resource template ${key}`;
    default:
      return `${kind} ${key}`;
  }
}
