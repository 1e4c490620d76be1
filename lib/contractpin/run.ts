/**
 * The two operations of contractpin, over live servers: pin (enumerate, digest, build lock
 * entries and snapshot entries) and verify (enumerate, compare with the lock, build the
 * report). Servers are contacted with bounded concurrency; every `${VAR}` is expanded before
 * the first server is contacted, so a missing variable fails fast.
 *
 * @module
 */
import { SchemaPinError, usageError } from "../errors.ts";
import { type DigestedToolList, digestToolList } from "./digest.ts";
import { enumerateTarget, type PreparedTarget, prepareTarget, type ServerTarget } from "./live.ts";
import {
  type ContractLock,
  identityOf,
  type LockServer,
  lockServerEntry,
  type ServerIdentity,
} from "./lock.ts";
import {
  findSurfaceHiddenText,
  findToolsHiddenText,
  type ToolHiddenTextFinding,
} from "./hidden_text.ts";
import {
  type DigestedSurface,
  digestSurface,
  type PinnedProtocol,
  SURFACE_KINDS,
} from "./surface.ts";
import { ServerFailure } from "../mcp/errors.ts";
import {
  DEFAULT_MAX_PAGES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_STARTUP_TIMEOUT_MS,
  type ListOptions,
  type ToolListing,
} from "../mcp/session.ts";
import { VERSION } from "../version.ts";
import { dumpOfListing } from "../mcp/file.ts";
import { finishReport, type ServerReport, type VerifyReport } from "./report.ts";
import {
  type EnvLookup,
  processEnv,
  redactCommand,
  sanitizeIdentity,
  type SecretWarning,
} from "./secrets.ts";
import {
  type ContractSnapshot,
  snapshotServer,
  type SnapshotSkill,
  type SnapshotTool,
} from "./snapshot.ts";
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
  surfaceDiffs,
  surfacePasses,
  toolDiffs,
} from "./verify.ts";
import { checkArg } from "../arguments.ts";
import type { ServedSkills } from "../skill/served_fetch.ts";
import {
  dynamicSkills,
  findSkillsHiddenText,
  refusingProblems,
  skillProblemLine,
  type SkillRunOptions,
  withSkillFetch,
} from "./skills_live.ts";
import type { SkillProblem } from "../skill/served_check.ts";
import { lockSkillsMember } from "./skills_lock.ts";
import {
  type SkillSignatureCheck,
  skillSignatureLine,
  skillSignatureNotices,
  type SkillSignatureOutcome,
  skillSignaturesReport,
  verifySkillSignatures,
  withSignatureRecords,
} from "./skills_signature.ts";
import { compareSkills, skillDiffs, skillsPass, snapshotSkills } from "./skills_verify.ts";
import { readDumpSkills, skillsDumpMember } from "./skills_dump.ts";

/** An identity as reports show it: credentials in a stdio command hidden (§5). */
function redactIdentity(id: ServerIdentity): ServerIdentity {
  return id.transport === "stdio" ? { ...id, command: redactCommand(id.command) } : id;
}

/** Options shared by pin and verify. */
export interface RunOptions extends ListOptions {
  /** Servers contacted at once (default 4). */
  concurrency?: number;
  /** Where `${VAR}` values come from (default: the process environment). */
  env?: EnvLookup;
  /**
   * Write literal credentials found in stdio commands to the lock (with a warning) instead of
   * refusing them (contractpin §5). Off by default.
   */
  allowLiteralSecrets?: boolean;
  /**
   * How skills served over MCP are fetched and pinned (docs/contractpin-skills.md): caps, and
   * whether a dynamic skill may be pinned. Fetched with the defaults when absent.
   */
  skills?: SkillRunOptions;
  /**
   * Require a valid SchemaPin signature on every skill served (docs/contractpin-skills.md,
   * "Signed skills"): pinning refuses a server with a skill that fails (each lock item keeps
   * the record of the check that passed), verifying reports each and fails on any.
   *
   * @ignore Internal: for the CLI's skill signature check; not public API.
   */
  skillSignatures?: SkillSignatureCheck;
}

