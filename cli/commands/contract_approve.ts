/**
 * `schemapin contract approve`: review each change of live servers against `contractpin.lock`
 * — drifted (with the readable diff), added (the whole new definition), removed — together
 * with the hidden text of every live tool, and pin only what was approved (issue 17 item 1).
 * On a terminal it asks per change; elsewhere it takes `--yes` with explicit `--tool` names and
 * never approves anything implicitly. Servers are enumerated exactly as `contract verify` does
 * it (the same `verifyLock`, identities and config handling, contractpin spec §6). The review
 * — planning, selecting, applying, refusing a lock changed underneath — is the library's
 * (cli/contractpin/approve_lock.ts, `approveLock`); this file parses the flags, asks on the
 * terminal and prints. A skill served over MCP (`--skill URI`, docs/contractpin-skills.md) is
 * shown with the line diffs of its files and pinned from the bytes shown.
 *
 * Exit codes: 0 nothing is left unapproved; 1 changes (or an unreachable server) remain, so
 * CI keeps failing; 2 bad input, including a refusal to approve without explicit names.
 *
 * @module
 */
import { processConfigHost } from "../mcp_config/variables.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import type { PlannedChange } from "../contractpin/approve_plan.ts";
import { APPROVE_FLAGS } from "../contractpin/approve_command.ts";
import { approveCommands } from "../contractpin/approve_commands.ts";
import { approveTargets, isYes } from "../contractpin/approve_text.ts";
import { approveLock } from "../contractpin/approve_lock.ts";
import { approveJsonFields } from "../contractpin/json_fields.ts";
import { itemLabel } from "../../lib/contractpin/surface.ts";
import { escapeInvisible, shellLine } from "../../lib/contractpin/display_text.ts";
import { DEFAULT_LOCK_FILE } from "../../lib/contractpin/lock.ts";
import { parseHeader } from "../mcp/header_option.ts";
import { asUsage, type CliIO, EXIT_FAILED, EXIT_OK } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { booleanFlag, type FlagTable, listFlag, valueFlag } from "../args/flags.ts";
import { jsonFlag } from "./flag_groups.ts";
import {
  contractFiles,
  DYNAMIC_SKILL_FLAGS,
  limitsFrom,
  MCP_LIMIT_FLAGS,
  parseContractArgs,
  SKILL_CAP_FLAGS,
  skillOptionsFrom,
} from "./contract_shared.ts";
import { skillTargets } from "../contractpin/skills_approve.ts";
import { warnStaleLockSignature } from "./lock_signature.ts";
import {
  loadSkillSignatureCheck,
  PIN_SKILL_SIGNATURE_FLAGS,
  planSkillSignature,
  SKILL_TRUST_FLAGS,
} from "./skill_signature.ts";
import { terminalPrompt } from "./prompt.ts";

const CMD = "contract approve";

/** The flags of `contract approve` (its limits are listed once, under the help's Limits). */
export const CONTRACT_APPROVE_FLAGS = {
  lock: valueFlag("FILE", "the lock to update in place (default contractpin.lock)"),
  server: listFlag(
    "NAME",
    "only this server's changes (picks the server of a name that changed on several); " +
      "repeatable",
  ),
  tool: listFlag("NAME", "approve the change of this tool (needed with --yes); repeatable"),
  // docs/contractpin-surface.md §6: the rest of the model-visible surface.
  prompt: listFlag("NAME", "approve the change of this prompt; repeatable"),
  resource: listFlag("URI", "approve the change of this resource; repeatable"),
  "resource-template": listFlag(
    "TEMPLATE",
    "approve the change of this resource template; repeatable",
  ),
  instructions: booleanFlag("approve the change of the server instructions"),
  // docs/contractpin-skills.md, "Approve": a skill served over MCP, re-pinned from live.
  skill: listFlag("URI", "approve the change of this skill (its SKILL.md URI); repeatable"),
  ...DYNAMIC_SKILL_FLAGS,
  yes: booleanFlag("approve the named changes without asking (off a terminal: required)"),
  snapshot: valueFlag("FILE", "the snapshot to diff against and update (default next to the lock)"),
  config: valueFlag("FILE", "run the servers as this MCP client config defines them"),
  header: listFlag(
    "'NAME: VALUE'",
    "an HTTP header for every HTTP server (never written); repeatable",
  ),
  ...jsonFlag("schemapin.contract.approve/1"),
  ...MCP_LIMIT_FLAGS,
  ...SKILL_CAP_FLAGS,
  // docs/contractpin-skills.md, "Signed skills": verify-schema's key sources.
  ...PIN_SKILL_SIGNATURE_FLAGS,
  ...SKILL_TRUST_FLAGS,
} as const satisfies FlagTable;

