/**
 * Approving reviewed changes one at a time (issue 17 item 1), the pure core of
 * `schemapin contract approve`: plan the changes of live servers against the lock (the §6
 * classification — drifted, added, removed — with the readable diff and the hidden-text
 * findings of each live tool), pick the ones a person named, and apply exactly those to a lock
 * and its snapshot. Every other entry keeps its digest byte for byte; each touched server gets
 * its `tool_count` and server digest (§4.3) recomputed from its resulting entries.
 *
 * No I/O here: cli/contractpin/approve_lock.ts enumerates the servers and writes, and
 * cli/commands/contract_approve.ts asks. No public entry point reaches it, so it is the CLI's
 * (ARCHITECTURE.md, "Two faces, one codebase"); the facts it returns are put in words in
 * approve_text.ts.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import type { DigestedTool, DigestedToolList } from "../../lib/contractpin/digest.ts";
import { digestJson } from "../../lib/contractpin/digest.ts";
import { findHiddenText, type HiddenTextFinding } from "../../lib/contractpin/hidden_text.ts";
import {
  type ContractLock,
  formatGeneratedAt,
  type LockServer,
  type LockTool,
  recomputeServerDigest,
} from "../../lib/contractpin/lock.ts";
import type { ServerReport } from "../../lib/contractpin/report.ts";
import {
  type ContractSnapshot,
  snapshotServer,
  type SnapshotTool,
} from "../../lib/contractpin/snapshot.ts";
import {
  compareSurface,
  compareTools,
  removedDiffs,
  surfaceDiffs,
  toolDiffs,
} from "../../lib/contractpin/verify.ts";
import {
  type DigestedSurface,
  type DigestedSurfaceItem,
  type ItemKind,
  itemLabel,
  SURFACE_KINDS,
  SURFACE_SPECS,
  surfaceKindDigest,
  surfaceKindOf,
} from "../../lib/contractpin/surface.ts";
import { approvableSkillChanges } from "../../lib/contractpin/skills_verify.ts";

/** The three kinds of change §6 classifies. */
export type ChangeKind = "drifted" | "added" | "removed";

/** One change of one tool on one server, as a reviewer sees it. */
export interface PlannedChange {
  /** Server name in the lock. */
  readonly server: string;
  /** Tool name. */
  readonly tool: string;
  /** What changed. */
  readonly change: ChangeKind;
  /** The tool digest in the lock (`null` for an added tool). */
  readonly locked: string | null;
  /** The tool digest served now (`null` for a removed tool). */
  readonly live: string | null;
  /** Drifted: the contract members whose field digests differ (§4.2); else `null`. */
  readonly changedFields: string[] | null;
  /**
   * Unified diff (pinned → live). Added tools: the whole new definition. Empty when the
   * snapshot has no trustworthy entry for the pinned side (drifted or removed).
   */
  readonly diff: string;
  /** Hidden text in the live tool definition (added and drifted tools; `[]` for removed). */
  readonly hiddenText: HiddenTextFinding[];
  /** The live tool (added and drifted): what an approval pins. */
  readonly liveTool?: DigestedTool;
  /**
   * What `tool` names (docs/contractpin-surface.md §6): absent or `tool` for a tool, else the
   * item kind, `tool` holding the item key (`instructions` for the instructions).
   */
  readonly kind?: ItemKind;
  /** The live prompt, resource or template (added and drifted): what an approval pins. */
  readonly liveItem?: DigestedSurfaceItem;
}

function kindOf(c: PlannedChange): ItemKind {
  return c.kind ?? "tool";
}

