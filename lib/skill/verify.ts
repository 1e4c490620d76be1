/**
 * `verifySkillOffline`: verifies a signed skill folder with the §15.1 seven-step flow shared
 * with schemas (`lib/schema/flow.ts`): discovery, fingerprint, revocation, pin check without
 * writing, then — this module's part — the folder hash and the signature, then expiry, and
 * the pin only after success with an explicit first-use opt-in.
 *
 * Steps 5–6 for a skill:
 * - 1.4 documents (§4b.5): recompute the root hash, verify the signature over the
 *   schemapin-v1 canonical document rebuilt from its parsed known fields (`signature: ""`),
 *   require `skill_hash` to equal the root hash and `file_manifest` to equal the folder's;
 *   unknown fields are reported as unprotected (`unprotected_fields`).
 * - Legacy documents (`schemapin_version` below "1.4"): recompute the legacy root hash and
 *   verify the signature over the 32-byte root hash (ECDSA P-256 with SHA-256 over those 32
 *   bytes, i.e. the ECDSA digest is `SHA-256(root)` — the construction that makes the
 *   reference SDKs' signatures verify). Accepted with the `legacy_signature_format` warning:
 *   none of its fields is signed, and it is never a lineage anchor (§18.4).
 * - A document labelled 1.4 (or later) whose signature does not verify over its canonical
 *   document but does verify over its 32-byte `skill_hash` signs the legacy way under a 1.4
 *   label — what the reference SDKs write when they add `expires_at`. It fails
 *   (`SIGNATURE_INVALID`, `signsLegacyHash: true`): §4b makes `schemapin_version` select the
 *   algorithm ("The algorithm, identified by `schemapin_version: "1.4"`… Verifiers MUST …
 *   verify the signature over those bytes"), and only documents "below "1.4"" are legacy
 *   documents a verifier MAY accept; accepting it would also let its unsigned
 *   `previous_hash` anchor lineage (§18.4). The folder is then compared with the legacy
 *   hash, so the message says whether anything was modified instead of listing every file.
 * - When the folder differs from what was signed, the result lists the files added, removed
 *   and modified (signed `file_manifest` against the folder).
 * - The document's `domain`, when present, must be the verified domain; the pin key and the
 *   reported domain come only from the validated `domain` argument.
 *
 * Symbolic links abort for legacy documents too (the legacy algorithm skipped them): the
 * folder walk is the same hostile-input-safe walk for both. The legacy walk leaves out a
 * nested `.schemapin.sig` as the 1.3 signers did (§4b: the "top-level" exclusion is a rule of
 * the 1.4 algorithm); such files are listed in `unsignedFiles` with the
 * `legacy_nested_signature_files` warning.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parseJson } from "../json/parse.ts";
import { verifyDocumentSignature } from "../crypto/ecdsa.ts";
import { acceptSignedDocument, checkDeclaredCanonicalization } from "../schema/flow_document.ts";
import {
  type BeforePinHook,
  messageOf,
  type OfflineFlowOptions,
  type OfflineSubject,
  type OfflineVerificationResult,
  runOfflineFlow,
  type StepFailure,
} from "../schema/flow.ts";
import {
  parseSkillSignatureDocument,
  type SkillSignatureDocument,
  skillSigningInput,
} from "./document.ts";
import { readRegularFile, showPath } from "./fs.ts";
import { isNotFound, lstatSync } from "../runtime/fs.ts";
import {
  hashSkillDir,
  hashSkillFiles,
  type SkillAlgorithm,
  type SkillFileContent,
  type SkillHash,
  type SkillHashProgress,
} from "./hash.ts";
import {
  compareManifests,
  describeChanges,
  isUnchanged,
  type ManifestChanges,
} from "./manifest.ts";
import { SIGNATURE_FILE_NAME, type SkillLimits, skillSignaturePath } from "./walk.ts";
import { checkArg } from "../arguments.ts";
import { type ReadInput, sourceName } from "../schema/input.ts";

/** The largest `.schemapin.sig` read: 32 MiB (10,000 entries with long paths fit easily). */
export const MAX_SIGNATURE_FILE_BYTES: number = 32 * 1024 * 1024;

