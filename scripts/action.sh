#!/usr/bin/env bash
# The step of the GitHub Action (action.yml): runs schemapin with the `args` input, one argument
# per line, exactly as written — no word splitting, no globbing, no variable, command or quote
# processing — so `Authorization: Bearer ${SEARCH_TOKEN}` on one line arrives as one argument with
# `${SEARCH_TOKEN}` intact, for schemapin's own expansion (contract init/verify expand ${VAR}).
#
# Environment (set by action.yml; tests set them the same way):
#   SCHEMAPIN_ARGS      the `args` input. Each non-empty line is one argument; spaces and tabs at
#                       either end of a line are dropped; a line like "--format github" (an
#                       option and its value) is refused. A single line holding spaces is the
#                       earlier form ("contract verify --format github"): it is split at spaces
#                       and tabs, with a deprecation warning, and refused when it holds quotes,
#                       backslashes or glob characters, which that form used to mangle.
#   SCHEMAPIN_OUTPUT    the `output` input: a file that receives schemapin's stdout (SARIF, JSON),
#                       or empty for the log
#   SCHEMAPIN_ROOT      the action's own folder (github.action_path): deno.json and cli.ts
#   SCHEMAPIN_DENO      the Deno npm package to run with `npx -y` (deno@2.9.6)
#   SCHEMAPIN_DENO_BIN  a deno executable to use instead of npx (self-hosted runners, tests)
#
# Exit code: schemapin's (0 ok, 1 verification failed or drift, 2 cannot run); 2 when `args` is
# unusable.
set -euo pipefail

fail() {
  printf '::error title=schemapin action::%s\n' "$1" >&2
  exit 2
}

root=${SCHEMAPIN_ROOT:?SCHEMAPIN_ROOT (the action folder) is not set}
if [[ -n ${SCHEMAPIN_DENO_BIN:-} ]]; then
  deno=("$SCHEMAPIN_DENO_BIN")
else
  deno=(npx -y "${SCHEMAPIN_DENO:-deno@2.9.6}")
fi

# The arguments: one per line.
args=()
while IFS= read -r line || [[ -n $line ]]; do
  line=${line%$'\r'}
  line=${line#"${line%%[![:space:]]*}"}
  line=${line%"${line##*[![:space:]]}"}
  [[ -n $line ]] && args+=("$line")
done <<<"${SCHEMAPIN_ARGS:-}"

if ((${#args[@]} == 0)); then
  fail "args is empty: give the schemapin command and its arguments, one per line"
fi
if ((${#args[@]} == 1)) && [[ ${args[0]} =~ [[:space:]] ]]; then
  # One line with spaces cannot be one argument (a command name has none): the old form.
  legacy=${args[0]}
  special='['\''"\\*?[]' # a quote, a backslash or a glob character
  if [[ $legacy =~ $special ]]; then
    fail "args on one line are split at spaces only; this line holds quotes, a backslash or a glob character, which would not mean what they mean in a shell. Write one argument per line (args: |), e.g. the header value 'Authorization: Bearer \${TOKEN}' on a line of its own."
  fi
  IFS=$' \t' read -r -a args <<<"$legacy"
  printf '::warning title=schemapin action::args on one line is deprecated: it is split at spaces. Write one argument per line (args: |).\n' >&2
elif [[ ${args[0]} =~ [[:space:]] ]]; then
  fail "each line of args is one argument, and the first line ('${args[0]}') holds spaces: put the command and each of its arguments on a line of its own"
else
  # An option name never holds a space: "--format github" on one line is two arguments.
  for arg in "${args[@]}"; do
    if [[ $arg =~ ^-[^=[:space:]]*[[:space:]] ]]; then
      fail "each line of args is one argument, and '$arg' looks like an option and its value: put them on two lines (or write ${arg%%[[:space:]]*}=VALUE)"
    fi
  done
fi

# The permission flags of the schemapin task in deno.json (also the compiled binary's).
# --no-config: the workflow's own deno.json, if any, must not change how this runs.
flags_text=$("${deno[@]}" eval --quiet --no-config '
  const task = JSON.parse(Deno.readTextFileSync(Deno.args[0])).tasks.schemapin;
  const words = task.trim().split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run" || words.at(-1) !== "cli.ts") {
    throw new Error(`deno.json tasks.schemapin must be "deno run <flags> cli.ts", got: ${task}`);
  }
  console.log(words.slice(2, -1).join("\n"));
' "$root/deno.json")
mapfile -t flags <<<"$flags_text"

command=("${deno[@]}" run --quiet "${flags[@]}" --config "$root/deno.json" "$root/cli.ts" "${args[@]}")
if [[ -n ${SCHEMAPIN_OUTPUT:-} ]]; then
  exec "${command[@]}" >"$SCHEMAPIN_OUTPUT"
fi
exec "${command[@]}"
