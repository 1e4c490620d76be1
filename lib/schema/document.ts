/**
 * Schema signatures in their two forms:
 *
 * - **bare** (v1.3, §4.1, §5): a Base64 DER ECDSA P-256 signature over
 *   `SHA-256(SHA-256(canonical schema))`;
 * - **schema signature document** (1.4): the spec extends `expires_at`, `schema_version`,
 *   `previous_hash` and `canonicalization` to schema signatures "by extension" (§16.1, §18.1)
 *   without fixing a shape. schemapin defines it to mirror `.schemapin.sig` (§4b, §18.1), with
 *   `schema_hash` in place of `skill_hash`:
 *
 * ```json
 * { "schemapin_version": "1.4",
 *   "schema_hash": "sha256:<hex SHA-256 of the schemapin-v1 canonical schema>",
 *   "signature": "<Base64 DER>",
 *   "signed_at": "2026-05-01T10:00:00Z",
 *   "expires_at": "2026-11-01T10:00:00Z",   // optional (§16)
 *   "domain": "example.com",                // optional; must equal the verified domain
 *   "signer_kid": "example-2026-05",        // optional
 *   "schema_version": "2.1.0",              // optional (§18)
 *   "previous_hash": "sha256:…",            // optional (§18): the prior version's schema_hash
 *   "canonicalization": "schemapin-v1" }    // optional (§19)
 * ```
 *
 * Signing input, exactly as §4b.5 signs `.schemapin.sig`: the document with every present
 * known field and `signature` set to `""`, canonicalized with schemapin-v1 (§4), signed as
 * ECDSA P-256 with SHA-256 over those canonical bytes. Verifiers rebuild the input from the
 * parsed known fields; unknown fields are ignored and therefore unprotected (reported).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonValue } from "../json/types.ts";
import { canonicalizeSchemapinV1Bytes } from "../json/canonical_schemapin.ts";
import { sha256Hex } from "../crypto/hash.ts";
import type { PrivateKey } from "../crypto/keys.ts";
import { signDocument, signSchema } from "../crypto/ecdsa.ts";
// A signer (an SSH agent, a key held elsewhere) is loaded only to sign with one: verification
// reads documents without it (start-up).
import type { Signer } from "../crypto/signer.ts";
import { checkDomain } from "../dns/domain.ts";
import { isJsonObject, typeName } from "../json/object.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import { formatRfc3339, isRfc3339 } from "../time/rfc3339.ts";
import {
  declaredCanonicalization,
  formatSignedDocument,
  invalidDocument,
  readOptionalSignedFields,
  readRequiredSignedFields,
  signedDocumentSigningInput,
  stringFieldReader,
  unknownFieldsOf,
} from "./signed_document.ts";
import { checkArg, checkKeyArg, checkSignerArg } from "../arguments.ts";

/**
 * The `schemapin_version` of schema signature documents written by this implementation.
 *
 * @example
 * ```ts
 * import { SCHEMA_SIGNATURE_DOCUMENT_VERSION } from "./document.ts";
 * console.log(SCHEMA_SIGNATURE_DOCUMENT_VERSION); // "1.4"
 * ```
 */
export const SCHEMA_SIGNATURE_DOCUMENT_VERSION = "1.4";

/** The known fields of a schema signature document, in the order they are written. */
export const SCHEMA_SIGNATURE_FIELDS = [
  "schemapin_version",
  "schema_hash",
  "signature",
  "signed_at",
  "expires_at",
  "domain",
  "signer_kid",
  "schema_version",
  "previous_hash",
  "canonicalization",
] as const;

/** A 1.4 schema signature document (see the module documentation). */
export interface SchemaSignatureDocument {
  /** `"1.4"` (a newer 1.x is read with a warning). */
  schemapin_version: string;
  /** `sha256:` + hex of SHA-256 over the schemapin-v1 canonical schema. */
  schema_hash: string;
  /** Base64 DER ECDSA P-256 signature over the canonical signing input. */
  signature: string;
  /** When it was signed, strict RFC 3339. */
  signed_at: string;
  /**
   * Expiry (§16). Written as a strict RFC 3339 string; read as found, because a value that
   * does not parse must fail with `SIGNATURE_EXPIRED` (§16.2) rather than as malformed input.
   */
  expires_at?: JsonValue;
  /** The signer's domain; when present it must equal the domain being verified. */
  domain?: string;
  /** Signer key id, informational. */
  signer_kid?: string;
  /** Caller-supplied version tag of the schema (§18.1). */
  schema_version?: string;
  /** `schema_hash` of the previous signed version (§18.1). */
  previous_hash?: string;
  /** Canonicalization identifier (§19); anything but `"schemapin-v1"` fails verification. */
  canonicalization?: JsonValue;
}

