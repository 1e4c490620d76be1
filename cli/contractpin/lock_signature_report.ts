/**
 * The lock signature's check (cli/contractpin/lock_signature_check.ts) in the report formats of
 * `contract verify` and the guard (cli/contractpin/report_*.ts render the servers'): one line
 * for people, a SARIF result (`contractpin/lock-signature`), a GitHub workflow command.
 *
 * @module
 */
import { LOCK_SIGNATURE_TOOL_ID } from "./lock_signature.ts";
import type { LockSignatureCheck } from "./lock_signature_check.ts";
import type { FileFinding } from "./report_sarif.ts";
import { githubCommand } from "./report_github.ts";

/** What the key check was, in words. */
function pinWords(check: LockSignatureCheck): string {
  const r = check.result!;
  if (check.explicitKey) return "key from --public-key, not pinned";
  return r.keyPinning === "first_use" ? "pinned on first use" : "pin matches";
}

/**
 * One line stating the result (human report, annotations); without `full`, a failure is
 * named by its code only (the message is then said elsewhere).
 *
 * @example
 * ```ts
 * import { lockSignatureLine } from "./lock_signature_report.ts";
 * lockSignatureLine({ status: "not_checked", required: false, file: "contractpin.lock.sig" });
 * // "lock signature: not checked"
 * ```
 */
export function lockSignatureLine(check: LockSignatureCheck, full = true): string {
  const r = check.result;
  if (check.status === "not_checked" || !r) return `lock signature: not checked`;
  if (r.valid) {
    return `lock signature: ok ${check.file}: signed by ${r.keyFingerprint} for ` +
      `${LOCK_SIGNATURE_TOOL_ID}@${r.domain} (${pinWords(check)})` +
      (r.expired ? " — EXPIRED, accepted because of --allow-expired" : "");
  }
  return `lock signature: FAIL ${check.file}: ${r.errorCode}` + (full ? `: ${r.errorMessage}` : "");
}

/**
 * The SARIF result of a checked lock signature (rule `contractpin/lock-signature`) for
 * `formatSarif`'s `fileFindings`: an error when it failed, a note when it verified, nothing
 * when it was not checked.
 *
 * @example
 * ```ts
 * import { lockSignatureSarif } from "./lock_signature_report.ts";
 * lockSignatureSarif({ status: "not_checked", required: false, file: "contractpin.lock.sig" });
 * // []
 * ```
 */
export function lockSignatureSarif(check: LockSignatureCheck): FileFinding[] {
  if (check.status === "not_checked" || !check.result) return [];
  return [{
    rule: "lock-signature",
    ruleText: "The lock's signature (LOCK.sig) must verify with the publisher's key.",
    level: check.status === "invalid" ? "error" : "note",
    file: check.file,
    message: lockSignatureLine(check),
  }];
}

/**
 * The GitHub workflow command of a checked lock signature (`::error` or `::notice`, with its
 * line break), empty when it was not checked.
 *
 * @example
 * ```ts
 * import { lockSignatureGithubLine } from "./lock_signature_report.ts";
 * lockSignatureGithubLine({ status: "not_checked", required: false, file: "contractpin.lock.sig" });
 * // ""
 * ```
 */
export function lockSignatureGithubLine(check: LockSignatureCheck): string {
  if (check.status === "not_checked" || !check.result) return "";
  const command = check.status === "invalid" ? "error" : "notice";
  return githubCommand(
    command,
    check.file,
    1,
    "contract lock signature",
    lockSignatureLine(check),
  ) +
    "\n";
}

/**
 * What a failed check says on stderr after `error: `: the code, then the message naming the
 * signature file (once: a message that starts with it is kept as it is); `undefined` when the
 * check did not fail.
 *
 * @example
 * ```ts
 * import { lockSignatureFailure } from "./lock_signature_report.ts";
 * lockSignatureFailure({ status: "not_checked", required: false, file: "contractpin.lock.sig" });
 * // undefined
 * ```
 */
export function lockSignatureFailure(check: LockSignatureCheck): string | undefined {
  const r = check.result;
  if (!r || r.valid) return undefined;
  const message = r.errorMessage?.startsWith(check.file)
    ? r.errorMessage
    : `${check.file}: ${r.errorMessage}`;
  return `${r.errorCode}: ${message}`;
}
