/**
 * How a schema verification was asked for, checked before anything is read: which signature
 * options go together ({@linkcode checkSchemaVerifyRequest}), a tool id given for the pin
 * ({@linkcode checkToolIdOption}, also a skill folder's), and a signature given inline as Base64 rather than as a file
 * ({@linkcode inlineSignature}), and the folder of a batch ({@linkcode listVerifyBatch}).
 * Mistakes are usage errors naming the `verify-schema` option.
 *
 * @module
 */
import { usageError } from "../../lib/errors.ts";
import { checkToolId } from "../../lib/pins/store.ts";
import { type BatchListing, listBatch } from "../../lib/schema/batch_list.ts";
import { inspectInlineSignature, requireDirectory } from "../../lib/schema/input.ts";

/** The signature options of a schema verification, by their `verify-schema` names. */
export interface SchemaVerifyRequest {
  /** `--batch DIR`: a folder of schemas instead of one. */
  readonly batch?: string;
  /** The schema file of a single verification (`-` is stdin). */
  readonly schema?: string;
  /** `--signature FILE` (`-` is stdin). */
  readonly signature?: string;
  /** `--signature-base64 B64`. */
  readonly "signature-base64"?: string;
  /** `--tool-id ID`. */
  readonly "tool-id"?: string;
}

/**
 * Checks that the signature options fit: a batch takes none of `--signature`,
 * `--signature-base64` and `--tool-id` (each schema has its own); a single schema takes
 * exactly one of `--signature` and `--signature-base64`, not stdin for both, and a usable tool
 * id.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` (a usage error) naming the options.
 *
 * @example
 * ```ts
 * import { checkSchemaVerifyRequest } from "./verify_request.ts";
 * checkSchemaVerifyRequest({ schema: "tool.json", signature: "tool.json.sig" }); // fine
 * ```
 */
export function checkSchemaVerifyRequest(request: SchemaVerifyRequest): void {
  if (request.batch !== undefined) {
    for (const k of ["signature", "signature-base64", "tool-id"] as const) {
      if (request[k] !== undefined) throw usageError(`--${k} does not go with --batch`);
    }
    return;
  }
  if ((request.signature === undefined) === (request["signature-base64"] === undefined)) {
    throw usageError("give exactly one of --signature FILE and --signature-base64 B64");
  }
  if (request.schema === "-" && request.signature === "-") {
    throw usageError("the schema and the signature cannot both be stdin");
  }
  checkToolIdOption(request["tool-id"]);
}

/**
 * Checks a tool id given for the pin (`--tool-id`; `checkToolId` of lib/pins/store.ts).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` (a usage error) saying what is wrong with it.
 *
 * @example
 * ```ts
 * import { checkToolIdOption } from "./verify_request.ts";
 * checkToolIdOption("calculate_sum"); // fine; "" throws
 * ```
 */
export function checkToolIdOption(toolId: string | undefined): void {
  if (toolId === undefined) return;
  const problem = checkToolId(toolId);
  if (problem) throw usageError(`--tool-id: ${problem}`);
}

/**
 * The inline Base64 signature of a verification, if any: `base64` (`--signature-base64`),
 * which must be Base64 text and not the name of a file; or `signature` (`--signature`) when it
 * is the old inline form (kept for one release, `deprecated` is then true): not an existing
 * path, and Base64 that decodes to a DER ECDSA signature. Anything else in `signature` is a
 * file name (`value` is then undefined).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` (a usage error) for an empty `base64`, one naming a
 *   file, or one that is not Base64 — the user's argument, not a publisher's file (a
 *   well-formed signature that does not verify is a verification failure instead).
 *
 * @example
 * ```ts ignore
 * import { inlineSignature } from "./verify_request.ts";
 * await inlineSignature("MEUCIQ…", undefined); // { value: "MEUCIQ…", deprecated: false }
 * await inlineSignature(undefined, "tool.json.sig"); // { deprecated: false }: a file
 * ```
 */
export async function inlineSignature(
  base64: string | undefined,
  signature: string | undefined,
): Promise<{ value?: string; deprecated: boolean }> {
  if (base64 !== undefined) {
    if (base64.trim() === "") throw usageError("--signature-base64 is empty");
    const inline = await inspectInlineSignature(base64);
    if (inline.path === "file") {
      throw usageError(
        `--signature-base64 takes the Base64 signature itself, and ${base64} is a file; ` +
          `give --signature ${base64}`,
      );
    }
    const scanned = inline.base64Problem;
    if (scanned !== undefined) {
      throw usageError(
        `--signature-base64 is not Base64 (${scanned.problem} at offset ${scanned.offset}); ` +
          "give the Base64 signature, or --signature FILE for a file",
      );
    }
    return { value: base64, deprecated: false };
  }
  if (signature === undefined) return { deprecated: false };
  const inline = await inspectInlineSignature(signature);
  return inline.path === "none" && inline.derSignature
    ? { value: signature, deprecated: true }
    : { deprecated: false };
}

/**
 * The schemas of a verify batch: `dir` listed for `pattern` (`listBatch` of
 * lib/schema/batch_list.ts), and `signatureDir`, when given, checked to be a folder — a mistyped
 * one is the user's input error, not every schema of the batch unsigned.
 *
 * @throws {SchemaPinError} `IO_FAILED` naming a folder that cannot be listed or is not one;
 *   `INPUT_INVALID` for a pattern that is not a file-name pattern.
 *
 * @example
 * ```ts ignore
 * import { listVerifyBatch } from "./verify_request.ts";
 * const { files } = await listVerifyBatch("schemas", "*.json", "sigs");
 * ```
 */
export async function listVerifyBatch(
  dir: string,
  pattern: string,
  signatureDir: string | undefined,
): Promise<BatchListing> {
  const listing = listBatch(dir, pattern);
  if (signatureDir !== undefined) await requireDirectory("--signature-dir", signatureDir);
  return listing;
}
