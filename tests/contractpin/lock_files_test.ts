/**
 * The library calls behind the contract commands, without the CLI: the servers of a command
 * line (cli/contractpin/server_specs.ts), pinning into a lock (cli/contractpin/init.ts),
 * approving reviewed changes (cli/contractpin/approve_lock.ts), verifying a lock file
 * (cli/contractpin/verify_lock.ts), the lock signature's file and stale check, and a saved
 * tools/list digested — each through the caller's files, whose reads and writes are recorded.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SchemaPinError } from "../../lib/errors.ts";
import { serversFromSpecs } from "../../cli/contractpin/server_specs.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";
import { isUsageError } from "../../lib/errors.ts";
import { initLock } from "../../cli/contractpin/init.ts";
import { approveLock } from "../../cli/contractpin/approve_lock.ts";
import { approvableChanges } from "../../cli/contractpin/approve_plan.ts";
import { approvalProblem } from "../../cli/contractpin/approve_text.ts";
import { approveCommands } from "../../cli/contractpin/approve_commands.ts";
import { verifyLockFile } from "../../cli/contractpin/verify_lock.ts";
import {
  lockSignatureFile,
  staleLockSignature,
} from "../../cli/contractpin/lock_signature_check.ts";
import { digestSavedToolList } from "../../lib/contractpin/digest.ts";
import { lockRelative, parseLock, serializeLock } from "../../lib/contractpin/lock.ts";
import { readSnapshot } from "../../lib/contractpin/snapshot.ts";
import { configContextFor } from "../../cli/mcp_config/variables.ts";
import { withTempDir } from "./helpers.ts";

const OBJ = { type: "object" };

/** Real files, every read and write recorded in order. */
function recordingFiles(): ContractFiles & { log: string[] } {
  const log: string[] = [];
  return {
    log,
    read: async (path) => {
      log.push(`read ${path}`);
      try {
        return await Deno.readFile(path);
      } catch (e) {
        throw new SchemaPinError("IO_FAILED", `cannot read ${path}: ${(e as Error).message}`);
      }
    },
    exists: (path) => Deno.lstat(path).then(() => true, () => false),
    write: async (path, text) => {
      log.push(`write ${path}`);
      await Deno.writeTextFile(path, text);
    },
  };
}

function usage(pattern: RegExp, option?: string) {
  return (e: unknown) =>
    isUsageError(e) && e.code === "INPUT_INVALID" && pattern.test(e.message) &&
    (option === undefined || e.details.option === option);
}

async function dump(path: string, tools: unknown[]): Promise<void> {
  await Deno.writeTextFile(path, JSON.stringify({ tools }));
}

Deno.test("serversFromSpecs: order, headers per server, and usage errors naming the option", () => {
  const given = serversFromSpecs({
    options: [
      { option: "header", value: "X-All: 1" },
      { option: "http", value: "a=https://a.example.test/mcp" },
      { option: "header", value: "X-A: 2" },
      { option: "file", value: "saved=tools.json" },
      { option: "sse", value: "b=https://b.example.test/sse" },
    ],
    server: "local",
    command: ["node", "server.js"],
    env: ["TOKEN", "MODE=fast"],
    cwd: "srv",
  }, (p) => `rel/${p}`);
  assert.deepEqual(given.targets.map((t) => t.name), ["a", "saved", "b", "local"]);
  assert.deepEqual(given.globalHeaders, [{ name: "X-All", value: "1" }]);
  assert.deepEqual(given.perServer.get("a"), [{ name: "X-A", value: "2" }]);
  assert.deepEqual(given.perServer.get("b"), []);
  assert.equal(given.targets[2].httpTransport, "sse");
  assert.deepEqual(given.targets[1].identity, { transport: "file", path: "rel/tools.json" });
  assert.deepEqual(given.targets[3].identity, {
    transport: "stdio",
    command: ["node", "server.js"],
    env: { TOKEN: "${TOKEN}", MODE: "fast" },
    cwd: "rel/srv",
  });
  assert.equal(given.capabilities, undefined);
  const asked = serversFromSpecs({
    options: [{ option: "http", value: "a=https://a.example.test/mcp" }],
    clientCapabilities: "sampling,roots,roots",
  });
  assert.deepEqual(asked.capabilities, ["roots", "sampling"]);
});

