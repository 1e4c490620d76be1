/**
 * A2A verification context (§20): scope schema verification to the domains a calling agent
 * trusts, with AgentPin v0.3's `AllowedDomains` convention — an empty list means
 * *unrestricted* — and a delegation-depth cap.
 *
 * @module
 */
import type { ErrorCode } from "../errors.ts";
import {
  type SchemaVerificationResult,
  type VerifySchemaOfflineOptions,
  verifySchemaOfflineWithHook,
} from "../schema/verify.ts";
import { checkArg } from "../arguments.ts";

/**
 * The deepest delegation chain accepted (§20.4 step 1), matching AgentPin's
 * `max_delegation_depth`; both specs move it in lockstep. A context whose `delegationDepth` is
 * higher fails {@linkcode verifySchemaForA2a} with `A2A_SCOPE_VIOLATION`.
 *
 * @example Refuse a request before doing any work
 * ```ts
 * import { A2A_MAX_DELEGATION_DEPTH } from "jsr:@schemapin/schemapin/a2a";
 *
 * const hops = 4; // how many agents the request passed through
 * console.log(A2A_MAX_DELEGATION_DEPTH, hops > A2A_MAX_DELEGATION_DEPTH); // 3 true
 * ```
 */
export const A2A_MAX_DELEGATION_DEPTH = 3;

/**
 * The A2A verification context of §20.2: who is asking (informational) and the provider
 * domains the calling agent trusts — typically the `AllowedDomains` of its AgentPin
 * credential, where an empty list means *unrestricted* (§20.3).
 */
export interface A2aVerificationContext {
  /** URN-style id of the calling agent (informational, not validated, not used in scope). */
  readonly callerAgentId: string;
  /** 0 = direct caller; more than {@linkcode A2A_MAX_DELEGATION_DEPTH} is refused. */
  readonly delegationDepth: number;
  /** The originating domain (informational). */
  readonly originatingDomain: string;
  /** Allowed provider domains; empty = unrestricted (§20.3). `*.x` matches subdomains of x. */
  readonly trustedDomains: readonly string[];
}

/**
 * §20.5 `is_unrestricted`: true when the allow-list is empty, which means *unrestricted*
 * (§20.3) — every provider domain is trusted.
 *
 * @example
 * ```ts
 * import { isUnrestricted } from "jsr:@schemapin/schemapin/a2a";
 *
 * console.log(isUnrestricted([]), isUnrestricted(["example.com"])); // true false
 * ```
 */
export function isUnrestricted(list: readonly string[]): boolean {
  checkArg("isUnrestricted", "list", list, "array");
  return list.length === 0;
}

function matches(pattern: string, domain: string): boolean {
  const p = pattern.toLowerCase();
  if (p.startsWith("*.")) {
    const suffix = p.slice(1); // ".client.com"
    // A strict subdomain only: `*.client.com` does not match `client.com` itself (§20.3).
    return domain.length > suffix.length && domain.endsWith(suffix);
  }
  return p === domain;
}

/**
 * §20.5 `allows`: true when `list` is empty (unrestricted) or `domain` matches an entry —
 * exactly, or under a leading `*.` wildcard that matches any subdomain but not the apex.
 * Comparison is case-insensitive. This is the scope check of {@linkcode verifySchemaForA2a}.
 *
 * @example
 * ```ts
 * import { allows } from "jsr:@schemapin/schemapin/a2a";
 *
 * console.log(allows(["*.client.com"], "api.client.com")); // true
 * console.log(allows(["*.client.com"], "client.com")); // false: not the apex
 * console.log(allows([], "anything.example")); // true: unrestricted
 * ```
 */
export function allows(list: readonly string[], domain: string): boolean {
  checkArg("allows", "list", list, "array");
  checkArg("allows", "domain", domain, "string");
  if (isUnrestricted(list)) return true;
  const d = domain.toLowerCase();
  return list.some((entry) => matches(entry, d));
}