/** Inputs of {@linkcode verifySkillOffline}. */
export interface VerifySkillOfflineOptions extends OfflineFlowOptions, SkillLimits {
  /** The skill folder. Give `dir` or `files`. */
  dir?: string;
  /** The skill's files in memory, instead of a folder (then `signature` is required). */
  files?: Iterable<SkillFileContent>;
  /**
   * The parsed signature document; default: `dir/.schemapin.sig`, read as a regular file of
   * at most {@linkcode MAX_SIGNATURE_FILE_BYTES}.
   */
  signature?: unknown;
  /** Pin under this tool id instead of the document's `skill_name`. */
  toolId?: string;
  /** Progress while hashing (see `hashSkillDir`). */
  onProgress?: (progress: SkillHashProgress) => void | Promise<void>;
  /** Milliseconds between `onProgress` calls (see `hashSkillDir`). */
  progressIntervalMs?: number;
  /** Progress while the folder is walked (see `hashSkillDir`). */
  onWalkProgress?: (filesFound: number) => void;
}

/** The structured result of a skill verification. */
export interface SkillVerificationResult extends OfflineVerificationResult {
  /**
   * Warning codes: `legacy_signature_format` (a pre-1.4 document: no field is signed),
   * `legacy_nested_signature_files` (the legacy algorithm left nested `.schemapin.sig` files
   * out of the signature, see `unsignedFiles`),
   * `unprotected_fields` (see `unprotectedFields`), `signature_expired`,
   * `signature_expires_at_unparseable` (with `allowExpired`), `revocation_document_missing`,
   * `discovery_schema_version_newer`, `signature_version_newer`.
   */
  warnings: string[];
  /** `"1.4"` (§4b) or `"legacy"`, once the document parsed. */
  signatureFormat?: SkillAlgorithm;
  /** The document's `skill_name`. */
  skillName?: string;
  /** The folder's hash as recomputed (step 5), `sha256:…`. */
  skillHash?: string;
  /** Number of files hashed. */
  files?: number;
  /** Bytes hashed. */
  totalBytes?: number;
  /**
   * Nested `.schemapin.sig` files that a legacy (1.3) signature does not cover: the legacy
   * algorithm leaves that name out at every depth, as the reference SDKs do (§4b; see
   * `WalkSkillOptions` in walk.ts). Present only when there are some.
   */
  unsignedFiles?: string[];
  /** What differs between the signed manifest and the folder, when anything does. */
  changes?: ManifestChanges;
  /**
   * True only for a verified 1.4 document: lineage (§18.4) may be anchored on it. Legacy
   * documents never are.
   */
  lineageAnchor: boolean;
  /** The parsed document, once the signature verified. */
  document?: SkillSignatureDocument;
  /**
   * True when the document is labelled 1.4 (or later) but its signature covers only its
   * legacy (1.3) root hash — the reference SDKs' "1.4" documents. Always a failure
   * (`SIGNATURE_INVALID`); `changes` then compares the folder with that legacy hash.
   */
  signsLegacyHash?: boolean;
}

function failure(errorCode: StepFailure["errorCode"], errorMessage: string): StepFailure {
  return { errorCode, errorMessage };
}

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/**
 * True when `doc.signature` verifies over the 32-byte root hash named by `doc.skill_hash` —
 * the legacy construction (ECDSA P-256 with SHA-256 over the root hash).
 */
function verifiesOverRootHash(
  key: Parameters<typeof verifyDocumentSignature>[2],
  doc: SkillSignatureDocument,
): boolean {
  if (!/^sha256:[0-9a-f]{64}$/.test(doc.skill_hash)) return false;
  return verifyDocumentSignature(hexToBytes(doc.skill_hash.slice(7)), doc.signature, key).valid;
}

/**
 * Records on `result` the nested `.schemapin.sig` files a legacy hash left out, with the
 * `legacy_nested_signature_files` warning, so that their exclusion is never silent.
 */
function noteExcluded(hash: SkillHash, result: SkillVerificationResult): void {
  if (hash.excluded.length === 0) return;
  result.unsignedFiles = [...hash.excluded];
  if (!result.warnings.includes("legacy_nested_signature_files")) {
    result.warnings.push("legacy_nested_signature_files");
  }
}

function changeSummary(changes: ManifestChanges): string {
  const lines = describeChanges(changes, 20).map(showPath);
  return `${changes.modified.length} modified, ${changes.added.length} added, ` +
    `${changes.removed.length} removed (${lines.join("; ")})`;
}

