/**
 * Offline verification with the DNS TXT cross-check (§17): `verify_schema_offline_with_dns`
 * as {@linkcode verifySchemaOfflineWithDns} (and `verifySkillOfflineWithDns` in
 * `lib/skill/dns_verify.ts`, which shares the hook made here). The records come from a
 * {@linkcode DnsTxtResolver} the caller gives (the library's own DNS client by default), so the
 * cross-check works wherever the caller can look a name up.
 *
 * The check is the CLI's `--dns`: the lookup of `lookupDnsTxtWith` (lib/dns/txt_resolver.ts),
 * judged by `dnsBeforePinHook` (lib/schema/resolver_verify.ts) with the §17.2 table of
 * `crossCheckDnsTxt` — run in the flow's before-pin hook, once the signature verified and
 * before any pin is written, so a mismatch never leaves a pin behind.
 *
 * @module
 */
import type { DnsCrossCheck, DnsFailurePolicy } from "../dns/check.ts";
import { type DnsTxtResolver, dnsTxtResolver, lookupDnsTxtWith } from "../dns/txt_resolver.ts";
import { argumentError, checkArg } from "../arguments.ts";
import type { BeforePinHook, OfflineVerificationResult } from "./flow.ts";
import { dnsBeforePinHook, type WithDnsCheck } from "./resolver_verify.ts";
import {
  type SchemaVerificationResult,
  type VerifySchemaOfflineOptions,
  verifySchemaOfflineWithHook,
} from "./verify.ts";

/** How {@linkcode verifySchemaOfflineWithDns} and `verifySkillOfflineWithDns` look DNS up. */
export interface DnsCrossCheckOptions {
  /**
   * Looks up the TXT records at `_schemapin.{domain}` (see {@linkcode DnsTxtResolver}):
   * `resolveTxt` of `node:dns/promises`, your own DNS client, a table in a test. Default: the
   * library's DNS client, `dnsTxtResolver()` (Deno only; it asks the name servers of
   * `/etc/resolv.conf`).
   */
  readonly resolveTxt?: DnsTxtResolver;
  /**
   * What no answer (the resolver rejected: timeout, SERVFAIL, no network) does: `"fail"`
   * (default: the result fails with `DISCOVERY_FETCH_FAILED`, since an outage and an attacker
   * suppressing DNS look alike) or `"warn"` (the warning `dns_lookup_failed`, no other effect).
   */
  readonly onLookupFailure?: "fail" | "warn";
}

/**
 * The before-pin hook of the DNS cross-check for the options `dns` (checked first, naming
 * `fn`): it looks the record of the verified domain up with the resolver, then applies
 * `dnsBeforePinHook` to it.
 *
 * @example
 * ```ts
 * import { dnsCrossCheckHook } from "./dns_verify.ts";
 * const hook = dnsCrossCheckHook({ resolveTxt: () => Promise.resolve([]) }, "myVerify");
 * console.log(typeof hook); // "function"
 * ```
 */
export function dnsCrossCheckHook<R extends OfflineVerificationResult>(
  dns: DnsCrossCheckOptions,
  fn: string,
): BeforePinHook<WithDnsCheck<R>> {
  checkArg(fn, "dns", dns, "object");
  checkArg(fn, "dns.resolveTxt", dns.resolveTxt, "function", true);
  const policy: DnsFailurePolicy = dns.onLookupFailure ?? "fail";
  if (policy !== "fail" && policy !== "warn") {
    throw argumentError(fn, "dns.onLookupFailure", '"fail" or "warn" (or undefined)', policy);
  }
  const resolveTxt = dns.resolveTxt ?? dnsTxtResolver();
  return async (result) => {
    // The flow has validated the domain by now (it is lower case, without a trailing dot).
    const lookup = await lookupDnsTxtWith(result.domain!, resolveTxt, fn);
    return await dnsBeforePinHook<R>(lookup, policy)(result);
  };
}

/**
 * `verify_schema_offline_with_dns` (§17): {@linkcode verifySchemaOffline} plus the DNS TXT
 * cross-check of the discovery key against `_schemapin.{domain}`. The record is looked up with
 * `dns.resolveTxt` once the signature verified, and compared before any pin is written:
 *
 * - absent (no TXT record with `v=schemapin1`): no effect (`result.dns.state` `"absent"`);
 * - present and matching the discovery key: valid as usual (`"match"`);
 * - present and naming another key: `DOMAIN_MISMATCH`, nothing pinned (`"mismatch"`);
 * - present and malformed: `DISCOVERY_INVALID` (`"malformed"`);
 * - no answer (the resolver rejected): `DISCOVERY_FETCH_FAILED`, or with
 *   `onLookupFailure: "warn"` the warning `dns_lookup_failed` (`"lookup_failed"`).
 *
 * `result.dns` is the report once the check ran (not when an earlier step failed). Throws only
 * on misuse, as `verifySchemaOffline` does, and for options `dns` that are not an object with
 * a function `resolveTxt` (or none) and `onLookupFailure` `"fail"` or `"warn"`.
 *
 * @example With Node.js's resolver (Deno, Node.js and Bun)
 * ```ts
 * import { resolveTxt } from "node:dns/promises";
 * import { verifySchemaOfflineWithDns } from "jsr:@schemapin/schemapin/schema";
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { type JsonObject, parseJson } from "jsr:@schemapin/schemapin";
 *
 * const read = async (path: string) => parseJson(await Deno.readFile(path), path);
 * const result = await verifySchemaOfflineWithDns({
 *   schema: await read("tool.json"),
 *   signature: await read("tool.json.sig") as JsonObject,
 *   toolId: "add",
 *   domain: "example.com",
 *   discovery: await read("schemapin.json"), // https://example.com/.well-known/schemapin.json
 *   pinStore: new FilePinStore(),
 * }, { resolveTxt });
 * console.log(result.valid, result.dns?.state); // true "match", or false "mismatch" …
 * ```
 */
export async function verifySchemaOfflineWithDns(
  options: VerifySchemaOfflineOptions,
  dns: DnsCrossCheckOptions = {},
): Promise<SchemaVerificationResult & { dns?: DnsCrossCheck }> {
  checkArg("verifySchemaOfflineWithDns", "options", options, "object");
  const hook = dnsCrossCheckHook<SchemaVerificationResult>(dns, "verifySchemaOfflineWithDns");
  return await verifySchemaOfflineWithHook(options, hook);
}
