/**
 * `contract verify` against contracts changed within the escaped-name class (issue 12 part 1):
 * a tool whose `inputSchema.properties` gained a member with an escaped control-character
 * name (or had one renamed), spelled so that the `JSON.parse` of Deno 2.9.6 reads the old
 * contract back, must be reported as drift (exit 1) — from a file dump and from a live stdio
 * server, through the CLI in process, as a real process, and through the library.
 *
 * Before the parser fix (8e35645) every drift case here was reported "unchanged" (exit 0).
 */
import assert from "node:assert/strict";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { buildLock, lockServerEntry } from "../../lib/contractpin/lock.ts";
import { readToolsDump } from "../../lib/mcp/file.ts";
import { pinServers, verifyLock } from "../../lib/contractpin/run.ts";
import { compareTools } from "../../lib/contractpin/verify.ts";
import { parseJson } from "../../lib/json/parse.ts";
import type { JsonValue } from "../../lib/json/types.ts";
import { runCliProcess, runInProcess, withTempDir } from "./helpers.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";
import {
  ESCAPED_TOOL_CASES,
  escapedServer,
  type EscapedToolCase,
  pinEscapedServer,
} from "./escaped_tools.ts";

const CHILD_ENV = { DENO_NO_UPDATE_CHECK: "1" };
const FILE_CASES = ESCAPED_TOOL_CASES.filter((c) => !c.liveOnly);

interface ReportServer {
  status: string;
  tools: {
    drifted: { name: string; changed_fields: string[] }[];
    added: string[];
    removed: string[];
    unchanged: number;
  };
}

/**
 * The one server of a `--json` report, read with the strict parser; the report is also checked
 * against its schema (schemas/cli/), whose `JSON.parse` must read the same value.
 */
async function serverReport(stdout: string): Promise<ReportServer> {
  const report = parseJson(new TextEncoder().encode(stdout), "report") as unknown as {
    format: string;
    ok: boolean;
    error?: { code: string };
    servers: ReportServer[];
  };
  assert.deepEqual(await assertJsonOutput(stdout), report);
  assert.equal(report.format, "schemapin.contract.verify/1");
  assert.equal(report.ok, false);
  assert.equal(report.error?.code, "CONTRACT_DRIFT");
  assert.equal(report.servers.length, 1);
  return report.servers[0];
}

/** The human and --json reports of a verify that must find `c.tool` drifted. */
async function assertDrift(
  c: EscapedToolCase,
  name: string,
  human: { code: number; stdout: string; stderr: string },
  json?: { code: number; stdout: string; stderr: string },
): Promise<void> {
  assert.equal(human.code, 1, `${c.label}: ${human.stdout}${human.stderr}`);
  assert.match(human.stdout, new RegExp(`^ {2}drifted {2}${c.tool}: inputSchema$`, "m"));
  assert.doesNotMatch(human.stdout, new RegExp(`^ok +${name} `, "m"));
  if (!json) return;
  assert.equal(json.code, 1, json.stderr);
  const s = await serverReport(json.stdout);
  assert.equal(s.status, "drift");
  assert.deepEqual(
    s.tools.drifted.map((d) => [d.name, d.changed_fields]),
    [[c.tool, ["inputSchema"]]],
  );
  assert.deepEqual([s.tools.added, s.tools.removed, s.tools.unchanged], [[], [], c.unchanged]);
}

for (const c of FILE_CASES) {
  Deno.test(`contract verify (file): ${c.label} is drift, not unchanged`, async () => {
    await withTempDir(async (dir) => {
      const lock = `${dir}/contractpin.lock`;
      const tools = `${dir}/tools.json`;
      await Deno.writeTextFile(tools, c.locked);
      const init = await runInProcess(["contract", "init", "--lock", lock, "--file", `f=${tools}`]);
      assert.equal(init.code, 0, init.stderr);
      // Positive control: the pinned bytes verify.
      const same = await runInProcess(["contract", "verify", "--lock", lock]);
      assert.equal(same.code, 0, same.stdout + same.stderr);
      assert.match(same.stdout, new RegExp(`^ok +f \\(file\\): ${c.unchanged + 1} unchanged`, "m"));

      await Deno.writeTextFile(tools, c.drifted);
      await assertDrift(
        c,
        "f",
        await runInProcess(["contract", "verify", "--lock", lock]),
        await runInProcess(["contract", "verify", "--lock", lock, "--json"]),
      );
    });
  });
}

