/**
 * Load test of `schemapin guard --listen` (issue 18): `tools/call` round trips per second and
 * p50/p99 latency at 1, 10 and 50 concurrent MCP sessions, through the guard and directly to
 * the upstream — the published server-everything in streamableHttp mode (the version the tests
 * pin) — and the guard's resident memory before and after. The guard runs as a real process
 * with the `schemapin` task's permission flags, in enforce mode with a lock made by
 * `schemapin contract init` against the same server.
 *
 *   deno run -A bench/load/guard_load.ts [--seconds S] [--sessions 1,10,50]
 *
 * Prints Markdown tables (docs/performance.md). Rerunnable; stops by itself.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { startEverythingHttp } from "../../tests/guard/helpers.ts";
import {
  guardArgsFor,
  machine,
  rssKiB,
  schemapinTaskFlags,
  sleep,
  startServerProcess,
  table,
} from "./common.ts";
import { runCalls } from "./mcp_client.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { seconds: { type: "string" }, sessions: { type: "string" } },
});
const seconds = Number(values.seconds ?? 10);
const levels = (values.sessions ?? "1,10,50").split(",").map(Number);

const dir = await Deno.makeTempDir({ prefix: "schemapin-load-" });
const everything = await startEverythingHttp("streamableHttp");
try {
  const guard = await startServerProcess(await schemapinTaskFlags(), [
    ...await guardArgsFor(everything.url, dir),
    "--log",
    `${dir}/audit.jsonl`,
  ]);
  const guardUrl = `http://127.0.0.1:${guard.port}/mcp`;
  const rows: (string | number)[][] = [];
  let rssStart = 0;
  let rssEnd = 0;
  try {
    rssStart = await rssKiB(guard.pid);
    await runCalls(guardUrl, 4, 2); // warm-up
    await runCalls(everything.url, 4, 2);
    for (const n of levels) {
      const direct = await runCalls(everything.url, n, seconds);
      await sleep(300);
      const guarded = await runCalls(guardUrl, n, seconds);
      await sleep(300);
      console.error(
        `${n} sessions: direct ${JSON.stringify(direct)} guard ${JSON.stringify(guarded)}`,
      );
      rows.push([
        n,
        direct.callsPerSecond,
        `${direct.p50} / ${direct.p99}`,
        guarded.callsPerSecond,
        `${guarded.p50} / ${guarded.p99}`,
        (guarded.callsPerSecond / direct.callsPerSecond).toFixed(2) + "×",
        direct.failures + guarded.failures,
      ]);
    }
    rssEnd = await rssKiB(guard.pid);
  } finally {
    const stopped = await guard.stop("SIGTERM");
    if (stopped.code !== 0) console.error(`guard exit ${stopped.code}: ${stopped.stderr}`);
  }
  console.log(
    `\n${await machine()}; ${seconds} s per run; upstream server-everything (streamableHttp)\n`,
  );
  console.log(table([
    "sessions",
    "direct calls/s",
    "direct p50 / p99 ms",
    "guard calls/s",
    "guard p50 / p99 ms",
    "guard ÷ direct",
    "failed calls",
  ], rows));
  console.log(
    `\nguard RSS: ${Math.round(rssStart / 1024)} MiB at start, ` +
      `${Math.round(rssEnd / 1024)} MiB after the runs`,
  );
} finally {
  await everything.stop();
  await Deno.remove(dir, { recursive: true });
}
