/**
 * Skill folders (SchemaPin §4b, §15): sign a folder into `.schemapin.sig` and verify it
 * against the documents you give it (from a file, or fetched with `resolveTrustDocuments` of
 * `./discovery`). A failed verification lists the files added, removed and modified since
 * signing (`changes`). The option and result types the skill ones extend are in `./schema`.
 *
 * Reading the folder is strict: a symbolic link, a device or a file that changes while it is
 * hashed stops the walk; `maxEntries`/`maxBytes` cap what is read. `verifySkillOffline` also
 * takes the files in memory (`files`) instead of a folder.
 *
 * Skills served over MCP (SEP-2640): `skillEntryFromFolder` turns a signed folder into the
 * entry a server lists, its signature in `_meta["dev.schemapin/signature"]`, and
 * `verifyServedSkill` checks the bytes a host read against an entry, then verifies the
 * signature over them.
 *
 * @example Sign a folder and verify it
 * ```ts
 * import {
 *   formatSkillSignatureDocument,
 *   signSkillDir,
 *   verifySkillOffline,
 * } from "jsr:@schemapin/schemapin/skill";
 * import { buildDiscoveryDocument } from "jsr:@schemapin/schemapin/discovery";
 * import { generateKeyPair, MemoryPinStore } from "jsr:@schemapin/schemapin";
 *
 * const key = generateKeyPair();
 * const signed = await signSkillDir("./pdf-tools", key, { domain: "example.com" });
 * await Deno.writeTextFile(
 *   "./pdf-tools/.schemapin.sig",
 *   formatSkillSignatureDocument(signed.document),
 * );
 *
 * const result = await verifySkillOffline({
 *   dir: "./pdf-tools",
 *   domain: "example.com",
 *   discovery: buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Example" }),
 *   pinStore: new MemoryPinStore(),
 *   trustFirstUse: true,
 * });
 * console.log(result.valid, result.keyPinning);
 * ```
 *
 * @module
 */

// Sign (§4b.5) and write the signature document
export { type SignedSkill, signSkillDir, type SignSkillDirOptions } from "./lib/skill/sign.ts";
export {
  formatSkillSignatureDocument,
  type SkillSignatureDocument,
  type SkillSignOptions,
} from "./lib/skill/document.ts";

// Verify (§15.1)
export {
  type SkillVerificationResult,
  verifySkillOffline,
  type VerifySkillOfflineOptions,
} from "./lib/skill/verify.ts";
export type { ManifestChanges } from "./lib/skill/manifest.ts";

// Skills served over MCP (SEP-2640): a signed folder as its entry, and an entry verified
export {
  type SkillEntry,
  skillEntryFromFolder,
  type SkillEntryFromFolderOptions,
} from "./lib/skill/served_sign.ts";
export {
  type ServedSkillVerificationResult,
  verifyServedSkill,
  type VerifyServedSkillOptions,
} from "./lib/skill/served_verify.ts";
export type { SkillProblem, SkillProblemKind } from "./lib/skill/served_check.ts";

// The §4b hash and the folder walk, as the options and results above name them
export type {
  HashSkillOptions,
  SkillAlgorithm,
  SkillEntryHash,
  SkillFileContent,
  SkillHash,
  SkillHashProgress,
} from "./lib/skill/hash.ts";
export type { SkillLimits } from "./lib/skill/walk.ts";

// Verify with the DNS TXT cross-check (§17), DNS looked up by a resolver you give (its options
// and report types are in ./schema, the resolvers in ./discovery)
export { verifySkillOfflineWithDns } from "./lib/skill/dns_verify.ts";
