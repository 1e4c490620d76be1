// deno-lint-ignore-file no-import-prefix -- the load generator is a benchmark tool, pinned here
/**
 * Shared parts of the load and fault scripts in bench/load/: the load generator (autocannon,
 * pinned), a throwaway TLS certificate, documents to serve, timing helpers and a Markdown
 * table printer. Everything runs on loopback and stops by itself.
 *
 * @module
 */
import autocannon from "npm:autocannon@9.0.0";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { addRevokedKey, buildRevocationDocument } from "../../lib/revocation/document.ts";
import { childCommand } from "../../tests/process.ts";
import { runCliProcess } from "../../tests/guard/helpers.ts";

export { schemapinTaskFlags } from "../../tests/cli/run.ts";
export {
  closeAll,
  HttpConnection,
  idleFlood,
  rssKiB,
  type ServerProcess,
  startServerProcess,
} from "../../tests/fixtures/network/limits.ts";

/** What one autocannon run measured. */
export interface LoadResult {
  /** Mean requests per second. */
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /** Requests answered, and the failures (errors, timeouts, non-2xx). */
  total: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** Runs autocannon against `url` with `connections` for `seconds` (HTTP/1.1 keep-alive). */
export async function load(url: string, connections: number, seconds: number): Promise<LoadResult> {
  const r = await autocannon({ url, connections, duration: seconds, timeout: 10 });
  return {
    rps: Math.round(r.requests.average),
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
  };
}

/** A self-signed certificate for 127.0.0.1 and localhost (openssl); PEM paths. */
export async function makeCert(dir: string): Promise<{ cert: string; key: string }> {
  const cert = `${dir}/cert.pem`;
  const key = `${dir}/key.pem`;
  const out = await childCommand("openssl", {
    args: [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=DNS:localhost,IP:127.0.0.1",
      "-addext",
      "basicConstraints=critical,CA:FALSE",
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`openssl: ${new TextDecoder().decode(out.stderr)}`);
  return { cert, key };
}

/**
 * A discovery document declaring its revocation endpoint and two retired keys (~600 bytes), and
 * that revocation document (~500 bytes): sizes of a publisher that has rotated keys, above the
 * ~450 bytes at which `Deno.serve` writes a response's body as a TLS record of its own.
 */
export async function makeDocuments(
  dir: string,
): Promise<{ discovery: string; revocation: string }> {
  const discovery = `${dir}/schemapin.json`;
  const revocation = `${dir}/revocations.json`;
  const key = generateKeyPair();
  const retired = [generateKeyPair(), generateKeyPair()].map((k) => k.publicKey.fingerprint);
  await Deno.writeTextFile(
    discovery,
    JSON.stringify(
      buildDiscoveryDocument({
        publicKey: key.publicKey,
        developerName: "Load Test Publisher",
        contact: "security@tools.example.test",
        revocationEndpoint: "https://tools.example.test/.well-known/schemapin-revocations.json",
        revokedKeys: retired,
      }),
      null,
      2,
    ) + "\n",
  );
  let doc = buildRevocationDocument("tools.example.test");
  for (const fp of retired) doc = addRevokedKey(doc, fp, "superseded");
  await Deno.writeTextFile(revocation, JSON.stringify(doc, null, 2) + "\n");
  return { discovery, revocation };
}

/**
 * Milliseconds curl (`--http1.1`, one connection) takes for the second of two requests, from
 * sending it to the last byte of its body: the delayed-ACK stall shows here. Median of `runs`.
 */
export async function secondRequestMs(urls: [string, string], runs = 5): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = await childCommand("curl", {
      args: [
        "--http1.1",
        "-sk",
        "-o",
        "/dev/null",
        "-o",
        "/dev/null",
        "-w",
        "%{time_total}\n",
        ...urls,
      ],
      stdout: "piped",
      stderr: "null",
    }).output();
    const lines = new TextDecoder().decode(out.stdout).trim().split("\n");
    times.push(Number(lines[1]) * 1000); // the second transfer, on the kept-alive connection
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Pins the upstream with `contract init --http everything=URL` in `dir`, then returns the
 * `schemapin guard --listen` arguments for it (the load and fault scripts both start this
 * guard).
 */
export async function guardArgsFor(upstream: string, dir: string): Promise<string[]> {
  const init = await runCliProcess(
    ["contract", "init", "--http", `everything=${upstream}`, "--no-snapshot"],
    { cwd: dir },
  );
  if (init.code !== 0) throw new Error(`contract init: ${init.stderr}`);
  return [
    ...["guard", "--listen", "127.0.0.1:0", "--upstream", upstream],
    ...["--lock", `${dir}/contractpin.lock`, "--server", "everything"],
  ];
}

/** The `schemapin serve` arguments for the documents and certificate the scripts make. */
export function serveArgs(
  docs: { discovery: string; revocation: string },
  cert: string,
  key: string,
): string[] {
  return [
    ...["serve", "--discovery", docs.discovery, "--revocation", docs.revocation],
    ...["--tls-cert", cert, "--tls-key", key, "--port", "0", "--hostname", "127.0.0.1"],
  ];
}

/** A Markdown table. */
export function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Milliseconds a promise takes. */
export async function timed<T>(p: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const v = await p();
  return [v, Math.round(performance.now() - start)];
}

/** Sleeps. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The machine, for the report. */
export async function machine(): Promise<string> {
  const cpu = (await Deno.readTextFile("/proc/cpuinfo").catch(() => ""))
    .match(/model name\s*:\s*(.+)/)?.[1] ?? "unknown CPU";
  const cores = navigator.hardwareConcurrency;
  return `Deno ${Deno.version.deno}, ${cores} cores (${cpu}), loopback`;
}
