/**
 * One server of a verify run (§6): what is asked of it (its pinned or configured definition,
 * with the pinned client capabilities) and its report once its live lists are known — the
 * tools, the surface (docs/contractpin-surface.md §6) and the skills (docs/contractpin-skills.md)
 * compared with the lock, its hidden text, notices and diffs. lib/contractpin/run.ts runs the
 * servers and completes the report.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { DigestedToolList } from "./digest.ts";
import { type PreparedTarget, prepareTarget, type ServerTarget } from "./live.ts";
import { type ContractLock, identityOf, type LockServer, type ServerIdentity } from "./lock.ts";
import { findSurfaceHiddenText, findToolsHiddenText } from "./hidden_text.ts";
import { type DigestedSurface, type PinnedProtocol, SURFACE_KINDS } from "./surface.ts";
import type { ServerFailure } from "../mcp/errors.ts";
import type { ToolListing } from "../mcp/session.ts";
import type { ServerReport, SurfaceReport } from "./report.ts";
import { type EnvLookup, redactCommand, sanitizeIdentity } from "./secrets.ts";
import type { ContractSnapshot, SnapshotSkill } from "./snapshot.ts";
import {
  compareSurface,
  compareTools,
  displayNotices,
  lockIsConsistent,
  metaTextNotices,
  type Notice,
  removedDiffs,
  sameIdentity,
  serverPasses,
  type SurfaceComparison,
  surfaceDiffs,
  surfacePasses,
  toolDiffs,
} from "./verify.ts";
import type { ServedSkills } from "../skill/served_fetch.ts";
import { findSkillsHiddenText } from "./skills_live.ts";
import {
  type SkillSignatureCheck,
  skillSignatureNotices,
  type SkillSignatureOutcome,
  skillSignaturesReport,
  verifySkillSignatures,
} from "./skills_signature.ts";
import { compareSkills, skillDiffs, skillsPass } from "./skills_verify.ts";

/** What to verify. */
export interface VerifyRequest {
  /** The parsed lock. */
  readonly lock: ContractLock;
  /** The lock's path (for the report) — relative `cwd`/`path` resolve against `baseDir`. */
  readonly lockPath: string;
  /** Folder of the lock file. */
  readonly baseDir?: string;
  /** Only these servers (default: all in the lock). Unknown names are `INPUT_INVALID`. */
  readonly select?: readonly string[];
  /** Do not fail on added tools (§6 opt-out). */
  readonly allowNew?: boolean;
  /** Snapshot for readable diffs and title/_meta notices. */
  readonly snapshot?: ContractSnapshot;
  /** The snapshot's path, for the report. */
  readonly snapshotPath?: string;
  /** Headers sent to every HTTP server (templates). */
  readonly headers?: ServerTarget["headers"];
  /**
   * Server definitions from a client config, by name: used to run the server (with their
   * headers/env), and compared with the pinned identity; names not in the lock are
   * reported `unpinned`.
   */
  readonly configured?: ReadonlyMap<string, ServerTarget>;
  /**
   * Hidden text in a live tool definition fails the run (exit 1) instead of being reported
   * as a warning (issue 17 item 3, `--strict-text`).
   */
  readonly strictText?: boolean;
  /**
   * Called with each server's digested live list as soon as it is enumerated (`contract
   * approve` plans its changes from the very lists this report classifies).
   *
   * @ignore Internal: for the CLI's contract approve; not public API.
   */
  readonly onLive?: (
    server: string,
    live: DigestedToolList,
    surface: DigestedSurface,
    skills?: ServedSkills,
  ) => void;
}

/** A live enumeration of one server, digested (lib/contractpin/run.ts, `fetchLive`). */
export interface LiveServer {
  /** The lists as served. */
  listing: ToolListing;
  /** The tools, digested (§4). */
  list: DigestedToolList;
  /** The prompts, resources, resource templates and instructions, digested. */
  surface: DigestedSurface;
  /** The skills served (docs/contractpin-skills.md); absent when not fetched. */
  skills?: ServedSkills;
}

