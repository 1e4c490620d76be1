/**
 * The skill signature document, `.schemapin.sig` (§4b.5, §16, §18, §19):
 *
 * ```json
 * { "schemapin_version": "1.4",
 *   "skill_name": "example-skill",
 *   "skill_hash": "sha256:…",                 // root hash of the folder (§4b.5)
 *   "signature": "<Base64 DER>",
 *   "signed_at": "2026-05-01T10:00:00Z",
 *   "expires_at": "2026-11-01T10:00:00Z",     // optional (§16)
 *   "schema_version": "2.1.0",                // optional (§18)
 *   "previous_hash": "sha256:…",              // optional (§18): the prior skill_hash
 *   "canonicalization": "schemapin-v1",       // optional (§19)
 *   "domain": "example.com",
 *   "signer_kid": "sha256:…",                 // default: the key fingerprint
 *   "file_manifest": { "SKILL.md": "sha256:…" } }
 * ```
 *
 * Signing input (§4b.5): the document with every present known field and `signature` set to
 * `""`, canonicalized with schemapin-v1 (§4), signed as ECDSA P-256 with SHA-256 over those
 * bytes. A verifier rebuilds it from the parsed known fields only: unknown fields are ignored
 * and therefore unprotected.
 *
 * Documents with `schemapin_version` below "1.4" are legacy: their signature covers only the
 * 32-byte root hash of the legacy algorithm, none of their fields.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { JsonValue } from "../json/types.ts";
import type { PrivateKey, PublicKey } from "../crypto/keys.ts";
import { signDocument } from "../crypto/ecdsa.ts";
import { signDocumentWithSigner, type Signer } from "../crypto/signer.ts";
import { checkDomain } from "../dns/domain.ts";
import { isJsonObject, objectFromEntries, ownField, typeName } from "../json/object.ts";
import { describeBadSha256Ref, isSha256Ref } from "../crypto/fingerprint.ts";
import { checkToolId } from "../pins/store.ts";
import { formatRfc3339, parseRfc3339 } from "../time/rfc3339.ts";
import {
  declaredCanonicalization,
  formatSignedDocument,
  invalidDocument,
  readOptionalSignedFields,
  readRequiredSignedFields,
  signedDocumentSigningInput,
  stringFieldReader,
  unknownFieldsOf,
} from "../schema/signed_document.ts";
import type { SkillAlgorithm, SkillHash } from "./hash.ts";
import { skillAlgorithmFor } from "./signed_domain.ts";
import { checkArg, checkKeyArg, checkSignerArg } from "../arguments.ts";

// What a document's version and domain say before it is parsed (read by schema verification too).
export { signedDocumentDomain, skillAlgorithmFor } from "./signed_domain.ts";

/**
 * The `schemapin_version` this implementation writes (§4b: never the legacy format).
 *
 * @example
 * ```ts
 * import { SKILL_SIGNATURE_VERSION } from "./document.ts";
 * console.log(SKILL_SIGNATURE_VERSION); // "1.4"
 * ```
 */
export const SKILL_SIGNATURE_VERSION = "1.4";

/** The known fields of a skill signature document, in the order they are written. */
export const SKILL_SIGNATURE_FIELDS = [
  "schemapin_version",
  "skill_name",
  "skill_hash",
  "signature",
  "signed_at",
  "expires_at",
  "schema_version",
  "previous_hash",
  "canonicalization",
  "domain",
  "signer_kid",
  "file_manifest",
] as const;

/** A skill signature document (see the module documentation). */
export interface SkillSignatureDocument {
  /** `"1.4"`; below is legacy, above 1.4 is read as 1.4 with a warning. */
  schemapin_version: string;
  /** The skill's name — the tool id its key is pinned under. */
  skill_name: string;
  /** `"sha256:" + hex(root hash)`. */
  skill_hash: string;
  /** Base64 DER ECDSA P-256 signature. */
  signature: string;
  /** When it was signed (strict RFC 3339 for 1.4 documents). */
  signed_at: string;
  /** Expiry (§16), read as found: a value that does not parse fails with `SIGNATURE_EXPIRED`. */
  expires_at?: JsonValue;
  /** Caller-supplied version tag (§18.1). */
  schema_version?: string;
  /** `skill_hash` of the previous signed version (§18.1). */
  previous_hash?: string;
  /** Canonicalization identifier (§19); anything but `"schemapin-v1"` fails verification. */
  canonicalization?: JsonValue;
  /** The signer's domain; when present it must equal the domain being verified. */
  domain?: string;
  /** Signer key id (this implementation writes the key fingerprint by default). */
  signer_kid?: string;
  /** `path → "sha256:" + hex(entry digest)`. Optional only in legacy documents. */
  file_manifest?: Record<string, string>;
}

