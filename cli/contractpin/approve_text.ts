/**
 * The CLI's words for `contract approve` (issue 36 item 2): the names given with `--tool`,
 * `--prompt`, `--resource`, `--resource-template` and `--instructions` as the targets of
 * approve_plan.ts, the messages of a selection that picks nothing (`matchChanges`) and of a
 * server that cannot be approved (`approvalRefusal`), and a person's answer to
 * `approve? [y/N]`.
 *
 * @module
 */
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import {
  approvalRefusal,
  type ApproveTarget,
  matchChanges,
  type PlannedChange,
} from "./approve_plan.ts";
import { APPROVE_FLAGS } from "./approve_command.ts";
import type { ServerReport } from "../../lib/contractpin/report.ts";
import { itemLabel } from "../../lib/contractpin/surface.ts";

/** One line per change (`  drifted  srv/tool`), for messages that list the changes. */
function listChanges(changes: readonly PlannedChange[]): string {
  if (changes.length === 0) return "there are no changes to approve";
  return "the changes are:\n" +
    changes.map((c) => `  ${c.change.padEnd(8)} ${c.server}/${itemLabel(c.kind, c.tool)}`)
      .join("\n");
}

/** The message of no name at all, naming the options of the kinds that changed. */
function noNameMessage(changes: readonly PlannedChange[]): string {
  return `name each change to approve with --tool NAME (nothing is approved implicitly)` +
    // docs/contractpin-surface.md §6: the other kinds' options, when such a change is listed.
    (changes.some((c) => (c.kind ?? "tool") !== "tool")
      ? `; the other kinds with --prompt NAME, --resource URI, --resource-template ` +
        `TEMPLATE, --instructions` +
        (changes.some((c) => c.kind === "skill") ? ", --skill URI" : "")
      : "") +
    `; ` + listChanges(changes);
}

/**
 * Picks the changes named by `--tool` (and `--server`): every name must be the tool of a
 * current change; a name that changed on several servers needs `--server` to say which
 * (`servers` given: every match on those servers is picked). Never picks anything that was not
 * named: an empty `tools` is an error, not "all" (`matchChanges` of
 * approve_plan.ts).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming the tool (unknown, or changed on several
 * servers without `--server`), the message listing the current changes
 *
 * @example
 * ```ts
 * import { selectChanges } from "./approve_text.ts";
 * import type { PlannedChange } from "./approve_plan.ts";
 * const changes: PlannedChange[] = [
 *   { server: "a", tool: "t", change: "added", locked: null, live: null, changedFields: null,
 *     diff: "", hiddenText: [] },
 * ];
 * selectChanges(changes, ["t"]).length; // 1
 * ```
 */
