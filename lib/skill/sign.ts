/**
 * Signing a skill folder (§4b.5): hash it, name it, sign the 1.4 document — nothing is written
 * — and then, as a separate step the caller takes only after all of this succeeded, write
 * `.schemapin.sig` atomically ({@linkcode writeSkillSignature}).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { PrivateKey } from "../crypto/keys.ts";
import type { Signer } from "../crypto/signer.ts";
import { parseJson } from "../json/parse.ts";
import {
  formatSkillSignatureDocument,
  parseSkillSignatureDocument,
  signSkillDocument,
  signSkillDocumentWithSigner,
  type SkillSignatureDocument,
  type SkillSignOptions,
} from "./document.ts";
import { skillNameFromFrontMatter } from "./front_matter.ts";
import { fsReason, readRegularFile } from "./fs.ts";
import { isNotFound, lstatSync } from "../runtime/fs.ts";
import { realpathSync } from "node:fs";
import { hashSkillDir, type HashSkillOptions, type SkillHash } from "./hash.ts";
import { checkSkillRoot, skillSignaturePath } from "./walk.ts";
import { writeFileAtomic } from "../runtime/atomic_write.ts";
import { checkArg, checkKeyArg, checkSignerArg } from "../arguments.ts";

/**
 * The `previous_hash` of a new release (§18.1): the `skill_hash` of the previous release's
 * signature document, given as the bytes of its `.schemapin.sig`.
 *
 * @param bytes The previous signature file.
 * @param source Its name in messages.
 * @throws {SchemaPinError} `JSON_INVALID` / `INPUT_INVALID` naming `source` for bytes that are
 *   not a skill signature document; `INPUT_INVALID` for arguments of the wrong type (misuse).
 *
 * @example
 * ```ts ignore
 * import { previousHashOf } from "./sign.ts";
 * const path = "old/.schemapin.sig";
 * const previousHash = previousHashOf(await Deno.readFile(path), path);
 * ```
 */
export function previousHashOf(bytes: Uint8Array, source: string): string {
  checkArg("previousHashOf", "bytes", bytes, "bytes");
  checkArg("previousHashOf", "source", source, "string");
  return parseSkillSignatureDocument(parseJson(bytes, source), source).document.skill_hash;
}

/** The most of `SKILL.md` read to find its front matter. */
const SKILL_MD_MAX_BYTES = 1 << 20;

/**
 * The default `skill_name` of the folder `dir`: the `name:` of its `SKILL.md` front matter,
 * else the folder's own name.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` / `IO_FAILED` when `SKILL.md` exists but is not a
 *   readable regular file of at most 1 MiB.
 *
 * @example
 * ```ts ignore
 * readSkillName("./pdf-tools"); // "pdf-tools"
 * ```
 */
export function readSkillName(dir: string): string {
  const root = checkSkillRoot(dir);
  const skillMd = `${root}/SKILL.md`;
  let present = true;
  try {
    lstatSync(skillMd);
  } catch (e) {
    if (!isNotFound(e)) {
      throw new SchemaPinError("IO_FAILED", `cannot inspect ${skillMd}: ${fsReason(e)}`, {
        path: skillMd,
      });
    }
    present = false;
  }
  if (present) {
    const bytes = readRegularFile(skillMd, SKILL_MD_MAX_BYTES, "SKILL.md");
    let text: string | undefined;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      text = undefined; // not UTF-8: no usable front matter
    }
    const name = text === undefined ? undefined : skillNameFromFrontMatter(text);
    if (name !== undefined) return name;
  }
  const real = realpathSync(root);
  return real.slice(real.lastIndexOf("/") + 1) || real;
}

/** Options of {@linkcode signSkillDir}. */
export interface SignSkillDirOptions
  extends Omit<SkillSignOptions, "skillName">, Omit<HashSkillOptions, "algorithm"> {
  /** `skill_name` (default {@linkcode readSkillName}). */
  skillName?: string;
}

/** A signed skill: the document to write to `.schemapin.sig` and the hash it covers. */
export interface SignedSkill {
  /** The 1.4 signature document. */
  readonly document: SkillSignatureDocument;
  /** The folder's hash (§4b). */
  readonly hash: SkillHash;
}