/**
 * Lists every change of the given live servers against the lock, in lock order, each server's
 * drifted tools first, then added, then removed (names sorted within each kind).
 *
 * @param lock the parsed lock
 * @param lives digested live lists by server name (servers absent here are not planned)
 * @param snapshot the snapshot, for readable diffs (entries are trusted only where they still
 * hash to the lock's digest)
 * @throws {SchemaPinError} `INPUT_INVALID` for a live server that is not in the lock
 *
 * @example
 * ```ts
 * import { planApproval } from "./approve_plan.ts";
 * import { digestToolList } from "../../lib/contractpin/digest.ts";
 * import { buildLock, lockServerEntry } from "../../lib/contractpin/lock.ts";
 * const pinned = digestToolList([{ name: "echo", description: "Echo." }]);
 * const lock = buildLock({ srv: lockServerEntry({ transport: "file", path: "t.json" }, pinned) });
 * const live = digestToolList([{ name: "echo", description: "Echo twice." }, { name: "new" }]);
 * const changes = planApproval(lock, new Map([["srv", live]]));
 * console.log(changes.map((c) => `${c.change} ${c.tool}`)); // ["drifted echo", "added new"]
 * ```
 */
export function planApproval(
  lock: ContractLock,
  lives: ReadonlyMap<string, DigestedToolList>,
  snapshot?: ContractSnapshot,
  surfaces?: ReadonlyMap<string, DigestedSurface>,
): PlannedChange[] {
  checkArg("planApproval", "lock", lock, "object");
  checkArg("planApproval", "lock.servers", lock.servers, "object");
  checkArg("planApproval", "lives", lives, "map");
  checkArg("planApproval", "snapshot", snapshot, "object", true);
  checkArg("planApproval", "surfaces", surfaces, "map", true);
  for (const name of lives.keys()) {
    if (!Object.hasOwn(lock.servers, name)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `planApproval: server ${JSON.stringify(name)} is not in the lock`,
        { server: name },
      );
    }
  }
  const out: PlannedChange[] = [];
  for (const [server, locked] of Object.entries(lock.servers)) {
    const live = lives.get(server);
    if (!live) continue;
    const comparison = compareTools(locked, live);
    const diffs = new Map(
      [
        ...toolDiffs(comparison, snapshot, server, live),
        ...removedDiffs(comparison.removed, snapshot, server, locked),
      ].map((d) => [`${d.change}\u0000${d.tool}`, d.text]),
    );
    const diffOf = (change: ChangeKind, tool: string) => diffs.get(`${change}\u0000${tool}`) ?? "";
    for (const d of comparison.drifted) {
      const liveTool = live.tools.get(d.name)!;
      out.push({
        server,
        tool: d.name,
        change: "drifted",
        locked: d.locked,
        live: d.live,
        changedFields: d.changedFields,
        diff: diffOf("drifted", d.name),
        hiddenText: findHiddenText(liveTool.raw),
        liveTool,
      });
    }
    for (const name of comparison.added) {
      const liveTool = live.tools.get(name)!;
      out.push({
        server,
        tool: name,
        change: "added",
        locked: null,
        live: liveTool.digest,
        changedFields: null,
        diff: diffOf("added", name),
        hiddenText: findHiddenText(liveTool.raw),
        liveTool,
      });
    }
    for (const name of comparison.removed) {
      out.push({
        server,
        tool: name,
        change: "removed",
        locked: locked.tools[name].digest,
        live: null,
        changedFields: null,
        diff: diffOf("removed", name),
        hiddenText: [],
      });
    }
    const surface = surfaces?.get(server);
    if (surface) out.push(...planSurface(server, locked, surface));
  }
  return out;
}

/**
 * The changes of the surface a server entry pins (docs/contractpin-surface.md §6), per kind in
 * the order of {@linkcode SURFACE_KINDS}: drifted, added, removed; then the instructions.
 */
