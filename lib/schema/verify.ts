/**
 * `verifySchemaOffline` (§15.1): the core verification primitive for tool schemas. Every
 * other schema verification (A2A, resolvers, the CLI) delegates to it. The order of the seven
 * steps and every trust decision live in `flow.ts` (shared with skill verification); this
 * module supplies what is specific to schemas:
 *
 * - step 0: the signature is a bare Base64 string (v1.3, §4.1) or a 1.4 schema signature
 *   document, whose structure and canonicalization identifier (§19) are checked before any
 *   key loading or cryptography;
 * - steps 5–6: canonicalize the schema (§4) and hash it; verify the bare signature over
 *   `SHA-256(SHA-256(canonical))`, or the document's §4b-style signing input, then require
 *   `schema_hash` to equal the schema's hash and the document's `domain` (when present) to
 *   equal the verified domain. Expiry (§16) and pinning (step 7) follow in the flow.
 *
 * A failed verification never writes a pin. The validated `domain` argument is the only source
 * of the pin key and of the reported domain.
 *
 * @module
 */
import { canonicalizeSchemapinV1Bytes } from "../json/canonical_schemapin.ts";
import { sha256, toHex } from "../crypto/hash.ts";
import { scanBase64 } from "../crypto/base64.ts";
import { verifyDigest, verifyDocumentSignature, verifySchemaSignature } from "../crypto/ecdsa.ts";
import { acceptSignedDocument, checkDeclaredCanonicalization } from "./flow_document.ts";
import {
  type BeforePinHook,
  messageOf,
  type OfflineFlowOptions,
  type OfflineSubject,
  type OfflineVerificationResult,
  runOfflineFlow,
} from "./flow.ts";
import {
  parseSchemaSignatureDocument,
  type SchemaSignatureDocument,
  schemaSignatureSigningInput,
} from "./document.ts";
import { argumentError, checkArg, checkMethods } from "../arguments.ts";
import type { PublicKey } from "../crypto/keys.ts";

export { EXPIRY_SKEW_MS, type FirstUseInfo, type KeyPinningStatus } from "./flow.ts";

// Successful ECDSA checks, keyed by everything the check depends on (key fingerprint, the
// hash of the signed bytes, the exact signature text): verifying the same tool again — what a
// client does on every tools/list — skips the elliptic-curve work. Only the cryptographic
// check is cached; discovery, revocation, pins, canonicalization and expiry run every time.
const VERIFIED = new Set<string>();
const VERIFIED_MAX = 4096;

function rememberVerified(id: string): void {
  if (VERIFIED.size >= VERIFIED_MAX) {
    VERIFIED.delete(VERIFIED.values().next().value as string);
  }
  VERIFIED.add(id);
}

// The cache ids: one place, so a check made elsewhere (precheckSchemaSignature) names the
// same check the flow looks up.
function bareCheckId(fingerprint: string, hash: string, signature: string): string {
  return `s ${fingerprint} ${hash} ${signature}`;
}

function documentCheckId(fingerprint: string, input: Uint8Array, signature: string): string {
  return `d ${fingerprint} ${toHex(sha256(input))} ${signature}`;
}

/**
 * The pure cryptographic part of verifying `schema` under `signature` with `publicKey`: the
 * canonical form, its hash and the ECDSA check (no discovery, revocation, pin, expiry or
 * document field checks). Returns the id of the successful check, or `undefined` when it does
 * not verify or cannot be made. A batch runs this on worker threads and hands the ids to
 * {@linkcode acceptPrecheckedSignature}; {@linkcode verifySchemaOffline} then finds the check
 * made and runs every other step as usual — a failed precheck only means the flow checks again
 * (and says why). Internal to the package, like {@linkcode acceptPrecheckedSignature}.
 *
 * @internal
 * @example
 * ```ts
 * import { generateKeyPair } from "../crypto/keys.ts";
 * import { signSchemaBase64 } from "./document.ts";
 * import { acceptPrecheckedSignature, precheckSchemaSignature } from "./verify.ts";
 * const sk = generateKeyPair();
 * const schema = { name: "t" };
 * const id = precheckSchemaSignature(schema, signSchemaBase64(schema, sk), sk.publicKey);
 * if (id !== undefined) acceptPrecheckedSignature(id);
 * ```
 */
