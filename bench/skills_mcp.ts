/**
 * Skills served over MCP at the size issue 35 names: a SEP-2640 server (the Python SDK 2.3.0
 * fixture, tests/fixtures/python_mcp/skills_server.py) serving 50 skills of 20 files each
 * (1,000 files, about 2 MB), timed from the shell the way a user runs it:
 *
 * - `schemapin contract init` (every skill listed, every file read and checked) and
 *   `schemapin contract verify` (the same fetch, compared with the lock), as `deno run` of
 *   cli.ts with the schemapin task's permission flags;
 * - the guard's cost per `resources/read`: 1,000 sequential reads of the skills' files by a
 *   plain JSON-RPC client over stdio, straight to the server and through `schemapin guard`
 *   (every read checked against its pinned digest before it is relayed).
 *
 * Not a `deno bench` file (it spawns processes and prints figures); run it with
 *
 *   SCHEMAPIN_PYTHON_MCP=…/bin/python deno run -A bench/skills_mcp.ts [--runs N]
 *
 * @module
 */
const python = Deno.env.get("SCHEMAPIN_PYTHON_MCP");
if (!python) {
  console.error("set SCHEMAPIN_PYTHON_MCP to a python with mcp==2.3.0 (.ci/run installs one)");
  Deno.exit(2);
}
const runsArg = Deno.args.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(Deno.args[runsArg + 1]) : 3;
const SKILLS = 50;
const FILES = 20;
const READS = 1_000;
const repo = new URL("../", import.meta.url).pathname;
const SERVER = `${repo}tests/fixtures/python_mcp/skills_server.py`;
const FLAGS = ["--allow-read", "--allow-write", "--allow-env", "--allow-net", "--allow-run"];
const enc = new TextEncoder();
const dec = new TextDecoder();

/** 50 skills of 20 text files of about 2 KB each. */
async function makeSkills(root: string): Promise<string[]> {
  const uris: string[] = [];
  for (let s = 0; s < SKILLS; s++) {
    const name = `skill-${String(s).padStart(2, "0")}`;
    await Deno.mkdir(`${root}/${name}/refs`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/${name}/SKILL.md`,
      `---\nname: ${name}\ndescription: Skill number ${s} for the benchmark.\n---\n# ${name}\n` +
        "Follow the references in refs/.\n".repeat(40),
    );
    uris.push(`skill://${name}/SKILL.md`);
    for (let f = 1; f < FILES; f++) {
      await Deno.writeTextFile(
        `${root}/${name}/refs/r${f}.md`,
        `Reference ${f} of ${name}.\n`.repeat(80),
      );
      uris.push(`skill://${name}/refs/r${f}.md`);
    }
  }
  return uris;
}

async function timed(args: string[], cwd: string): Promise<number> {
  const t0 = performance.now();
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...FLAGS, `${repo}cli.ts`, ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  if (r.code !== 0) throw new Error(`${args.join(" ")}: exit ${r.code}\n${dec.decode(r.stderr)}`);
  return ms;
}

/** A minimal legacy-era JSON-RPC client over a child's stdio. */
async function readLoop(command: string[], uris: string[]): Promise<number> {
  const child = new Deno.Command(command[0], {
    args: command.slice(1),
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const send = (msg: unknown) => writer.write(enc.encode(JSON.stringify(msg) + "\n"));
  async function answer(id: number): Promise<Record<string, unknown>> {
    for (;;) {
      const nl = buffer.indexOf("\n");
      if (nl >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim() === "") continue;
        const msg = JSON.parse(line);
        if (msg.id === id) return msg;
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the server closed its output");
      buffer += value;
    }
  }
  await send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "bench", version: "0" },
    },
  });
  await answer(0);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const t0 = performance.now();
  for (let i = 1; i <= READS; i++) {
    await send({
      jsonrpc: "2.0",
      id: i,
      method: "resources/read",
      params: { uri: uris[(i - 1) % uris.length] },
    });
    const msg = await answer(i);
    if (!msg.result) throw new Error(`read ${i} failed: ${JSON.stringify(msg.error)}`);
  }
  const ms = performance.now() - t0;
  await writer.close();
  child.kill();
  await child.status;
  return ms;
}

function range(values: number[], unit: (n: number) => string): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${unit(sorted[0])}–${unit(sorted[sorted.length - 1])} (median ${
    unit(sorted[Math.floor(sorted.length / 2)])
  })`;
}

const dir = await Deno.makeTempDir({ prefix: "schemapin-skills-bench-" });
try {
  const root = `${dir}/skills`;
  const uris = await makeSkills(root);
  const server = [python, SERVER, root, "stdio", "--page-size", "10", "--cache"];
  const init: number[] = [];
  const verify: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    init.push(
      await timed(["contract", "init", "--force", "--server", "skills", "--", ...server], dir),
    );
    verify.push(await timed(["contract", "verify"], dir));
  }
  const direct: number[] = [];
  const guarded: number[] = [];
  const guard = [
    Deno.execPath(),
    "run",
    ...FLAGS,
    `${repo}cli.ts`,
    "guard",
    "--lock",
    `${dir}/contractpin.lock`,
    "--server",
    "skills",
    "--",
    ...server,
  ];
  for (let r = 0; r < RUNS; r++) {
    direct.push(await readLoop(server, uris));
    guarded.push(await readLoop(guard, uris));
  }
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const per = (ms: number) => `${(ms / READS).toFixed(2)} ms`;
  console.log(`${SKILLS} skills × ${FILES} files (${uris.length} files), ${RUNS} runs each`);
  console.log(`contract init        ${range(init, s)}`);
  console.log(`contract verify      ${range(verify, s)}`);
  console.log(`resources/read direct  ${range(direct, per)} per read`);
  console.log(`resources/read guarded ${range(guarded, per)} per read`);
  const extra = guarded.map((g, i) => (g - direct[i]) / READS);
  console.log(`guard's added cost   ${range(extra, (n) => `${n.toFixed(2)} ms`)} per read`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
