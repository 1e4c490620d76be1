/**
 * Node smoke test of the pure core: bundled with `deno bundle` and run under `node` by
 * tests/node/node_test.ts. It must not touch any Deno-only API. Prints "core ok" on success;
 * throws (non-zero exit) on the first mismatch.
 */
import { generateKeyPair, parseJson } from "../../mod.ts";
import { parsePublicKeyPem, privateKeyToPem } from "../../keys.ts";
import { canonicalizeSchemapinV1Bytes, signSchema, verifySchemaSignature } from "../../schema.ts";
import {
  MemoryBundleAuthorityStore,
  seedBundleAuthority,
  verifyTrustBundle,
} from "../../bundle.ts";
import { digestToolList } from "../../contractpin.ts";
// Internal since issue 25 (not on the entry points), still part of the pure core checked here.
import { signDocument, verifyDocumentSignature } from "../../lib/crypto/ecdsa.ts";
import { createTrustBundle } from "../../lib/bundle/bundle.ts";
import { signTrustBundle } from "../../lib/bundle/sign.ts";
import { canonicalizeJcs } from "../../lib/json/canonical_jcs.ts";
import { projectContract } from "../../lib/contractpin/contract.ts";
import { toolDigest } from "../../lib/contractpin/digest.ts";

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`core smoke: ${what}`);
}

const enc = new TextEncoder();
const schema = parseJson(enc.encode('{"name":"add","__proto__":{"x":1},"b":[1.0,-0,1e-7]}'));
const canonical = canonicalizeSchemapinV1Bytes(schema);
check(
  new TextDecoder().decode(canonical) === '{"__proto__":{"x":1},"b":[1,0,1e-7],"name":"add"}',
  "schemapin-v1 canonical bytes",
);
check(canonicalizeJcs({ b: 1e21, a: 1 }) === '{"a":1,"b":1e+21}', "JCS");

const key = generateKeyPair();
const pub = parsePublicKeyPem(key.publicKey.pem);
check(verifySchemaSignature(canonical, signSchema(canonical, key), pub).valid, "schema signature");
check(!verifySchemaSignature(enc.encode("{}"), signSchema(canonical, key), pub).valid, "tamper");
check(verifyDocumentSignature(canonical, signDocument(canonical, key), pub).valid, "document");
check(privateKeyToPem(key).startsWith("-----BEGIN PRIVATE KEY-----"), "PKCS#8 export");

const tool = { name: "echo", title: "Echo", description: "Echo", inputSchema: { type: "object" } };
const list = digestToolList([tool]);
check(list.tools.get("echo")?.digest === toolDigest(projectContract(tool)), "contract digest");

const bundle = createTrustBundle("2026-01-01T00:00:00Z");
const signed = signTrustBundle(bundle, privateKeyToPem(key), "smoke", "2026-01-01T00:00:00Z");
const store = new MemoryBundleAuthorityStore();
await seedBundleAuthority(store, "smoke", key.publicKey.fingerprint);
const verified = await verifyTrustBundle(signed, store);
check(verified.valid === true, `trust bundle: ${JSON.stringify(verified)}`);

console.log("core ok");
