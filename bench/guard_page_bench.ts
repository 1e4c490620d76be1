/**
 * One page of signed tools through the guard's policy (`GuardPolicy.checkTools`, in process):
 * the first sighting (every tool pinned on first use and, with `--lineage`, anchored in a file
 * lineage store) and the same page again (everything unchanged). Issue 27: a page reads the pin
 * store and the lineage store once and writes its pins and lineage advances at its end, one
 * transaction each; before, every tool rewrote the lineage file and re-read the pin store.
 *
 * Not a `deno bench` file (it prints a report); run it with
 *
 *   deno run --allow-read --allow-write --allow-env bench/guard_page_bench.ts --tools 10000 [--lineage]
 *
 * @module
 */
import { parseArgs } from "node:util";
import { generateKeyPair } from "../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../lib/discovery/document.ts";
import { GuardPolicy } from "../lib/guard/policy.ts";
import { signToolList } from "../lib/guard/signatures.ts";
import { LineageStore } from "../lib/pins/lineage.ts";
import { MemoryPinStore } from "../lib/pins/store.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { tools: { type: "string", default: "10000" }, lineage: { type: "boolean" } },
});
const n = Number(values.tools);
if (!Number.isInteger(n) || n < 1) throw new Error(`--tools must be a positive integer`);

const key = generateKeyPair();
const DOMAIN = "example.com";
const { tools } = signToolList(
  Array.from({ length: n }, (_, i) => ({
    name: `t${i}`,
    description: "d",
    inputSchema: { type: "object" },
  })),
  key,
  { domain: DOMAIN },
);
const dir = await Deno.makeTempDir({ prefix: "schemapin-guard-page-" });
try {
  const policy = new GuardPolicy({
    signatures: {
      domain: DOMAIN,
      discovery: buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Bench" }),
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
      ...(values.lineage ? { lineage: new LineageStore({ path: `${dir}/lineage.json` }) } : {}),
    },
  });
  for (const what of ["first sighting", "unchanged"]) {
    const t = performance.now();
    const verdicts = await policy.checkTools(tools, new Map());
    const seconds = ((performance.now() - t) / 1000).toFixed(2);
    const failed = verdicts.filter((v) => !v.ok).length;
    console.log(
      `guard page of ${n} signed tools${values.lineage ? ", lineage" : ""}, ${what}: ` +
        `${seconds} s (${failed} failed)`,
    );
    if (failed > 0) throw new Error(`${failed} tools failed`);
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
