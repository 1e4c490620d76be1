/**
 * One schema signed the way `sign-schema` writes it — a bare Base64 line, or a formatted 1.4
 * signature document — shared by the command and its batch worker threads
 * (`batch_worker.ts`), so both produce the same bytes; {@linkcode signOneWithSigner} with any
 * `Signer` (a key held by an SSH agent), the same bytes again for a key in memory.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { PrivateKey } from "../crypto/keys.ts";
import type { Signer } from "../crypto/signer.ts";
import {
  formatSchemaSignatureDocument,
  type SchemaDocumentOptions,
  signSchemaBase64,
  signSchemaBase64WithSigner,
  signSchemaDocument,
  signSchemaDocumentWithSigner,
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
    throw asInputError(e, file);
  }
}

/** A schema that cannot be signed is malformed input here (exit 2), naming the file. */
function asInputError(e: unknown, file: string): unknown {
  if (e instanceof SchemaPinError && e.code === "SCHEMA_CANONICALIZATION_FAILED") {
    return new SchemaPinError("INPUT_INVALID", `${file}: ${e.message}`, { path: file });
  }
  return e;
}

/**
 * {@linkcode signOne} with a `Signer` (`--key ssh-agent:PUBFILE`): the same text and fields;
 * with `privateKeySigner(key)`, the same bytes as `signOne` with `key`.
 *
 * @example
 * ```ts
 * import { generateKeyPair } from "../crypto/keys.ts";
 * import { privateKeySigner } from "../crypto/signer.ts";
 * import { signOneWithSigner } from "./sign_one.ts";
 * const signer = privateKeySigner(generateKeyPair());
 * const { text } = await signOneWithSigner({ name: "t" }, signer, undefined, "t.json");
 * text.endsWith("\n"); // true
 * ```
 */
export async function signOneWithSigner(
  schema: unknown,
  signer: Signer,
  docOptions: SchemaDocumentOptions | undefined,
  file: string,
): Promise<SignedSchema> {
  try {
    if (docOptions === undefined) {
      const sig = await signSchemaBase64WithSigner(schema, signer);
      return { text: sig + "\n", json: { file, signature: sig } };
    }
    const doc = await signSchemaDocumentWithSigner(schema, signer, docOptions);
    return { text: formatSchemaSignatureDocument(doc), json: { file, document: doc } };
  } catch (e) {
    throw asInputError(e, file);
  }
}
