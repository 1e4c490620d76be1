/**
 * Flag tables: a command declares its flags once, as a {@linkcode FlagTable}, and everything
 * else is generated from it:
 *
 * - the parser's options (`node:util` parseArgs, through {@linkcode parseOptions});
 * - the option list of `--help` ({@linkcode optionList});
 * - the flags a shell completes ({@linkcode offeredFlags}, for cli/args/completions.ts).
 *
 * It knows nothing of the commands: cli/commands/flag_groups.ts and the command modules build
 * schemapin's tables, and docs/cli-vocabulary.md lists them. The conventional short forms
 * (`-o, --out`, `-k, --key`, `-q, --quiet`, `-f, --force`) are added to the flags that have
 * those names.
 *
 * Old spellings keep working for one release: an entry with `deprecated: "new-name"` is
 * rewritten to the new flag before parsing, with a note, and is shown in neither the help nor
 * the completions.
 *
 * @module
 */
import type { ParseArgsConfig } from "node:util";

/** Options of a command as node:util parseArgs takes them (without `args`). */
export type OptionSpec = NonNullable<ParseArgsConfig["options"]>;

/** One flag of a command: what the parser needs, and what the help says about it. */
export interface FlagSpec {
  /** `string` takes a value; `boolean` does not. */
  readonly type: "string" | "boolean";
  /** One-letter short form (the conventional ones, {@linkcode SHORT_FLAGS}, are added). */
  readonly short?: string;
  /** True when the flag may be given more than once (values collect into an array). */
  readonly multiple?: boolean;
  /** What the value is, as the help shows it (`FILE`, `DIR`, `N`, `SECONDS`); string flags. */
  readonly value?: string;
  /**
   * The help's description. It is wrapped to the help's width; a `\n` starts a new line
   * (a list inside a description).
   */
  readonly help: string;
  /** This spelling is deprecated: it is rewritten to the flag named here, with a note. */
  readonly deprecated?: string;
}

/** A command's flags, in the order its help lists them. */
export type FlagTable = Readonly<Record<string, FlagSpec>>;

/** What a table entry may add to its type, value and help: its own one-letter short form. */
export interface FlagExtras {
  /** One-letter short form (beyond the conventional ones of {@linkcode SHORT_FLAGS}). */
  readonly short?: string;
}

/**
 * A table entry for a flag that takes a value; `value` names it in the help (`FILE`, `DIR`,
 * `N`, `SECONDS`).
 *
 * @example
 * ```ts
 * import { valueFlag } from "./flags.ts";
 * const flags = { out: valueFlag("FILE", "the file to write") };
 * // { out: { type: "string", value: "FILE", help: "the file to write" } }
 * ```
 */
export function valueFlag(
  value: string,
  help: string,
  extras: FlagExtras = {},
): { readonly type: "string"; readonly value: string; readonly help: string } {
  return { type: "string", value, help, ...extras };
}

/**
 * A table entry for a flag that takes a value and may be given more than once (the values
 * collect into an array, in order).
 *
 * @example
 * ```ts
 * import { listFlag } from "./flags.ts";
 * const flags = { header: listFlag("NAME=VALUE", "an HTTP header; repeatable") };
 * ```
 */
export function listFlag(
  value: string,
  help: string,
  extras: FlagExtras = {},
): {
  readonly type: "string";
  readonly multiple: true;
  readonly value: string;
  readonly help: string;
} {
  return { type: "string", multiple: true, value, help, ...extras };
}

/**
 * A table entry for a flag that takes no value.
 *
 * @example
 * ```ts
 * import { booleanFlag } from "./flags.ts";
 * const flags = { force: booleanFlag("replace an existing output file") };
 * // { force: { type: "boolean", help: "replace an existing output file" } }
 * ```
 */
export function booleanFlag(
  help: string,
  extras: FlagExtras = {},
): { readonly type: "boolean"; readonly help: string } {
  return { type: "boolean", help, ...extras };
}

/** The short form of each conventional long flag. */
export const SHORT_FLAGS: Readonly<Record<string, string>> = Object.freeze({
  out: "o",
  key: "k",
  quiet: "q",
  force: "f",
});

/** Width of the term column of an option list (two spaces of indent included). */
const TERM_WIDTH = 27;
/** Width a help line is wrapped to. */
const HELP_WIDTH = 92;

/** The short form `name` has in `table` (its own, or the conventional one). */
export function shortOf(name: string, spec: FlagSpec): string | undefined {
  return spec.short ?? (Object.hasOwn(SHORT_FLAGS, name) ? SHORT_FLAGS[name] : undefined);
}

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
 * The parseArgs options of a flag table: type, short form (its own or the conventional one)
 * and `multiple` of every flag that is not a deprecated spelling (those are rewritten before
 * parsing, {@linkcode rewriteDeprecatedFlags}).
 *
 * @example
 * ```ts
 * import { parseOptions } from "./flags.ts";
 * parseOptions({ out: { type: "string", value: "FILE", help: "where to write" } });
 * // { out: { type: "string", short: "o" } }
 * ```
 */
