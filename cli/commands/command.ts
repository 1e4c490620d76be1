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
    return { code: exitCodeOfError(e), message: `error: ${e.code}: ${e.message}` };
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

/**
 * The subcommand of a command with subcommands — the first of `args`, one of `names` — and the
 * arguments after it; else a usage error: `<command>: expected a subcommand (see --help)`
 * (`missing` replaces ` (see --help)`), or `<command>: unknown subcommand "X"; did you mean
 * …? (a, b, …)`.
 *
 * @example
 * ```ts
 * import { splitSubcommand } from "./command.ts";
 * const { sub, rest } = splitSubcommand("dns", ["check", "example.com"], ["record", "check"]);
 * // sub "check", rest ["example.com"]
 * ```
 */
export function splitSubcommand<N extends string>(
  command: string,
  args: readonly string[],
  names: readonly N[],
  missing = " (see --help)",
): { sub: N; rest: string[] } {
  const [sub, ...rest] = args;
  if (sub === undefined) throw new UsageError(`${command}: expected a subcommand${missing}`);
  if (!(names as readonly string[]).includes(sub)) {
    throw new UsageError(
      `${command}: unknown subcommand ${JSON.stringify(sub)}${didYouMean(sub, names)} ` +
        `(${names.join(", ")})`,
    );
  }
  return { sub: sub as N, rest };
}
