/**
 * Approving the reviewed changes of live servers into a lock (`contract approve`, issue 17
 * item 1): the servers are enumerated and classified exactly as `verifyLock` does it
 * (contractpin spec §6), the changes planned ({@linkcode planApproval}), the ones named or
 * answered yes applied ({@linkcode applyApproval}), and the snapshot and lock rewritten — unless
 * the lock changed while the changes were reviewed. Nothing is ever approved implicitly:
 * without someone to ask (`ask`) and without `yes`, the result is refused. The caller asks
 * the questions and renders the changes.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import {
  applyApproval,
  type ApproveTarget,
  planApproval,
  type PlannedChange,
} from "./approve_plan.ts";
import { approvalProblem, selectChanges } from "./approve_text.ts";
import type { DigestedToolList } from "../../lib/contractpin/digest.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";
import { type ContractLock, serializeLock } from "../../lib/contractpin/lock.ts";
import { staleLockSignature } from "./lock_signature_check.ts";
import { verifyLock, type VerifyRequest } from "../../lib/contractpin/run.ts";
import type { ServerReport } from "../../lib/contractpin/report.ts";
import { serializeSnapshot } from "../../lib/contractpin/snapshot.ts";
import { type LockFileOptions, type LockFileRequest, readLockInputs } from "./verify_lock.ts";
import type { DigestedSurface } from "../../lib/contractpin/surface.ts";
import type { ServedSkills } from "../../lib/skill/served_fetch.ts";
import {
  applySkillApproval,
  checkSkillNames,
  isSkillChange,
  planSkillChanges,
  recheckSkillChanges,
  type SkillChange,
  skillServerProblems,
} from "./skills_approve.ts";
import {
  skillSignatureLine,
  type SkillSignatureOutcome,
  withApprovedSignatures,
} from "../../lib/contractpin/skills_signature.ts";

/** What {@linkcode approveLock} reviews, and which changes it may approve. */
export interface ApproveRequest extends LockFileRequest {
  /** Only these servers' changes (and the server of a name that changed on several). */
  readonly servers?: readonly string[];
  /** The tools whose changes may be approved (with `yes`, every one must be named). */
  readonly tools?: readonly string[];
  /** The prompts, resources, templates, instructions and skills whose changes may be approved. */
  readonly others?: readonly ApproveTarget[];
  /** Approve the named changes without asking. */
  readonly yes?: boolean;
}

/** A server whose changes cannot be approved here (it stays a failure), and why. */
export interface ApproveProblem {
  /** The server's name. */
  readonly server: string;
  /** Why, for people. */
  readonly message: string;
}

/** Options of {@linkcode approveLock}: the run's limits and the review's callbacks. */
export interface ApproveOptions extends LockFileOptions {
  /** The changes and the servers that cannot be approved, before anything is asked. */
  readonly onPlan?: (
    changes: readonly PlannedChange[],
    problems: readonly ApproveProblem[],
  ) => void | Promise<void>;
  /**
   * Asks a person about one change (a terminal); true approves it. Ignored with `yes`. Without
   * it and without `yes`, changes are never approved: the result is `refused`.
   */
  readonly ask?: (change: PlannedChange) => Promise<boolean>;
  /** Each change approved by `yes` (without asking), before anything is written. */
  readonly onApproved?: (change: PlannedChange) => void | Promise<void>;
}

/** What {@linkcode approveLock} did. */
export interface ApproveResult {
  /** The lock. */
  readonly lockPath: string;
  /** The snapshot written, `null` when none was. */
  readonly snapshotPath: string | null;
  /** Every change of the servers reviewed, in lock order. */
  readonly changes: readonly PlannedChange[];
  /**
   * The servers that could not be checked or approved (a skills listing that contradicts its
   * bytes among them), and the approved skills refused just before writing (nothing written).
   */
  readonly problems: readonly ApproveProblem[];
  /** The changes approved (and written). */
  readonly approved: readonly PlannedChange[];
  /** The changes left unapproved. */
  readonly left: readonly PlannedChange[];
  /**
   * There were changes, but no one to ask and no `yes`: nothing was approved or written
   * (nothing is approved implicitly).
   */
  readonly refused: boolean;
  /** The lock (and the snapshot) were rewritten. */
  readonly written: boolean;
  /** The signature file next to the rewritten lock, when one exists: it must be renewed. */
  readonly staleSignature?: string;
  /** Nothing is left unapproved and every server could be checked and approved. */
  readonly ok: boolean;
}