/** One server to verify: its lock entry, the target to run, and whether its identity changed. */
export interface VerifyJob {
  /** Local server name. */
  readonly name: string;
  /** Its lock entry. */
  readonly locked: LockServer;
  /** The server to run, `${VAR}` expanded. */
  readonly target: PreparedTarget;
  /** Set when the configured definition differs from the pinned one (redacted). */
  readonly identityChanged: { locked: ServerIdentity; live: ServerIdentity } | null;
}

/**
 * The `snapshot_unavailable` notice of a server with changes when the run has no snapshot.
 *
 * @example
 * ```ts
 * import { SNAPSHOT_UNAVAILABLE } from "./verify_server.ts";
 * SNAPSHOT_UNAVAILABLE.startsWith("no snapshot, so no diffs"); // true
 * ```
 */
export const SNAPSHOT_UNAVAILABLE =
  "no snapshot, so no diffs: review each change before approving it (the approval shows the " +
  "changed fields and the added tools)";

/**
 * The last words of a `protocol_changed` notice: what to do about it.
 *
 * @example
 * ```ts
 * import { PROTOCOL_CHANGED_REMEDY } from "./verify_server.ts";
 * console.log(PROTOCOL_CHANGED_REMEDY); // "pin the server again after review to record it"
 * ```
 */
export const PROTOCOL_CHANGED_REMEDY = "pin the server again after review to record it";

/** An identity as reports show it: credentials in a stdio command hidden (§5). */
function redactIdentity(id: ServerIdentity): ServerIdentity {
  return id.transport === "stdio" ? { ...id, command: redactCommand(id.command) } : id;
}

/**
 * The servers a request verifies, each prepared to run: the pinned definition, or the
 * configured one (compared with the pinned identity), asked with the pinned client
 * capabilities. Every `${VAR}` is expanded here, before any server is contacted.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a selected name the lock does not have or an
 *   unset `${VAR}`
 *
 * @example
 * ```ts
 * import { planVerifyJobs } from "./verify_server.ts";
 * import { buildLock } from "./lock.ts";
 * planVerifyJobs({ lock: buildLock({}), lockPath: "contractpin.lock" }, () => undefined); // []
 * ```
 */
export function planVerifyJobs(request: VerifyRequest, env: EnvLookup): VerifyJob[] {
  const lockNames = Object.keys(request.lock.servers);
  const names = request.select?.length ? [...new Set(request.select)] : lockNames;
  for (const n of names) {
    if (!Object.hasOwn(request.lock.servers, n)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `server ${JSON.stringify(n)} is not in ${request.lockPath} (it has: ${
          lockNames.join(", ") || "no servers"
        })`,
        { server: n },
      );
    }
  }
  return names.map((name) => {
    const locked = request.lock.servers[name];
    const pinned = identityOf(locked);
    const configured = request.configured?.get(name);
    let identityChanged: VerifyJob["identityChanged"] = null;
    // Asked the way it was pinned: with the same client capabilities.
    const asked = locked.client_capabilities
      ? { clientCapabilities: locked.client_capabilities }
      : {};
    let target: ServerTarget = {
      name,
      identity: pinned,
      headers: request.headers,
      baseDir: request.baseDir,
      ...asked,
    };
    if (configured) {
      // Compared, never written: credentials in the configured command are redacted in reports.
      const live = sanitizeIdentity(configured.identity, { allowLiteralSecrets: true }).identity;
      if (!sameIdentity(pinned, live)) {
        identityChanged = { locked: redactIdentity(pinned), live: redactIdentity(live) };
      }
      target = {
        ...configured,
        headers: [...(configured.headers ?? []), ...(request.headers ?? [])],
        ...asked,
      };
    }
    return { name, locked, target: prepareTarget(target, env), identityChanged };
  });
}

