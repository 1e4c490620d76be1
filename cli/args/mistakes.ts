/**
 * Our own words for the mistakes `node:util` parseArgs refuses (unknown option, missing value,
 * value given to a boolean flag, an option where a value was expected): a message naming the
 * command and the flag, with a did-you-mean for a mistyped flag. parseArgs' own message
 * ("To specify a positional argument starting with a '-', place it …") never reaches a user.
 *
 * The mistake is found again from parseArgs' tokens (a non-strict parse never throws), so the
 * message does not depend on the wording or the error codes of a Node or Deno version.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { OptionSpec } from "./flags.ts";
import { didYouMean } from "./suggest.ts";

/** How a flag is shown: `--out`, or `-o (--out)` when it was typed short. */
function shown(rawName: string, name: string): string {
  return rawName.startsWith("--") ? rawName : `${rawName} (--${name})`;
}

/**
 * The message for the first argument of `args` that a strict parse with `options` refuses,
 * prefixed with `command` (e.g. `"sign-schema: unknown option --ouput; did you mean --out?"`),
 * or `undefined` when a strict parse would accept `args`. Positionals are always allowed.
 *
 * @example
 * ```ts
 * import { describeArgsMistake } from "./mistakes.ts";
 * describeArgsMistake("keygen", ["--ouput", "k"], { out: { type: "string" } });
 * // "keygen: unknown option --ouput; did you mean --out?"
 * describeArgsMistake("keygen", ["--out"], { out: { type: "string" } });
 * // "keygen: --out needs a value"
 * ```
 */
export function describeArgsMistake(
  command: string,
  args: string[],
  options: OptionSpec,
): string | undefined {
  const { tokens } = parseArgs({
    args,
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const known = [...Object.keys(options).map((name) => `--${name}`), "--help"];
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    if (spec === undefined) {
      const hint = token.rawName.startsWith("--") ? didYouMean(token.rawName, known) : "";
      return `${command}: unknown option ${token.rawName}${hint}`;
    }
    const flag = shown(token.rawName, token.name);
    if (spec.type === "boolean") {
      if (token.value !== undefined) {
        return `${command}: ${flag} takes no value (got ${JSON.stringify(token.value)})`;
      }
      continue;
    }
    if (token.value === undefined) return `${command}: ${flag} needs a value`;
    if (!token.inlineValue && token.value.length > 1 && token.value.startsWith("-")) {
      return `${command}: ${flag} needs a value but is followed by ${token.value}; if that ` +
        `is the value, write ${
          token.rawName.startsWith("--") ? token.rawName : `--${token.name}`
        }=${token.value}`;
    }
  }
  return undefined;
}

/**
 * The message for an error thrown by a strict parseArgs over `args`: the mistake found by
 * {@linkcode describeArgsMistake}, else a plain message by the error's code. Never parseArgs'
 * own wording.
 *
 * @example
 * ```ts
 * import { parseArgsErrorMessage } from "./mistakes.ts";
 * const e = Object.assign(new TypeError("Unknown option '-x'. To specify …"), {
 *   code: "ERR_PARSE_ARGS_UNKNOWN_OPTION",
 * });
 * parseArgsErrorMessage("keygen", ["-x"], {}, e); // "keygen: unknown option -x"
 * ```
 */
export function parseArgsErrorMessage(
  command: string,
  args: string[],
  options: OptionSpec,
  error: unknown,
): string {
  const found = describeArgsMistake(command, args, options);
  if (found !== undefined) return found;
  switch ((error as { code?: unknown })?.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `${command}: unknown option`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return `${command}: an option has a missing or invalid value`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `${command}: takes no arguments other than options`;
    default:
      return `${command}: could not read the arguments`;
  }
}
