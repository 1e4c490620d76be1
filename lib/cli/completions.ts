/**
 * `schemapin completions bash|zsh|fish`: a shell completion script generated from the command
 * registry. Subcommands (`bundle sign`, `pins add`, …) and each command's flags are read from
 * the commands' flag tables (lib/cli/flags.ts), the same tables the parser and the help's
 * option lists are generated from, so a new flag is completed as soon as it exists.
 *
 * @module
 */
import { type FlagTable, offeredFlags } from "./flags.ts";
import {
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
  type SubcommandFlags,
  UsageError,
} from "./command.ts";

/** The shells a script can be generated for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** A shell a script can be generated for. */
export type Shell = typeof SHELLS[number];

/** What is completed after `schemapin NAME`. */
export interface CompletionSpec {
  /** The command word. */
  readonly name: string;
  /** One line describing it. */
  readonly summary: string;
  /** Flags the command takes (for a command with subcommands: flags of every subcommand). */
  readonly flags: readonly string[];
  /** Its subcommands with their flags, in help order (empty for most commands). */
  readonly subcommands: readonly { readonly name: string; readonly flags: readonly string[] }[];
  /**
   * For a command with subcommands that also runs without one (`guard -- CMD`): the flags of
   * that form, offered where a subcommand could be and after a word that is none.
   */
  readonly plainFlags?: readonly string[];
}

/**
 * What is completed for a command, read from its flag tables (lib/cli/flags.ts): the flags of
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

/** A word that is safe unquoted in all three shells (command, subcommand and flag names). */
function checkWord(word: string): string {
  if (!/^-{0,2}[a-z0-9][a-z0-9-]*$/.test(word)) {
    throw new Error(`completions: unexpected word ${JSON.stringify(word)} in a help text`);
  }
  return word;
}

function words(list: readonly string[]): string {
  return list.map(checkWord).join(" ");
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
  const specs = commands.map(completionSpec);
  switch (shell) {
    case "bash":
      return bashScript(specs);
    case "zsh":
      return zshScript(specs);
    case "fish":
      return fishScript(specs);
  }
}

const GLOBAL = ["--help", "--version"];

function bashScript(specs: CompletionSpec[]): string {
  const cases = specs.map((s) => {
    if (s.subcommands.length === 0) return `    ${checkWord(s.name)}) flags="${words(s.flags)}" ;;`;
    const subs = s.subcommands.map((sub) =>
      `        ${checkWord(sub.name)}) flags="${words(sub.flags)}" ;;`
    );
    const plain = s.plainFlags === undefined
      ? []
      : [`        *) flags="${words(s.plainFlags)}" ;;`];
    const atTwo = s.plainFlags === undefined
      ? `        COMPREPLY=($(compgen -W "${words(s.subcommands.map((x) => x.name))}" -- "$cur"))`
      : `        [[ "$cur" == -* ]] && COMPREPLY=($(compgen -W "${
        words(s.plainFlags)
      }" -- "$cur")) ||
          COMPREPLY=($(compgen -W "${words(s.subcommands.map((x) => x.name))}" -- "$cur"))`;
    return [
      `    ${checkWord(s.name)})`,
      `      if ((COMP_CWORD == 2)); then`,
      atTwo,
      `        return 0`,
      `      fi`,
      `      case "\${COMP_WORDS[2]}" in`,
      ...subs,
      ...plain,
      `      esac`,
      `      ;;`,
    ].join("\n");
  });
  return `# bash completion for schemapin (generated by \`schemapin completions bash\`).
# Install: schemapin completions bash > ~/.local/share/bash-completion/completions/schemapin
#      or: source <(schemapin completions bash)
_schemapin() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" flags="" i
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    COMPREPLY=($(compgen -W "${words(specs.map((s) => s.name))} ${words(GLOBAL)}" -- "$cur"))
    return 0
  fi
  # After a bare --, the words are another program's command line: complete files.
  for ((i = 2; i < COMP_CWORD; i++)); do
    [[ "\${COMP_WORDS[i]}" == "--" ]] && return 0
  done
  case "\${COMP_WORDS[1]}" in
${cases.join("\n")}
    *) return 0 ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  fi
  return 0
}
complete -o default -o bashdefault -F _schemapin schemapin
`;
}

