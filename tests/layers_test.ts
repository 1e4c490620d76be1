// The folders of lib/ form layers with no way back up (ARCHITECTURE.md, "Layers"): a file may import
// files of its own folder, of another folder of its layer, or of a lower layer — never of a
// higher one; the folders of a layer import each other without cycles, and no two published
// files import each other (directly or around a loop). The import graph is Deno's own
// (`deno info --json` over every file of lib/), so type-only, re-export and dynamic imports
// all count, and imports shown in JSDoc examples do not.
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";

const root = new URL("../", import.meta.url);
const lib = new URL("lib/", root);

/**
 * Bottom to top. A folder of lib/ (or a file directly in lib/) not listed here fails the test:
 * place it on purpose. a2a (§20) verifies schemas in a delegation scope, so it sits with the
 * flows it calls.
 */
const LAYERS: readonly (readonly string[])[] = [
  // no knowledge of the above: pure helpers, and the per-runtime I/O adapters (runtime/: file
  // system, atomic writes, the list of temporary files being written, locks and processes
  // through node: modules on Node and Bun) the shells of the higher layers go through
  [
    "errors.ts",
    // the exit code of every error code, beside them so a new code gets its row
    "exit_codes.ts",
    "arguments.ts",
    "version.ts",
    "json",
    "crypto",
    "time",
    "runtime",
    // the SSH agent client (signing with a key held by ssh-agent, issue 27): it needs only
    // crypto/ and speaks to the agent's Unix socket itself, so it sits with the foundations
    "ssh_agent",
    // loading a signing key (a PEM file, encrypted or not, or ssh-agent:PUBFILE): it needs
    // crypto/, ssh_agent/ and runtime/, and every signing operation above may use it
    "keys",
    // the command-line toolkit (flag tables, parse mistakes, did-you-mean, completion scripts):
    // it knows nothing of schemapin and needs only node:util, so it sits with the foundations
    "args",
  ],
  // where keys and trust come from; the MCP client stack (JSON-RPC, stdio, Streamable HTTP,
  // SSE, legacy HTTP+SSE, the protocol conversation) that contractpin and guard both use
  ["dns", "revocation", "discovery", "pins", "mcp"],
  // the two specs' operations; trust/ composes the key sources (discovery file, bundle,
  // resolver folder, .well-known, DNS) for them, so it sits with the flows and bundles it calls
  ["schema", "skill", "bundle", "contractpin", "a2a", "trust"],
  // the HTTP/1.1 server of serve and guard --listen (no knowledge of the above)
  ["http"],
  // the live MCP proxy
  ["guard"],
  // the terminal
  ["cli"],
];

const layerOf = new Map<string, number>();
LAYERS.forEach((names, i) => names.forEach((n) => layerOf.set(n, i)));

/** `lib/x/y.ts` → `x`; `lib/errors.ts` → `errors.ts`. */
function unitOf(path: string): string {
  const i = path.indexOf("/");
  return i < 0 ? path : path.slice(0, i);
}

/** Every import of one file, as lib-relative paths. */
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
    if (!layerOf.has(u)) problems.push(`lib/${u} has no layer: add it to LAYERS in this test`);
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
  const published = [...graph.keys()].filter((f) => !f.startsWith("cli/"));
  for (const c of cycles(published, (f) => graph.get(f) ?? [])) {
    problems.push(`files import each other: ${c.join(", ")}`);
  }
  return problems;
}

