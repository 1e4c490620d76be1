/**
 * Verification (contractpin spec §6): classify every tool of a live server against the lock —
 * removed, added, drifted (with the changed fields of §4.2), unchanged — and decide whether the
 * server passes. Pure: the live list comes in already enumerated and digested.
 *
 * @module
 */
import type { JsonValue } from "../json/types.ts";
import { isJsonObject } from "./contract.ts";
import { type DigestedToolList, digestJson } from "./digest.ts";
import {
  type LockServer,
  type LockSurface,
  recomputeServerDigest,
  type ServerIdentity,
} from "./lock.ts";
import {
  type DigestedSurface,
  type ItemKind,
  itemLabel,
  SURFACE_KINDS,
  SURFACE_SPECS,
  type SurfaceKind,
} from "./surface.ts";
import { unifiedDiff } from "./diff.ts";
import {
  contractDiff,
  type ContractSnapshot,
  renderContract,
  snapshotContractFor,
} from "./snapshot.ts";
import { checkArg } from "../arguments.ts";

/** A tool whose contract digest changed. */
export interface DriftedTool {
  /** Tool name. */
  readonly name: string;
  /** Digest in the lock. */
  readonly locked: string;
  /** Digest served now. */
  readonly live: string;
  /**
   * Contract members whose field digests differ (§4.2), sorted; `null` when the lock has no
   * field digests for this tool.
   */
  readonly changedFields: string[] | null;
}

/** The §6 classification of one server's tools. */
export interface ToolComparison {
  /** In the lock, not live. */
  readonly removed: string[];
  /** Live, not in the lock. */
  readonly added: string[];
  /** In both, digests differ. */
  readonly drifted: DriftedTool[];
  /** In both, digests equal. */
  readonly unchanged: string[];
}

/**
 * Classifies tools by name (§6 step 3). Names are listed in sorted order.
 *
 * @example
 * ```ts
 * import { compareTools } from "./verify.ts";
 * import { digestToolList, parseLock } from "jsr:@schemapin/schemapin/contractpin";
 * import { readToolsDump } from "../mcp/file.ts";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const live = digestToolList((await readToolsDump("tools.json")).tools);
 * const { added, removed, drifted } = compareTools(lock.servers["files"], live);
 * for (const tool of drifted) console.log(tool.name, tool.changedFields); // e.g. ["description"]
 * console.log(added, removed);
 * ```
 */
export function compareTools(locked: LockServer, live: DigestedToolList): ToolComparison {
  checkArg("compareTools", "locked", locked, "object");
  checkArg("compareTools", "locked.tools", locked.tools, "object");
  checkArg("compareTools", "live", live, "object");
  checkArg("compareTools", "live.tools", live.tools, "map");
  return compareDigests(locked.tools, live.tools);
}

/**
 * The §6 step 3 classification of any pinned entries against live ones, by key: tools, and
 * the prompts, resources and resource templates of docs/contractpin-surface.md §6.
 *
 * @example
 * ```ts
 * import { compareDigests } from "./verify.ts";
 * const d = "sha256:" + "0".repeat(64);
 * compareDigests({ a: { digest: d } }, new Map()).removed; // ["a"]
 * ```
 */
export function compareDigests(
  pinnedEntries: Readonly<Record<string, { digest: string; fields?: Record<string, string> }>>,
  liveEntries: ReadonlyMap<string, { digest: string; fields: Record<string, string> }>,
): ToolComparison {
  checkArg("compareDigests", "pinnedEntries", pinnedEntries, "object");
  checkArg("compareDigests", "liveEntries", liveEntries, "map");
  const removed: string[] = [], added: string[] = [], unchanged: string[] = [];
  const drifted: DriftedTool[] = [];
  const lockedNames = Object.keys(pinnedEntries).sort();
  for (const name of lockedNames) {
    const pinned = pinnedEntries[name];
    const now = liveEntries.get(name);
    if (!now) {
      removed.push(name);
    } else if (now.digest === pinned.digest) {
      unchanged.push(name);
    } else {
      let changedFields: string[] | null = null;
      if (pinned.fields) {
        const keys = new Set([...Object.keys(pinned.fields), ...Object.keys(now.fields)]);
        changedFields = [...keys].filter((k) => pinned.fields![k] !== now.fields[k]).sort();
      }
      drifted.push({ name, locked: pinned.digest, live: now.digest, changedFields });
    }
  }
  for (const name of [...liveEntries.keys()].sort()) {
    if (!Object.hasOwn(pinnedEntries, name)) added.push(name);
  }
  return { removed, added, drifted, unchanged };
}

