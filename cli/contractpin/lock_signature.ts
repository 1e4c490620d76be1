/**
 * Signed locks (issue 17 item 2): a SchemaPin signature over `contractpin.lock`, so that a lock
 * edited in the repository together with the server it pins is refused.
 *
 * **Format.** The signature is a detached file next to the lock, `<lock>.sig` (default
 * `contractpin.lock.sig`); the lock itself is unchanged and stays the document of contractpin
 * §5. The `.sig` file is exactly a SchemaPin 1.4 *schema signature document*
 * (`lib/schema/document.ts`) whose "schema" is the lock's JSON value:
 *
 * ```json
 * { "schemapin_version": "1.4",
 *   "schema_hash": "sha256:<hex SHA-256 of the schemapin-v1 canonical lock>",
 *   "signature": "<Base64 DER ECDSA P-256>",
 *   "signed_at": "2026-05-01T10:00:00Z",
 *   "expires_at": "2026-11-01T10:00:00Z",   // optional (§16)
 *   "domain": "example.com",                // optional; must equal the verified domain
 *   "signer_kid": "example-2026-05",        // optional
 *   "canonicalization": "schemapin-v1" }    // optional (§19)
 * ```
 *
 * - `schema_hash` covers the lock's *values*: the lock is parsed and canonicalized with
 *   schemapin-v1 (SchemaPin §4), so its formatting — whitespace, key order — is not signed,
 *   as contractpin §5 "Formatting" says of every digest. Reformatting keeps the signature
 *   valid; changing any value (a digest, a command, a server) breaks it.
 * - The signing input is the schema signature document's (§4b.5 style): the document's
 *   present known fields with `signature` set to `""`, canonicalized with schemapin-v1,
 *   signed with ECDSA P-256 / SHA-256. Unknown fields are ignored and unprotected (reported).
 * - Verification is verify-schema's, unchanged (§15.1 via `verifySchemaOffline` or
 *   `verifySchemaWithResolver`): discovery, revocation, the pin, the signature, the hash,
 *   `domain`, expiry (§16.2, 300 s skew) and pinning on first use. Only a 1.4 document is a
 *   lock signature; a bare Base64 signature is refused.
 * - The pin of a lock signing key is `contractpin:lock@DOMAIN`
 *   ({@linkcode LOCK_SIGNATURE_TOOL_ID}): `:` is not allowed in MCP tool names, so the pin of
 *   a lock key never collides with the pin of a tool's key.
 *
 * @module
 */
import { SchemaPinError } from "../../lib/errors.ts";
import { canonicalizeSchemapinV1Bytes } from "../../lib/json/canonical_schemapin.ts";
import { isJsonObject } from "../../lib/json/object.ts";
import type { PrivateKey } from "../../lib/crypto/keys.ts";
import type { Signer } from "../../lib/crypto/signer.ts";
import {
  parseSchemaSignatureDocument,
  type SchemaDocumentOptions,
  schemaHash,
  type SchemaSignatureDocument,
  signSchemaDocument,
  signSchemaDocumentWithSigner,
} from "../../lib/schema/document.ts";
import type { BeforePinHook, OfflineFlowOptions } from "../../lib/schema/flow.ts";
import {
  type SchemaVerificationResult,
  verifySchemaOfflineWithHook,
} from "../../lib/schema/verify.ts";
import {
  type DnsVerifyOptions,
  type SchemaResolverVerificationResult,
  verifySchemaWithResolver,
} from "../../lib/schema/resolver_verify.ts";
import type { SchemaResolver } from "../../lib/discovery/resolvers.ts";
import { parseLock } from "../../lib/contractpin/lock.ts";
import { argumentError, checkArg, checkKeyArg, checkSignerArg } from "../../lib/arguments.ts";

/**
 * The tool id under which the key that signs locks is pinned (`contractpin:lock@DOMAIN`).
 *
 * @example
 * ```ts
 * import { LOCK_SIGNATURE_TOOL_ID } from "./lock_signature.ts";
 * console.log(LOCK_SIGNATURE_TOOL_ID); // "contractpin:lock"
 * ```
 */
export const LOCK_SIGNATURE_TOOL_ID = "contractpin:lock";

/** Metadata for {@linkcode signLock} (the schema signature document's, minus versions). */
export interface LockSignOptions {
  /** Signing time (default now). */
  signedAt?: Date | number;
  /** Expiry time (§16). */
  expiresAt?: Date | number | string;
  /** The signer's domain (validated, §9); verification then requires this domain. */
  domain?: string;
  /** A key id, informational. */
  signerKid?: string;
  /** Declare the canonicalization (§19); only `"schemapin-v1"` exists. Omitted by default. */
  canonicalization?: string;
}

