/**
 * The text a CLI user is shown for each warning code of a verification result: the library's
 * (`describeVerifyWarning` of lib/schema/verify_notes.ts) naming the flags that accepted it
 * (`--allow-expired`, `--allow-missing-revocation`).
 *
 * @module
 */
import { describeVerifyWarning as describe } from "../../lib/schema/verify_notes.ts";

const FLAG_NAMES = {
  allowExpired: "--allow-expired",
  allowMissingRevocation: "--allow-missing-revocation",
} as const;

/**
 * The text of a verification warning `code` for the CLI (an unknown code is shown as itself);
 * for `unprotected_fields`, followed by the fields.
 *
 * @example
 * ```ts
 * import { describeVerifyWarning } from "./verify_notes.ts";
 * describeVerifyWarning("signature_expired");
 * // "the signature has expired; accepted only because of --allow-expired"
 * ```
 */
export function describeVerifyWarning(code: string, unprotectedFields?: readonly string[]): string {
  return describe(code, unprotectedFields, FLAG_NAMES);
}
