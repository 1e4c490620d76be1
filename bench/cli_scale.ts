/**
 * The CLI at scale (issue 14), side by side with a naive reference in the same run: each row
 * times this project's command and the matching Node.js script in bench/reference/ (what a
 * script using the reference JavaScript SDK does; that SDK is not on the npm registry this
 * project reaches, see bench/reference/README.md), alternating them, `--repeat` times, and
 * prints the median, the range and the ratio (reference time / project time: above 1 means
 * this project is faster). Benchmarks print figures; nothing here is a timed assertion.
 *
 *   deno run -A bench/cli_scale.ts                       # every row, 3 repeats
 *   deno run -A bench/cli_scale.ts --rows verify,sign --sizes 1000,10000 --repeat 5
 *   deno run -A bench/cli_scale.ts --rows start          # start-up of every command
 *
 * Rows: `verify` (verify-schema --batch, pins stored = steady state, and first use with an
 * empty store), `lineage` (verify-schema --batch --lineage-store against the same batch
 * without lineage), `sign` (sign-schema --batch), `skill` (50,000 small files and 2,000 files of
 * 6.5 KB: library in process, CLI end to end, peak RSS), `digest` (contract digests of 1,000
 * tools against a naive independent digest, in process), `start` (one verify-schema against
 * one Node verification, and `--help` start-up of every command).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { generateKeyPair, privateKeyToPem } from "../lib/crypto/keys.ts";
import { signSchemaBase64, signSchemaDocument } from "../lib/schema/document.ts";
import { hashSkillDir } from "../lib/skill/hash.ts";
import { digestToolList } from "../lib/contractpin/digest.ts";
import { COMMAND_ENTRIES } from "../cli/commands/registry.ts";
import { childCommand } from "../tests/process.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const CLI = `${ROOT}cli.ts`;
const REF = `${ROOT}bench/reference`;
const FLAGS = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).tasks.schemapin
  .split(/\s+/).slice(2, -1) as string[];

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "verify,lineage,sign,skill,digest,start" },
    sizes: { type: "string", default: "1000,10000" },
    repeat: { type: "string", default: "3" },
    files: { type: "string", default: "50000" },
    child: { type: "string" },
    "digest-child": { type: "boolean" },
  },
});

// In-process library hashing of a tree, run in a child so its peak RSS can be read.
if (values.child !== undefined) {
  const t = performance.now();
  const h = await hashSkillDir(values.child, { maxEntries: 1_000_000 });
  console.error(
    `library hashed ${h.entries.length} files in ${(performance.now() - t).toFixed(1)} ms`,
  );
  console.log(h.skillHash);
  Deno.exit(0);
}

// The digest row runs in a fresh process of its own (no heap left over from other rows).
if (values["digest-child"]) {
  console.log(JSON.stringify(await digestTimes(Number(values.repeat))));
  Deno.exit(0);
}

const ROWS = new Set(values.rows.split(","));
const SIZES = values.sizes.split(",").map(Number);
const REPEAT = Number(values.repeat);
const DOMAIN = "example.com";

interface Run {
  ms: number;
  rssKiB?: number;
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs `argv` (through /usr/bin/time -v for the peak RSS when `rss`), timing it. */
async function run(argv: string[], opts: { rss?: boolean; env?: Record<string, string> } = {}) {
  const useTime = opts.rss === true;
  const [program, ...args] = useTime ? ["/usr/bin/time", "-v", ...argv] : argv;
  const t = performance.now();
  const out = await childCommand(program, {
    args,
    stdout: "piped",
    stderr: "piped",
    env: opts.env,
  }).output();
  const ms = performance.now() - t;
  const stderr = new TextDecoder().decode(out.stderr);
  const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  return {
    ms,
    rssKiB: m ? Number(m[1]) : undefined,
    stdout: new TextDecoder().decode(out.stdout),
    stderr,
    code: out.code,
  } satisfies Run;
}