export function selectChanges(
  changes: readonly PlannedChange[],
  tools: readonly string[],
  servers: readonly string[] = [],
  others: readonly ApproveTarget[] = [],
): PlannedChange[] {
  checkArg("selectChanges", "changes", changes, "array");
  checkArg("selectChanges", "tools", tools, "array");
  checkArg("selectChanges", "servers", servers, "array");
  checkArg("selectChanges", "others", others, "array");
  const targets = [...tools.map((key) => ({ kind: "tool" as const, key })), ...others];
  const { picked, problem } = matchChanges(changes, targets, servers);
  if (picked) return picked;
  if (problem.reason === "no_tool") {
    throw new SchemaPinError("INPUT_INVALID", noNameMessage(changes), { reason: "no_tool" });
  }
  const { target } = problem;
  const flag = target.kind === "instructions"
    ? "--instructions"
    : `${APPROVE_FLAGS[target.kind]} ${JSON.stringify(target.key)}`;
  const details = target.kind === "tool"
    ? { tool: target.key }
    : { kind: target.kind, item: target.key };
  if (problem.reason === "unknown_tool") {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${flag} names no current change` +
        (servers.length ? ` on ${servers.join(", ")}` : "") + `; ${listChanges(changes)}`,
      { ...details, reason: "unknown_tool" },
    );
  }
  throw new SchemaPinError(
    "INPUT_INVALID",
    `${flag} changed on several servers (${
      problem.matches.map((c) => c.server).join(", ")
    }); say which with --server NAME; ${listChanges(changes)}`,
    { ...details, reason: "ambiguous_tool" },
  );
}

/**
 * Why the changes of a verified server cannot be approved (it stays a failure), for people
 * (`approvalRefusal` of approve_plan.ts): it could not be checked, it is configured
 * but not pinned, its configured command or URL is not the pinned one, or its lock entry was
 * edited by hand; `undefined` when they can be.
 *
 * @example
 * ```ts ignore
 * import { approvalProblem } from "./approve_text.ts";
 * for (const s of report.servers) console.log(approvalProblem(s, "contractpin.lock") ?? "ok");
 * ```
 */
export function approvalProblem(s: ServerReport, lockPath: string): string | undefined {
  switch (approvalRefusal(s)) {
    case "unreachable":
      return `server ${s.name} could not be checked: ${s.error?.message ?? "unreachable"}`;
    case "unpinned":
      return `server ${s.name} is configured but not in ${lockPath}: pin it with ` +
        "`schemapin contract init --force --config …`";
    case "identity_changed":
      return `server ${s.name}: the configured command or URL differs from the pinned one; its ` +
        "tools are not approved from another server (re-pin it with `schemapin contract init " +
        "--force`)";
    case "lock_inconsistent":
      return `server ${s.name}: the lock's server digest does not match its tool digests (the ` +
        "lock was edited by hand); approve does not build on it";
    case undefined:
      return undefined;
  }
}

/**
 * A person's answer to `approve? [y/N]`: `y` or `yes` (any case, surrounding blanks ignored)
 * approves; anything else does not, and end of input (`undefined`) is no.
 *
 * @example
 * ```ts
 * import { isYes } from "./approve_text.ts";
 * isYes("Y"); // true
 * isYes("yes please"); // false
 * ```
 */
export function isYes(answer: string | undefined): boolean {
  return answer !== undefined && /^\s*y(es)?\s*$/i.test(answer);
}

/** The names `contract approve` was given, by kind (each kind's option of APPROVE_FLAGS). */
export interface ApproveNames {
  /** `--tool NAME`, repeatable. */
  readonly tool?: readonly string[];
  /** `--prompt NAME`, repeatable. */
  readonly prompt?: readonly string[];
  /** `--resource URI`, repeatable. */
  readonly resource?: readonly string[];
  /** `--resource-template TEMPLATE`, repeatable. */
  readonly resource_template?: readonly string[];
  /** `--instructions`. */
  readonly instructions?: boolean;
}

/** What the key of each kind is, for the message of an empty one. */
const KEY_NAMES = [
  ["prompt", "a prompt name"],
  ["resource", "a resource URI"],
  ["resource_template", "a URI template"],
] as const;

/**
 * The changes `names` allows `approveLock` (cli/contractpin/approve_lock.ts) to approve: the
 * tool names, and the prompts, resources, templates and instructions as targets, in that order.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) for an empty name,
 *   naming its option.
 *
 * @example
 * ```ts
 * import { approveTargets } from "./approve_text.ts";
 * approveTargets({ tool: ["fetch"], instructions: true }).others;
 * // [{ kind: "instructions", key: "instructions" }]
 * ```
 */
export function approveTargets(names: ApproveNames): { tools: string[]; others: ApproveTarget[] } {
  const tools = [...names.tool ?? []];
  if (tools.includes("")) throw usageError("--tool needs a tool name", { option: "tool" });
  const others: ApproveTarget[] = [];
  for (const [kind, what] of KEY_NAMES) {
    for (const key of names[kind] ?? []) {
      if (key === "") throw usageError(`${APPROVE_FLAGS[kind]} needs ${what}`, { option: kind });
      others.push({ kind, key });
    }
  }
  if (names.instructions) others.push({ kind: "instructions", key: "instructions" });
  return { tools, others };
}
