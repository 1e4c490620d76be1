/**
 * The text a person is shown for each warning code of a verification result (`warnings` of
 * lib/schema/flow.ts, lib/trust/load.ts and the DNS cross-check); the options named are the
 * ones that accepted the warning, in the library's terms unless the caller names them (the CLI
 * names its flags, cli/schema/verify_notes.ts).
 *
 * @module
 */

/**
 * How the options that accept a warning are named in its text.
 *
 * @example
 * ```ts
 * import type { AcceptingOptionNames } from "./verify_notes.ts";
 * const names: AcceptingOptionNames = { allowExpired: "allowExpired", allowMissingRevocation: "x" };
 * ```
 */
export interface AcceptingOptionNames {
  /** The option that accepts an expired signature (default `allowExpired`). */
  readonly allowExpired: string;
  /** The option that accepts an unreachable revocation endpoint (default `allowMissingRevocation`). */
  readonly allowMissingRevocation: string;
}

const LIBRARY_NAMES: AcceptingOptionNames = {
  allowExpired: "allowExpired",
  allowMissingRevocation: "allowMissingRevocation",
};

const ACCEPTED_WARNINGS: Record<string, (names: AcceptingOptionNames) => string> = {
  signature_expired: (n) => `the signature has expired; accepted only because of ${n.allowExpired}`,
  signature_expires_at_unparseable: (n) =>
    `expires_at is not a valid RFC 3339 time; accepted only because of ${n.allowExpired}`,
  revocation_endpoint_unreachable: (n) =>
    "the declared revocation_endpoint could not be fetched; accepted only because of " +
    n.allowMissingRevocation,
};

const VERIFY_WARNINGS: Record<string, string> = {
  unprotected_fields: "the signature document has fields its signature does not cover",
  revocation_document_missing:
    "the discovery document declares a revocation_endpoint whose document was not checked",
  discovery_schema_version_newer:
    "the discovery document has a newer schema_version than this verifier knows (read as 1.4)",
  signature_version_newer:
    "the signature document has a newer schemapin_version than this verifier knows",
  dns_multiple_records:
    "several _schemapin TXT records carry v=schemapin1; the first one was used (§17.1)",
  dns_lookup_failed: "the DNS TXT record could not be looked up; not cross-checked",
  legacy_signature_format:
    "legacy signature format (schemapin_version below 1.4): only the file contents are " +
    "signed, none of the metadata (skill_name, domain, signed_at, expires_at, versions, " +
    "manifest); it cannot anchor lineage — ask the publisher to re-sign with SchemaPin 1.4",
  legacy_nested_signature_files:
    "legacy signature format: nested .schemapin.sig files are not covered by the signature " +
    "(the 1.3 algorithm leaves that name out at every depth, as the reference SDKs do; §4b); " +
    "their contents are not verified",
};

/**
 * The text of a verification warning `code` (an unknown code is shown as itself); for
 * `unprotected_fields`, followed by the fields. A warning accepted by an option names it as
 * `names` says (default: the library's option names).
 *
 * @example
 * ```ts
 * import { describeVerifyWarning } from "./verify_notes.ts";
 * describeVerifyWarning("unprotected_fields", ["note"]);
 * // "the signature document has fields its signature does not cover: note (ignored)"
 * ```
 */
export function describeVerifyWarning(
  code: string,
  unprotectedFields?: readonly string[],
  names: AcceptingOptionNames = LIBRARY_NAMES,
): string {
  const base = Object.hasOwn(ACCEPTED_WARNINGS, code)
    ? ACCEPTED_WARNINGS[code](names)
    : Object.hasOwn(VERIFY_WARNINGS, code)
    ? VERIFY_WARNINGS[code]
    : code;
  if (code === "unprotected_fields" && unprotectedFields) {
    return `${base}: ${unprotectedFields.join(", ")} (ignored)`;
  }
  return base;
}
