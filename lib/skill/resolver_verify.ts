/**
 * Verification of a skill folder with a resolver (§14): the skill counterpart of
 * `verifySchemaWithResolver` (lib/schema/resolver_verify.ts), sharing its resolution and DNS
 * steps; the rest is {@linkcode verifySkillOffline}'s flow.
 *
 * @module
 */
import {
  fail,
  hookFor,
  noteTrust,
  prepare,
  requirePinStore,
  type ResolverResultFields,
  type ResolverVerifyOptions,
  withTrust,
} from "../schema/resolver_verify.ts";
import {
  type SkillVerificationResult,
  type VerifySkillOfflineOptions,
  verifySkillOfflineWithHook,
} from "./verify.ts";
import { checkDomain } from "../dns/domain.ts";

/** Inputs of {@linkcode verifySkillWithResolver}. */
export type VerifySkillWithResolverOptions =
  & Omit<VerifySkillOfflineOptions, "discovery" | "revocation">
  & ResolverVerifyOptions;

/** The result of {@linkcode verifySkillWithResolver}. */
export type SkillResolverVerificationResult = SkillVerificationResult & ResolverResultFields;

/**
 * Verifies a skill folder with documents from `options.resolver` (see the module
 * documentation); the rest is {@linkcode verifySkillOffline}'s flow.
 *
 * @example
 * ```ts
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { WellKnownResolver } from "jsr:@schemapin/schemapin/discovery";
 * import { verifySkillWithResolver } from "./resolver_verify.ts";
 * const result = await verifySkillWithResolver({
 *   dir: "./pdf-tools",
 *   domain: "example.com",
 *   resolver: new WellKnownResolver(), // https://example.com/.well-known/schemapin.json
 *   dns: true,
 *   pinStore: new FilePinStore(),
 *   trustFirstUse: true,
 * });
 * console.log(result.valid, result.keyPinning, result.dns?.state);
 * ```
 */
export async function verifySkillWithResolver(
  options: VerifySkillWithResolverOptions,
): Promise<SkillResolverVerificationResult> {
  requirePinStore(options, "verifySkillWithResolver");
  const { resolver: _r, dns: _d, ...offline } = options;
  const dc = checkDomain(options.domain);
  if (!dc.ok) {
    return await verifySkillOfflineWithHook({ ...offline, discovery: undefined }, undefined);
  }
  const prepared = await prepare(dc.domain, options);
  if (prepared.failure) {
    return fail<SkillResolverVerificationResult>({
      valid: false,
      domain: dc.domain,
      toolId: options.toolId ?? "",
      keyPinning: "not_checked",
      warnings: [],
      expired: false,
      lineageAnchor: false,
    }, prepared.failure);
  }
  const trust = prepared.trust!;
  const result: SkillResolverVerificationResult = await verifySkillOfflineWithHook(
    withTrust(offline, trust),
    hookFor<SkillVerificationResult>(options, prepared.dns),
  );
  return noteTrust(result, trust);
}
