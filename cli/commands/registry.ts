/**
 * The list of CLI commands. Each command lives in its own file in this folder; add new ones
 * here, with the one-line summary `schemapin --help` shows.
 *
 * Commands are loaded when invoked: `schemapin verify-schema …` loads the modules of
 * `verify-schema` only, not those of the 18 other commands (start-up is measured per command
 * by bench/cli_scale.ts). Each `load` is a dynamic `import()` of a literal specifier, which
 * `deno compile` includes in the binary like a static import (tests/cli/registry_test.ts
 * checks every command module is in the module graph of cli.ts).
 *
 * @module
 */
import type { Command } from "./command.ts";

/** The tasks `schemapin --help` groups the commands by, in its order. */
export const COMMAND_GROUPS = [
  "publish",
  "verify",
  "MCP contracts",
  "trust store",
  "serve",
  "tools",
] as const;

/** One of {@linkcode COMMAND_GROUPS}. */
export type CommandGroup = typeof COMMAND_GROUPS[number];

/** A command as the registry knows it before it is loaded. */
export interface CommandEntry {
  /** The word after `schemapin`. */
  readonly name: string;
  /** The task `schemapin --help` lists it under. */
  readonly group: CommandGroup;
  /** One line for `schemapin --help` (the command's own `summary`; a test keeps them equal). */
  readonly summary: string;
  /** Loads the command's module. */
  load(): Promise<Command>;
}

/**
 * Every `schemapin` command, in the order `--help` lists them.
 *
 * @example
 * ```ts
 * import { COMMAND_ENTRIES } from "./registry.ts";
 * console.log(COMMAND_ENTRIES.map((c) => c.name).join(", "));
 * ```
 */
export const COMMAND_ENTRIES: readonly CommandEntry[] = [
  {
    name: "keygen",
    group: "publish",
    summary: "generate a P-256 key pair (private.pem 0600, public.pem)",
    load: async () => (await import("./keygen.ts")).keygenCommand,
  },
  {
    name: "fingerprint",
    group: "tools",
    summary: "print the sha256: fingerprint of a public or private key",
    load: async () => (await import("./fingerprint.ts")).fingerprintCommand,
  },
  {
    name: "canonicalize",
    group: "tools",
    summary: "print the canonical bytes of a JSON file (schemapin-v1, or RFC 8785 with --contract)",
    load: async () => (await import("./canonicalize.ts")).canonicalizeCommand,
  },
  {
    name: "sign-schema",
    group: "publish",
    summary: "sign a tool schema (bare Base64, or a 1.4 signature document with metadata)",
    load: async () => (await import("./sign_schema.ts")).signSchemaCommand,
  },
  {
    name: "verify-schema",
    group: "verify",
    summary: "verify a schema signature (discovery file, bundle, folder or HTTPS; pins, DNS)",
    load: async () => (await import("./verify_schema.ts")).verifySchemaCommand,
  },
  {
    name: "well-known",
    group: "publish",
    summary: "build a .well-known/schemapin.json discovery document",
    load: async () => (await import("./well_known.ts")).wellKnownCommand,
  },
  {
    name: "revoke",
    group: "publish",
    summary: "build or extend a standalone revocation document",
    load: async () => (await import("./revoke.ts")).revokeCommand,
  },
  {
    name: "pins",
    group: "trust store",
    summary: "list, show, add, rotate, remove, export and import key pins",
    load: async () => (await import("./pins.ts")).pinsCommand,
  },
  {
    name: "lineage",
    group: "trust store",
    summary: "list, show and reset the lineage (latest known release) of each tool",
    load: async () => (await import("./lineage.ts")).lineageCommand,
  },
  {
    name: "chain",
    group: "verify",
    summary: "check that a signature document's previous_hash names the previous version",
    load: async () => (await import("./chain.ts")).chainCommand,
  },
  {
    name: "contract",
    group: "MCP contracts",
    summary: "pin MCP tool contracts in contractpin.lock and verify live servers against it",
    load: async () => (await import("./contract.ts")).contractCommand,
  },
  {
    name: "sign-tools",
    group: "publish",
    summary: "sign every tool contract of an MCP server (signatures in _meta, for guard)",
    load: async () => (await import("./sign_tools.ts")).signToolsCommand,
  },
  {
    name: "guard",
    group: "MCP contracts",
    summary: "guard an MCP server live: check every tools/list against the lock and signatures",
    load: async () => (await import("./guard.ts")).guardCommand,
  },
  {
    name: "hash-skill",
    group: "tools",
    summary: "print a skill folder's file manifest and skill_hash (§4b), no key needed",
    load: async () => (await import("./hash_skill.ts")).hashSkillCommand,
  },
  {
    name: "sign-skill",
    group: "publish",
    summary: "sign a skill folder (§4b) and write DIR/.schemapin.sig",
    load: async () => (await import("./sign_skill.ts")).signSkillCommand,
  },
  {
    name: "bundle",
    group: "trust store",
    summary: "trust bundles: create, add, sign, verify (authority allow-list), merge, show",
    load: async () => (await import("./bundle.ts")).bundleCommand,
  },
  {
    name: "verify-skill",
    group: "verify",
    summary: "verify a signed skill folder (lists tampered files; file, bundle, HTTPS, DNS)",
    load: async () => (await import("./verify_skill.ts")).verifySkillCommand,
  },
  {
    name: "dns",
    group: "publish",
    summary: "DNS TXT records: print one to publish (record), check a domain's (check)",
    load: async () => (await import("./dns.ts")).dnsCommand,
  },
  {
    name: "serve",
    group: "serve",
    summary: "serve .well-known/schemapin.json (and revocations) over HTTPS",
    load: async () => (await import("./serve.ts")).serveCommand,
  },
  {
    name: "completions",
    group: "tools",
    summary: "print a bash, zsh or fish completion script",
    load: async () => (await import("./completions.ts")).makeCompletionsCommand(loadCommands),
  },
];

/**
 * Every command, loaded (completions, tests), in the order `--help` lists them.
 *
 * @example
 * ```ts ignore
 * const commands = await loadCommands();
 * ```
 */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_ENTRIES.map((c) => c.load()));
}