/** A parsed skill signature document. */
export interface ParsedSkillSignature {
  /** The known fields. */
  readonly document: SkillSignatureDocument;
  /** `"1.4"` or `"legacy"` (below 1.4), selected by `schemapin_version`. */
  readonly algorithm: SkillAlgorithm;
  /** Unknown top-level fields (ignored and unprotected). */
  readonly unknownFields: readonly string[];
  /** Warning codes: `signature_version_newer` for a 1.5+ document. */
  readonly warnings: readonly string[];
}

/**
 * Validates the structure of a skill signature document and returns its known fields.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` naming `source` and the field: not an object, a
 *   missing or mistyped required field (`schemapin_version` 1.x, `skill_name`, `skill_hash`,
 *   `signature`, `signed_at` — strict RFC 3339 from 1.4 on — and, from 1.4 on,
 *   `file_manifest`), a malformed `file_manifest`, `previous_hash`, `domain`, `signer_kid`
 *   or `schema_version`. `expires_at` and `canonicalization` are not judged here: their
 *   failures have their own codes at verification time (§16.2, §19.3).
 *
 * @example
 * ```ts
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { parseSkillSignatureDocument } from "./document.ts";
 * const path = "./pdf-tools/.schemapin.sig";
 * const { document, algorithm } = parseSkillSignatureDocument(
 *   parseJson(await Deno.readFile(path)),
 *   path,
 * );
 * console.log(document.skill_name, algorithm); // "pdf-tools" "1.4"
 * ```
 */
export function parseSkillSignatureDocument(
  value: unknown,
  source = "skill signature document",
): ParsedSkillSignature {
  if (!isJsonObject(value)) {
    throw invalidDocument(
      source,
      `a skill signature document must be a JSON object, not ${typeName(value)}`,
    );
  }
  const str = stringFieldReader(value, source);
  const warnings: string[] = [];
  const version = str("schemapin_version", true)!;
  const algorithm = skillAlgorithmFor(version);
  if (algorithm === undefined) {
    throw invalidDocument(
      source,
      `schemapin_version ${JSON.stringify(version)} is not a supported 1.x version`,
      "schemapin_version",
    );
  }
  if (algorithm === "1.4" && version !== SKILL_SIGNATURE_VERSION) {
    warnings.push("signature_version_newer");
  }
  const name = str("skill_name", true)!;
  if (name === "") throw invalidDocument(source, "skill_name is empty", "skill_name");
  // signed_at is strict RFC 3339 from 1.4 on.
  const { hash, signature, signedAt } = readRequiredSignedFields(value, source, "skill_hash", {
    strictSignedAt: algorithm === "1.4",
  });
  const document: SkillSignatureDocument = {
    schemapin_version: version,
    skill_name: name,
    skill_hash: hash,
    signature,
    signed_at: signedAt,
    ...readOptionalSignedFields(value, source, SKILL_SIGNATURE_FIELDS, {
      rejectEmptySignerKid: true,
    }),
  };
  const manifest = ownField(value, "file_manifest");
  if (manifest === undefined) {
    if (algorithm === "1.4") {
      throw invalidDocument(source, "file_manifest is missing", "file_manifest");
    }
  } else {
    document.file_manifest = parseManifest(manifest, source);
  }
  const unknownFields = unknownFieldsOf(value, SKILL_SIGNATURE_FIELDS);
  return { document, algorithm, unknownFields, warnings };
}

function parseManifest(value: unknown, source: string): Record<string, string> {
  if (!isJsonObject(value)) {
    throw invalidDocument(
      source,
      `file_manifest must be an object, not ${typeName(value)}`,
      "file_manifest",
    );
  }
  const entries: [string, string][] = [];
  for (const [path, digest] of Object.entries(value)) {
    if (!isSha256Ref(digest)) {
      throw invalidDocument(
        source,
        `file_manifest[${JSON.stringify(path)}] ${describeBadSha256Ref(digest)}`,
        "file_manifest",
      );
    }
    entries.push([path, digest]);
  }
  return objectFromEntries(entries);
}