/** An informational note: never changes a digest or an exit code. */
export interface Notice {
  /** What kind of note. */
  readonly kind:
    | "title_changed"
    | "meta_changed"
    | "meta_long_text"
    | "snapshot_unavailable"
    | "listing"
    | "added_allowed"
    | "protocol_changed";
  /** The tool it is about, if any. */
  readonly tool?: string;
  /** Human text. */
  readonly message: string;
}

/** `_meta` strings at least this long are reported: a client might show them to the model. */
export const LONG_META_TEXT = 200;

function longStrings(value: JsonValue, path: string, out: { path: string; length: number }[]) {
  if (typeof value === "string") {
    if (value.length >= LONG_META_TEXT) out.push({ path, length: value.length });
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => longStrings(v, `${path}/${i}`, out));
  } else if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) longStrings(v, `${path}/${k}`, out);
  }
}

/**
 * Notices for tools whose `_meta` carries long text (not in the contract, so not pinned, but a
 * client might still put it in front of the model).
 *
 * @example
 * ```ts
 * import { digestToolList } from "./digest.ts";
 * import { metaTextNotices } from "./verify.ts";
 * metaTextNotices(digestToolList([{ name: "a", _meta: { note: "x".repeat(300) } }])).length; // 1
 * ```
 */
export function metaTextNotices(live: DigestedToolList): Notice[] {
  checkArg("metaTextNotices", "live", live, "object");
  checkArg("metaTextNotices", "live.tools", live.tools, "map");
  const notices: Notice[] = [];
  for (const tool of live.tools.values()) {
    if (!Object.hasOwn(tool.raw, "_meta")) continue;
    const found: { path: string; length: number }[] = [];
    longStrings(tool.raw._meta, "_meta", found);
    for (const f of found) {
      notices.push({
        kind: "meta_long_text",
        tool: tool.name,
        message: `${tool.name}: ${f.path} holds ${f.length} characters of text that is not part ` +
          `of the pinned contract but a client might show the model`,
      });
    }
  }
  return notices;
}

/**
 * Notices for unchanged-contract tools whose `title` or `_meta` changed since the snapshot
 * (neither is part of the contract, §2, so neither is drift).
 *
 * @example
 * ```ts
 * import { displayNotices } from "./verify.ts";
 * displayNotices(undefined, "srv", { tools: new Map(), digest: "" }); // []
 * ```
 */
export function displayNotices(
  snapshot: ContractSnapshot | undefined,
  server: string,
  live: DigestedToolList,
): Notice[] {
  checkArg("displayNotices", "snapshot", snapshot, "object", true);
  checkArg("displayNotices", "server", server, "string");
  checkArg("displayNotices", "live", live, "object");
  checkArg("displayNotices", "live.tools", live.tools, "map");
  const notices: Notice[] = [];
  for (const tool of live.tools.values()) {
    const pinned = snapshotContractFor(snapshot, server, tool.name, tool.digest);
    if (!pinned) continue;
    const title = Object.hasOwn(tool.raw, "title") ? tool.raw.title : undefined;
    if (JSON.stringify(title) !== JSON.stringify(pinned.title)) {
      notices.push({
        kind: "title_changed",
        tool: tool.name,
        message: `${tool.name}: title changed from ${JSON.stringify(pinned.title ?? null)} to ` +
          `${JSON.stringify(title ?? null)} (display only, not drift)`,
      });
    }
    const meta = Object.hasOwn(tool.raw, "_meta") ? digestJson(tool.raw._meta) : undefined;
    if (meta !== pinned.meta_digest) {
      notices.push({
        kind: "meta_changed",
        tool: tool.name,
        message: `${tool.name}: _meta changed (not part of the contract, not drift)`,
      });
    }
  }
  return notices;
}

