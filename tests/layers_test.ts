// The folders of lib/ form layers with no way back up (ARCHITECTURE.md, "Layers"): a file may import
// files of its own folder, of another folder of its layer, or of a lower layer — never of a
// higher one; the folders of a layer import each other without cycles, and no two published
// files import each other (directly or around a loop). The import graph is Deno's own
// (`deno info --json` over every file of lib/), so type-only, re-export and dynamic imports
// all count, and imports shown in JSDoc examples do not.
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";

const root = new URL("../", import.meta.url);

/**
 * Bottom to top, over the whole program: the library (`lib/`, what the entry points reach) and then
 * the CLI (`cli/`: its toolkit, its application layer, its commands). A folder (or a file directly
 * in `lib/` or `cli/`) not listed here fails the test: place it on purpose. a2a (§20) verifies
 * schemas in a delegation scope, so it sits with the flows it calls.
 */
const LAYERS: readonly (readonly string[])[] = [
  // no knowledge of the above: pure helpers, and the per-runtime I/O adapters (runtime/: file
  // system, atomic writes, the list of temporary files being written, locks and processes
  // through node: modules on Node and Bun) the shells of the higher layers go through
  [
    "lib/errors.ts",
    "lib/arguments.ts",
    "lib/version.ts",
    "lib/json",
    "lib/crypto",
    "lib/time",
    "lib/runtime",
    // what the library says about an option a caller can change (no imports)
    "lib/option_hints.ts",
  ],
  // where keys and trust come from; the MCP client stack (JSON-RPC, stdio, Streamable HTTP,
  // SSE, legacy HTTP+SSE, the protocol conversation) that contractpin and guard both use
  ["lib/dns", "lib/revocation", "lib/discovery", "lib/pins", "lib/mcp"],
  // the two specs' operations; trust/ composes the key sources (discovery file, bundle,
  // resolver folder, .well-known, DNS) for them, so it sits with the flows and bundles it calls
  ["lib/schema", "lib/skill", "lib/bundle", "lib/contractpin", "lib/a2a", "lib/trust"],
  // the HTTP/1.1 server of serve and guard --listen (no knowledge of the above)
  ["lib/http"],
  // the live MCP proxy
  ["lib/guard"],
  // The CLI. Its toolkit (flag tables, parse mistakes, did-you-mean, completion scripts) knows
  // nothing of schemapin and needs only node:util.
  ["cli/args"],
  // The CLI's application layer: the exit code of each error code, options from flags, trust
  // plans from argv, key files and passphrases, the SSH agent client, MCP client configs, remedy
  // texts and the CLI's JSON shapes. It imports the library, never the reverse.
  [
    "cli/exit_codes.ts",
    // the library's messages in the CLI's words (its flags and commands)
    "cli/library_words.ts",
    "cli/ssh_agent",
    "cli/json",
    "cli/time",
    "cli/keys",
    "cli/dns",
    "cli/http",
    "cli/mcp",
    "cli/discovery",
    "cli/pins",
    "cli/schema",
    "cli/skill",
    "cli/trust",
    "cli/bundle",
    "cli/mcp_config",
    "cli/contractpin",
    "cli/guard",
  ],
  // the commands: one file per command with its flag table and help
  ["cli/commands"],
];

const layerOf = new Map<string, number>();
LAYERS.forEach((names, i) => names.forEach((n) => layerOf.set(n, i)));

/** `lib/x/y.ts` → `lib/x`; `lib/errors.ts` → `lib/errors.ts`. */
function unitOf(path: string): string {
  const parts = path.split("/");
  return parts.length <= 2 ? path : `${parts[0]}/${parts[1]}`;
}

/** Every import of one file, as repository-relative paths (`lib/…`, `cli/…`). */
type Graph = ReadonlyMap<string, readonly string[]>;

/** Folder (or root file) → the other units it imports, with one example import each. */
function unitEdges(graph: Graph): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const [file, deps] of graph) {
    const from = unitOf(file);
    for (const dep of deps) {
      const to = unitOf(dep);
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from)!.has(to)) edges.get(from)!.set(to, `${file} → ${dep}`);
    }
  }
  return edges;
}

/** Strongly connected components with more than one member (Tarjan). */
function cycles(nodes: Iterable<string>, next: (n: string) => Iterable<string>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return found;
}

