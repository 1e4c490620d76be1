/**
 * How the stdio guard ends, as real processes (issue 18 items 4 and 5): a server that dies
 * with thousands of requests open gives one small error per request (its own method and id)
 * and one summary in the log — output linear in the requests, not quadratic — and the exit
 * code tells a killed server (1) from a guard stopped by SIGINT/SIGTERM (130/143).
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

const GUARD_SERVER_FAILED = -32011;
const dec = new TextDecoder();

async function guardRaw(dir: string, mode: string, pidFile?: string): Promise<RawPeer> {
  await writeLock(`${dir}/lock`, "raw", rawTools());
  return await RawPeer.guard(
    ["--lock", `${dir}/lock`, "--log", `${dir}/log`],
    rawCommand(mode, pidFile),
  );
}

/** The method of request `i`: two common methods and 25 rare ones (more than a summary names). */
function methodOf(i: number): string {
  return i % 3 === 0 ? "ping" : i % 3 === 1 ? "resources/list" : `x/probe-${i % 25}`;
}

interface Drained {
  readonly lines: Uint8Array[];
  readonly bytes: number;
}

async function drain(peer: RawPeer): Promise<Drained> {
  const lines: Uint8Array[] = [];
  let bytes = 0;
  for (let l = await peer.nextBytes(60_000); l !== undefined; l = await peer.nextBytes(60_000)) {
    lines.push(l);
    bytes += l.length + 1;
  }
  return { lines, bytes };
}

/** Checks a summary "N requests unanswered: m ×k, …, J other methods ×K" against the truth. */
function checkSummary(summary: string, methods: string[]): void {
  const truth = new Map<string, number>();
  for (const m of methods) truth.set(m, (truth.get(m) ?? 0) + 1);
  const m = /(\d+) requests unanswered: (.*)$/.exec(summary);
  assert.ok(m, summary);
  assert.equal(Number(m[1]), methods.length);
  let named = 0;
  let namedCount = 0;
  let others = 0;
  let othersCount = 0;
  for (const part of m[2].split(", ")) {
    const other = /^(\d+) other methods ×(\d+)$/.exec(part);
    if (other) {
      others = Number(other[1]);
      othersCount = Number(other[2]);
      continue;
    }
    const named1 = /^(.+) ×(\d+)$/.exec(part);
    assert.ok(named1, part);
    assert.equal(Number(named1[2]), truth.get(named1[1]), `count of ${named1[1]}`);
    named++;
    namedCount += Number(named1[2]);
  }
  assert.ok(named <= 10, `${named} methods named`);
  assert.equal(named + others, truth.size);
  assert.equal(namedCount + othersCount, methods.length);
}

for (
  const [n, end, exitCode, prefix] of [
    [2000, "4", 4, "server raw exited with code 4 before answering "],
    [2000, "garbage", 1, "server raw failed: the server wrote something that is not strict JSON"],
    [500, "kill", 1, "server raw was killed by SIGKILL before answering "],
  ] as const
) {
  Deno.test(`guard: ${n} requests open when the server ends (${end}): one error each, linear output, one summary`, async () => {
    await withTempDir(async (dir) => {
      const peer = await guardRaw(dir, `hold:${n}:${end}`);
      const methods: string[] = [];
      let out: Drained;
      try {
        for (let i = 1; i <= n; i++) {
          methods.push(methodOf(i));
          await peer.send({ jsonrpc: "2.0", id: i, method: methodOf(i), params: {} });
        }
        out = await drain(peer);
        assert.equal((await peer.exit()).code, exitCode, peer.stderr);
      } finally {
        peer.kill();
      }
      // One error per request, each naming that request and no other.
      assert.equal(out.lines.length, n);
      const seen = new Set<number>();
      for (const bytes of out.lines) {
        assert.ok(bytes.length < 300, `an error of ${bytes.length} bytes`);
        const e = JSON.parse(dec.decode(bytes));
        assert.equal(e.error.code, GUARD_SERVER_FAILED);
        const message: string = e.error.message;
        assert.ok(message.includes(prefix), message);
        const own = /(?:before answering |\(unanswered: )(.+), id (\d+)\)?$/.exec(message);
        assert.ok(own, message);
        assert.equal(Number(own[2]), e.id);
        assert.equal(own[1], methodOf(e.id));
        // Not a list: no second "id N" and no other method in it.
        assert.equal(message.match(/, id \d+/g)!.length, 1, message);
        seen.add(e.id);
      }
      assert.equal(seen.size, n);
      // Linear: the old errors listed every open method (N²: 48 MB for N = 2000).
      assert.ok(out.bytes < n * 300, `${out.bytes} bytes to the client`);
      // The summary: once on stderr, once in the audit log.
      const summaries = peer.stderr.split("\n").filter((l) => l.includes("requests unanswered"));
      assert.equal(summaries.length, 1, peer.stderr);
      assert.ok(summaries[0].startsWith("schemapin guard: "), summaries[0]);
      checkSummary(summaries[0], methods);
      const log = await readLog(`${dir}/log`);
      const logged = log.filter((l) => typeof l.open_requests === "number");
      assert.equal(logged.length, 1);
      assert.equal(logged[0].open_requests, n);
      assert.equal(logged[0].decision, end === "garbage" ? "server_failed" : "server_exited");
      checkSummary(logged[0].message as string, methods);
    });
  });
}

/**
 * A server that reads and never answers, and dies of any signal as a plain process does:
 * `cat` (Deno handles SIGSEGV for its own use, so a Deno server sent SIGSEGV lives on).
 */
function catServer(pidFile: string): string[] {
  // fd 3 keeps the stdout pipe open (a closed stdout is a server that ended).
  return ["sh", "-c", 'echo $$ > "$1"; exec cat 3>&1 > /dev/null', "sh", pidFile];
}

