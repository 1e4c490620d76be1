/**
 * The official MCP conformance suite (npm @modelcontextprotocol/conformance@0.1.16, on
 * Node 22) runs its server scenarios (`--suite all`: the active ones and the pending
 * json-schema-2020-12 and server-sse-polling) against tests/fixtures/conformance_server.ts,
 * a TS SDK server implementing every tool, prompt, resource and template they call — once
 * directly, once through `schemapin guard --listen` with the server's contract pinned by
 * `contract init`. Each scenario must give the same result both ways: pass or fail, and the
 * same checks with the same status (INFO lines, which carry timings and raw events, aside).
 * With a lock that does not match, the guard must make tools-list fail (it is really in the
 * path, and really checking).
 *
 * Needs SCHEMAPIN_NODE22 (a Node 22 binary) and SCHEMAPIN_MCP_CONFORMANCE (the suite's
 * `conformance` bin, run with that Node), which .ci/run fetches and sets.
 */
import assert from "node:assert/strict";
import {
  guardArgv,
  type ListeningProcess,
  runCliProcess,
  startListening,
  withTempDir,
} from "../guard/helpers.ts";
import { childCommand } from "../process.ts";
import { ignoreWithout } from "../required_tool.ts";

const node22 = Deno.env.get("SCHEMAPIN_NODE22") ?? "";
const conformance = Deno.env.get("SCHEMAPIN_MCP_CONFORMANCE") ?? "";
const noConformance = [
  ignoreWithout("node 22 (SCHEMAPIN_NODE22)", node22 !== "", ".ci/run (npx -y node@22)"),
  ignoreWithout(
    "the MCP conformance suite (SCHEMAPIN_MCP_CONFORMANCE)",
    conformance !== "",
    ".ci/run (npx -y -p @modelcontextprotocol/conformance@0.1.16)",
  ),
].some(Boolean);

const SERVER = new URL("../fixtures/conformance_server.ts", import.meta.url).pathname;
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

/** The result of one scenario: passed (no FAILURE check) and its non-INFO checks. */
interface Scenario {
  passed: boolean;
  checks: string[];
}

/** Runs the server scenarios against `url`; returns them by name, and the suite's output. */
async function runSuite(
  url: string,
  outDir: string,
  extra: string[] = ["--suite", "all"],
): Promise<{ scenarios: Map<string, Scenario>; output: string; code: number }> {
  const out = await childCommand(node22, {
    args: [conformance, "server", "--url", url, "-o", outDir, ...extra],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = decode(out.stdout) + decode(out.stderr);
  const scenarios = new Map<string, Scenario>();
  for await (const entry of Deno.readDir(outDir)) {
    // server-<scenario>-<ISO time with - for :>
    const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name);
    assert.ok(m, `unexpected result folder ${entry.name}`);
    const checks = JSON.parse(
      await Deno.readTextFile(`${outDir}/${entry.name}/checks.json`),
    ) as { id: string; status: string }[];
    const kept = checks.filter((c) => c.status !== "INFO").map((c) => `${c.id}: ${c.status}`)
      .sort();
    assert.ok(!scenarios.has(m[1]), `scenario ${m[1]} ran twice`);
    scenarios.set(m[1], { passed: !checks.some((c) => c.status === "FAILURE"), checks: kept });
  }
  return { scenarios, output, code: out.code };
}

function startServer(): Promise<ListeningProcess> {
  return startListening(
    Deno.execPath(),
    ["run", "--quiet", "--allow-net=127.0.0.1", "--allow-read", "--allow-env", SERVER],
    /listening (http:\S+)/,
    {},
    (m) => m[1],
    60_000,
  );
}

async function startGuard(upstream: string, lock: string, log: string): Promise<ListeningProcess> {
  return startListening(
    Deno.execPath(),
    await guardArgv([
      "--listen",
      "127.0.0.1:0",
      "--upstream",
      upstream,
      "--lock",
      lock,
      "--server",
      "conformance",
      "--log",
      log,
    ]),
    /listening on (\S+)/,
    {},
    (m) => m[1],
    30_000,
  );
}

/**
 * `contract init` of the server at `url` as "conformance" in `dir`. The suite's client
 * announces sampling and elicitation: the entry is pinned for them.
 */
async function pin(dir: string, url: string): Promise<void> {
  const init = await runCliProcess([
    "contract",
    "init",
    "--client-capabilities",
    "sampling,elicitation",
    "--http",
    `conformance=${url}`,
    "--no-snapshot",
  ], { cwd: dir });
  assert.equal(init.code, 0, init.stdout + init.stderr);
}

const summary = (s: Map<string, Scenario>) =>
  Object.fromEntries([...s].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v.passed]));

