/**
 * How the strict parser's cost grows: each shape of bench/parse_shapes_bench.ts at 8, 16 and
 * 32 MiB (the MCP message cap), timed against `JSON.parse` on the same bytes. Linear growth
 * means the 32 MiB time is about 4× the 8 MiB time. Prints a table; asserts nothing.
 *
 * Run with `deno run bench/parse_scale.ts [shape-substring]`.
 */
import { parseJson } from "../lib/json/parse.ts";
import { SHAPES } from "./parse_shapes_bench.ts";

const filter = Deno.args[0] ?? "";
const decoder = new TextDecoder();

/** Best of `runs` timings of `f`, in milliseconds. */
function best(f: () => unknown, runs = 3): number {
  let min = Infinity;
  for (let k = 0; k < runs; k++) {
    const t = performance.now();
    f();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

console.log("shape | MiB | parseJson ms | JSON.parse ms | ratio (JSON.parse / parseJson)");
for (const [shape, make] of Object.entries(SHAPES)) {
  if (!shape.includes(filter)) continue;
  for (const mib of [8, 16, 32]) {
    const bytes = new TextEncoder().encode(make(mib));
    const ours = best(() => parseJson(bytes));
    const native = best(() => JSON.parse(decoder.decode(bytes)));
    console.log(
      `${shape} | ${(bytes.length / 2 ** 20).toFixed(1)} | ${ours.toFixed(0)} | ` +
        `${native.toFixed(0)} | ${(native / ours).toFixed(2)}`,
    );
  }
}