/**
 * A server report with nothing found yet (status `match`).
 *
 * @example
 * ```ts
 * import { emptyServerReport } from "./verify_server.ts";
 * emptyServerReport("files", "stdio").status; // "match"
 * ```
 */
export function emptyServerReport(
  name: string,
  transport: LockServer["transport"],
): ServerReport {
  return {
    name,
    transport,
    status: "match",
    digest: { locked: null, live: null },
    tool_count: { locked: null, live: null },
    identity_changed: null,
    lock_inconsistent: false,
    tools: { drifted: [], added: [], removed: [], unchanged: 0 },
    error: null,
    notices: [],
    diffs: [],
    hidden_text: [],
    surface: {},
    unpinned_kinds: [],
    unchecked_kinds: [],
  };
}

/**
 * The report of one server: `unreachable` with the failure, or its live lists compared with
 * its lock entry (§6) — `match` or `drift`.
 *
 * @example
 * ```ts ignore
 * const report = await serverReport(job, await fetchLive(job.target, options), request);
 * ```
 */
export async function serverReport(
  job: VerifyJob,
  live: ({ ok: true } & LiveServer) | { ok: false; failure: ServerFailure },
  request: VerifyRequest,
  skillSignatures?: SkillSignatureCheck,
): Promise<ServerReport> {
  const r = emptyServerReport(job.name, job.locked.transport);
  r.digest.locked = job.locked.digest;
  r.tool_count.locked = job.locked.tool_count;
  r.identity_changed = job.identityChanged;
  r.lock_inconsistent = !lockIsConsistent(job.locked);
  if (!live.ok) {
    r.status = "unreachable"; // §6: "I could not check" is not "nothing is wrong"
    r.error = {
      kind: live.failure.kind,
      message: live.failure.message,
      ...(live.failure.stderr ? { stderr: live.failure.stderr } : {}),
    };
    return r;
  }
  request.onLive?.(job.name, live.list, live.surface, live.skills);
  const comparison = compareTools(job.locked, live.list);
  const surface = compareSurface(job.locked, live.surface);
  r.digest.live = live.list.digest;
  r.tool_count.live = live.list.tools.size;
  r.hidden_text = [
    ...findToolsHiddenText(live.listing.tools),
    ...findSurfaceHiddenText(live.listing),
  ];
  r.surface = surfaceReport(job.locked, live.surface, surface);
  r.unpinned_kinds = surface.unpinned;
  r.unchecked_kinds = surface.unchecked;
  // docs/contractpin-skills.md: skills compared with the lock, contradictions reported.
  const skills = compareSkills(job.locked.skills, live.skills);
  if (skills) r.skills = skills;
  let signed: SkillSignatureOutcome[] = [];
  if (skills && skillSignatures) {
    // docs/contractpin-skills.md, "Signed skills": verified afresh (a key may have been
    // revoked or expired since the pin).
    signed = await verifySkillSignatures(live.skills, skillSignatures);
    skills.signatures = skillSignaturesReport(signed, job.locked.skills);
  }
  r.hidden_text.push(...findSkillsHiddenText(live.skills));
  r.tools = {
    drifted: comparison.drifted.map((d) => ({
      name: d.name,
      locked: d.locked,
      live: d.live,
      changed_fields: d.changedFields,
    })),
    added: comparison.added,
    removed: comparison.removed,
    unchanged: comparison.unchanged.length,
  };
  r.notices = [
    ...live.listing.notices.map((message) => ({ kind: "listing" as const, message })),
    ...displayNotices(request.snapshot, job.name, live.list),
    ...metaTextNotices(live.list),
    ...protocolNotices(job.locked.protocol, live.listing),
    ...skillSignatureNotices(signed),
  ];
  const changed = comparison.drifted.length + comparison.added.length +
    comparison.removed.length;
  if (changed > 0 && !request.snapshot) {
    r.notices.push({
      kind: "snapshot_unavailable",
      message: SNAPSHOT_UNAVAILABLE,
    });
  }
  r.diffs = [
    ...toolDiffs(comparison, request.snapshot, job.name, live.list),
    ...removedDiffs(comparison.removed, request.snapshot, job.name, job.locked),
    ...surfaceDiffs(surface, job.name, live.surface),
    ...skillDiffs(
      skills,
      job.locked.skills,
      live.skills,
      snapshotSkillsOf(request.snapshot, job.name),
      job.name,
    ),
  ];
  const allowNew = request.allowNew ?? false;
  const passes = serverPasses(comparison, allowNew, !r.lock_inconsistent) &&
    surfacePasses(surface, allowNew) && skillsPass(skills, allowNew) &&
    job.identityChanged === null;
  r.status = passes ? "match" : "drift";
  return r;
}

