// The repository cites only itself (issue 25 item 7): no tracked file mentions the internal
// design guide that is not part of this repository, or cites a path into a folder beside the
// checkout; ARCHITECTURE.md is the project's own account, and every citation of one of its
// sections ("ARCHITECTURE.md, "Layers"") names a heading that exists.
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";

const root = new URL("../", import.meta.url);

// Spelled in pieces so this file does not match itself.
const GUIDE = "GUIDE" + ".md";
const SIBLING = "../" + "shared/";

/** Every problem in one file's text, one line each. */
function outsideCitations(path: string, text: string): string[] {
  const problems: string[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.includes(GUIDE)) problems.push(`${path}:${i + 1}: mentions ${GUIDE}`);
    if (line.includes(SIBLING)) problems.push(`${path}:${i + 1}: cites a ${SIBLING} path`);
  });
  return problems;
}

/** The files git tracks (the checkout's files when git is absent), checkout-relative. */
async function trackedFiles(): Promise<string[]> {
  try {
    const { code, stdout } = await childCommand("git", {
      args: ["ls-files", "-z"],
      cwd: root.pathname,
    }).output();
    if (code === 0) return new TextDecoder().decode(stdout).split("\0").filter((f) => f !== "");
  } catch {
    // no git: walk the checkout
  }
  const out: string[] = [];
  const walk = async (dir: URL, prefix: string) => {
    for await (const e of Deno.readDir(dir)) {
      if ([".git", "node_modules", "dist"].includes(e.name)) continue;
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`);
      else if (e.isFile) out.push(prefix + e.name);
    }
  };
  await walk(root, "");
  return out;
}

/** The text of a file, or undefined for binary files and files that are gone. */
async function textOf(path: string): Promise<string | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(new URL(path, root));
  } catch {
    return undefined;
  }
  if (bytes.includes(0)) return undefined;
  return new TextDecoder().decode(bytes);
}

Deno.test("no tracked file cites the internal guide or a path beside the checkout", async () => {
  const files = await trackedFiles();
  assert.ok(files.includes("ARCHITECTURE.md"), "ARCHITECTURE.md is in the repository");
  assert.ok(files.includes("tests/architecture_doc_test.ts"), "the file list is the checkout's");
  const problems: string[] = [];
  for (const f of files) {
    const text = await textOf(f);
    if (text !== undefined) problems.push(...outsideCitations(f, text));
  }
  assert.deepEqual(problems, []);
});

Deno.test("every citation of an ARCHITECTURE.md section names one of its headings", async () => {
  const doc = await Deno.readTextFile(new URL("ARCHITECTURE.md", root));
  const headings = new Set([...doc.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1].trim()));
  for (const h of ["Layers", "Exit codes", "How a command is built", "Tests", "CI"]) {
    assert.ok(headings.has(h), `ARCHITECTURE.md has a "${h}" section`);
  }
  const problems: string[] = [];
  let citations = 0;
  for (const f of await trackedFiles()) {
    const text = await textOf(f);
    if (text === undefined) continue;
    for (const m of text.matchAll(/ARCHITECTURE\.md,\s*\*?\s*"([^"]+)"/g)) {
      citations++;
      if (!headings.has(m[1])) problems.push(`${f}: cites "${m[1]}", not a section`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(citations >= 5, `found ${citations} citations`);
});

Deno.test("the citation check finds the guide and a sibling path, and passes clean text", () => {
  assert.deepEqual(outsideCitations("a.ts", `// see ${GUIDE} "Layers"\nok\n`), [
    `a.ts:1: mentions ${GUIDE}`,
  ]);
  assert.deepEqual(outsideCitations("b.md", `x\na copy of \`${SIBLING}interop/\``), [
    `b.md:2: cites a ${SIBLING} path`,
  ]);
  assert.deepEqual(outsideCitations("c.ts", '// ARCHITECTURE.md, "Layers"; ../specs/ aside\n'), []);
});

/**
 * The repository paths ARCHITECTURE.md names in backticks (`lib/x.ts`, `cli/y/`, …); patterns
 * (`cli/commands/<command>.ts`, `scripts/vectors_*.ts`) are not paths.
 */
function citedPaths(doc: string): string[] {
  const paths = new Set<string>();
  for (
    const m of doc.matchAll(/`((?:lib|cli|tests|scripts|bench|schemas|vectors|docs)\/[^`\s]*)`/g)
  ) {
    if (!/[<*]/.test(m[1])) paths.add(m[1]);
  }
  return [...paths].sort();
}

Deno.test("every path ARCHITECTURE.md names exists", async () => {
  const doc = await Deno.readTextFile(new URL("ARCHITECTURE.md", root));
  const cited = citedPaths(doc);
  assert.ok(cited.length >= 40, `found ${cited.length} paths`);
  const missing: string[] = [];
  for (const p of cited) {
    try {
      await Deno.stat(new URL(p, root));
    } catch {
      missing.push(p);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("the path check reads backticked repository paths only", () => {
  assert.deepEqual(
    citedPaths(
      "`lib/errors.ts` and `cli/commands/` but not lib/x.ts, `deno task test` or `a/b.ts`",
    ),
    ["cli/commands/", "lib/errors.ts"],
  );
});
