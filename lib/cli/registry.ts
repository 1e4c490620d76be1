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
import { signSchemaCommand } from "./sign_schema.ts";
import { verifySchemaCommand } from "./verify_schema.ts";
import { wellKnownCommand } from "./well_known.ts";
import { revokeCommand } from "./revoke.ts";
import { pinsCommand } from "./pins.ts";
import { chainCommand } from "./chain.ts";
import { contractCommand } from "./contract.ts";
import { guardCommand } from "./guard.ts";
import { signToolsCommand } from "./sign_tools.ts";
import { hashSkillCommand } from "./hash_skill.ts";
import { signSkillCommand } from "./sign_skill.ts";
import { bundleCommand } from "./bundle.ts";
import { verifySkillCommand } from "./verify_skill.ts";
import { dnsCommand } from "./dns.ts";
import { serveCommand } from "./serve.ts";
import { makeCompletionsCommand } from "./completions.ts";

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
  signSchemaCommand,
  verifySchemaCommand,
  wellKnownCommand,
  revokeCommand,
  pinsCommand,
  chainCommand,
  contractCommand,
  signToolsCommand,
  guardCommand,
  hashSkillCommand,
  signSkillCommand,
  bundleCommand,
  verifySkillCommand,
  dnsCommand,
  serveCommand,
  makeCompletionsCommand(() => COMMANDS),
];