/** Default number of servers contacted at once. */
export const DEFAULT_CONCURRENCY = 4;

/** The limits of a run as a command line gives them: text, by option name. */
export interface RunLimitsText {
  /** Seconds for a server to start and answer initialize (a positive number). */
  readonly "startup-timeout"?: string;
  /** Seconds for each MCP request after initialize (a positive number). */
  readonly timeout?: string;
  /** Most tools/list pages to follow (a positive integer). */
  readonly "max-pages"?: string;
  /** Servers contacted at once (a positive integer). */
  readonly concurrency?: string;
}

/** `value` as a positive number (an integer with `integer`); `undefined` when not given. */
function positive(flag: string, value: string | undefined, integer: boolean) {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw usageError(
      `--${flag} must be a positive ${integer ? "integer" : "number"} (got ${value})`,
    );
  }
  return n;
}

/**
 * The {@linkcode RunOptions} limits of a command line's text (seconds there, milliseconds
 * inside), the defaults for those not given, and this release as the client version.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) naming the
 *   option whose value is not a positive number (integer for pages and concurrency)
 *
 * @example
 * ```ts
 * import { runLimits } from "./run.ts";
 * runLimits({ timeout: "1.5", concurrency: "2" }).requestTimeoutMs; // 1500
 * ```
 */
export function runLimits(values: RunLimitsText): RunOptions {
  const startup = positive("startup-timeout", values["startup-timeout"], false);
  const timeout = positive("timeout", values.timeout, false);
  return {
    startupTimeoutMs: startup === undefined ? DEFAULT_STARTUP_TIMEOUT_MS : startup * 1000,
    requestTimeoutMs: timeout === undefined ? DEFAULT_REQUEST_TIMEOUT_MS : timeout * 1000,
    maxPages: positive("max-pages", values["max-pages"], true) ?? DEFAULT_MAX_PAGES,
    concurrency: positive("concurrency", values.concurrency, true) ?? DEFAULT_CONCURRENCY,
    clientVersion: VERSION,
  };
}

/**
 * Runs `task` over `items` with at most `limit` in flight; results keep the input order.
 *
 * @example
 * ```ts
 * import { mapLimited } from "./run.ts";
 * await mapLimited([1, 2, 3], 2, async (n) => n * 2); // [2, 4, 6]
 * ```
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** A live enumeration, digested — or why it failed. */
export type LiveResult =
  | {
    ok: true;
    listing: ToolListing;
    list: DigestedToolList;
    surface: DigestedSurface;
    /** The skills served (docs/contractpin-skills.md); absent when not fetched. */
    skills?: ServedSkills;
  }
  | { ok: false; failure: ServerFailure };

/**
 * Enumerates and digests one prepared target. A malformed list (duplicate names §4.4, a tool
 * without a name, a value with no canonical form) is a failure of that server.
 *
 * @example
 * ```ts ignore
 * const r = await fetchLive(prepareTarget(target), { requestTimeoutMs: 5000 });
 * ```
 */
export async function fetchLive(
  target: PreparedTarget,
  options: ListOptions & { skills?: SkillRunOptions },
): Promise<LiveResult> {
  checkArg("fetchLive", "target", target, "object");
  checkArg("fetchLive", "options", options, "object");
  try {
    // Skills are read on the same session, after the lists (docs/contractpin-skills.md).
    const box: { skills?: ServedSkills } = {};
    const skillOptions = options.skills ?? {};
    const listing = await enumerateTarget(target, withSkillFetch(options, skillOptions, box));
    if (target.transport === "file" && !skillOptions.skip) {
      box.skills = await readDumpSkills(target.path, `server ${target.name}`, skillOptions);
    }
    let list: DigestedToolList;
    let surface: DigestedSurface;
    try {
      list = digestToolList(listing.tools, `server ${target.name}`);
      // docs/contractpin-surface.md §2: a malformed prompt/resource list fails the server too.
      surface = digestSurface(listing, `server ${target.name}`);
    } catch (e) {
      throw new ServerFailure("malformed", (e as Error).message);
    }
    return { ok: true, listing, list, surface, ...(box.skills ? { skills: box.skills } : {}) };
  } catch (e) {
    if (e instanceof ServerFailure) return { ok: false, failure: e };
    throw e;
  }
}