for (const c of ESCAPED_TOOL_CASES) {
  Deno.test(`contract verify (stdio): ${c.label} is drift, not unchanged`, async () => {
    await withTempDir(async (dir) => {
      const lock = `${dir}/contractpin.lock`;
      const server = escapedServer(dir);
      await server.serve(c.locked);
      await pinEscapedServer(lock, "esc", server);
      const same = await runInProcess(["contract", "verify", "--lock", lock]);
      assert.equal(same.code, 0, same.stdout + same.stderr);

      await server.serve(c.drifted, c.initialize);
      await assertDrift(
        c,
        "esc",
        await runInProcess(["contract", "verify", "--lock", lock]),
        await runInProcess(["contract", "verify", "--lock", lock, "--json"]),
      );
    });
  });
}

Deno.test("contract verify as a real process: escaped-name drift in a file dump", async () => {
  await withTempDir(async (dir) => {
    // The trigger in the drifted tool's own _meta.
    const c = FILE_CASES[0];
    const tools = `${dir}/tools.json`;
    const lock = `${dir}/contractpin.lock`;
    await Deno.writeTextFile(tools, c.locked);
    const init = await runCliProcess(
      ["contract", "init", "--lock", lock, "--file", `f=${tools}`],
      { env: CHILD_ENV },
    );
    assert.equal(init.code, 0, init.stderr);
    const same = await runCliProcess(["contract", "verify", "--lock", lock], { env: CHILD_ENV });
    assert.equal(same.code, 0, same.stdout + same.stderr);
    await Deno.writeTextFile(tools, c.drifted);
    await assertDrift(
      c,
      "f",
      await runCliProcess(["contract", "verify", "--lock", lock], { env: CHILD_ENV }),
    );
  });
});

Deno.test("contract verify as a real process: escaped-name drift of a stdio server", async () => {
  await withTempDir(async (dir) => {
    // The trigger in the initialize result, the drift in the tools/list answer.
    const c = ESCAPED_TOOL_CASES.find((x) => x.liveOnly)!;
    const server = escapedServer(dir);
    const lock = `${dir}/contractpin.lock`;
    await server.serve(c.locked);
    const pinned = await runCliProcess(
      ["contract", "init", "--lock", lock, "--server", "esc", "--", ...server.command],
      { env: CHILD_ENV },
    );
    assert.equal(pinned.code, 0, pinned.stderr);
    const same = await runCliProcess(["contract", "verify", "--lock", lock], { env: CHILD_ENV });
    assert.equal(same.code, 0, same.stdout + same.stderr);
    await server.serve(c.drifted, c.initialize);
    await assertDrift(
      c,
      "esc",
      await runCliProcess(["contract", "verify", "--lock", lock], { env: CHILD_ENV }),
    );
  });
});

Deno.test("library: readToolsDump + compareTools see the escaped-name drift of a dump", async () => {
  await withTempDir(async (dir) => {
    for (const c of FILE_CASES) {
      const path = `${dir}/tools.json`;
      await Deno.writeTextFile(path, c.locked);
      const pinned = digestToolList((await readToolsDump(path)).tools as JsonValue[]);
      const entry = lockServerEntry({ transport: "file", path }, pinned);
      assert.deepEqual(
        compareTools(entry, digestToolList((await readToolsDump(path)).tools)).drifted,
        [],
        c.label,
      );
      await Deno.writeTextFile(path, c.drifted);
      const live = digestToolList((await readToolsDump(path)).tools);
      const comparison = compareTools(entry, live);
      assert.deepEqual(comparison.drifted.map((d) => d.name), [c.tool], c.label);
      assert.deepEqual(comparison.drifted[0].changedFields, ["inputSchema"], c.label);
      assert.notEqual(live.digest, pinned.digest, c.label);
    }
  });
});

Deno.test("library: pinServers + verifyLock see the escaped-name drift of a stdio server", async () => {
  await withTempDir(async (dir) => {
    for (const c of ESCAPED_TOOL_CASES) {
      const server = escapedServer(`${dir}/${ESCAPED_TOOL_CASES.indexOf(c)}`);
      await server.serve(c.locked);
      const target = {
        name: "esc",
        identity: { transport: "stdio" as const, command: server.command },
      };
      const [outcome] = await pinServers([target]);
      assert.ok(outcome.ok, c.label);
      const lock = buildLock({ esc: outcome.entry });
      const same = await verifyLock({ lock, lockPath: "contractpin.lock" });
      assert.equal(same.exit_code, 0, c.label);

      await server.serve(c.drifted, c.initialize);
      const report = await verifyLock({ lock, lockPath: "contractpin.lock" });
      assert.equal(report.exit_code, 1, c.label);
      const s = report.servers[0];
      assert.equal(s.status, "drift", c.label);
      assert.deepEqual(s.tools.drifted.map((d) => d.name), [c.tool], c.label);
      assert.equal(s.tools.unchanged, c.unchanged, c.label);
    }
  });
});