/** The surface part of a server report: each pinned kind compared, and the instructions. */
function surfaceReport(
  locked: LockServer,
  live: DigestedSurface,
  surface: SurfaceComparison,
): SurfaceReport {
  const out: SurfaceReport = {};
  for (const kind of SURFACE_KINDS) {
    const c = surface.kinds[kind];
    if (!c) continue;
    const pinned = locked[kind]!, now = live[kind]!;
    out[kind] = {
      digest: { locked: pinned.digest, live: now.digest },
      count: { locked: pinned.count, live: now.items.size },
      drifted: c.drifted.map((d) => ({
        name: d.name,
        locked: d.locked,
        live: d.live,
        changed_fields: d.changedFields,
      })),
      added: c.added,
      removed: c.removed,
      unchanged: c.unchanged.length,
    };
  }
  if (surface.instructions) {
    out.instructions = {
      ...surface.instructions,
      drifted: surface.instructions.locked !== surface.instructions.live,
    };
  }
  return out;
}

/**
 * The configured servers the lock does not pin, as `unpinned` reports — none when the run
 * selects servers.
 *
 * @example
 * ```ts
 * import { unpinnedReports } from "./verify_server.ts";
 * import { buildLock } from "./lock.ts";
 * unpinnedReports({ lock: buildLock({}), lockPath: "contractpin.lock" }); // []
 * ```
 */
export function unpinnedReports(request: VerifyRequest): ServerReport[] {
  if (!request.configured || request.select?.length) return [];
  const reports: ServerReport[] = [];
  for (const [name, t] of request.configured) {
    if (Object.hasOwn(request.lock.servers, name)) continue;
    const r = emptyServerReport(name, t.identity.transport);
    r.status = "unpinned";
    reports.push(r);
  }
  return reports;
}

/** The skills of one server of a snapshot, when it has any. */
function snapshotSkillsOf(
  snapshot: ContractSnapshot | undefined,
  server: string,
): Record<string, SnapshotSkill> | undefined {
  const servers = snapshot?.servers;
  return servers && Object.hasOwn(servers, server) ? servers[server].skills : undefined;
}

/**
 * A note when the server now speaks another protocol era or version than the one the entry
 * was pinned with (`protocol`, docs/contractpin-surface.md): informational — the digests decide
 * — but a dual-era server may serve each era its own list, and the guard checks the era each
 * client speaks against this one entry.
 */
function protocolNotices(
  pinned: PinnedProtocol | undefined,
  listing: { era?: string; protocolVersion?: string },
): Notice[] {
  if (!pinned || listing.era === undefined || listing.protocolVersion === undefined) return [];
  if (pinned.era === listing.era && pinned.version === listing.protocolVersion) return [];
  return [{
    kind: "protocol_changed",
    message: `pinned with MCP ${pinned.version} (${pinned.era}); the server now speaks ` +
      `${listing.protocolVersion} (${listing.era}): a server may serve each protocol era its ` +
      `own list, ${PROTOCOL_CHANGED_REMEDY}`,
  }];
}