/** One server's definitions in the shape a `--file` dump has, or why it failed. */
export type DumpResult =
  | (Extract<LiveResult, { ok: true }> & {
    /** The dump (`{"tools":[…],"prompts":[…],…}`, all pages in one), pretty-printed. */
    text: string;
  })
  | Extract<LiveResult, { ok: false }>;

/**
 * Enumerates one server (`${VAR}` expanded from `options.env`) and returns its definitions —
 * every kind the lock pins — as the JSON a `--file` target reads (lib/mcp/file.ts), so it can be
 * pinned or verified without running it (`contract dump`). A server that fails is a result.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for an unset `${VAR}` or a malformed target
 *
 * @example
 * ```ts ignore
 * import { dumpServer } from "./run.ts";
 * const dump = await dumpServer({ name: "fs", identity: { transport: "stdio", command: ["fs-server"] } });
 * if (dump.ok) await Deno.writeTextFile("fs.json", dump.text);
 * ```
 */
export async function dumpServer(
  target: ServerTarget,
  options: RunOptions = {},
): Promise<DumpResult> {
  checkArg("dumpServer", "target", target, "object");
  checkArg("dumpServer", "options", options, "object");
  const live = await fetchLive(prepareTarget(target, options.env ?? processEnv), options);
  if (!live.ok) return live;
  // docs/contractpin-skills.md, "Dumps": a listing that contradicts its bytes is not saved.
  const problems = refusingProblems(live.skills, true);
  if (problems.length > 0) {
    const message = problems.map((sp) => skillProblemLine(target.name, sp)).join("\n");
    return { ok: false, failure: new ServerFailure("malformed", message) };
  }
  const dump = dumpOfListing(live.listing);
  const skills = skillsDumpMember(live.skills);
  if (skills) dump.skills = skills;
  return { ...live, text: JSON.stringify(dump, null, 2) + "\n" };
}

/** The snapshot entry of one pinned server: its tools, and its skills when it serves some. */
export type PinSnapshot = {
  tools: Record<string, SnapshotTool>;
  skills?: Record<string, SnapshotSkill>;
};

/** The outcome of pinning one server. */
export type PinOutcome =
  | {
    ok: true;
    name: string;
    entry: LockServer;
    snapshot: PinSnapshot;
    warnings: SecretWarning[];
    notices: Notice[];
    /**
     * Hidden text in the tools just pinned (issue 17 item 3): a first pin must not trust it
     * silently — the CLI prints each as a warning, or refuses with `--strict-text`.
     */
    hiddenText: ToolHiddenTextFinding[];
  }
  | {
    ok: false;
    name: string;
    failure: ServerFailure;
    warnings: SecretWarning[];
    /**
     * Set when the server was refused for its skills (docs/contractpin-skills.md): every
     * listing that contradicts its bytes, and each dynamic skill not allowed. Never skipped as
     * a discovered server that cannot run is.
     */
    skillProblems?: SkillProblem[];
    /**
     * Set when skill signatures are required and some did not verify (docs/contractpin-skills.md,
     * "Signed skills"): one outcome each. Never skipped either.
     */
    skillSignatures?: SkillSignatureOutcome[];
  };