/** Where approve asks its questions: the process terminal, or none. */
export interface ApproveTerminal {
  /** True when stdin and stdout are both terminals (a person can answer). */
  readonly interactive: boolean;
  /** Colour the diffs (a terminal, and NO_COLOR unset). */
  readonly color: boolean;
  /** Prints `question` and reads one line; `undefined` at end of input. */
  ask(question: string): Promise<string | undefined>;
}

/** The process terminal: interactive when stdin and stdout are TTYs; colour there unless
 * NO_COLOR is set (https://no-color.org). */
function processTerminal(): ApproveTerminal {
  const interactive = Deno.stdin.isTerminal() && Deno.stdout.isTerminal();
  const noColor = (Deno.env.get("NO_COLOR") ?? "") !== "";
  let ended = false;
  return {
    interactive,
    color: interactive && !noColor,
    async ask(question: string): Promise<string | undefined> {
      const enc = new TextEncoder().encode(question);
      for (let n = 0; n < enc.length;) n += await Deno.stdout.write(enc.subarray(n));
      if (ended) return undefined;
      const buf = new Uint8Array(1);
      const bytes: number[] = [];
      for (;;) {
        const n = await Deno.stdin.read(buf);
        if (n === null) {
          ended = true;
          if (bytes.length === 0) return undefined;
          break;
        }
        if (buf[0] === 0x0a) break;
        if (bytes.length < 1024) bytes.push(buf[0]);
      }
      return new TextDecoder().decode(new Uint8Array(bytes));
    },
  };
}

/**
 * Runs `schemapin contract approve` on the process terminal.
 *
 * @example
 * ```ts ignore
 * const code = await runContractApprove(["--yes", "--server", "search", "--tool", "fetch"], io);
 * ```
 */
export function runContractApprove(args: string[], io: CliIO): Promise<number> {
  return approveWith(args, io, processTerminal());
}

const RESET = "\x1b[0m";
/** The colour of a diff line by how it starts (the file headers stay plain). */
const PAINTS = [["+++", ""], ["---", ""], ["+", "\x1b[32m"], ["-", "\x1b[31m"], ["@@", "\x1b[36m"]];

/** `server/item` of a change, its invisible characters shown as code points. */
function nameOf(c: PlannedChange): string {
  return escapeInvisible(`${c.server}/${itemLabel(c.kind, c.tool)}`);
}

/** One change in a list: what changed, padded, and its name. */
function listLine(c: PlannedChange): string {
  return `  ${c.change.padEnd(8)} ${nameOf(c)}`;
}

/** One change as a reviewer reads it: heading, diff (escaped), hidden-text findings. */
function renderChange(c: PlannedChange, color: boolean): string {
  const name = nameOf(c);
  const lines: string[] = [];
  if (c.kind === "instructions") {
    lines.push(`drifted  ${name}`);
  } else if (c.change === "drifted") {
    const fields = c.changedFields === null
      ? "changed (the lock has no field digests)"
      : c.changedFields.join(", ") || "changed";
    lines.push(`drifted  ${name}: ${fields}`);
  } else {
    lines.push(`${c.change.padEnd(8)} ${name}`);
  }
  if (c.diff) {
    for (const raw of c.diff.trimEnd().split("\n")) {
      const l = escapeInvisible(raw);
      const paint = color ? PAINTS.find(([start]) => l.startsWith(start))?.[1] ?? "" : "";
      lines.push("    " + (paint ? paint + l + RESET : l));
    }
  } else if (c.change === "drifted") {
    lines.push("    (no snapshot entry for the pinned side: only the changed fields are known)");
  } else if (c.change === "removed") {
    lines.push("    (no snapshot entry: the removed definition cannot be shown)");
  }
  for (const f of c.hiddenText) {
    const where = f.in === "key" ? `${f.pointer} (key)` : f.pointer;
    lines.push(
      `    hidden text: ${escapeInvisible(where)} @${f.offset} ${f.kind}: ` +
        `${escapeInvisible(f.message)} — "${escapeInvisible(f.excerpt)}"`,
    );
  }
  return lines.join("\n") + "\n";
}

/**
 * Runs `schemapin contract approve` with the given terminal (tests pass their own).
 *
 * @example
 * ```ts ignore
 * const never = { interactive: false, color: false, ask: () => Promise.resolve(undefined) };
 * await approveWith(["--yes", "--tool", "fetch"], io, never);
 * ```
 */