Deno.test("serversFromSpecs: each malformed option is a usage error", () => {
  const cases: [Parameters<typeof serversFromSpecs>[0], RegExp, string][] = [
    [{ options: [{ option: "http", value: "nourl" }] }, /--http expects NAME=URL/, "http"],
    [{ options: [{ option: "file", value: "=x" }] }, /--file expects NAME=PATH/, "file"],
    [{ options: [{ option: "http", value: "my web=http://x" }] }, /server name "my web"/, "http"],
    [{ options: [], server: "s" }, /--server s needs the command after --/, "server"],
    [{ options: [], command: ["x"] }, /a command after -- needs --server NAME/, "server"],
    [{ options: [], env: ["A=1"] }, /--env and --cwd apply to --server/, "env"],
    [{ options: [], server: "s", command: ["x"], env: ["1A=x"] }, /--env expects/, "env"],
    [{ options: [], clientCapabilities: " , " }, /expects names/, "client-capabilities"],
    [
      { options: [], clientCapabilities: "Roots" },
      /--client-capabilities: "Roots" is not a client capability name/,
      "client-capabilities",
    ],
    [
      { options: [{ option: "file", value: "f=t.json" }], clientCapabilities: "roots" },
      /--client-capabilities has no meaning for --file f/,
      "client-capabilities",
    ],
  ];
  for (const [specs, pattern, option] of cases) {
    assert.throws(() => serversFromSpecs(specs), usage(pattern, option), String(pattern));
  }
  // A malformed header is reported as parseHeader says, not as a usage error.
  assert.throws(
    () => serversFromSpecs({ options: [{ option: "header", value: "no colon" }] }),
    (e: unknown) => e instanceof SchemaPinError && !isUsageError(e),
  );
});

Deno.test("initLock: the snapshot is written before the lock; an existing lock needs force", async () => {
  await withTempDir(async (dir) => {
    const lockPath = join(dir, "contractpin.lock");
    await dump(join(dir, "tools.json"), [{ name: "echo", description: "Echo", inputSchema: OBJ }]);
    const files = recordingFiles();
    const given = serversFromSpecs(
      { options: [{ option: "file", value: "saved=tools.json" }] },
      (p) => lockRelative(p, lockPath, dir),
    );
    const result = await initLock({ lockPath, given }, files);
    assert.equal(result.written, true);
    assert.equal(result.error, undefined);
    assert.equal(result.snapshotPath, join(dir, "contractpin.snapshot.json"));
    assert.deepEqual(files.log, [`write ${result.snapshotPath}`, `write ${lockPath}`]);
    assert.equal(result.staleSignature, undefined);
    const lock = parseLock(await Deno.readFile(lockPath), lockPath);
    assert.equal(await Deno.readTextFile(lockPath), serializeLock(result.lock));
    assert.equal(lock.servers.saved.tool_count, 1);

    await assert.rejects(
      initLock({ lockPath, given }, files),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "IO_FAILED" && /already exists/.test(e.message),
    );
    // With force, and a signature beside the lock: rewritten, the signature reported stale.
    await Deno.writeTextFile(`${lockPath}.sig`, "{}");
    const again = await initLock({ lockPath, force: true, snapshot: null }, recordingFiles());
    assert.equal(again.written, true);
    assert.equal(again.snapshotPath, null);
    assert.deepEqual(Object.keys(again.lock.servers), ["saved"]);
    assert.equal(again.staleSignature, `${lockPath}.sig`);
  });
});

Deno.test("initLock: a failing server or hidden text with strictText writes nothing", async () => {
  await withTempDir(async (dir) => {
    const lockPath = join(dir, "contractpin.lock");
    await dump(join(dir, "hidden.json"), [
      { name: "x", description: "Fine\u200Bthen", inputSchema: OBJ },
    ]);
    const files = recordingFiles();
    const failing = await initLock({
      lockPath,
      given: serversFromSpecs({
        options: [
          { option: "file", value: `gone=${join(dir, "missing.json")}` },
          { option: "file", value: `hidden=${join(dir, "hidden.json")}` },
        ],
      }),
    }, files);
    assert.equal(failing.written, false);
    assert.equal(failing.error?.code, "SERVER_FAILED");
    assert.match(failing.error!.message, /1 of 2 servers could not be pinned/);
    assert.deepEqual(failing.outcomes.map((o) => [o.name, o.ok]), [
      ["gone", false],
      ["hidden", true],
    ]);
    const strict = await initLock({
      lockPath,
      strictText: true,
      given: serversFromSpecs({
        options: [{ option: "file", value: `hidden=${join(dir, "hidden.json")}` }],
      }),
    }, files);
    assert.equal(strict.written, false);
    assert.equal(strict.error?.code, "HIDDEN_TEXT");
    assert.equal(strict.hiddenText, 1);
    assert.deepEqual(files.log.filter((l) => l.startsWith("write")), []);
    assert.equal(await Deno.lstat(lockPath).then(() => true, () => false), false);
  });
});

