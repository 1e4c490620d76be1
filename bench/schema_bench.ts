// End-to-end offline schema verification (§15.1): discovery PEM → fingerprint → revocation →
// pin → canonicalize → verify. Run: deno bench --allow-read --allow-env bench/schema_bench.ts
// (add --allow-write to include the file-backed pin store). Verifications/s = 1e9 / avg ns.
// "cold": the cache of successful ECDSA checks is cleared before every call, so each call does
// the full elliptic-curve verification; "warm": a client re-verifying schemas it has seen
// (discovery, revocation, pin, canonicalization, hash and expiry still run every time).
import { generateKeyPair } from "../lib/crypto/keys.ts";
import { FilePinStore, MemoryPinStore } from "../lib/pins/store.ts";
import { signSchemaBase64, signSchemaDocument } from "../lib/schema/document.ts";
import { clearSignatureCheckCache, verifySchemaOffline } from "../lib/schema/verify.ts";

const key = generateKeyPair();
const discovery = {
  schema_version: "1.4",
  developer_name: "Bench Corp",
  public_key_pem: key.publicKey.pem,
  revoked_keys: ["sha256:" + "0".repeat(64)],
};

function schemaFor(i: number) {
  return {
    name: `tool_${i}`,
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
    annotations: { readOnlyHint: true, openWorldHint: false },
  };
}

const one = schemaFor(0);
const oneSig = signSchemaBase64(one, key);
const oneDoc = signSchemaDocument(one, key, { expiresAt: Date.now() + 86_400_000 * 365 });
const N = 1000;
const many = Array.from({ length: N }, (_, i) => {
  const schema = schemaFor(i);
  return { schema, signature: signSchemaBase64(schema, key), toolId: `tool_${i}` };
});

const store = new MemoryPinStore();
const base = { domain: "example.com", discovery, pinStore: store, trustFirstUse: true };
// Pin everything once (first use), so the benchmarks measure the steady state.
await verifySchemaOffline({ ...base, schema: one, signature: oneSig, toolId: "tool_0" });
for (const t of many) await verifySchemaOffline({ ...base, ...t });

async function check(p: Promise<{ valid: boolean; errorMessage?: string }>) {
  const r = await p;
  if (!r.valid) throw new Error(r.errorMessage);
}

for (const mode of ["cold", "warm"] as const) {
  const prep = mode === "cold" ? clearSignatureCheckCache : () => {};
  Deno.bench(`${mode}: one tool, bare signature`, { group: mode }, async () => {
    prep();
    await check(verifySchemaOffline({ ...base, schema: one, signature: oneSig, toolId: "tool_0" }));
  });
  Deno.bench(`${mode}: one tool, 1.4 document with expiry`, { group: mode }, async () => {
    prep();
    await check(verifySchemaOffline({ ...base, schema: one, signature: oneDoc, toolId: "tool_0" }));
  });
  let i = 0;
  Deno.bench(`${mode}: 1,000 distinct tools, one key (round robin)`, { group: mode }, async () => {
    prep();
    const t = many[i++ % N];
    await check(verifySchemaOffline({ ...base, ...t }));
  });
}

const canWrite = Deno.permissions.querySync({ name: "write" }).state === "granted";
if (canWrite) {
  const dir = Deno.makeTempDirSync({ prefix: "schemapin-bench-" });
  const fileStore = new FilePinStore(`${dir}/pins.json`);
  const fileBase = { ...base, pinStore: fileStore };
  for (const t of many) await verifySchemaOffline({ ...fileBase, ...t });
  let j = 0;
  Deno.bench("cold: 1,000 tools, file pin store of 1,000 pins", { group: "file" }, async () => {
    clearSignatureCheckCache();
    const t = many[j++ % N];
    await check(verifySchemaOffline({ ...fileBase, ...t }));
  });
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
}
