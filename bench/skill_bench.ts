/**
 * Skill folder hashing (§4b) against `openssl sha256` over the same bytes, in the same run:
 * a tree of 2,000 small files and one of 8 × 16 MiB files. Prints a table with throughput,
 * the ratio to OpenSSL, and the peak resident memory of a process that hashes each tree.
 *
 * Not a `deno bench` file (it needs to write trees and run openssl); run it with
 *
 *   deno run --allow-read --allow-write --allow-run --allow-env bench/skill_bench.ts
 *
 * Targets (issue 4): ≥ 60 % of OpenSSL's throughput on the large tree; the 2,000-file tree
 * hashed in under 100 ms.
 *
 * @module
 */
import { hashSkillDir } from "../lib/skill/hash.ts";

const RUNS = 7;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Deterministic pseudo-random bytes (xorshift), so runs hash the same content. */
function fill(buf: Uint8Array, seed: number): void {
  let x = seed | 1;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let i = 0; i + 4 <= buf.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    view.setUint32(i, x >>> 0);
  }
}

async function makeSmallTree(dir: string): Promise<string[]> {
  const files: string[] = [];
  await Deno.writeTextFile(`${dir}/SKILL.md`, "---\nname: bench-small\n---\n# bench\n");
  files.push(`${dir}/SKILL.md`);
  for (let i = 1; i < 2000; i++) {
    const sub = `${dir}/d${String(i % 20).padStart(2, "0")}`;
    await Deno.mkdir(sub, { recursive: true });
    const buf = new Uint8Array(512 + ((i * 37) % 3000));
    fill(buf, i);
    const path = `${sub}/f${String(i).padStart(4, "0")}.txt`;
    await Deno.writeFile(path, buf);
    files.push(path);
  }
  return files;
}

async function makeLargeTree(dir: string): Promise<string[]> {
  const files: string[] = [];
  const buf = new Uint8Array(16 << 20);
  for (let i = 0; i < 8; i++) {
    fill(buf, 1000 + i);
    const path = `${dir}/blob${i}.bin`;
    await Deno.writeFile(path, buf);
    files.push(path);
  }
  return files;
}

async function timeOpenssl(files: string[]): Promise<number[]> {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    const out = await new Deno.Command("openssl", { args: ["sha256", ...files], stdout: "null" })
      .output();
    times.push(performance.now() - t);
    if (!out.success) throw new Error("openssl sha256 failed");
  }
  return times;
}

async function timeHash(dir: string): Promise<{ times: number[]; first: number; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  let first = 0;
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    const h = await hashSkillDir(dir);
    const ms = performance.now() - t;
    if (r === 0) first = ms;
    times.push(ms);
    bytes = h.totalBytes;
  }
  return { times, first, bytes };
}

/** Peak RSS (KiB) of a fresh process hashing `dir`, via /usr/bin/time -v when available. */
async function peakRssKiB(dir: string | undefined): Promise<number | undefined> {
  const args = ["-v", Deno.execPath(), "run", "--allow-read", new URL(import.meta.url).pathname];
  if (dir !== undefined) args.push("--child", dir);
  else args.push("--idle");
  try {
    const out = await new Deno.Command("/usr/bin/time", { args, stdout: "null", stderr: "piped" })
      .output();
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(
      new TextDecoder().decode(out.stderr),
    );
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function cliMs(dir: string): Promise<number> {
  const cli = new URL("../cli.ts", import.meta.url).pathname;
  const times: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--allow-read", cli, "hash-skill", dir],
      stdout: "null",
    }).output();
    times.push(performance.now() - t);
  }
  return median(times);
}

const mbps = (bytes: number, ms: number) => bytes / (1024 * 1024) / (ms / 1000);

if (import.meta.main) {
  if (Deno.args[0] === "--child") {
    await hashSkillDir(Deno.args[1]);
    Deno.exit(0);
  }
  if (Deno.args[0] === "--idle") Deno.exit(0);

  const base = await Deno.makeTempDir({ prefix: "schemapin-skill-bench-" });
  try {
    await Deno.mkdir(`${base}/small`);
    await Deno.mkdir(`${base}/large`);
    const small = await makeSmallTree(`${base}/small`);
    const large = await makeLargeTree(`${base}/large`);
    console.log(`skill hashing vs openssl sha256 (${RUNS} runs each, median; same bytes)`);
    console.log(`${Deno.build.target}, Deno ${Deno.version.deno}`);
    const idle = await peakRssKiB(undefined);
    for (
      const [name, dir, files] of [["2,000 small files", `${base}/small`, small], [
        "8 × 16 MiB",
        `${base}/large`,
        large,
      ]] as const
    ) {
      const ours = await timeHash(dir);
      const ssl = await timeOpenssl([...files]);
      const oursMs = median(ours.times);
      const sslMs = median(ssl);
      const peak = await peakRssKiB(dir);
      console.log(`\n${name}: ${files.length} files, ${(ours.bytes / 1048576).toFixed(1)} MiB`);
      console.log(
        `  schemapin hashSkillDir  ${oursMs.toFixed(1).padStart(7)} ms  ` +
          `${mbps(ours.bytes, oursMs).toFixed(0).padStart(5)} MiB/s  ` +
          `(min ${Math.min(...ours.times).toFixed(1)} ms, first run ${ours.first.toFixed(1)} ms)`,
      );
      console.log(
        `  openssl sha256 FILES…   ${sslMs.toFixed(1).padStart(7)} ms  ` +
          `${mbps(ours.bytes, sslMs).toFixed(0).padStart(5)} MiB/s  (process included)`,
      );
      console.log(`  ratio schemapin/openssl throughput: ${(sslMs / oursMs * 100).toFixed(0)} %`);
      if (peak !== undefined && idle !== undefined) {
        console.log(
          `  peak RSS of a process hashing it: ${(peak / 1024).toFixed(1)} MiB ` +
            `(an idle deno process: ${(idle / 1024).toFixed(1)} MiB)`,
        );
      }
      if (name === "2,000 small files") {
        console.log(
          `  CLI end to end (deno run … hash-skill, startup included): ${
            (await cliMs(dir)).toFixed(0)
          } ms`,
        );
      }
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}