/** A readable diff for one changed tool. */
export interface ToolDiff {
  /** Tool name; for another kind, the item key (docs/contractpin-surface.md §6). */
  readonly tool: string;
  /** What `tool` names; absent for a tool. */
  readonly kind?: ItemKind;
  /** Why it differs. */
  readonly change: "drifted" | "added" | "removed";
  /** Unified diff text (empty when the snapshot has no usable entry). */
  readonly text: string;
}

/**
 * Unified diffs for drifted, added and removed tools. The pinned side comes from the snapshot
 * (trusted only where it still matches the lock); an added tool is shown whole.
 *
 * @example
 * ```ts
 * import { digestToolList } from "./digest.ts";
 * import { toolDiffs } from "./verify.ts";
 * const c = { removed: [], added: ["a"], drifted: [], unchanged: [] };
 * toolDiffs(c, undefined, "srv", digestToolList([{ name: "a" }]))[0].change; // "added"
 * ```
 */
export function toolDiffs(
  comparison: ToolComparison,
  snapshot: ContractSnapshot | undefined,
  server: string,
  live: DigestedToolList,
): ToolDiff[] {
  const out: ToolDiff[] = [];
  for (const d of comparison.drifted) {
    const pinned = snapshotContractFor(snapshot, server, d.name, d.locked);
    out.push({
      tool: d.name,
      change: "drifted",
      text: pinned
        ? contractDiff(server, d.name, pinned.contract, live.tools.get(d.name)!.contract)
        : "",
    });
  }
  for (const name of comparison.added) {
    out.push({
      tool: name,
      change: "added",
      text: contractDiff(server, name, undefined, live.tools.get(name)!.contract),
    });
  }
  return out;
}

/**
 * Removed tools' diffs (needs the lock digest to trust the snapshot entry).
 *
 * @example
 * ```ts
 * import { removedDiffs } from "./verify.ts";
 * removedDiffs([], undefined, "srv", {
 *   transport: "file",
 *   path: "x",
 *   tool_count: 0,
 *   digest: "",
 *   tools: {},
 * });
 * ```
 */
export function removedDiffs(
  removed: readonly string[],
  snapshot: ContractSnapshot | undefined,
  server: string,
  locked: LockServer,
): ToolDiff[] {
  return removed.map((name) => {
    const pinned = snapshotContractFor(snapshot, server, name, locked.tools[name].digest);
    return {
      tool: name,
      change: "removed" as const,
      text: pinned ? contractDiff(server, name, pinned.contract, undefined) : "",
    };
  });
}

/**
 * Whether the lock entry's own server digest agrees with its tool digests (false after a hand
 * edit of one but not the other).
 *
 * @example
 * ```ts
 * import { digestToolList } from "./digest.ts";
 * import { lockServerEntry } from "./lock.ts";
 * import { lockIsConsistent } from "./verify.ts";
 * lockIsConsistent(lockServerEntry({ transport: "file", path: "x" }, digestToolList([]))); // true
 * ```
 */
export function lockIsConsistent(locked: LockServer): boolean {
  return recomputeServerDigest(locked) === locked.digest;
}

/**
 * True when two identities name the same server (same transport and command/env names/cwd,
 * URL or path). `env` values are compared as written (references compare by name).
 *
 * @example
 * ```ts
 * import { sameIdentity } from "./verify.ts";
 * sameIdentity({ transport: "http", url: "https://a/mcp" }, {
 *   transport: "http",
 *   url: "https://b/mcp",
 * }); // false
 * ```
 */
