/**
 * Verification with a resolver (§14): {@linkcode verifySchemaWithResolver} (its helpers are
 * shared with the DNS cross-check of `lib/schema/dns_verify.ts`) resolves the domain's documents with a {@linkcode SchemaResolver}
 * (the domain validated first, the revocation document from the same resolver, fail closed
 * per §9), optionally look up the §17 DNS TXT record, and then run the same §15.1 flow as
 * the offline verifiers — the DNS comparison in its before-pin hook, so a mismatch never
 * leaves a pin.
 *
 * A resolution failure is reported in the result (`errorCode` `DISCOVERY_FETCH_FAILED`,
 * `DISCOVERY_INVALID`, `KEY_NOT_FOUND`, `INPUT_INVALID`, …) without running the flow; these
 * functions throw only on misuse (no pin store).
 *
 * This combines a resolver (lib/discovery) and DNS (lib/dns) with the verification flow, so it
 * lives with the flow, above both.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import type { BeforePinHook, OfflineFlowOptions, OfflineVerificationResult } from "./flow.ts";
import {
  type SchemaVerificationResult,
  type VerifySchemaOfflineOptions,
  verifySchemaOfflineWithHook,
} from "./verify.ts";
import {
  crossCheckDnsTxt,
  type DnsCrossCheck,
  type DnsFailurePolicy,
  type DnsTxtLookup,
  lookupDnsTxt,
} from "../dns/check.ts";
import type { DnsLookupOptions } from "../dns/resolve.ts";
import { checkDomain } from "../dns/domain.ts";
import {
  type ResolvedTrust,
  resolveTrustDocuments,
  type SchemaResolver,
} from "../discovery/resolvers.ts";
import { checkArg, checkMethods } from "../arguments.ts";

/** The DNS TXT cross-check options (§17). */
export interface DnsVerifyOptions extends DnsLookupOptions {
  /**
   * What a failed lookup (timeout, SERVFAIL, REFUSED) does: `"fail"` (default: the caller
   * asked for the check, so no answer fails closed with `DISCOVERY_FETCH_FAILED`) or
   * `"warn"` (warning `dns_lookup_failed`, no effect).
   */
  onLookupFailure?: DnsFailurePolicy;
}

/** What resolver-based verification adds to the offline options. */
export interface ResolverVerifyOptions {
  /** Where the domain's documents come from. */
  resolver: SchemaResolver;
  /** Cross-check the key against `_schemapin.{domain}` TXT (§17); `true` = defaults. */
  dns?: DnsVerifyOptions | true;
}

/** Inputs of {@linkcode verifySchemaWithResolver}. */
export type VerifySchemaWithResolverOptions =
  & Omit<VerifySchemaOfflineOptions, "discovery" | "revocation">
  & ResolverVerifyOptions;

/** What resolver-based results add. */
export interface ResolverResultFields {
  /** The DNS TXT cross-check, when requested and reached (before the pin step). */
  dns?: DnsCrossCheck;
  /** Where the discovery document came from. */
  discoverySource?: string;
}

/** The result of {@linkcode verifySchemaWithResolver}. */
export type SchemaResolverVerificationResult = SchemaVerificationResult & ResolverResultFields;

/** A verification result that may carry the DNS cross-check report. */
export type WithDnsCheck<R extends OfflineVerificationResult> = R & { dns?: DnsCrossCheck };

/**
 * The before-pin hook (`verifySchemaOfflineWithHook`, `verifySkillOfflineWithHook`) that
 * applies `crossCheckDnsTxt` (lib/dns/check.ts) to the verified key, records the report in
 * `result.dns` and its warnings in `result.warnings`, and stops verification on a failure —
 * before any pin is written.
 *
 * @example
 * ```ts ignore
 * const lookup = await lookupDnsTxt(domain, { nameServer: "127.0.0.1:5353" });
 * await verifySchemaOfflineWithHook(options, dnsBeforePinHook(lookup));
 * ```
 */
export function dnsBeforePinHook<R extends OfflineVerificationResult>(
  lookup: DnsTxtLookup,
  onLookupFailure: DnsFailurePolicy = "fail",
  next?: BeforePinHook<R>,
): BeforePinHook<WithDnsCheck<R>> {
  checkArg("dnsBeforePinHook", "lookup", lookup, "object");
  checkArg("dnsBeforePinHook", "next", next, "function", true);
  return (result) => {
    const decision = crossCheckDnsTxt(lookup, result.keyFingerprint ?? "", onLookupFailure);
    result.dns = decision.check;
    result.warnings.push(...decision.warnings);
    return decision.failure ?? next?.(result);
  };
}

/** The resolved documents and DNS record, or why they could not be resolved. */
export interface Prepared {
  readonly trust?: ResolvedTrust;
  readonly dns?: DnsTxtLookup;
  readonly failure?: SchemaPinError;
}

