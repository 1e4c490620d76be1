/**
 * The human rendering of a verify report (`contract verify` without `--format`): one status
 * line per server, each change with its changed fields, diffs, notices and hidden text, and a
 * final result line. Pure: the command prints what it returns.
 *
 * @module
 */
import {
  type ServerReport,
  surfaceCount,
  surfaceKinds,
  type VerifyReport,
} from "../../lib/contractpin/report.ts";
import { itemLabel, SURFACE_SPECS } from "../../lib/contractpin/surface.ts";
import { describeHiddenText } from "../../lib/contractpin/hidden_text.ts";
import { escapeInvisible } from "../../lib/contractpin/display_text.ts";
import { checkArg } from "../../lib/arguments.ts";
import { skillHumanLines, skillsSummary } from "./skills_report.ts";
import {
  allowedNew,
  describeIdentity,
  fieldsText,
  hiddenTextSummary,
  kindList,
} from "./report_text.ts";

/**
 * The human report: one status line per server, each changed tool with its changed fields,
 * diffs, notices, and a final result line.
 *
 * @example
 * ```ts
 * import { formatHuman } from "./report_human.ts";
 * import { parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const report = await verifyLock({ lock, lockPath: "contractpin.lock" });
 * console.log(formatHuman(report, { diffs: true }));
 * ```
 */
export function formatHuman(report: VerifyReport, options: { diffs?: boolean } = {}): string {
  checkArg("formatHuman", "report", report, "object");
  checkArg("formatHuman", "report.servers", report.servers, "array");
  checkArg("formatHuman", "options", options, "object");
  const lines: string[] = [];
  for (const s of report.servers) {
    lines.push(...statusLines(s, report.lock), ...changeLines(s, report.allow_new));
    lines.push(...skillHumanLines(s.skills, report.allow_new));
    lines.push(...noteLines(s, report.strict_text));
    if (options.diffs !== false) lines.push(...diffLines(s));
  }
  const sm = report.summary;
  lines.push(
    `${report.result === "match" ? "match" : "FAIL"}: ${sm.matched}/${sm.servers} servers match` +
      ` (${sm.tools.drifted} drifted, ${sm.tools.added} added, ${sm.tools.removed} removed tools;` +
      ` ${sm.unreachable} unreachable)` + surfaceSummary(report) + hiddenTextSummary(report),
  );
  // Names, diffs, messages and server stderr come from the server under review: never print
  // its invisible or control characters (bidi overrides, ESC sequences) as themselves.
  return escapeInvisible(lines.join("\n")) + "\n";
}

/** The server's status line (with the server's stderr when it was unreachable). */
function statusLines(s: ServerReport, lock: string): string[] {
  const lines: string[] = [];
  const label = { match: "ok", drift: "DRIFT", unreachable: "UNREACHABLE", unpinned: "UNPINNED" }[
    s.status
  ];
  const t = s.tools;
  const counts = [
    t.drifted.length ? `${t.drifted.length} drifted` : "",
    t.added.length ? `${t.added.length} added` : "",
    t.removed.length ? `${t.removed.length} removed` : "",
    `${t.unchanged} unchanged`,
  ].filter(Boolean).join(", ");
  const surfaceChanges = surfaceCount(s, "drifted") + surfaceCount(s, "added") +
    surfaceCount(s, "removed");
  const counted = surfaceChanges > 0
    ? `${counts}; ${surfaceChanges} other change${surfaceChanges === 1 ? "" : "s"}`
    : counts;
  if (s.status === "unreachable") {
    lines.push(`${label.padEnd(11)} ${s.name} (${s.transport}): ${s.error?.message ?? ""}`);
    if (s.error?.stderr) {
      lines.push("  server stderr (tail):");
      for (const l of s.error.stderr.trimEnd().split("\n").slice(-15)) lines.push("  | " + l);
    }
  } else if (s.status === "unpinned") {
    lines.push(`${label.padEnd(11)} ${s.name} (${s.transport}): not in ${lock}`);
  } else {
    lines.push(
      `${label.padEnd(11)} ${s.name} (${s.transport}): ${counted}  ${s.digest.live ?? ""}`,
    );
  }
  return lines;
}

/** The identity and lock problems, then each changed tool and surface item. */
function changeLines(s: ServerReport, allowNew: boolean): string[] {
  const lines: string[] = [];
  if (s.identity_changed) {
    lines.push(`  identity changed: pinned   ${describeIdentity(s.identity_changed.locked)}`);
    lines.push(`                    configured ${describeIdentity(s.identity_changed.live)}`);
  }
  if (s.lock_inconsistent) {
    lines.push("  lock inconsistent: the server digest does not match the tool digests");
  }
  const t = s.tools;
  for (const d of t.drifted) lines.push(`  drifted  ${d.name}: ${fieldsText(d.changed_fields)}`);
  for (const name of t.added) lines.push(`  added    ${name}` + allowedNew(allowNew));
  for (const name of t.removed) lines.push(`  removed  ${name}`);
  for (const [kind, k] of surfaceKinds(s)) {
    const item = SURFACE_SPECS[kind].item;
    for (const d of k.drifted) {
      lines.push(`  drifted  ${itemLabel(item, d.name)}: ${fieldsText(d.changed_fields)}`);
    }
    for (const name of k.added) {
      lines.push(`  added    ${itemLabel(item, name)}` + allowedNew(allowNew));
    }
    for (const name of k.removed) lines.push(`  removed  ${itemLabel(item, name)}`);
  }
  if (s.surface?.instructions?.drifted) lines.push("  drifted  instructions");
  return lines;
}

/** Kinds not checked or not pinned, the notices, and the hidden text. */
function noteLines(s: ServerReport, strictText: boolean): string[] {
  const lines: string[] = [];
  if (s.unchecked_kinds?.length) {
    lines.push(
      `  not checked: ${kindList(s.unchecked_kinds)} (pinned, but not in the server listing)`,
    );
  }
  if (s.unpinned_kinds?.length) {
    lines.push(
      `  not pinned: ${kindList(s.unpinned_kinds)} (served; re-run \`schemapin contract ` +
        `init --force\` to pin)`,
    );
  }
  for (const n of s.notices) lines.push(`  note     ${n.message}`);
  for (const h of s.hidden_text ?? []) {
    lines.push(`  ${strictText ? "error" : "warning"}: hidden text in ${describeHiddenText(h)}`);
  }
  return lines;
}

/** The readable diffs of the changed items, indented, each after a blank line. */
function diffLines(s: ServerReport): string[] {
  const lines: string[] = [];
  for (const d of s.diffs) {
    if (d.text) {
      lines.push("");
      for (const l of d.text.trimEnd().split("\n")) lines.push("    " + l);
    }
  }
  return lines;
}

/**
 * `; 1 drifted, 2 added, 0 removed prompts/resources/templates/instructions` (then the skills')
 * for a report's last line — "" when no server pins any, so older reports read as before.
 */
function surfaceSummary(report: VerifyReport): string {
  const sf = report.summary.surface, skills = skillsSummary(report.servers);
  if (!sf || sf.drifted + sf.added + sf.removed + sf.unchanged === 0) return skills;
  return `; ${sf.drifted} drifted, ${sf.added} added, ${sf.removed} removed ` +
    `prompts/resources/templates/instructions${skills}`;
}
