/**
 * The domain of a verification (issue 25 item 4): `--domain D` when given, else the domain a
 * signed 1.4 document names (its signature covers that field, so the key it selects is
 * checked against it). A `--domain` that differs from the document's is a usage error; a
 * signature that names no domain (bare Base64, a legacy 1.3 skill document, a document
 * without `domain`) still needs `--domain`. Shared by verify-schema and verify-skill.
 *
 * @module
 */
import { checkDomain } from "../dns/domain.ts";
import { UsageError } from "./command.ts";
import { requireDomainFlag } from "./schema_inputs.ts";

// Moved to lib/skill/document.ts; re-exported for the verify commands that import it here.
export { signedDocumentDomain } from "../skill/document.ts";

/**
 * The domain to verify against: `flag` (checked and normalised as `--domain` always is) or,
 * without it, `named` (the document's domain: `signedDocumentDomain` of lib/skill/document.ts).
 * Throws a {@linkcode UsageError} (exit 2) when neither is there, when `named` is not a usable
 * domain and no `--domain` was given, or when both are there and differ (after normalisation).
 *
 * @example
 * ```ts
 * import { resolveSignedDomain } from "./signed_domain.ts";
 * resolveSignedDomain("verify-schema", undefined, "Example.COM"); // "example.com"
 * resolveSignedDomain("verify-schema", "example.com", "example.com"); // "example.com"
 * ```
 */
export function resolveSignedDomain(
  command: string,
  flag: string | undefined,
  named: string | undefined,
): string {
  if (flag === undefined) {
    if (named === undefined) {
      throw new UsageError(
        `${command}: --domain D is required: the signature does not name its domain`,
      );
    }
    const dc = checkDomain(named);
    if (!dc.ok) {
      throw new UsageError(
        `${command}: --domain D is required: the signature document's domain ` +
          `${JSON.stringify(named)} is not usable (${dc.reason})`,
      );
    }
    return dc.domain;
  }
  const domain = requireDomainFlag(command, flag);
  if (named !== undefined) {
    const dc = checkDomain(named);
    const normalised = dc.ok ? dc.domain : named.toLowerCase();
    if (normalised !== domain) {
      throw new UsageError(
        `${command}: --domain ${domain} differs from the domain the signature document names ` +
          `(${JSON.stringify(named)}); leave --domain out to use the document's`,
      );
    }
  }
  return domain;
}