function planSurface(server: string, locked: LockServer, live: DigestedSurface): PlannedChange[] {
  const out: PlannedChange[] = [];
  const comparison = compareSurface(locked, live);
  const diffs = new Map(
    surfaceDiffs(comparison, server, live).map((d) => [`${d.kind}\u0000${d.tool}`, d.text]),
  );
  for (const kind of SURFACE_KINDS) {
    const c = comparison.kinds[kind];
    if (!c) continue;
    const item = SURFACE_SPECS[kind].item;
    const items = live[kind]!.items;
    const pinned = locked[kind]!.items;
    for (const d of c.drifted) {
      const liveItem = items.get(d.name)!;
      out.push({
        server,
        tool: d.name,
        kind: item,
        change: "drifted",
        locked: d.locked,
        live: d.live,
        changedFields: d.changedFields,
        diff: diffs.get(`${item}\u0000${d.name}`) ?? "",
        hiddenText: findHiddenText(liveItem.raw),
        liveItem,
      });
    }
    for (const key of c.added) {
      const liveItem = items.get(key)!;
      out.push({
        server,
        tool: key,
        kind: item,
        change: "added",
        locked: null,
        live: liveItem.digest,
        changedFields: null,
        diff: diffs.get(`${item}\u0000${key}`) ?? "",
        hiddenText: findHiddenText(liveItem.raw),
        liveItem,
      });
    }
    for (const key of c.removed) {
      out.push({
        server,
        tool: key,
        kind: item,
        change: "removed",
        locked: pinned[key].digest,
        live: null,
        changedFields: null,
        diff: "",
        hiddenText: [],
      });
    }
  }
  const ins = comparison.instructions;
  if (ins && ins.locked !== ins.live) {
    const text = live.instructions!.text;
    out.push({
      server,
      tool: "instructions",
      kind: "instructions",
      change: "drifted",
      locked: ins.locked,
      live: ins.live,
      changedFields: null,
      diff: diffs.get("instructions\u0000instructions") ?? "",
      hiddenText: text === null ? [] : findHiddenText({ instructions: text }),
    });
  }
  return out;
}

/** Why the names given to {@linkcode matchChanges} pick no changes. */
export type SelectionProblem =
  /** No name at all (nothing is approved implicitly). */
  | { readonly reason: "no_tool" }
  /** `target` names no current change (on `servers`, when given). */
  | { readonly reason: "unknown_tool"; readonly target: ApproveTarget }
  /** `target` changed on several servers, and no server was named. */
  | {
    readonly reason: "ambiguous_tool";
    readonly target: ApproveTarget;
    /** The changes it names, one per server. */
    readonly matches: readonly PlannedChange[];
  };

/** The changes {@linkcode matchChanges} picked, or why the names pick none. */
export type ChangeSelection =
  | { readonly picked: PlannedChange[]; readonly problem?: undefined }
  | { readonly picked?: undefined; readonly problem: SelectionProblem };

/**
 * Picks the changes named by `targets` (limited to `servers` when given): every target must
 * name the item of a current change; one that changed on several servers needs `servers` to
 * say which (every match on those servers is picked). Never picks anything that was not
 * named: no target is a problem, not "all". The first target that picks nothing is the
 * problem returned.
 *
 * @example
 * ```ts
 * import { matchChanges, type PlannedChange } from "./approve_plan.ts";
 * const changes: PlannedChange[] = [
 *   { server: "a", tool: "t", change: "added", locked: null, live: null, changedFields: null,
 *     diff: "", hiddenText: [] },
 * ];
 * matchChanges(changes, [{ kind: "tool", key: "t" }]).picked?.length; // 1
 * matchChanges(changes, []).problem?.reason; // "no_tool"
 * ```
 */
export function matchChanges(
  changes: readonly PlannedChange[],
  targets: readonly ApproveTarget[],
  servers: readonly string[] = [],
): ChangeSelection {
  checkArg("matchChanges", "changes", changes, "array");
  checkArg("matchChanges", "targets", targets, "array");
  checkArg("matchChanges", "servers", servers, "array");
  if (targets.length === 0) return { problem: { reason: "no_tool" } };
  // Indexed by kind and key: thousands of names against thousands of changes stay linear.
  const index = (kind: ItemKind, key: string) =>
    kind === "instructions" ? "instructions" : `${kind}\u0000${key}`;
  const byTarget = new Map<string, PlannedChange[]>();
  const serverSet = new Set(servers);
  for (const c of changes) {
    if (serverSet.size > 0 && !serverSet.has(c.server)) continue;
    const k = index(kindOf(c), c.tool);
    const list = byTarget.get(k);
    if (list) list.push(c);
    else byTarget.set(k, [c]);
  }
  const picked = new Set<PlannedChange>();
  const done = new Set<string>();
  for (const target of targets) {
    const k = index(target.kind, target.key);
    if (done.has(k)) continue;
    done.add(k);
    const matches = byTarget.get(k) ?? [];
    if (matches.length === 0) return { problem: { reason: "unknown_tool", target } };
    if (servers.length === 0 && matches.length > 1) {
      return { problem: { reason: "ambiguous_tool", target, matches } };
    }
    for (const m of matches) picked.add(m);
  }
  return { picked: changes.filter((c) => picked.has(c)) };
}