/**
 * Pins servers: expands and checks every target first (a missing variable is an
 * `INPUT_INVALID` error before anything runs), then enumerates them with bounded concurrency
 * and builds lock entries from the sanitised identities. Nothing is written here.
 *
 * @example
 * ```ts
 * import { buildLock, serializeLock } from "./lock.ts";
 * import { type LockServer } from "jsr:@schemapin/schemapin/contractpin";
 * import { pinServers } from "./run.ts";
 * const outcomes = await pinServers([
 *   {
 *     name: "files",
 *     identity: {
 *       transport: "stdio",
 *       command: ["npx", "-y", "@modelcontextprotocol/server-filesystem", "."],
 *     },
 *   },
 *   { name: "saved", identity: { transport: "file", path: "tools.json" } },
 * ]);
 * const servers: Record<string, LockServer> = {};
 * for (const o of outcomes) {
 *   if (o.ok) servers[o.name] = o.entry;
 *   else console.error(o.name, o.failure.message);
 * }
 * await Deno.writeTextFile("contractpin.lock", serializeLock(buildLock(servers)));
 * ```
 */
export async function pinServers(
  targets: readonly ServerTarget[],
  options: RunOptions = {},
): Promise<PinOutcome[]> {
  checkArg("pinServers", "targets", targets, "array");
  checkArg("pinServers", "options", options, "object");
  const env = options.env ?? processEnv;
  const prepared = targets.map((t) => prepareTarget(t, env));
  const sanitized = targets.map((t) =>
    sanitizeIdentity(t.identity, {
      server: t.name,
      allowLiteralSecrets: options.allowLiteralSecrets,
    })
  );
  return await mapLimited(prepared, options.concurrency ?? DEFAULT_CONCURRENCY, async (p, i) => {
    const { identity, warnings } = sanitized[i];
    const live = await fetchLive(p, options);
    if (!live.ok) return { ok: false, name: p.name, failure: live.failure, warnings };
    // docs/contractpin-skills.md: a listing that contradicts its bytes is never pinned. With
    // signatures required a dynamic skill fails as unsigned (it has no bytes to sign).
    const check = options.skillSignatures;
    const skillProblems = refusingProblems(
      live.skills,
      options.skills?.allowDynamic === true || check !== undefined,
    );
    if (skillProblems.length > 0) {
      const message = skillProblems.map((sp) => skillProblemLine(p.name, sp)).join("\n");
      return {
        ok: false,
        name: p.name,
        failure: new ServerFailure("malformed", message),
        warnings,
        skillProblems,
      };
    }
    // docs/contractpin-skills.md, "Signed skills": every skill verified before anything is
    // written; one that fails refuses the server.
    const signed = check ? await verifySkillSignatures(live.skills, check) : [];
    const unsigned = signed.filter((o) => !o.valid);
    if (unsigned.length > 0) {
      return {
        ok: false,
        name: p.name,
        failure: new ServerFailure(
          "malformed",
          unsigned.map((o) => skillSignatureLine(p.name, o)).join("\n"),
        ),
        warnings,
        skillSignatures: unsigned,
      };
    }
    const notices: Notice[] = [
      ...live.listing.notices.map((message) => ({ kind: "listing" as const, message })),
      ...metaTextNotices(live.list),
      ...dynamicSkills(live.skills).map((uri) => ({
        kind: "listing" as const,
        message: `skill ${uri} is dynamic (it lists no resources): pinned by its frontmatter ` +
          `only (--allow-dynamic-skills)`,
      })),
      ...skillSignatureNotices(signed),
    ];
    const entry = lockServerEntry(identity, live.list, targets[i].clientCapabilities, live.surface);
    const skills = live.skills ? lockSkillsMember(live.skills) : undefined;
    if (skills) entry.skills = check ? withSignatureRecords(skills, signed) : skills;
    const snapshot: PinSnapshot = snapshotServer(live.list);
    if (skills) snapshot.skills = snapshotSkills(live.skills!);
    return {
      ok: true,
      name: p.name,
      entry,
      snapshot,
      warnings,
      notices,
      hiddenText: [
        ...findToolsHiddenText(live.listing.tools),
        ...findSurfaceHiddenText(live.listing),
        ...findSkillsHiddenText(live.skills),
      ],
    };
  });
}

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

