/**
 * What `sign-schema` writes and where, checked before anything is written: the format asked
 * for ({@linkcode chooseSignatureFormat}) and a 1.4 document's options
 * ({@linkcode schemaDocumentOptions}); an existing signature file is never replaced by one of
 * the other format unnoticed ({@linkcode refuseFormatSwitch}), and a batch without `force`
 * replaces nothing ({@linkcode prepareSignBatch}: listed, checked, then its output folder
 * created).
 *
 * @module
 */
import { describeBadSha256Ref, isSha256Ref } from "../../lib/crypto/fingerprint.ts";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import type { SchemaDocumentOptions } from "../../lib/schema/document.ts";
import {
  describeFsError,
  isNotFound,
  lstatSync,
  mkdirAll,
  readFile,
} from "../../lib/runtime/fs.ts";
import { type BatchListing, joinPath, listBatch } from "../../lib/schema/batch.ts";

/** The two signature formats: a bare Base64 signature (v1.3) or a 1.4 signature document. */
export type SignatureFormat = "bare" | "document";

const FORMAT_NAMES: Record<SignatureFormat, string> = {
  bare: "a bare Base64 signature (--format bare)",
  document: "a 1.4 signature document (--format document)",
};

/**
 * The format to write: `format` when given (`bare` with document metadata is a usage error
 * naming it), else inferred — `document` when `metadata` (the names of the 1.4 document's
 * fields asked for, e.g. `--domain`) is not empty (`inferred` is then true: the caller says
 * so), else `bare`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` (a usage error) for another format, or `bare` with
 *   metadata.
 *
 * @example
 * ```ts
 * import { chooseSignatureFormat } from "./sign_output.ts";
 * chooseSignatureFormat(undefined, ["--domain"]); // { format: "document", inferred: true }
 * chooseSignatureFormat("bare", []); // { format: "bare", inferred: false }
 * ```
 */
export function chooseSignatureFormat(
  format: string | undefined,
  metadata: readonly string[],
): { format: SignatureFormat; inferred: boolean } {
  if (format === undefined) {
    return metadata.length > 0
      ? { format: "document", inferred: true }
      : { format: "bare", inferred: false };
  }
  if (format !== "bare" && format !== "document") {
    throw usageError(`--format ${JSON.stringify(format)}: give bare or document`);
  }
  if (format === "bare" && metadata.length > 0) {
    throw usageError(
      `--format bare does not go with ${metadata.join(", ")} (a 1.4 document's fields); ` +
        "use --format document",
    );
  }
  return { format, inferred: false };
}

/**
 * The options of a 1.4 document: `metadata` (signing time, expiry, domain, key id) with the
 * `--schema-version` and `--previous-hash` asked for, checked before anything is signed (a
 * batch creates its output folder first).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` (a usage error) for an empty schema version or a
 *   previous hash that is not a `sha256:` reference.
 *
 * @example
 * ```ts
 * import { schemaDocumentOptions } from "./sign_output.ts";
 * schemaDocumentOptions({ signedAt: Date.now() }, "2.1.0", undefined).schemaVersion; // "2.1.0"
 * ```
 */
export function schemaDocumentOptions(
  metadata: SchemaDocumentOptions,
  schemaVersion: string | undefined,
  previousHash: string | undefined,
): SchemaDocumentOptions {
  if (schemaVersion === "") throw usageError("--schema-version is empty");
  if (previousHash !== undefined && !isSha256Ref(previousHash)) {
    throw usageError(
      `--previous-hash ${JSON.stringify(previousHash)} ${describeBadSha256Ref(previousHash)}`,
    );
  }
  const options = { ...metadata };
  if (schemaVersion !== undefined) options.schemaVersion = schemaVersion;
  if (previousHash !== undefined) options.previousHash = previousHash;
  return options;
}

/**
 * The format of an existing signature file (a JSON document or bare Base64), or undefined
 * when there is no file there.
 */
