/**
 * The `schemapin contract approve` command line that approves named changes (issue 17 item 1):
 * what `contract verify` prints and gives a bot, and what the guard's remedy names
 * (cli/guard/remedy_text.ts). The CLI's other approve texts are in approve_text.ts and
 * approve_commands.ts.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { DEFAULT_LOCK_FILE } from "../../lib/contractpin/lock.ts";
import type { ItemKind } from "../../lib/contractpin/surface.ts";

/** The `contract approve` option of each kind. */
export const APPROVE_FLAGS: Readonly<Record<ItemKind, string>> = {
  tool: "--tool",
  prompt: "--prompt",
  resource: "--resource",
  resource_template: "--resource-template",
  instructions: "--instructions",
  skill: "--skill",
};

function targetArgs(t: { readonly kind: ItemKind; readonly key: string }): string[] {
  return t.kind === "instructions" ? ["--instructions"] : [APPROVE_FLAGS[t.kind], t.key];
}

/** Options of {@linkcode approveCommand}. */
export interface ApproveCommandOptions {
  /** Append `--yes` (default true: the non-interactive form a bot runs). */
  readonly yes?: boolean;
  /** The `--snapshot FILE` the finding run used, when not the default. */
  readonly snapshot?: string;
  /** The `--config FILE` the finding run used. */
  readonly config?: string;
}

/**
 * The exact `schemapin contract approve` command (argv) that approves the named tools of one
 * server non-interactively — what `contract verify --json` gives a bot for each change.
 * `--lock` is included only when the lock is not the default `contractpin.lock`.
 *
 * @example
 * ```ts
 * import { approveCommand } from "./approve_command.ts";
 * approveCommand("contractpin.lock", "search", ["fetch"]);
 * // ["schemapin", "contract", "approve", "--server", "search", "--tool", "fetch", "--yes"]
 * ```
 */
export function approveCommand(
  lockPath: string,
  server: string,
  tools: readonly (string | { readonly kind: ItemKind; readonly key: string })[],
  options: ApproveCommandOptions = {},
): string[] {
  checkArg("approveCommand", "lockPath", lockPath, "string");
  checkArg("approveCommand", "server", server, "string");
  checkArg("approveCommand", "tools", tools, "array");
  checkArg("approveCommand", "options", options, "object");
  const { yes = true, snapshot, config } = options;
  return [
    "schemapin",
    "contract",
    "approve",
    ...(lockPath === DEFAULT_LOCK_FILE ? [] : ["--lock", lockPath]),
    // The same snapshot and client config as the run that found the changes.
    ...(snapshot === undefined ? [] : ["--snapshot", snapshot]),
    ...(config === undefined ? [] : ["--config", config]),
    "--server",
    server,
    ...tools.flatMap((t) => typeof t === "string" ? ["--tool", t] : targetArgs(t)),
    ...(yes ? ["--yes"] : []),
  ];
}