/** Inputs of {@linkcode verifyLockSignature}. */
export interface VerifyLockSignatureOptions extends Omit<OfflineFlowOptions, "discovery"> {
  /** The lock's JSON value (the parsed lock file), as signed. */
  lock: unknown;
  /** The parsed `.sig` document. */
  signature: unknown;
  /** The domain's discovery document (give this or `resolver`). */
  discovery?: unknown;
  /** Where the domain's documents come from (give this or `discovery`). */
  resolver?: SchemaResolver;
  /** With `resolver`: cross-check the key with the DNS TXT record (§17). */
  dns?: DnsVerifyOptions | true;
  /** With `discovery`: run after verification and before a pin is written (DNS, scope). */
  beforePin?: BeforePinHook<SchemaVerificationResult>;
  /** The pin's tool id (default {@linkcode LOCK_SIGNATURE_TOOL_ID}). */
  toolId?: string;
}

/**
 * The result of {@linkcode verifyLockSignature}: verify-schema's result, where `schemaHash`
 * is the hash of the lock (`sha256:` of its schemapin-v1 canonical bytes).
 */
export type LockSignatureResult = SchemaResolverVerificationResult;

/** The lock value, checked to be a contractpin lock (§5); throws `INPUT_INVALID` otherwise. */
function checkedLock(fn: string, lock: unknown): Uint8Array {
  let canonical: Uint8Array;
  try {
    canonical = canonicalizeSchemapinV1Bytes(lock);
  } catch (e) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `${fn}: the lock has no canonical form: ${(e as Error).message}`,
      { argument: "lock" },
    );
  }
  // The canonical bytes are JSON: the lock parser checks the structure strictly.
  parseLock(canonical, `${fn}: lock`);
  return canonical;
}

/**
 * `sha256:` + hex SHA-256 of the schemapin-v1 canonical bytes of a lock — the `schema_hash`
 * a lock signature carries. Throws `SchemaPinError` `INPUT_INVALID` when `lock` is not a
 * contractpin lock (§5).
 *
 * @example
 * ```ts
 * import { lockHash } from "./lock_signature.ts";
 * const lock = JSON.parse(await Deno.readTextFile("contractpin.lock"));
 * console.log(lockHash(lock)); // "sha256:…" — the same for any formatting of the file
 * ```
 */
export function lockHash(lock: unknown): string {
  checkedLock("lockHash", lock);
  return schemaHash(lock);
}

/**
 * Signs a lock: a 1.4 schema signature document over the lock's JSON value (see the module
 * documentation). Write it with `formatSchemaSignatureDocument` to `<lock>.sig`. Throws
 * `SchemaPinError` `INPUT_INVALID` when `lock` is not a contractpin lock (§5) or for bad
 * metadata (an expiry not after `signedAt`, a malformed domain, an empty key id).
 *
 * @example
 * ```ts
 * import { generateKeyPair, parseJson } from "jsr:@schemapin/schemapin";
 * import { formatSchemaSignatureDocument } from "jsr:@schemapin/schemapin/schema";
 * import { signLock } from "./lock_signature.ts";
 * const lock = parseJson(await Deno.readFile("contractpin.lock"), "contractpin.lock");
 * const document = signLock(lock, generateKeyPair(), {
 *   domain: "example.com",
 *   expiresAt: Date.now() + 90 * 86_400_000,
 * });
 * await Deno.writeTextFile("contractpin.lock.sig", formatSchemaSignatureDocument(document));
 * ```
 */
export function signLock(
  lock: unknown,
  privateKey: PrivateKey,
  options: LockSignOptions = {},
): SchemaSignatureDocument {
  checkKeyArg("signLock", "privateKey", privateKey, "private");
  checkArg("signLock", "options", options, "object");
  checkedLock("signLock", lock);
  return signSchemaDocument(lock, privateKey, documentOptions(options));
}

/**
 * {@linkcode signLock} with a `Signer` — a key held elsewhere, such as in an SSH agent
 * (`sshAgentSigner`): the same 1.4 schema signature document over the lock, its signing input
 * given to the signer as the message it hashes and signs.
 *
 * @throws {SchemaPinError} what `signLock` throws, `INPUT_INVALID` for something that is not
 *   a signer, and the signer's errors (`IO_FAILED` from an agent; `KEY_INVALID` for a
 *   signature that does not verify).
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { sshAgentSigner } from "../ssh_agent/client.ts";
 * import { formatSchemaSignatureDocument } from "jsr:@schemapin/schemapin/schema";
 * import { signLockWithSigner } from "./lock_signature.ts";
 * const lock = parseJson(await Deno.readFile("contractpin.lock"), "contractpin.lock");
 * const signer = await sshAgentSigner(await Deno.readTextFile("id_ecdsa.pub"));
 * const document = await signLockWithSigner(lock, signer, { domain: "example.com" });
 * await Deno.writeTextFile("contractpin.lock.sig", formatSchemaSignatureDocument(document));
 * ```
 */