/**
 * §20.5 `intersect`: `lhs ∩ rhs` with the unrestricted short-circuits (`[] ∩ X = X`,
 * `X ∩ [] = X`) — for narrowing a delegated allow-list to what both agents trust. Entries are
 * kept when they appear in both lists (exact, case-insensitive), in `lhs` order. Documented
 * edge case (AgentPin §4.11.4): two non-empty disjoint lists intersect to `[]`, which the
 * convention reads as *unrestricted* — so never use this for a scope check; use
 * {@linkcode allows} directly.
 *
 * @example
 * ```ts
 * import { intersect, isUnrestricted } from "jsr:@schemapin/schemapin/a2a";
 *
 * console.log(intersect([], ["a.com"])); // [ "a.com" ]
 * console.log(intersect(["a.com", "b.com"], ["b.com"])); // [ "b.com" ]
 * const disjoint = intersect(["a.com"], ["b.com"]);
 * if (isUnrestricted(disjoint)) console.log("nothing in common: refuse, do not widen");
 * ```
 */
export function intersect(lhs: readonly string[], rhs: readonly string[]): string[] {
  checkArg("intersect", "lhs", lhs, "array");
  checkArg("intersect", "rhs", rhs, "array");
  if (isUnrestricted(lhs)) return [...rhs];
  if (isUnrestricted(rhs)) return [...lhs];
  const right = new Set(rhs.map((d) => d.toLowerCase()));
  return lhs.filter((d) => right.has(d.toLowerCase()));
}

/**
 * `verify_schema_for_a2a` (§20.4): (1) refuse a delegation depth above
 * {@linkcode A2A_MAX_DELEGATION_DEPTH} (or not a non-negative integer) with
 * `A2A_SCOPE_VIOLATION`; (2) run {@linkcode verifySchemaOffline} and return a failure
 * unchanged — scope never remedies a failed cryptographic verification; (3) when the list is
 * non-empty, require `allows(trustedDomains, domain)` (never via `intersect`). The scope check
 * runs after the standard checks and before a first-use pin is written, so an out-of-scope
 * tool is never pinned.
 *
 * @example Verify a tool for a calling agent that trusts `*.example.com`
 * ```ts
 * import { verifySchemaForA2a } from "jsr:@schemapin/schemapin/a2a";
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { type JsonObject, parseJson } from "jsr:@schemapin/schemapin";
 *
 * const read = async (path: string) => parseJson(await Deno.readFile(path), path);
 * const result = await verifySchemaForA2a(
 *   {
 *     callerAgentId: "urn:agentpin:client.example:planner",
 *     delegationDepth: 1,
 *     originatingDomain: "client.example",
 *     trustedDomains: ["*.example.com"], // the caller's AllowedDomains
 *   },
 *   {
 *     schema: await read("tool.json"),
 *     signature: await read("tool.json.sig") as JsonObject,
 *     toolId: "add",
 *     domain: "tools.example.com",
 *     discovery: await read("schemapin.json"),
 *     pinStore: new FilePinStore(),
 *   },
 * );
 * if (result.errorCode === "A2A_SCOPE_VIOLATION") console.error(result.errorMessage);
 * ```
 */
export async function verifySchemaForA2a(
  context: A2aVerificationContext,
  options: VerifySchemaOfflineOptions,
): Promise<SchemaVerificationResult> {
  checkArg("verifySchemaForA2a", "context", context, "object");
  checkArg("verifySchemaForA2a", "context.trustedDomains", context.trustedDomains, "array");
  checkArg("verifySchemaForA2a", "options", options, "object");
  const depth = context.delegationDepth;
  if (!Number.isInteger(depth) || depth < 0 || depth > A2A_MAX_DELEGATION_DEPTH) {
    return {
      valid: false,
      toolId: options.toolId,
      keyPinning: "not_checked",
      warnings: [],
      expired: false,
      signatureFormat: typeof options.signature === "string" ? "bare" : "document",
      errorCode: "A2A_SCOPE_VIOLATION",
      errorMessage: Number.isInteger(depth) && depth >= 0
        ? `delegation depth ${depth} exceeds the maximum of ${A2A_MAX_DELEGATION_DEPTH}`
        : `delegation depth ${String(depth)} is not a non-negative integer`,
    };
  }
  const trusted = [...context.trustedDomains];
  return await verifySchemaOfflineWithHook(options, (result) => {
    const domain = result.domain!;
    if (!isUnrestricted(trusted) && !allows(trusted, domain)) {
      return {
        errorCode: "A2A_SCOPE_VIOLATION" as ErrorCode,
        errorMessage: `provider domain ${domain} is not among the caller's trusted domains ` +
          `(${trusted.join(", ")})`,
      };
    }
    return undefined;
  });
}
