/**
 * schemapin — sign and verify MCP tool schemas and skill folders (SchemaPin 1.4).
 *
 * This entry point is the common path: a key, a schema or skill signature, verification against
 * a discovery document with key pinning, and the one error type. Each task has its own entry
 * point with the rest:
 *
 * - `jsr:@schemapin/schemapin` (this): sign and verify a schema or a skill folder, errors,
 *   strict JSON
 * - `jsr:@schemapin/schemapin/schema`: tool schemas — canonical bytes, bare and 1.4 signatures,
 *   the verification options and results
 * - `jsr:@schemapin/schemapin/skill`: skill folders — sign, verify, the signature file
 * - `jsr:@schemapin/schemapin/discovery`: where keys come from — discovery and revocation
 *   documents, resolving a domain's documents over HTTPS
 * - `jsr:@schemapin/schemapin/pins`: the TOFU pin store
 * - `jsr:@schemapin/schemapin/keys`: keys in PEM, encrypted at rest
 * - `jsr:@schemapin/schemapin/bundle`: trust bundles — verify against allow-listed
 *   authorities, resolve from them
 * - `jsr:@schemapin/schemapin/contractpin`: `contractpin.lock` — verify live MCP servers against
 *   it, contract digests
 * - `jsr:@schemapin/schemapin/guard`: the live MCP guard (stdio, HTTP)
 * - `jsr:@schemapin/schemapin/a2a`: agent-to-agent verification — a schema verified within the
 *   domains a calling agent trusts (§20)
 *
 * The functions exported here are also exported by their task entry point, so either import
 * works; their option and result types are in the task entry point only. The error type,
 * {@linkcode parseJson} (strict JSON for untrusted bytes), the JSON types and
 * {@linkcode VERSION} live here only.
 *
 * @example Sign a tool schema, publish the key, verify with pinning on first use
 * ```ts
 * import {
 *   buildDiscoveryDocument,
 *   generateKeyPair,
 *   MemoryPinStore,
 *   signSchemaDocument,
 *   verifySchemaOffline,
 * } from "jsr:@schemapin/schemapin";
 *
 * const schema = { name: "add", description: "Adds two numbers", inputSchema: { type: "object" } };
 * // The publisher: a key, a signature document, and the discovery document it serves at
 * // https://example.com/.well-known/schemapin.json
 * const key = generateKeyPair();
 * const signature = signSchemaDocument(schema, key, { domain: "example.com" });
 * const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Example" });
 *
 * // A client: the seven steps of §15.1, offline
 * const result = await verifySchemaOffline({
 *   schema,
 *   signature,
 *   toolId: "add",
 *   domain: "example.com",
 *   discovery,
 *   pinStore: new MemoryPinStore(),
 *   trustFirstUse: true,
 * });
 * if (!result.valid) throw new Error(`${result.errorCode}: ${result.errorMessage}`);
 * console.log(result.keyPinning); // "first_use"
 * ```
 *
 * @module
 */

// The error type and strict JSON
export { type ErrorCode, type ErrorDetails, SchemaPinError } from "./lib/errors.ts";
export { VERSION } from "./lib/version.ts";
export type { JsonObject, JsonValue } from "./lib/json/types.ts";
export { parseJson } from "./lib/json/parse.ts";

// Keys (§3): reading and writing them is in ./keys
export { generateKeyPair } from "./lib/crypto/keys.ts";

// Sign and verify a tool schema (§4.1, §15) and a skill folder (§4b, §15): the rest is in
// ./schema and ./skill
export { signSchemaDocument } from "./lib/schema/document.ts";
export { verifySchemaOffline } from "./lib/schema/verify.ts";
export { signSkillDir } from "./lib/skill/sign.ts";
export { verifySkillOffline } from "./lib/skill/verify.ts";

// What the publisher serves (§6) and where the client keeps pins (§7.2): the file store and
// the rest are in ./pins
export { buildDiscoveryDocument } from "./lib/discovery/document.ts";
export { MemoryPinStore } from "./lib/pins/store.ts";
