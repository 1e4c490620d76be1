/**
 * The notices of a verify report in the CLI's words: where the library says what to do in its
 * own terms (lib/contractpin/verify_server.ts), `contract verify` names the command that does
 * it. Applied once to the report (cli/contractpin/verify_lock.ts), so the human text, SARIF,
 * GitHub annotations and `--json` all carry the same words.
 *
 * @module
 */
import type { VerifyReport } from "../../lib/contractpin/report.ts";
import type { Notice } from "../../lib/contractpin/verify.ts";
import {
  PROTOCOL_CHANGED_REMEDY,
  SNAPSHOT_UNAVAILABLE,
} from "../../lib/contractpin/verify_server.ts";
import { messageInCliWords } from "../library_words.ts";

const SNAPSHOT_UNAVAILABLE_CLI =
  "no snapshot, so no diffs: review each change with `schemapin contract approve` " +
  "(it shows the changed fields and the added tools)";

const PROTOCOL_CHANGED_CLI = "re-run `schemapin contract init --force` after review to record it";

/**
 * One notice in the CLI's words; a notice that names no step to take is returned as it is.
 *
 * @example
 * ```ts
 * import { noticeInCliWords } from "./notice_text.ts";
 * noticeInCliWords({ kind: "listing", message: "2 pages" }).message; // "2 pages"
 * ```
 */
export function noticeInCliWords(n: Notice): Notice {
  if (n.kind === "snapshot_unavailable" && n.message === SNAPSHOT_UNAVAILABLE) {
    return { ...n, message: SNAPSHOT_UNAVAILABLE_CLI };
  }
  if (n.kind === "protocol_changed" && n.message.endsWith(PROTOCOL_CHANGED_REMEDY)) {
    const facts = n.message.slice(0, n.message.length - PROTOCOL_CHANGED_REMEDY.length);
    return { ...n, message: facts + PROTOCOL_CHANGED_CLI };
  }
  return n;
}

/**
 * Puts every notice of a report in the CLI's words (in place).
 *
 * @example
 * ```ts
 * import { reportInCliWords } from "./notice_text.ts";
 * import { finishReport } from "../../lib/contractpin/report.ts";
 * reportInCliWords(finishReport("contractpin.lock", false, null, [])).servers; // []
 * ```
 */
export function reportInCliWords(report: VerifyReport): VerifyReport {
  for (const s of report.servers) {
    s.notices = s.notices.map(noticeInCliWords);
    // A server that failed: the library's hint (a cap, credentials) in the CLI's words.
    if (s.error) s.error = { ...s.error, message: messageInCliWords(s.error.message) };
  }
  return report;
}
