/**
 * Long differential run: `deno task fuzz [--cases N] [--seconds S] [--seed S] [--start I]
 * [--examples K] [--shrink-ms MS] [--fresh-shrink-ms MS] [--probe-runtime]`.
 *
 * Runs N cases (default 1,000,000; or until S seconds have passed) of the generator sequence
 * `seed` (default: a random seed, printed) starting at case I, comparing the library with the
 * independent oracle exactly as differential_test.ts does; prints progress, and for each new
 * kind of disagreement the seed, case index and a minimized input. Exit status 1 when the two
 * disagreed on any case. Replay one case: `deno task fuzz --seed S --start I --cases 1`.
 *
 * @module
 */
import { formatMismatch, formatStats, runDifferential } from "./differential.ts";

const USAGE = "usage: deno task fuzz [--cases N] [--seconds S] [--seed S] [--start I] " +
  "[--examples K] [--shrink-ms MS] [--fresh-shrink-ms MS] [--probe-runtime]";

function parseArgs(args: string[]) {
  const opts = {
    cases: 1_000_000,
    seconds: 0,
    seed: crypto.getRandomValues(new Uint32Array(1))[0],
    start: 0,
    examples: 10,
    shrinkMs: 5000,
    freshShrinkMs: 30_000,
    probeRuntime: false,
  };
  const numeric: Record<string, keyof typeof opts> = {
    "--cases": "cases",
    "--seconds": "seconds",
    "--seed": "seed",
    "--start": "start",
    "--examples": "examples",
    "--shrink-ms": "shrinkMs",
    "--fresh-shrink-ms": "freshShrinkMs",
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const [flag, inline] = a.includes("=") ? a.split(/=(.*)/s, 2) : [a, undefined];
    if (flag === "--probe-runtime") {
      opts.probeRuntime = true;
      continue;
    }
    if (flag === "--help" || flag === "-h") {
      console.log(USAGE);
      Deno.exit(0);
    }
    const key = numeric[flag];
    const text = inline ?? args[++i];
    const value = Number(text);
    if (!key || text === undefined || !Number.isInteger(value) || value < 0) {
      console.error(`fuzz: bad argument ${JSON.stringify(a)}\n${USAGE}`);
      Deno.exit(2);
    }
    (opts[key] as number) = value;
  }
  if (opts.seconds > 0 && !args.some((a) => a.startsWith("--cases"))) {
    opts.cases = Number.MAX_SAFE_INTEGER;
  }
  return opts;
}

const opts = parseArgs(Deno.args);
console.log(
  `fuzz: seed ${opts.seed}, cases ${opts.start}..` +
    (opts.cases === Number.MAX_SAFE_INTEGER ? "" : `${opts.start + opts.cases - 1}`) +
    (opts.seconds ? `, at most ${opts.seconds} s` : ""),
);

const stats = await runDifferential({
  seed: opts.seed,
  cases: opts.cases,
  start: opts.start,
  seconds: opts.seconds || undefined,
  maxExamples: opts.examples,
  shrinkMs: opts.shrinkMs,
  freshShrinkMs: opts.freshShrinkMs,
  probeRuntime: opts.probeRuntime,
  progressEveryMs: 10_000,
  onProgress: (s) =>
    console.log(
      `  ${s.cases} cases, ${(s.ms / 1000).toFixed(0)} s, ` +
        `${Math.round(s.cases / (s.ms / 1000))}/s, mismatches ${s.mismatches}` +
        (opts.probeRuntime ? `, runtime JSON.parse misreads ${s.runtimeMisreads}` : ""),
    ),
  onExample: (m) => console.log(formatMismatch(m)),
});

console.log(formatStats(stats));
Deno.exit(stats.mismatches > 0 ? 1 : 0);