/**
 * Reviews the changes of the live servers against the lock and applies the approved ones:
 * each touched server's `tool_count` and digest are recomputed, every other entry is kept
 * byte for byte, the snapshot is written before the lock. A skill (docs/contractpin-skills.md,
 * "Approve") is pinned from the very fetch that was reviewed, and fetched once more before
 * writing: one that is not the reviewed skill any more refuses the write. With
 * `options.skillSignatures` (docs/contractpin-skills.md, "Signed skills") each skill pinned is
 * verified over the bytes reviewed before anything is written: one that fails refuses the
 * approval, and the others' lock items record the check. The lock's bytes are
 * compared again just before writing: a lock changed during the review (another approve, an
 * init, a checkout) is never overwritten.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) for a lock or snapshot
 *   that is not a file (stdin, `-`, or empty), or a `--skill` that no selected server serves
 *   and the lock does not pin; `INPUT_INVALID` for names that match no change (or several
 *   servers'), `--tool` names missing with `yes`, an unknown server, a lock changed during the
 *   review (nothing written); `IO_FAILED` and the parse errors for a lock, snapshot or config
 *   that cannot be used
 *
 * @example
 * ```ts ignore
 * import { approveLock } from "./approve_lock.ts";
 * const result = await approveLock(
 *   { lockPath: "contractpin.lock", servers: ["search"], tools: ["fetch"], yes: true },
 *   files,
 * );
 * console.log(`approved ${result.approved.length}, left ${result.left.length}`);
 * ```
 */
export async function approveLock(
  request: ApproveRequest,
  files: ContractFiles,
  options: ApproveOptions = {},
): Promise<ApproveResult> {
  checkArg("approveLock", "request", request, "object");
  checkArg("approveLock", "request.lockPath", request.lockPath, "string");
  checkArg("approveLock", "files", files, "object");
  checkArg("approveLock", "options", options, "object");
  const { lockPath } = request;
  // approve rewrites the lock and the snapshot in place: both must be files.
  for (const [option, path] of [["lock", lockPath], ["snapshot", request.snapshot]]) {
    if (path === "-" || path === "") {
      throw usageError(`--${option} must name a file (approve rewrites it in place)`, { option });
    }
  }
  const yes = request.yes === true;
  const ask = yes ? undefined : options.ask;

  // The bytes read now are compared with the file again just before writing: a review can
  // take minutes, and a lock changed meanwhile (another approve, init, a git checkout) must
  // not be overwritten by one built from the old text.
  const { lockBytes, lock, snapshot, snapshotPath, snapshotNew, configured } = await readLockInputs(
    request,
    files,
    "start",
    options.onSnapshotIgnored,
  );

  // The live lists, enumerated and classified exactly as `contract verify` does it.
  const lives = new Map<string, DigestedToolList>();
  const surfaces = new Map<string, DigestedSurface>();
  const skills = new Map<string, ServedSkills | undefined>();
  const verifyRequest = {
    lock,
    lockPath,
    baseDir: dirname(resolve(lockPath)),
    select: request.servers ?? [],
    snapshot: snapshotNew ? undefined : snapshot,
    snapshotPath: snapshot && !snapshotNew ? snapshotPath : undefined,
    headers: request.headers ? [...request.headers] : undefined,
    configured,
  };
  // Skill signatures are verified for the skills approved only, after the review (below).
  const listOptions = { ...options, skillSignatures: undefined };
  const report = await verifyLock({
    ...verifyRequest,
    onLive: (name, live, surface, served) => {
      lives.set(name, live);
      surfaces.set(name, surface);
      skills.set(name, served);
    },
  }, listOptions);
  // docs/contractpin-skills.md, "Approve": a --skill no selected server serves, nor the lock pins.
  const pinnedServers = report.servers.map((s) => s.name).filter((n) =>
    Object.hasOwn(lock.servers, n)
  );
  checkSkillNames(request.others ?? [], lock, pinnedServers, skills, lockPath);

  const { problems, planned, refusedSkills } = approvableServers(
    report.servers,
    lock,
    lockPath,
    lives,
    skills,
  );
  const reviewSnapshot = snapshotNew ? undefined : snapshot;
  const changes = withSkillChanges(
    lock,
    planApproval(lock, planned, reviewSnapshot, surfaces),
    (name) => planSkillChanges(name, lock.servers[name], skills.get(name), reviewSnapshot),
    [...planned.keys()],
  );
  await options.onPlan?.(changes, problems);
  const result = (
    fields: Pick<ApproveResult, "approved" | "refused" | "written"> & Partial<ApproveResult>,
  ): ApproveResult => {
    const approvedSet = new Set(fields.approved);
    const left = changes.filter((c) => !approvedSet.has(c));
    return {
      lockPath,
      snapshotPath: null,
      changes,
      problems,
      left,
      ok: left.length === 0 && problems.length === 0,
      ...fields,
    };
  };
  // Nothing is approved implicitly: without someone to ask, only `yes` with names approves.
  if (!ask && !yes && changes.length > 0) {
    return result({ approved: [], refused: true, written: false });
  }

  const considered = namedChanges(changes, request, refusedSkills);
  const approved: PlannedChange[] = [];
  for (const c of considered) {
    if (ask) {
      if (await ask(c)) approved.push(c);
    } else {
      approved.push(c);
      await options.onApproved?.(c);
    }
  }
  if (approved.length === 0) return result({ approved, refused: false, written: false });

  const skillApproved = approved.filter(isSkillChange);
  const signed = await checkApprovedSkills(
    skillApproved,
    problems,
    options,
    (select, onLive) => verifyLock({ ...verifyRequest, select, onLive }, listOptions),
  );
  if (!signed) return result({ approved: [], refused: false, written: false });
  const base = applyApproval(lock, snapshot, approved.filter((c) => !isSkillChange(c)));
  const pinned = applySkillApproval(base.lock, base.snapshot, skillApproved);
  const applied = { ...pinned, lock: withApprovedSignatures(pinned.lock, signed) };
  await refuseIfChanged(lockPath, lockBytes, files);
  // The snapshot first: verify trusts a snapshot entry only where it matches the lock, so a
  // failure between the two writes can never make a diff lie.
  if (applied.snapshot) await files.write(snapshotPath, serializeSnapshot(applied.snapshot));
  await files.write(lockPath, serializeLock(applied.lock));
  const staleSignature = await staleLockSignature(lockPath, files.exists);
  return result({
    approved,
    refused: false,
    written: true,
    snapshotPath: applied.snapshot ? snapshotPath : null,
    ...(staleSignature ? { staleSignature } : {}),
  });
}

