/**
 * One rule for flags (issue 15 item 8), applied to every command in one place:
 *
 * - `-o, --out PATH`  where the command writes (a file, or a folder for `keygen` and for
 *   `sign-schema --batch`);
 * - `-k, --key FILE`  the key the command uses;
 * - `-q, --quiet`     only failures, warnings and the summary;
 * - `-f, --force`     replace an existing output — without it a command never replaces a file
 *   you name with `--out` (files a command updates by design — a skill's `.schemapin.sig`, the
 *   bundle `bundle add` edits, the revocation document `revoke --out` adds a key to — are
 *   updated in place).
 *
 * Old spellings keep working for now, each with a deprecation note on stderr naming the new
 * one: `sign-schema --out-dir` (→ `--out`), `revoke --into` (→ `--out`), `pins import
 * --overwrite` (→ `--force`), `bundle verify|merge --trust-first-use` (→
 * `--trust-first-use-authority`: in `verify-schema` and `verify-skill` `--trust-first-use`
 * trusts a tool's key, so the bundle authority has its own flag everywhere) and the positional
 * output of `bundle merge OUT BUNDLE…` (→ `--out OUT`, handled by that command).
 *
 * @module
 */
import type { ParseArgsConfig } from "node:util";

/** Options of a command: node:util parseArgs options (without `args`). */
export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

/** The short form of each conventional long flag. */
export const SHORT_FLAGS: Readonly<Record<string, string>> = Object.freeze({
  out: "o",
  key: "k",
  quiet: "q",
  force: "f",
});

/** Deprecated spellings per command (as named in usage errors): old flag → new flag. */
export const DEPRECATED_FLAGS: Readonly<Record<string, Readonly<Record<string, string>>>> = Object
  .freeze({
    "sign-schema": { "out-dir": "out" },
    revoke: { into: "out" },
    "pins import": { overwrite: "force" },
    "bundle verify": { "trust-first-use": "trust-first-use-authority" },
    "bundle merge": { "trust-first-use": "trust-first-use-authority" },
  });

/**
 * `options` with the conventional short forms added to the flags that have them (a flag
 * that already declares a short form keeps it).
 *
 * @example
 * ```ts
 * import { withShortFlags } from "./flags.ts";
 * withShortFlags({ out: { type: "string" } }); // { out: { type: "string", short: "o" } }
 * ```
 */
export function withShortFlags<O extends OptionSpec>(options: O): O {
  let out: OptionSpec | undefined;
  for (const [name, short] of Object.entries(SHORT_FLAGS)) {
    if (!Object.hasOwn(options, name) || options[name].short !== undefined) continue;
    out ??= { ...options };
    out[name] = { ...options[name], short };
  }
  return (out ?? options) as O;
}

/**
 * Rewrites the deprecated spellings of `command` in `args` to their new names (before a
 * `--`) and returns the notes to print, one per spelling used.
 *
 * @example
 * ```ts
 * import { rewriteDeprecatedFlags } from "./flags.ts";
 * rewriteDeprecatedFlags("revoke", ["--into", "r.json"]);
 * // { args: ["--out", "r.json"], notes: ["revoke: --into is deprecated; use --out (-o)"] }
 * ```
 */
export function rewriteDeprecatedFlags(
  command: string,
  args: readonly string[],
): { args: string[]; notes: string[] } {
  const table = Object.hasOwn(DEPRECATED_FLAGS, command) ? DEPRECATED_FLAGS[command] : undefined;
  if (table === undefined) return { args: [...args], notes: [] };
  const notes = new Set<string>();
  const out: string[] = [];
  let ended = false;
  for (const arg of args) {
    ended ||= arg === "--";
    if (ended || !arg.startsWith("--")) {
      out.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const next = Object.hasOwn(table, name) ? table[name] : undefined;
    if (next === undefined) {
      out.push(arg);
      continue;
    }
    out.push(`--${next}${eq === -1 ? "" : arg.slice(eq)}`);
    const short = SHORT_FLAGS[next];
    notes.add(`${command}: --${name} is deprecated; use --${next}${short ? ` (-${short})` : ""}`);
  }
  return { args: out, notes: [...notes] };
}
