// Every relative link of README.md and docs/*.md resolves (issue 26 item 1): the file or folder
// exists, and a `#anchor` names a heading of the Markdown file it points into, by GitHub's rules
// (lower-case; punctuation dropped except - and _; spaces become -; a repeated heading gets -1,
// -2, …). Links to other sites and links inside code are not checked.
import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { withTempDir } from "./cli/run.ts";

const repo = new URL("../", import.meta.url).pathname.replace(/\/$/, "");

/** Markdown with fenced code blocks and inline code spans blanked out (lines kept). */
function withoutCode(markdown: string): string {
  const lines = markdown.split("\n");
  let fence: string | undefined;
  const out = lines.map((line) => {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && line.trim().startsWith(fence) && /^[`~]+$/.test(line.trim())) fence = undefined;
      return "";
    }
    if (m) {
      fence = m[1];
      return "";
    }
    return line;
  });
  return out.join("\n").replace(/(`+)[\s\S]*?\1/g, (s) => s.replace(/[^\n]/g, " "));
}

/** GitHub's anchor of a heading's text. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // links keep their text
    .replace(/`/g, "")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "").replace(/ /g, "-");
}

/** The anchors of a Markdown file's headings (ATX headings outside code), repeats numbered. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const lines = markdown.split("\n");
  let fence: string | undefined;
  for (const line of lines) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && line.trim().startsWith(fence) && /^[`~]+$/.test(line.trim())) fence = undefined;
      continue;
    }
    if (m) {
      fence = m[1];
      continue;
    }
    const h = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** The relative link targets of a Markdown text, with their 1-based lines. */
export function relativeLinks(markdown: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  withoutCode(markdown).split("\n").forEach((text, i) => {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      links.push({ line: i + 1, target });
    }
  });
  return links;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The broken relative links of `files` (paths relative to `root`), as `file:line: target: why`.
 */
export async function brokenLinks(root: string, files: string[]): Promise<string[]> {
  const broken: string[] = [];
  const headings = new Map<string, Set<string>>();
  for (const file of files) {
    const markdown = await Deno.readTextFile(join(root, file));
    for (const { line, target } of relativeLinks(markdown)) {
      const hash = target.indexOf("#");
      const path = hash < 0 ? target : target.slice(0, hash);
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = path === "" ? join(root, file) : normalize(join(root, dirname(file), path));
      const where = `${file}:${line}: ${target}`;
      if (relative(root, resolved).startsWith("..")) {
        broken.push(`${where}: points outside the repository`);
      } else if (!(await exists(resolved))) {
        broken.push(`${where}: no such file ${relative(root, resolved)}`);
      } else if (anchor !== undefined) {
        if (!resolved.endsWith(".md")) {
          broken.push(`${where}: an anchor into a file that is not Markdown`);
          continue;
        }
        if (!headings.has(resolved)) {
          headings.set(resolved, anchors(await Deno.readTextFile(resolved)));
        }
        if (!headings.get(resolved)!.has(anchor)) {
          broken.push(`${where}: no heading #${anchor} in ${relative(root, resolved)}`);
        }
      }
    }
  }
  return broken;
}

async function documentation(): Promise<string[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(`${repo}/docs`)) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  return files.sort();
}

Deno.test("README.md and docs/*.md: every relative link resolves, anchors included", async () => {
  const files = await documentation();
  assert.ok(files.length > 5, files.join(", "));
  let count = 0;
  for (const f of files) count += relativeLinks(await Deno.readTextFile(`${repo}/${f}`)).length;
  assert.ok(count > 30, `only ${count} relative links found`);
  const broken = await brokenLinks(repo, files);
  assert.deepEqual(broken, [], broken.join("\n"));
});

Deno.test("README links every page of docs/", async () => {
  const readme = await Deno.readTextFile(`${repo}/README.md`);
  const linked = new Set(relativeLinks(readme).map((l) => l.target.replace(/#.*/, "")));
  const missing = (await documentation()).filter((f) => f !== "README.md" && !linked.has(f));
  assert.deepEqual(missing, [], "README's Documentation table lacks these pages");
});

Deno.test("slug and anchors follow GitHub's rules", () => {
  assert.equal(slug("Running `serve` under a supervisor"), "running-serve-under-a-supervisor");
  assert.equal(
    slug("Discovery over the network (SchemaPin §6, §9, §14, §17)"),
    "discovery-over-the-network-schemapin-6-9-14-17",
  );
  assert.equal(slug("The demo's footprint"), "the-demos-footprint");
  assert.equal(slug("Runtimes: Deno, Node.js, Bun"), "runtimes-deno-nodejs-bun");
  assert.equal(
    slug("contractpin.lock — pin MCP tool contracts"),
    "contractpinlock--pin-mcp-tool-contracts",
  );
  assert.equal(slug("snake_case and [a link](x.md)"), "snake_case-and-a-link");
  assert.deepEqual(
    [...anchors("# A\n## A\n```sh\n# not a heading\n```\n### B b\n")],
    ["a", "a-1", "b-b"],
  );
});

Deno.test("relativeLinks: skips other sites and code", () => {
  const md = [
    "[a](docs/a.md) and [b](https://example.com/b) and [c](#c)", // 1
    "`[d](d.md)` in a code span", // 2
    "```md", // 3
    "[e](e.md)", // 4
    "```", // 5
    '[f](f.md "title") [g](<g dir/g.md>) [h](mailto:x@example.com)', // 6
  ].join("\n");
  assert.deepEqual(relativeLinks(md), [
    { line: 1, target: "docs/a.md" },
    { line: 1, target: "#c" },
    { line: 6, target: "f.md" },
  ]);
});

Deno.test("brokenLinks reports a missing file, a missing anchor and a link out of the tree", async () => {
  await withTempDir(async (root) => {
    await Deno.mkdir(`${root}/docs`);
    await Deno.writeTextFile(
      `${root}/README.md`,
      [
        "# Top",
        "[ok](docs/page.md) [ok anchor](docs/page.md#a-section) [self](#top)",
        "[gone](docs/missing.md)",
        "[bad anchor](docs/page.md#no-such-section)",
        "[bad self](#nowhere)",
        "[outside](../elsewhere.md)",
        "[not markdown](LICENSE#x)",
      ].join("\n"),
    );
    await Deno.writeTextFile(`${root}/LICENSE`, "MIT\n");
    await Deno.writeTextFile(
      `${root}/docs/page.md`,
      "# Page\n\n## A section\n\n[up](../README.md#top)\n",
    );
    assert.deepEqual(await brokenLinks(root, ["README.md", "docs/page.md"]), [
      "README.md:3: docs/missing.md: no such file docs/missing.md",
      "README.md:4: docs/page.md#no-such-section: no heading #no-such-section in docs/page.md",
      "README.md:5: #nowhere: no heading #nowhere in README.md",
      "README.md:6: ../elsewhere.md: points outside the repository",
      "README.md:7: LICENSE#x: an anchor into a file that is not Markdown",
    ]);
  });
});
