// The library runs as docs/library.md says (issue 26 item 6; the README's Library section links
// there and repeats its commands).
//
// 1. "Entry points and examples": each ```ts block is saved as a file in an empty temporary
//    folder and run with `deno run --config tests/deno.json` — whose import map resolves
//    jsr:@schemapin/schemapin… to this checkout, as deno.json's own package name does — so the
//    code a reader pastes is the code tested. A `console.log(…); // output` line must print that
//    output (text before a "…" is a prefix).
// 2. "From a checkout": the page's files (a ```ts or ```js block whose first line is
//    `// my-app/NAME`) are written into my-app/, next to a link schemapin/ to this checkout, and
//    its ```sh blocks run there as written, one route at a time — Deno (`deno run --config …`),
//    Node.js 20 and 22 and Bun (`deno bundle …`, then `node app.mjs` / `bun app.mjs`), with
//    `deno`, `node` and `bun` on PATH as the runtime under test. Node 22 and Bun come from
//    SCHEMAPIN_NODE22 / SCHEMAPIN_BUN (.ci/run sets both); on CI=true a missing one fails.
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";
import { readmeShellBlocks } from "./readme_blocks.ts";
import { ignoreWithout } from "./required_tool.ts";

const repo = new URL("../", import.meta.url);
const repoPath = repo.pathname.replace(/\/$/, "");
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** The text of a "## " section of `markdown` (up to the next "## " heading). */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `the page has a "## ${heading}" section`);
  const next = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, next < 0 ? undefined : next);
}

/** The ```ts blocks of docs/library.md's "## Entry points and examples" section. */
export function libraryBlocks(page: string): string[] {
  return [...section(page, "Entry points and examples").matchAll(/^```ts\n([\s\S]*?)^```$/gm)]
    .map((m) => m[1]);
}

/** The outputs a block's `console.log(…); // output` comments promise, in order. */
export function promisedOutput(block: string): string[] {
  return [...block.matchAll(/^console\.log\(.*\);\s*\/\/ (.+)$/gm)].map((m) => m[1].trim());
}

function matches(line: string, promise: string): boolean {
  const i = promise.indexOf("…");
  return i < 0 ? line === promise : line.startsWith(promise.slice(0, i));
}

function assertPrinted(stdout: string, promised: string[], what: string): void {
  const out = stdout.split("\n").filter((l) => l !== "");
  assert.equal(out.length, promised.length, `${what} printed:\n${out.join("\n")}`);
  promised.forEach((p, k) => assert.ok(matches(out[k], p), `${what}: "${out[k]}" ≠ "${p}"`));
}

/** The files a "From a checkout" section writes: `// my-app/NAME` as a block's first line. */
export function checkoutFiles(text: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const m of text.matchAll(/^```(?:ts|js)\n(\/\/ my-app\/(\S+)\n[\s\S]*?)^```$/gm)) {
    files.set(m[2], m[1]);
  }
  return files;
}

/** The commands of a "From a checkout" section: each ```sh block, as written. */
export function checkoutCommands(text: string): string[] {
  return readmeShellBlocks(text).map((b) => b.code);
}

const page = () => Deno.readTextFile(new URL("docs/library.md", repo));

