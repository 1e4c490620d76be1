/**
 * `schemapin guard` in enforce mode against a server whose tools drifted within the
 * escaped-name class (issue 12 part 1): a tool's `inputSchema.properties` gained a member
 * with an escaped control-character name (or had one renamed), spelled so that the
 * `JSON.parse` of Deno 2.9.6 reads the pinned contract back. The guard must answer the
 * `tools/list` with its refusal (the drifted list never reaches the client) and refuse every
 * `tools/call` (the server never sees one) — when the client lists first, and when the guard
 * has to list by itself before a call. Through the library (`runStdioGuard` in this process)
 * and the real CLI process.
 *
 * Before the parser fix (8e35645) the guard passed every drifted list here to the client and
 * forwarded the calls.
 */
import assert from "node:assert/strict";
import { parseLock } from "../../lib/contractpin/lock.ts";
import { AuditLog } from "../../lib/guard/audit.ts";
import { GUARD_REFUSED, GuardCore } from "../../lib/guard/core.ts";
import { GuardPolicy } from "../../lib/guard/policy.ts";
import { runStdioGuard } from "../../lib/guard/stdio.ts";
import {
  ESCAPED_TOOL_CASES,
  type EscapedServer,
  escapedServer,
  INJECTED_TEXT,
  pinEscapedServer,
} from "../contractpin/escaped_tools.ts";
import { guardArgv, RawPeer, readLog, withTempDir } from "./helpers.ts";

const CHILD_ENV = { DENO_NO_UPDATE_CHECK: "1" };
const enc = new TextEncoder();
const dec = new TextDecoder();

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "escaped-names-test", version: "0" },
  },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
const call = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: { ezn_arg: "x" } },
});

/** A client speaking to a guard line by line: raw lines out, raw lines in. */
interface Peer {
  send(message: unknown): Promise<void>;
  /** The next line the guard wrote to the client, as text. */
  nextLine(): Promise<string>;
  /** Closes the client side and returns the guard's exit code. */
  finish(): Promise<number>;
}

/**
 * An error reply, read without `JSON.parse` of the whole line (these lines may hold the very
 * names the runtime misreads): the id and error code by pattern.
 */
function assertRefused(line: string, id: number, what: string): void {
  assert.match(line, new RegExp(`"id":${id}\\b`), `${what}: ${line}`);
  assert.match(line, new RegExp(`"code":${GUARD_REFUSED}\\b`), `${what}: ${line}`);
  assert.doesNotMatch(line, /"result"/, `${what}: ${line}`);
  assert.ok(!line.includes(INJECTED_TEXT), `${what}: the injected text reached the client`);
}

