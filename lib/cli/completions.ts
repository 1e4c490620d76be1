/**
 * `schemapin completions bash|zsh|fish`: a shell completion script generated from the command
 * registry. Subcommands (`bundle sign`, `pins add`, …) and each command's flags are read from
 * the commands' own `--help` texts — the Usage block and the option lists — so a new command
 * or flag is completed as soon as its help documents it.
 *
 * @module
 */
import {
  type Command,
  EXIT_OK,
  parseCommandArgs,
  requirePositionals,
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
}

const FLAG = /(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*/g;

function flagsIn(text: string): string[] {
  return text.match(FLAG) ?? [];
}

/** The term column of an option-list line (`  -o, --out FILE   description`), if it is one. */
function optionTerm(line: string): string | undefined {
  if (!/^\s+(?:-[a-z], )?--[a-z]/.test(line)) return undefined;
  return line.trimStart().split(/\s{2,}/)[0];
}

/** The long flags in the term column of an option-list line. */
function optionLineFlags(line: string): string[] {
  const term = optionTerm(line);
  return term === undefined ? [] : flagsIn(term);
}

/** Short forms declared in option lines (`-o, --out`): long flag → short flag. */
function shortForms(lines: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of lines) {
    const m = /^(-[a-z]), (--[a-z][a-z0-9-]*)/.exec(optionTerm(line) ?? "");
    if (m) out.set(m[2], m[1]);
  }
  return out;
}

/** `flags` with each declared short form right after its long flag. */
function withShorts(flags: readonly string[], shorts: ReadonlyMap<string, string>): string[] {
  return flags.flatMap((f) => (shorts.has(f) ? [f, shorts.get(f)!] : [f]));
}

function unique(items: Iterable<string>): string[] {
  return [...new Set(items)];
}

/**
 * Reads a command's completion data from its help text: flags from the Usage block and from
 * option-list lines (prose is ignored, so a flag of another command quoted in a sentence is
 * not offered); subcommands from Usage lines `schemapin NAME WORD …` (also `a|b|c`
 * alternatives). A subcommand gets the flags of its own usage lines, of another subcommand
 * whose options it takes "as for" it, and every flag no subcommand's usage line names.
 *
 * @example
 * ```ts
 * import { completionSpec } from "./completions.ts";
 * const spec = completionSpec({
 *   name: "demo",
 *   summary: "a demo",
 *   help: "Usage:\n  schemapin demo run [--fast]\n  schemapin demo stop\n\nOptions:\n  --json  JSON\n",
 *   run: () => Promise.resolve(0),
 * });
 * spec.subcommands.map((s) => s.name); // ["run", "stop"]
 * spec.subcommands[0].flags; // ["--fast", "--json", "--help"]
 * ```
 */
export function completionSpec(command: Command): CompletionSpec {
  const lines = command.help.split("\n");
  const usageStart = lines.findIndex((l) => /^Usage:/.test(l));
  const usage: string[] = [];
  if (usageStart >= 0) {
    for (let i = usageStart; i < lines.length && lines[i].trim() !== ""; i++) {
      usage.push(i === usageStart ? lines[i].replace(/^Usage:/, "") : lines[i]);
    }
  }
  const own = new Map<string, { flags: string[]; asFor: string[] }>();
  const attributed = new Set<string>();
  const general: string[] = [];
  const subLine = new RegExp(
    `^\\s*schemapin ${escapeRegExp(command.name)} ([a-z][a-z-]*(?:\\|[a-z][a-z-]*)*)(?=\\s|$)`,
  );
  let current: string[] | undefined; // the subcommands the running usage line belongs to
  let currentIndent = 0;
  for (const line of usage) {
    const indent = line.length - line.trimStart().length;
    const m = subLine.exec(line);
    if (m) {
      current = m[1].split("|");
      currentIndent = indent;
    } else if (/^\s*schemapin /.test(line) || indent <= currentIndent) {
      current = undefined; // another usage form, or a note ("All take …")
    }
    const flags = flagsIn(line);
    if (current === undefined) {
      general.push(...flags);
      continue;
    }
    for (const sub of current) {
      const entry = own.get(sub) ?? { flags: [], asFor: [] };
      entry.flags.push(...flags);
      for (const ref of line.matchAll(/as for ([a-z][a-z-]*)/g)) entry.asFor.push(ref[1]);
      own.set(sub, entry);
    }
    for (const f of flags) attributed.add(f);
  }
  for (const line of lines) general.push(...optionLineFlags(line));
  const shared = unique(general).filter((f) => !attributed.has(f));
  const shorts = shortForms(lines);
  const subcommands = [...own.entries()].map(([name, entry]) => {
    const borrowed = entry.asFor.flatMap((ref) => own.get(ref)?.flags ?? []);
    const list = unique([...entry.flags, ...borrowed, ...shared, "--help"]);
    return { name, flags: withShorts(list, shorts) };
  });
  const flags = withShorts(
    unique([...general, ...[...own.values()].flatMap((e) => e.flags), "--help"]),
    shorts,
  );
  return { name: command.name, summary: command.summary, flags, subcommands };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
    return [
      `    ${checkWord(s.name)})`,
      `      if ((COMP_CWORD == 2)); then`,
      `        COMPREPLY=($(compgen -W "${words(s.subcommands.map((x) => x.name))}" -- "$cur"))`,
      `        return 0`,
      `      fi`,
      `      case "\${COMP_WORDS[2]}" in`,
      ...subs,
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
    return [
      `    ${checkWord(s.name)})`,
      `      if (( CURRENT == 3 )); then`,
      `        compadd -- ${words(s.subcommands.map((x) => x.name))}`,
      `        return`,
      `      fi`,
      `      case $words[3] in`,
      ...subs,
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
    const long = (flags: readonly string[]) => flags.map((f) => `-l ${checkWord(f).slice(2)}`);
    if (s.subcommands.length === 0) {
      for (const flag of long(s.flags)) {
        out.push(`complete -c schemapin -n '__fish_seen_subcommand_from ${name}' ${flag}`);
      }
      continue;
    }
    const subs = words(s.subcommands.map((x) => x.name));
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
commands' help texts, so it always matches this version.

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
