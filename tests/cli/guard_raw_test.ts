/**
 * `schemapin guard` at the byte level, as a real process: relayed bytes are identical to a
 * direct conversation, batches and server → client requests pass, and a server that
 * crashes, writes garbage or never answers gives the client JSON-RPC errors and makes the
 * guard exit — no hang.
 */
import assert from "node:assert/strict";
import {
  eventually,
  processAlive,
  rawCommand,
  RawPeer,
  rawTools,
  readLog,
  withTempDir,
  writeLock,
} from "../guard/helpers.ts";

const GUARD_REFUSED = -32010;
const GUARD_SERVER_FAILED = -32011;
const dec = new TextDecoder();

const INIT = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "t", version: "0" },
  },
};
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

async function guardRaw(
  dir: string,
  mode: string,
  args: string[] = [],
  pidFile?: string,
): Promise<RawPeer> {
  await writeLock(`${dir}/lock`, "raw", rawTools());
  return await RawPeer.guard(
    ["--lock", `${dir}/lock`, "--log", `${dir}/log`, ...args],
    rawCommand(mode, pidFile),
  );
}

async function handshake(peer: RawPeer): Promise<void> {
  await peer.send(INIT);
  assert.equal((await peer.next()).id, 0);
  await peer.send(INITIALIZED);
}

Deno.test("guard (raw): every relayed byte equals the direct conversation", async () => {
  await withTempDir(async (dir) => {
    const conversation: unknown[] = [
      INIT,
      INITIALIZED,
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
      {
        jsonrpc: "2.0",
        id: "call-1",
        method: "tools/call",
        params: { name: "a", arguments: { text: 'é \u2028 "q" \\ \u0001', n: 1.5e300 } },
      },
      [
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "b", arguments: {} } },
        { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1 } },
        { jsonrpc: "2.0", id: 3, method: "ping" },
      ],
      { jsonrpc: "2.0", id: 4, method: "resources/list" },
    ];
    const transcripts: string[][] = [];
    for (const guarded of [false, true]) {
      const peer = guarded ? await guardRaw(dir, "ok") : new RawPeer(rawCommand("ok"));
      const lines: string[] = [];
      try {
        for (const m of conversation) {
          await peer.send(m);
          if (m === INITIALIZED) continue;
          lines.push(dec.decode(await peer.nextBytes()));
        }
        await peer.closeInput();
        assert.equal((await peer.exit()).code, 0);
      } finally {
        peer.kill();
      }
      transcripts.push(lines);
    }
    assert.deepEqual(transcripts[1], transcripts[0]);
    assert.equal(transcripts[0].length, 5);
    assert.match(transcripts[0][3], /^\[/); // the batch answer is a batch
  });
});

Deno.test("guard (raw): a server → client request and the client's answer pass through", async () => {
  await withTempDir(async (dir) => {
    const peer = await guardRaw(dir, "ok");
    try {
      await handshake(peer);
      await peer.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "ask" } });
      const request = await peer.nextBytes();
      assert.equal(dec.decode(request), '{"jsonrpc":"2.0","id":"srv-ping","method":"ping"}');
      await peer.send({ jsonrpc: "2.0", id: "srv-ping", result: {} });
      const answer = await peer.next();
      assert.equal(answer.id, 5);
      assert.deepEqual(answer.result, { content: [{ type: "text", text: "pong seen" }] });
      await peer.closeInput();
      assert.equal((await peer.exit()).code, 0);
    } finally {
      peer.kill();
    }
  });
});

Deno.test("guard (raw): a client line that is not strict JSON is answered, never forwarded", async () => {
  await withTempDir(async (dir) => {
    const peer = await guardRaw(dir, "ok");
    try {
      await handshake(peer);
      // A duplicated "name": a lenient server would call "evil".
      await peer.send(
        '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a","name":"evil"}}',
      );
      const err = await peer.next();
      assert.equal(err.id, null);
      assert.equal((err.error as { code: number }).code, -32700);
      await peer.send("not json at all");
      assert.equal(((await peer.next()).error as { code: number }).code, -32700);
      await peer.send({ jsonrpc: "2.0", id: 10, method: "ping" });
      assert.deepEqual(await peer.next(), { jsonrpc: "2.0", id: 10, result: {} });
      await peer.closeInput();
      assert.equal((await peer.exit()).code, 0);
    } finally {
      peer.kill();
    }
    const log = await readLog(`${dir}/log`);
    assert.equal(log.filter((l) => l.decision === "client_malformed").length, 2);
  });
});

Deno.test("guard (raw): a batch with a refused call forwards the rest and answers the refusal", async () => {
  await withTempDir(async (dir) => {
    const peer = await guardRaw(dir, "ok");
    try {
      await handshake(peer);
      await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      await peer.next();
      await peer.send([
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "a" } },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "not_listed" } },
      ]);
      type Msg = { id: number; result?: unknown; error?: { code: number; message: string } };
      const first = await peer.next() as unknown as Msg[];
      const second = await peer.next() as unknown as Msg[];
      const all = [...first, ...second];
      const refused = all.find((m) => m.id === 3)!;
      assert.equal(refused.error?.code, GUARD_REFUSED);
      assert.match(refused.error!.message, /not in the checked tool list/);
      assert.ok(all.find((m) => m.id === 2 && "result" in m));
      await peer.send([]);
      assert.equal(((await peer.next()).error as { code: number }).code, -32600);
    } finally {
      await peer.closeInput();
      await peer.exit().catch(() => peer.kill());
    }
  });
});

