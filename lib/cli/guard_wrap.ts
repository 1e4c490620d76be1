/**
 * `schemapin guard wrap CONFIG` / `schemapin guard unwrap CONFIG`: put the guard in front of
 * every server of an MCP client config (each with its contractpin.lock entry), and take it
 * out again. What is wrapped, with which lock entry and port, the read-back check of the edit
 * and the backup are lib/guard/wrap_config.ts (the text edits lib/guard/wrap.ts); this file
 * parses the flags, reads the inputs, writes atomically (temporary file + rename; nothing is
 * written when anything is wrong) and prints what was done.
 *
 * @module
 */
import { resolve } from "node:path";
import { shellQuote } from "../contractpin/display_text.ts";
import { SchemaPinError } from "../errors.ts";
import { configContextFor } from "../contractpin/config.ts";
import { DEFAULT_LOCK_FILE, readLock } from "../contractpin/lock.ts";
import type { GuardInvocation } from "../guard/wrap.ts";
import {
  applyWrap,
  type ConfigFiles,
  planWrap,
  readClientConfigFile,
  unwrapConfigFile,
  type WrapProblem,
  writeWrappedConfig,
} from "../guard/wrap_config.ts";
import { type CliIO, EXIT_OK, EXIT_USAGE, parseCommandArgs, UsageError } from "./command.ts";
import { configHost } from "./contract_shared.ts";
import { exists, readInput, writeFileAtomic } from "./io.ts";
import { booleanFlag, type FlagTable, valueFlag } from "./flags.ts";
import { type EnvLookup, findSchemapinOnPath, schemapinProgram } from "../guard/schemapin_path.ts";

/** The loopback port of the first wrapped HTTP server (the next ones count up). */
export const DEFAULT_GUARD_PORT = 8931;

/**
 * How a client starts schemapin: the `schemapin` found on PATH (its absolute path, as
 * `command -v` finds it), never a path inside a package-manager cache nor the Deno runtime of
 * this process — both vanish when the cache is cleaned. None usable: a usage error naming
 * --schemapin-command and what was found.
 */
export function defaultSchemapinCommand(env: EnvLookup = (n) => Deno.env.get(n)): string[] {
  const found = findSchemapinOnPath(env, {
    denoPath: Deno.build.standalone ? undefined : Deno.execPath(),
  });
  if (found.path !== undefined) return [found.path];
  const seen = found.candidates.length === 0
    ? "no schemapin on PATH"
    : `only ${found.candidates.map((c) => `${c.path} (${c.rejected})`).join(", ")}, which ` +
      "a client config cannot rely on: it disappears when that cache is cleaned";
  throw new UsageError(
    `guard wrap: ${seen}; install schemapin on PATH (e.g. the compiled binary in ` +
      "~/.local/bin), or give the command the client should run with --schemapin-command PATH",
  );
}

const PROJECT_FLAGS = {
  project: valueFlag(
    "DIR",
    "the project folder: ${workspaceFolder} and Claude Code's per-project servers " +
      "(default .)",
  ),
} as const satisfies FlagTable;

/** The flags of `guard wrap`. */
export const WRAP_FLAGS = {
  lock: valueFlag(
    "FILE",
    "the lock whose entries the wrapped servers are checked against (default " +
      "contractpin.lock)",
  ),
  mode: valueFlag("MODE", "the guard's --mode for every wrapped server: enforce, filter or audit"),
  port: valueFlag(
    "PORT",
    `the loopback port of the first wrapped HTTP server (default ${DEFAULT_GUARD_PORT}; ` +
      "the next ones count up)",
  ),
  partial: booleanFlag(
    "wrap the servers that are pinned and leave the others (default: a server that is " +
      "not pinned stops the wrap)",
  ),
  "schemapin-command": valueFlag(
    "PATH",
    "how the client starts schemapin (default: the schemapin found on PATH, never one " +
      "inside a package-manager cache)",
  ),
  ...PROJECT_FLAGS,
} as const satisfies FlagTable;

