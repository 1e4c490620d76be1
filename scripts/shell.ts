/**
 * Shell quoting for the command lines scripts print (`deno task demo`, `deno task install
 * --print`): a printed line pasted into sh, bash or zsh runs the same argument list.
 *
 * @module
 */

/**
 * One argument as POSIX shell text: left bare when it holds only characters no shell treats
 * specially, otherwise in single quotes (a `'` inside becomes `'\''`).
 *
 * @example
 * ```ts
 * import { shellQuote } from "./shell.ts";
 * shellQuote("Example Corp"); // → "'Example Corp'"
 * ```
 */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command line: each argument through {@linkcode shellQuote}, joined with spaces.
 *
 * @example
 * ```ts
 * import { shellLine } from "./shell.ts";
 * shellLine(["schemapin", "keygen", "--developer", "Example Corp"]);
 * // → "schemapin keygen --developer 'Example Corp'"
 * ```
 */
export function shellLine(args: readonly string[]): string {
  return args.map(shellQuote).join(" ");
}
