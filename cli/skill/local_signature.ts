/**
 * The local inputs of a skill folder's verification, read before any trust is fetched: the
 * folder (it must be one) and its signature document — the folder's own `.schemapin.sig`, or a
 * file given instead — with the domain that document names (§4b; the domain a 1.4 document
 * names is the one verified when none is given).
 *
 * @module
 */
import type { ReadInput } from "../../lib/schema/input.ts";
import { signedDocumentDomain } from "../../lib/skill/document.ts";
import type { SchemaPinError } from "../../lib/errors.ts";
import { readSkillName } from "../../lib/skill/sign.ts";
import {
  folderSignatureProblem,
  peekFolderSignature,
  readSkillSignatureFile,
} from "../../lib/skill/verify.ts";
import { checkSkillRoot } from "../../lib/skill/walk.ts";

/** What {@linkcode readLocalSkillSignature} found. */
export interface LocalSkillSignature {
  /** The signature file given instead of the folder's own (parsed and checked). */
  readonly signature?: unknown;
  /** The domain the signature names (absent for a legacy document or one without). */
  readonly domain?: string;
  /**
   * Why the folder's own `.schemapin.sig` cannot be verified (missing: unsigned, not JSON, not a
   * signature document), as verification would report it; absent with a signature file given.
   */
  readonly problem?: SchemaPinError;
  /**
   * The name `sign-skill` gives the folder (its `SKILL.md` front matter `name`, else the folder's
   * name), to name the skill in a failure whose signature names none; absent when unreadable.
   */
  readonly skillName?: string;
}

/**
 * Checks that `dir` is a folder and reads its signature: with `signaturePath`, that file
 * (`signature`, checked now: a malformed file the user named is an input error naming it and
 * the field); without, the folder's own `.schemapin.sig` is only looked at for its domain and
 * for what is wrong with it (`problem`; it stays part of what is verified: a broken one fails
 * verification).
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
): Promise<LocalSkillSignature> {
  checkSkillRoot(dir);
  const skillName = nameOf(dir);
  if (signaturePath === undefined) {
    const problem = folderSignatureProblem(dir);
    if (problem) return { problem, ...skillName };
    return { domain: signedDocumentDomain(peekFolderSignature(dir)), ...skillName };
  }
  const signature = await readSkillSignatureFile(signaturePath, read);
  return { signature, domain: signedDocumentDomain(signature), ...skillName };
}

function nameOf(dir: string): { skillName?: string } {
  try {
    return { skillName: readSkillName(dir) };
  } catch {
    return {}; // an unreadable SKILL.md is reported by the verification itself
  }
}