/**
 * The bytes a 1.4 skill signature covers (§4b.5): the present known fields with `signature`
 * set to `""`, canonicalized with schemapin-v1.
 *
 * @throws {SchemaPinError} `SCHEMA_CANONICALIZATION_FAILED` when a field value has no
 *   canonical form (for example a number beyond 2^53 − 1 in `expires_at`).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { verifyDocumentSignature } from "../crypto/ecdsa.ts";
 * import { hashSkillFiles } from "./hash.ts";
 * import { signSkillDocument, skillSigningInput } from "./document.ts";
 * const key = generateKeyPair();
 * const hash = hashSkillFiles([{ path: "SKILL.md", content: new TextEncoder().encode("# s") }]);
 * const document = signSkillDocument(hash, key, { skillName: "s", domain: "example.com" });
 * const input = skillSigningInput(document);
 * verifyDocumentSignature(input, document.signature, key.publicKey); // { valid: true }
 * ```
 */
export function skillSigningInput(document: SkillSignatureDocument): Uint8Array {
  checkArg("skillSigningInput", "document", document, "object");
  return signedDocumentSigningInput(document, SKILL_SIGNATURE_FIELDS);
}

/** Metadata for {@linkcode signSkillDocument}. */
export interface SkillSignOptions {
  /** The skill's name (required; see `readSkillName` for the default the CLI uses). */
  skillName: string;
  /** The publisher's domain (validated, §9). */
  domain: string;
  /** Signing time (default now). */
  signedAt?: Date | number;
  /** Expiry (§16): a time, or a strict RFC 3339 string; must be after `signedAt`. */
  expiresAt?: Date | number | string;
  /** Version tag of this skill (§18.1). */
  schemaVersion?: string;
  /** `skill_hash` of the previous signed version (§18.1). */
  previousHash?: string;
  /** Key id (default: the key fingerprint). */
  signerKid?: string;
  /** Declare the canonicalization (§19); only `"schemapin-v1"` exists. Omitted by default. */
  canonicalization?: string;
}

function bad(message: string, field: string): SchemaPinError {
  return new SchemaPinError("INPUT_INVALID", message, { field });
}

/**
 * Signs a hashed skill (§4b.5) as a 1.4 skill signature document: every field present, then
 * the signature over the schemapin-v1 canonical document with `signature: ""`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a legacy hash (new signatures never use the
 *   legacy format), an unusable name, domain, hash, version tag or key id, or an expiry not
 *   after `signedAt`; `CANONICALIZATION_UNSUPPORTED` for another canonicalization.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { hashSkillFiles } from "./hash.ts";
 * import { signSkillDocument } from "./document.ts";
 * const hash = hashSkillFiles([{ path: "SKILL.md", content: new TextEncoder().encode("# s") }]);
 * const doc = signSkillDocument(hash, generateKeyPair(), {
 *   skillName: "s",
 *   domain: "example.com",
 * });
 * doc.schemapin_version; // "1.4"
 * ```
 */
export function signSkillDocument(
  hash: SkillHash,
  privateKey: PrivateKey,
  options: SkillSignOptions,
): SkillSignatureDocument {
  checkArg("signSkillDocument", "hash", hash, "object");
  checkKeyArg("signSkillDocument", "privateKey", privateKey, "private");
  checkArg("signSkillDocument", "options", options, "object");
  const doc = unsignedSkillDocument(hash, privateKey.publicKey, options);
  doc.signature = signDocument(skillSigningInput(doc), privateKey);
  return doc;
}

/**
 * {@linkcode signSkillDocument} with a `Signer` — a key held elsewhere, such as in an SSH agent
 * (`sshAgentSigner`): the same document; its §4b.5 signing input (the canonical document with
 * `signature: ""`) is given to the signer as the message it hashes and signs.
 *
 * @throws {SchemaPinError} what `signSkillDocument` throws, `INPUT_INVALID` for something that
 *   is not a signer, and what `signDocumentWithSigner` throws (`KEY_INVALID` for a signature
 *   that does not verify, the signer's own errors: `IO_FAILED` from an agent).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin/keys";
 * import { privateKeySigner } from "../crypto/signer.ts";
 * import { hashSkillFiles } from "./hash.ts";
 * import { signSkillDocumentWithSigner } from "./document.ts";
 * const hash = hashSkillFiles([{ path: "SKILL.md", content: new TextEncoder().encode("# s") }]);
 * const doc = await signSkillDocumentWithSigner(hash, privateKeySigner(generateKeyPair()), {
 *   skillName: "s",
 *   domain: "example.com",
 * });
 * doc.schemapin_version; // "1.4"
 * ```
 */