/**
 * Sends `request`, then a line that is not JSON, and waits for the guard's parse error: the
 * guard reads client lines in order, so by then `request` is tracked and forwarded.
 */
async function sendAndSync(peer: RawPeer, request: unknown): Promise<void> {
  await peer.send(request);
  await peer.send("sync: not JSON");
  const parseError = await peer.next();
  assert.equal(parseError.id, null);
  assert.equal((parseError.error as { code: number }).code, -32700);
}

/** Starts a guard over a silent server (`cat`, or the raw fixture in `mode`), waits for its pid. */
async function guardOverSilent(dir: string, mode?: string): Promise<[RawPeer, number]> {
  const pidFile = `${dir}/pid`;
  await writeLock(`${dir}/lock`, "raw", rawTools());
  const peer = await RawPeer.guard(
    ["--lock", `${dir}/lock`, "--log", `${dir}/log`, "--server", "raw"],
    mode === undefined ? catServer(pidFile) : rawCommand(mode, pidFile),
  );
  await eventually(async () => (await Deno.readTextFile(pidFile).catch(() => "")) !== "");
  return [peer, Number(await Deno.readTextFile(pidFile))];
}

for (const signal of ["SIGKILL", "SIGSEGV", "SIGTERM"] as const) {
  Deno.test(`guard: the server killed by ${signal} (not by the guard) → exit 1, named on stderr and in the log`, async () => {
    await withTempDir(async (dir) => {
      const [peer, pid] = await guardOverSilent(dir);
      let code: number;
      try {
        await sendAndSync(peer, { jsonrpc: "2.0", id: 1, method: "ping" });
        Deno.kill(pid, signal);
        const err = await peer.next();
        assert.equal(err.id, 1);
        assert.match(
          (err.error as { message: string }).message,
          new RegExp(`server raw was killed by ${signal} before answering ping, id 1$`),
        );
        code = (await peer.exit()).code;
      } finally {
        peer.kill();
      }
      // Not 128 + signal: 143 is the guard's own SIGTERM.
      assert.equal(code, 1, peer.stderr);
      assert.match(peer.stderr, new RegExp(`server raw was killed by ${signal} \\(exit 1`));
      const log = await readLog(`${dir}/log`);
      const exited = log.find((l) => l.decision === "server_exited")!;
      assert.equal(exited.signal, signal);
      assert.equal(exited.open_requests, 1);
      assert.ok((exited.exit_code as number) > 128); // the server's own status, as reported
    });
  });
}

Deno.test("guard: a server exiting with code 143 or 137 itself (as a shell reports a killed child) → exit 1", async () => {
  for (const status of [143, 137, 130]) {
    await withTempDir(async (dir) => {
      const peer = await guardRaw(dir, `exit-at-start:${status}`);
      try {
        assert.equal((await peer.exit()).code, 1, peer.stderr);
      } finally {
        peer.kill();
      }
      assert.match(
        peer.stderr,
        new RegExp(`server raw exited with code ${status} \\(128 \\+ ${status - 128}: `),
      );
      const log = await readLog(`${dir}/log`);
      assert.equal(log.find((l) => l.decision === "server_exited")!.exit_code, status);
    });
  }
});

Deno.test("guard: SIGTERM / SIGINT to the guard → 143 / 130 and 'stopped by …' (the server stopped)", async () => {
  for (const [signal, code] of [["SIGTERM", 143], ["SIGINT", 130]] as const) {
    await withTempDir(async (dir) => {
      const [peer, pid] = await guardOverSilent(dir);
      try {
        await sendAndSync(peer, { jsonrpc: "2.0", id: "open", method: "resources/list" });
        peer.child.kill(signal);
        const err = await peer.next();
        assert.equal(err.id, "open");
        assert.equal((await peer.exit()).code, code, peer.stderr);
        await eventually(async () => !(await processAlive(pid)), 10_000);
      } finally {
        peer.kill();
      }
      assert.match(
        peer.stderr,
        new RegExp(`schemapin guard: stopped by ${signal} \\(exit ${code}\\)`),
      );
      assert.match(peer.stderr, /1 request unanswered: resources\/list ×1/);
      const log = await readLog(`${dir}/log`);
      const stopped = log.find((l) => l.decision === "stopped")!;
      assert.equal(stopped.exit_code, code);
      assert.equal(stopped.message, `stopped by ${signal}`);
    });
  }
});

Deno.test("guard: client gone, a server ignoring stdin EOF and SIGTERM is killed by the guard → exit 0", async () => {
  await withTempDir(async (dir) => {
    const [peer, pid] = await guardOverSilent(dir, "stubborn");
    try {
      await peer.closeInput();
      assert.equal((await peer.exit()).code, 0, peer.stderr);
      await eventually(async () => !(await processAlive(pid)), 10_000);
    } finally {
      peer.kill();
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* gone */ }
    }
    assert.match(peer.stderr, /raw: SIGTERM ignored/); // the guard did try SIGTERM first
    assert.match(
      peer.stderr,
      /the client left; server raw did not exit after its stdin closed and was stopped by the guard \(it was killed by SIGKILL\)/,
    );
    const log = await readLog(`${dir}/log`);
    assert.equal(log.find((l) => l.decision === "server_exited")!.signal, "SIGKILL");
  });
});

Deno.test("guard: an ordinary end says nothing extra; the server's code 0–127 passes through", async () => {
  for (const status of [0, 7, 127]) {
    await withTempDir(async (dir) => {
      const peer = await guardRaw(dir, `exit-at-start:${status}`);
      try {
        assert.equal((await peer.exit()).code, status, peer.stderr);
      } finally {
        peer.kill();
      }
      assert.doesNotMatch(peer.stderr, /schemapin guard:/);
    });
  }
});
