/**
 * `schemapin guard` overhead, in one run: 10,000 small `tools/call` round trips to the same
 * stdio server directly and through the guard (a real `deno run` of cli.ts with the
 * schemapin task's permission flags), sequential (latency) and pipelined (throughput); and
 * the time the guard spends checking a `tools/list` of 500 tools (lock; signatures cold and
 * warm), in process and end to end.
 *
 * Not a `deno bench` file (it spawns processes and prints a report); run it with
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env bench/guard_bench.ts
 *
 * Targets (issue 8): guarded throughput ≥ 50 % of direct; added median latency well under a
 * millisecond; a 500-tool tools/list checked in under 50 ms.
 *
 * @module
 */
import { digestToolList } from "../lib/contractpin/digest.ts";
import { buildLock, lockServerEntry, serializeLock } from "../lib/contractpin/lock.ts";
import { generateKeyPair } from "../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../lib/discovery/document.ts";
import { AuditLog } from "../lib/guard/audit.ts";
import { GuardCore } from "../lib/guard/core.ts";
import { GuardPolicy } from "../lib/guard/policy.ts";
import { signToolList } from "../lib/guard/signatures.ts";
import { parseJson } from "../lib/json/parse.ts";
import type { JsonObject, JsonValue } from "../lib/json/types.ts";
import { MemoryPinStore } from "../lib/pins/store.ts";
import { clearSignatureCheckCache } from "../lib/schema/verify.ts";

const CALLS = 10_000;
const WARMUP = 1_000;
const WINDOW = 64;
const enc = new TextEncoder();
const dec = new TextDecoder();

function tools(n: number): JsonObject[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `tool_${i}`,
    title: `Tool ${i}`,
    description: `Does thing number ${i}. `.repeat(6),
    inputSchema: {
      type: "object",
      properties: {
        path: { type: "string", description: "A path" },
        limit: { type: "integer", minimum: 1, maximum: 100 },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["path"],
    },
    annotations: { readOnlyHint: i % 2 === 0 },
  }));
}

/** The benchmark's own stdio server: answers initialize, tools/list and tools/call at once. */
async function serve(count: number): Promise<void> {
  const list = JSON.stringify(tools(count));
  const out = (s: string) => Deno.stdout.writeSync(enc.encode(s + "\n"));
  let buffer = "";
  for await (const chunk of Deno.stdin.readable) {
    buffer += dec.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const m = JSON.parse(line);
      if (m.id === undefined) continue;
      const id = JSON.stringify(m.id);
      if (m.method === "initialize") {
        out(
          `{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":"2025-06-18",` +
            `"capabilities":{"tools":{}},"serverInfo":{"name":"bench","version":"0"}}}`,
        );
      } else if (m.method === "tools/list") {
        out(`{"jsonrpc":"2.0","id":${id},"result":{"tools":${list}}}`);
      } else {
        out(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"ok"}]}}`);
      }
    }
  }
}

/** A peer writing lines and reading answers. */
class Peer {
  readonly child: Deno.ChildProcess;
  readonly #w: WritableStreamDefaultWriter<Uint8Array>;
  readonly #r: ReadableStreamDefaultReader<Uint8Array>;
  #buf = new Uint8Array(0);

  constructor(argv: string[], env: Record<string, string>) {
    this.child = new Deno.Command(argv[0], {
      args: argv.slice(1),
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#w = this.child.stdin.getWriter();
    this.#r = this.child.stdout.getReader();
  }

  send(text: string): Promise<void> {
    return this.#w.write(enc.encode(text + "\n"));
  }

  async line(): Promise<Uint8Array> {
    while (true) {
      const nl = this.#buf.indexOf(0x0a);
      if (nl >= 0) {
        const l = this.#buf.subarray(0, nl);
        this.#buf = this.#buf.subarray(nl + 1);
        return l;
      }
      const { value, done } = await this.#r.read();
      if (done) throw new Error("stream ended");
      const j = new Uint8Array(this.#buf.length + value.length);
      j.set(this.#buf);
      j.set(value, this.#buf.length);
      this.#buf = j;
    }
  }

  async close(): Promise<void> {
    await this.#w.close();
    await this.#r.cancel();
    await this.child.status;
  }
}

const call = (id: number) =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"tool_1","arguments":{"path":"/tmp/x"}}}`;