export async function signSkillDocumentWithSigner(
  hash: SkillHash,
  signer: Signer,
  options: SkillSignOptions,
): Promise<SkillSignatureDocument> {
  checkArg("signSkillDocumentWithSigner", "hash", hash, "object");
  checkSignerArg("signSkillDocumentWithSigner", "signer", signer);
  checkArg("signSkillDocumentWithSigner", "options", options, "object");
  const doc = unsignedSkillDocument(hash, signer.publicKey, options);
  doc.signature = await signDocumentWithSigner(skillSigningInput(doc), signer);
  return doc;
}

/** The document {@linkcode signSkillDocument} signs: every field but `signature` (`""`). */
function unsignedSkillDocument(
  hash: SkillHash,
  publicKey: PublicKey,
  options: SkillSignOptions,
): SkillSignatureDocument {
  if (hash.algorithm !== "1.4") {
    throw bad(
      "new skill signatures must use the §4b algorithm, never the legacy one",
      "skill_hash",
    );
  }
  const nameProblem = checkToolId(options.skillName);
  if (nameProblem) {
    throw bad(`skill name ${JSON.stringify(options.skillName)}: ${nameProblem}`, "skill_name");
  }
  const dc = checkDomain(options.domain);
  if (!dc.ok) throw bad(`invalid domain ${JSON.stringify(options.domain)}: ${dc.reason}`, "domain");
  const signedAtMs = options.signedAt === undefined
    ? Date.now()
    : typeof options.signedAt === "number"
    ? options.signedAt
    : options.signedAt.getTime();
  const doc: SkillSignatureDocument = {
    schemapin_version: SKILL_SIGNATURE_VERSION,
    skill_name: options.skillName,
    skill_hash: hash.skillHash,
    signature: "",
    signed_at: formatRfc3339(signedAtMs),
  };
  if (options.expiresAt !== undefined) {
    let ms: number | undefined;
    if (typeof options.expiresAt === "string") {
      ms = parseRfc3339(options.expiresAt);
      if (ms === undefined) {
        throw bad(
          `expires_at ${JSON.stringify(options.expiresAt)} is not a strict RFC 3339 timestamp ` +
            `(e.g. 2026-11-01T10:00:00Z)`,
          "expires_at",
        );
      }
      doc.expires_at = options.expiresAt;
    } else {
      ms = typeof options.expiresAt === "number" ? options.expiresAt : options.expiresAt.getTime();
      doc.expires_at = formatRfc3339(ms);
    }
    if (!(ms > signedAtMs)) throw bad("expires_at must be later than signed_at", "expires_at");
  }
  if (options.schemaVersion !== undefined) {
    if (options.schemaVersion === "") throw bad("schema_version is empty", "schema_version");
    doc.schema_version = options.schemaVersion;
  }
  if (options.previousHash !== undefined) {
    if (!isSha256Ref(options.previousHash)) {
      throw bad(
        `previous_hash ${JSON.stringify(options.previousHash)} ${
          describeBadSha256Ref(options.previousHash)
        }`,
        "previous_hash",
      );
    }
    if (options.previousHash === hash.skillHash) {
      throw bad(
        "previous_hash equals this skill's own skill_hash (nothing changed since that " +
          "signature); it must name the previous version",
        "previous_hash",
      );
    }
    doc.previous_hash = options.previousHash;
  }
  if (options.canonicalization !== undefined) {
    doc.canonicalization = declaredCanonicalization(options.canonicalization);
  }
  doc.domain = dc.domain;
  const kid = options.signerKid ?? publicKey.fingerprint;
  if (kid === "") throw bad("signer_kid is empty", "signer_kid");
  doc.signer_kid = kid;
  doc.file_manifest = hash.manifest;
  return doc;
}

/**
 * Serialises a skill signature document for `.schemapin.sig`: known fields in the order of
 * {@linkcode SKILL_SIGNATURE_FIELDS}, two-space indentation, trailing newline.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "jsr:@schemapin/schemapin";
 * import { formatSkillSignatureDocument, signSkillDir } from "jsr:@schemapin/schemapin/skill";
 * const { document } = await signSkillDir("./pdf-tools", generateKeyPair(), {
 *   domain: "example.com",
 * });
 * const text = formatSkillSignatureDocument(document); // what .schemapin.sig holds
 * await Deno.writeTextFile("./pdf-tools/.schemapin.sig", text);
 * ```
 */
export function formatSkillSignatureDocument(document: SkillSignatureDocument): string {
  checkArg("formatSkillSignatureDocument", "document", document, "object");
  return formatSignedDocument(document, SKILL_SIGNATURE_FIELDS);
}