/**
 * The folder's own `.schemapin.sig` as JSON, only to look at it before verifying (the domain
 * it names); `undefined` when it is missing, not a regular file or not JSON — verification
 * reads it again and reports those itself.
 *
 * @example
 * ```ts ignore
 * import { peekFolderSignature } from "./verify.ts";
 * peekFolderSignature("./pdf-tools"); // { schemapin_version: "1.4", domain: "example.com", … }
 * ```
 */
export function peekFolderSignature(dir: string): unknown {
  const path = skillSignaturePath(dir);
  try {
    return parseJson(readRegularFile(path, MAX_SIGNATURE_FILE_BYTES, "signature file"), path);
  } catch {
    return undefined;
  }
}

/**
 * Why the folder's own `.schemapin.sig` cannot be verified, exactly as verification would
 * report it — missing (the skill is unsigned: `SIGNATURE_INVALID`), not a readable regular file,
 * not JSON (`JSON_INVALID`), not a skill signature document (`SIGNATURE_INVALID`) — or
 * `undefined` when it is a document, whether or not it names a domain. A command that needs the
 * domain the document names reports this instead of asking for `--domain`.
 *
 * @example
 * ```ts ignore
 * import { folderSignatureProblem } from "./verify.ts";
 * folderSignatureProblem("./unsigned")?.message; // "the skill is unsigned: … does not exist …"
 * ```
 */
export function folderSignatureProblem(dir: string): SchemaPinError | undefined {
  const read = readSignatureDocument(dir);
  if (read && typeof (read as StepFailure).errorCode === "string") {
    const f = read as StepFailure;
    return new SchemaPinError(f.errorCode, f.errorMessage, { path: skillSignaturePath(dir) });
  }
  try {
    parseSkillSignatureDocument(read, SIGNATURE_FILE_NAME);
  } catch (e) {
    return new SchemaPinError("SIGNATURE_INVALID", messageOf(e), {
      path: skillSignaturePath(dir),
    });
  }
  return undefined;
}

/**
 * Reads a skill signature document given as a file of its own (instead of the folder's
 * `.schemapin.sig`) and checks its structure now: a malformed file is an input error naming
 * the file and the field, not a failed verification.
 *
 * @throws {SchemaPinError} what `read` throws; `JSON_INVALID`; `INPUT_INVALID` from
 *   `parseSkillSignatureDocument`.
 *
 * @example
 * ```ts ignore
 * import { readSkillSignatureFile } from "./verify.ts";
 * const signature = await readSkillSignatureFile("skill.sig", (p) => Deno.readFile(p));
 * ```
 */
export async function readSkillSignatureFile(path: string, read: ReadInput): Promise<unknown> {
  const signature = parseJson(await read(path), sourceName(path));
  parseSkillSignatureDocument(signature, sourceName(path));
  return signature;
}

/** The document read from `dir/.schemapin.sig`, or a failure. */
function readSignatureDocument(dir: string): unknown | StepFailure {
  const path = skillSignaturePath(dir);
  try {
    lstatSync(path);
  } catch (e) {
    if (isNotFound(e)) {
      return failure(
        "SIGNATURE_INVALID",
        `the skill is unsigned: ${showPath(path)} does not exist (sign it with sign-skill)`,
      );
    }
  }
  try {
    return parseJson(readRegularFile(path, MAX_SIGNATURE_FILE_BYTES, "signature file"), path);
  } catch (e) {
    if (e instanceof SchemaPinError) return failure(e.code, e.message);
    throw e;
  }
}

class SkillSubject implements OfflineSubject<SkillVerificationResult> {
  #document: SkillSignatureDocument | undefined;
  #algorithm: SkillAlgorithm = "1.4";
  #unknownFields: readonly string[] = [];

  constructor(readonly options: VerifySkillOfflineOptions) {}

  prepare(result: SkillVerificationResult): StepFailure | { toolId: string } {
    const o = this.options;
    let value = o.signature;
    if (value === undefined) {
      const read = readSignatureDocument(o.dir!);
      if (read && typeof (read as StepFailure).errorCode === "string") return read as StepFailure;
      value = read;
    }
    const source = o.sources?.signature ?? SIGNATURE_FILE_NAME;
    let parsed;
    try {
      parsed = parseSkillSignatureDocument(value, source);
    } catch (e) {
      return failure("SIGNATURE_INVALID", messageOf(e));
    }
    result.warnings.push(...parsed.warnings);
    const canonicalization = checkDeclaredCanonicalization(parsed.document);
    if (canonicalization) return canonicalization;
    this.#document = parsed.document;
    this.#algorithm = parsed.algorithm;
    this.#unknownFields = parsed.unknownFields;
    result.signatureFormat = parsed.algorithm;
    result.skillName = parsed.document.skill_name;
    if (parsed.algorithm === "legacy") result.warnings.push("legacy_signature_format");
    return { toolId: parsed.document.skill_name };
  }