/** The servers of a verified lock whose changes can be planned, and why the others cannot. */
interface ApprovableServers {
  /** The servers that could not be checked or approved, and why. */
  readonly problems: ApproveProblem[];
  /** The live tool lists of the servers whose changes are planned. */
  readonly planned: Map<string, DigestedToolList>;
  /** The skills of the servers refused for their skills: their `--skill` names are not names. */
  readonly refusedSkills: Set<string>;
}

/**
 * Which verified servers' changes can be planned: one that cannot be approved
 * (`approvalProblem`) or whose skills listing contradicts its bytes (docs/contractpin-skills.md)
 * is refused whole, as an unreachable one is; a pinned kind its listing lacks is a problem too
 * (docs/contractpin-surface.md §6).
 */
function approvableServers(
  reports: readonly ServerReport[],
  lock: ContractLock,
  lockPath: string,
  lives: ReadonlyMap<string, DigestedToolList>,
  skills: ReadonlyMap<string, ServedSkills | undefined>,
): ApprovableServers {
  const problems: ApproveProblem[] = [];
  const planned = new Map<string, DigestedToolList>();
  // Skills the servers serve whose listing contradicts its bytes (docs/contractpin-skills.md):
  // the server is refused whole, as an unreachable one is; so are its --skill names.
  const refusedSkills = new Set<string>();
  for (const s of reports) {
    const problem = approvalProblem(s, lockPath);
    const skillProblems = problem ? [] : skillServerProblems(s.name, s.skills, skills.get(s.name));
    if (problem) problems.push({ server: s.name, message: problem });
    for (const message of skillProblems) problems.push({ server: s.name, message });
    if (skillProblems.length > 0) {
      for (const uri of Object.keys(lock.servers[s.name]?.skills?.items ?? {})) {
        refusedSkills.add(uri);
      }
      for (const k of skills.get(s.name)?.skills ?? []) refusedSkills.add(k.pinned.uri);
    } else if (!problem && lives.has(s.name)) {
      planned.set(s.name, lives.get(s.name)!);
    }
    if (!problem && s.unchecked_kinds?.length) {
      // docs/contractpin-surface.md §6: a pinned kind the listing lacks is not "nothing left".
      problems.push({
        server: s.name,
        message: `server ${s.name}: the lock pins ${
          s.unchecked_kinds.join(", ")
        } but the server listing did not enumerate them; they could not be checked`,
      });
    }
  }
  return { problems, planned, refusedSkills };
}