export function sameIdentity(a: ServerIdentity, b: ServerIdentity): boolean {
  checkArg("sameIdentity", "a", a, "object");
  checkArg("sameIdentity", "b", b, "object");
  if (a.transport !== b.transport) return false;
  if (a.transport === "stdio" && b.transport === "stdio") {
    return JSON.stringify(a.command) === JSON.stringify(b.command) &&
      (a.cwd ?? null) === (b.cwd ?? null) &&
      JSON.stringify(Object.entries(a.env ?? {}).sort()) ===
        JSON.stringify(Object.entries(b.env ?? {}).sort());
  }
  if (a.transport === "http" && b.transport === "http") return a.url === b.url;
  if (a.transport === "file" && b.transport === "file") return a.path === b.path;
  return false;
}

/**
 * Whether a compared server passes (§6): nothing removed or drifted, nothing added unless
 * `allowNew`, and a lock entry whose server digest agrees with its tools.
 *
 * @example
 * ```ts
 * import { serverPasses } from "./verify.ts";
 * serverPasses({ removed: [], added: ["x"], drifted: [], unchanged: [] }, true, true); // true
 * ```
 */
export function serverPasses(
  comparison: ToolComparison,
  allowNew: boolean,
  lockConsistent: boolean,
): boolean {
  checkArg("serverPasses", "comparison", comparison, "object");
  checkArg("serverPasses", "allowNew", allowNew, "boolean");
  checkArg("serverPasses", "lockConsistent", lockConsistent, "boolean");
  return comparison.removed.length === 0 && comparison.drifted.length === 0 &&
    (allowNew || comparison.added.length === 0) && lockConsistent;
}

/** A part of the surface a lock entry may pin or not (docs/contractpin-surface.md §4). */
export type SurfaceMember = SurfaceKind | "instructions";

/** Every {@linkcode SurfaceMember}, in report order. */
export const SURFACE_MEMBERS: readonly SurfaceMember[] = [...SURFACE_KINDS, "instructions"];

/** The §6 classification of the surface of one server (docs/contractpin-surface.md §6). */
export interface SurfaceComparison {
  /** Each kind both pinned and enumerated, classified like tools. */
  readonly kinds: Partial<Record<SurfaceKind, ToolComparison>>;
  /** The instructions, when both pinned and known live. */
  readonly instructions?: { readonly locked: string; readonly live: string };
  /** Enumerated live but not pinned (an older lock): reported, never a failure. */
  readonly unpinned: SurfaceMember[];
  /** Pinned but not enumerated live (e.g. a dump without that member): a failure. */
  readonly unchecked: SurfaceMember[];
}

/**
 * Compares the surface a lock entry pins with a digested live surface
 * (docs/contractpin-surface.md §6): each pinned and enumerated kind is classified by key like
 * tools; instructions drift when their digests differ; a kind the lock does not pin is listed
 * in `unpinned`; a pinned kind the listing did not enumerate in `unchecked`.
 *
 * @example
 * ```ts
 * import { lockSurfaceMembers } from "./lock.ts";
 * import { digestSurface } from "./surface.ts";
 * import { compareSurface } from "./verify.ts";
 * const locked = lockSurfaceMembers(digestSurface({ prompts: [{ name: "p" }] }), "file");
 * const live = digestSurface({ prompts: [{ name: "p", description: "changed" }] });
 * compareSurface(locked, live).kinds.prompts?.drifted[0].changedFields; // ["description"]
 * ```
 */
