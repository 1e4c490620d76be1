/**
 * `schemapin guard wrap CONFIG` / `schemapin guard unwrap CONFIG`: put the guard in front of
 * every server of an MCP client config (each with its contractpin.lock entry), and take it
 * out again. What is wrapped, with which lock entry and port, and the schemapin the client
 * starts are cli/guard/wrap_plan.ts; reading the config, the edit, its read-back check and the
 * backup are cli/mcp_config/; this file parses the flags, gives them the files (written
 * atomically: temporary file + rename; nothing is written when anything is wrong) and prints what
 * was done.
 *
 * @module
 */
import { shellQuote } from "../../lib/contractpin/display_text.ts";
import { configContextFor, processConfigHost } from "../mcp_config/variables.ts";
import { readClientConfigFile } from "../mcp_config/read.ts";
import { type ConfigFiles, unwrapConfigFile } from "../mcp_config/wrap.ts";
import { DEFAULT_GUARD_PORT, describeWrapProblem, wrapConfigFile } from "../guard/wrap_plan.ts";
import {
  asUsage,
  type CliIO,
  EXIT_OK,
  EXIT_USAGE,
  parseCommandArgs,
  UsageError,
} from "./command.ts";
import { exists, readInput, writeFileAtomic } from "./io.ts";
import { booleanFlag, type FlagTable, valueFlag } from "../args/flags.ts";

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

async function printDroppedComments(entries: readonly string[], io: CliIO): Promise<void> {
  for (const p of entries) {
    await io.stdout(`note: comments inside the replaced members of ${p} were dropped\n`);
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
  const configPath = positionals[0];
  const result = await asUsage("guard wrap", () =>
    wrapConfigFile({
      configPath,
      context: configContextFor(configPath, values.project ?? ".", processConfigHost()),
      lock: values.lock,
      mode: values.mode,
      port: values.port,
      partial: values.partial === true,
      schemapinCommand: values["schemapin-command"],
      env: (name) => Deno.env.get(name),
      denoPath: Deno.build.standalone ? undefined : Deno.execPath(),
    }, configFiles(io)));
  const { plan, lockPath, written } = result;

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
        const reason = describeWrapProblem(o.problem, configPath, lockPath);
        if (o.disabled) lines.push(`left ${o.name} as it is (disabled): ${reason}`);
        else problems.push(`${o.name}: ${reason}`);
      }
    }
  }
  if (result.blocked) {
    await io.stderr(
      `error: guard wrap: ${problems.length} server(s) of ${configPath} cannot run through the ` +
        `guard; nothing was written:\n${problems.map((p) => `  ${p}\n`).join("")}` +
        `(fix them, or wrap the others with --partial)\n`,
    );
    return EXIT_USAGE;
  }
  for (const p of problems) lines.push(`left ${p.replace(":", " unguarded:")}`);
  await io.stdout(lines.map((l) => l + "\n").join(""));
  if (!written) {
    await io.stdout(`nothing to change in ${configPath}\n`);
    return EXIT_OK;
  }
  await printDroppedComments(written.droppedComments, io);
  const httpStarts = plan.outcomes.flatMap((o) =>
    o.status === "wrapped" && o.transport === "http" ? [o.guardArgs] : []
  );
  if (httpStarts.length > 0) {
    await io.stdout(
      `HTTP servers: a client cannot start their guards; start each (and keep it running):\n` +
        httpStarts.map((c) => `  ${[...written.program, ...c].map(shellQuote).join(" ")}\n`)
          .join(""),
    );
  }
  await io.stdout(
    `wrote ${configPath}` +
      (written.backupWritten
        ? ` (backup: ${written.backupPath})`
        : ` (backup of the unwrapped file kept: ${written.backupPath})`) +
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
  const context = configContextFor(configPath, values.project ?? ".", processConfigHost());
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
  await printDroppedComments(result.droppedComments, io);
  await io.stdout(
    result.exact
      ? `restored ${configPath} exactly as it was before wrapping (from ${result.backupPath})\n`
      : `restored the commands in ${configPath} in place` +
        (result.backupExists
          ? ` (it changed since it was wrapped, so ${result.backupPath} was not copied back)`
          : "") +
        "\n",
  );
  // The backup stays (the next wrap writes a new one): said, so it is not a surprise.
  if (result.exact || result.backupExists) {
    await io.stdout(
      `left the backup ${result.backupPath} in place (` +
        (result.exact ? "the same bytes as the restored file" : "the file before wrapping") +
        "); delete it when you no longer need it\n",
    );
  }
  return EXIT_OK;
}

/** Help text of wrap/unwrap, for the guard's --help. */
export const WRAP_HELP =
  `  schemapin guard wrap CONFIG [--lock FILE] [--mode MODE] [--port N] [--partial]
      [--schemapin-command PATH] [--project DIR]
  schemapin guard unwrap CONFIG [--project DIR]`;
