// README's shell blocks run as written (issue 15, item 3): every ```sh block runs, in order, in
// one temporary folder that starts as a copy of examples/ — the folder README tells a reader
// to try them in — with `schemapin` on PATH as a shim for `deno run <task flags> cli.ts`. The
// pages of docs/ that the README's sections moved to (issue 26) run the same way, page after page
// in the order of DOC_PAGES, in another copy; a docs page with sh blocks that is not listed must
// mark every one of them skipped.
// Blocks that need a network, a live server, a terminal or secrets carry a
// `<!-- readme-test: skip (reason) -->` marker; the test prints what it skipped and why.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import {
  lastCommandLine,
  readmeShellBlocks,
  resultMatches,
  runShellBlocks,
  type ShellBlock,
} from "./readme_blocks.ts";
import { schemapinTaskFlags, withTempDir } from "./cli/run.ts";
import { shellLine } from "../scripts/shell.ts";
import { childCommand } from "./process.ts";

const repo = fileURLToPath(new URL("../", import.meta.url)).replace(/\/$/, "");

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const [src, dst] = [`${from}/${entry.name}`, `${to}/${entry.name}`];
    if (entry.isDirectory) await copyTree(src, dst);
    else if (entry.isFile) {
      await Deno.copyFile(src, dst);
      await Deno.chmod(dst, (await Deno.stat(src)).mode! & 0o777);
    }
  }
}

/**
 * A folder with a `schemapin` shim (the task's flags, --config of the checkout) and the
 * environment the blocks run with: this one without INIT_CWD and SCHEMAPIN_* variables, pins
 * under the work folder, proxies pointing at a closed port (a block that reaches for the network
 * fails instead of depending on it), no colours.
 */