/** The guard as a library in this process, with the server as a real child process. */
function inProcessGuard(lockText: string, server: EscapedServer): Peer & { log: string[] } {
  const lock = parseLock(enc.encode(lockText), "contractpin.lock");
  const log: string[] = [];
  const core = new GuardCore({
    policy: new GuardPolicy({
      lock: { serverName: "esc", entry: lock.servers.esc, file: "contractpin.lock" },
    }),
    mode: "enforce",
    log: new AuditLog("esc", "enforce", (l) => log.push(l)),
    serverName: "esc",
  });
  let input!: ReadableStreamDefaultController<Uint8Array>;
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let buffer = "";
  const done = runStdioGuard({
    command: server.command,
    core,
    serverName: "esc",
    input: new ReadableStream({ start: (c) => void (input = c) }),
    output: (bytes) => {
      buffer += dec.decode(bytes);
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const w = waiting.shift();
        if (w) w(line);
        else lines.push(line);
      }
      return Promise.resolve();
    },
    diagnostic: (line) => log.push(line),
    handleSignals: false,
  });
  return {
    log,
    send(message) {
      input.enqueue(enc.encode(JSON.stringify(message) + "\n"));
      return Promise.resolve();
    },
    nextLine() {
      const ready = lines.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line; log: ${log.join("")}`)), 15_000);
        waiting.push((line) => (clearTimeout(timer), resolve(line)));
      });
    },
    async finish() {
      input.close();
      return await done;
    },
  };
}

/** The guard as a real process (`deno run <task flags> cli.ts guard …`). */
async function processGuard(lock: string, logFile: string, server: EscapedServer): Promise<Peer> {
  const peer = new RawPeer(
    [
      Deno.execPath(),
      ...(await guardArgv(["--lock", lock, "--log", logFile, "--mode", "enforce"])),
      "--",
      ...server.command,
    ],
    CHILD_ENV,
  );
  return {
    send: (m) => peer.send(m),
    async nextLine() {
      const bytes = await peer.nextBytes();
      if (bytes === undefined) throw new Error(`guard closed its output: ${peer.stderr}`);
      return dec.decode(bytes);
    },
    async finish() {
      await peer.closeInput();
      try {
        return (await peer.exit()).code;
      } finally {
        peer.kill();
      }
    },
  };
}

async function handshake(peer: Peer): Promise<void> {
  await peer.send(INIT);
  assert.match(await peer.nextLine(), /"id":0\b.*"result"/);
  await peer.send(INITIALIZED);
}

/** List, then call: both refused, the call never reaches the server. */
async function listThenCall(peer: Peer, tool: string, server: EscapedServer): Promise<void> {
  await handshake(peer);
  await peer.send(LIST);
  const list = await peer.nextLine();
  assertRefused(list, 1, "tools/list");
  assert.match(list, new RegExp(tool), "the refusal names the drifted tool");
  await peer.send(call(2, tool));
  assertRefused(await peer.nextLine(), 2, "tools/call");
  assert.equal(await peer.finish(), 0);
  assert.deepEqual(await server.calls(), [], "a refused call reached the server");
}

/** A call before any list: the guard lists by itself, then refuses. */
async function callFirst(peer: Peer, tool: string, server: EscapedServer): Promise<void> {
  await handshake(peer);
  await peer.send(call(7, tool));
  assertRefused(await peer.nextLine(), 7, "tools/call before any list");
  assert.equal(await peer.finish(), 0);
  assert.deepEqual(await server.calls(), [], "a refused call reached the server");
}

/** Pins `locked`, then serves `drifted` (and the case's initialize result). */
async function pinnedThenDrifted(
  dir: string,
  c: (typeof ESCAPED_TOOL_CASES)[number],
): Promise<{ lock: string; server: EscapedServer }> {
  const lock = `${dir}/contractpin.lock`;
  const server = escapedServer(dir);
  await server.serve(c.locked);
  await pinEscapedServer(lock, "esc", server);
  await server.serve(c.drifted, c.initialize);
  return { lock, server };
}

Deno.test("guard (library): the pinned escaped-name tools pass, and calls reach the server", async () => {
  await withTempDir(async (dir) => {
    const c = ESCAPED_TOOL_CASES[0];
    const lock = `${dir}/contractpin.lock`;
    const server = escapedServer(dir);
    await server.serve(c.locked);
    await pinEscapedServer(lock, "esc", server);
    const peer = inProcessGuard(await Deno.readTextFile(lock), server);
    await handshake(peer);
    await peer.send(LIST);
    const list = await peer.nextLine();
    assert.match(list, /"id":1\b/);
    assert.match(list, /"result":\{"tools":\[/);
    await peer.send(call(2, c.tool));
    assert.match(await peer.nextLine(), /"id":2\b.*"result".*called ezn_read_file/);
    assert.equal(await peer.finish(), 0);
    assert.deepEqual(await server.calls(), [`call ${c.tool}`]);
  });
});

for (const c of ESCAPED_TOOL_CASES) {
  Deno.test(`guard (library, enforce): ${c.label}: list and call refused`, async () => {
    await withTempDir(async (dir) => {
      const { lock, server } = await pinnedThenDrifted(dir, c);
      const peer = inProcessGuard(await Deno.readTextFile(lock), server);
      await listThenCall(peer, c.tool, server);
      const refused = peer.log.filter((l) => l.includes('"decision":"refused"'));
      assert.equal(refused.length, 1, peer.log.join(""));
      assert.match(refused[0], new RegExp(`"tool":"${c.tool}".*"reason":"drifted"`));
      assert.ok(peer.log.some((l) => l.includes('"decision":"list_refused"')));
    });
  });

  Deno.test(`guard (library, enforce): ${c.label}: a call before any list is refused`, async () => {
    await withTempDir(async (dir) => {
      const { lock, server } = await pinnedThenDrifted(dir, c);
      await callFirst(inProcessGuard(await Deno.readTextFile(lock), server), c.tool, server);
    });
  });
}

for (const c of [ESCAPED_TOOL_CASES[0], ESCAPED_TOOL_CASES.find((x) => x.liveOnly)!]) {
  Deno.test(`guard (real process, enforce): ${c.label}: list and call refused`, async () => {
    await withTempDir(async (dir) => {
      const { lock, server } = await pinnedThenDrifted(dir, c);
      const logFile = `${dir}/guard.log`;
      await listThenCall(await processGuard(lock, logFile, server), c.tool, server);
      const log = await readLog(logFile);
      assert.deepEqual(
        log.filter((l) => l.decision === "refused").map((l) => [l.tool, l.reason]),
        [[c.tool, "drifted"]],
      );
      // A second session: the guard lists by itself before the first call.
      await callFirst(await processGuard(lock, logFile, server), c.tool, server);
    });
  });
}