/** A lock and snapshot after applying approvals. */
export interface ApprovalResult {
  /** The new lock: approved entries changed, touched servers' count and digest recomputed. */
  readonly lock: ContractLock;
  /** The new snapshot (only when one was given): the same tools updated. */
  readonly snapshot: ContractSnapshot | undefined;
  /** The servers whose entries changed. */
  readonly servers: string[];
}

function stale(c: PlannedChange, why: string): SchemaPinError {
  return new SchemaPinError(
    "INPUT_INVALID",
    `cannot approve ${c.change} ${c.server}/${itemLabel(c.kind, c.tool)}: ${why} (plan the ` +
      `changes again)`,
    { server: c.server, tool: c.tool },
  );
}

function nullRecord<T>(from: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = Object.create(null);
  for (const [k, v] of Object.entries(from)) out[k] = v;
  return out;
}

/**
 * Applies approved changes to a lock (and its snapshot): a drifted or added tool gets the live
 * digest and field digests, a removed tool's entry is deleted; each touched server's
 * `tool_count` and server digest (§4.3) are recomputed from its resulting entries, so they
 * equal what `contract init` would write for the same tools. Everything else is kept as it
 * was. `generated_at` becomes `now`. The inputs are not modified.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when a change no longer fits the lock (planned
 * against another lock, approved twice, or a drifted/added change without its live tool)
 *
 * @example
 * ```ts
 * import { applyApproval, planApproval } from "./approve_plan.ts";
 * import { digestToolList } from "../../lib/contractpin/digest.ts";
 * import { buildLock, lockServerEntry } from "../../lib/contractpin/lock.ts";
 * const pinned = digestToolList([{ name: "a" }, { name: "b" }]);
 * const lock = buildLock({ srv: lockServerEntry({ transport: "file", path: "t.json" }, pinned) });
 * const live = digestToolList([{ name: "a", description: "new" }]);
 * const changes = planApproval(lock, new Map([["srv", live]])); // drifted a, removed b
 * const approved = changes.filter((c) => c.tool === "a");
 * const result = applyApproval(lock, undefined, approved);
 * console.log(Object.keys(result.lock.servers.srv.tools)); // ["a", "b"]: b is still pinned
 * ```
 */
