/**
 * `schemapin contract init`: enumerate servers, write `contractpin.lock` (and the snapshot)
 * atomically — nothing is written when any server fails. Which servers, the pinning and the
 * writes are one library call (cli/contractpin/init.ts, `initLock`); this file parses the
 * flags and prints what it did.
 *
 * @module
 */
import { processConfigHost } from "../mcp_config/variables.ts";
import { DEFAULT_LOCK_FILE, lockRelative, type LockServer } from "../../lib/contractpin/lock.ts";
import { initLock } from "../contractpin/init.ts";
import { initJsonFields } from "../contractpin/json_fields.ts";
import { describeHiddenText } from "../../lib/contractpin/hidden_text.ts";
import { instructionsDigest, SURFACE_KINDS } from "../../lib/contractpin/surface.ts";
import { processEnv } from "../../lib/contractpin/secrets.ts";
import { escapeInvisible } from "../../lib/contractpin/display_text.ts";
import { asUsage, type CliIO, EXIT_FAILED, EXIT_OK, UsageError } from "./command.ts";
import { jsonOutput } from "./json_output.ts";
import { booleanFlag, type FlagTable, valueFlag } from "../args/flags.ts";
import { jsonFlag } from "./flag_groups.ts";
import {
  commandLineServers,
  CONTRACT_SERVER_FLAGS,
  contractFiles,
  DYNAMIC_SKILL_FLAGS,
  limitsFrom,
  MCP_LIMIT_FLAGS,
  parseContractArgs,
  printServerFailure,
  SKILL_CAP_FLAGS,
  skillOptionsFrom,
} from "./contract_shared.ts";
import { warnStaleLockSignature } from "./lock_signature.ts";
import {
  loadSkillSignatureCheck,
  PIN_SKILL_SIGNATURE_FLAGS,
  planSkillSignature,
  SKILL_TRUST_FLAGS,
} from "./skill_signature.ts";
import { terminalPrompt } from "./prompt.ts";
import { printDiscovery, printSkipped } from "./contract_discover.ts";
import { discoveryEnvironmentOf } from "../mcp_config/formats.ts";

const CMD = "contract init";

/** The flags of `contract init` (its limits are listed once, under the help's Limits). */
export const CONTRACT_INIT_FLAGS = {
  lock: valueFlag("FILE", "the lock to write (default contractpin.lock)"),
  force: booleanFlag("replace an existing lock: re-pin its servers plus any given"),
  ...CONTRACT_SERVER_FLAGS,
  config: valueFlag(
    "FILE",
    "pin the servers of an MCP client config (mcpServers, or VS Code's servers; JSONC)",
  ),
  discover: booleanFlag(
    "find the MCP client configs on this machine and in the project and pin their " +
      "servers",
  ),
  project: valueFlag("DIR", "the project folder --discover looks in (default .)"),
  snapshot: valueFlag(
    "FILE",
    "where to write the readable snapshot (default next to the lock: " +
      "contractpin.snapshot.json)",
  ),
  "no-snapshot": booleanFlag("write no snapshot"),
  "allow-literal-secrets": booleanFlag(
    "write a stdio command holding a literal credential as given",
  ),
  "strict-text": booleanFlag(
    "hidden text in a tool definition is a failure: nothing is written (exit 1)",
  ),
  ...DYNAMIC_SKILL_FLAGS,
  ...jsonFlag("schemapin.contract.init/1"),
  ...MCP_LIMIT_FLAGS,
  ...SKILL_CAP_FLAGS,
  // docs/contractpin-skills.md, "Signed skills": verify-schema's key sources.
  ...PIN_SKILL_SIGNATURE_FLAGS,
  ...SKILL_TRUST_FLAGS,
} as const satisfies FlagTable;