Deno.test({
  name:
    "MCP conformance suite: every server scenario gives the same result direct and through guard --listen",
  ignore: noConformance,
  async fn() {
    await withTempDir(async (dir) => {
      const server = await startServer();
      let guard: ListeningProcess | undefined;
      try {
        await pin(dir, server.url);
        guard = await startGuard(server.url, `${dir}/contractpin.lock`, `${dir}/guard.log`);

        const direct = await runSuite(server.url, `${dir}/direct`);
        const guarded = await runSuite(guard.url, `${dir}/guarded`);
        const names = [...direct.scenarios.keys()].sort();
        // Record the counts (the test output is where a reader finds them).
        const passed = (s: Map<string, Scenario>) => [...s.values()].filter((x) => x.passed).length;
        console.log(
          `conformance: ${names.length} server scenarios; direct ${
            passed(direct.scenarios)
          } passed, ` +
            `through the guard ${passed(guarded.scenarios)} passed`,
        );
        // Every scenario the suite lists ran (32 in 0.1.16 with --suite all).
        assert.ok(names.length >= 32, `only ${names.length} scenarios ran:\n${direct.output}`);
        assert.deepEqual(summary(guarded.scenarios), summary(direct.scenarios), guarded.output);
        for (const name of names) {
          assert.deepEqual(
            guarded.scenarios.get(name)?.checks,
            direct.scenarios.get(name)!.checks,
            `scenario ${name}: different checks through the guard`,
          );
        }
        // The fixture implements every scenario: all pass directly (so "same" is not "same failure").
        assert.deepEqual(
          names.filter((n) => !direct.scenarios.get(n)!.passed),
          [],
          direct.output,
        );
        assert.equal(direct.code, 0, direct.output);
        assert.equal(guarded.code, 0, guarded.output);
      } finally {
        await guard?.stop();
        await server.stop();
      }
      const log = (await Deno.readTextFile(`${dir}/guard.log`)).split("\n").filter((l) => l)
        .map((l) => JSON.parse(l));
      assert.ok(log.some((l) => l.decision === "list_allowed"), "the guard checked the lists");
      assert.ok(!log.some((l) => /refused|failed/.test(l.decision)), JSON.stringify(log));
    });
  },
});

Deno.test({
  name:
    "MCP conformance suite: through guard --listen with a lock that does not match, tools-list fails",
  ignore: noConformance,
  async fn() {
    await withTempDir(async (dir) => {
      const server = await startServer();
      let guard: ListeningProcess | undefined;
      try {
        await pin(dir, server.url);
        // The lock pins another description for one tool.
        const lock = JSON.parse(await Deno.readTextFile(`${dir}/contractpin.lock`));
        const tool = lock.servers.conformance.tools.test_simple_text;
        tool.digest = tool.fields.description = `sha256:${"0".repeat(64)}`;
        await Deno.writeTextFile(`${dir}/contractpin.lock`, JSON.stringify(lock, null, 2));
        guard = await startGuard(server.url, `${dir}/contractpin.lock`, `${dir}/guard.log`);
        const guarded = await runSuite(guard.url, `${dir}/guarded`, ["--scenario", "tools-list"]);
        assert.equal(guarded.scenarios.get("tools-list")?.passed, false, guarded.output);
        assert.notEqual(guarded.code, 0);
      } finally {
        await guard?.stop();
        await server.stop();
      }
      const log = await Deno.readTextFile(`${dir}/guard.log`);
      assert.match(log, /"decision":"list_refused"/);
    });
  },
});