export function applyApproval(
  lock: ContractLock,
  snapshot: ContractSnapshot | undefined,
  approved: readonly PlannedChange[],
  now: Date = new Date(),
): ApprovalResult {
  checkArg("applyApproval", "lock", lock, "object");
  checkArg("applyApproval", "lock.servers", lock.servers, "object");
  checkArg("applyApproval", "snapshot", snapshot, "object", true);
  checkArg("applyApproval", "approved", approved, "array");
  checkArg("applyApproval", "now", now, "date");
  const servers: Record<string, LockServer> = nullRecord(lock.servers);
  const snapServers: ContractSnapshot["servers"] | undefined = snapshot
    ? nullRecord(snapshot.servers)
    : undefined;
  const touched: string[] = [];
  const seen = new Set<string>();
  const touchedKinds = new Set<string>();
  for (const c of approved) {
    const key = `${c.server}\u0000${kindOf(c)}\u0000${c.tool}`;
    if (seen.has(key)) throw stale(c, "approved twice");
    seen.add(key);
    if (!Object.hasOwn(lock.servers, c.server)) throw stale(c, "the server is not in the lock");
    if (!touched.includes(c.server)) {
      touched.push(c.server);
      servers[c.server] = {
        ...lock.servers[c.server],
        tools: nullRecord(lock.servers[c.server].tools),
      };
      if (snapServers) {
        const old = Object.hasOwn(snapServers, c.server) ? snapServers[c.server].tools : {};
        // Its skills (docs/contractpin-skills.md) are kept as they were.
        snapServers[c.server] = { ...snapServers[c.server], tools: nullRecord(old) };
      }
    }
    if (kindOf(c) !== "tool") {
      applySurfaceChange(servers[c.server], c, touchedKinds);
      continue;
    }
    const tools = servers[c.server].tools;
    const pinned = Object.hasOwn(tools, c.tool) ? tools[c.tool] : undefined;
    if (c.change === "added" ? pinned !== undefined : pinned?.digest !== c.locked) {
      throw stale(c, "the lock entry is not the one the change was planned against");
    }
    if (c.change === "removed") {
      delete tools[c.tool];
      if (snapServers) delete snapServers[c.server].tools[c.tool];
      continue;
    }
    const live = c.liveTool;
    if (!live || live.name !== c.tool || live.digest !== c.live) {
      throw stale(c, "the live tool definition is missing");
    }
    // Issue 37: what is written is what was reviewed; the digest is recomputed, not trusted.
    if (digestJson(live.contract) !== c.live) throw stale(c, "it changed after the review");
    const entry: LockTool = { digest: live.digest, fields: { ...live.fields } };
    tools[c.tool] = entry;
    if (snapServers) {
      const one = snapshotServer({ tools: new Map([[c.tool, live]]), digest: "" });
      snapServers[c.server].tools[c.tool] = one.tools[c.tool] as SnapshotTool;
    }
  }
  for (const name of touched) {
    const s = servers[name];
    s.tool_count = Object.keys(s.tools).length;
    s.digest = recomputeServerDigest(s); // §4.3, from the resulting entries
    for (const kind of SURFACE_KINDS) {
      const k = s[kind];
      if (!k || !touchedKinds.has(`${name}\u0000${kind}`)) continue;
      // docs/contractpin-surface.md §4: count and kind digest from the resulting items.
      k.count = Object.keys(k.items).length;
      k.digest = surfaceKindDigest(new Map(Object.entries(k.items).map(([n, i]) => [n, i.digest])));
    }
  }
  return {
    lock: { ...lock, generated_at: formatGeneratedAt(now), servers },
    snapshot: snapshot && snapServers ? { ...snapshot, servers: snapServers } : undefined,
    servers: touched,
  };
}

/**
 * Applies one approved prompt, resource, template or instructions change to a (copied) server
 * entry; its kind's items are copied on first touch, count and digest recomputed by the caller.
 */
function applySurfaceChange(
  entry: LockServer,
  c: PlannedChange,
  touchedKinds: Set<string>,
): void {
  if (c.kind === "instructions") {
    if (!entry.instructions || entry.instructions.digest !== c.locked || c.live === null) {
      throw stale(c, "the lock entry is not the one the change was planned against");
    }
    entry.instructions = { digest: c.live };
    return;
  }
  const kind = surfaceKindOf(c.kind!);
  const pinnedKind = kind ? entry[kind] : undefined;
  if (!kind || !pinnedKind) throw stale(c, "the lock does not pin that kind");
  const marker = `${c.server}\u0000${kind}`;
  if (!touchedKinds.has(marker)) {
    touchedKinds.add(marker);
    entry[kind] = { ...pinnedKind, items: nullRecord(pinnedKind.items) };
  }
  const items = entry[kind]!.items;
  const pinned = Object.hasOwn(items, c.tool) ? items[c.tool] : undefined;
  if (c.change === "added" ? pinned !== undefined : pinned?.digest !== c.locked) {
    throw stale(c, "the lock entry is not the one the change was planned against");
  }
  if (c.change === "removed") {
    delete items[c.tool];
    return;
  }
  const live = c.liveItem;
  if (!live || live.key !== c.tool || live.digest !== c.live) {
    throw stale(c, "the live definition is missing");
  }
  if (digestJson(live.contract) !== c.live) throw stale(c, "it changed after the review");
  items[c.tool] = { digest: live.digest, fields: { ...live.fields } };
}

