/**
 * The first-use question of the verify commands (`verify-schema`, `verify-skill`,
 * `contract verify --require-signature`): one answer line read from the process terminal.
 *
 * @module
 */
import type { CliIO } from "./command.ts";

/** Reads one answer line from the user, or `undefined` when there is no terminal to ask. */
export type PromptLine = (question: string, io: CliIO) => Promise<string | undefined>;

/** What a verify command needs from its environment (tests replace the prompt). */
export interface VerifyCommandDeps {
  /** How to ask the user to confirm a first-use key. */
  readonly prompt: PromptLine;
}

/**
 * Asks on the process terminal (stdin and stderr both TTYs); otherwise no prompt.
 *
 * @example
 * ```ts ignore
 * const answer = await terminalPrompt("Pin this key? [y/N] ", io); // undefined in a pipe
 * ```
 */
export const terminalPrompt: PromptLine = async (question, io) => {
  if (!Deno.stdin.isTerminal() || !io.stderrIsTerminal) return undefined;
  await io.stderr(question);
  const buf = new Uint8Array(1);
  const bytes: number[] = [];
  while (bytes.length < 1024) {
    const n = await Deno.stdin.read(buf);
    if (n === null || buf[0] === 0x0a) break;
    bytes.push(buf[0]);
  }
  return new TextDecoder().decode(new Uint8Array(bytes)).trim();
};