async function shellSetup(dir: string): Promise<{ work: string; env: Record<string, string> }> {
  const bin = `${dir}/bin`;
  const work = `${dir}/try`;
  const home = `${dir}/home`;
  await Deno.mkdir(bin);
  await Deno.mkdir(home);
  const flags = await schemapinTaskFlags();
  const run = [Deno.execPath(), "run", "--quiet", ...flags, "--config", `${repo}/deno.json`];
  await Deno.writeTextFile(
    `${bin}/schemapin`,
    `#!/bin/sh\nexec ${shellLine([...run, `${repo}/cli.ts`])} "$@"\n`,
    { mode: 0o755 },
  );
  await copyTree(`${repo}/examples`, work);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(Deno.env.toObject())) {
    if (k !== "INIT_CWD" && !k.startsWith("SCHEMAPIN_") && !/_proxy$/i.test(k)) env[k] = v;
  }
  Object.assign(env, {
    PATH: `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    SCHEMAPIN_HOME: `${work}/.schemapin`,
    // `contract init --discover` reads the user's client configs too: an empty home keeps the
    // reader's own servers out; Deno keeps the cache it has.
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    DENO_DIR: await denoDir(),
    HTTPS_PROXY: "http://127.0.0.1:9",
    HTTP_PROXY: "http://127.0.0.1:9",
    NO_COLOR: "1",
  });
  return { work, env };
}

/** The Deno cache this test runs with (the shim's `deno run` must find the packages there). */
async function denoDir(): Promise<string> {
  const out = await childCommand(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/**
 * The docs pages whose sh blocks run, in this order, in one copy of examples/: the order the
 * README held them in before they moved (later pages use files the earlier ones wrote).
 */
const DOC_PAGES = [
  "docs/commands.md",
  "docs/signing.md",
  "docs/discovery.md",
  "docs/bundles.md",
  "docs/contractpin.md",
  "docs/keys.md",
  "docs/guard.md",
  "docs/internals.md",
  "docs/performance.md",
  "docs/development.md",
  "docs/release.md",
];

interface PageBlock extends ShellBlock {
  readonly page: string;
}

function describe(block: PageBlock): string {
  return `${block.page} line ${block.line}: ${block.code.split("\n")[0]}`;
}

async function pageBlocks(page: string): Promise<PageBlock[]> {
  const md = await Deno.readTextFile(`${repo}/${page}`);
  try {
    return readmeShellBlocks(md).map((b) => ({ ...b, page }));
  } catch (e) {
    throw new Error(`${page}: ${(e as Error).message}`);
  }
}

async function runPages(pages: string[], minimum: number): Promise<void> {
  const blocks = (await Promise.all(pages.map(pageBlocks))).flat();
  await withTempDir(async (dir) => {
    const { work, env } = await shellSetup(dir);
    const results = (await runShellBlocks(blocks, { cwd: work, env }))
      .map((r) => ({ ...r, block: r.block as PageBlock }));
    const skipped = blocks.filter((b) => b.skip !== undefined);
    const lines = [
      `${pages.join(", ")}: ran ${results.length} sh block(s), skipped ${skipped.length}:`,
    ];
    for (const b of skipped) lines.push(`  skipped ${b.page} line ${b.line}: ${b.skip}`);
    for (const r of results.filter((r) => r.block.exit !== 0)) {
      lines.push(
        `  ${r.block.page} line ${r.block.line} exits ${r.block.exit} as documented: ` +
          `${r.block.exitReason}`,
      );
    }
    console.log(lines.join("\n"));
    const failures = results.filter((r) => !resultMatches(r)).map((r) =>
      `${describe(r.block)}\n  exit ${r.code}, documented ${r.block.exit}` +
      (r.failedLine ? ` (stopped at line ${r.block.line + r.failedLine})\n` : "\n") +
      r.output.trimEnd().split("\n").slice(-15).map((l) => `  | ${l}`).join("\n")
    );
    assert.deepEqual(failures, [], failures.join("\n\n"));
    assert.ok(results.length >= minimum, `only ${results.length} blocks ran`);
  });
}

Deno.test("README: every sh block runs as written, in a copy of examples/", async () => {
  await runPages(["README.md"], 6);
});

Deno.test("docs/: every sh block of the pages runs as written, in a copy of examples/", async () => {
  await runPages(DOC_PAGES, 15);
});

/** README's try-out block: the one that copies the checkout's examples/. */
async function tryOutBlock(): Promise<ShellBlock> {
  const readme = await Deno.readTextFile(`${repo}/README.md`);
  const blocks = readmeShellBlocks(readme).filter((b) => b.code.includes("/examples/."));
  assert.equal(blocks.length, 1, "README has one block that copies examples/");
  return blocks[0];
}

Deno.test("README: the try-out block works from any checkout; `deno task schemapin` runs there", async () => {
  const block = await tryOutBlock();
  // No path of one machine: the checkout is wherever the block is started.
  assert.doesNotMatch(block.code, /~\/|\$HOME|\/home\//);
  await withTempDir(async (dir) => {
    const tmp = `${dir}/tmp`;
    await Deno.mkdir(tmp);
    const env: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? dir,
      DENO_DIR: await denoDir(),
      TMPDIR: tmp,
      NO_COLOR: "1",
    };
    // The block as written, started in the checkout, then what a reader does next in that
    // folder: `deno task schemapin` (the deno running this test stands in for npx's).
    const deno = shellLine([Deno.execPath()]);
    const script = block.code +
      `printf '%s\\n' "$PWD" "$SCHEMAPIN_HOME" > "${dir}/where"\n` +
      `${deno} task -q schemapin keygen --unencrypted --out-dir keys\n` +
      `cd pdf-tools && ${deno} task -q schemapin fingerprint ../keys/public.pem > "${dir}/fp"\n`;
    const out = await childCommand("bash", {
      args: ["-euo", "pipefail", "-c", script],
      cwd: repo,
      env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    assert.equal(out.code, 0, dec.decode(out.stdout) + dec.decode(out.stderr));
    const [work, home] = (await Deno.readTextFile(`${dir}/where`)).split("\n");
    assert.ok(work.startsWith(`${tmp}/`), `the try-out folder ${work} is not a new temporary one`);
    assert.equal(home, `${work}/.schemapin`);
    for (const file of ["tool.json", "pdf-tools/SKILL.md", ".mcp.json", "keys/public.pem"]) {
      assert.ok((await Deno.stat(`${work}/${file}`)).isFile, file);
    }
    assert.match(await Deno.readTextFile(`${dir}/fp`), /^sha256:[0-9a-f]{64}\n$/);
    assert.equal(
      JSON.parse(await Deno.readTextFile(`${work}/deno.json`)).tasks.schemapin.includes(
        `--config ${repo}/deno.json`,
      ),
      true,
    );
    // Nothing written in the checkout's examples/.
    await assert.rejects(Deno.stat(`${repo}/examples/keys`), Deno.errors.NotFound);
  });
});

Deno.test("README: a copy of examples/ with its own deno.json has no schemapin task (why the block replaces it)", async () => {
  await withTempDir(async (dir) => {
    await copyTree(`${repo}/examples`, `${dir}/copy`);
    const out = await childCommand(Deno.execPath(), {
      args: ["task", "-q", "schemapin", "--version"],
      cwd: `${dir}/copy`,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.notEqual(out.code, 0);
  });
});

Deno.test("docs/: a page with sh blocks is run, or marks every block skipped", async () => {
  const unlisted: string[] = [];
  for await (const entry of Deno.readDir(`${repo}/docs`)) {
    const page = `docs/${entry.name}`;
    if (!entry.name.endsWith(".md") || DOC_PAGES.includes(page)) continue;
    for (const b of await pageBlocks(page)) {
      if (b.skip === undefined) unlisted.push(describe(b));
    }
  }
  assert.deepEqual(unlisted, [], "add the page to DOC_PAGES, or mark the block skipped");
});

Deno.test("README: the documented deno install line is what deno task install runs", async () => {
  const readme = await Deno.readTextFile(`${repo}/README.md`);
  const flags = await schemapinTaskFlags();
  const line = `deno install -g --name schemapin ${flags.join(" ")} --frozen=false ` +
    `--config "$PWD/deno.json" "$PWD/cli.ts"`;
  assert.ok(readme.includes(line), `README lacks: ${line}`);
});

Deno.test("readmeShellBlocks: blocks, indented blocks and markers", () => {
  const md = [
    "# T", //                                        1
    "```sh", //                                      2
    "schemapin --version", //                        3
    "```", //                                        4
    "<!-- readme-test: skip (needs a live server) -->", // 5
    "```sh", //                                      6
    "schemapin serve …", //                          7
    "```", //                                        8
    "- item", //                                     9
    "  <!-- readme-test: exit 1 (tampered) -->", //  10
    "", //                                           11
    "  ```sh", //                                    12
    "  schemapin verify-skill x \\", //              13
    "      --domain example.com", //                 14
    "  ```", //                                      15
    "```json", //                                    16
    '{"a": 1}', //                                   17
    "```", //                                        18
    "Prose naming `<!-- readme-test: skip (…) -->` inline is not a marker.", // 19
  ].join("\n");
  assert.deepEqual(readmeShellBlocks(md), [
    { line: 2, code: "schemapin --version\n", skip: undefined, exit: 0, exitReason: undefined },
    {
      line: 6,
      code: "schemapin serve …\n",
      skip: "needs a live server",
      exit: 0,
      exitReason: undefined,
    },
    {
      line: 12,
      code: "schemapin verify-skill x \\\n    --domain example.com\n",
      skip: undefined,
      exit: 1,
      exitReason: "tampered",
    },
  ]);
});