/**
 * The changes a run with names (or `yes`) considers: the ones named (`selectChanges`), none
 * when only `--skill`s of servers refused for their skills were named, and every change when
 * nothing changed or no name was given (each is then asked about).
 */
function namedChanges(
  changes: PlannedChange[],
  request: ApproveRequest,
  refusedSkills: ReadonlySet<string>,
): PlannedChange[] {
  const tools = request.tools ?? [];
  const others = request.others ?? [];
  // A --skill of a server refused for its skills is that server's failure (exit 1), not a name.
  const named = others.filter((t) => !(t.kind === "skill" && refusedSkills.has(t.key)));
  if (tools.length === 0 && named.length === 0 && others.length > 0) return [];
  // Nothing changed (e.g. the same approval run again): nothing to select, nothing refused.
  if (changes.length > 0 && (tools.length > 0 || named.length > 0 || request.yes === true)) {
    return selectChanges(changes, tools, request.servers ?? [], named);
  }
  return changes;
}

/**
 * The skills approved, checked again before anything is written: fetched once more
 * (docs/contractpin-skills.md, "Approve"), and with `options.skillSignatures` verified over the
 * bytes reviewed ("Signed skills"). Each refusal is added to `problems`; `undefined` when any
 * refuses the approval (nothing is written), else the signature outcome of each skill.
 */
async function checkApprovedSkills(
  skillApproved: readonly SkillChange[],
  problems: ApproveProblem[],
  options: ApproveOptions,
  fetchAgain: (
    select: string[],
    onLive: VerifyRequest["onLive"],
  ) => Promise<unknown>,
): Promise<Map<SkillChange, SkillSignatureOutcome> | undefined> {
  const signed = new Map<SkillChange, SkillSignatureOutcome>();
  if (skillApproved.length === 0) return signed;
  // One that is not the skill reviewed (or a dynamic one not allowed) refuses the approval.
  const again = new Map<string, ServedSkills | undefined>();
  await fetchAgain(
    [...new Set(skillApproved.map((c) => c.server))],
    (name, _live, _surface, served) => again.set(name, served),
  );
  const refusals = recheckSkillChanges(skillApproved, again, options.skills?.allowDynamic === true);
  if (refusals.length > 0) {
    problems.push(...refusals);
    return undefined;
  }
  if (!options.skillSignatures) return signed;
  // Each skill pinned here verified over the bytes reviewed; one that fails refuses it.
  for (const c of skillApproved) {
    if (!c.liveSkill) continue; // removed: nothing is pinned
    const outcome = await options.skillSignatures.verify(c.liveSkill);
    if (!outcome.valid) {
      problems.push({ server: c.server, message: skillSignatureLine(c.server, outcome) });
    }
    signed.set(c, outcome);
  }
  return [...signed.values()].some((o) => !o.valid) ? undefined : signed;
}

/** The changes of each server in lock order: its tools' and surface's, then its skills'. */
function withSkillChanges(
  lock: { servers: Record<string, unknown> },
  changes: readonly PlannedChange[],
  skillChanges: (server: string) => PlannedChange[],
  planned: readonly string[],
): PlannedChange[] {
  const byServer = new Map<string, PlannedChange[]>();
  for (const c of changes) byServer.set(c.server, [...byServer.get(c.server) ?? [], c]);
  const out: PlannedChange[] = [];
  for (const name of Object.keys(lock.servers)) {
    out.push(...byServer.get(name) ?? []);
    if (planned.includes(name)) out.push(...skillChanges(name));
  }
  return out;
}

/**
 * Throws `INPUT_INVALID` (nothing written) when the lock at `path` no longer holds `before`,
 * the bytes the approval was planned from (or cannot be read any more).
 */
async function refuseIfChanged(
  path: string,
  before: Uint8Array,
  files: Pick<ContractFiles, "read">,
): Promise<void> {
  let now: Uint8Array | undefined;
  try {
    now = await files.read(path);
  } catch {
    now = undefined;
  }
  if (now !== undefined && now.length === before.length && now.every((b, i) => b === before[i])) {
    return;
  }
  throw new SchemaPinError(
    "INPUT_INVALID",
    `${path} changed while the changes were reviewed (another approve, init or checkout); ` +
      `nothing was written: run \`schemapin contract approve\` again`,
    { path },
  );
}
