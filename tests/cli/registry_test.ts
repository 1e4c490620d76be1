// The command registry loads a command only when it is invoked (issue 14): the entry's name
// and summary must be the loaded command's own, every command must load, and every command
// module must still be in the module graph of cli.ts — dynamic imports of literal specifiers,
// which `deno compile` includes in the binary.
import assert from "node:assert/strict";
import { COMMAND_ENTRIES, loadCommands } from "../../cli/commands/registry.ts";
import { runCli } from "../../cli/commands/main.ts";
import { denoCommand } from "../process.ts";

const ROOT = new URL("../../", import.meta.url);

Deno.test("registry: every entry loads a command with the same name and summary", async () => {
  assert.equal(new Set(COMMAND_ENTRIES.map((e) => e.name)).size, COMMAND_ENTRIES.length);
  const commands = await loadCommands();
  assert.equal(commands.length, COMMAND_ENTRIES.length);
  COMMAND_ENTRIES.forEach((entry, i) => {
    assert.equal(commands[i].name, entry.name);
    assert.equal(commands[i].summary, entry.summary, `${entry.name}: summary differs`);
    assert.match(commands[i].help, /Example/, entry.name);
  });
});

Deno.test("registry: an unknown command is exit 2 without loading anything", async () => {
  let err = "";
  const code = await runCli(["verify-schemas"], {
    stdout: () => Promise.resolve(),
    stderr: (t) => Promise.resolve(void (err += t)),
    readStdin: () => Promise.resolve(new Uint8Array()),
    stderrIsTerminal: false,
  });
  assert.equal(code, 2);
  assert.match(err, /unknown command "verify-schemas"/);
});

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

async function moduleGraph(): Promise<Map<string, InfoModule>> {
  const out = await denoCommand(["info", "--json", "cli.ts"], {
    cwd: ROOT.pathname,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
  return new Map(info.modules.map((m) => [m.specifier, m]));
}

function closure(graph: Map<string, InfoModule>, root: string, dynamic: boolean): Set<string> {
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const dep of graph.get(s)?.dependencies ?? []) {
      if (dep.code && (dynamic || !dep.isDynamic)) stack.push(dep.code.specifier);
    }
  }
  return seen;
}

Deno.test("registry: command modules are in cli.ts's graph (deno compile), not loaded at start", async () => {
  const graph = await moduleGraph();
  const cli = new URL("cli.ts", ROOT).href;
  const all = closure(graph, cli, true);
  const source = await Deno.readTextFile(new URL("cli/commands/registry.ts", ROOT));
  const files = [...source.matchAll(/await import\("\.\/([a-z_]+\.ts)"\)/g)].map((m) => m[1]);
  assert.equal(files.length, COMMAND_ENTRIES.length, "one literal import() per command");
  for (const file of files) {
    assert.ok(all.has(new URL(`cli/commands/${file}`, ROOT).href), `${file} is not in the graph`);
  }
  // What every start loads: the entry point, the dispatcher, the registry and their helpers.
  const atStart = [...closure(graph, cli, false)].filter((s) => s.startsWith("file:"));
  for (const file of files) {
    assert.ok(
      !atStart.includes(new URL(`cli/commands/${file}`, ROOT).href),
      `${file} loads at start`,
    );
  }
  // 13: the entry point, dispatcher, registry, command helpers, errors, version, the signal
  // clean-up (cli/commands/interrupt.ts, lib/runtime/temp_files.ts: issue 15 item 10), its loader of
  // Node built-ins for Node and Bun (lib/runtime/builtin.ts, which loads nothing under Deno) and
  // the exit-code table every error goes through (cli/exit_codes.ts: issue 25 item 6,
  // importing only lib/errors.ts). 15 since issue 36 item 2: the error printer words library
  // messages in the CLI's words (cli/library_words.ts) from the library's phrases
  // (lib/option_hints.ts, one file with no imports).
  assert.ok(atStart.length <= 15, `start-up loads ${atStart.length} modules: ${atStart}`);
});

Deno.test("start-up: verify-schema and sign-schema load no node: module but node:util", async () => {
  // Each of node:fs, node:fs/promises, node:process, node:crypto, node:net and node:dgram
  // starts Deno's Node compatibility layer, ~40 ms of start-up (issue 14); the commands load
  // them where they are needed (a DNS query, the pid of a live lock, a large hash), not at start.
  const graph = await moduleGraph();
  for (const entry of ["cli.ts", "cli/commands/verify_schema.ts", "cli/commands/sign_schema.ts"]) {
    const loaded = closure(graph, new URL(entry, ROOT).href, false);
    const builtins = [...loaded].filter((s) => s.startsWith("node:")).sort();
    assert.deepEqual(builtins, ["node:util"], `${entry} loads ${builtins.join(", ")}`);
  }
});

/**
 * What a one-shot command loads that it must not: the modules of `roots` (repository-relative)
 * reached through imports that run (`closure` without dynamic imports; `import type` has no
 * `code` side), then the ones among them that start with a prefix of `heavy`, and a count over
 * `ceiling`.
 */