export function precheckSchemaSignature(
  schema: unknown,
  signature: string | Record<string, unknown>,
  publicKey: PublicKey,
): string | undefined {
  try {
    if (typeof signature === "string") {
      const single = sha256(canonicalizeSchemapinV1Bytes(schema));
      const der = scanBase64(signature);
      if (!(der instanceof Uint8Array)) return undefined;
      if (!verifyDigest(sha256(single), der, publicKey).valid) return undefined;
      return bareCheckId(publicKey.fingerprint, "sha256:" + toHex(single), signature);
    }
    const { document } = parseSchemaSignatureDocument(signature);
    const input = schemaSignatureSigningInput(document);
    if (!verifyDocumentSignature(input, document.signature, publicKey).valid) return undefined;
    return documentCheckId(publicKey.fingerprint, input, document.signature);
  } catch {
    return undefined; // the flow makes the check itself and reports why it failed
  }
}

/**
 * Records a successful check made by {@linkcode precheckSchemaSignature} (possibly on another
 * thread) so that {@linkcode verifySchemaOffline} does not repeat the elliptic-curve work. Only
 * ever pass an id that function returned: an id is trusted as a verified signature. Internal to
 * the package (not exported by any entry point; tests/cli/batch_threads_test.ts keeps it so).
 *
 * @internal
 * @example
 * ```ts ignore
 * for (const id of idsFromWorkers) acceptPrecheckedSignature(id);
 * ```
 */
export function acceptPrecheckedSignature(id: string): void {
  prechecksAccepted++;
  rememberVerified(id);
}

let prechecksAccepted = 0;

/**
 * How many ids {@linkcode acceptPrecheckedSignature} has taken in this process (tests check
 * that a threaded batch really used its workers).
 *
 * @internal
 * @example
 * ```ts
 * import { precheckedSignatureCount } from "./verify.ts";
 * precheckedSignatureCount(); // 0 in a process that ran no threaded batch
 * ```
 */
export function precheckedSignatureCount(): number {
  return prechecksAccepted;
}

/**
 * Forgets the cached successful signature checks (for benchmarks and tests that measure the
 * cryptography itself).
 *
 * @example
 * ```ts
 * import { clearSignatureCheckCache } from "./verify.ts";
 * clearSignatureCheckCache();
 * ```
 */
export function clearSignatureCheckCache(): void {
  VERIFIED.clear();
}

/** Inputs of {@linkcode verifySchemaOffline}. */
export interface VerifySchemaOfflineOptions extends OfflineFlowOptions {
  /** The tool schema (a parsed JSON value). */
  schema: unknown;
  /** A bare Base64 signature (v1.3) or a parsed 1.4 schema signature document. */
  signature: string | SchemaSignatureDocument | Readonly<Record<string, unknown>>;
  /** The tool id; pins are keyed `toolId@domain`. */
  toolId: string;
}

/**
 * The structured result of a schema verification. Warning codes: `signature_expired`,
 * `signature_expires_at_unparseable` (with `allowExpired`), `unprotected_fields` (see
 * `unprotectedFields`), `revocation_document_missing`, `discovery_schema_version_newer`,
 * `signature_version_newer`.
 */
export interface SchemaVerificationResult extends OfflineVerificationResult {
  /** `sha256:` of the canonical schema (from step 5 on). */
  schemaHash?: string;
  /** `bare` (v1.3 Base64) or `document` (1.4). */
  signatureFormat: "bare" | "document";
  /** The parsed document, once the signature verified (for lineage checks). */
  document?: SchemaSignatureDocument;
}

/**
 * Verifies a schema signature offline per §15.1 (see the module documentation). Returns a
 * structured result; throws only on misuse (missing pin store, non-string signature).
 *
 * @example
 * ```ts
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { verifySchemaOffline } from "jsr:@schemapin/schemapin/schema";
 * const read = async (path: string) => parseJson(await Deno.readFile(path), path);
 * const result = await verifySchemaOffline({
 *   schema: await read("tool.json"),
 *   signature: await read("tool.json.sig") as Record<string, unknown>, // or a bare Base64 string
 *   toolId: "calculate_sum",
 *   domain: "example.com",
 *   discovery: await read("schemapin.json"), // the domain's /.well-known/schemapin.json
 *   pinStore: new FilePinStore(),
 *   trustFirstUse: true,
 * });
 * if (!result.valid) console.error(result.errorCode, result.errorMessage);
 * ```
 */
export function verifySchemaOffline(
  options: VerifySchemaOfflineOptions,
): Promise<SchemaVerificationResult> {
  return verifySchemaOfflineWithHook(options, undefined);
}

