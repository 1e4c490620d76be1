/**
 * The shape every CLI command has, and the helpers commands share: argument parsing with
 * `node:util` parseArgs, usage errors, and the message and exit code of an error that ends a
 * command (the exit code from the table of cli/exit_codes.ts; ARCHITECTURE.md,
 * "Exit codes": 0 success, 1 verification failed, 2 could not run).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { isUsageError, SchemaPinError } from "../../lib/errors.ts";
import { type FlagTable, parseOptions, rewriteDeprecatedFlags } from "../args/flags.ts";
import { parseArgsErrorMessage } from "../args/mistakes.ts";
import { didYouMean } from "../args/suggest.ts";
import { EXIT_USAGE, exitCodeOfError } from "../exit_codes.ts";
import { messageInCliWords } from "../library_words.ts";

export { EXIT_FAILED, EXIT_OK, EXIT_USAGE } from "../exit_codes.ts";

/** Where a command writes; tests pass buffers, the CLI passes the process streams. */
export interface CliIO {
  /** Writes result bytes or text to stdout. */
  stdout(data: string | Uint8Array): Promise<void>;
  /** Writes a diagnostic line (or text) to stderr. */
  stderr(text: string): Promise<void>;
  /** Reads all of stdin. */
  readStdin(): Promise<Uint8Array>;
  /** True when stderr is a terminal (progress indicators, colours). */
  readonly stderrIsTerminal: boolean;
  /**
   * Writes progress text to the terminal at once, synchronously (see cli/commands/progress.ts);
   * absent when there is no terminal to draw on.
   */
  readonly progress?: (text: string) => void;
}

/** The flags of a command with subcommands: one table per subcommand. */
export interface SubcommandFlags {
  /**
   * The word after the command (`verify` in `schemapin contract verify`); `""` for the form
   * without a subcommand word, in a command that has both (`schemapin guard -- CMD`).
   */
  readonly name: string;
  /** Its flags (cli/args/flags.ts). */
  readonly flags: FlagTable;
}

/** One `schemapin <name>` command. */
export interface Command {
  /** The word after `schemapin`. */
  readonly name: string;
  /** One line for `schemapin --help`. */
  readonly summary: string;
  /** Full `--help` text, with at least one example; its option lists come from the tables. */
  readonly help: string;
  /**
   * The command's flag table (cli/args/flags.ts), or one per subcommand: the parser, the help's
   * option list and the completions are generated from it.
   */
  readonly flags: FlagTable | readonly SubcommandFlags[];
  /** Runs the command; returns the exit code. Throws only {@linkcode SchemaPinError} or bugs. */
  run(args: string[], io: CliIO): Promise<number>;
}

/**
 * A usage mistake (unknown flag, missing argument). The CLI prints the message and exit code 2.
 *
 * @example
 * ```ts
 * import { UsageError } from "./command.ts";
 * throw new UsageError("keygen: --out-dir DIR is required");
 * ```
 */
