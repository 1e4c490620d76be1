/**
 * Fault tests of `schemapin serve` and `schemapin guard --listen` (issue 18), on loopback:
 *
 * - idle-connection flood past the open-file limit (the server runs under `ulimit -n 64`),
 * - slow headers (slowloris: partial heads trickling in),
 * - a stderr nobody reads (the access log / audit log on a stalled pipe),
 * - the guard's upstream killed (and started again on the same port),
 *
 * each ending with a check that the server still answers, and with SIGTERM.
 *
 *   deno run -A bench/load/faults.ts
 *
 * Prints a Markdown table (docs/performance.md). Rerunnable; stops by itself.
 *
 * @module
 */
import { EVERYTHING_PACKAGE } from "../../tests/contractpin/helpers.ts";
import { startListening } from "../../tests/guard/helpers.ts";
import {
  closeAll,
  guardArgsFor,
  HttpConnection,
  idleFlood,
  load,
  machine,
  makeCert,
  makeDocuments,
  rssKiB,
  schemapinTaskFlags,
  serveArgs as serveCommandArgs,
  type ServerProcess,
  sleep,
  startServerProcess,
  table,
  timed,
} from "./common.ts";
import { McpSession } from "./mcp_client.ts";

const rows: string[][] = [];
const mib = (kib: number) => `${Math.round(kib / 1024)} MiB`;
const dir = await Deno.makeTempDir({ prefix: "schemapin-faults-" });
const flags = await schemapinTaskFlags();
const { cert, key } = await makeCert(dir);
const ca = await Deno.readTextFile(cert);
const docs = await makeDocuments(dir);
const serveArgs = serveCommandArgs(docs, cert, key);

/** ms until `serve` answers a GET on a fresh connection (throws after 15 s). */
async function serveAnswers(port: number): Promise<number> {
  const [, ms] = await timed(async () => {
    const end = Date.now() + 15_000;
    while (true) {
      let c: HttpConnection | undefined;
      try {
        c = await HttpConnection.tls(port, ca);
        if ((await c.get("/.well-known/schemapin.json")).status === 200) return;
      } catch (e) {
        if (Date.now() > end) throw e;
        await sleep(50);
      } finally {
        c?.close();
      }
    }
  });
  return ms;
}

/** ms until an MCP session through the guard completes a tools/call (throws after 15 s). */
async function guardRelays(url: string): Promise<number> {
  const client = Deno.createHttpClient({});
  try {
    const [, ms] = await timed(async () => {
      const end = Date.now() + 15_000;
      while (true) {
        try {
          const s = await McpSession.open(url, client);
          await s.request("tools/call", { name: "echo", arguments: { message: "ping" } });
          await s.close();
          return;
        } catch (e) {
          if (Date.now() > end) throw e;
          await sleep(50);
        }
      }
    });
    return ms;
  } finally {
    client.close();
  }
}

async function stop(server: ServerProcess): Promise<string> {
  const [{ code, stderr }, ms] = await timed(() => server.stop("SIGTERM", 15_000));
  const dropped = /(\d+) log lines? dropped/.exec(stderr)?.[1];
  return `SIGTERM → exit ${code} in ${ms} ms${
    dropped ? `; ${dropped} log lines dropped, reported` : ""
  }`;
}

