/**
 * The GitHub Actions rendering of a verify report (`contract verify --format github`): one
 * workflow command per finding, so drift shows as annotations on the lock file in a pull
 * request, and a last line with the result. Pure.
 *
 * @module
 */
import type { VerifyReport } from "../../lib/contractpin/report.ts";
import { itemLabel } from "../../lib/contractpin/surface.ts";
import { escapeInvisible } from "../../lib/contractpin/display_text.ts";
import { checkArg } from "../../lib/arguments.ts";
import { findings } from "./report_findings.ts";
import { lockLine } from "./report_lock_line.ts";
import { hiddenTextSummary } from "./report_text.ts";

function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * One GitHub Actions workflow command (`::error file=…,line=…,title=…::message`), its
 * properties and data escaped as the runner requires (no line break can end it early).
 *
 * @example
 * ```ts
 * import { githubCommand } from "./report_github.ts";
 * githubCommand("error", "a.lock", 3, "t: x", "50%"); // "::error file=a.lock,line=3,title=t%3A x::50%25"
 * ```
 */
export function githubCommand(
  command: "error" | "warning" | "notice",
  file: string,
  line: number,
  title: string,
  message: string,
): string {
  return `::${command} file=${escapeProperty(file)},line=${line},title=${escapeProperty(title)}::${
    escapeData(message)
  }`;
}

/**
 * GitHub Actions workflow commands (`::error file=…,line=…,title=…::message`), one per finding,
 * so drift shows as annotations on the lock file in a pull request.
 *
 * @example
 * ```ts
 * import { formatGithub } from "./report_github.ts";
 * import { parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lockText = await Deno.readTextFile("contractpin.lock");
 * const lock = parseLock(new TextEncoder().encode(lockText));
 * const report = await verifyLock({ lock, lockPath: "contractpin.lock" });
 * console.log(formatGithub(report, lockText)); // ::error file=contractpin.lock,…
 * ```
 */
export function formatGithub(report: VerifyReport, lockText: string): string {
  checkArg("formatGithub", "report", report, "object");
  checkArg("formatGithub", "report.servers", report.servers, "array");
  checkArg("formatGithub", "lockText", lockText, "string");
  const lines = findings(report).map((f) => {
    const command = f.level === "note" ? "notice" : f.level;
    const title = `contract ${f.rule.replaceAll("-", " ")}: ${f.server}${
      f.tool ? "/" + itemLabel(f.kind, f.tool) : ""
    }`;
    return githubCommand(
      command,
      report.lock,
      lockLine(lockText, f.server, f.tool, f.kind),
      title,
      f.message,
    );
  });
  const sm = report.summary;
  lines.push(
    `contract verify: ${report.result} — ${sm.matched}/${sm.servers} servers match` +
      `${hiddenTextSummary(report)} (exit ${report.exit_code})`,
  );
  return escapeInvisible(lines.join("\n")) + "\n";
}
