/**
 * The domain a verification is for (§9): the one given as `--domain`, checked and in the form
 * pins are keyed by (`domainOption` of cli/dns/domain_option.ts), or the one a signed 1.4 document
 * names, and never two that differ. A missing or unusable domain is a `usageError` naming the
 * option.
 *
 * @module
 */
import { checkDomain } from "../../lib/dns/domain.ts";
import { domainOption } from "../dns/domain_option.ts";
import { usageError } from "../../lib/errors.ts";

/**
 * The domain of a verification (issue 25 item 4), to verify against: `given` (checked and
 * normalised by {@linkcode domainOption}) or, without it, `named` (the document's domain:
 * `signedDocumentDomain` of lib/skill/document.ts).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` when neither is there, when
 *   `named` is not a usable domain and none was given, or when both are there and differ
 *   (after normalisation).
 *
 * @example
 * ```ts
 * import { verificationDomain } from "./domain.ts";
 * verificationDomain(undefined, "Example.COM"); // "example.com"
 * verificationDomain("example.com", "example.com"); // "example.com"
 * ```
 */
export function verificationDomain(given: string | undefined, named: string | undefined): string {
  if (given === undefined) {
    if (named === undefined) {
      throw usageError("--domain D is required: the signature does not name its domain", {
        option: "domain",
      });
    }
    const dc = checkDomain(named);
    if (!dc.ok) {
      throw usageError(
        "--domain D is required: the signature document's domain " +
          `${JSON.stringify(named)} is not usable (${dc.reason})`,
        { option: "domain" },
      );
    }
    return dc.domain;
  }
  const domain = domainOption(given);
  if (named !== undefined) {
    const dc = checkDomain(named);
    if ((dc.ok ? dc.domain : named.toLowerCase()) !== domain) {
      throw usageError(
        `--domain ${domain} differs from the domain the signature document names ` +
          `(${JSON.stringify(named)}); leave --domain out to use the document's`,
        { option: "domain" },
      );
    }
  }
  return domain;
}
