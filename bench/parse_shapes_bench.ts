/**
 * The strict parser against the runtime's `JSON.parse` on the same bytes, one group per shape
 * of input (issue 12 §3): every shape must cost time linear in its size, wide objects and
 * escape-heavy strings included. The ratio in each group's summary is the figure README
 * quotes. Run with `deno bench bench/parse_shapes_bench.ts`.
 *
 * `JSON.parse` here is only the yardstick; the library never uses it (see lib/json/parse.ts).
 */
import { parseJson } from "../lib/json/parse.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** About 4 MiB of each shape; the 32 MiB figures come from bench/parse_scale.ts. */
export const SHAPES: Record<string, (mib: number) => string> = {
  "tool list (1,000s of MCP tools)": (mib) => {
    const tool = (i: number) => ({
      name: `tool_${i}`,
      description: "Search files under a root directory.\nReturns matching paths. Café 中文",
      inputSchema: {
        type: "object",
        properties: {
          root: { type: "string", description: "Directory", minLength: 1 },
          maxResults: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
          threshold: { type: "number", multipleOf: 0.01 },
        },
        required: ["root"],
      },
      annotations: { readOnlyHint: true },
    });
    const tools = [];
    for (let i = 0, size = 0; size < mib << 20; i++) {
      const t = tool(i);
      size += JSON.stringify(t).length;
      tools.push(t);
    }
    return JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools } });
  },
  "wide object (one object, many names)": (mib) => {
    const parts: string[] = [];
    for (let i = 0, size = 0; size < mib << 20; i++) {
      const p = `"name_${i}":${i}`;
      size += p.length + 1;
      parts.push(p);
    }
    return `{${parts.join(",")}}`;
  },
  "many small objects": (mib) => {
    const parts: string[] = [];
    for (let i = 0, size = 0; size < mib << 20; i++) {
      const p = `{"a":${i},"b":"x${i}","c":[1,2.5,true,null]}`;
      size += p.length + 1;
      parts.push(p);
    }
    return `[${parts.join(",")}]`;
  },
  "long string": (mib) => JSON.stringify(["x".repeat(mib << 20)]),
  "escape-heavy string": (mib) => JSON.stringify(['a\nb"c\\d\u0001é'.repeat((mib << 20) / 14)]),
  "escaped names (the JSON.parse defect's shape)": (mib) => {
    const parts: string[] = [];
    for (let i = 0, size = 0; size < mib << 20; i++) {
      const p = `{"x":${i},"k\\n${i}":1,"k\\t${i}":2}`;
      size += p.length + 1;
      parts.push(p);
    }
    return `[${parts.join(",")}]`;
  },
  "deep arrays (depth 1000, repeated)": (mib) => {
    const one = "[".repeat(999) + "1" + "]".repeat(999);
    return `[${Array((mib << 20) / one.length | 0).fill(one).join(",")}]`;
  },
  "numbers": (mib) => {
    const parts: string[] = [];
    for (let i = 0, size = 0; size < mib << 20; i++) {
      const p = String(i % 3 === 0 ? i : i % 3 === 1 ? i / 7 : -i * 1e300);
      size += p.length + 1;
      parts.push(p);
    }
    return `[${parts.join(",")}]`;
  },
};

for (const [shape, make] of Object.entries(SHAPES)) {
  const bytes = encoder.encode(make(4));
  Deno.bench(`JSON.parse (yardstick)`, { group: shape, baseline: true }, () => {
    JSON.parse(decoder.decode(bytes));
  });
  Deno.bench(`parseJson`, { group: shape }, () => {
    parseJson(bytes);
  });
}
