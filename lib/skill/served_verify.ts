/**
 * A skill served over MCP verified against the SchemaPin signature it carries (§4b, §15.1;
 * docs/skills-over-mcp.md, "Signatures over MCP"): its files are first checked against the
 * listing (`checkServedSkill`: digests, sizes, unlisted files, frontmatter, a dynamic skill),
 * and any contradiction fails the verification before a key is looked at; then the §4b hash is
 * rebuilt from the same bytes and the signature — the skill's `.schemapin.sig` file, or the
 * document in its entry's `_meta["dev.schemapin/signature"]` — is verified by the same flow as
 * a local folder's. {@linkcode verifyCheckedSkill} is that core, given the flow to run (the
 * library's offline one here, the trusted one of lib/trust/verify.ts for `verify-skill`).
 *
 * @module
 */
import { checkArg } from "../arguments.ts";
import { SchemaPinError } from "../errors.ts";
import {
  type CheckedSkill,
  checkServedSkill,
  type SkillProblem,
  type SkillRead,
} from "./served_check.ts";
import {
  parseSkillEntry,
  type ServedSkillEntry,
  SKILL_SIGNATURE_META_KEY,
  skillFilePath,
} from "./served_entry.ts";
import type { SkillFileContent } from "./hash.ts";
import { SIGNATURE_FILE_NAME } from "./walk.ts";
import {
  type SkillVerificationResult,
  verifySkillOffline,
  type VerifySkillOfflineOptions,
} from "./verify.ts";

/** The result of {@linkcode verifyServedSkill}: a skill's result plus the served skill's. */
export interface ServedSkillVerificationResult extends SkillVerificationResult {
  /** The URI of the skill's `SKILL.md`. */
  uri: string;
  /** The form the skill was served in: a SEP-2640 entry, or FastMCP 4's `_manifest`. */
  form: "sep-2640" | "fastmcp";
  /** Where the signature came from: the skill's `.schemapin.sig` file or its entry's `_meta`. */
  signatureSource?: "file" | "meta";
  /**
   * Every contradiction between the listing and the bytes served; the verification failed
   * (`SIGNATURE_INVALID`, nothing pinned) when there is any.
   */
  problems: readonly SkillProblem[];
}

/** What a verification of a skill served over MCP adds to a skill's result. */
export type ServedSkillFields = Omit<ServedSkillVerificationResult, keyof SkillVerificationResult>;

/** Inputs of {@linkcode verifyServedSkill}: the entry, the bytes, and the flow's options. */
export interface VerifyServedSkillOptions extends
  Omit<
    VerifySkillOfflineOptions,
    | "dir"
    | "files"
    | "signature"
    | "maxEntries"
    | "maxBytes"
    | "onProgress"
    | "progressIntervalMs"
    | "onWalkProgress"
  > {
  /**
   * The SEP-2640 skill entry as the server gave it (the `skill` of `skills/get`, or one of the
   * `skills` of `skills/list`): `{uri, frontmatter, resources: [{uri, digest, size?}], _meta?}`.
   */
  entry: unknown;
  /**
   * The bytes of the files read with `resources/read` (text as UTF-8, a blob decoded), by
   * resource URI. A URI inside the skill that the entry does not list is a contradiction
   * ("unlisted"); URIs outside the skill are ignored.
   */
  files: ReadonlyMap<string, Uint8Array>;
}

/** The files and signature {@linkcode verifyCheckedSkill} hands to the flow. */
export interface ServedFlowInput {
  /** The skill's files as checked against the listing. */
  readonly files: readonly SkillFileContent[];
  /** The signature document. */
  readonly signature: unknown;
  /** Names the signature in messages (`skill://pdf/.schemapin.sig`, or the `_meta` key). */
  readonly signatureName: string;
}

/** A failed verification that never reached the flow (nothing was looked up or pinned). */
function failed(toolId: string | undefined, errorMessage: string): SkillVerificationResult {
  return {
    valid: false,
    toolId: toolId ?? "",
    keyPinning: "not_checked",
    warnings: [],
    expired: false,
    lineageAnchor: false,
    errorCode: "SIGNATURE_INVALID",
    errorMessage,
  };
}

/** `skill://pdf/scripts/run.sh (digest): listed …, served …` for each problem. */
function describeProblems(problems: readonly SkillProblem[]): string {
  return problems.map((p) => `${p.file ?? p.skill} (${p.kind}): ${p.message}`).join("; ");
}

/**
 * The failure of a checked skill that cannot reach the signature check: a contradiction
 * between its listing and its bytes (SEP-2640: "MUST NOT use the unverified content"), no
 * signature at all, or a `.schemapin.sig` that is not JSON. `undefined` when the skill can be
 * verified.
 *
 * @example
 * ```ts ignore
 * const early = servedSkillFailure(fetched, undefined);
 * if (early) console.error(early.errorMessage); // "skill://pdf/SKILL.md is unsigned: …"
 * ```
 */