export function compareSurface(locked: LockSurface, live: DigestedSurface): SurfaceComparison {
  checkArg("compareSurface", "locked", locked, "object");
  checkArg("compareSurface", "live", live, "object");
  const kinds: Partial<Record<SurfaceKind, ToolComparison>> = {};
  const unpinned: SurfaceMember[] = [], unchecked: SurfaceMember[] = [];
  for (const kind of SURFACE_KINDS) {
    const pinned = locked[kind];
    const now = live[kind];
    if (pinned && now) kinds[kind] = compareDigests(pinned.items, now.items);
    else if (pinned) unchecked.push(kind);
    else if (now) unpinned.push(kind);
  }
  let instructions: SurfaceComparison["instructions"];
  if (locked.instructions && live.instructions) {
    instructions = { locked: locked.instructions.digest, live: live.instructions.digest };
  } else if (locked.instructions) unchecked.push("instructions");
  else if (live.instructions) unpinned.push("instructions");
  return { kinds, ...(instructions ? { instructions } : {}), unpinned, unchecked };
}

/**
 * Whether a compared surface passes: nothing removed or drifted in any kind, nothing added
 * unless `allowNew`, instructions unchanged, and every pinned kind checked.
 *
 * @example
 * ```ts
 * import { surfacePasses } from "./verify.ts";
 * surfacePasses({ kinds: {}, unpinned: ["prompts"], unchecked: [] }, false); // true
 * ```
 */
export function surfacePasses(comparison: SurfaceComparison, allowNew: boolean): boolean {
  checkArg("surfacePasses", "comparison", comparison, "object");
  checkArg("surfacePasses", "allowNew", allowNew, "boolean");
  if (comparison.unchecked.length > 0) return false;
  if (comparison.instructions && comparison.instructions.locked !== comparison.instructions.live) {
    return false;
  }
  return Object.values(comparison.kinds).every((c) =>
    c.removed.length === 0 && c.drifted.length === 0 && (allowNew || c.added.length === 0)
  );
}

/**
 * Readable text for the surface changes (docs/contractpin-surface.md §6): the live contract of
 * each added or drifted prompt, resource or resource template, and the live instructions when
 * they drifted. The snapshot keeps tool contracts only, so the pinned side of a surface item is
 * its digest alone and the diff shows the live side whole.
 *
 * @example
 * ```ts
 * import { digestSurface } from "./surface.ts";
 * import { compareSurface, surfaceDiffs } from "./verify.ts";
 * const live = digestSurface({ prompts: [{ name: "p" }] });
 * const c = compareSurface({ prompts: { count: 0, digest: "", items: {} } }, live);
 * surfaceDiffs(c, "srv", live)[0].kind; // "prompt"
 * ```
 */
export function surfaceDiffs(
  comparison: SurfaceComparison,
  server: string,
  live: DigestedSurface,
): ToolDiff[] {
  checkArg("surfaceDiffs", "comparison", comparison, "object");
  checkArg("surfaceDiffs", "server", server, "string");
  checkArg("surfaceDiffs", "live", live, "object");
  const out: ToolDiff[] = [];
  for (const kind of SURFACE_KINDS) {
    const c = comparison.kinds[kind];
    const list = live[kind];
    if (!c || !list) continue;
    const item = SURFACE_SPECS[kind].item;
    const show = (key: string, change: "drifted" | "added") => {
      const label = itemLabel(item, key);
      out.push({
        tool: key,
        kind: item,
        change,
        text: unifiedDiff(
          [],
          renderContract(list.items.get(key)!.contract),
          `locked/${server}/${label}` + (change === "drifted" ? " (pinned as a digest)" : ""),
          `live/${server}/${label}`,
        ),
      });
    };
    for (const d of c.drifted) show(d.name, "drifted");
    for (const key of c.added) show(key, "added");
  }
  const ins = comparison.instructions;
  if (ins && ins.locked !== ins.live && live.instructions) {
    const text = live.instructions.text;
    out.push({
      tool: "instructions",
      kind: "instructions",
      change: "drifted",
      text: unifiedDiff(
        [],
        text === null ? ["(no instructions)"] : text.split("\n"),
        `locked/${server}/instructions (pinned as a digest)`,
        `live/${server}/instructions`,
      ),
    });
  }
  return out;
}
