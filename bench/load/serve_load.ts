/**
 * Load test of `schemapin serve` (issue 18) against a bare `Deno.serve` of the same response,
 * over TLS on loopback: requests/s and p50/p99 latency at 10, 100 and 500 keep-alive
 * connections (autocannon, HTTP/1.1), resident memory before and after, the time curl
 * (`--http1.1`) waits for the second of two documents on one connection, and how long SIGTERM
 * takes. `schemapin serve` runs as a real process with the `schemapin` task's permission
 * flags, once without and once with `--access-log`.
 *
 *   deno run -A bench/load/serve_load.ts [--seconds S] [--connections 10,100,500]
 *
 * Prints Markdown tables (docs/performance.md). Rerunnable; stops by itself.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  HttpConnection,
  load,
  machine,
  makeCert,
  makeDocuments,
  rssKiB,
  schemapinTaskFlags,
  secondRequestMs,
  serveArgs as serveCommandArgs,
  type ServerProcess,
  sleep,
  startServerProcess,
  table,
  timed,
} from "./common.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { seconds: { type: "string" }, connections: { type: "string" } },
});
const seconds = Number(values.seconds ?? 10);
const levels = (values.connections ?? "10,100,500").split(",").map(Number);

const dir = await Deno.makeTempDir({ prefix: "schemapin-load-" });
try {
  const { cert, key } = await makeCert(dir);
  const docs = await makeDocuments(dir);
  const ca = await Deno.readTextFile(cert);
  const flags = await schemapinTaskFlags();
  const serveArgs = serveCommandArgs(docs, cert, key);
  const bare = new URL("./bare_serve.ts", import.meta.url).pathname;
  const servers: { name: string; start: () => Promise<ServerProcess> }[] = [
    {
      name: "bare `Deno.serve`",
      start: () =>
        startServerProcess(["--allow-net", "--allow-read"], [
          cert,
          key,
          docs.discovery,
          docs.revocation,
        ], { entry: bare }),
    },
    { name: "`schemapin serve`", start: () => startServerProcess(flags, serveArgs) },
    {
      name: "`schemapin serve --access-log`",
      start: () => startServerProcess(flags, [...serveArgs, "--access-log"]),
    },
  ];
  const loadRows: (string | number)[][] = [];
  const otherRows: (string | number)[][] = [];
  for (const s of servers) {
    const server = await s.start();
    try {
      const url = `https://127.0.0.1:${server.port}/.well-known/schemapin.json`;
      // The document comes back byte for byte.
      const c = await HttpConnection.tls(server.port, ca);
      const got = await c.get("/.well-known/schemapin.json");
      c.close();
      const same = new TextDecoder().decode(got.body) === await Deno.readTextFile(docs.discovery);
      if (!same) throw new Error(`${s.name} did not return the document byte for byte`);
      const rssStart = await rssKiB(server.pid);
      await load(url, 10, 2); // warm-up
      for (const n of levels) {
        const r = await load(url, n, seconds);
        loadRows.push([
          s.name,
          n,
          r.rps,
          r.p50,
          r.p99,
          r.errors + r.timeouts + r.non2xx === 0 ? "0" : `${r.errors}/${r.timeouts}/${r.non2xx}`,
        ]);
        console.error(`${s.name} ${n} connections: ${JSON.stringify(r)}`);
        await sleep(500);
      }
      const rssEnd = await rssKiB(server.pid);
      const second = await secondRequestMs([
        url,
        `https://127.0.0.1:${server.port}/.well-known/schemapin-revocations.json`,
      ]);
      const [stopped, stopMs] = await timed(() => server.stop("SIGTERM"));
      otherRows.push([
        s.name,
        `${Math.round(rssStart / 1024)} MiB`,
        `${Math.round(rssEnd / 1024)} MiB`,
        `${second.toFixed(1)} ms`,
        `${stopMs} ms (exit ${stopped.code})`,
      ]);
    } catch (e) {
      await server.stop("SIGKILL").catch(() => {});
      throw e;
    }
  }
  console.log(`\n${await machine()}; ${seconds} s per run, autocannon 9.0.0, HTTP/1.1 over TLS\n`);
  console.log(
    table(["server", "connections", "requests/s", "p50 ms", "p99 ms", "errors"], loadRows),
  );
  console.log();
  console.log(
    table([
      "server",
      "RSS at start",
      "RSS after the runs",
      "2nd request on one connection (curl --http1.1)",
      "SIGTERM → exit",
    ], otherRows),
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