export function servedSkillFailure(
  skill: CheckedSkill & { readonly entry: ServedSkillEntry },
  toolId: string | undefined,
): ServedSkillVerificationResult | undefined {
  const { entry, problems } = skill;
  const fields = {
    uri: entry.uri,
    form: entry.form,
    problems,
    ...(skill.signatureSource ? { signatureSource: skill.signatureSource } : {}),
  };
  if (problems.length > 0) {
    const n = problems.length;
    return {
      ...failed(
        toolId,
        `${entry.uri}: the server's listing contradicts what it served (${n} ` +
          `${n === 1 ? "problem" : "problems"}): ${describeProblems(problems)}; the content ` +
          `is not used, nothing was verified or pinned`,
      ),
      ...fields,
    };
  }
  if (skill.signature === undefined) {
    return {
      ...failed(
        toolId,
        `${entry.uri} is unsigned: the skill serves no ${SIGNATURE_FILE_NAME} and its entry ` +
          `has no _meta[${JSON.stringify(SKILL_SIGNATURE_META_KEY)}] (sign the folder with ` +
          `sign-skill)`,
      ),
      ...fields,
    };
  }
  if (skill.signature instanceof Uint8Array) {
    return {
      ...failed(
        toolId,
        `${entry.root}/${SIGNATURE_FILE_NAME} is not a JSON signature document (§4b)`,
      ),
      ...fields,
    };
  }
  return undefined;
}

/**
 * Verifies a skill checked by `checkServedSkill` with `flow` (an offline or a trusted
 * verification of in-memory files): {@linkcode servedSkillFailure} first, then the flow over
 * the checked bytes and the signature the skill carries; the result carries the served
 * skill's fields.
 *
 * @example
 * ```ts ignore
 * const result = await verifyCheckedSkill(fetched, undefined, (input) =>
 *   verifySkillOffline({ ...options, files: input.files, signature: input.signature }));
 * ```
 */
export async function verifyCheckedSkill<R extends SkillVerificationResult>(
  skill: CheckedSkill & { readonly entry: ServedSkillEntry },
  toolId: string | undefined,
  flow: (input: ServedFlowInput) => Promise<R>,
): Promise<R & ServedSkillFields> {
  const early = servedSkillFailure(skill, toolId);
  if (early) return early as R & ServedSkillFields;
  const signatureName = skill.signatureSource === "meta"
    ? `${skill.entry.uri} _meta[${JSON.stringify(SKILL_SIGNATURE_META_KEY)}]`
    : `${skill.entry.root}/${SIGNATURE_FILE_NAME}`;
  const result = await flow({ files: skill.files, signature: skill.signature, signatureName });
  return Object.assign(result, {
    uri: skill.entry.uri,
    form: skill.entry.form,
    problems: skill.problems,
    ...(skill.signatureSource ? { signatureSource: skill.signatureSource } : {}),
  });
}

/**
 * Verifies a skill served over MCP (SEP-2640) offline, as a host does before loading it: the
 * bytes it read are checked against the entry (every listed file read, each matching its
 * `digest` and `size`, no unlisted file of the skill, `SKILL.md`'s frontmatter equal to the
 * entry's), then the SchemaPin signature the skill carries — its `.schemapin.sig` file, or the
 * entry's `_meta["dev.schemapin/signature"]` — is verified over the §4b hash of the same bytes,
 * with the options of `verifySkillOffline` (discovery, revocation, pins, expiry). A
 * contradiction, or a skill without a signature, is a failed result (`SIGNATURE_INVALID`,
 * nothing pinned) listing `problems`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for an entry that is not a SEP-2640 skill entry, a
 *   `files` that is not a map of `Uint8Array`s, or misuse as `verifySkillOffline` reports it.
 *
 * @example Verify the skill a server returned with skills/get
 * ```ts
 * import { verifyServedSkill } from "jsr:@schemapin/schemapin/skill";
 * import { MemoryPinStore, parseJson } from "jsr:@schemapin/schemapin";
 * // What the host received: skills/get's `skill`, and each resources/read by URI.
 * declare const entry: unknown;
 * declare const files: Map<string, Uint8Array>;
 * const result = await verifyServedSkill({
 *   entry,
 *   files,
 *   domain: "example.com",
 *   discovery: parseJson(await Deno.readFile("schemapin.json"), "schemapin.json"),
 *   pinStore: new MemoryPinStore(),
 *   trustFirstUse: true,
 * });
 * if (!result.valid) console.error(result.errorMessage, result.problems);
 * ```
 */
export async function verifyServedSkill(
  options: VerifyServedSkillOptions,
): Promise<ServedSkillVerificationResult> {
  checkArg("verifyServedSkill", "options", options, "object");
  checkArg("verifyServedSkill", "options.files", options.files, "map");
  const { entry: value, files, ...flowOptions } = options;
  const entry = parseSkillEntry(value, "verifyServedSkill: options.entry");
  const listed = new Set((entry.resources ?? []).map((f) => f.uri));
  const reads = new Map<string, SkillRead>();
  const unlisted: string[] = [];
  for (const [uri, bytes] of files) {
    if (typeof uri !== "string" || !(bytes instanceof Uint8Array)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        "verifyServedSkill: options.files must map resource URIs to Uint8Arrays",
        { function: "verifyServedSkill", argument: "options.files" },
      );
    }
    if (listed.has(uri)) reads.set(uri, { bytes });
    else if (skillFilePath(uri, entry.root) !== undefined) unlisted.push(uri);
  }
  const checked = { ...checkServedSkill(entry, reads, unlisted.sort()), entry };
  return await verifyCheckedSkill(checked, options.toolId, (input) =>
    verifySkillOffline({
      ...flowOptions,
      files: input.files,
      signature: input.signature,
      sources: { ...flowOptions.sources, signature: input.signatureName },
    }));
}