Deno.test("initLock: a server named twice and nothing to pin are usage errors", async () => {
  await withTempDir(async (dir) => {
    const lockPath = join(dir, "contractpin.lock");
    const config = join(dir, "mcp.json");
    await Deno.writeTextFile(
      config,
      JSON.stringify({ mcpServers: { web: { url: "https://web.example.test/mcp" } } }),
    );
    const given = serversFromSpecs({
      options: [{ option: "http", value: "web=https://other.example.test/mcp" }],
    });
    await assert.rejects(
      initLock({ lockPath, config, given }, recordingFiles()),
      usage(/server web is defined twice \(command line\)/),
    );
    await assert.rejects(initLock({ lockPath }, recordingFiles()), usage(/no servers to pin/));
    await assert.rejects(
      initLock({
        lockPath,
        given: serversFromSpecs({
          options: [
            { option: "header", value: "X-A: 1" },
            { option: "file", value: "f=t.json" },
          ],
        }),
      }, recordingFiles()),
      usage(/--header given but there is no HTTP server/, "header"),
    );
  });
});

/** A pinned dump that then changes: `echo` drifts, `added` is new. */
async function changed(dir: string): Promise<{ lockPath: string; tools: string }> {
  const lockPath = join(dir, "contractpin.lock");
  const tools = join(dir, "tools.json");
  await dump(tools, [{ name: "echo", description: "Echo", inputSchema: OBJ }]);
  const given = serversFromSpecs({ options: [{ option: "file", value: `saved=${tools}` }] });
  assert.equal((await initLock({ lockPath, given }, recordingFiles())).written, true);
  await dump(tools, [
    { name: "echo", description: "Echo twice", inputSchema: OBJ },
    { name: "added", description: "New", inputSchema: OBJ },
  ]);
  return { lockPath, tools };
}

Deno.test("approveLock: never implicit; asked per change; yes with names", async () => {
  await withTempDir(async (dir) => {
    const { lockPath } = await changed(dir);
    const before = await Deno.readTextFile(lockPath);

    const planned: string[] = [];
    const refused = await approveLock({ lockPath }, recordingFiles(), {
      onPlan: (changes, problems) => {
        planned.push(...changes.map((c) => `${c.change} ${c.tool}`));
        assert.deepEqual(problems, []);
      },
    });
    assert.equal(refused.refused, true);
    assert.equal(refused.written, false);
    assert.deepEqual(planned, ["drifted echo", "added added"]);
    assert.deepEqual(refused.left.map((c) => c.tool), ["echo", "added"]);
    assert.equal(await Deno.readTextFile(lockPath), before);

    // Asked: yes to echo, no to the rest.
    const asked: string[] = [];
    const files = recordingFiles();
    const answered = await approveLock({ lockPath }, files, {
      ask: (c) => {
        asked.push(c.tool);
        return Promise.resolve(c.tool === "echo");
      },
    });
    assert.deepEqual(asked, ["echo", "added"]);
    assert.deepEqual(answered.approved.map((c) => c.tool), ["echo"]);
    assert.deepEqual(answered.left.map((c) => c.tool), ["added"]);
    assert.equal(answered.ok, false);
    assert.equal(answered.written, true);
    const snapshotPath = join(dir, "contractpin.snapshot.json");
    assert.equal(answered.snapshotPath, snapshotPath);
    // Read, then the lock read again just before writing; the snapshot written first.
    assert.deepEqual(files.log.filter((l) => l.includes("contractpin.lock")), [
      `read ${lockPath}`,
      `read ${lockPath}`,
      `write ${lockPath}`,
    ]);
    assert.ok(files.log.indexOf(`write ${snapshotPath}`) < files.log.indexOf(`write ${lockPath}`));

    // yes needs the names; with them nothing is asked and nothing is left.
    await assert.rejects(
      approveLock({ lockPath, yes: true }, recordingFiles()),
      (e: unknown) => e instanceof SchemaPinError && e.details.reason === "no_tool",
    );
    const told: string[] = [];
    const yes = await approveLock({ lockPath, yes: true, tools: ["added"] }, recordingFiles(), {
      ask: () => Promise.reject(new Error("yes does not ask")),
      onApproved: (c) => void told.push(c.tool),
    });
    assert.deepEqual(told, ["added"]);
    assert.equal(yes.ok, true);
    const verified = await verifyLockFile({ lockPath }, recordingFiles());
    assert.equal(verified.report.exit_code, 0);
  });
});

Deno.test("approveLock: a lock changed during the review is not overwritten", async () => {
  await withTempDir(async (dir) => {
    const { lockPath } = await changed(dir);
    const files = recordingFiles();
    const concurrent = (await Deno.readTextFile(lockPath)).replace(/\n$/, "\n\n");
    await assert.rejects(
      approveLock({ lockPath }, files, {
        ask: async () => {
          await Deno.writeTextFile(lockPath, concurrent); // another writer, mid-review
          return true;
        },
      }),
      (e: unknown) =>
        e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
        /changed while the changes were reviewed/.test(e.message),
    );
    assert.equal(await Deno.readTextFile(lockPath), concurrent);
    assert.deepEqual(files.log.filter((l) => l.startsWith("write")), []);
  });
});

