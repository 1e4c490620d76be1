/**
 * Skill folders (SchemaPin §4b, §15, §18): sign a folder into `.schemapin.sig`, verify it
 * offline or with a resolver (§14, optional DNS TXT cross-check, §17), the §4b hash on its own,
 * the signature document's parts, and what changed between two signed versions.
 *
 * Reading the folder is strict: a symbolic link, a device or a file that changes while it is
 * hashed stops the walk; `maxEntries`/`maxBytes` cap what is read. The folder functions
 * (`signSkillDir`, `hashSkillDir`, `verifySkillOffline`, `verifySkillWithResolver`) read the
 * file system; `hashSkillFiles` and the document functions do not.
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

export {
  type SignedSkill,
  signSkillDir,
  type SignSkillDirOptions,
  signSkillDirWithSigner,
} from "./lib/skill/sign.ts";
export {
  type SkillVerificationResult,
  verifySkillOffline,
  type VerifySkillOfflineOptions,
} from "./lib/skill/verify.ts";
export {
  type SkillResolverVerificationResult,
  verifySkillWithResolver,
  type VerifySkillWithResolverOptions,
} from "./lib/skill/resolver_verify.ts";
export {
  hashSkillDir,
  hashSkillFiles,
  type HashSkillOptions,
  type SkillAlgorithm,
  type SkillEntryHash,
  type SkillFileContent,
  type SkillHash,
  type SkillHashProgress,
} from "./lib/skill/hash.ts";
export {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_ENTRIES,
  SIGNATURE_FILE_NAME,
  type SkillLimits,
} from "./lib/skill/walk.ts";
export {
  formatSkillSignatureDocument,
  type ParsedSkillSignature,
  parseSkillSignatureDocument,
  signSkillDocument,
  signSkillDocumentWithSigner,
  SKILL_SIGNATURE_VERSION,
  type SkillSignatureDocument,
  skillSigningInput,
  type SkillSignOptions,
} from "./lib/skill/document.ts";
export { compareManifests, type ManifestChanges } from "./lib/skill/manifest.ts";
export type {
  FirstUseInfo,
  KeyPinningStatus,
  OfflineFlowOptions,
  OfflineVerificationResult,
} from "./lib/schema/flow.ts";
export type {
  DnsVerifyOptions,
  ResolverResultFields,
  ResolverVerifyOptions,
} from "./lib/schema/resolver_verify.ts";