Deno.test("readmeShellBlocks refuses markers and blocks the test could not honour", () => {
  const cases: [string, RegExp][] = [
    ["<!-- readme-test: skip -->\n```sh\nx\n```\n", /line 1: .*"skip \(reason\)"/],
    ["<!-- readme-test: skip () -->\n```sh\nx\n```\n", /line 1: readme-test marker/],
    ["<!-- readme-test: ignore (why) -->\n```sh\nx\n```\n", /line 1: readme-test marker/],
    ["<!-- readme-test: exit one (why) -->\n```sh\nx\n```\n", /line 1: readme-test marker/],
    ["<!--readme-test skip (why)-->\n```sh\nx\n```\n", /line 1: malformed readme-test marker/],
    ["<!-- readme-test: skip (why) -->\nprose\n```sh\nx\n```\n", /line 1: .*not followed/],
    ["<!-- readme-test: skip (why) -->\n```json\n{}\n```\n", /line 1: .*precedes a json block/],
    ["<!-- readme-test: skip (why) -->\n", /line 1: .*not followed by a block/],
    [
      "<!-- readme-test: skip (a) -->\n<!-- readme-test: skip (b) -->\n```sh\nx\n```\n",
      /line 1: a marker must precede a block/,
    ],
    ["```bash\nx\n```\n", /line 1: a bash block; write shell blocks as ```sh/],
    ["text\n```shell\nx\n```\n", /line 2: a shell block/],
    ["```console\n$ x\n```\n", /line 1: a console block/],
    ["```sh\nx\n", /line 1: unclosed code fence/],
  ];
  for (const [md, error] of cases) assert.throws(() => readmeShellBlocks(md), error, md);
});

Deno.test("runShellBlocks: a failing command anywhere, or another exit code, is reported", async () => {
  await withTempDir(async (dir) => {
    const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
    const blocks = readmeShellBlocks([
      "```sh", //                                                 1
      "false   # fails, but the last line succeeds", //          2
      "true", //                                                  3
      "```", //                                                   4
      "<!-- readme-test: exit 1 (documented failure) -->", //     5
      "```sh", //                                                 6
      "true", //                                                  7
      "```", //                                                   8
      "<!-- readme-test: exit 3 (documented) -->", //             9
      "```sh", //                                                 10
      "exit 3", //                                                11
      "```", //                                                   12
      "```sh", //                                                 13
      'printf "%s" "$UNSET_VARIABLE"', //                         14
      "```", //                                                   15
      "```sh", //                                                 16
      "false | true", //                                          17
      "```", //                                                   18
      "```sh", //                                                 19
      "echo ok > made.txt", //                                    20
      "```", //                                                   21
      "```sh", //                                                 22
      "test -f made.txt   # blocks share the folder, in order", // 23
      "```", //                                                   24
      "<!-- readme-test: skip (not run) -->", //                  25
      "```sh", //                                                 26
      "exit 9", //                                                27
      "```", //                                                   28
      "<!-- readme-test: exit 1 (the last command fails) -->", // 29
      "```sh", //                                                 30
      "true", //                                                  31
      "ls /nonexistent-readme-test \\", //                       32
      "    -l >/dev/null", //                                     33
      "```", //                                                   34
      "<!-- readme-test: exit 1 (a setup line fails instead) -->", // 35
      "```sh", //                                                 36
      "cp /nonexistent-readme-test x", //                         37
      "false", //                                                 38
      "```", //                                                   39
    ].join("\n"));
    const results = await runShellBlocks(blocks, { cwd: dir, env });
    assert.deepEqual(
      results.map((r) => [r.block.line, r.code, r.failedLine ?? null, resultMatches(r)]),
      [
        [1, 1, 1, false],
        [6, 0, null, false],
        [10, 3, null, true],
        [13, 1, null, false], // an unset variable stops bash before the ERR trap
        [16, 1, 1, false],
        [19, 0, null, true],
        [22, 0, null, true],
        [30, 2, 2, false], // ls exits 2, not the documented 1
        [36, 1, 1, false], // the documented failure must come from the last command
      ],
    );
    assert.match(results[3].output, /UNSET_VARIABLE: unbound variable/);
    assert.equal(lastCommandLine("a\nb \\\n  c\n\n"), 2);
    assert.equal(lastCommandLine("one\n"), 1);
    const ok = { ...results[7], code: 1, block: { ...results[7].block, exit: 1 } };
    assert.equal(resultMatches({ ...ok, failedLine: 2 }), true);
    assert.equal(resultMatches({ ...ok, failedLine: 1 }), false);
  });
});