async function existingFormat(path: string): Promise<SignatureFormat | undefined> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch {
    return undefined; // missing (or unreadable: the write reports it)
  }
  return new TextDecoder().decode(bytes).trimStart().startsWith("{") ? "document" : "bare";
}

/**
 * Refuses to replace an existing signature file at `path` of the other format than `format`
 * (a rerun without the metadata flags must not turn a 1.4 document into bare Base64
 * unnoticed); the caller skips this check when asked to replace outputs.
 *
 * @throws {SchemaPinError} `IO_FAILED` naming `path` and both formats.
 *
 * @example
 * ```ts ignore
 * import { refuseFormatSwitch } from "./sign_output.ts";
 * await refuseFormatSwitch("tool.json.sig", "bare"); // throws if it holds a 1.4 document
 * ```
 */
export async function refuseFormatSwitch(path: string, format: SignatureFormat): Promise<void> {
  const existing = await existingFormat(path);
  if (existing === undefined || existing === format) return;
  throw new SchemaPinError(
    "IO_FAILED",
    `${path} holds ${FORMAT_NAMES[existing]} and this run writes ${
      FORMAT_NAMES[format]
    }; nothing was written — pass --format ${existing} to keep its format, or --force to ` +
      "replace it",
    { path },
  );
}

/**
 * Refuses a batch that would replace a signature file: when any `outDir/<name>.sig` exists,
 * it stops before writing (one rule for outputs), naming a file of the other format first
 * ({@linkcode refuseFormatSwitch}), else the first few.
 */
async function refuseExistingSignatures(
  outDir: string,
  files: readonly string[],
  format: SignatureFormat,
): Promise<void> {
  const existing: string[] = [];
  for (const name of files) {
    const path = joinPath(outDir, `${name}.sig`);
    try {
      lstatSync(path);
      existing.push(path);
    } catch (e) {
      if (!isNotFound(e)) {
        throw new SchemaPinError("IO_FAILED", `cannot check ${path}: ${describeFsError(e)}`, {
          path,
        });
      }
    }
  }
  if (existing.length === 0) return;
  for (const path of existing) await refuseFormatSwitch(path, format);
  const shown = existing.slice(0, 3).join(", ") + (existing.length > 3 ? ", …" : "");
  throw new SchemaPinError(
    "IO_FAILED",
    `${existing.length} signature file(s) already exist (${shown}); nothing was written — ` +
      `add --force to replace them`,
    { path: outDir },
  );
}

/** Inputs of {@linkcode prepareSignBatch}. */
export interface SignBatchTarget {
  /** The folder of the schemas. */
  readonly dir: string;
  /** The file-name pattern of the schemas (`*` and `?`). */
  readonly pattern: string;
  /** Where `<name>.sig` is written (created when missing). */
  readonly outDir: string;
  /** The format the batch writes. */
  readonly format: SignatureFormat;
  /** Replace existing signature files. */
  readonly force?: boolean;
}

/**
 * Sets up a sign batch before anything is signed: lists `dir` ({@linkcode listBatch}), refuses
 * (without `force`) when a signature file the batch would write exists, and creates `outDir`.
 *
 * @throws {SchemaPinError} `IO_FAILED` naming the folder or the files in the way;
 *   `INPUT_INVALID` for a pattern that is not a file-name pattern.
 *
 * @example
 * ```ts ignore
 * import { prepareSignBatch } from "./sign_output.ts";
 * const { files } = await prepareSignBatch({
 *   dir: "schemas", pattern: "*.json", outDir: "sigs", format: "bare",
 * });
 * ```
 */
export async function prepareSignBatch(target: SignBatchTarget): Promise<BatchListing> {
  const { outDir } = target;
  const listing = listBatch(target.dir, target.pattern);
  if (target.force !== true) await refuseExistingSignatures(outDir, listing.files, target.format);
  try {
    await mkdirAll(outDir, 0o777);
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot create ${outDir}: ${describeFsError(e)}`, {
      path: outDir,
    });
  }
  return listing;
}
