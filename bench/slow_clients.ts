/**
 * Slow clients against `schemapin guard --listen`, counted from outside the way an attacker
 * sees it (issue 37): the guard runs with `--max-connections 8 --header-timeout 3
 * --idle-timeout 5` (and every other limit at its default) in front of a small upstream; 24
 * clients, 100 ms apart, each send a `POST /mcp` head with `Content-Length: 1000`, then one body byte every
 * 2 s. At 6 s, 16 s and 40 s it counts the server-side ESTABLISHED and CLOSE_WAIT sockets on
 * the guard's port (/proc/net/tcp) and the guard process's socket descriptors (/proc/PID/fd,
 * above its count before the clients), and how many clients still have their connection. At
 * 8 s a user sends one small POST on a new connection: answered, or not within 10 s. Then:
 * how long a dripper kept its slot, and how many new connections a minute an attacker needs
 * to keep every slot full that way (slots × 60 s / the time a dripper keeps one).
 *
 *   deno run -A bench/slow_clients.ts                     # this checkout
 *   deno run -A bench/slow_clients.ts --cli /tmp/old/cli.ts  # another checkout's CLI
 *
 * Options: `--clients N` (24), `--cap N` (8), `--every MS` (2000), `--seconds S` (42, how long
 * the clients run), and any flags after `--` go to the guard (`-- --min-request-rate 0`).
 * Linux only (/proc). Prints the figures; stops by itself.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startServerProcess } from "../tests/fixtures/network/limits.ts";
import { schemapinTaskFlags } from "../tests/cli/run.ts";
import { baseTools, writeLock } from "../tests/guard/helpers.ts";
import { sample, sleep } from "../tests/http/slow_clients_helpers.ts";

const encode = (t: string) => new TextEncoder().encode(t);

/** One dripping client: when it connected and when it saw its connection closed. */
interface Dripper {
  readonly started: number;
  ended: number | undefined;
}

/** Connects and drips until the server closes the connection or `until` passes. */
function drip(port: number, everyMs: number, until: number): Dripper {
  const d: Dripper = { started: Date.now(), ended: undefined };
  (async () => {
    let conn: Deno.Conn;
    try {
      conn = await Deno.connect({ hostname: "127.0.0.1", port });
    } catch {
      d.ended = Date.now();
      return;
    }
    let closed = false;
    const reading = (async () => {
      const buf = new Uint8Array(4096);
      try {
        while ((await conn.read(buf)) !== null) { /* answers are not the point */ }
      } catch { /* reset */ }
      closed = true;
      if (Date.now() < until) d.ended ??= Date.now(); // not the client's own close at the end
    })();
    try {
      await conn.write(encode(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
          "Content-Length: 1000\r\n\r\n",
      ));
      while (!closed && Date.now() < until) {
        await Promise.race([sleep(everyMs), reading]);
        if (!closed && Date.now() < until) await conn.write(encode("x"));
      }
    } catch {
      if (Date.now() < until) d.ended ??= Date.now(); // the server closed it (a write failed before the read saw it)
    }
    try {
      conn.close();
    } catch { /* closed */ }
  })();
  return d;
}