Deno.test("verifyLockFile: an invalid signature stops before any server is contacted", async () => {
  await withTempDir(async (dir) => {
    const { lockPath, tools } = await changed(dir);
    await Deno.remove(tools); // contacted, the server would be unreachable
    let bytes: Uint8Array | undefined;
    const result = await verifyLockFile({ lockPath }, recordingFiles(), {
      checkSignature: (lockBytes) => {
        bytes = lockBytes;
        return Promise.resolve({ status: "invalid", required: true, file: `${lockPath}.sig` });
      },
    });
    assert.deepEqual(bytes, await Deno.readFile(lockPath), "the bytes verified are the lock's");
    assert.equal(result.signature.status, "invalid");
    assert.deepEqual(result.report.servers, []);
    assert.equal(result.report.exit_code, 1);
    // Without a check: not_checked, and the server is contacted (and unreachable).
    const plain = await verifyLockFile({ lockPath }, recordingFiles());
    assert.equal(plain.signature.status, "not_checked");
    assert.equal(plain.report.servers[0].status, "unreachable");
  });
});

Deno.test("the snapshot, the signature file, stale signatures and a saved list", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "s.json");
    await Deno.writeTextFile(path, "{not json");
    const ignored: string[] = [];
    const files = recordingFiles();
    assert.equal(await readSnapshot(path, false, files, (m) => void ignored.push(m)), undefined);
    assert.equal(ignored.length, 1);
    await assert.rejects(readSnapshot(path, true, files), SchemaPinError);
    assert.equal(await readSnapshot(join(dir, "none.json"), false, files), undefined);

    assert.equal(lockSignatureFile("a/contractpin.lock"), "a/contractpin.lock.sig");
    assert.equal(lockSignatureFile("-", "lock.sig"), "lock.sig");
    assert.throws(() => lockSignatureFile("-"), usage(/with --lock -/, "signature"));
    assert.throws(() => lockSignatureFile("x.lock", "-"), usage(/must name a file/, "signature"));
    const lock = join(dir, "contractpin.lock");
    assert.equal(await staleLockSignature(lock, files.exists), undefined);
    await Deno.writeTextFile(`${lock}.sig`, "{}");
    assert.equal(await staleLockSignature(lock, files.exists), `${lock}.sig`);
  });
  const { list, notices } = await digestSavedToolList(
    { tools: [{ name: "a" }], nextCursor: "more" },
    "tools.json",
  );
  assert.equal(list.tools.size, 1);
  assert.equal(notices.length, 1);
  await assert.rejects(
    digestSavedToolList({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "x" } }, "r.json"),
    (e: unknown) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
  );
  assert.deepEqual(configContextFor("/w/app/.cursor/mcp.json", ".", { windows: true }), {
    projectDir: "/w/app",
    separator: "\\",
  });
});

Deno.test("approvalProblem, approvableChanges and approveCommands of a verified lock", async () => {
  await withTempDir(async (dir) => {
    const { lockPath } = await changed(dir);
    const { report } = await verifyLockFile({ lockPath }, recordingFiles());
    const [server] = report.servers;
    assert.equal(approvalProblem(server, lockPath), undefined);
    assert.deepEqual(approvableChanges(server), [
      { tool: "echo", change: "drifted", kind: "tool" },
      { tool: "added", change: "added", kind: "tool" },
    ]);
    // Another server than the pinned one, a hand-edited entry, an unreachable one: refused.
    const moved = {
      ...server,
      identity_changed: {
        locked: { transport: "file" as const, path: "tools.json" },
        live: { transport: "file" as const, path: "other.json" },
      },
    };
    assert.deepEqual(approvableChanges({ ...server, lock_inconsistent: true }), []);
    assert.deepEqual(approvableChanges(moved), []);
    assert.match(approvalProblem(moved, lockPath)!, /differs from the pinned one/);
    assert.match(
      approvalProblem({ ...server, lock_inconsistent: true }, lockPath)!,
      /edited by hand/,
    );
    assert.match(
      approvalProblem({ ...server, status: "unreachable", error: null }, lockPath)!,
      /could not be checked: unreachable/,
    );
    assert.match(
      approvalProblem({ ...server, status: "unpinned" }, lockPath)!,
      /is configured but not in/,
    );
    const changes = report.servers.flatMap((s) =>
      approvableChanges(s).map((c) => ({ ...c, server: s.name }))
    );
    assert.deepEqual(approveCommands(lockPath, changes, { yes: false }), [{
      server: "saved",
      argv: [
        "schemapin",
        "contract",
        "approve",
        "--lock",
        lockPath,
        "--server",
        "saved",
        "--tool",
        "echo",
        "--tool",
        "added",
      ],
    }]);
    assert.deepEqual(approveCommands(lockPath, []), []);
  });
});
