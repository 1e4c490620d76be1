/**
 * The phrases the renderings of a verify report share (cli/contractpin/report_findings.ts,
 * report_human.ts, report_github.ts): a server identity, a list of surface kinds, the changed
 * fields of a drifted item, the hidden-text count of the last line, and the note on an added
 * item that `--allow-new` let through.
 *
 * @module
 */
import type { ServerIdentity } from "../../lib/contractpin/lock.ts";
import type { SurfaceMember } from "../../lib/contractpin/verify.ts";
import type { VerifyReport } from "../../lib/contractpin/report.ts";
import { redactCommand } from "../../lib/contractpin/secrets.ts";

/**
 * A server identity in one line: the stdio command (credentials redacted, arguments quoted
 * when they need it), the URL or the file path.
 *
 * @example
 * ```ts
 * import { describeIdentity } from "./report_text.ts";
 * describeIdentity({ transport: "stdio", command: ["node", "a b.js"] }); // 'node "a b.js"'
 * ```
 */
export function describeIdentity(id: ServerIdentity): string {
  switch (id.transport) {
    case "stdio":
      return redactCommand(id.command).map((
        a,
      ) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a)))
        .join(" ");
    case "http":
      return id.url;
    case "file":
      return id.path;
  }
}

/**
 * `prompts, resource templates and instructions`
 *
 * @example
 * ```ts
 * import { kindList } from "./report_text.ts";
 * kindList(["prompts", "resource_templates"]); // "prompts and resource templates"
 * ```
 */
export function kindList(kinds: readonly SurfaceMember[]): string {
  const names = kinds.map((k) => k.replace("_", " "));
  return names.length <= 1
    ? names.join("")
    : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
}

/**
 * The changed fields of a drifted item, or `changed` when they are not known.
 *
 * @example
 * ```ts
 * import { fieldsText } from "./report_text.ts";
 * fieldsText(["description"]); // "description"
 * ```
 */
export function fieldsText(fields: string[] | null): string {
  if (fields === null) return "changed (the lock has no field digests)";
  return fields.length ? fields.join(", ") : "changed";
}

/**
 * ` (allowed by --allow-new)` after an added item when the run allows new items, else "".
 *
 * @example
 * ```ts
 * import { allowedNew } from "./report_text.ts";
 * allowedNew(true); // " (allowed by --allow-new)"
 * ```
 */
export function allowedNew(allowNew: boolean): string {
  return allowNew ? " (allowed by --allow-new)" : "";
}

/**
 * `; N hidden-text findings (warnings)` for the last line of a report, or "".
 *
 * @example
 * ```ts
 * import { hiddenTextSummary } from "./report_text.ts";
 * hiddenTextSummary({ strict_text: false, summary: { hidden_text: 2 } }); // "; 2 hidden-text findings (warnings)"
 * ```
 */
export function hiddenTextSummary(
  report: Pick<VerifyReport, "strict_text"> & {
    summary: Pick<VerifyReport["summary"], "hidden_text">;
  },
): string {
  const n = report.summary.hidden_text ?? 0;
  if (n === 0) return "";
  return `; ${n} hidden-text finding${n === 1 ? "" : "s"}` +
    (report.strict_text ? " (failing: --strict-text)" : " (warnings)");
}
