/**
 * Text shown to a person — a reviewer reading a diff, a CI log, a terminal — must not be able
 * to hide or reorder what it says: a tool definition comes from the server under review, so
 * its zero-width characters, bidi overrides, tag characters, variation selectors or terminal
 * escape sequences (ESC) are printed as their code points, never as themselves.
 *
 * @module
 */
import { checkArg } from "../arguments.ts";

// Format (Cf) and control (Cc) characters, line/paragraph separators and variation selectors
// (they render as nothing and can carry bytes), except tab and line feed which layout needs.
const INVISIBLE = /[[\p{Cf}\p{Cc}\p{Zl}\p{Zp}\p{Variation_Selector}]--[\t\n]]/gv;

/**
 * Text safe to put in front of a reviewer: every format or control character (zero-width,
 * bidi controls, tag characters, ESC, …) and every variation selector, except tab and line
 * feed, is shown as its escaped code point (`\u{200B}`), never as itself.
 *
 * @example
 * ```ts
 * import { escapeInvisible } from "./display_text.ts";
 * escapeInvisible("a\u200Bb\u{E0041}"); // "a\\u{200B}b\\u{E0041}"
 * ```
 */
export function escapeInvisible(text: string): string {
  checkArg("escapeInvisible", "text", text, "string");
  return text.replace(
    INVISIBLE,
    (ch) => `\\u{${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}}`,
  );
}

/**
 * One argument as a POSIX shell reads it back: as is when it holds only safe characters,
 * otherwise in single quotes (a `'` inside becomes `'\''`).
 *
 * @example
 * ```ts
 * import { shellQuote } from "./display_text.ts";
 * shellQuote("it's"); // "'it'\\''s'"
 * ```
 */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/**
 * An argv as one line a POSIX shell reads back as the same argv (arguments quoted only when
 * they need it; invisible and control characters are not escaped here — see
 * {@linkcode escapeInvisible} for display).
 *
 * @example
 * ```ts
 * import { shellLine } from "./display_text.ts";
 * shellLine(["schemapin", "contract", "approve", "--tool", "it's"]);
 * // "schemapin contract approve --tool 'it'\\''s'"
 * ```
 */
export function shellLine(argv: readonly string[]): string {
  checkArg("shellLine", "argv", argv, "array");
  return argv.map(shellQuote).join(" ");
}