export async function approveWith(
  args: string[],
  io: CliIO,
  terminal: ApproveTerminal,
): Promise<number> {
  const { values } = parseContractArgs(CMD, args, CONTRACT_APPROVE_FLAGS);
  const limits = { ...limitsFrom(CMD, values), skills: skillOptionsFrom(CMD, values) };
  const lockPath = values.lock ?? DEFAULT_LOCK_FILE;
  const json = values.json === true;
  const yes = values.yes === true;
  const interactive = terminal.interactive && !yes && !json;
  const resource_template = values["resource-template"];
  const { tools, others } = asUsage(CMD, () => {
    const targets = approveTargets({ ...values, resource_template });
    return { ...targets, others: [...targets.others, ...skillTargets(values.skill)] };
  });
  let shown = 0; // the problems printed before anything was asked
  // docs/contractpin-skills.md, "Signed skills": the trust loaded before any server is started.
  const skillPlan = planSkillSignature(CMD, values, args);
  const skillSignatures = skillPlan
    ? await loadSkillSignatureCheck(skillPlan, values, io, {
      json,
      ask: (q) => terminalPrompt(q, io),
    })
    : undefined;
  if (typeof skillSignatures === "number") return skillSignatures;

  const result = await asUsage(CMD, () =>
    approveLock(
      {
        lockPath,
        snapshot: values.snapshot,
        config: values.config,
        configHost: processConfigHost(),
        headers: (values.header ?? []).map(parseHeader),
        servers: values.server ?? [],
        tools,
        others,
        yes,
      },
      contractFiles(io),
      {
        ...limits,
        ...(skillSignatures ? { skillSignatures } : {}),
        onSnapshotIgnored: (message) =>
          io.stderr(`warning: snapshot ignored, diffs unavailable: ${message}\n`),
        // Servers that could not be checked or approved are said first, whatever is refused next.
        onPlan: async (_changes, problems) => {
          if (!json) {
            for (const p of problems) await io.stderr(`error: ${escapeInvisible(p.message)}\n`);
          }
          shown = problems.length;
        },
        ...(interactive
          ? {
            ask: async (c: PlannedChange) => {
              await io.stdout(renderChange(c, terminal.color));
              const answer = await terminal.ask(`approve ${nameOf(c)}? [y/N] `);
              if (answer === undefined) await io.stdout("\n");
              return isYes(answer);
            },
          }
          : {}),
        onApproved: async (c) => {
          const flag = APPROVE_FLAGS[c.kind ?? "tool"];
          if (!json) await io.stdout(renderChange(c, false) + `    approved (--yes ${flag})\n`);
        },
      },
    ));
  const { changes, problems, approved, left, written, ok } = result;
  if (result.refused) {
    // Not a terminal (or --json): only --yes with explicit names approves, never a bare run.
    const why = json
      ? "--json does not ask"
      : "stdin and stdout are not both a terminal, so there is no one to ask";
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${CMD}: ${why}; approve reviewed changes with --yes and --tool NAME for each (--server ` +
        `NAME when a tool changed on several servers); nothing is approved implicitly. The ` +
        `changes are:\n` +
        changes.map(listLine).join("\n"),
      { reason: "not_interactive" },
    );
  }
  // Problems found after the review (a skill that changed before the write) are said too.
  if (!json) {
    for (const p of problems.slice(shown)) {
      await io.stderr(`error: ${escapeInvisible(p.message)}\n`);
    }
  }
  await warnStaleLockSignature(result.staleSignature, lockPath, io);

  if (json) {
    await io.stdout(jsonOutput("contract.approve", approveJsonFields(result)));
  } else {
    if (changes.length === 0 && problems.length === 0) {
      await io.stdout(`nothing to approve: every selected server matches ${lockPath}\n`);
    }
    if (left.length > 0) {
      await io.stdout("left unapproved:\n");
      for (const c of left) await io.stdout(listLine(c) + "\n");
    }
    if (changes.length > 0 || approved.length > 0) {
      await io.stdout(
        `approved ${approved.length}, left ${left.length}` +
          (written
            ? `: wrote ${lockPath}` + (result.snapshotPath ? ` and ${result.snapshotPath}` : "")
            : `: ${lockPath} not changed`) +
          "\n",
      );
    }
  }
  if (!ok && !json && left.length > 0 && !interactive) {
    for (const { argv } of approveCommands(lockPath, left)) {
      await io.stderr(`after review: ${escapeInvisible(shellLine(argv))}\n`);
    }
  }
  return ok ? EXIT_OK : EXIT_FAILED;
}
