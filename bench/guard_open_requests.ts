/**
 * A stdio server that dies with N requests open (issue 18 item 4): how many errors and bytes
 * the guard sends the client, and the largest single error — for N = 500, 1,000, 2,000 and
 * 4,000 (or the Ns given).
 *
 * The server is the raw test fixture in `hold:N:4` mode: it reads N requests, answers none,
 * and exits with code 4. `--cli PATH` runs another checkout's cli.ts (the "before" figures of
 * README came from `git archive` of the commit before the fix).
 *
 * Not a `deno bench` file (it spawns processes and prints a table); run it with
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env bench/guard_open_requests.ts
 *
 * @module
 */
import { digestToolList } from "../lib/contractpin/digest.ts";
import { buildLock, lockServerEntry, serializeLock } from "../lib/contractpin/lock.ts";

const repo = new URL("../", import.meta.url).pathname;
const FIXTURE = `${repo}tests/guard/fixtures/raw_server.ts`;
const FLAGS = ["--allow-read", "--allow-write", "--allow-env", "--allow-net", "--allow-run"];

interface Row {
  n: number;
  lines: number;
  bytes: number;
  largest: number;
  exitCode: number;
}

async function measure(cli: string, n: number, dir: string): Promise<Row> {
  const lock = `${dir}/lock`;
  const entry = lockServerEntry({ transport: "stdio", command: ["raw"] }, digestToolList([]));
  await Deno.writeTextFile(lock, serializeLock(buildLock({ raw: entry })));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      ...FLAGS,
      cli,
      "guard",
      "--lock",
      lock,
      "--log",
      `${dir}/log`,
      "--",
      Deno.execPath(),
      "run",
      "--quiet",
      FIXTURE,
      `hold:${n}:4`,
    ],
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = child.stderr.pipeTo(new WritableStream());
  let lines = 0;
  let bytes = 0;
  let largest = 0;
  let current = 0;
  const reading = (async () => {
    for await (const chunk of child.stdout) {
      bytes += chunk.length;
      for (const b of chunk) {
        if (b === 0x0a) {
          lines++;
          largest = Math.max(largest, current);
          current = 0;
        } else current++;
      }
    }
  })();
  const writer = child.stdin.getWriter();
  const enc = new TextEncoder();
  const batch: string[] = [];
  for (let i = 1; i <= n; i++) {
    const method = i % 3 === 0 ? "ping" : i % 3 === 1 ? "resources/list" : `x/probe-${i % 25}`;
    batch.push(JSON.stringify({ jsonrpc: "2.0", id: i, method, params: {} }));
  }
  await writer.write(enc.encode(batch.join("\n") + "\n"));
  const status = await child.status;
  await reading;
  await stderr;
  await writer.close().catch(() => {});
  return { n, lines, bytes, largest, exitCode: status.code };
}

const args = [...Deno.args];
const cliAt = args.indexOf("--cli");
const cli = cliAt >= 0 ? args.splice(cliAt, 2)[1] : `${repo}cli.ts`;
const ns = args.length ? args.map(Number) : [500, 1000, 2000, 4000];
const dir = await Deno.makeTempDir({ prefix: "schemapin-open-requests-" });
try {
  console.log(`guard: ${cli}`);
  console.log(
    "| open requests | errors | bytes to the client | largest error | per request | exit |",
  );
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const n of ns) {
    const r = await measure(cli, n, dir);
    console.log(
      `| ${r.n} | ${r.lines} | ${r.bytes.toLocaleString("en")} | ${
        r.largest.toLocaleString("en")
      } | ${Math.round(r.bytes / r.n).toLocaleString("en")} | ${r.exitCode} |`,
    );
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