/** Quotes for zsh single quotes and escapes the colon `_describe` splits on. */
function zshDescribed(name: string, summary: string): string {
  const text = `${name}:${summary.replace(/\\/g, "\\\\").replace(/:/g, "\\:")}`;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function zshScript(specs: CompletionSpec[]): string {
  const cases = specs.map((s) => {
    if (s.subcommands.length === 0) return `    ${checkWord(s.name)}) flags=(${words(s.flags)}) ;;`;
    const subs = s.subcommands.map((sub) =>
      `        ${checkWord(sub.name)}) flags=(${words(sub.flags)}) ;;`
    );
    const plain = s.plainFlags === undefined
      ? []
      : [`        *) flags=(${words(s.plainFlags)}) ;;`];
    const atThree = s.plainFlags === undefined
      ? [`        compadd -- ${words(s.subcommands.map((x) => x.name))}`]
      : [
        `        if [[ $PREFIX == -* ]]; then compadd -- ${words(s.plainFlags)}; else`,
        `          compadd -- ${words(s.subcommands.map((x) => x.name))}; fi`,
      ];
    return [
      `    ${checkWord(s.name)})`,
      `      if (( CURRENT == 3 )); then`,
      ...atThree,
      `        return`,
      `      fi`,
      `      case $words[3] in`,
      ...subs,
      ...plain,
      `      esac`,
      `      ;;`,
    ].join("\n");
  });
  const described = specs.map((s) => `    ${zshDescribed(s.name, s.summary)}`).join("\n");
  return `#compdef schemapin
# zsh completion for schemapin (generated by \`schemapin completions zsh\`).
# Install: schemapin completions zsh > "\${fpath[1]}/_schemapin"   (then restart zsh)
#      or: source <(schemapin completions zsh)   (after compinit)
_schemapin() {
  local -a flags commands
  local i
  if (( CURRENT == 2 )); then
    commands=(
${described}
    )
    _describe -t commands 'schemapin command' commands
    compadd -- ${words(GLOBAL)}
    return
  fi
  # After a bare --, the words are another program's command line: complete files.
  for (( i = 3; i < CURRENT; i++ )); do
    if [[ $words[i] == -- ]]; then
      _files
      return
    fi
  done
  case $words[2] in
${cases.join("\n")}
  esac
  if [[ $PREFIX == -* ]]; then
    compadd -- $flags
  else
    _files
  fi
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _schemapin "$@"
else
  compdef _schemapin schemapin
fi
`;
}

/** Quotes for fish single quotes. */
function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

function fishScript(specs: CompletionSpec[]): string {
  const out: string[] = [
    "# fish completion for schemapin (generated by `schemapin completions fish`).",
    "# Install: schemapin completions fish > ~/.config/fish/completions/schemapin.fish",
    "complete -c schemapin -n __fish_use_subcommand -s h -l help -d 'show help'",
    "complete -c schemapin -n __fish_use_subcommand -s V -l version -d 'print the version'",
  ];
  for (const s of specs) {
    const name = checkWord(s.name);
    out.push(
      `complete -c schemapin -n __fish_use_subcommand -f -a ${name} -d ${fishQuote(s.summary)}`,
    );
    // fish names a long flag with -l and a short one with -s.
    const long = (flags: readonly string[]) =>
      flags.map((f) =>
        f.startsWith("--") ? `-l ${checkWord(f).slice(2)}` : `-s ${checkWord(f).slice(1)}`
      );
    if (s.subcommands.length === 0) {
      for (const flag of long(s.flags)) {
        out.push(`complete -c schemapin -n '__fish_seen_subcommand_from ${name}' ${flag}`);
      }
      continue;
    }
    const subs = words(s.subcommands.map((x) => x.name));
    for (const flag of long(s.plainFlags ?? [])) {
      out.push(
        `complete -c schemapin -n '__fish_seen_subcommand_from ${name}; and not ` +
          `__fish_seen_subcommand_from ${subs}' ${flag}`,
      );
    }
    for (const sub of s.subcommands) {
      out.push(
        `complete -c schemapin -n '__fish_seen_subcommand_from ${name}; and not ` +
          `__fish_seen_subcommand_from ${subs}' -f -a ${checkWord(sub.name)}`,
      );
      for (const flag of long(sub.flags)) {
        out.push(
          `complete -c schemapin -n '__fish_seen_subcommand_from ${name}; and ` +
            `__fish_seen_subcommand_from ${sub.name}' ${flag}`,
        );
      }
    }
  }
  return out.join("\n") + "\n";
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
