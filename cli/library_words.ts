/**
 * The library's messages in the CLI's words: where the library says what to do in its own terms
 * (lib/option_hints.ts: the option to set, the lock to re-create, a cap to raise, a key to make,
 * credentials to pass), the CLI names its flag or its command. Applied where those messages are
 * printed: the error printer (`describeError`, cli/commands/command.ts), the `--json` error object
 * (cli/commands/json_output.ts), an input failure of the verify commands and the guard
 * (`reportInputFailure`, cli/commands/schema_inputs.ts), a verification result's message, a
 * server's failure (`printServerFailure`) and the `contract` reports (cli/contractpin/init.ts,
 * cli/contractpin/notice_text.ts), so stderr and `--json` carry the same words.
 *
 * @module
 */
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
