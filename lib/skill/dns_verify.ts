/**
 * `verify_skill_offline_with_dns` (§17): the skill counterpart of `verifySchemaOfflineWithDns`
 * (lib/schema/dns_verify.ts), with the same DNS TXT cross-check hook.
 *
 * @module
 */
import type { DnsCrossCheck } from "../dns/check.ts";
import { checkArg } from "../arguments.ts";
import { dnsCrossCheckHook, type DnsCrossCheckOptions } from "../schema/dns_verify.ts";
import {
  type SkillVerificationResult,
  type VerifySkillOfflineOptions,
  verifySkillOfflineWithHook,
} from "./verify.ts";

/**
 * `verify_skill_offline_with_dns` (§17): {@linkcode verifySkillOffline} plus the DNS TXT
 * cross-check of the discovery key against `_schemapin.{domain}`, looked up with
 * `dns.resolveTxt` (default: the library's DNS client, Deno only) once the folder's signature
 * verified and compared before any pin is written. The outcomes are those of
 * `verifySchemaOfflineWithDns` (`./schema`): an absent record has no effect, a record naming
 * another key is `DOMAIN_MISMATCH` (nothing pinned), a malformed one `DISCOVERY_INVALID`, no
 * answer `DISCOVERY_FETCH_FAILED` unless `onLookupFailure: "warn"`; `result.dns` is the
 * report.
 *
 * @example Verify a skill folder, with DNS through Node.js's resolver
 * ```ts
 * import { resolveTxt } from "node:dns/promises";
 * import { verifySkillOfflineWithDns } from "jsr:@schemapin/schemapin/skill";
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 *
 * const result = await verifySkillOfflineWithDns({
 *   dir: "./pdf-tools", // reads ./pdf-tools/.schemapin.sig
 *   domain: "example.com",
 *   discovery: parseJson(await Deno.readFile("schemapin.json"), "schemapin.json"),
 *   pinStore: new FilePinStore(),
 *   trustFirstUse: true,
 * }, { resolveTxt, onLookupFailure: "warn" });
 * console.log(result.valid, result.dns?.state, result.warnings);
 * ```
 */
export async function verifySkillOfflineWithDns(
  options: VerifySkillOfflineOptions,
  dns: DnsCrossCheckOptions = {},
): Promise<SkillVerificationResult & { dns?: DnsCrossCheck }> {
  checkArg("verifySkillOfflineWithDns", "options", options, "object");
  const hook = dnsCrossCheckHook<SkillVerificationResult>(dns, "verifySkillOfflineWithDns");
  return await verifySkillOfflineWithHook(options, hook);
}