async function session(argv: string[], env: Record<string, string> = {}): Promise<{
  latencies: number[];
  sequentialMs: number;
  pipelinedMs: number;
  listMs: number[];
}> {
  const p = new Peer(argv, env);
  await p.send(
    `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
      `"capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`,
  );
  await p.line();
  await p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`);
  const listMs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    await p.send(`{"jsonrpc":"2.0","id":"list-${i}","method":"tools/list"}`);
    const answer = await p.line();
    listMs.push(performance.now() - t);
    if (i === 0 && !dec.decode(answer.subarray(0, 200)).includes(`"tools"`)) {
      throw new Error(`tools/list failed: ${dec.decode(answer.subarray(0, 300))}`);
    }
  }
  let id = 1;
  for (let i = 0; i < WARMUP; i++) {
    await p.send(call(id++));
    await p.line();
  }
  const latencies: number[] = [];
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    await p.send(call(id++));
    await p.line();
    latencies.push(performance.now() - t);
  }
  const sequentialMs = performance.now() - t0;
  // Pipelined: up to WINDOW requests in flight.
  const t1 = performance.now();
  let sent = 0;
  let received = 0;
  const reader = (async () => {
    while (received < CALLS) {
      await p.line();
      received++;
    }
  })();
  while (sent < CALLS) {
    if (sent - received < WINDOW) {
      await p.send(call(id++));
      sent++;
    } else {
      await new Promise((r) => setTimeout(r, 0));
    }
  }
  await reader;
  const pipelinedMs = performance.now() - t1;
  await p.close();
  return { latencies, sequentialMs, pipelinedMs, listMs };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function pct(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))];
}

async function checkTimes(): Promise<void> {
  const list = tools(500);
  const line = enc.encode(
    JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools: list } }),
  );
  const entry = lockServerEntry({ transport: "file", path: "x" }, digestToolList(list));
  const key = generateKeyPair();
  const signed = signToolList(list, key, { domain: "bench.example.com" }).tools;
  const signedLine = enc.encode(
    JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools: signed } }),
  );
  const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Bench" });
  const pinStore = new MemoryPinStore();
  const variants: [string, Uint8Array, GuardPolicy, boolean][] = [
    ["lock", line, new GuardPolicy({ lock: { serverName: "b", entry } }), false],
    [
      "signatures, first check (500 ECDSA verifications, pins written)",
      signedLine,
      new GuardPolicy({
        signatures: { domain: "bench.example.com", discovery, pinStore, trustFirstUse: true },
      }),
      true,
    ],
    [
      "signatures, later checks (cached verifications)",
      signedLine,
      new GuardPolicy({
        signatures: { domain: "bench.example.com", discovery, pinStore, trustFirstUse: true },
      }),
      false,
    ],
    [
      "lock + signatures, later checks",
      signedLine,
      new GuardPolicy({
        lock: { serverName: "b", entry },
        signatures: { domain: "bench.example.com", discovery, pinStore, trustFirstUse: true },
      }),
      false,
    ],
  ];
  console.log(
    `\ntools/list of 500 tools (${(line.length / 1024).toFixed(0)} KiB; signed ` +
      `${(signedLine.length / 1024).toFixed(0)} KiB): strict parse + check, in process`,
  );
  for (const [name, bytes, policy, cold] of variants) {
    const core = new GuardCore({
      policy,
      mode: "enforce",
      log: new AuditLog("b", "enforce", () => {}),
      serverName: "b",
    });
    const times: number[] = [];
    const runs = cold ? 1 : 21;
    for (let i = 0; i < runs; i++) {
      if (cold) clearSignatureCheckCache();
      const session = core.newSession();
      await core.fromClient(session, { jsonrpc: "2.0", id: 1, method: "tools/list" });
      const t = performance.now();
      const value = parseJson(bytes) as JsonValue;
      const d = await core.fromServer(session, value);
      times.push(performance.now() - t);
      if (d.kind !== "pass") throw new Error(`${name}: the list did not pass`);
    }
    console.log(
      `  ${name.padEnd(64)} ${median(times).toFixed(1).padStart(6)} ms` +
        (runs > 1 ? ` (median of ${runs}, min ${Math.min(...times).toFixed(1)})` : ""),
    );
  }
}

if (import.meta.main) {
  if (Deno.args[0] === "--server") {
    await serve(Number(Deno.args[1]));
    Deno.exit(0);
  }
  const repo = new URL("../", import.meta.url);
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", repo)));
  const flags = (config.tasks.schemapin as string).split(/\s+/).slice(2, -1);
  const dir = await Deno.makeTempDir({ prefix: "schemapin-guard-bench-" });
  try {
    const lock = `${dir}/contractpin.lock`;
    const entry = lockServerEntry(
      { transport: "stdio", command: ["bench"] },
      digestToolList(tools(500)),
    );
    await Deno.writeTextFile(lock, serializeLock(buildLock({ bench: entry })));
    const minimal = [
      Deno.execPath(),
      "run",
      "--quiet",
      new URL("bench/guard_bench.ts", repo).pathname,
      "--server",
      "500",
    ];
    // The SDK-built fixture of the guard tests: a realistic server (zod validation, …).
    const toolsFile = `${dir}/tools.json`;
    await Deno.writeTextFile(toolsFile, JSON.stringify({ tools: tools(500) }));
    const sdk = [
      Deno.execPath(),
      "run",
      "--quiet",
      "--allow-read",
      "--allow-env",
      new URL("tests/guard/fixtures/sdk_server.ts", repo).pathname,
    ];
    const guard = (server: string[]) => [
      Deno.execPath(),
      "run",
      "--quiet",
      ...flags,
      new URL("cli.ts", repo).pathname,
      "guard",
      "--lock",
      lock,
      "--log",
      `${dir}/guard.log`,
      "--",
      ...server,
    ];
    console.log(`schemapin guard overhead — ${Deno.build.target}, Deno ${Deno.version.deno}`);
    console.log(
      `${CALLS} sequential tools/call round trips (after ${WARMUP} warm-up), then ${CALLS} ` +
        `pipelined (${WINDOW} in flight); each server direct and guarded, in the same run`,
    );
    for (
      const [label, server, env] of [
        ["minimal stdio server (answers at once)", minimal, {}],
        ["SDK server (tests/guard/fixtures/sdk_server.ts)", sdk, { FIXTURE_TOOLS: toolsFile }],
      ] as const
    ) {
      const direct = await session(server, env);
      const viaGuard = await session(guard(server), env);
      console.log(`\n${label}`);
      const row = (name: string, r: typeof direct) =>
        console.log(
          `  ${name.padEnd(8)} median ${(median(r.latencies) * 1000).toFixed(0).padStart(4)} µs  ` +
            `p99 ${(pct(r.latencies, 0.99) * 1000).toFixed(0).padStart(5)} µs  ` +
            `sequential ${(CALLS / (r.sequentialMs / 1000)).toFixed(0).padStart(6)} calls/s  ` +
            `pipelined ${(CALLS / (r.pipelinedMs / 1000)).toFixed(0).padStart(6)} calls/s  ` +
            `tools/list(500) ${median(r.listMs.slice(1)).toFixed(1)} ms`,
        );
      row("direct", direct);
      row("guarded", viaGuard);
      const added = (median(viaGuard.latencies) - median(direct.latencies)) * 1000;
      console.log(
        `  added median latency ${added.toFixed(0)} µs; guarded throughput ` +
          `${(100 * direct.sequentialMs / viaGuard.sequentialMs).toFixed(0)} % of direct ` +
          `(sequential), ${(100 * direct.pipelinedMs / viaGuard.pipelinedMs).toFixed(0)} % ` +
          `(pipelined); tools/list(500) end to end +` +
          `${(median(viaGuard.listMs.slice(1)) - median(direct.listMs.slice(1))).toFixed(1)} ms`,
      );
    }
    await checkTimes();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
