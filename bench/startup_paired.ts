/**
 * Start-up of a one-shot `verify-schema`, paired against another checkout (issue 36 item 6).
 *
 * Each pair runs this checkout's `cli.ts` and the base checkout's `cli.ts` on the same inputs, in
 * alternating order, each with the flags of its own `schemapin` task (as its users run it),
 * timed from the shell's side: process start to exit. It prints the median of each side,
 * the median of the paired differences, and how many of this project's modules each side loads for
 * the command: the static imports of `cli.ts` plus those of the command module the registry loads.
 * Imports that a run does not evaluate are not counted: `import type` (erased, never read) and
 * dynamic imports the run does not take. (`deno run` still reads and parses the target of every
 * literal dynamic `import()` when it builds the module graph, unless run with
 * `--unstable-lazy-dynamic-imports`, which this project's task has had since issue 36: `--flags`
 * adds Deno flags to both sides, `--this-flags` to this checkout's only.)
 * Benchmarks print figures; nothing here is a timed assertion.
 *
 *   git worktree add /tmp/base cfee898
 *   deno run -A bench/startup_paired.ts --base /tmp/base            # 21 pairs, 0 and 2,000 pins
 *   deno run -A bench/startup_paired.ts --base /tmp/base --pairs 41 --pins 0
 *   deno run -A bench/startup_paired.ts --base /tmp/base --flags=--unstable-lazy-dynamic-imports
 *   deno run -A bench/startup_paired.ts --base /tmp/base --this-flags=--unstable-lazy-dynamic-imports
 *   git worktree remove --force /tmp/base
 *
 * @module
 */
import { parseArgs } from "node:util";
import { generateKeyPair } from "../lib/crypto/keys.ts";
import { signSchemaBase64 } from "../lib/schema/document.ts";
import { childCommand } from "../tests/process.ts";

const HERE = new URL("../", import.meta.url).pathname.replace(/\/$/, "");
const { values } = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string" },
    pairs: { type: "string", default: "21" },
    pins: { type: "string", default: "0,2000" },
    flags: { type: "string", default: "" },
    "this-flags": { type: "string", default: "" },
  },
});
if (values.base === undefined) {
  console.error("usage: deno run -A bench/startup_paired.ts --base OTHER_CHECKOUT [--pairs N]");
  Deno.exit(2);
}
const BASE = values.base.replace(/\/$/, "");
const PAIRS = Number(values.pairs);
const PIN_COUNTS = values.pins.split(",").map(Number);
const DOMAIN = "bench.example";
/** Each checkout runs with its own `schemapin` task's flags, as its users run it. */
const taskFlags = (dir: string): string[] =>
  JSON.parse(Deno.readTextFileSync(`${dir}/deno.json`)).tasks.schemapin
    .split(/\s+/).slice(2, -1) as string[];
/** Deno flags for both sides (`--flags=`). */
const FLAGS = values.flags.split(/\s+/).filter((f) => f !== "");
/** Deno flags for this checkout only: what a change of the task's flags would do. */
const THIS_FLAGS = values["this-flags"].split(/\s+/).filter((f) => f !== "");

/** The verify-schema command module of a checkout (it moved from lib/cli/ to cli/commands/). */
function commandModule(dir: string): string {
  for (const f of ["cli/commands/verify_schema.ts", "lib/cli/verify_schema.ts"]) {
    try {
      Deno.statSync(`${dir}/${f}`);
      return f;
    } catch { /* try the next layout */ }
  }
  throw new Error(`${dir} has no verify_schema.ts command module`);
}

/** This project's modules a one-shot command loads: static closure of cli.ts and the command. */
async function moduleCount(dir: string): Promise<number> {
  const seen = new Set<string>();
  for (const entry of ["cli.ts", commandModule(dir)]) {
    const out = await childCommand(Deno.execPath(), { args: ["info", "--json", entry], cwd: dir })
      .output();
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      roots: string[];
      modules: {
        specifier: string;
        dependencies?: {
          isDynamic?: boolean;
          code?: { specifier: string };
        }[];
      }[];
    };
    const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
    const queue = [...info.roots];
    for (let i = 0; i < queue.length; i++) {
      if (seen.has(queue[i])) continue;
      seen.add(queue[i]);
      for (const d of bySpecifier.get(queue[i])?.dependencies ?? []) {
        // A type-only import has no `code` side: erased, it is never loaded.
        if (!d.isDynamic && d.code) queue.push(d.code.specifier);
      }
    }
  }
  return [...seen].filter((s) => s.startsWith("file://")).length;
}

