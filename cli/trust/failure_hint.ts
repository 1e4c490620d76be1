/**
 * The CLI's advice after a verification that failed in a way the user can act on: a first-use
 * key not confirmed (pin it on first use, or seed the pin) and a changed key (move the pin, or
 * every pin of the domain when the publisher revoked the pinned key). It names commands and
 * flags, so it lives in the CLI; verify-schema and verify-skill load it only for a failure.
 *
 * @module
 */
import { shellLine } from "../../lib/contractpin/display_text.ts";
import type { OfflineVerificationResult } from "../../lib/schema/flow.ts";

/**
 * The CLI's advice for a failure the user can act on (first use not confirmed, a changed
 * key), or `""`; with `rerun` (the command line), the exact next command for a first-use key.
 *
 * @example
 * ```ts ignore
 * failureHint(result, ["verify-schema", "tool.json", "--signature", "tool.json.sig"]);
 * ```
 */
export function failureHint(result: OfflineVerificationResult, rerun?: readonly string[]): string {
  if (result.keyPinning === "first_use_declined") {
    const seed = `schemapin pins add ${result.toolId}@${result.domain} --fingerprint ` +
      `${result.keyFingerprint}`;
    if (rerun === undefined) {
      return `\nhint: after checking the fingerprint, rerun with --trust-first-use or seed it with \`${seed}\``;
    }
    // The key was found: it is only not pinned yet (issue 26). The exact next command.
    return `\nhint: the key was found, it is just not pinned yet: compare ${result.keyFingerprint} ` +
      "with the publisher's (out of band), then pin it on first use:\n" +
      `  ${shellLine(["schemapin", ...rerun, "--trust-first-use"])}\n` +
      `or seed the pin: ${seed}`;
  }
  if (result.errorCode === "KEY_PIN_MISMATCH" && result.pinnedKeyRevoked === true) {
    return "\nhint: the publisher revoked the pinned key, so this is their rotation; move the pin " +
      `with \`schemapin pins rotate ${result.toolId}@${result.domain} --fingerprint ` +
      `${result.keyFingerprint}\`, or every pin of the domain with \`schemapin pins rotate ` +
      `--domain ${result.domain} --fingerprint ${result.keyFingerprint}\``;
  }
  if (result.errorCode === "KEY_PIN_MISMATCH") {
    return "\nhint: if the publisher rotated keys, confirm the new fingerprint out of band and run " +
      `\`schemapin pins rotate ${result.toolId}@${result.domain} --fingerprint ${result.keyFingerprint}\``;
  }
  return "";
}