/** A user's small POST on a new connection: its status line and milliseconds, or no answer. */
async function userPost(port: number): Promise<string> {
  const started = Date.now();
  const body = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
  let conn: Deno.Conn | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encode(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n` +
        body,
    ));
    const buf = new Uint8Array(4096);
    const n = await Promise.race([
      conn.read(buf),
      new Promise<"late">((r) => timer = setTimeout(() => r("late"), 10_000)),
    ]);
    if (n === "late") return "no answer within 10 s";
    if (n === null) return `closed without an answer after ${Date.now() - started} ms`;
    const line = new TextDecoder().decode(buf.subarray(0, n)).split("\r\n")[0];
    return `${line} in ${Date.now() - started} ms`;
  } catch (e) {
    return `failed: ${(e as Error).message}`;
  } finally {
    clearTimeout(timer);
    try {
      conn?.close();
    } catch { /* closed */ }
  }
}

const { values: args, positionals: extra } = parseArgs({
  args: Deno.args,
  options: {
    cli: { type: "string" },
    clients: { type: "string" },
    cap: { type: "string" },
    every: { type: "string" },
    seconds: { type: "string" },
  },
  allowPositionals: true,
});
const clients = Number(args.clients ?? 24);
const cap = Number(args.cap ?? 8);
const everyMs = Number(args.every ?? 2000);
const seconds = Number(args.seconds ?? 42);

const dir = await Deno.makeTempDir({ prefix: "schemapin-bench-slow-" });
const upstream = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
  await req.arrayBuffer();
  return new Response(null, { status: 202 });
});
try {
  await writeLock(`${dir}/lock`, "web", baseTools());
  const limits = ["--max-connections", String(cap), "--header-timeout", "3", "--idle-timeout", "5"];
  const guardArgs = [
    "guard",
    "--listen",
    "127.0.0.1:0",
    "--upstream",
    `http://127.0.0.1:${upstream.addr.port}/mcp`,
    "--upstream-transport",
    "streamable-http",
    "--lock",
    `${dir}/lock`,
    "--log",
    `${dir}/audit.log`,
    ...limits,
    ...extra,
  ];
  const guard = await startServerProcess(await schemapinTaskFlags(), guardArgs, {
    ...(args.cli ? { entry: args.cli } : {}),
  });
  try {
    const before = await sample(guard.pid, guard.port);
    console.log(
      `schemapin guard --listen 127.0.0.1:PORT --upstream … ${limits.join(" ")}` +
        (extra.length ? ` ${extra.join(" ")}` : "") + (args.cli ? ` (${args.cli})` : ""),
    );
    console.log(
      `${clients} clients: POST /mcp head with Content-Length: 1000, then 1 body byte every ` +
        `${everyMs} ms, for ${seconds} s; the guard had ${before.sockets} socket descriptors before`,
    );
    const t0 = Date.now();
    const until = t0 + seconds * 1000;
    // One after the other, 100 ms apart: each head is in before the next client connects.
    const drippers: Dripper[] = [];
    for (let i = 0; i < clients; i++) {
      drippers.push(drip(guard.port, everyMs, until));
      await sleep(100);
    }
    const open = () => drippers.filter((d) => d.ended === undefined).length;
    let user = "";
    const userAt = sleep(8000).then(async () => user = await userPost(guard.port));
    for (const at of [6, 16, 40]) {
      if (at >= seconds) break;
      await sleep(t0 + at * 1000 - Date.now());
      const s = await sample(guard.pid, guard.port);
      console.log(
        `${at} s: ${s.onPort.size} server-side ESTABLISHED/CLOSE_WAIT sockets on the port, ` +
          `${s.sockets - before.sockets} socket descriptors above the start, ` +
          `${open()} of ${clients} clients still connected`,
      );
    }
    await userAt;
    console.log(`a user's POST at 8 s: ${user}`);
    await sleep(until - Date.now() + 500);
    const held = drippers.map((d) => ((d.ended ?? until) - d.started) / 1000);
    const kept = held.filter((s) => s >= 1).sort((a, b) => a - b);
    const atOnce = held.length - kept.length;
    const still = drippers.filter((d) => d.ended === undefined).length;
    const median = kept.length ? kept[Math.floor(kept.length / 2)] : 0;
    console.log(
      `${atOnce} clients closed within 1 s of connecting; ${kept.length} kept a slot ` +
        (kept.length
          ? `for ${kept[0].toFixed(1)}–${kept.at(-1)!.toFixed(1)} s (median ${median.toFixed(1)} s)`
          : "") +
        (still ? `; ${still} still connected at ${seconds} s (held at least that long)` : ""),
    );
    if (median > 0) {
      console.log(
        `to keep ${cap} slots full by dripping: about ${Math.ceil((cap * 60) / median)} new ` +
          `connections a minute (${cap} × 60 s / ${median.toFixed(1)} s)` +
          (still ? ", or fewer: the slots were still held when the run ended" : ""),
      );
    }
  } finally {
    await guard.stop();
  }
} finally {
  await upstream.shutdown();
  await Deno.remove(dir, { recursive: true });
}
