/**
 * `schemapin completions bash|zsh|fish`: a shell completion script generated from the command
 * registry. Subcommands (`bundle sign`, `pins add`, …) and each command's flags are read from
 * the commands' flag tables (cli/args/flags.ts), the same tables the parser and the help's
 * option lists are generated from, so a new flag is completed as soon as it exists; the
 * scripts themselves are written by cli/args/completions.ts.
 *
 * @module
 */
import { type FlagTable, offeredFlags } from "../args/flags.ts";
import { type CompletionSpec, type Shell, SHELLS, shellScript } from "../args/completions.ts";
import {
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  type SubcommandFlags,
  UsageError,
} from "./command.ts";

/**
 * What is completed for a command, read from its flag tables (cli/args/flags.ts): the flags of
 * the command, or the subcommands with the flags of each; `--help` everywhere.
 *
 * @example
 * ```ts
 * import { completionSpec } from "./completions.ts";
 * const spec = completionSpec({
 *   name: "demo",
 *   summary: "a demo",
 *   help: "",
 *   flags: [{ name: "run", flags: { fast: { type: "boolean", help: "go fast" } } }],
 *   run: () => Promise.resolve(0),
 * });
 * spec.subcommands.map((s) => s.name); // ["run"]
 * spec.subcommands[0].flags; // ["--fast", "--help"]
 * ```
 */
export function completionSpec(command: Command): CompletionSpec {
  const tables = command.flags;
  if (!Array.isArray(tables)) {
    const flags = [...offeredFlags(tables as FlagTable), "--help"];
    return { name: command.name, summary: command.summary, flags, subcommands: [] };
  }
  const forms = (tables as readonly SubcommandFlags[]).map((sub) => ({
    name: sub.name,
    flags: [...new Set([...offeredFlags(sub.flags), "--help"])],
  }));
  const subcommands = forms.filter((f) => f.name !== "");
  const plain = forms.find((f) => f.name === "");
  const flags = [...new Set(forms.flatMap((sub) => sub.flags))];
  return {
    name: command.name,
    summary: command.summary,
    flags,
    subcommands,
    ...(plain !== undefined ? { plainFlags: plain.flags } : {}),
  };
}

/**
 * The completion script for `shell`, for `schemapin` with `commands`.
 *
 * @example
 * ```ts ignore
 * import { loadCommands } from "./registry.ts";
 * const script = completionScript("bash", await loadCommands());
 * ```
 */
export function completionScript(shell: Shell, commands: readonly Command[]): string {
  return shellScript(shell, "schemapin", commands.map(completionSpec));
}

const HELP = `schemapin completions — print a shell completion script

Usage: schemapin completions bash|zsh|fish

Prints a script that completes schemapin's commands, their subcommands (bundle sign, pins
add, …) and flags; other arguments complete as file names. The script is generated from the
commands' own flag tables, so it always matches this version.

Install:
  bash  schemapin completions bash > ~/.local/share/bash-completion/completions/schemapin
        (or add \`source <(schemapin completions bash)\` to ~/.bashrc)
  zsh   schemapin completions zsh > "\${fpath[1]}/_schemapin"   (then restart zsh)
  fish  schemapin completions fish > ~/.config/fish/completions/schemapin.fish

Exit codes: 0 printed; 2 no shell or an unknown shell.

Example:
  source <(schemapin completions bash)
`;

/**
 * The `completions` command, completing the commands `list()` returns (the registry passes
 * its loader, which also lets the script include `completions` itself).
 *
 * @example
 * ```ts ignore
 * const completionsCommand = makeCompletionsCommand(loadCommands);
 * ```
 */
export function makeCompletionsCommand(
  list: () => readonly Command[] | Promise<readonly Command[]>,
): Command {
  return {
    name: "completions",
    summary: "print a bash, zsh or fish completion script",
    help: HELP,
    // The shell is a word, not a flag: completed like a subcommand.
    flags: SHELLS.map((name) => ({ name, flags: {} })),
    async run(args, io) {
      const { positionals } = parseCommandArgs("completions", args, {});
      const [shell] = requirePositionals("completions", positionals, 1, "a shell (bash|zsh|fish)");
      if (!(SHELLS as readonly string[]).includes(shell)) {
        throw new UsageError(
          `completions: unknown shell ${JSON.stringify(shell)}; expected bash, zsh or fish`,
        );
      }
      await io.stdout(completionScript(shell as Shell, await list()));
      return EXIT_OK;
    },
  };
}