Deno.test("docs/library.md: every example runs as pasted and prints what its comments say", async () => {
  const blocks = libraryBlocks(await page());
  assert.ok(blocks.length >= 3, `${blocks.length} blocks`);
  for (const [i, block] of blocks.entries()) {
    assert.match(block, /from "jsr:@schemapin\/schemapin/, `block ${i + 1} imports the package`);
    assert.doesNotMatch(block, /from "\.{1,2}\//, `block ${i + 1} imports no relative path`);
    const dir = await Deno.makeTempDir({ prefix: "schemapin-readme-lib-" });
    try {
      await Deno.writeTextFile(`${dir}/example.ts`, block);
      const { code, stdout, stderr } = await childCommand(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--allow-read",
          "--allow-write",
          "--allow-env",
          "--config",
          new URL("tests/deno.json", repo).pathname,
          "example.ts",
        ],
        cwd: dir,
        env: { NO_COLOR: "1" },
      }).output();
      assert.equal(code, 0, `block ${i + 1}:\n${block}\n${decode(stderr)}`);
      assertPrinted(decode(stdout), promisedOutput(block), `block ${i + 1}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

const node = await childCommand("node", { args: ["-p", "process.execPath"] }).output()
  .catch(() => null);
const nodePath = node?.success ? decode(node.stdout).trim() : "";
const noNode = ignoreWithout("node", nodePath !== "", ".ci/run (Deno comes from npm)");
const node22 = Deno.env.get("SCHEMAPIN_NODE22") ?? "";
const noNode22 = ignoreWithout(
  "node 22 (SCHEMAPIN_NODE22)",
  node22 !== "",
  ".ci/run (npx -y node@22)",
);
const bun = Deno.env.get("SCHEMAPIN_BUN") ?? "";
const noBun = ignoreWithout("bun (SCHEMAPIN_BUN)", bun !== "", ".ci/run (npx -y bun)");

/**
 * Runs the section's commands that `pick` selects, in order, in my-app/ next to a link to this
 * checkout, with `deno` and `runtime` (a name and the program it stands for) on PATH. Returns the
 * stdout of the last one after checking each exits 0.
 */
async function runRoute(
  pick: (command: string) => boolean,
  runtime?: [string, string],
): Promise<{ stdout: string; files: Map<string, string> }> {
  const text = section(await page(), "From a checkout: Deno, Node.js and Bun");
  const files = checkoutFiles(text);
  const commands = checkoutCommands(text).filter(pick);
  assert.ok(commands.length > 0, "the route has commands");
  const root = await Deno.makeTempDir({ prefix: "schemapin-checkout-" });
  try {
    await Deno.symlink(repoPath, `${root}/schemapin`);
    await Deno.mkdir(`${root}/my-app`);
    await Deno.mkdir(`${root}/bin`);
    for (const [name, text] of files) await Deno.writeTextFile(`${root}/my-app/${name}`, text);
    const shims: [string, string][] = [["deno", Deno.execPath()]];
    if (runtime) shims.push(runtime);
    for (const [name, program] of shims) {
      await Deno.writeTextFile(`${root}/bin/${name}`, `#!/bin/sh\nexec '${program}' "$@"\n`, {
        mode: 0o755,
      });
    }
    let stdout = "";
    for (const command of commands) {
      const out = await childCommand("bash", {
        args: ["--noprofile", "--norc", "-euo", "pipefail", "-c", command],
        cwd: `${root}/my-app`,
        env: { PATH: `${root}/bin:${Deno.env.get("PATH")}`, NO_COLOR: "1" },
      }).output();
      assert.equal(out.code, 0, `${command}\n${decode(out.stdout)}${decode(out.stderr)}`);
      stdout = decode(out.stdout);
    }
    return { stdout, files };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const bundleOrRun = (runtime: string) => (command: string) =>
  command.startsWith("deno bundle ") || command.startsWith(`${runtime} app.mjs`);

Deno.test("docs/library.md, from a checkout: Deno with the checkout's --config", async () => {
  const { stdout, files } = await runRoute((c) => c.startsWith("deno run "));
  assertPrinted(stdout, promisedOutput(files.get("app.ts")!), "deno run app.ts");
});

Deno.test({
  name: "docs/library.md, from a checkout: Node.js 20 imports the deno bundle",
  ignore: noNode,
  fn: async () => {
    const { stdout, files } = await runRoute(bundleOrRun("node"), ["node", nodePath]);
    assertPrinted(stdout, promisedOutput(files.get("app.mjs")!), "node app.mjs");
  },
});

Deno.test({
  name: "docs/library.md, from a checkout: Node.js 22 imports the deno bundle",
  ignore: noNode22,
  fn: async () => {
    const { stdout, files } = await runRoute(bundleOrRun("node"), ["node", node22]);
    assertPrinted(stdout, promisedOutput(files.get("app.mjs")!), "node 22 app.mjs");
  },
});

Deno.test({
  name: "docs/library.md, from a checkout: Bun imports the deno bundle",
  ignore: noBun,
  fn: async () => {
    const { stdout, files } = await runRoute(bundleOrRun("bun"), ["bun", bun]);
    assertPrinted(stdout, promisedOutput(files.get("app.mjs")!), "bun app.mjs");
  },
});

Deno.test("docs/library.md, from a checkout: without --config the import map is missing", async () => {
  // What the page says happens without --config: the reason the route names the config.
  const text = section(await page(), "From a checkout: Deno, Node.js and Bun");
  assert.match(text, /`Import "@noble\/curves\/…" not a dependency`/);
  const root = await Deno.makeTempDir({ prefix: "schemapin-checkout-" });
  try {
    await Deno.symlink(repoPath, `${root}/schemapin`);
    await Deno.mkdir(`${root}/my-app`);
    await Deno.writeTextFile(`${root}/my-app/app.ts`, checkoutFiles(text).get("app.ts")!);
    const out = await childCommand(Deno.execPath(), {
      args: ["run", "app.ts"],
      cwd: `${root}/my-app`,
      env: { NO_COLOR: "1" },
    }).output();
    assert.notEqual(out.code, 0);
    assert.match(decode(out.stderr), /Import "@noble\/curves\/[^"]*" not a dependency/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("README's Library block repeats the commands of docs/library.md", async () => {
  const readme = await Deno.readTextFile(new URL("README.md", repo));
  const text = section(await page(), "From a checkout: Deno, Node.js and Bun");
  const documented = checkoutCommands(text).join("\n");
  const block = readmeShellBlocks(section(readme, "Library"));
  assert.equal(block.length, 1, "README's Library section has one sh block");
  const commands = block[0].code.replace(/ *#[^\n]*/g, "").replace(/\s*\\\n\s*/g, " ")
    .split("\n").filter((l) => l.trim() !== "");
  const flat = documented.replace(/\s*\\\n\s*/g, " ");
  for (const c of commands) assert.ok(flat.includes(c.trim()), `docs/library.md lacks: ${c}`);
});

Deno.test("library page test helpers: sections, files, commands and promised output", () => {
  const block =
    'const x = 1;\nconsole.log(x, "a"); // 1 a\nconsole.log(y); // sha256:…\nfoo(); // no\n';
  assert.deepEqual(promisedOutput(block), ["1 a", "sha256:…"]);
  assert.ok(matches("sha256:abc", "sha256:…"));
  assert.ok(!matches("sha512:abc", "sha256:…"));
  assert.ok(!matches("1 b", "1 a"));
  const md = "# x\n## Entry points and examples\n```ts\na;\n```\n```sh\nb\n```\n## Next\n" +
    "```ts\n// my-app/app.ts\nc;\n```\n```js\nd;\n```\n```sh\nnode app.mjs\n```\n";
  assert.deepEqual(libraryBlocks(md), ["a;\n"]);
  const next = section(md, "Next");
  assert.deepEqual([...checkoutFiles(next)], [["app.ts", "// my-app/app.ts\nc;\n"]]);
  assert.deepEqual(checkoutCommands(next), ["node app.mjs\n"]);
  assert.throws(() => section(md, "Missing"), /"## Missing" section/);
});