function cli(...args: string[]): string[] {
  return [Deno.execPath(), "run", "--quiet", ...FLAGS, CLI, ...args];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmtMs = (ms: number) => ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
const range = (xs: number[], f = fmtMs) =>
  xs.length > 1 ? `${f(Math.min(...xs))}–${f(Math.max(...xs))}` : f(xs[0]);

const table: string[][] = [];
function row(figure: string, ours: number[], ref: number[], note = "") {
  const ratios = ours.map((o, i) => ref[i] / o);
  table.push([
    figure,
    `${fmtMs(median(ours))} (${range(ours)})`,
    `${fmtMs(median(ref))} (${range(ref)})`,
    `${median(ratios).toFixed(2)} (${range(ratios, (r) => r.toFixed(2))})`,
    note,
  ]);
  console.error(`  ${table.at(-1)!.join(" | ")}`);
}

function printTable() {
  const head = ["figure", "this project", "naive reference", "ratio (ref/ours)", "note"];
  const all = [head, ...table];
  const widths = head.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of table) console.log(line(r));
}

function expectOk(r: Run, what: string) {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(0, 2000)}`);
}

function schemaFor(i: number) {
  return {
    name: `tool_${String(i).padStart(6, "0")}`,
    description: `Searches files under a root for a pattern (variant ${i}).`,
    inputSchema: {
      type: "object",
      properties: {
        root: { type: "string", description: "directory to search" },
        pattern: { type: "string" },
        maxResults: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
        caseSensitive: { type: "boolean", default: false },
      },
      required: ["root", "pattern"],
    },
  };
}

/**
 * N schemas and their signatures in `dir` (bare Base64, or 1.4 documents naming `DOMAIN` with
 * `documents`), the key and the discovery document.
 */
async function makeSchemas(dir: string, n: number, documents = false) {
  const key = generateKeyPair();
  await Deno.mkdir(`${dir}/schemas`, { recursive: true });
  await Deno.writeTextFile(`${dir}/private.pem`, privateKeyToPem(key));
  await Deno.writeTextFile(
    `${dir}/discovery.json`,
    JSON.stringify({
      schema_version: "1.4",
      developer_name: "Bench Corp",
      public_key_pem: key.publicKey.pem,
      revoked_keys: [],
    }),
  );
  for (let i = 0; i < n; i++) {
    const schema = schemaFor(i);
    const name = `${schema.name}.json`;
    await Deno.writeTextFile(`${dir}/schemas/${name}`, JSON.stringify(schema, null, 2));
    const signature = documents
      ? JSON.stringify(signSchemaDocument(schema, key, { domain: DOMAIN, schemaVersion: "1.0.0" }))
      : signSchemaBase64(schema, key);
    await Deno.writeTextFile(`${dir}/schemas/${name}.sig`, signature + "\n");
  }
}

async function rm(path: string) {
  await Deno.remove(path, { recursive: true }).catch(() => {});
}

/** `verify-schema --batch` over `dir`'s schemas with the pin store `dir/pins`, quiet. */
function verifyBatchArgv(dir: string, pins: string, extra: string[]): string[] {
  return cli(
    "verify-schema",
    "--batch",
    `${dir}/schemas`,
    "--domain",
    DOMAIN,
    "--discovery",
    `${dir}/discovery.json`,
    "--pin-store",
    `${dir}/${pins}`,
    "-q",
    ...extra,
  );
}

async function verifyRows(base: string) {
  for (const n of SIZES) {
    const dir = `${base}/verify-${n}`;
    await makeSchemas(dir, n);
    const ours = { first: [] as number[], stored: [] as number[] };
    const ref = { first: [] as number[], stored: [] as number[] };
    for (let r = 0; r < REPEAT; r++) {
      await rm(`${dir}/pins.json`);
      await rm(`${dir}/ref-pins.json`);
      const verify = (extra: string[]) => verifyBatchArgv(dir, "pins.json", extra);
      const refArgv = [
        "node",
        `${REF}/verify_batch.mjs`,
        `${dir}/schemas`,
        `${dir}/schemas`,
        `${dir}/discovery.json`,
        `${dir}/ref-pins.json`,
        DOMAIN,
        "-q",
      ];
      let a = await run(verify(["--trust-first-use"]));
      expectOk(a, `verify-schema first use (${n})`);
      let b = await run(refArgv);
      expectOk(b, `reference verify first use (${n})`);
      ours.first.push(a.ms);
      ref.first.push(b.ms);
      a = await run(verify([]));
      expectOk(a, `verify-schema stored (${n})`);
      b = await run(refArgv);
      expectOk(b, `reference verify stored (${n})`);
      ours.stored.push(a.ms);
      ref.stored.push(b.ms);
    }
    const pins = JSON.parse(await Deno.readTextFile(`${dir}/pins.json`)).pins.length;
    if (pins !== n) throw new Error(`expected ${n} pins, found ${pins}`);
    row(`verify-schema --batch, ${n} schemas, pins stored`, ours.stored, ref.stored);
    row(`verify-schema --batch, ${n} schemas, first use`, ours.first, ref.first);
    await rm(dir);
  }
}

/**
 * `verify-schema --batch --lineage-store` (issue 27): the first run anchors every schema, the
 * second finds each unchanged. The reference column is the same batch without lineage, so the
 * ratio is what lineage costs.
 */
async function lineageRows(base: string) {
  for (const n of SIZES) {
    const dir = `${base}/lineage-${n}`;
    await makeSchemas(dir, n, true);
    const ours = { anchor: [] as number[], unchanged: [] as number[] };
    const plain = { anchor: [] as number[], unchanged: [] as number[] };
    const verify = (pins: string, extra: string[]) =>
      verifyBatchArgv(dir, pins, ["--trust-first-use", ...extra]);
    for (let r = 0; r < REPEAT; r++) {
      for (const f of ["pins.json", "plain-pins.json", "lineage.json"]) await rm(`${dir}/${f}`);
      for (const times of ["anchor", "unchanged"] as const) {
        const a = await run(verify("pins.json", ["--lineage-store", `${dir}/lineage.json`]));
        expectOk(a, `verify-schema --lineage-store ${times} (${n})`);
        const b = await run(verify("plain-pins.json", []));
        expectOk(b, `verify-schema without lineage ${times} (${n})`);
        ours[times].push(a.ms);
        plain[times].push(b.ms);
      }
    }
    const records = JSON.parse(await Deno.readTextFile(`${dir}/lineage.json`)).lineage.length;
    if (records !== n) throw new Error(`expected ${n} lineage records, found ${records}`);
    const note = "reference column: the same batch without lineage";
    row(`verify-schema --batch --lineage, ${n} schemas, anchored`, ours.anchor, plain.anchor, note);
    row(
      `verify-schema --batch --lineage, ${n} schemas, unchanged`,
      ours.unchanged,
      plain.unchanged,
      note,
    );
    await rm(dir);
  }
}

async function signRows(base: string) {
  for (const n of SIZES) {
    const dir = `${base}/sign-${n}`;
    await makeSchemas(dir, n);
    const ours: number[] = [];
    const ref: number[] = [];
    for (let r = 0; r < REPEAT; r++) {
      await rm(`${dir}/sigs`);
      await rm(`${dir}/ref-sigs`);
      const a = await run(
        cli(
          "sign-schema",
          "--batch",
          `${dir}/schemas`,
          "--out-dir",
          `${dir}/sigs`,
          "--key",
          `${dir}/private.pem`,
          "-q",
        ),
      );
      expectOk(a, `sign-schema (${n})`);
      const b = await run([
        "node",
        `${REF}/sign_batch.mjs`,
        `${dir}/schemas`,
        `${dir}/ref-sigs`,
        `${dir}/private.pem`,
        "-q",
      ]);
      expectOk(b, `reference sign (${n})`);
      ours.push(a.ms);
      ref.push(b.ms);
    }
    row(`sign-schema --batch, ${n} schemas`, ours, ref, "ours: fsync'd; reference: no fsync");
    await rm(dir);
  }
}

/** Deterministic pseudo-random bytes. */
function fill(buf: Uint8Array, seed: number): void {
  let x = seed | 1;
  for (let i = 0; i < buf.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buf[i] = x & 0xff;
  }
}

async function makeTree(dir: string, files: number, size: (i: number) => number) {
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/SKILL.md`, "---\nname: bench\n---\n# bench\n");
  for (let i = 1; i < files; i++) {
    const sub = `${dir}/d${String(i % 100).padStart(2, "0")}`;
    if (i <= 100) await Deno.mkdir(sub, { recursive: true });
    const buf = new Uint8Array(size(i));
    fill(buf, i);
    Deno.writeFileSync(`${sub}/f${String(i).padStart(6, "0")}.txt`, buf);
  }
}