export function parseOptions(table: FlagTable): OptionSpec {
  const out: OptionSpec = {};
  for (const [name, spec] of Object.entries(table)) {
    if (spec.deprecated !== undefined) continue;
    const short = shortOf(name, spec);
    out[name] = {
      type: spec.type,
      ...(short !== undefined ? { short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
    };
  }
  return out;
}

/** `text` wrapped to `width` columns (words are never split; `\n` is kept). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/ +/).filter((w) => w !== "")) {
      if (line !== "" && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else {
        line = line === "" ? word : `${line} ${word}`;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** The term column of a flag: `-o, --out FILE`. */
export function flagTerm(name: string, spec: FlagSpec): string {
  const short = shortOf(name, spec);
  const value = spec.type === "string" ? ` ${spec.value ?? "VALUE"}` : "";
  return `${short !== undefined ? `-${short}, ` : ""}--${name}${value}`;
}

/**
 * The option list of a help text, generated from the table: one entry per flag that is not a
 * deprecated spelling, the term in a column and the description wrapped beside it (a term too
 * long for the column gets a line of its own).
 *
 * @example
 * ```ts
 * import { optionList } from "./flags.ts";
 * optionList({ json: { type: "boolean", help: "print JSON" } });
 * // "  --json                   print JSON"
 * ```
 */
export function optionList(table: FlagTable): string {
  const out: string[] = [];
  const indent = " ".repeat(TERM_WIDTH);
  for (const [name, spec] of Object.entries(table)) {
    if (spec.deprecated !== undefined) continue;
    const term = `  ${flagTerm(name, spec)}`;
    const text = wrap(spec.help, HELP_WIDTH - TERM_WIDTH);
    if (term.length + 2 <= TERM_WIDTH) {
      out.push(`${term.padEnd(TERM_WIDTH)}${text[0]}`);
    } else {
      out.push(term, `${indent}${text[0]}`);
    }
    for (const line of text.slice(1)) out.push(`${indent}${line}`);
  }
  return out.join("\n");
}

/**
 * The long flags a table offers (with their short forms), for completions: every flag that is
 * not a deprecated spelling, in table order, each short form after its long flag.
 *
 * @example
 * ```ts
 * import { offeredFlags } from "./flags.ts";
 * offeredFlags({ out: { type: "string", value: "FILE", help: "where" } }); // ["--out", "-o"]
 * ```
 */
export function offeredFlags(table: FlagTable): string[] {
  const out: string[] = [];
  for (const [name, spec] of Object.entries(table)) {
    if (spec.deprecated !== undefined) continue;
    out.push(`--${name}`);
    const short = shortOf(name, spec);
    if (short !== undefined) out.push(`-${short}`);
  }
  return out;
}

/**
 * Rewrites the deprecated spellings of a table in `args` to their new names (before a `--`;
 * `--old`, `--old=value`, and the old short form as a word of its own) and returns the notes
 * to print, one per spelling used.
 *
 * @example
 * ```ts
 * import { rewriteDeprecatedFlags } from "./flags.ts";
 * rewriteDeprecatedFlags("revoke", ["--into", "r.json"], {
 *   out: { type: "string", value: "FILE", help: "the document" },
 *   into: { type: "string", help: "", deprecated: "out" },
 * });
 * // { args: ["--out", "r.json"], notes: ["revoke: --into is deprecated; use --out (-o)"] }
 * ```
 */
export function rewriteDeprecatedFlags(
  command: string,
  args: readonly string[],
  table: FlagTable,
): { args: string[]; notes: string[] } {
  const renamed = new Map<string, string>(); // "--old" or "-s" → new long name
  for (const [name, spec] of Object.entries(table)) {
    if (spec.deprecated === undefined) continue;
    renamed.set(`--${name}`, spec.deprecated);
    const short = shortOf(name, spec);
    if (short !== undefined) renamed.set(`-${short}`, spec.deprecated);
  }
  if (renamed.size === 0) return { args: [...args], notes: [] };
  const notes = new Set<string>();
  const out: string[] = [];
  let ended = false;
  for (const arg of args) {
    ended ||= arg === "--";
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const word = eq === -1 ? arg : arg.slice(0, eq);
    const next = ended || !arg.startsWith("-") ? undefined : renamed.get(word);
    if (next === undefined) {
      out.push(arg);
      continue;
    }
    out.push(`--${next}${eq === -1 ? "" : arg.slice(eq)}`);
    const spec = table[next];
    const short = spec === undefined ? undefined : shortOf(next, spec);
    notes.add(
      `${command}: ${word} is deprecated; use --${next}${
        short !== undefined ? ` (-${short})` : ""
      }`,
    );
  }
  return { args: out, notes: [...notes] };
}