/** A parsed document and the fields it carries that the signature does not cover. */
export interface ParsedSchemaSignature {
  /** The document's known fields. */
  readonly document: SchemaSignatureDocument;
  /** Unknown top-level fields (ignored and unprotected). */
  readonly unknownFields: readonly string[];
  /** Warning codes, e.g. `signature_version_newer` for a 1.5+ document. */
  readonly warnings: readonly string[];
}

/**
 * `sha256:` + hex SHA-256 of the schemapin-v1 canonical form of `schema`. Throws
 * `SchemaPinError` `SCHEMA_CANONICALIZATION_FAILED` when it has none.
 *
 * @example
 * ```ts
 * import { schemaHash } from "./document.ts";
 * schemaHash({ name: "t" }).startsWith("sha256:"); // true
 * ```
 */
export function schemaHash(schema: unknown): string {
  return "sha256:" + sha256Hex(canonicalizeSchemapinV1Bytes(schema));
}

/**
 * Validates the structure of a schema signature document and returns its known fields.
 * Throws `SchemaPinError` `INPUT_INVALID` naming `source` and the field for a non-object, a
 * missing or mistyped required field (`schemapin_version` "1.x" with x ≥ 4, `schema_hash`,
 * `signature`, `signed_at` strict RFC 3339), a malformed `previous_hash`, `domain`,
 * `signer_kid` or `schema_version`. It deliberately does not judge `expires_at` or
 * `canonicalization`: their failures have their own codes at verification time.
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { parseSchemaSignatureDocument } from "./document.ts";
 * const bytes = await Deno.readFile("tool.json.sig");
 * const { document, unknownFields } = parseSchemaSignatureDocument(
 *   parseJson(bytes),
 *   "tool.json.sig",
 * );
 * console.log(document.schema_hash, document.signed_at, unknownFields);
 * ```
 */
export function parseSchemaSignatureDocument(
  value: unknown,
  source = "schema signature document",
): ParsedSchemaSignature {
  if (!isJsonObject(value)) {
    throw invalidDocument(
      source,
      `a schema signature document must be a JSON object, not ${typeName(value)}`,
    );
  }
  const warnings: string[] = [];
  const str = stringFieldReader(value, source);
  const version = str("schemapin_version", true)!;
  const vm = /^(\d+)\.(\d+)$/.exec(version);
  if (!vm || Number(vm[1]) !== 1) {
    throw invalidDocument(
      source,
      `schemapin_version ${JSON.stringify(version)} is not a supported 1.x version`,
      "schemapin_version",
    );
  }
  if (Number(vm[2]) < 4) {
    throw invalidDocument(
      source,
      `schemapin_version ${version}: schema signature documents start at 1.4 ` +
        `(an older schema signature is a bare Base64 string)`,
      "schemapin_version",
    );
  }
  if (Number(vm[2]) > 4) warnings.push("signature_version_newer");
  const { hash, signature, signedAt } = readRequiredSignedFields(value, source, "schema_hash", {
    strictSignedAt: true,
  });
  const document: SchemaSignatureDocument = {
    schemapin_version: version,
    schema_hash: hash,
    signature,
    signed_at: signedAt,
    // A schema document's signer_kid may be empty (informational only).
    ...readOptionalSignedFields(value, source, SCHEMA_SIGNATURE_FIELDS, {
      rejectEmptySignerKid: false,
    }),
  };
  const unknownFields = unknownFieldsOf(value, SCHEMA_SIGNATURE_FIELDS);
  return { document, unknownFields, warnings };
}

/**
 * The bytes a schema signature document's signature covers: its present known fields with
 * `signature` set to `""`, canonicalized with schemapin-v1. Throws `SchemaPinError`
 * `SCHEMA_CANONICALIZATION_FAILED` if a field value has no canonical form.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { signDocument, verifyDocumentSignature } from "../crypto/ecdsa.ts";
 * import { schemaSignatureSigningInput } from "./document.ts";
 * import { signSchemaDocument } from "jsr:@schemapin/schemapin/schema";
 * const key = generateKeyPair();
 * const document = signSchemaDocument({ name: "add" }, key);
 * // What the signature covers: the document with signature "", canonicalized
 * const input = schemaSignatureSigningInput(document);
 * verifyDocumentSignature(input, document.signature, key.publicKey); // { valid: true }
 * // A signer that keeps its key elsewhere (an HSM) signs the same bytes:
 * document.signature = signDocument(
 *   schemaSignatureSigningInput({ ...document, signature: "" }),
 *   key,
 * );
 * ```
 */
export function schemaSignatureSigningInput(document: SchemaSignatureDocument): Uint8Array {
  checkArg("schemaSignatureSigningInput", "document", document, "object");
  return signedDocumentSigningInput(document, SCHEMA_SIGNATURE_FIELDS);
}