async function skillRows(base: string) {
  const trees: [string, number, (i: number) => number][] = [
    [
      `${Number(values.files).toLocaleString("en")} small files`,
      Number(values.files),
      (i) => 64 + ((i * 37) % 700),
    ],
    ["2,000 files of 6.5 KB", 2000, () => 6656],
  ];
  for (const [label, files, size] of trees) {
    const dir = `${base}/skill`;
    await makeTree(dir, files, size);
    const lib = { ours: [] as number[], ref: [] as number[] };
    const end = { ours: [] as number[], ref: [] as number[] };
    const rss = { ours: [] as number[], ref: [] as number[], libOurs: [] as number[] };
    const max = String(files + 10);
    for (let r = 0; r < REPEAT; r++) {
      const a = await run(
        [Deno.execPath(), "run", "-A", new URL(import.meta.url).pathname, "--child", dir],
        { rss: true },
      );
      expectOk(a, "library hashing");
      const b = await run(["node", `${REF}/skill_hash.mjs`, dir], { rss: true });
      expectOk(b, "reference hashing");
      const ourHash = a.stdout.trim();
      if (!b.stdout.includes(`skill_hash ${ourHash} `)) {
        throw new Error(`skill_hash differs: ${ourHash} vs ${b.stdout.slice(-120)}`);
      }
      lib.ours.push(Number(/in ([\d.]+) ms/.exec(a.stderr)![1]));
      lib.ref.push(Number(/in ([\d.]+) ms/.exec(b.stderr)![1]));
      rss.libOurs.push(a.rssKiB ?? NaN);
      const c = await run(cli("hash-skill", dir, "--max-entries", max), { rss: true });
      expectOk(c, "hash-skill");
      end.ours.push(c.ms);
      end.ref.push(b.ms);
      rss.ours.push(c.rssKiB ?? NaN);
      rss.ref.push(b.rssKiB ?? NaN);
    }
    const mib = (k: number[]) => `${(median(k) / 1024).toFixed(0)} MiB`;
    row(`skill hashing, ${label}, library (in process)`, lib.ours, lib.ref);
    row(
      `skill hashing, ${label}, CLI end to end`,
      end.ours,
      end.ref,
      `peak RSS: CLI ${mib(rss.ours)}, library ${mib(rss.libOurs)}, reference ${mib(rss.ref)}`,
    );
    await rm(dir);
  }
}