/** Runs `schemapin contract init`. */
export async function runContractInit(args: string[], io: CliIO): Promise<number> {
  const { values, tokens, command } = parseContractArgs(CMD, args, CONTRACT_INIT_FLAGS, true);
  const limits = limitsFrom(CMD, values);
  const skills = skillOptionsFrom(CMD, values);
  if (values.snapshot !== undefined && values["no-snapshot"]) {
    throw new UsageError(`${CMD}: --snapshot FILE and --no-snapshot contradict each other`);
  }
  if (values.project !== undefined && !values.discover) {
    throw new UsageError(`${CMD}: --project DIR goes with --discover`);
  }
  const json = values.json === true;
  const lockPath = values.lock ?? DEFAULT_LOCK_FILE;
  const skillPlan = planSkillSignature(CMD, values, args);

  // Servers given on the command line, in order; a --header belongs to the --http before it,
  // or to every HTTP server when it comes before the first --http; --file dumps keep their
  // place among them.
  const given = commandLineServers(
    CMD,
    { values, tokens },
    command,
    (path) => lockRelative(path, lockPath),
  );
  // The discovery environment of this process (no home folder is a usage error).
  const discover = values.discover
    ? asUsage(
      `${CMD} --discover`,
      () => discoveryEnvironmentOf(values.project ?? ".", processEnv, Deno.build.os),
    )
    : undefined;
  // The trust of --require-skill-signature, loaded before any server is started.
  const skillSignatures = skillPlan
    ? await loadSkillSignatureCheck(skillPlan, values, io, {
      json,
      ask: (q) => terminalPrompt(q, io),
    })
    : undefined;
  if (typeof skillSignatures === "number") return skillSignatures;
  const result = await asUsage(CMD, () =>
    initLock(
      {
        lockPath,
        force: values.force === true,
        given,
        config: values.config,
        configHost: processConfigHost(),
        ...(discover ? { discover } : {}),
        snapshot: values["no-snapshot"] ? null : values.snapshot,
        strictText: values["strict-text"] === true,
      },
      contractFiles(io),
      {
        ...limits,
        skills,
        ...(skillSignatures ? { skillSignatures } : {}),
        allowLiteralSecrets: values["allow-literal-secrets"] === true,
        onWarning: (message) => io.stderr(`warning: ${message}\n`),
        onDiscovery: json ? undefined : (discovery) => printDiscovery(discovery, io),
      },
    ));

  for (const o of result.outcomes) {
    // secret warnings (never the secret)
    for (const w of o.warnings) await io.stderr(`warning: server ${o.name}: ${w.message}\n`);
    if (o.skipped) {
      if (!json) await printSkipped(io, o.skipped.name, o.skipped.from, o.skipped.reason);
      continue;
    }
    if (!o.ok && (o.skillProblems || o.skillSignatures)) {
      // docs/contractpin-skills.md: one line per problem, naming the skill and the file (or
      // the skill and its signature).
      for (const line of o.failure.message.split("\n")) {
        await io.stderr(`error: ${escapeInvisible(line)}\n`);
      }
      continue;
    }
    if (!o.ok) {
      await printServerFailure(io, o.failure.message, o.failure.stderr);
      continue;
    }
    for (const n of o.notices) await io.stderr(`note: server ${o.name}: ${n.message}\n`);
  }
  // Hidden text in what is about to be trusted (issue 17 item 3): each finding is printed
  // (before anything is written, with --strict-text instead of writing) — unless a server
  // failed, which is said alone.
  const strict = values["strict-text"] === true;
  for (const o of result.error?.code === "SERVER_FAILED" ? [] : result.outcomes) {
    if (!o.ok) continue;
    for (const h of o.hiddenText) {
      await io.stderr(
        `${strict ? "error" : "warning"}: server ${o.name}: hidden text in ` +
          `${describeHiddenText(h)}\n`,
      );
    }
  }
  if (result.error) {
    await io.stderr(`error: ${result.error.message}\n`);
    // A machine reading --json learns what failed, not an empty stdout (exit 1).
    if (json) await io.stdout(jsonOutput("contract.init", initJsonFields(result)));
    return EXIT_FAILED;
  }
  await warnStaleLockSignature(result.staleSignature, lockPath, io);

  if (json) {
    await io.stdout(jsonOutput("contract.init", initJsonFields(result)));
  } else {
    for (const o of result.outcomes) {
      if (!o.ok) continue;
      const s = result.lock.servers[o.name];
      await io.stdout(
        `pinned ${o.name} (${s.transport}): ${s.tool_count} tools${surfaceCounts(s)}  ` +
          `${s.digest}\n`,
      );
    }
    await io.stdout(
      `wrote ${lockPath}` + (result.snapshotPath ? ` and ${result.snapshotPath}` : "") + "\n",
    );
  }
  return EXIT_OK;
}

/**
 * `, 2 prompts, 1 resource, instructions` for what an entry pins beyond tools
 * (docs/contractpin-surface.md §4): the kinds that hold items, and the instructions when the
 * server serves some. Empty kinds and absent instructions are pinned too (a later prompt is
 * "added") but not shown, so a tools-only server's line reads as before.
 */
function surfaceCounts(s: LockServer): string {
  const parts: string[] = [];
  for (const kind of SURFACE_KINDS) {
    const count = s[kind]?.count ?? 0;
    const noun = kind.replace("_", " ");
    if (count > 0) parts.push(`${count} ${count === 1 ? noun.replace(/s$/, "") : noun}`);
  }
  if (s.instructions && s.instructions.digest !== NO_INSTRUCTIONS) parts.push("instructions");
  if (s.skills) parts.push(`${s.skills.count} skill${s.skills.count === 1 ? "" : "s"}`);
  return parts.length ? ", " + parts.join(", ") : "";
}

/** The instructions digest of a server that serves none. */
const NO_INSTRUCTIONS = instructionsDigest(null);