/**
 * {@linkcode verifySchemaOffline} with a hook run after verification succeeded and before a
 * pin is written (used by `verifySchemaForA2a`, so an out-of-scope tool is never pinned).
 *
 * @example
 * ```ts ignore
 * await verifySchemaOfflineWithHook(options, (r) => r.domain === "example.com" ? undefined
 *   : { errorCode: "A2A_SCOPE_VIOLATION", errorMessage: "out of scope" });
 * ```
 */
export async function verifySchemaOfflineWithHook(
  options: VerifySchemaOfflineOptions,
  beforePin: BeforePinHook<SchemaVerificationResult> | undefined,
): Promise<SchemaVerificationResult> {
  checkArg("verifySchemaOffline", "options", options, "object");
  checkMethods(
    "verifySchemaOffline",
    "options.pinStore",
    options.pinStore,
    ["get", "transact"],
    "a PinStore",
  );
  const sig = options.signature;
  const isDocument = typeof sig === "object" && sig !== null;
  if (!isDocument && typeof sig !== "string") {
    throw argumentError(
      "verifySchemaOffline",
      "options.signature",
      "a Base64 string or a signature document object",
      sig,
    );
  }
  const result: SchemaVerificationResult = {
    valid: false,
    toolId: options.toolId,
    keyPinning: "not_checked",
    warnings: [],
    expired: false,
    signatureFormat: isDocument ? "document" : "bare",
  };
  let document: SchemaSignatureDocument | undefined;
  let unknownFields: readonly string[] = [];

  const subject: OfflineSubject<SchemaVerificationResult> = {
    // Step 0: the signature's shape and its canonicalization identifier (§19.3).
    prepare(r) {
      if (!isDocument) {
        if ((sig as string).trim() === "") {
          return { errorCode: "SIGNATURE_INVALID", errorMessage: "the signature is empty" };
        }
        return {};
      }
      try {
        const parsed = parseSchemaSignatureDocument(sig, options.sources?.signature);
        document = parsed.document;
        unknownFields = parsed.unknownFields;
        r.warnings.push(...parsed.warnings);
      } catch (e) {
        return { errorCode: "SIGNATURE_INVALID", errorMessage: messageOf(e) };
      }
      return checkDeclaredCanonicalization(document) ?? {};
    },
    // Steps 5–6.
    verify(key, domain, r) {
      let canonical: Uint8Array;
      try {
        canonical = canonicalizeSchemapinV1Bytes(options.schema);
      } catch (e) {
        return {
          errorCode: "SCHEMA_CANONICALIZATION_FAILED",
          errorMessage: `the schema has no canonical form: ${messageOf(e)}`,
        };
      }
      // SHA-256(canonical) is both the schema hash and the §4.1 ECDSA message.
      const single = sha256(canonical);
      const hash = "sha256:" + toHex(single);
      r.schemaHash = hash;
      if (document === undefined) {
        // §4.1: ECDSA over SHA-256(SHA-256(canonical)); on failure, let the full check say
        // why (malformed, mismatch, or the single-hash signer bug).
        const id = bareCheckId(key.fingerprint, hash, sig as string);
        if (VERIFIED.has(id)) return {};
        const der = scanBase64(sig as string);
        if (!(der instanceof Uint8Array) || !verifyDigest(sha256(single), der, key).valid) {
          const check = verifySchemaSignature(canonical, sig as string, key);
          return {
            errorCode: "SIGNATURE_INVALID",
            errorMessage: check.valid ? "the signature check disagreed" : check.errorMessage,
          };
        }
        rememberVerified(id);
        return {};
      }
      let input: Uint8Array;
      try {
        input = schemaSignatureSigningInput(document);
      } catch (e) {
        return {
          errorCode: "SIGNATURE_INVALID",
          errorMessage: `the signature document has no canonical signing input: ${messageOf(e)}`,
        };
      }
      const id = documentCheckId(key.fingerprint, input, document.signature);
      if (!VERIFIED.has(id)) {
        const check = verifyDocumentSignature(input, document.signature, key);
        if (!check.valid) {
          return { errorCode: "SIGNATURE_INVALID", errorMessage: check.errorMessage };
        }
        rememberVerified(id);
      }
      if (document.schema_hash !== hash) {
        return {
          errorCode: "SIGNATURE_INVALID",
          errorMessage: `the signature document is authentic but covers schema_hash ` +
            `${document.schema_hash}, while this schema hashes to ${hash}: the schema changed ` +
            `after signing`,
        };
      }
      return acceptSignedDocument(document, unknownFields, domain, r) ?? { signed: document };
    },
  };
  return await runOfflineFlow(options, result, subject, beforePin);
}