async function digestRow() {
  const r = await run([
    Deno.execPath(),
    "run",
    "-A",
    "--v8-flags=--expose-gc",
    new URL(import.meta.url).pathname,
    "--digest-child",
    "--repeat",
    String(Math.max(REPEAT, 15)),
  ]);
  expectOk(r, "digest child");
  const { verifyPath, initPath, ref } = JSON.parse(r.stdout);
  row(
    "contract digests, 1,000 tools, as verify uses them (tool + server digests)",
    verifyPath,
    ref,
    "naive: tool + 5 field digests each",
  );
  row(
    "contract digests, 1,000 tools, as init writes them (+ 5 field digests each)",
    initPath,
    ref,
    "both: tool + field + server digests",
  );
}

/** A naive independent contract digest: sorted copy + JSON.stringify + createHash per value. */
async function digestTimes(repeat: number) {
  const { createHash } = await import("node:crypto");
  const sortDeep = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortDeep);
    if (v !== null && typeof v === "object") {
      const o: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) o[k] = sortDeep((v as Record<string, unknown>)[k]);
      return o;
    }
    return v;
  };
  const digest = (v: unknown) =>
    "sha256:" + createHash("sha256").update(JSON.stringify(sortDeep(v))).digest("hex");
  const naive = (tools: Record<string, unknown>[]) => {
    const map: Record<string, string> = {};
    for (const t of tools) {
      const contract = {
        name: t.name,
        description: t.description ?? null,
        inputSchema: t.inputSchema ?? null,
        outputSchema: t.outputSchema ?? null,
        annotations: t.annotations ?? null,
      };
      map[t.name as string] = digest(contract);
      for (const k of Object.keys(contract)) digest((contract as Record<string, unknown>)[k]);
    }
    return digest(map);
  };
  const tools = Array.from({ length: 1000 }, (_, i) => ({
    name: `tool_${i}`,
    title: `Tool ${i}`,
    description: `Does thing number ${i}. `.repeat(8),
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
  const withFields = () => {
    for (const t of digestToolList(tools).tools.values()) t.fields;
  };
  // Interleaved: 5 calls of each in turn per round, after a warm-up; ms per call.
  const fns = [() => digestToolList(tools), withFields, () => naive(tools)];
  const times: number[][] = [[], [], []];
  for (const f of fns) for (let i = 0; i < 5; i++) f();
  for (let r = 0; r < repeat; r++) {
    fns.forEach((f, i) => {
      (globalThis as { gc?: () => void }).gc?.(); // no garbage of the previous one counted here
      const t = performance.now();
      for (let k = 0; k < 5; k++) f();
      times[i].push((performance.now() - t) / 5);
    });
  }
  const [verifyPath, initPath, ref] = times;
  return { verifyPath, initPath, ref };
}

async function startRows(base: string) {
  const dir = `${base}/start`;
  await makeSchemas(dir, 1);
  const schema = `${dir}/schemas/tool_000000.json`;
  const ours: number[] = [];
  const ref: number[] = [];
  const oneRef = `${dir}/one.mjs`;
  // A Node verification of one schema with the same steps as bench/reference/verify_batch.mjs.
  await Deno.writeTextFile(
    oneRef,
    `import "${REF}/common.mjs";\n` +
      `process.argv = [process.argv[0], "x", "${dir}/schemas", "${dir}/schemas", ` +
      `"${dir}/discovery.json", "${dir}/ref-pins.json", "${DOMAIN}"];\n` +
      `await import("${REF}/verify_batch.mjs");\n`,
  );
  for (let r = 0; r < Math.max(REPEAT, 5); r++) {
    const a = await run(
      cli(
        "verify-schema",
        schema,
        "--signature-file",
        `${schema}.sig`,
        "--domain",
        DOMAIN,
        "--discovery",
        `${dir}/discovery.json`,
        "--pin-store",
        `${dir}/pins.json`,
        "--trust-first-use",
      ),
    );
    expectOk(a, "verify-schema one");
    const b = await run(["node", oneRef]);
    expectOk(b, "reference one");
    ours.push(a.ms);
    ref.push(b.ms);
  }
  row("CLI start + one verify-schema", ours, ref);
  console.log("\nstart-up per command (`schemapin <command> --help`, median of 5):");
  const lines: string[] = [];
  for (const entry of COMMAND_ENTRIES) {
    const times: number[] = [];
    for (let r = 0; r < 5; r++) {
      const a = await run(cli(entry.name, "--help"));
      expectOk(a, `${entry.name} --help`);
      times.push(a.ms);
    }
    lines.push(`  ${entry.name.padEnd(14)} ${fmtMs(median(times))} (${range(times)})`);
  }
  const times: number[] = [];
  for (let r = 0; r < 5; r++) times.push((await run(cli("--version"))).ms);
  lines.push(`  ${"--version".padEnd(14)} ${fmtMs(median(times))} (${range(times)})`);
  const node: number[] = [];
  for (let r = 0; r < 5; r++) node.push((await run(["node", "-e", "0"])).ms);
  lines.push(`  ${"node -e 0".padEnd(14)} ${fmtMs(median(node))} (${range(node)})`);
  const deno: number[] = [];
  for (let r = 0; r < 5; r++) deno.push((await run([Deno.execPath(), "eval", "0"])).ms);
  lines.push(`  ${"deno eval 0".padEnd(14)} ${fmtMs(median(deno))} (${range(deno)})`);
  console.log(lines.join("\n"));
}

const base = await Deno.makeTempDir({ prefix: "schemapin-cli-scale-" });
try {
  console.log(
    `cli_scale: ${Deno.build.target}, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} ` +
      `cores, ${REPEAT} repeats, alternating project and reference; ${new Date().toISOString()}`,
  );
  if (ROWS.has("verify")) await verifyRows(base);
  if (ROWS.has("lineage")) await lineageRows(base);
  if (ROWS.has("sign")) await signRows(base);
  if (ROWS.has("skill")) await skillRows(base);
  if (ROWS.has("digest")) await digestRow();
  if (ROWS.has("start")) await startRows(base);
  console.log();
  printTable();
} finally {
  await rm(base);
}
