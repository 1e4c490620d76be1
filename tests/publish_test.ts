// The JSR package: every export documented (`deno doc --lint`), and `deno publish --dry-run`
// passes with no warnings (slow types, excluded files).
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";
import { ENTRY_POINTS, EXPORTS } from "./entry_points.ts";

const root = new URL("../", import.meta.url).pathname;

async function deno(args: string[]): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await childCommand(Deno.execPath(), {
    args,
    cwd: root,
    env: { NO_COLOR: "1" },
  }).output();
  const dec = new TextDecoder();
  return { code, output: dec.decode(stdout) + dec.decode(stderr) };
}

Deno.test("deno doc --lint passes on every entry point", async () => {
  const { code, output } = await deno(["doc", "--lint", ...ENTRY_POINTS]);
  assert.equal(code, 0, output);
});

Deno.test("deno publish --dry-run passes without warnings and ships no tests", async () => {
  const { code, output } = await deno(["publish", "--dry-run", "--allow-dirty"]);
  assert.equal(code, 0, output);
  assert.doesNotMatch(output, /warning/i, output);
  assert.doesNotMatch(
    output,
    /\/tests\/|\/vectors\/|\/lib\/cli\//,
    "tests, vectors, CLI not shipped",
  );
  for (const entry of ENTRY_POINTS) {
    assert.match(output, new RegExp(`/${entry.replace(".", "\\.")} `), `${entry} is published`);
  }
});

interface DocTag {
  kind: string;
  doc?: string;
}
interface DocNode {
  name: string;
  declarations: { kind: string; jsDoc?: { doc?: string; tags?: DocTag[] }; def?: unknown }[];
}

/** The JSDoc examples (code) of a symbol, its members included. */
function examplesOf(node: DocNode): string[] {
  const out: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const record = value as Record<string, unknown>;
    const tags = (record.jsDoc as { tags?: DocTag[] } | undefined)?.tags ?? [];
    for (const t of tags) if (t.kind === "example") out.push(t.doc ?? "");
    for (const [k, v] of Object.entries(record)) if (k !== "jsDoc") visit(v);
  };
  visit(node.declarations);
  return out;
}

/** What is wrong with one example for a JSR reader, if anything. */
function exampleProblem(example: string, specifiers: ReadonlySet<string>): string | undefined {
  const fence = /```(\S*)([^\n]*)\n/.exec(example);
  if (!fence) return "no ```ts code block";
  if (fence[1] !== "ts") return `a \`${fence[1]}\` block, not \`ts\``;
  if (/\bignore\b/.test(fence[2])) return "marked ignore (not type-checked)";
  for (const [, from] of example.matchAll(/\bfrom\s+"([^"]+)"/g)) {
    if (!specifiers.has(from) && !from.startsWith("node:")) {
      return `imports "${from}" (a reader can only import jsr:@schemapin/schemapin…)`;
    }
  }
  return undefined;
}

Deno.test("the JSR docs: every export of every entry point is documented, each function, class and constant with a pasteable example", async () => {
  const specifiers = new Set(
    Object.keys(EXPORTS).map((e) => `jsr:@schemapin/schemapin${e === "." ? "" : e.slice(1)}`),
  );
  const problems: string[] = [];
  let examples = 0;
  for (const entry of ENTRY_POINTS) {
    const { code, output } = await deno(["doc", "--json", entry]);
    assert.equal(code, 0, output);
    const json = JSON.parse(output) as {
      nodes: Record<string, { module_doc?: { doc?: string; tags?: DocTag[] }; symbols: DocNode[] }>;
    };
    const [module] = Object.values(json.nodes);
    const moduleDoc = module.module_doc;
    if (!moduleDoc?.doc || moduleDoc.doc.length < 80) {
      problems.push(`${entry}: no module description`);
    }
    const moduleExamples = (moduleDoc?.tags ?? []).filter((t) => t.kind === "example");
    if (moduleExamples.length === 0) problems.push(`${entry}: no module example`);
    for (const t of moduleExamples) {
      const p = exampleProblem(t.doc ?? "", specifiers);
      if (p) problems.push(`${entry} (module): ${p}`);
    }
    for (const node of module.symbols) {
      const [decl] = node.declarations;
      if (!decl.jsDoc?.doc) problems.push(`${entry}: ${node.name} has no JSDoc`);
      const found = examplesOf(node);
      examples += found.length;
      if (found.length === 0 && ["function", "class", "variable"].includes(decl.kind)) {
        problems.push(`${entry}: ${node.name} (${decl.kind}) has no @example`);
      }
      for (const e of found) {
        const p = exampleProblem(e, specifiers);
        if (p) problems.push(`${entry}: ${node.name}: ${p}`);
      }
    }
  }
  assert.deepEqual(problems, [], problems.join("\n"));
  // About 40 functions and classes since issue 25 shrank the entry points (api/exported-names.txt),
  // each with at least one example, plus the members' examples.
  assert.ok(examples >= 50, `${examples} examples`);
});

Deno.test("the example check finds an internal import, an ignored block, a missing fence", () => {
  const specifiers = new Set(["jsr:@schemapin/schemapin", "jsr:@schemapin/schemapin/skill"]);
  const ok = '```ts\nimport { x } from "jsr:@schemapin/schemapin/skill";\nimport "node:fs";\n```';
  assert.equal(exampleProblem(ok, specifiers), undefined);
  assert.match(
    exampleProblem('```ts\nimport { x } from "./document.ts";\n```', specifiers)!,
    /imports "\.\/document\.ts"/,
  );
  assert.match(
    exampleProblem('```ts\nimport { x } from "jsr:@schemapin/schemapin/nope";\n```', specifiers)!,
    /imports "jsr:@schemapin\/schemapin\/nope"/,
  );
  assert.match(exampleProblem("```ts ignore\nx;\n```", specifiers)!, /ignore/);
  assert.match(exampleProblem("just text", specifiers)!, /no ```ts/);
});

Deno.test("deno check --doc: the examples of the entry points and of lib/ type-check", async () => {
  const { code, output } = await deno(["check", "--doc-only", ...ENTRY_POINTS, "lib/"]);
  assert.equal(code, 0, output);
});