/**
 * Signs a schema the v1.3 way (§4.1): Base64 DER ECDSA over `SHA-256(SHA-256(canonical))`.
 * Throws `SCHEMA_CANONICALIZATION_FAILED` when the schema has no canonical form.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "../crypto/keys.ts";
 * import { signSchemaBase64 } from "./document.ts";
 * const sig = signSchemaBase64({ name: "calculate_sum" }, generateKeyPair());
 * ```
 */
export function signSchemaBase64(schema: unknown, privateKey: PrivateKey): string {
  checkKeyArg("signSchemaBase64", "privateKey", privateKey, "private");
  return signSchema(canonicalizeSchemapinV1Bytes(schema), privateKey);
}

/**
 * {@linkcode signSchemaBase64} with a `Signer` — a key held elsewhere, such as in an SSH agent
 * (`sshAgentSigner`): a bare §4.1 signature over `SHA-256(SHA-256(canonical))`; the signer is
 * given the 32-byte `SHA-256(canonical)` and hashes it once more itself.
 *
 * @throws {SchemaPinError} `SCHEMA_CANONICALIZATION_FAILED` when the schema has no canonical
 *   form; what `signSchemaWithSigner` throws.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "../crypto/keys.ts";
 * import { privateKeySigner } from "../crypto/signer.ts";
 * import { verifySchemaSignature } from "../crypto/ecdsa.ts";
 * import { canonicalizeSchemapinV1Bytes } from "../json/canonical_schemapin.ts";
 * import { signSchemaBase64WithSigner } from "./document.ts";
 * const key = generateKeyPair();
 * const schema = { name: "calculate_sum" };
 * const signature = await signSchemaBase64WithSigner(schema, privateKeySigner(key));
 * verifySchemaSignature(canonicalizeSchemapinV1Bytes(schema), signature, key.publicKey); // { valid: true }
 * ```
 */
export async function signSchemaBase64WithSigner(schema: unknown, signer: Signer): Promise<string> {
  checkSignerArg("signSchemaBase64WithSigner", "signer", signer);
  const { signSchemaWithSigner } = await import("../crypto/signer.ts");
  return await signSchemaWithSigner(canonicalizeSchemapinV1Bytes(schema), signer);
}

/** Metadata for {@linkcode signSchemaDocument}. */
export interface SchemaDocumentOptions {
  /** Signing time (default now). */
  signedAt?: Date | number;
  /** Expiry time (§16). */
  expiresAt?: Date | number | string;
  /** The publisher's domain (validated, §9). */
  domain?: string;
  /** A key id, informational. */
  signerKid?: string;
  /** A version tag for this schema (§18.1). */
  schemaVersion?: string;
  /** The `schema_hash` of the previous signed version (§18.1). */
  previousHash?: string;
  /** Declare the canonicalization (§19); only `"schemapin-v1"` exists. Omitted by default. */
  canonicalization?: string;
}

/**
 * Signs a schema as a 1.4 schema signature document (see the module documentation). Throws
 * `SchemaPinError` `INPUT_INVALID` for bad metadata (an expiry not after `signedAt`, a
 * malformed domain or hash, an unknown canonicalization) and
 * `SCHEMA_CANONICALIZATION_FAILED` when the schema has no canonical form.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { signSchemaDocument } from "jsr:@schemapin/schemapin/schema";
 * const doc = signSchemaDocument({ name: "calculate_sum" }, generateKeyPair(), {
 *   schemaVersion: "1.0.0",
 *   expiresAt: Date.now() + 30 * 86_400_000,
 * });
 * doc.schemapin_version; // "1.4"
 * ```
 */
export function signSchemaDocument(
  schema: unknown,
  privateKey: PrivateKey,
  options: SchemaDocumentOptions = {},
): SchemaSignatureDocument {
  checkKeyArg("signSchemaDocument", "privateKey", privateKey, "private");
  checkArg("signSchemaDocument", "options", options, "object");
  const doc = unsignedSchemaDocument(schema, options);
  doc.signature = signDocument(schemaSignatureSigningInput(doc), privateKey);
  return doc;
}

/**
 * {@linkcode signSchemaDocument} with a `Signer` — a key held elsewhere, such as in an SSH agent
 * (`sshAgentSigner`): the same document, its signing input (the canonical document with
 * `signature: ""`, §4b.5 style) given to the signer as the message it hashes and signs.
 *
 * @throws {SchemaPinError} what `signSchemaDocument` throws, `INPUT_INVALID` for something
 *   that is not a signer, and what `signDocumentWithSigner` throws (`KEY_INVALID` for a
 *   signature that does not verify, the signer's own errors: `IO_FAILED` from an agent).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner } from "../crypto/signer.ts";
 * import { verifyDocumentSignature } from "../crypto/ecdsa.ts";
 * import { schemaSignatureSigningInput, signSchemaDocumentWithSigner } from "./document.ts";
 * const key = generateKeyPair();
 * const doc = await signSchemaDocumentWithSigner({ name: "add" }, privateKeySigner(key), {
 *   domain: "example.com",
 * });
 * verifyDocumentSignature(schemaSignatureSigningInput({ ...doc, signature: "" }), doc.signature, key.publicKey); // { valid: true }
 * ```
 */
