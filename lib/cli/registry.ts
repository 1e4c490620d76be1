/**
 * The list of CLI commands. Each command lives in its own file in this folder; add new ones
 * here.
 *
 * @module
 */
import type { Command } from "./command.ts";
import { canonicalizeCommand } from "./canonicalize.ts";
import { fingerprintCommand } from "./fingerprint.ts";
import { keygenCommand } from "./keygen.ts";

/**
 * Every `schemapin` command, in the order `--help` lists them.
 *
 * @example
 * ```ts
 * import { COMMANDS } from "./registry.ts";
 * console.log(COMMANDS.map((c) => c.name).join(", "));
 * ```
 */
export const COMMANDS: readonly Command[] = [
  keygenCommand,
  fingerprintCommand,
  canonicalizeCommand,
];
