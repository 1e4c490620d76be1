/**
 * The library's messages in the CLI's words: where the library says what to do in its own terms
 * (lib/option_hints.ts: the option to set, the lock to re-create, a cap to raise, a key to make,
 * credentials to pass), the CLI names its flag or its command. Applied where those messages are
 * printed — the error printer
 * (`describeError`, cli/commands/command.ts), the `--json` error object
 * (cli/commands/json_output.ts), the `contract` command's error path, the `contract init` result
 * (cli/contractpin/init.ts) and the guard's lock (cli/guard/setup.ts) — so stderr and `--json`
 * carry the same words.
 *
 * @module
 */
import { SchemaPinError } from "../lib/errors.ts";
import {
  ALLOW_DYNAMIC_SKILLS,
  ALLOW_LITERAL_SECRETS,
  CREDENTIALS_HINT,
  HEADER_INSTEAD,
  HEADER_TEMPLATE,
  KEY_KIND_HINT,
  LITERAL_SECRETS_ALLOWED,
  RAISE_MAX_BYTES,
  RAISE_MAX_ENTRIES,
  RAISE_MAX_PAGES,
  RECREATE_LOCK,
} from "../lib/option_hints.ts";

/** The command that re-creates a lock, as a lock error names it. */
const CONTRACT_INIT_FORCE = " with `schemapin contract init --force`";

/** A message's last words in the library's terms, and in the CLI's. */
const ENDINGS: readonly (readonly [library: string, cli: string])[] = [
  ...RECREATE_LOCK.map((r) => [`${r})`, `${r}${CONTRACT_INIT_FORCE})`] as const),
  [`(${ALLOW_DYNAMIC_SKILLS})`, "(--allow-dynamic-skills)"],
  [`(${ALLOW_LITERAL_SECRETS})`, "(--allow-literal-secrets)"],
  [`${LITERAL_SECRETS_ALLOWED})`, "--allow-literal-secrets writes the arguments as they are)"],
  [HEADER_INSTEAD, "--header instead"],
];

/** A phrase inside a message in the library's terms, and in the CLI's (lib/option_hints.ts). */
const PHRASES: readonly (readonly [library: string, cli: string])[] = [
  [
    KEY_KIND_HINT,
    KEY_KIND_HINT.replace("make one with ", "make one with `schemapin keygen` or "),
  ],
  [RAISE_MAX_ENTRIES, "raise it with --max-entries if this is intended"],
  [RAISE_MAX_BYTES, "raise it with --max-bytes if this is intended"],
  [RAISE_MAX_PAGES, "raise it with --max-pages if the server really has that many"],
  [CREDENTIALS_HINT, " (pass credentials with --header 'Authorization: Bearer ${TOKEN}')"],
];

/** `header NAME: environment variable …`: a header template's unset variable (secrets.ts). */
const HEADER_VARIABLE = new RegExp(`^${HEADER_TEMPLATE} [^:\\n]*: environment variable `);

/**
 * One library message in the CLI's words; a message that names no option or remedy is returned
 * as it is.
 *
 * @example
 * ```ts
 * import { messageInCliWords } from "./library_words.ts";
 * messageInCliWords("x: /servers/a/tool_count is 2 but 1 tools are listed (the lock is " +
 *   "inconsistent; re-create it)");
 * // "… re-create it with `schemapin contract init --force`)"
 * messageInCliWords("header X-Key: environment variable K is not set (needed for ${K})");
 * // "--header X-Key: environment variable K is not set (needed for ${K})"
 * ```
 */
export function messageInCliWords(message: string): string {
  let out = HEADER_VARIABLE.test(message) ? `--${message}` : message;
  for (const [library, cli] of ENDINGS) {
    if (out.endsWith(library)) {
      out = out.slice(0, out.length - library.length) + cli;
      break;
    }
  }
  for (const [library, cli] of PHRASES) out = out.replaceAll(library, cli);
  return out;
}

/**
 * An error in the CLI's words: a {@linkcode SchemaPinError} whose message names a library option
 * or remedy is copied with the CLI's message (same code and details); anything else is returned
 * as it is.
 *
 * @example
 * ```ts
 * import { errorInCliWords } from "./library_words.ts";
 * import { SchemaPinError } from "../lib/errors.ts";
 * const e = new SchemaPinError("INPUT_INVALID", "lock: bad (the lock is inconsistent; re-create it)");
 * (errorInCliWords(e) as Error).message.endsWith("`schemapin contract init --force`)"); // true
 * ```
 */
export function errorInCliWords(e: unknown): unknown {
  if (!(e instanceof SchemaPinError)) return e;
  const message = messageInCliWords(e.message);
  if (message === e.message) return e;
  const out = new SchemaPinError(e.code, message, e.details);
  if (e.stack) out.stack = e.stack.replace(e.message, message);
  return out;
}