export class UsageError extends Error {
  /** Creates a usage error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Runs a library step of `command`: an error it throws about how it was asked
 * (`usageError` of lib/errors.ts, `details.usage`) becomes a {@linkcode UsageError} of
 * `command` (exit 2, "see --help"); any other error, or a result, passes through. `step` may
 * return a promise.
 *
 * @example
 * ```ts ignore
 * const result = await asUsage("contract init", () => initLock(request, contractFiles(io)));
 * ```
 */
export function asUsage<T>(command: string, step: () => T): T {
  const usageOf = (e: unknown) => isUsageError(e) ? new UsageError(`${command}: ${e.message}`) : e;
  try {
    const result = step();
    if (result instanceof Promise) {
      return result.catch((e) => {
        throw usageOf(e);
      }) as T;
    }
    return result;
  } catch (e) {
    throw usageOf(e);
  }
}

/** The value parsed for one flag of a table. */
type FlagValue<F> = F extends { readonly type: "string" }
  ? F extends { readonly multiple: true } ? string[] : string
  : F extends { readonly multiple: true } ? boolean[]
  : boolean;

/** What {@linkcode parseCommandArgs} returns for a table `T`. */
export interface ParsedArgs<T extends FlagTable> {
  /** Each flag given, by its long name (deprecated spellings under their new name). */
  readonly values: { -readonly [K in keyof T]?: FlagValue<T[K]> };
  /** The arguments that are not flags, in order. */
  readonly positionals: string[];
  /** Every option and positional in the order given (parseArgs' tokens). */
  readonly tokens: readonly ArgToken[];
}

/** One option or positional of a command line, in order (from parseArgs' tokens). */
export interface ArgToken {
  /** `option`, `positional` or `option-terminator`. */
  readonly kind: string;
  /** An option's long name. */
  readonly name?: string;
  /** An option's value. */
  readonly value?: string;
}

/**
 * Parses a command's arguments strictly against its flag table; unknown options (with a
 * did-you-mean) and missing values become {@linkcode UsageError}s in our words naming the
 * command and the flag (cli/args/mistakes.ts), never parseArgs' own message. Deprecated
 * spellings are rewritten first, each with a note on stderr.
 *
 * @example
 * ```ts
 * import { parseCommandArgs } from "./command.ts";
 * const { values, positionals } = parseCommandArgs("fingerprint", ["k.pem", "--json"], {
 *   json: { type: "boolean", help: "print JSON" },
 * });
 * ```
 */
export function parseCommandArgs<T extends FlagTable>(
  command: string,
  args: string[],
  table: T,
): ParsedArgs<T> {
  const rewritten = rewriteDeprecatedFlags(command, args, table);
  for (const note of rewritten.notes) notice(`note: ${note}\n`);
  const spec = parseOptions(table);
  try {
    const { values, positionals, tokens } = parseArgs({
      args: rewritten.args,
      options: spec,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
    return { values: values as ParsedArgs<T>["values"], positionals, tokens };
  } catch (e) {
    throw new UsageError(parseArgsErrorMessage(command, rewritten.args, spec, e));
  }
}

let noticeSink: ((text: string) => void) | undefined;

/**
 * Where {@linkcode notice} writes while a command runs (runCli sets the command's stderr);
 * returns the previous sink so it can be restored.
 *
 * @example
 * ```ts
 * import { setNoticeSink } from "./command.ts";
 * const previous = setNoticeSink((text) => console.error(text));
 * setNoticeSink(previous);
 * ```
 */
export function setNoticeSink(
  sink: ((text: string) => void) | undefined,
): ((text: string) => void) | undefined {
  const previous = noticeSink;
  noticeSink = sink;
  return previous;
}

/**
 * Writes a note for people (a deprecated spelling, …) to the running command's stderr.
 *
 * @example
 * ```ts
 * import { notice } from "./command.ts";
 * notice("note: --into is deprecated; use --out (-o)\n");
 * ```
 */
export function notice(text: string): void {
  noticeSink?.(text);
}

/**
 * Maps an error thrown by a command to the message printed on stderr and the exit code:
 * usage errors exit 2; a {@linkcode SchemaPinError} exits with its code's row of the table
 * (cli/exit_codes.ts, `details.remote` counting as published). Anything else is a bug
 * and is reported as an internal error (exit 2) without a stack trace unless SCHEMAPIN_DEBUG.
 * A library message that names an option or remedy in the library's terms is printed in the
 * CLI's words (cli/library_words.ts).
 *
 * @example
 * ```ts
 * import { describeError } from "./command.ts";
 * import { isUsageError, SchemaPinError } from "../../lib/errors.ts";
 * describeError(new SchemaPinError("JSON_INVALID", "bad")); // { code: 2, message: "error: JSON_INVALID: bad" }
 * ```
 */
export function describeError(e: unknown): { code: number; message: string } {
  if (e instanceof UsageError) {
    return { code: EXIT_USAGE, message: `error: ${e.message}\n(see --help)` };
  }
  if (e instanceof SchemaPinError) {
    const message = messageInCliWords(e.message);
    return { code: exitCodeOfError(e), message: `error: ${e.code}: ${message}` };
  }
  const err = e as Error;
  return {
    code: EXIT_USAGE,
    message: `internal error: ${err?.name ?? "Error"}: ${err?.message ?? String(e)}`,
  };
}

/**
 * Requires exactly `count` positional arguments, else a usage error.
 *
 * @example
 * ```ts
 * import { requirePositionals } from "./command.ts";
 * const [file] = requirePositionals("fingerprint", ["key.pem"], 1, "KEY.pem");
 * ```
 */
export function requirePositionals(
  command: string,
  positionals: string[],
  count: number,
  names: string,
): string[] {
  if (positionals.length !== count) {
    throw new UsageError(
      `${command}: expected ${names}, got ${positionals.length} argument(s)`,
    );
  }
  return positionals;
}

/** One subcommand of a command with subcommands: its flag table and its run. */
export interface Subcommand {
  /** Its flags (cli/args/flags.ts): the parser, the help's option list and the completions. */
  readonly flags: FlagTable;
  /** Runs it on the arguments after its word; returns the exit code. */
  run(args: string[], io: CliIO): Promise<number>;
}

/**
 * The subcommands of a command by their word, in the order of its help: the one shape every
 * command with subcommands dispatches with ({@linkcode runSubcommand}), and where its
 * {@linkcode Command.flags} come from ({@linkcode subcommandFlags}).
 */
export type Subcommands = Readonly<Record<string, Subcommand>>;

/** How {@linkcode pickSubcommand} words its usage errors. */
export interface SubcommandErrors {
  /**
   * What follows `<command>: expected a subcommand` when no word was given (default
   * ` (see --help)`).
   */
  readonly missing?: string;
  /**
   * Quote an unknown word as typed, between plain double quotes, instead of as a JSON string:
   * `contract` has always worded it so (the two differ only for a word holding `"`, `\` or a
   * control character).
   */
  readonly quoteAsTyped?: boolean;
}

/**
 * The flag tables of a command's subcommands, in order: the {@linkcode Command.flags} of a
 * command whose subcommands are `table` (the completions and `docs/cli-vocabulary.md` read them).
 *
 * @example
 * ```ts
 * import { subcommandFlags } from "./command.ts";
 * const run = () => Promise.resolve(0);
 * subcommandFlags({ list: { flags: {}, run }, show: { flags: {}, run } }).map((s) => s.name);
 * // ["list", "show"]
 * ```
 */
export function subcommandFlags(table: Subcommands): SubcommandFlags[] {
  return Object.entries(table).map(([name, { flags }]) => ({ name, flags }));
}

/** A subcommand picked from `args`: its word, its entry and the arguments after it. */
export interface PickedSubcommand<T extends Subcommands> {
  /** The word that named it. */
  readonly name: keyof T & string;
  /** Its entry in the table. */
  readonly subcommand: T[keyof T];
  /** The arguments after the word. */
  readonly rest: string[];
}

/**
 * The subcommand the first of `args` names in `table`, or `undefined` when it names none (or
 * there are no arguments): for a command that also has a form without a subcommand word
 * (`schemapin guard … -- CMD`). Only the table's own words match.
 *
 * @example
 * ```ts
 * import { findSubcommand } from "./command.ts";
 * const run = () => Promise.resolve(0);
 * const table = { wrap: { flags: {}, run }, unwrap: { flags: {}, run } };
 * findSubcommand(table, ["wrap", "mcp.json"])?.rest; // ["mcp.json"]
 * findSubcommand(table, ["--lock", "x"]); // undefined
 * ```
 */
export function findSubcommand<T extends Subcommands>(
  table: T,
  args: readonly string[],
): PickedSubcommand<T> | undefined {
  const [word, ...rest] = args;
  if (word === undefined || !Object.hasOwn(table, word)) return undefined;
  return { name: word, subcommand: table[word] as T[keyof T], rest };
}

/**
 * The subcommand the first of `args` names in `table`, else a usage error:
 * `<command>: expected a subcommand (see --help)` (`errors.missing` replaces ` (see --help)`),
 * or `<command>: unknown subcommand "X"; did you mean …? (a, b, …)` with the table's words in
 * order.
 *
 * @example
 * ```ts
 * import { pickSubcommand } from "./command.ts";
 * const run = () => Promise.resolve(0);
 * const picked = pickSubcommand("lineage", { list: { flags: {}, run } }, ["list", "--json"]);
 * // picked.name "list", picked.rest ["--json"]
 * ```
 */
export function pickSubcommand<T extends Subcommands>(
  command: string,
  table: T,
  args: readonly string[],
  errors: SubcommandErrors = {},
): PickedSubcommand<T> {
  const picked = findSubcommand(table, args);
  if (picked) return picked;
  throw subcommandError(command, args[0], Object.keys(table), errors);
}

/**
 * Runs the subcommand the first of `args` names in `table` on the arguments after it
 * ({@linkcode pickSubcommand}: a missing or unknown word is a usage error); returns its exit
 * code.
 *
 * @example
 * ```ts ignore
 * const SUBCOMMANDS = { create: { flags: CREATE_FLAGS, run: runBundleCreate } } as const;
 * await runSubcommand("bundle", SUBCOMMANDS, ["create", "--out", "b.json"], io);
 * ```
 */
export async function runSubcommand(
  command: string,
  table: Subcommands,
  args: readonly string[],
  io: CliIO,
  errors: SubcommandErrors = {},
): Promise<number> {
  const { subcommand, rest } = pickSubcommand(command, table, args, errors);
  return await subcommand.run(rest, io);
}

/** The usage error of a missing (`word` undefined) or unknown subcommand word. */
function subcommandError(
  command: string,
  word: string | undefined,
  names: readonly string[],
  errors: SubcommandErrors,
): UsageError {
  if (word === undefined) {
    return new UsageError(`${command}: expected a subcommand${errors.missing ?? " (see --help)"}`);
  }
  const quoted = errors.quoteAsTyped ? `"${word}"` : JSON.stringify(word);
  return new UsageError(
    `${command}: unknown subcommand ${quoted}${didYouMean(word, names)} (${names.join(", ")})`,
  );
}