/** Milliseconds from spawn to exit; fails on a non-zero exit. */
async function timed(dir: string, args: string[]): Promise<number> {
  const t = performance.now();
  const r = await childCommand(Deno.execPath(), {
    args: [
      "run",
      ...taskFlags(dir),
      ...FLAGS,
      ...(dir === HERE ? THIS_FLAGS : []),
      `${dir}/cli.ts`,
      ...args,
    ],
  }).output();
  const ms = performance.now() - t;
  if (r.code !== 0) {
    throw new Error(`${dir}: exit ${r.code}: ${new TextDecoder().decode(r.stderr)}`);
  }
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const work = await Deno.makeTempDir({ prefix: "schemapin-startup-" });
try {
  const key = generateKeyPair();
  await Deno.writeTextFile(
    `${work}/discovery.json`,
    JSON.stringify({
      schema_version: "1.4",
      developer_name: "Bench Corp",
      public_key_pem: key.publicKey.pem,
      revoked_keys: [],
    }),
  );
  const schemaFor = (i: number) => ({
    name: `tool_${String(i).padStart(6, "0")}`,
    description: "Adds two numbers",
    inputSchema: { type: "object", properties: { a: { type: "number" } } },
  });
  console.log(
    `startup_paired: ${Deno.build.target}, Deno ${Deno.version.deno}, ` +
      `${navigator.hardwareConcurrency} cores, ${PAIRS} pairs, order alternating` +
      (values.flags ? `, flags ${values.flags}` : "") +
      (values["this-flags"] ? `, this checkout's flags ${values["this-flags"]}` : ""),
  );
  console.log(`  this checkout: ${HERE}: ${await moduleCount(HERE)} modules for verify-schema`);
  console.log(`  base checkout: ${BASE}: ${await moduleCount(BASE)} modules for verify-schema`);
  for (const pins of PIN_COUNTS) {
    // A store of `pins` pins: tools 1..pins first used through a batch verify of this checkout,
    // then tool 0, the one every timed run verifies (already pinned: a steady-state verify).
    const dir = `${work}/pins-${pins}`;
    await Deno.mkdir(`${dir}/batch`, { recursive: true });
    for (let i = 0; i <= pins; i++) {
      const schema = schemaFor(i);
      const file = i === 0 ? `${dir}/one.json` : `${dir}/batch/${schema.name}.json`;
      await Deno.writeTextFile(file, JSON.stringify(schema));
      await Deno.writeTextFile(`${file}.sig`, signSchemaBase64(schema, key) + "\n");
    }
    const trust = ["--domain", DOMAIN, "--discovery", `${work}/discovery.json`];
    const store = ["--pin-store", `${dir}/pins.json`, "--trust-first-use"];
    if (pins > 0) {
      await timed(HERE, ["verify-schema", "--batch", `${dir}/batch`, ...trust, ...store, "-q"]);
    }
    const one = ["verify-schema", `${dir}/one.json`, "--signature-file", `${dir}/one.json.sig`];
    await timed(HERE, [...one, ...trust, ...store]);
    for (const dirOf of [HERE, BASE]) await timed(dirOf, [...one, ...trust, ...store]); // warm
    const ours: number[] = [];
    const base: number[] = [];
    const diffs: number[] = [];
    for (let p = 0; p < PAIRS; p++) {
      const first = p % 2 === 0 ? HERE : BASE;
      const second = first === HERE ? BASE : HERE;
      const a = await timed(first, [...one, ...trust, ...store]);
      const b = await timed(second, [...one, ...trust, ...store]);
      const [o, s] = first === HERE ? [a, b] : [b, a];
      ours.push(o);
      base.push(s);
      diffs.push(o - s);
    }
    console.log(
      `  ${pins} pins: this ${median(ours).toFixed(1)} ms, base ${median(base).toFixed(1)} ms, ` +
        `median paired difference ${median(diffs) >= 0 ? "+" : ""}${median(diffs).toFixed(1)} ms`,
    );
  }
} finally {
  await Deno.remove(work, { recursive: true });
}