export async function signSchemaDocumentWithSigner(
  schema: unknown,
  signer: Signer,
  options: SchemaDocumentOptions = {},
): Promise<SchemaSignatureDocument> {
  checkSignerArg("signSchemaDocumentWithSigner", "signer", signer);
  checkArg("signSchemaDocumentWithSigner", "options", options, "object");
  const doc = unsignedSchemaDocument(schema, options);
  const { signDocumentWithSigner } = await import("../crypto/signer.ts");
  doc.signature = await signDocumentWithSigner(schemaSignatureSigningInput(doc), signer);
  return doc;
}

/** The document {@linkcode signSchemaDocument} signs: every field but `signature` (`""`). */
function unsignedSchemaDocument(
  schema: unknown,
  options: SchemaDocumentOptions,
): SchemaSignatureDocument {
  const hash = schemaHash(schema);
  const signedAtMs = options.signedAt === undefined
    ? Math.floor(Date.now() / 1000) * 1000
    : typeof options.signedAt === "number"
    ? options.signedAt
    : options.signedAt.getTime();
  const doc: SchemaSignatureDocument = {
    schemapin_version: SCHEMA_SIGNATURE_DOCUMENT_VERSION,
    schema_hash: hash,
    signature: "",
    signed_at: formatRfc3339(signedAtMs),
  };
  if (options.expiresAt !== undefined) {
    let ms: number | undefined;
    if (typeof options.expiresAt === "string") {
      if (!isRfc3339(options.expiresAt)) {
        throw new SchemaPinError(
          "INPUT_INVALID",
          `expires_at ${JSON.stringify(options.expiresAt)} is not a strict RFC 3339 timestamp ` +
            `(e.g. 2026-11-01T10:00:00Z)`,
        );
      }
      doc.expires_at = options.expiresAt;
      ms = Date.parse(options.expiresAt);
    } else {
      ms = typeof options.expiresAt === "number" ? options.expiresAt : options.expiresAt.getTime();
      doc.expires_at = formatRfc3339(ms);
    }
    if (!(ms > signedAtMs)) {
      throw new SchemaPinError("INPUT_INVALID", "expires_at must be later than signed_at");
    }
  }
  if (options.domain !== undefined) {
    const dc = checkDomain(options.domain);
    if (!dc.ok) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `invalid domain ${JSON.stringify(options.domain)}: ${dc.reason}`,
      );
    }
    doc.domain = dc.domain;
  }
  if (options.signerKid !== undefined) {
    if (options.signerKid === "") throw new SchemaPinError("INPUT_INVALID", "signer_kid is empty");
    doc.signer_kid = options.signerKid;
  }
  if (options.schemaVersion !== undefined) {
    if (options.schemaVersion === "") {
      throw new SchemaPinError("INPUT_INVALID", "schema_version is empty");
    }
    doc.schema_version = options.schemaVersion;
  }
  if (options.previousHash !== undefined) {
    if (!isSha256Ref(options.previousHash)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `previous_hash ${JSON.stringify(options.previousHash)} ${
          describeBadSha256Ref(options.previousHash)
        }`,
      );
    }
    if (options.previousHash === hash) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        "previous_hash equals this schema's own hash; it must name the previous version",
      );
    }
    doc.previous_hash = options.previousHash;
  }
  if (options.canonicalization !== undefined) {
    doc.canonicalization = declaredCanonicalization(options.canonicalization);
  }
  return doc;
}

/**
 * Serialises a schema signature document for a file: known fields in a fixed order,
 * two-space indentation, trailing newline.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import {
 *   formatSchemaSignatureDocument,
 *   signSchemaDocument,
 * } from "jsr:@schemapin/schemapin/schema";
 * const schema = { name: "add", description: "Adds two numbers" };
 * const document = signSchemaDocument(schema, generateKeyPair(), { domain: "example.com" });
 * await Deno.writeTextFile("add.json.sig", formatSchemaSignatureDocument(document));
 * ```
 */
export function formatSchemaSignatureDocument(document: SchemaSignatureDocument): string {
  checkArg("formatSchemaSignatureDocument", "document", document, "object");
  return formatSignedDocument(document, SCHEMA_SIGNATURE_FIELDS);
}