function oneShotProblems(
  graph: Map<string, InfoModule>,
  roots: readonly string[],
  heavy: readonly string[],
  ceiling: number,
): string[] {
  const loaded = new Set<string>();
  for (const root of roots) {
    for (const s of closure(graph, new URL(root, ROOT).href, false)) {
      if (s.startsWith(ROOT.href)) loaded.add(s.slice(ROOT.href.length));
    }
  }
  const problems = [...loaded].filter((f) => heavy.some((h) => f.startsWith(h))).sort()
    .map((f) => `${f} is loaded`);
  if (loaded.size > ceiling) {
    problems.push(`${loaded.size} modules over ${ceiling}: ${[...loaded].sort().join(", ")}`);
  }
  return problems;
}

// What only some runs of verify-schema take (issue 36 item 6): a batch, lineage, a bundle, a
// chain of resolvers, .well-known, DNS, --json, a failure's hint or remedy, a first-use prompt,
// signing, skills, and the areas verification never touches. Each is a dynamic import where it
// is needed.
const NOT_FOR_ONE_VERIFY = [
  "lib/schema/batch.ts",
  "lib/schema/batch_pool.ts",
  "lib/schema/batch_worker.ts",
  "lib/schema/sign_one.ts",
  "lib/schema/lineage_verify.ts",
  "lib/schema/resolver_verify.ts",
  "lib/pins/batch.ts",
  "lib/pins/lineage.ts",
  "lib/pins/chain.ts",
  "lib/crypto/signer.ts",
  "lib/skill/hash.ts",
  "lib/skill/walk.ts",
  "lib/skill/document.ts",
  "lib/skill/served_check.ts",
  "lib/skill/verify.ts",
  "lib/bundle/file.ts",
  "lib/bundle/resolver.ts",
  "lib/discovery/resolvers.ts",
  "lib/discovery/well_known.ts",
  "lib/discovery/http.ts",
  "lib/dns/check.ts",
  "lib/contractpin/display_text.ts",
  "lib/contractpin/lock",
  "lib/http/",
  "lib/mcp/",
  "lib/guard/",
  "lib/a2a/",
  "cli/trust/verify_folder.ts",
  "cli/trust/result_json.ts",
  "cli/trust/failure_hint.ts",
  "cli/commands/bundle_trust.ts",
  "cli/commands/json_output.ts",
  "cli/commands/lineage_store.ts",
  "cli/commands/progress.ts",
  "cli/commands/prompt.ts",
  "cli/schema/tool_id.ts",
];

// Modules of cli.ts + cli/commands/verify_schema.ts through imports that run: 69 when this was
// written (cfee898, before the CLI left lib/: 60); docs/performance.md, "Start-up".
const ONE_VERIFY_CEILING = 69;

Deno.test("start-up: a one-shot verify-schema loads only what verification needs", async () => {
  const graph = await moduleGraph();
  const roots = ["cli.ts", "cli/commands/verify_schema.ts"];
  assert.deepEqual(oneShotProblems(graph, roots, NOT_FOR_ONE_VERIFY, ONE_VERIFY_CEILING), []);
  // The graph is the real one: what verification needs is there.
  const needed = oneShotProblems(graph, roots, ["lib/schema/verify.ts", "lib/trust/load.ts"], 999);
  assert.deepEqual(needed, ["lib/schema/verify.ts is loaded", "lib/trust/load.ts is loaded"]);
});

Deno.test("start-up: oneShotProblems finds a heavy module, through static imports only", () => {
  const at = (f: string) => new URL(f, ROOT).href;
  const module = (f: string, deps: [string, boolean][]): [string, InfoModule] => [
    at(f),
    {
      specifier: at(f),
      dependencies: deps.map(([d, isDynamic]) => ({ code: { specifier: at(d) }, isDynamic })),
    },
  ];
  const graph = new Map([
    module("cli.ts", [["cli/commands/main.ts", false]]),
    module("cli/commands/main.ts", [["cli/commands/verify_schema.ts", true]]),
    module("cli/commands/verify_schema.ts", [
      ["lib/schema/batch.ts", false],
      ["lib/mcp/client.ts", true],
    ]),
    module("lib/schema/batch.ts", [["lib/schema/sign_one.ts", false]]),
  ]);
  const roots = ["cli.ts", "cli/commands/verify_schema.ts"];
  assert.deepEqual(oneShotProblems(graph, roots, NOT_FOR_ONE_VERIFY, 5), [
    "lib/schema/batch.ts is loaded",
    "lib/schema/sign_one.ts is loaded",
  ]);
  // A dynamic import not taken is not loaded; from cli.ts alone the command is not either.
  assert.deepEqual(oneShotProblems(graph, ["cli.ts"], NOT_FOR_ONE_VERIFY, 2), []);
  // Over the ceiling: the count and the modules.
  assert.deepEqual(oneShotProblems(graph, ["cli.ts"], [], 1), [
    "2 modules over 1: cli.ts, cli/commands/main.ts",
  ]);
});