  /** The folder (or the in-memory `files`) hashed with `algorithm`. */
  #hash(algorithm: SkillAlgorithm, files: SkillFileContent[] | undefined): Promise<SkillHash> {
    const o = this.options;
    if (files !== undefined) return Promise.resolve(hashSkillFiles(files, algorithm));
    return hashSkillDir(o.dir!, {
      algorithm,
      maxEntries: o.maxEntries,
      maxBytes: o.maxBytes,
      onProgress: o.onProgress,
      onWalkProgress: o.onWalkProgress,
      progressIntervalMs: o.progressIntervalMs,
    });
  }

  /**
   * The failure for a document labelled 1.4 whose signature covers only its legacy root hash
   * (see the module documentation): the folder is hashed the legacy way so that the message
   * says whether it still matches what was signed, and `changes` lists only real changes.
   */
  async #legacyHashUnderNewLabel(
    doc: SkillSignatureDocument,
    files: SkillFileContent[] | undefined,
    result: SkillVerificationResult,
  ): Promise<StepFailure> {
    result.signsLegacyHash = true;
    const label = `schemapin_version ${JSON.stringify(doc.schemapin_version)}, but the ` +
      `signature covers only the legacy (1.3) root hash ${doc.skill_hash}, not the signature ` +
      `document (§4b)`;
    const advice = "; a document labelled 1.4 and signed the legacy way is refused, since none " +
      "of its metadata (skill_name, domain, signed_at, expires_at, versions, manifest) is " +
      "signed (§4b, §18.4) — the reference SDKs write '1.4' documents this way: ask the " +
      "publisher to re-sign with a SchemaPin 1.4 signer";
    let legacy: SkillHash;
    try {
      legacy = await this.#hash("legacy", files);
    } catch (e) {
      if (e instanceof SchemaPinError) return failure(e.code, `${label}; ${e.message}`);
      throw e;
    }
    const changes = doc.file_manifest === undefined
      ? undefined
      : compareManifests(doc.file_manifest, legacy.manifest);
    delete result.changes;
    if (changes && !isUnchanged(changes)) result.changes = changes;
    noteExcluded(legacy, result);
    if (legacy.skillHash === doc.skill_hash) {
      return failure(
        "SIGNATURE_INVALID",
        `${label}; no file was modified (the folder still has that legacy hash)${advice}`,
      );
    }
    return failure(
      "SIGNATURE_INVALID",
      `${label}; besides, the folder no longer matches that legacy hash (it hashes to ` +
        `${legacy.skillHash})` + (result.changes ? `: ${changeSummary(result.changes)}` : "") +
        advice,
    );
  }

  async verify(
    key: Parameters<OfflineSubject<SkillVerificationResult>["verify"]>[0],
    domain: string,
    result: SkillVerificationResult,
  ): Promise<StepFailure | { signed: SkillSignatureDocument }> {
    const doc = this.#document!;
    // In-memory files are read twice when a mislabelled document needs the legacy hash too.
    const files = this.options.files === undefined ? undefined : [...this.options.files];
    // Step 5: hash the folder with the algorithm the document's version selects.
    let hash: SkillHash;
    try {
      hash = await this.#hash(this.#algorithm, files);
    } catch (e) {
      if (e instanceof SchemaPinError) return failure(e.code, e.message);
      throw e;
    }
    result.skillHash = hash.skillHash;
    result.files = hash.entries.length;
    result.totalBytes = hash.totalBytes;
    noteExcluded(hash, result);
    const changes = doc.file_manifest === undefined
      ? undefined
      : compareManifests(doc.file_manifest, hash.manifest);
    if (changes && !isUnchanged(changes)) result.changes = changes;

    // Step 6: the signature, then the hash it covers.
    let check;
    if (this.#algorithm === "legacy") {
      // Legacy: the signature covers the 32-byte root hash only (ECDSA digest SHA-256(root)).
      check = verifyDocumentSignature(hexToBytes(doc.skill_hash.slice(7)), doc.signature, key);
    } else {
      let input: Uint8Array;
      try {
        input = skillSigningInput(doc);
      } catch (e) {
        return failure(
          "SIGNATURE_INVALID",
          `the signature document has no canonical signing input: ${messageOf(e)}`,
        );
      }
      check = verifyDocumentSignature(input, doc.signature, key);
    }
    if (!check.valid) {
      if (this.#algorithm === "1.4" && verifiesOverRootHash(key, doc)) {
        return await this.#legacyHashUnderNewLabel(doc, files, result);
      }
      const tampered = doc.skill_hash !== hash.skillHash && result.changes
        ? `; besides, the folder differs from the document's manifest: ${
          changeSummary(result.changes)
        }`
        : "";
      return failure("SIGNATURE_INVALID", check.errorMessage + tampered);
    }
    if (doc.skill_hash !== hash.skillHash) {
      return failure(
        "SIGNATURE_INVALID",
        `the signature is authentic but covers skill_hash ${doc.skill_hash}, while the folder ` +
          `hashes to ${hash.skillHash}: the skill changed after signing` +
          (result.changes ? `: ${changeSummary(result.changes)}` : ""),
      );
    }
    if (this.#algorithm === "1.4" && (changes === undefined || !isUnchanged(changes))) {
      return failure(
        "SIGNATURE_INVALID",
        "the signed file_manifest does not match the folder although skill_hash does: the " +
          "signer produced an inconsistent document",
      );
    }
    const rejected = acceptSignedDocument(doc, this.#unknownFields, domain, result);
    if (rejected) return rejected;
    result.lineageAnchor = this.#algorithm === "1.4";
    return { signed: doc };
  }
}

