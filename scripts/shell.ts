/**
 * Shell quoting for the command lines scripts print (`deno task demo`, `deno task install
 * --print`): a printed line pasted into sh, bash or zsh runs the same argument list. The same
 * quoting the CLI uses for the commands it suggests (lib/contractpin/display_text.ts).
 *
 * @module
 */
export { shellLine, shellQuote } from "../lib/contractpin/display_text.ts";