/** The flags of `guard unwrap`. */
export const UNWRAP_FLAGS = { ...PROJECT_FLAGS } as const satisfies FlagTable;

/** The config and its backup, written atomically (temporary file + rename). */
function configFiles(io: CliIO): ConfigFiles {
  return {
    exists,
    read: (path) => readInput(path, io),
    write: (path, text, mode) => writeFileAtomic(path, text, { overwrite: true, mode }),
  };
}

/** Why an entry cannot run through the guard, with what to do about it. */
function describeProblem(p: WrapProblem, configPath: string, lockPath: string): string {
  switch (p.kind) {
    case "unusable":
      return p.problem;
    case "not_pinned":
      return `not pinned in ${lockPath}; pin it first: schemapin contract init --force --config ` +
        `${shellQuote(configPath)} (or --discover)`;
    case "pinned_differently":
      return `${lockPath} pins ${p.candidates.join(", ")} from a different definition; re-pin ` +
        `it: schemapin contract init --force --config ${shellQuote(configPath)}`;
    case "url_variable":
      return "its URL holds a variable; the guard's --upstream needs the URL itself";
  }
}

/** Runs `schemapin guard wrap` or `schemapin guard unwrap`. */
export async function runGuardWrap(
  sub: "wrap" | "unwrap",
  args: string[],
  io: CliIO,
): Promise<number> {
  return sub === "wrap" ? await wrap(args, io) : await unwrap(args, io);
}

async function wrap(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("guard wrap", args, WRAP_FLAGS);
  if (positionals.length !== 1) {
    throw new UsageError(`guard wrap: expected one CONFIG file, got ${positionals.length}`);
  }
  const mode = values.mode;
  if (mode !== undefined && !["enforce", "filter", "audit"].includes(mode)) {
    throw new UsageError(`guard wrap: --mode must be enforce, filter or audit (got ${mode})`);
  }
  const firstPort = values.port === undefined ? DEFAULT_GUARD_PORT : Number(values.port);
  if (!Number.isInteger(firstPort) || firstPort < 1 || firstPort > 65535) {
    throw new UsageError(`guard wrap: --port must be a port number (got ${values.port})`);
  }
  const given = values["schemapin-command"];
  if (given === "") throw new UsageError("guard wrap: --schemapin-command is empty");
  const configPath = positionals[0];
  const project = values.project ?? ".";
  const lockPath = resolve(values.lock ?? DEFAULT_LOCK_FILE);
  const context = configContextFor(configPath, project, configHost());
  const file = await readClientConfigFile(configPath, configFiles(io).read, context);
  const lock = await readLock(values.lock ?? DEFAULT_LOCK_FILE, (p) => readInput(p, io));
  let plan;
  try {
    plan = planWrap(file, lock, { lockPath, firstPort, ...(mode ? { mode } : {}) });
  } catch (e) {
    if (e instanceof SchemaPinError && e.details.noPortLeft === true) {
      throw new UsageError("guard wrap: no port left above --port");
    }
    throw e;
  }

  const lines: string[] = [];
  const problems: string[] = [];
  for (const o of plan.outcomes) {
    switch (o.status) {
      case "already_wrapped":
        lines.push(
          `already wrapped ${o.name}` +
            (o.wrapped.kind === "stdio" && o.wrapped.lockName
              ? ` (lock entry ${o.wrapped.lockName})`
              : "") +
            `: ${o.wrapped.shown}`,
        );
        break;
      case "wrapped":
        lines.push(
          `wrapped ${o.name} (lock entry ${o.lockName})` +
            (o.transport === "http" ? `: the client now connects to ${o.local}` : ""),
        );
        break;
      case "unguarded": {
        const reason = describeProblem(o.problem, configPath, lockPath);
        if (o.disabled) lines.push(`left ${o.name} as it is (disabled): ${reason}`);
        else problems.push(`${o.name}: ${reason}`);
      }
    }
  }
  if (problems.length > 0 && !values.partial) {
    await io.stderr(
      `error: guard wrap: ${problems.length} server(s) of ${configPath} cannot run through the ` +
        `guard; nothing was written:\n${problems.map((p) => `  ${p}\n`).join("")}` +
        `(fix them, or wrap the others with --partial)\n`,
    );
    return EXIT_USAGE;
  }
  for (const p of problems) lines.push(`left ${p.replace(":", " unguarded:")}`);
  if (plan.edits.length === 0) {
    await io.stdout(lines.map((l) => l + "\n").join(""));
    await io.stdout(`nothing to change in ${configPath}\n`);
    return EXIT_OK;
  }

  // The command the client runs, looked up only when something is to be written.
  const program = given !== undefined ? [schemapinProgram(given)] : defaultSchemapinCommand();
  const inv: GuardInvocation = { program, lockPath, ...(mode ? { mode } : {}) };
  const result = applyWrap(file, plan.edits, inv, context);
  const { backupWritten, backupPath } = await writeWrappedConfig(
    file,
    result.text,
    plan.hadWrapped,
    configFiles(io),
  );

  await io.stdout(lines.map((l) => l + "\n").join(""));
  for (const p of result.droppedComments) {
    await io.stdout(`note: comments inside the replaced members of ${p} were dropped\n`);
  }
  const httpStarts = plan.outcomes.flatMap((o) =>
    o.status === "wrapped" && o.transport === "http" ? [o.guardArgs] : []
  );
  if (httpStarts.length > 0) {
    await io.stdout(
      `HTTP servers: a client cannot start their guards; start each (and keep it running):\n` +
        httpStarts.map((c) => `  ${[...program, ...c].map(shellQuote).join(" ")}\n`).join(""),
    );
  }
  await io.stdout(
    `wrote ${configPath}` +
      (backupWritten
        ? ` (backup: ${backupPath})`
        : ` (backup of the unwrapped file kept: ${backupPath})`) +
      `; restart the client. Undo: schemapin guard unwrap ${shellQuote(configPath)}\n`,
  );
  return EXIT_OK;
}