/**
 * Verifies a signed skill folder offline (see the module documentation and §15.1). Returns a
 * structured result; throws only on misuse (no pin store, neither or both of `dir` and
 * `files`).
 *
 * @example
 * ```ts
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { verifySkillOffline } from "jsr:@schemapin/schemapin/skill";
 * const result = await verifySkillOffline({
 *   dir: "./pdf-tools", // reads ./pdf-tools/.schemapin.sig
 *   domain: "example.com",
 *   discovery: parseJson(await Deno.readFile("schemapin.json"), "schemapin.json"),
 *   pinStore: new FilePinStore(),
 *   trustFirstUse: true,
 * });
 * if (!result.valid) console.error(result.errorCode, result.errorMessage, result.changes);
 * ```
 */
export function verifySkillOffline(
  options: VerifySkillOfflineOptions,
): Promise<SkillVerificationResult> {
  return verifySkillOfflineWithHook(options, undefined);
}

/**
 * {@linkcode verifySkillOffline} with a hook run after verification and before the pin is
 * written (A2A scope, DNS cross-check §17); a failure from it stops verification unpinned.
 *
 * @example
 * ```ts ignore
 * await verifySkillOfflineWithHook(options, (r) => dnsMatches(r.keyFingerprint) ? undefined
 *   : { errorCode: "DOMAIN_MISMATCH", errorMessage: "DNS TXT names another key" });
 * ```
 */
export async function verifySkillOfflineWithHook(
  options: VerifySkillOfflineOptions,
  beforePin: BeforePinHook<SkillVerificationResult> | undefined,
): Promise<SkillVerificationResult> {
  checkArg("verifySkillOffline", "options", options, "object");
  if ((options.dir === undefined) === (options.files === undefined)) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      "verifySkillOffline: give exactly one of options.dir and options.files",
      { function: "verifySkillOffline", argument: "options.dir" },
    );
  }
  checkArg("verifySkillOffline", "options.dir", options.dir, "string", true);
  checkArg("verifySkillOffline", "options.files", options.files, "iterable", true);
  if (options.files !== undefined && options.signature === undefined) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      "verifySkillOffline: options.files need an explicit options.signature document",
      { function: "verifySkillOffline", argument: "options.signature" },
    );
  }
  const result: SkillVerificationResult = {
    valid: false,
    toolId: options.toolId ?? "",
    keyPinning: "not_checked",
    warnings: [],
    expired: false,
    lineageAnchor: false,
  };
  return await runOfflineFlow(options, result, new SkillSubject(options), beforePin);
}