try {
  // 1. serve: idle flood past `ulimit -n 64`.
  {
    const s = await startServerProcess(flags, serveArgs, { ulimit: 64 });
    const flood = await idleFlood(s.port, 500);
    const during = await serveAnswers(s.port);
    const rss = await rssKiB(s.pid);
    closeAll(flood);
    await sleep(300);
    const after = await serveAnswers(s.port);
    const emfile = /out of file descriptors/.test(s.log());
    rows.push([
      "`serve`",
      `${flood.length} idle TCP connections, \`ulimit -n 64\``,
      `answered in ${during} ms (RSS ${mib(rss)})${emfile ? "; EMFILE logged" : ""}`,
      `answered in ${after} ms; ${await stop(s)}`,
    ]);
  }
  // 2. serve: slowloris (TLS done, then one header line every 500 ms), header timeout 2 s.
  {
    const s = await startServerProcess(flags, [...serveArgs, "--header-timeout", "2"]);
    const slow: HttpConnection[] = [];
    for (let i = 0; i < 200; i++) {
      const c = await HttpConnection.tls(s.port, ca);
      await c.send("GET /.well-known/schemapin.json HTTP/1.1\r\nHost: 127.0.0.1\r\n");
      slow.push(c);
    }
    const started = Date.now();
    const trickle = setInterval(() => {
      for (const c of slow) c.send("X-Slow: 1\r\n").catch(() => {});
    }, 500);
    const during = await serveAnswers(s.port);
    const closedMs = await Promise.all(slow.map((c) => c.closedWithin(10_000)));
    clearInterval(trickle);
    const closed = closedMs.filter((m) => m !== undefined).length;
    const last = Date.now() - started;
    for (const c of slow) c.close();
    const after = await serveAnswers(s.port);
    rows.push([
      "`serve`",
      "200 slow-header connections (a header line every 500 ms), `--header-timeout 2`",
      `answered in ${during} ms; ${closed}/200 closed by the server within ${last} ms`,
      `answered in ${after} ms; ${await stop(s)}`,
    ]);
  }
  // 3. serve: stalled stderr with --access-log.
  {
    const s = await startServerProcess(flags, [...serveArgs, "--access-log"]);
    s.stallLog();
    const url = `https://127.0.0.1:${s.port}/.well-known/schemapin.json`;
    await load(url, 50, 3);
    const before = await rssKiB(s.pid);
    const r = await load(url, 100, 10);
    const after = await rssKiB(s.pid);
    const answered = await serveAnswers(s.port);
    rows.push([
      "`serve --access-log`",
      `stderr on a pipe nobody reads; ${r.total} requests at 100 connections`,
      `${r.rps} requests/s, ${r.errors + r.timeouts} errors; RSS ${mib(before)} → ${mib(after)}`,
      `answered in ${answered} ms; ${await stop(s)} (stderr still stalled)`,
    ]);
  }
  // The guard, in front of server-everything (streamableHttp) on a fixed port.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = probe.addr.port;
  probe.close();
  const startEverything = () =>
    startListening(
      "npx",
      ["-y", EVERYTHING_PACKAGE, "streamableHttp"],
      /listening on port (\d+)/,
      {
        PORT: String(port),
      },
      (m) => `http://127.0.0.1:${m[1]}/mcp`,
      240_000,
    );
  let everything = await startEverything();
  try {
    const guardArgs = await guardArgsFor(everything.url, dir);
    // 4. guard: idle flood past `ulimit -n 64`.
    {
      const g = await startServerProcess(flags, guardArgs, { ulimit: 64 });
      const url = `http://127.0.0.1:${g.port}/mcp`;
      const flood = await idleFlood(g.port, 500);
      const during = await guardRelays(url);
      closeAll(flood);
      await sleep(300);
      const after = await guardRelays(url);
      rows.push([
        "`guard --listen`",
        `${flood.length} idle TCP connections, \`ulimit -n 64\``,
        `MCP session + tools/call in ${during} ms${
          /out of file descriptors/.test(g.log()) ? "; EMFILE logged" : ""
        }`,
        `tools/call in ${after} ms; ${await stop(g)}`,
      ]);
    }
    // 5. guard: slow headers, --header-timeout 2.
    {
      const g = await startServerProcess(flags, [...guardArgs, "--header-timeout", "2"]);
      const url = `http://127.0.0.1:${g.port}/mcp`;
      const slow: HttpConnection[] = [];
      for (let i = 0; i < 200; i++) {
        const c = await HttpConnection.tcp(g.port);
        await c.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        slow.push(c);
      }
      const trickle = setInterval(() => {
        for (const c of slow) c.send("X-Slow: 1\r\n").catch(() => {});
      }, 500);
      const started = Date.now();
      const during = await guardRelays(url);
      const closed = (await Promise.all(slow.map((c) => c.closedWithin(10_000))))
        .filter((m) => m !== undefined).length;
      const last = Date.now() - started;
      clearInterval(trickle);
      for (const c of slow) c.close();
      rows.push([
        "`guard --listen`",
        "200 slow-header connections, `--header-timeout 2`",
        `tools/call in ${during} ms; ${closed}/200 closed by the guard within ${last} ms`,
        `tools/call in ${await guardRelays(url)} ms; ${await stop(g)}`,
      ]);
    }
    // 6. guard: stalled stderr (the audit log), 10 sessions listing tools: 4,000 lists (at most
    // 60 s), far more audit lines than the pipe and the log's queue hold.
    {
      const g = await startServerProcess(flags, guardArgs);
      g.stallLog();
      const url = `http://127.0.0.1:${g.port}/mcp`;
      const client = Deno.createHttpClient({});
      const before = await rssKiB(g.pid);
      let lists = 0;
      const end = Date.now() + 60_000;
      await Promise.all(Array.from({ length: 10 }, async () => {
        const s = await McpSession.open(url, client);
        while (Date.now() < end && lists < 4_000) {
          await s.request("tools/list", {});
          lists++;
        }
        await s.close();
      }));
      client.close();
      const after = await rssKiB(g.pid);
      rows.push([
        "`guard --listen`",
        `audit log on a stderr nobody reads; ${lists} tools/list (one audit line each)`,
        `RSS ${mib(before)} → ${mib(after)}`,
        `tools/call in ${await guardRelays(url)} ms; ${await stop(g)} (stderr still stalled)`,
      ]);
    }
    // 7. guard: the upstream killed mid-run, then started again on the same port.
    {
      const g = await startServerProcess(flags, guardArgs);
      const url = `http://127.0.0.1:${g.port}/mcp`;
      const client = Deno.createHttpClient({});
      const s = await McpSession.open(url, client);
      await s.request("tools/call", { name: "echo", arguments: { message: "before" } });
      await everything.stop();
      const [error, ms] = await timed(() =>
        s.request("tools/call", { name: "echo", arguments: { message: "after" } }).then(
          () => "answered (?)",
          (e) => (e as Error).message.replace(/^tools\/call: /, "").slice(0, 90),
        )
      );
      everything = await startEverything();
      const back = await guardRelays(url);
      client.close();
      rows.push([
        "`guard --listen`",
        "upstream killed during a session, then started again on its port",
        `the next call: \`${error}\` in ${ms} ms`,
        `new session + tools/call in ${back} ms; ${await stop(g)}`,
      ]);
    }
  } finally {
    await everything.stop();
  }
  console.log(`\n${await machine()}\n`);
  console.log(table(["server", "fault", "during", "afterwards"], rows));
} finally {
  await Deno.remove(dir, { recursive: true });
}