/** Why the changes of a verified server cannot be approved (it stays a failure). */
export type ApprovalRefusal =
  /** It could not be checked. */
  | "unreachable"
  /** It is configured but not pinned. */
  | "unpinned"
  /** Its configured command or URL is not the pinned one. */
  | "identity_changed"
  /** Its lock entry was edited by hand (the server digest does not match its entries). */
  | "lock_inconsistent";

/**
 * Why the changes of a verified server cannot be approved (it stays a failure): it could not
 * be checked, it is configured but not pinned, its configured command or URL is not the
 * pinned one, or its lock entry was edited by hand; `undefined` when they can be.
 *
 * @example
 * ```ts ignore
 * import { approvalRefusal } from "./approve_plan.ts";
 * for (const s of report.servers) console.log(s.name, approvalRefusal(s) ?? "ok");
 * ```
 */
export function approvalRefusal(s: ServerReport): ApprovalRefusal | undefined {
  if (s.status === "unreachable") return "unreachable";
  if (s.status === "unpinned") return "unpinned";
  if (s.identity_changed) return "identity_changed";
  if (s.lock_inconsistent) return "lock_inconsistent";
  return undefined;
}

/** One change of a verified server that `contract approve` can pin. */
export interface ApprovableChange {
  /** The item key: tool name, prompt name, resource URI, URI template, `instructions`. */
  readonly tool: string;
  /** What changed. */
  readonly change: ChangeKind;
  /** What `tool` names. */
  readonly kind: ItemKind;
}

/**
 * The changes of one verified server that `contract approve` can pin, tools first, then each
 * surface kind, the instructions, then the skills: none when the configured server is not the
 * pinned one or the lock entry was edited by hand (approve refuses those servers).
 *
 * @example
 * ```ts ignore
 * import { approvableChanges } from "./approve_plan.ts";
 * for (const c of approvableChanges(report.servers[0])) console.log(c.change, c.tool);
 * ```
 */
export function approvableChanges(s: ServerReport): ApprovableChange[] {
  // docs/contractpin-skills.md: a skills listing that contradicts its bytes refuses the server.
  if (s.identity_changed || s.lock_inconsistent || s.skills?.contradictions.length) return [];
  const out: ApprovableChange[] = [
    ...s.tools.drifted.map((d) => ({
      tool: d.name,
      change: "drifted" as const,
      kind: "tool" as const,
    })),
    ...s.tools.added.map((tool) => ({ tool, change: "added" as const, kind: "tool" as const })),
    ...s.tools.removed.map((tool) => ({ tool, change: "removed" as const, kind: "tool" as const })),
  ];
  for (const k of SURFACE_KINDS) {
    const r = s.surface?.[k];
    if (!r) continue;
    const kind = SURFACE_SPECS[k].item;
    out.push(
      ...r.drifted.map((d) => ({ tool: d.name, change: "drifted" as const, kind })),
      ...r.added.map((tool) => ({ tool, change: "added" as const, kind })),
      ...r.removed.map((tool) => ({ tool, change: "removed" as const, kind })),
    );
  }
  if (s.surface?.instructions?.drifted) {
    out.push({ tool: "instructions", change: "drifted", kind: "instructions" });
  }
  out.push(...approvableSkillChanges(s.skills)); // docs/contractpin-skills.md, "Approve"
  return out;
}

/** One change to approve, of any kind (docs/contractpin-surface.md §6). */
export interface ApproveTarget {
  /** What the key names. */
  readonly kind: ItemKind;
  /** Tool name, prompt name, resource URI or URI template (ignored for instructions). */
  readonly key: string;
}
