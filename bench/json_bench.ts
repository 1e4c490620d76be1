/**
 * Canonicalization speed against the naive approach the reference SDKs use (copy the object
 * recursively with sorted keys, then JSON.stringify), side by side in one run. Run with
 * `deno task bench` (or `deno bench bench/json_bench.ts`).
 */
import { parseJson } from "../lib/json/parse.ts";
import { canonicalizeSchemapinV1 } from "../lib/json/canonical_schemapin.ts";
import { canonicalizeJcs } from "../lib/json/canonical_jcs.ts";

/** A typical MCP tool: ~20 names at the top and nested input schema. */
const tool = {
  name: "search_files",
  title: "Search files",
  description: "Search files under a root directory for a pattern. Returns matching paths " +
    "with line numbers; use maxResults to bound the output. Café, naïve, 中文.",
  inputSchema: {
    type: "object",
    $schema: "http://json-schema.org/draft-07/schema#",
    additionalProperties: false,
    properties: {
      root: { type: "string", description: "Directory to search", minLength: 1 },
      pattern: { type: "string", description: "Regular expression", format: "regex" },
      maxResults: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
      caseSensitive: { type: "boolean", default: false },
      include: { type: "array", items: { type: "string" }, description: "Globs to include" },
      exclude: { type: "array", items: { type: "string" }, description: "Globs to exclude" },
      context: {
        type: "object",
        properties: { before: { type: "integer" }, after: { type: "integer" } },
      },
      threshold: { type: "number", minimum: 0, maximum: 1, multipleOf: 0.01 },
    },
    required: ["root", "pattern"],
  },
  outputSchema: {
    type: "object",
    properties: {
      matches: {
        type: "array",
        items: {
          type: "object",
          properties: { path: { type: "string" }, line: { type: "integer" } },
        },
      },
    },
  },
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
  _meta: { "vendor.example/version": "1.2.3" },
};
const bytes = new TextEncoder().encode(JSON.stringify(tool, null, 2));
const decoder = new TextDecoder();

function sortedCopy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedCopy);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) out[k] = sortedCopy((v as Record<string, unknown>)[k]);
    return out;
  }
  return v;
}
const naive = (v: unknown) => JSON.stringify(sortedCopy(v));

if (canonicalizeSchemapinV1(tool) !== naive(tool)) throw new Error("outputs differ");

Deno.bench("naive: sorted copy + JSON.stringify", { group: "canonicalize", baseline: true }, () => {
  naive(tool);
});
Deno.bench("canonicalizeSchemapinV1", { group: "canonicalize" }, () => {
  canonicalizeSchemapinV1(tool);
});
Deno.bench("canonicalizeJcs", { group: "canonicalize" }, () => {
  canonicalizeJcs(tool);
});

Deno.bench("naive: decode + JSON.parse + sorted copy + stringify", {
  group: "bytes",
  baseline: true,
}, () => {
  naive(JSON.parse(decoder.decode(bytes)));
});
Deno.bench("strict parseJson + canonicalizeSchemapinV1", { group: "bytes" }, () => {
  canonicalizeSchemapinV1(parseJson(bytes));
});
Deno.bench("strict parseJson only", { group: "bytes" }, () => {
  parseJson(bytes);
});