/** Resolves the documents and (concurrently) the DNS record. */
export async function prepare(
  domain: string,
  options: ResolverVerifyOptions & { allowMissingRevocation?: boolean },
): Promise<Prepared> {
  const dnsOptions = options.dns === true ? {} : options.dns;
  try {
    const [trust, dns] = await Promise.all([
      resolveTrustDocuments(options.resolver, domain, {
        allowMissingRevocation: options.allowMissingRevocation,
      }),
      dnsOptions === undefined ? undefined : lookupDnsTxt(domain, dnsOptions),
    ]);
    return { trust, dns };
  } catch (e) {
    if (e instanceof SchemaPinError) return { failure: e };
    throw e;
  }
}

/** The DNS before-pin hook the options ask for, if any. */
export function hookFor<R extends OfflineVerificationResult>(
  options: ResolverVerifyOptions,
  dns: DnsTxtLookup | undefined,
): BeforePinHook<R & ResolverResultFields> | undefined {
  if (dns === undefined) return undefined;
  const policy = options.dns === true ? "fail" : options.dns?.onLookupFailure ?? "fail";
  return dnsBeforePinHook<R>(dns, policy);
}

/** The offline options with the resolved documents and the names they are reported under. */
export function withTrust<O extends { sources?: OfflineFlowOptions["sources"] }>(
  offline: O,
  trust: ResolvedTrust,
): O & { discovery: unknown; revocation?: unknown } {
  return {
    ...offline,
    discovery: trust.discovery,
    revocation: trust.revocation,
    sources: {
      ...offline.sources,
      discovery: trust.discoverySource,
      revocation: trust.revocationSource,
    },
  };
}

/** Adds where the documents came from, and the resolver's warnings, to `result`. */
export function noteTrust<R extends OfflineVerificationResult & ResolverResultFields>(
  result: R,
  trust: ResolvedTrust,
): R {
  result.discoverySource = trust.discoverySource;
  result.warnings.push(...trust.warnings);
  return result;
}

/** `result`, failed with `e`'s code and message. */
export function fail<R extends OfflineVerificationResult>(result: R, e: SchemaPinError): R {
  result.valid = false;
  result.errorCode = e.code;
  result.errorMessage = e.message;
  return result;
}

/** Misuse checks shared by the resolver verifiers. */
export function requirePinStore(options: { pinStore?: unknown }, what: string): void {
  checkArg(what, "options", options, "object");
  checkMethods(
    what,
    "options.pinStore",
    options.pinStore,
    ["get", "transact"],
    "a PinStore",
  );
  checkArg(what, "options.resolver", (options as ResolverVerifyOptions).resolver, "object");
}

/**
 * Verifies a schema signature with documents from `options.resolver` (see the module
 * documentation); the rest is {@linkcode verifySchemaOffline}'s flow.
 *
 * @example
 * ```ts
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * import { ChainResolver, LocalFileResolver } from "../discovery/resolvers.ts";
 * import { WellKnownResolver } from "jsr:@schemapin/schemapin/discovery";
 * import { verifySchemaWithResolver } from "./resolver_verify.ts";
 * const result = await verifySchemaWithResolver({
 *   schema: parseJson(await Deno.readFile("tool.json"), "tool.json"),
 *   signature: await Deno.readTextFile("tool.json.b64"), // a bare Base64 signature
 *   toolId: "calculate_sum",
 *   domain: "example.com",
 *   resolver: new ChainResolver([new LocalFileResolver("./trust"), new WellKnownResolver()]),
 *   dns: { nameServer: "127.0.0.1:5353" }, // cross-check _schemapin.example.com TXT (§17)
 *   pinStore: new FilePinStore(),
 *   trustFirstUse: true,
 * });
 * console.log(result.valid, result.discoverySource, result.dns?.state);
 * ```
 */
export async function verifySchemaWithResolver(
  options: VerifySchemaWithResolverOptions,
): Promise<SchemaResolverVerificationResult> {
  requirePinStore(options, "verifySchemaWithResolver");
  const { resolver: _r, dns: _d, ...offline } = options;
  const dc = checkDomain(options.domain);
  if (!dc.ok) {
    // The flow reports the invalid domain; nothing is resolved or looked up.
    return await verifySchemaOfflineWithHook({ ...offline, discovery: undefined }, undefined);
  }
  const prepared = await prepare(dc.domain, options);
  if (prepared.failure) {
    const sig = options.signature;
    return fail<SchemaResolverVerificationResult>({
      valid: false,
      domain: dc.domain,
      toolId: options.toolId,
      keyPinning: "not_checked",
      warnings: [],
      expired: false,
      signatureFormat: typeof sig === "object" && sig !== null ? "document" : "bare",
    }, prepared.failure);
  }
  const trust = prepared.trust!;
  const result: SchemaResolverVerificationResult = await verifySchemaOfflineWithHook(
    withTrust(offline, trust),
    hookFor<SchemaVerificationResult>(options, prepared.dns),
  );
  return noteTrust(result, trust);
}
