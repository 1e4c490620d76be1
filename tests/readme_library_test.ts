// README's Library section runs as written: each ```ts block is saved as a file in an empty
// temporary folder and run with `deno run --config tests/deno.json` — whose import map resolves
// jsr:@schemapin/schemapin… to this checkout, as deno.json's own package name does — so the code
// a reader pastes is the code tested. A `console.log(…); // output` line must print that output
// (text before a "…" is a prefix).
import assert from "node:assert/strict";
import { childCommand } from "./process.ts";

const repo = new URL("../", import.meta.url);

/** The ```ts blocks of README's "## Library" section (up to the next "## " heading). */
export function libraryBlocks(readme: string): string[] {
  const start = readme.indexOf("\n## Library\n");
  assert.ok(start >= 0, "README has a ## Library section");
  const next = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** The outputs a block's `console.log(…); // output` comments promise, in order. */
export function promisedOutput(block: string): string[] {
  return [...block.matchAll(/^console\.log\(.*\);\s*\/\/ (.+)$/gm)].map((m) => m[1].trim());
}

function matches(line: string, promise: string): boolean {
  const i = promise.indexOf("…");
  return i < 0 ? line === promise : line.startsWith(promise.slice(0, i));
}

Deno.test("README Library: every ts block runs as pasted and prints what its comments say", async () => {
  const blocks = libraryBlocks(await Deno.readTextFile(new URL("README.md", repo)));
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
      const out = new TextDecoder().decode(stdout).split("\n").filter((l) => l !== "");
      assert.equal(code, 0, `block ${i + 1}:\n${block}\n${new TextDecoder().decode(stderr)}`);
      const promised = promisedOutput(block);
      assert.equal(out.length, promised.length, `block ${i + 1} printed:\n${out.join("\n")}`);
      promised.forEach((p, k) =>
        assert.ok(matches(out[k], p), `block ${i + 1}: "${out[k]}" ≠ "${p}"`)
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("README Library test: the promised output is read from the comments", () => {
  const block =
    'const x = 1;\nconsole.log(x, "a"); // 1 a\nconsole.log(y); // sha256:…\nfoo(); // no\n';
  assert.deepEqual(promisedOutput(block), ["1 a", "sha256:…"]);
  assert.ok(matches("sha256:abc", "sha256:…"));
  assert.ok(!matches("sha512:abc", "sha256:…"));
  assert.ok(!matches("1 b", "1 a"));
  const readme = "# x\n## Library\n```ts\na;\n```\n```sh\nb\n```\n## Next\n```ts\nc;\n```\n";
  assert.deepEqual(libraryBlocks(readme), ["a;\n"]);
});
