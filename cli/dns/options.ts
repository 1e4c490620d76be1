/**
 * The options of `schemapin dns record` (the TXT record to publish, §17.1) and
 * `schemapin dns check` (what to compare a domain's record with, §17.2) checked, and the
 * record to publish built. A mistake in the options is a usage error (`usageError` of
 * lib/errors.ts) naming the option.
 *
 * @module
 */
import { checkArg } from "../../lib/arguments.ts";
import { isSha256Ref } from "../../lib/crypto/fingerprint.ts";
import { usageError } from "../../lib/errors.ts";
import { checkDomain } from "../../lib/dns/domain.ts";
import { domainOption } from "./domain_option.ts";
import { checkDnsKid, dnsLookupName, formatDnsTxtRecord } from "../../lib/dns/txt.ts";

/** The record to publish at `_schemapin.{domain}`, as `dns record` prints it (§17.1). */
export interface DnsRecordToPublish {
  /** The owner name `_schemapin.{domain}`, when a domain was given. */
  readonly name?: string;
  /** The TXT value: `v=schemapin1; kid=…; fp=sha256:…`. */
  readonly value: string;
  /** The fingerprint of the key it publishes. */
  readonly fingerprint: string;
  /** The key id it carries, when given. */
  readonly kid?: string;
}

/**
 * The TXT record that publishes a key: `kid` and `domain` are checked first, then the key's
 * fingerprint is asked of `fingerprintOf` (which may read a key file or ask a passphrase).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for a `kid` that cannot go into
 *   a TXT record or a `domain` that is not a host name (naming `--kid` / `--domain`); what
 *   `fingerprintOf` throws; `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts
 * import { dnsRecordToPublish } from "./options.ts";
 * const fp = "sha256:" + "ab".repeat(32);
 * const record = await dnsRecordToPublish({ kid: "k1", domain: "example.com" }, () =>
 *   Promise.resolve(fp));
 * record.name; // "_schemapin.example.com"
 * ```
 */
export async function dnsRecordToPublish(
  options: { readonly kid?: string; readonly domain?: string },
  fingerprintOf: () => Promise<string>,
): Promise<DnsRecordToPublish> {
  checkArg("dnsRecordToPublish", "options", options, "object");
  checkArg("dnsRecordToPublish", "fingerprintOf", fingerprintOf, "function");
  const { kid, domain } = options;
  const problem = kid === undefined ? undefined : checkDnsKid(kid);
  if (problem) throw usageError(`--kid: ${problem}`, { option: "kid" });
  let name: string | undefined;
  if (domain !== undefined) {
    name = dnsLookupName(domainOption(domain));
  }
  const fingerprint = await fingerprintOf();
  const value = formatDnsTxtRecord(fingerprint, kid);
  return { ...(name ? { name } : {}), value, fingerprint, ...(kid !== undefined ? { kid } : {}) };
}

/** What `dns check` compares the record with (at most one), as given. */
export interface DnsCheckOptions {
  /** A key file (public or private PEM). */
  readonly key?: string;
  /** A fingerprint, `sha256:` and 64 lower-case hex digits. */
  readonly fingerprint?: string;
  /** A discovery document file. */
  readonly discovery?: string;
  /** The domain's live `.well-known` document. */
  readonly "well-known"?: boolean;
  /** The CA file of the `.well-known` fetch. */
  readonly "ca-file"?: string;
}

/**
 * Checks the domain of `dns check` (a trailing dot allowed) and the key it is compared with;
 * returns the domain, lower-cased.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` for a domain that is not a host
 *   name, more than one key, `ca-file` without `well-known`, or a malformed fingerprint;
 *   `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts
 * import { checkDnsCheckOptions } from "./options.ts";
 * checkDnsCheckOptions("Example.com.", { "well-known": true }); // "example.com"
 * ```
 */
export function checkDnsCheckOptions(domain: string, options: DnsCheckOptions): string {
  checkArg("checkDnsCheckOptions", "domain", domain, "string");
  checkArg("checkDnsCheckOptions", "options", options, "object");
  const dc = checkDomain(domain.endsWith(".") ? domain.slice(0, -1) : domain);
  if (!dc.ok) throw usageError(`${JSON.stringify(domain)}: ${dc.reason}`);
  const given = (["key", "fingerprint", "discovery", "well-known"] as const).filter((k) =>
    options[k] !== undefined
  );
  if (given.length > 1) {
    throw usageError(`give at most one of --key, --fingerprint, --discovery, --well-known`);
  }
  if (options["ca-file"] !== undefined && !options["well-known"]) {
    throw usageError("--ca-file goes with --well-known", { option: "ca-file" });
  }
  if (options.fingerprint !== undefined && !isSha256Ref(options.fingerprint)) {
    throw usageError("--fingerprint must be sha256: and 64 lower-case hex digits", {
      option: "fingerprint",
    });
  }
  return dc.domain;
}