Deno.test("guard (raw): the server crashing on a call: JSON-RPC error, exit with its status", async () => {
  await withTempDir(async (dir) => {
    const peer = await guardRaw(dir, "crash-on-call");
    try {
      await handshake(peer);
      await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
      await peer.next();
      await peer.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "a" } });
      const err = await peer.next();
      assert.equal(err.id, 2);
      assert.equal((err.error as { code: number }).code, GUARD_SERVER_FAILED);
      assert.match((err.error as { message: string }).message, /exited with code 3/);
      assert.equal((await peer.exit()).code, 3);
      assert.match(peer.stderr, /raw: crashing on tools\/call/);
    } finally {
      peer.kill();
    }
    const log = await readLog(`${dir}/log`);
    assert.equal(log.at(-1)!.decision, "server_exited");
    assert.equal(log.at(-1)!.exit_code, 3);
  });
});

Deno.test("guard (raw): garbage from the server: errors for open requests, server stopped, exit 1", async () => {
  for (const mode of ["garbage-on-call", "garbage-on-list", "dup-keys-list"]) {
    await withTempDir(async (dir) => {
      const pidFile = `${dir}/pid`;
      const peer = await guardRaw(dir, mode, [], pidFile);
      try {
        await handshake(peer);
        const onCall = mode === "garbage-on-call";
        if (onCall) {
          await peer.send({ jsonrpc: "2.0", id: 1, method: "tools/list" });
          await peer.next();
        }
        await peer.send(
          onCall
            ? { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "a" } }
            : { jsonrpc: "2.0", id: 2, method: "tools/list" },
        );
        const err = await peer.next();
        assert.equal(err.id, 2, mode);
        assert.equal((err.error as { code: number }).code, GUARD_SERVER_FAILED, mode);
        assert.match((err.error as { message: string }).message, /not strict JSON/, mode);
        assert.equal((await peer.exit()).code, 1, mode);
        const pid = Number(await Deno.readTextFile(pidFile));
        await eventually(async () => !(await processAlive(pid)), 5000);
      } finally {
        peer.kill();
      }
      const log = await readLog(`${dir}/log`);
      assert.ok(log.some((l) => l.decision === "server_failed"), mode);
    });
  }
});

Deno.test("guard (raw): a server that never answers: error after the timeout, exit 1", async () => {
  await withTempDir(async (dir) => {
    const silent = await guardRaw(dir, "silent", ["--startup-timeout", "1"]);
    const neverList = await guardRaw(dir, "never-list", ["--list-timeout", "1"]);
    try {
      const t0 = Date.now();
      await silent.send(INIT);
      const err = await silent.next();
      assert.equal(err.id, 0);
      assert.equal((err.error as { code: number }).code, GUARD_SERVER_FAILED);
      assert.match(
        (err.error as { message: string }).message,
        /no answer to initialize within 1 s/,
      );
      assert.equal((await silent.exit()).code, 1);
      assert.ok(Date.now() - t0 < 8000);

      await handshake(neverList);
      await neverList.send({ jsonrpc: "2.0", id: "L", method: "tools/list" });
      const e2 = await neverList.next();
      assert.equal(e2.id, "L");
      assert.match((e2.error as { message: string }).message, /no answer to tools\/list/);
      assert.equal((await neverList.exit()).code, 1);
    } finally {
      silent.kill();
      neverList.kill();
    }
  });
});

Deno.test("guard (raw): the guard exits with the server's status; a dead command is exit 1", async () => {
  await withTempDir(async (dir) => {
    const peer = await guardRaw(dir, "exit-at-start");
    try {
      assert.equal((await peer.exit()).code, 7);
      assert.match(peer.stderr, /raw: exiting at start/);
    } finally {
      peer.kill();
    }
    await writeLock(`${dir}/lock`, "raw", rawTools());
    const missing = await RawPeer.guard(["--lock", `${dir}/lock`], ["/nonexistent/server-bin"]);
    try {
      assert.equal((await missing.exit()).code, 1);
      assert.match(missing.stderr, /command not found: \/nonexistent\/server-bin/);
    } finally {
      missing.kill();
    }
  });
});

Deno.test("guard (raw): client gone → server stopped; SIGTERM → server stopped, exit 143", async () => {
  await withTempDir(async (dir) => {
    const pidA = `${dir}/a.pid`;
    const a = await guardRaw(dir, "ok", [], pidA);
    const pidB = `${dir}/b.pid`;
    const b = await guardRaw(dir, "silent", [], pidB);
    try {
      await handshake(a);
      await a.closeInput();
      assert.equal((await a.exit()).code, 0);
      assert.equal(await processAlive(Number(await Deno.readTextFile(pidA))), false);

      await eventually(async () => (await Deno.readTextFile(pidB).catch(() => "")) !== "");
      b.child.kill("SIGTERM");
      assert.equal((await b.exit()).code, 143);
      const pid = Number(await Deno.readTextFile(pidB));
      await eventually(async () => !(await processAlive(pid)), 5000);
    } finally {
      a.kill();
      b.kill();
    }
  });
});
