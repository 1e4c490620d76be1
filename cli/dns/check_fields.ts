/**
 * The JSON fields of `schemapin dns check` (`schemapin.dns.check/1`, the schema in
 * `schemas/cli/`): what a domain publishes (`lookupDnsTxt` in lib/dns/check.ts), what
 * `dnsTxtVerdict` made of it and the key it was compared with, `ok` first and every name
 * snake_case. The CLI adds `format` and prints them (cli/commands/json_output.ts).
 *
 * @module
 */
import { argumentError } from "../../lib/arguments.ts";
import type { DnsTxtLookup, DnsTxtVerdict } from "../../lib/dns/check.ts";

/** The key a record was compared with, and where it came from (`--key FILE`, a URL, …). */
export interface ExpectedDnsKey {
  /** Its `sha256:` fingerprint. */
  readonly fingerprint: string;
  /** Where it came from, for people. */
  readonly source: string;
}

/**
 * The fields of a domain's record check: `ok` and the `error` of the verdict, the lookup
 * (`name`, `server`, `state` — the comparison's state when a key was given — the `record`
 * text, its `fingerprint` and `kid`, the `reason` it is malformed or failed, how many TXT
 * `records` and `candidates`), and the `expected` key with its `expected_source`.
 *
 * @example
 * ```ts ignore
 * import { dnsTxtVerdict, lookupDnsTxt } from "../../lib/dns/check.ts";
 * import { dnsCheckFields } from "./check_fields.ts";
 * const lookup = await lookupDnsTxt("example.com");
 * const fields = dnsCheckFields(lookup, dnsTxtVerdict(lookup));
 * ```
 */
export function dnsCheckFields(
  lookup: DnsTxtLookup,
  verdict: DnsTxtVerdict,
  expected?: ExpectedDnsKey,
): { readonly ok: boolean } & Record<string, unknown> {
  if (typeof lookup !== "object" || lookup === null || typeof lookup.name !== "string") {
    throw argumentError("dnsCheckFields", "lookup", "a DNS TXT lookup (lookupDnsTxt)", lookup);
  }
  if (typeof verdict !== "object" || verdict === null || typeof verdict.ok !== "boolean") {
    throw argumentError("dnsCheckFields", "verdict", "a verdict (dnsTxtVerdict)", verdict);
  }
  if (
    expected !== undefined &&
    (typeof expected !== "object" || expected === null ||
      typeof expected.fingerprint !== "string" || typeof expected.source !== "string")
  ) {
    throw argumentError(
      "dnsCheckFields",
      "expected",
      "a key's fingerprint and source, or undefined",
      expected,
    );
  }
  const { ok, decision, error } = verdict;
  return {
    ok,
    ...(error ? { error } : {}),
    name: lookup.name,
    server: lookup.server,
    state: decision?.check.state ?? lookup.state,
    ...(lookup.text !== undefined ? { record: lookup.text } : {}),
    ...(lookup.record ? { fingerprint: lookup.record.fp } : {}),
    ...(lookup.record?.kid !== undefined ? { kid: lookup.record.kid } : {}),
    ...(lookup.reason !== undefined ? { reason: lookup.reason } : {}),
    records: lookup.records,
    candidates: lookup.candidates,
    ...(expected ? { expected: expected.fingerprint, expected_source: expected.source } : {}),
  };
}