async function unwrap(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCommandArgs("guard unwrap", args, UNWRAP_FLAGS);
  if (positionals.length !== 1) {
    throw new UsageError(`guard unwrap: expected one CONFIG file, got ${positionals.length}`);
  }
  const configPath = positionals[0];
  const context = configContextFor(configPath, values.project ?? ".", configHost());
  const file = await readClientConfigFile(configPath, configFiles(io).read, context);
  const result = await unwrapConfigFile(file, configFiles(io));
  if (result.unwrapped.length === 0) {
    await io.stdout(
      `nothing to unwrap: no server in ${configPath} runs through schemapin guard; ` +
        `the file was not changed\n`,
    );
    return EXIT_OK;
  }
  for (const { name, wrapped } of result.unwrapped) {
    await io.stdout(`unwrapped ${name}: ${wrapped.shown}\n`);
  }
  for (const p of result.droppedComments) {
    await io.stdout(`note: comments inside the replaced members of ${p} were dropped\n`);
  }
  await io.stdout(
    result.exact
      ? `restored ${configPath} exactly as it was before wrapping (from ${result.backupPath})\n`
      : `restored the commands in ${configPath} in place` +
        (result.backupExists
          ? ` (it changed since it was wrapped, so ${result.backupPath} was not copied back)`
          : "") +
        "\n",
  );
  return EXIT_OK;
}

/** Help text of wrap/unwrap, for the guard's --help. */
export const WRAP_HELP =
  `  schemapin guard wrap CONFIG [--lock FILE] [--mode MODE] [--port N] [--partial]
      [--schemapin-command PATH] [--project DIR]
  schemapin guard unwrap CONFIG [--project DIR]`;
