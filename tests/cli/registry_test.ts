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
  // importing only lib/errors.ts).
  assert.ok(atStart.length <= 13, `start-up loads ${atStart.length} modules: ${atStart}`);
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
