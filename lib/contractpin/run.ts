/**
 * The two operations of contractpin, over live servers: pin (enumerate, digest, build lock
 * entries and snapshot entries) and verify (enumerate, compare with the lock, build the
 * report). Servers are contacted with bounded concurrency; every `${VAR}` is expanded before
 * the first server is contacted, so a missing variable fails fast.
 *
 * @module
 */
import { type DigestedToolList, digestToolList } from "./digest.ts";
import { enumerateTarget, type PreparedTarget, prepareTarget, type ServerTarget } from "./live.ts";
import { type LockServer, lockServerEntry } from "./lock.ts";
import {
  findSurfaceHiddenText,
  findToolsHiddenText,
  type ToolHiddenTextFinding,
} from "./hidden_text.ts";
import { type DigestedSurface, digestSurface } from "./surface.ts";
import { ServerFailure } from "../mcp/errors.ts";
import type { ListOptions } from "../mcp/session.ts";
import { dumpOfListing } from "../mcp/file.ts";
import { finishReport, type VerifyReport } from "./report.ts";
import { type EnvLookup, processEnv, sanitizeIdentity, type SecretWarning } from "./secrets.ts";
import { snapshotServer, type SnapshotSkill, type SnapshotTool } from "./snapshot.ts";
import { metaTextNotices, type Notice } from "./verify.ts";
import { checkArg } from "../arguments.ts";
import { ALLOW_DYNAMIC_SKILLS } from "../option_hints.ts";
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
  verifySkillSignatures,
  withSignatureRecords,
} from "./skills_signature.ts";
import { snapshotSkills } from "./skills_verify.ts";
import { readDumpSkills, skillsDumpMember } from "./skills_dump.ts";
import {
  type LiveServer,
  planVerifyJobs,
  serverReport,
  unpinnedReports,
  type VerifyRequest,
} from "./verify_server.ts";

export type { VerifyRequest } from "./verify_server.ts";

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
  | ({ ok: true } & LiveServer)
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
          `only (${ALLOW_DYNAMIC_SKILLS})`,
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
  const jobs = planVerifyJobs(request, options.env ?? processEnv);
  const reports = await mapLimited(
    jobs,
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async (job) =>
      await serverReport(
        job,
        await fetchLive(job.target, options),
        request,
        options.skillSignatures,
      ),
  );
  reports.push(...unpinnedReports(request));
  return finishReport(
    request.lockPath,
    request.allowNew ?? false,
    request.snapshotPath ?? null,
    reports,
    request.strictText ?? false,
  );
}