function emptyReport(name: string, transport: LockServer["transport"]): ServerReport {
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
 * Verifies a lock against live servers (§6) and returns the report; `report.exit_code` is the
 * §6 exit code (0 match; 1 drift, added without `allowNew`, removed, unreachable).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for an unknown `--server` name or an unset `${VAR}`
 * (the caller's setup, exit 2)
 *
 * @example
 * ```ts
 * import { parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const report = await verifyLock({ lock, lockPath: "contractpin.lock", select: ["files"] });
 * for (const server of report.servers) {
 *   console.log(server.name, server.status, server.tools.drifted.map((t) => t.name));
 * }
 * Deno.exit(report.exit_code); // 0 match; 1 drift, removed or unreachable
 * ```
 */
export async function verifyLock(
  request: VerifyRequest,
  options: RunOptions = {},
): Promise<VerifyReport> {
  checkArg("verifyLock", "request", request, "object");
  checkArg("verifyLock", "request.lock", request.lock, "object");
  checkArg("verifyLock", "options", options, "object");
  const env = options.env ?? processEnv;
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
  type Job = {
    name: string;
    locked: LockServer;
    target: PreparedTarget;
    identityChanged: { locked: ServerIdentity; live: ServerIdentity } | null;
  };
  const jobs: Job[] = names.map((name) => {
    const locked = request.lock.servers[name];
    const pinned = identityOf(locked);
    const configured = request.configured?.get(name);
    let identityChanged: Job["identityChanged"] = null;
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
  const reports = await mapLimited(
    jobs,
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async (job) => {
      const r = emptyReport(job.name, job.locked.transport);
      r.digest.locked = job.locked.digest;
      r.tool_count.locked = job.locked.tool_count;
      r.identity_changed = job.identityChanged;
      r.lock_inconsistent = !lockIsConsistent(job.locked);
      const live = await fetchLive(job.target, options);
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
      for (const kind of SURFACE_KINDS) {
        const c = surface.kinds[kind];
        if (!c) continue;
        const pinned = job.locked[kind]!, now = live.surface[kind]!;
        r.surface![kind] = {
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
        r.surface!.instructions = {
          ...surface.instructions,
          drifted: surface.instructions.locked !== surface.instructions.live,
        };
      }
      r.unpinned_kinds = surface.unpinned;
      r.unchecked_kinds = surface.unchecked;
      // docs/contractpin-skills.md: skills compared with the lock, contradictions reported.
      const skills = compareSkills(job.locked.skills, live.skills);
      if (skills) r.skills = skills;
      let signed: SkillSignatureOutcome[] = [];
      if (skills && options.skillSignatures) {
        // docs/contractpin-skills.md, "Signed skills": verified afresh (a key may have been
        // revoked or expired since the pin).
        signed = await verifySkillSignatures(live.skills, options.skillSignatures);
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
          message:
            "no snapshot, so no diffs: review each change with `schemapin contract approve` " +
            "(it shows the changed fields and the added tools)",
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
      const passes = serverPasses(comparison, request.allowNew ?? false, !r.lock_inconsistent) &&
        surfacePasses(surface, request.allowNew ?? false) &&
        skillsPass(skills, request.allowNew ?? false) &&
        job.identityChanged === null;
      r.status = passes ? "match" : "drift";
      return r;
    },
  );
  if (request.configured && !request.select?.length) {
    for (const [name, t] of request.configured) {
      if (Object.hasOwn(request.lock.servers, name)) continue;
      const r = emptyReport(name, t.identity.transport);
      r.status = "unpinned";
      reports.push(r);
    }
  }
  return finishReport(
    request.lockPath,
    request.allowNew ?? false,
    request.snapshotPath ?? null,
    reports,
    request.strictText ?? false,
  );
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
      `own list, re-run \`schemapin contract init --force\` after review to record it`,
  }];
}