/** All .ts files under `dir`, lib-relative. */
async function tsFiles(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) {
      out.push(...await tsFiles(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`));
    } else if (e.name.endsWith(".ts")) out.push(prefix + e.name);
  }
  return out.sort();
}

/** Deno's import graph of every file of lib/ plus the entry points. */
async function importGraph(): Promise<{ lib: Graph; entries: Graph }> {
  const files = await tsFiles(lib);
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
  const entryFiles = Object.values(config.exports as Record<string, string>);
  const dir = await Deno.makeTempDir();
  try {
    const all = `${dir}/all.ts`;
    const lines = [
      ...files.map((f) => `import ${JSON.stringify(new URL(f, lib).href)};`),
      ...entryFiles.map((f) => `import ${JSON.stringify(new URL(f, root).href)};`),
    ];
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
    const libGraph = new Map<string, string[]>();
    const entryGraph = new Map<string, string[]>();
    for (const m of info.modules) {
      const deps = (m.dependencies ?? []).flatMap((d) =>
        [d.code?.specifier, d.type?.specifier].filter((s): s is string => s !== undefined)
      );
      if (m.specifier.startsWith(lib.href)) {
        libGraph.set(
          m.specifier.slice(lib.href.length),
          [...new Set(deps.filter((s) => s.startsWith(lib.href)))].map((s) =>
            s.slice(lib.href.length)
          ),
        );
      } else if (entryFiles.some((f) => new URL(f, root).href === m.specifier)) {
        entryGraph.set(m.specifier.slice(root.href.length), deps);
      }
    }
    assert.equal(libGraph.size, files.length, "deno info saw every file of lib/");
    assert.equal(entryGraph.size, entryFiles.length, "deno info saw every entry point");
    return { lib: libGraph, entries: entryGraph };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("lib/ layers: imports point down or sideways, no cycles between folders or files", async () => {
  const { lib } = await importGraph();
  assert.deepEqual(layerProblems(lib), []);
  // The graph is the real one: the flows import what the layers say they do.
  assert.ok(lib.get("schema/flow.ts")?.includes("pins/store.ts"));
  assert.ok(lib.get("skill/verify.ts")?.includes("schema/flow.ts"));
});

Deno.test("the published entry points import lib/ files but nothing from lib/cli/", async () => {
  const { entries } = await importGraph();
  for (const [entry, deps] of entries) {
    assert.ok(deps.some((d) => d.startsWith(lib.href)), `${entry} re-exports lib/ files`);
    const cli = deps.filter((d) => d.startsWith(new URL("cli/", lib).href));
    assert.deepEqual(cli, [], `${entry} imports the CLI`);
  }
});

/**
 * The imports that break the rule of lib/args/ (ARCHITECTURE.md, "Layers"): it is the CLI's
 * toolkit and knows nothing of schemapin, so it imports only its own files, and only lib/cli/
 * imports it.
 */
function argsImportProblems(graph: Graph): string[] {
  const problems: string[] = [];
  for (const [file, deps] of graph) {
    for (const dep of deps) {
      const inArgs = (f: string) => f.startsWith("args/");
      if (inArgs(file) && !inArgs(dep)) problems.push(`${file} imports ${dep}`);
      if (inArgs(dep) && !inArgs(file) && !file.startsWith("cli/")) {
        problems.push(`${file} imports ${dep}`);
      }
    }
  }
  return problems.sort();
}

Deno.test("lib/args imports only itself and is imported only by lib/cli", async () => {
  const { lib } = await importGraph();
  assert.deepEqual(argsImportProblems(lib), []);
  assert.ok(lib.get("cli/command.ts")?.includes("args/flags.ts"), "the graph is the real one");
});

Deno.test("the lib/args check finds an import out of it and an import into it from the library", () => {
  const graph: Graph = new Map([
    ["args/flags.ts", ["args/suggest.ts", "errors.ts"]],
    ["schema/flow.ts", ["args/flags.ts"]],
    ["cli/main.ts", ["args/suggest.ts"]],
  ]);
  assert.deepEqual(argsImportProblems(graph), [
    "args/flags.ts imports errors.ts",
    "schema/flow.ts imports args/flags.ts",
  ]);
});

/**
 * Every import of a command module (one `lib/cli/registry.ts` loads) by another file of lib/,
 * one line each: a command is loaded only by the registry, so no command imports another
 * (ARCHITECTURE.md, "How a command is built", step 1) and no library file imports one.
 */
function commandImportProblems(graph: Graph, commands: readonly string[]): string[] {
  const problems: string[] = [];
  for (const [file, deps] of graph) {
    if (file === "cli/registry.ts") continue;
    for (const dep of deps) {
      if (dep !== file && commands.includes(dep)) problems.push(`${file} imports ${dep}`);
    }
  }
  return problems.sort();
}

/** The command modules `lib/cli/registry.ts` loads (its literal `import("./x.ts")` calls). */
async function commandModules(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("cli/registry.ts", lib));
  return [...text.matchAll(/\bimport\("\.\/([a-z_]+\.ts)"\)/g)].map((m) => `cli/${m[1]}`);
}

Deno.test("lib/cli: a command module is imported by the registry only, never by another command", async () => {
  const { lib } = await importGraph();
  const commands = await commandModules();
  assert.ok(commands.length >= 20, `the registry loads ${commands.length} commands`);
  for (const c of commands) assert.ok(lib.has(c), `${c} is a file of lib/`);
  assert.deepEqual(commandImportProblems(lib, commands), []);
  // The graph is the real one: commands import their shared, non-command helpers.
  assert.ok(lib.get("cli/verify_schema.ts")?.includes("cli/schema_report.ts"));
});

Deno.test("the command check finds a command importing another, and a library file importing one", () => {
  const commands = ["cli/verify_schema.ts", "cli/verify_skill.ts", "cli/guard.ts"];
  const graph = new Map<string, string[]>([
    ["cli/registry.ts", [...commands]],
    ["cli/verify_skill.ts", ["cli/verify_schema.ts", "cli/schema_report.ts"]],
    ["cli/verify_schema.ts", ["cli/schema_report.ts", "cli/verify_schema.ts"]],
    ["cli/guard.ts", ["cli/lock_signature.ts"]],
    ["guard/setup.ts", ["cli/guard.ts"]],
  ]);
  assert.deepEqual(commandImportProblems(graph, commands), [
    "cli/verify_skill.ts imports cli/verify_schema.ts",
    "guard/setup.ts imports cli/guard.ts",
  ]);
  graph.delete("cli/verify_skill.ts");
  graph.delete("guard/setup.ts");
  assert.deepEqual(commandImportProblems(graph, commands), []);
});

Deno.test("the layer check finds an upward import, a folder cycle, a file cycle, a new folder", () => {
  const graph = new Map<string, string[]>([
    ["json/parse.ts", ["errors.ts"]],
    ["errors.ts", []],
    ["dns/domain.ts", ["schema/flow.ts"]], // up: trust layer → operations
    ["schema/flow.ts", ["dns/domain.ts"]],
    ["pins/a.ts", ["revocation/b.ts"]], // sideways, but around a loop
    ["revocation/b.ts", ["pins/a.ts"]],
    ["oracle/x.ts", []], // no layer
  ]);
  const problems = layerProblems(graph);
  assert.ok(problems.some((p) => /^dns \(layer 1\) imports schema \(layer 2, higher\)/.test(p)));
  assert.ok(problems.some((p) => p.startsWith("folders import each other: pins, revocation")));
  assert.ok(problems.some((p) => p.startsWith("folders import each other: dns, schema")));
  assert.ok(problems.some((p) => p === "files import each other: pins/a.ts, revocation/b.ts"));
  assert.ok(problems.some((p) => p.startsWith("lib/oracle has no layer")));
  assert.equal(problems.length, 6, problems.join("\n"));
  const sound = new Map<string, string[]>([
    ["json/parse.ts", ["errors.ts"]],
    ["errors.ts", []],
    ["schema/flow.ts", ["dns/domain.ts", "json/parse.ts"]],
    ["dns/domain.ts", ["errors.ts"]],
  ]);
  assert.deepEqual(layerProblems(sound), []);
});