/** Everything wrong with `graph`, one line each; empty when the layers hold. */
function layerProblems(graph: Graph): string[] {
  const problems: string[] = [];
  const units = new Set([...graph.keys()].map(unitOf));
  for (const u of [...units].sort()) {
    if (!layerOf.has(u)) problems.push(`${u} has no layer: add it to LAYERS in this test`);
  }
  const edges = unitEdges(graph);
  for (const [from, tos] of edges) {
    for (const [to, example] of tos) {
      const a = layerOf.get(from);
      const b = layerOf.get(to);
      if (a !== undefined && b !== undefined && b > a) {
        problems.push(`${from} (layer ${a}) imports ${to} (layer ${b}, higher): ${example}`);
      }
    }
  }
  for (const c of cycles(units, (u) => edges.get(u)?.keys() ?? [])) {
    const around = c.map((u) =>
      `${u} → ${
        [...(edges.get(u) ?? new Map()).entries()]
          .filter(([to]) => c.includes(to)).map(([, e]) => e).join(", ")
      }`
    );
    problems.push(`folders import each other: ${c.join(", ")} (${around.join("; ")})`);
  }
  const published = [...graph.keys()].filter((f) => !f.startsWith("cli/commands/"));
  for (const c of cycles(published, (f) => graph.get(f) ?? [])) {
    problems.push(`files import each other: ${c.join(", ")}`);
  }
  return problems;
}

