/**
 * `--domain D` of the commands: checked (§9, `checkDomain` of lib/dns/domain.ts) and in the form
 * pins are keyed by, or a usage error naming the option.
 *
 * @module
 */
import { checkDomain } from "../../lib/dns/domain.ts";
import { usageError } from "../../lib/errors.ts";

/**
 * `--domain D`, validated (§9) and normalised.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` when it is missing or not a
 *   host name.
 *
 * @example
 * ```ts
 * import { domainOption } from "./domain_option.ts";
 * domainOption("Example.COM"); // "example.com"
 * ```
 */
export function domainOption(value: string | undefined): string {
  if (value === undefined) throw usageError("--domain D is required", { option: "domain" });
  const dc = checkDomain(value);
  if (!dc.ok) {
    throw usageError(`--domain ${JSON.stringify(value)}: ${dc.reason}`, { option: "domain" });
  }
  return dc.domain;
}
