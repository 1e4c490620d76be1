/**
 * The local inputs of a skill folder's verification, read before any trust is fetched: the
 * folder (it must be one) and its signature document — the folder's own `.schemapin.sig`, or a
 * file given instead — with the domain that document names (§4b; the domain a 1.4 document
 * names is the one verified when none is given).
 *
 * @module
 */
import type { ReadInput } from "../schema/input.ts";
import { signedDocumentDomain } from "./document.ts";
import { peekFolderSignature, readSkillSignatureFile } from "./verify.ts";
import { checkSkillRoot } from "./walk.ts";

/**
 * Checks that `dir` is a folder and reads its signature: with `signaturePath`, that file
 * (`signature`, checked now: a malformed file the user named is an input error naming it and
 * the field); without, the folder's own `.schemapin.sig` is only looked at for its domain (it
 * stays part of what is verified: a broken one fails verification, `SIGNATURE_INVALID`).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` or `IO_FAILED` for a folder that is missing or not
 *   a directory; what `read` throws; `JSON_INVALID` or `INPUT_INVALID` for a malformed file.
 *
 * @example
 * ```ts ignore
 * import { readLocalSkillSignature } from "./local_signature.ts";
 * const { domain } = await readLocalSkillSignature("pdf-tools", undefined, (p) => Deno.readFile(p));
 * ```
 */
export async function readLocalSkillSignature(
  dir: string,
  signaturePath: string | undefined,
  read: ReadInput,
): Promise<{ signature?: unknown; domain?: string }> {
  checkSkillRoot(dir);
  if (signaturePath === undefined) {
    return { domain: signedDocumentDomain(peekFolderSignature(dir)) };
  }
  const signature = await readSkillSignatureFile(signaturePath, read);
  return { signature, domain: signedDocumentDomain(signature) };
}