/**
 * Hashes and signs the skill folder `dir` (§4b.5). Nothing is written.
 *
 * @throws {SchemaPinError} everything {@linkcode hashSkillDir} and `signSkillDocument` throw
 *   (`INPUT_INVALID`, `IO_FAILED`).
 *
 * @example
 * ```ts
 * import { parsePrivateKeyPem } from "jsr:@schemapin/schemapin/keys";
 * import { formatSkillSignatureDocument, signSkillDir } from "jsr:@schemapin/schemapin/skill";
 * const key = parsePrivateKeyPem(await Deno.readTextFile("private.pem"), "private.pem");
 * const { document } = await signSkillDir("./pdf-tools", key, { domain: "example.com" });
 * await Deno.writeTextFile("./pdf-tools/.schemapin.sig", formatSkillSignatureDocument(document));
 * ```
 */
export async function signSkillDir(
  dir: string,
  privateKey: PrivateKey,
  options: SignSkillDirOptions,
): Promise<SignedSkill> {
  checkArg("signSkillDir", "dir", dir, "string");
  checkKeyArg("signSkillDir", "privateKey", privateKey, "private");
  checkArg("signSkillDir", "options", options, "object");
  return await hashAndSign(
    dir,
    options,
    (hash, meta) => Promise.resolve(signSkillDocument(hash, privateKey, meta)),
  );
}

/**
 * {@linkcode signSkillDir} with a `Signer` — a key held elsewhere, such as in an SSH agent
 * (`sshAgentSigner`): the folder is hashed as `signSkillDir` hashes it, and the signer signs
 * the §4b.5 signing input (the canonical document with `signature: ""`). Nothing is written.
 *
 * @throws {SchemaPinError} what `signSkillDir` throws, `INPUT_INVALID` for something that is
 *   not a signer, and the signer's errors (`IO_FAILED` from an agent; `KEY_INVALID` for a
 *   signature that does not verify).
 *
 * @example
 * ```ts
 * import { sshAgentSigner } from "../../cli/ssh_agent/client.ts";
 * import { formatSkillSignatureDocument } from "jsr:@schemapin/schemapin/skill";
 * import { signSkillDirWithSigner } from "./sign.ts";
 * const signer = await sshAgentSigner(await Deno.readTextFile("id_ecdsa.pub"));
 * const { document } = await signSkillDirWithSigner("./pdf-tools", signer, {
 *   domain: "example.com",
 * });
 * await Deno.writeTextFile("./pdf-tools/.schemapin.sig", formatSkillSignatureDocument(document));
 * ```
 */
export async function signSkillDirWithSigner(
  dir: string,
  signer: Signer,
  options: SignSkillDirOptions,
): Promise<SignedSkill> {
  checkArg("signSkillDirWithSigner", "dir", dir, "string");
  checkSignerArg("signSkillDirWithSigner", "signer", signer);
  checkArg("signSkillDirWithSigner", "options", options, "object");
  return await hashAndSign(
    dir,
    options,
    (hash, meta) => signSkillDocumentWithSigner(hash, signer, meta),
  );
}

/** Hashes `dir`, names the skill, and signs the document with `sign`. */
async function hashAndSign(
  dir: string,
  options: SignSkillDirOptions,
  sign: (hash: SkillHash, meta: SkillSignOptions) => Promise<SkillSignatureDocument>,
): Promise<SignedSkill> {
  const {
    maxEntries,
    maxBytes,
    onProgress,
    onWalkProgress,
    progressIntervalMs,
    skillName,
    ...meta
  } = options;
  const hash = await hashSkillDir(dir, {
    maxEntries,
    maxBytes,
    onProgress,
    onWalkProgress,
    progressIntervalMs,
  });
  const name = skillName ?? readSkillName(dir);
  try {
    return { document: await sign(hash, { ...meta, skillName: name }), hash };
  } catch (e) {
    if (
      e instanceof SchemaPinError && e.details.field === "skill_name" && skillName === undefined
    ) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${e.message} (taken from ${dir}/SKILL.md or the folder name); give a name explicitly`,
        e.details,
      );
    }
    throw e;
  }
}

/**
 * Writes `document` to the skill folder's `.schemapin.sig` ({@linkcode skillSignaturePath}),
 * pretty-printed and atomically, replacing an older one; returns the path written.
 *
 * @throws {SchemaPinError} `IO_FAILED` naming the file.
 *
 * @example
 * ```ts ignore
 * import { signSkillDir, writeSkillSignature } from "./sign.ts";
 * const { document } = await signSkillDir("./pdf-tools", key, { domain: "example.com" });
 * await writeSkillSignature("./pdf-tools", document); // "./pdf-tools/.schemapin.sig"
 * ```
 */
export async function writeSkillSignature(
  dir: string,
  document: SkillSignatureDocument,
): Promise<string> {
  const path = skillSignaturePath(dir);
  await writeFileAtomic(path, formatSkillSignatureDocument(document), { overwrite: true });
  return path;
}