export async function signLockWithSigner(
  lock: unknown,
  signer: Signer,
  options: LockSignOptions = {},
): Promise<SchemaSignatureDocument> {
  checkSignerArg("signLockWithSigner", "signer", signer);
  checkArg("signLockWithSigner", "options", options, "object");
  checkedLock("signLockWithSigner", lock);
  return await signSchemaDocumentWithSigner(lock, signer, documentOptions(options));
}

/** The schema signature document's options of a lock signature (no version fields). */
function documentOptions(options: LockSignOptions): SchemaDocumentOptions {
  const { signedAt, expiresAt, domain, signerKid, canonicalization } = options;
  return {
    ...(signedAt !== undefined ? { signedAt } : {}),
    ...(expiresAt !== undefined ? { expiresAt } : {}),
    ...(domain !== undefined ? { domain } : {}),
    ...(signerKid !== undefined ? { signerKid } : {}),
    ...(canonicalization !== undefined ? { canonicalization } : {}),
  };
}

/**
 * Verifies a lock's signature exactly as `verify-schema` verifies a schema signature
 * (§15.1; see the module documentation), with the key pinned as
 * `contractpin:lock@DOMAIN`. Returns a structured result — `SIGNATURE_INVALID` for a
 * signature that is not a 1.4 document, is malformed, does not verify, or covers another
 * lock ("changed after signing"); `SIGNATURE_EXPIRED`, `KEY_REVOKED`, `KEY_PIN_MISMATCH`,
 * `DOMAIN_MISMATCH`, … as verify-schema. Throws `SchemaPinError` `INPUT_INVALID` on misuse:
 * a `lock` that is not a contractpin lock, both or neither of `discovery` and `resolver`.
 *
 * @example
 * ```ts
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { verifyLockSignature } from "./lock_signature.ts";
 * const read = async (path: string) => parseJson(await Deno.readFile(path), path);
 * const result = await verifyLockSignature({
 *   lock: await read("contractpin.lock"),
 *   signature: await read("contractpin.lock.sig"),
 *   domain: "example.com",
 *   discovery: await read("schemapin.json"), // the domain's /.well-known/schemapin.json
 *   pinStore: new FilePinStore(),
 *   trustFirstUse: true,
 * });
 * if (!result.valid) console.error(result.errorCode, result.errorMessage);
 * ```
 */
export async function verifyLockSignature(
  options: VerifyLockSignatureOptions,
): Promise<LockSignatureResult> {
  checkArg("verifyLockSignature", "options", options, "object");
  const { lock, signature, resolver, dns, beforePin, toolId, discovery, ...flow } = options;
  checkedLock("verifyLockSignature", lock);
  const hasResolver = resolver !== undefined;
  if (hasResolver === (discovery !== undefined)) {
    throw argumentError(
      "verifyLockSignature",
      "options",
      "exactly one of discovery and resolver",
      options,
    );
  }
  if (dns !== undefined && !hasResolver) {
    throw argumentError("verifyLockSignature", "options.dns", "given with a resolver", dns);
  }
  const id = toolId ?? LOCK_SIGNATURE_TOOL_ID;
  const base = { ...flow, schema: lock, toolId: id };
  if (!isJsonObject(signature)) {
    // A bare Base64 string would be read as a v1.3 schema signature: a lock signature is
    // only ever a 1.4 document (its signed_at, expiry, domain and kid are signed).
    return {
      valid: false,
      toolId: id,
      keyPinning: "not_checked",
      warnings: [],
      expired: false,
      signatureFormat: "document",
      errorCode: "SIGNATURE_INVALID",
      errorMessage: `${flow.sources?.signature ?? "the lock signature"} is not a ` +
        `SchemaPin 1.4 signature document (a JSON object)`,
    };
  }
  const result: LockSignatureResult = hasResolver
    ? await verifySchemaWithResolver({
      ...base,
      signature,
      resolver,
      ...(dns !== undefined ? { dns } : {}),
    })
    : await verifySchemaOfflineWithHook({ ...base, signature, discovery }, beforePin);
  return explainLockChange(result, signature);
}

/** A hash mismatch named for what it is: the lock was changed after it was signed. */
function explainLockChange(
  result: LockSignatureResult,
  signature: Record<string, unknown>,
): LockSignatureResult {
  if (result.valid || result.errorCode !== "SIGNATURE_INVALID") return result;
  let signed: string;
  try {
    signed = parseSchemaSignatureDocument(signature).document.schema_hash;
  } catch {
    return result;
  }
  if (result.schemaHash !== undefined && signed !== result.schemaHash) {
    result.errorMessage = `the lock was changed after it was signed: the signature covers ` +
      `${signed}, the lock's values hash to ${result.schemaHash} (reformatting does not ` +
      `change this hash; an edited digest, command or server does)`;
  }
  return result;
}