/** All .ts files under `dir`, relative to it with `prefix` in front. */
async function tsFiles(dir: URL, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) {
      out.push(...await tsFiles(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`));
    } else if (e.name.endsWith(".ts")) out.push(prefix + e.name);
  }
  return out.sort();
}

/** The program's folders: the library, then the CLI. */
const PROGRAM = ["lib/", "cli/"] as const;

/**
 * Deno's import graph of every file of lib/ and cli/ (repository-relative paths) plus the entry
 * points (their imports as repository-relative paths too).
 */
async function importGraph(): Promise<{ program: Graph; entries: Graph }> {
  const files = (await Promise.all(PROGRAM.map((d) => tsFiles(new URL(d, root), d)))).flat();
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const entryFiles = (Object.values(config.exports as Record<string, string>)).map((f) =>
    f.replace(/^\.\//, "")
  );
  const dir = await Deno.makeTempDir();
  try {
    const all = `${dir}/all.ts`;
    const lines = [...files, ...entryFiles].map((f) =>
      `import ${JSON.stringify(new URL(f, root).href)};`
    );
    await Deno.writeTextFile(all, lines.join("\n") + "\n");
    const { code, stdout, stderr } = await childCommand(Deno.execPath(), {
      args: ["info", "--json", "--config", new URL("deno.json", root).pathname, all],
      cwd: root.pathname,
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    const info = JSON.parse(new TextDecoder().decode(stdout)) as {
      modules: {
        specifier: string;
        dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
      }[];
    };
    const inRepo = (s: string) => s.startsWith(root.href) ? s.slice(root.href.length) : undefined;
    const program = new Map<string, string[]>();
    const entries = new Map<string, string[]>();
    for (const m of info.modules) {
      const path = inRepo(m.specifier);
      if (path === undefined) continue;
      const deps = [
        ...new Set(
          (m.dependencies ?? []).flatMap((d) => [d.code?.specifier, d.type?.specifier])
            .filter((s): s is string => s !== undefined).map(inRepo)
            .filter((s): s is string => s !== undefined),
        ),
      ];
      if (PROGRAM.some((d) => path.startsWith(d))) program.set(path, deps);
      else if (entryFiles.includes(path)) entries.set(path, deps);
    }
    assert.equal(program.size, files.length, "deno info saw every file of lib/ and cli/");
    assert.equal(entries.size, entryFiles.length, "deno info saw every entry point");
    return { program, entries };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * The files of lib/ that no public entry point reaches, sorted: lib/ is the library, so every
 * file in it is reached (ARCHITECTURE.md, "Two faces, one codebase"); a file only the CLI needs
 * lives in cli/.
 */
function unreachedLibFiles(program: Graph, entries: Graph): string[] {
  const seen = new Set<string>();
  const queue = [...entries.values()].flat();
  for (let i = 0; i < queue.length; i++) {
    const f = queue[i];
    if (seen.has(f)) continue;
    seen.add(f);
    queue.push(...(program.get(f) ?? []));
  }
  return [...program.keys()].filter((f) => f.startsWith("lib/") && !seen.has(f)).sort();
}

Deno.test("layers: imports point down or sideways, no cycles between folders or files", async () => {
  const { program } = await importGraph();
  assert.deepEqual(layerProblems(program), []);
  // The graph is the real one: the flows import what the layers say they do.
  assert.ok(program.get("lib/schema/flow.ts")?.includes("lib/pins/store.ts"));
  assert.ok(program.get("lib/skill/verify.ts")?.includes("lib/schema/flow.ts"));
});

Deno.test("lib/ is the library: every file of it is reached from a public entry point", async () => {
  const { program, entries } = await importGraph();
  assert.deepEqual(unreachedLibFiles(program, entries), []);
  // The graph is the real one: the CLI reaches files the entry points do not.
  assert.ok(program.get("cli/commands/main.ts")?.includes("cli/commands/registry.ts"));
});

Deno.test("the reachability check finds a lib/ file only the CLI or nothing imports", () => {
  const program = new Map<string, string[]>([
    ["lib/schema/flow.ts", ["lib/errors.ts"]],
    ["lib/errors.ts", []],
    ["lib/trust/plan.ts", ["lib/schema/flow.ts"]], // only the CLI imports it
    ["lib/orphan.ts", []], // nothing imports it
    ["cli/commands/main.ts", ["lib/trust/plan.ts", "cli/commands/io.ts"]],
    ["cli/commands/io.ts", []],
  ]);
  const entries: Graph = new Map([["schema.ts", ["lib/schema/flow.ts"]]]);
  assert.deepEqual(unreachedLibFiles(program, entries), ["lib/orphan.ts", "lib/trust/plan.ts"]);
  const reaching: Graph = new Map([["schema.ts", ["lib/schema/flow.ts", "lib/trust/plan.ts"]]]);
  program.delete("lib/orphan.ts");
  assert.deepEqual(unreachedLibFiles(program, reaching), []);
});

Deno.test("the published entry points import lib/ files but nothing from cli/", async () => {
  const { entries } = await importGraph();
  for (const [entry, deps] of entries) {
    assert.ok(deps.some((d) => d.startsWith("lib/")), `${entry} re-exports lib/ files`);
    assert.deepEqual(deps.filter((d) => d.startsWith("cli/")), [], `${entry} imports the CLI`);
  }
});

Deno.test("no file of lib/ imports cli/", async () => {
  const { program } = await importGraph();
  const up = [...program].flatMap(([file, deps]) =>
    file.startsWith("lib/")
      ? deps.filter((d) => d.startsWith("cli/")).map((d) => `${file} → ${d}`)
      : []
  );
  assert.deepEqual(up, []);
});

/**
 * The imports that break the rule of cli/args/ (ARCHITECTURE.md, "Layers"): it is the CLI's
 * toolkit and knows nothing of schemapin, so it imports only its own files, and only
 * cli/commands/ imports it.
 */
function argsImportProblems(graph: Graph): string[] {
  const problems: string[] = [];
  const inArgs = (f: string) => f.startsWith("cli/args/");
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      if (inArgs(file) && !inArgs(dep)) problems.push(`${file} imports ${dep}`);
      if (inArgs(dep) && !inArgs(file) && !file.startsWith("cli/commands/")) {
        problems.push(`${file} imports ${dep}`);
      }
    }
  }
  return problems.sort();
}

Deno.test("cli/args imports only itself and is imported only by cli/commands", async () => {
  const { program } = await importGraph();
  assert.deepEqual(argsImportProblems(program), []);
  assert.ok(
    program.get("cli/commands/command.ts")?.includes("cli/args/flags.ts"),
    "the graph is the real one",
  );
});

Deno.test("the cli/args check finds an import out of it and an import into it from elsewhere", () => {
  const graph: Graph = new Map([
    ["cli/args/flags.ts", ["cli/args/suggest.ts", "lib/errors.ts"]],
    ["lib/schema/flow.ts", ["cli/args/flags.ts"]],
    ["cli/commands/main.ts", ["cli/args/suggest.ts"]],
  ]);
  assert.deepEqual(argsImportProblems(graph), [
    "cli/args/flags.ts imports lib/errors.ts",
    "lib/schema/flow.ts imports cli/args/flags.ts",
  ]);
});

/**
 * Every import of a command module (one `cli/commands/registry.ts` loads) by another file, one
 * line each: a command is loaded only by the registry, so no command imports another
 * (ARCHITECTURE.md, "How a command is built", step 1) and no other file imports one.
 */
function commandImportProblems(graph: Graph, commands: readonly string[]): string[] {
  const problems: string[] = [];
  for (const [file, deps] of graph) {
    if (file === "cli/commands/registry.ts") continue;
    for (const dep of deps) {
      if (dep !== file && commands.includes(dep)) problems.push(`${file} imports ${dep}`);
    }
  }
  return problems.sort();
}

/** The command modules `cli/commands/registry.ts` loads (its literal `import("./x.ts")` calls). */
async function commandModules(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("cli/commands/registry.ts", root));
  return [...text.matchAll(/\bimport\("\.\/([a-z_]+\.ts)"\)/g)].map((m) => `cli/commands/${m[1]}`);
}

Deno.test("cli/commands: a command module is imported by the registry only, never by another command", async () => {
  const { program } = await importGraph();
  const commands = await commandModules();
  assert.ok(commands.length >= 20, `the registry loads ${commands.length} commands`);
  for (const c of commands) assert.ok(program.has(c), `${c} is a file of cli/commands/`);
  assert.deepEqual(commandImportProblems(program, commands), []);
  // The graph is the real one: commands import their shared, non-command helpers.
  assert.ok(
    program.get("cli/commands/verify_schema.ts")?.includes("cli/commands/schema_report.ts"),
  );
});

Deno.test("the command check finds a command importing another, and a library file importing one", () => {
  const c = (f: string) => `cli/commands/${f}`;
  const commands = [c("verify_schema.ts"), c("verify_skill.ts"), c("guard.ts")];
  const graph = new Map<string, string[]>([
    [c("registry.ts"), [...commands]],
    [c("verify_skill.ts"), [c("verify_schema.ts"), c("schema_report.ts")]],
    [c("verify_schema.ts"), [c("schema_report.ts"), c("verify_schema.ts")]],
    [c("guard.ts"), [c("lock_signature.ts")]],
    ["lib/guard/setup.ts", [c("guard.ts")]],
  ]);
  assert.deepEqual(commandImportProblems(graph, commands), [
    "cli/commands/verify_skill.ts imports cli/commands/verify_schema.ts",
    "lib/guard/setup.ts imports cli/commands/guard.ts",
  ]);
  graph.delete(c("verify_skill.ts"));
  graph.delete("lib/guard/setup.ts");
  assert.deepEqual(commandImportProblems(graph, commands), []);
});

Deno.test("the layer check finds an upward import, a folder cycle, a file cycle, a new folder", () => {
  const graph = new Map<string, string[]>([
    ["lib/json/parse.ts", ["lib/errors.ts"]],
    ["lib/errors.ts", []],
    ["lib/dns/domain.ts", ["lib/schema/flow.ts"]], // up: trust layer → operations
    ["lib/schema/flow.ts", ["lib/dns/domain.ts"]],
    ["lib/pins/a.ts", ["lib/revocation/b.ts"]], // sideways, but around a loop
    ["lib/revocation/b.ts", ["lib/pins/a.ts"]],
    ["lib/oracle/x.ts", []], // no layer
    ["lib/guard/core.ts", ["cli/commands/io.ts"]], // up: the library imports the CLI
    ["cli/commands/io.ts", []],
  ]);
  const problems = layerProblems(graph);
  assert.ok(
    problems.some((p) => /^lib\/dns \(layer 1\) imports lib\/schema \(layer 2, higher\)/.test(p)),
  );
  assert.ok(problems.some((p) => /^lib\/guard \(layer 4\) imports cli\/commands/.test(p)));
  assert.ok(
    problems.some((p) => p.startsWith("folders import each other: lib/pins, lib/revocation")),
  );
  assert.ok(problems.some((p) => p.startsWith("folders import each other: lib/dns, lib/schema")));
  assert.ok(
    problems.some((p) => p === "files import each other: lib/pins/a.ts, lib/revocation/b.ts"),
  );
  assert.ok(problems.some((p) => p.startsWith("lib/oracle has no layer")));
  assert.equal(problems.length, 7, problems.join("\n"));
  const sound = new Map<string, string[]>([
    ["lib/json/parse.ts", ["lib/errors.ts"]],
    ["lib/errors.ts", []],
    ["lib/schema/flow.ts", ["lib/dns/domain.ts", "lib/json/parse.ts"]],
    ["lib/dns/domain.ts", ["lib/errors.ts"]],
    ["cli/commands/main.ts", ["lib/schema/flow.ts"]],
  ]);
  assert.deepEqual(layerProblems(sound), []);
});
