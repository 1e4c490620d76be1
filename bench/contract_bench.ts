/**
 * contractpin digest and lock throughput: `deno bench --allow-read --allow-env bench/`.
 */
import { digestToolList } from "../lib/contractpin/digest.ts";
import { buildLock, lockServerEntry, parseLock, serializeLock } from "../lib/contractpin/lock.ts";

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
const list = digestToolList(tools);
const lockBytes = new TextEncoder().encode(
  serializeLock(buildLock({ s: lockServerEntry({ transport: "file", path: "t.json" }, list) })),
);

Deno.bench("contractpin: project + digest 1000 tools (tool, field and server digests)", () => {
  digestToolList(tools);
});

Deno.bench("contractpin: parse and validate a 1000-tool lock", () => {
  parseLock(lockBytes);
});
