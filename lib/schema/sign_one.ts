/**
 * One schema signed the way `sign-schema` writes it — a bare Base64 line, or a formatted 1.4
 * signature document — shared by the command and its batch worker threads
 * (`batch_worker.ts`), so both produce the same bytes.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { PrivateKey } from "../crypto/keys.ts";
import {
  formatSchemaSignatureDocument,
  type SchemaDocumentOptions,
  signSchemaBase64,
  signSchemaDocument,
} from "./document.ts";

/** A signed schema: the file text, and the fields `--json` reports. */
export interface SignedSchema {
  /** What the signature file holds. */
  text: string;
  /** `{file, signature}` or `{file, document}`. */
  json: Record<string, unknown>;
}

/**
 * Signs `schema` with `key`: a bare signature when `docOptions` is undefined, else a signature
 * document. A schema without a canonical form is `INPUT_INVALID` naming `file` (exit 2).
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "../crypto/keys.ts";
 * import { signOne } from "./sign_one.ts";
 * const { text } = signOne({ name: "t" }, generateKeyPair(), undefined, "t.json");
 * text.endsWith("\n"); // true
 * ```
 */
export function signOne(
  schema: unknown,
  key: PrivateKey,
  docOptions: SchemaDocumentOptions | undefined,
  file: string,
): SignedSchema {
  try {
    if (docOptions === undefined) {
      const sig = signSchemaBase64(schema, key);
      return { text: sig + "\n", json: { file, signature: sig } };
    }
    const doc = signSchemaDocument(schema, key, docOptions);
    return { text: formatSchemaSignatureDocument(doc), json: { file, document: doc } };
  } catch (e) {
    if (e instanceof SchemaPinError && e.code === "SCHEMA_CANONICALIZATION_FAILED") {
      // A schema that cannot be signed is malformed input here (exit 2), naming the file.
      throw new SchemaPinError("INPUT_INVALID", `${file}: ${e.message}`, { path: file });
    }
    throw e;
  }
}
