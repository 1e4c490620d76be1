/**
 * The verify report — one versioned JSON shape (`schemapin.contract.verify/1`) — and its
 * renderings: human text, SARIF 2.1.0 for code scanning, and GitHub workflow annotations.
 * Pure functions: the CLI prints what they return.
 *
 * @module
 */
import type { ServerIdentity, TransportKind } from "./lock.ts";
import type { Notice, ToolDiff } from "./verify.ts";
import { redactCommand } from "./secrets.ts";
import { describeHiddenText, type ToolHiddenTextFinding } from "./hidden_text.ts";
import { escapeInvisible } from "./display_text.ts";
import { checkArg } from "../arguments.ts";

/**
 * The `format` value of a verify report.
 *
 * @example
 * ```ts
 * import { VERIFY_REPORT_FORMAT } from "jsr:@schemapin/schemapin/contractpin";
 * console.log(VERIFY_REPORT_FORMAT); // "schemapin.contract.verify/1"
 * ```
 */
export const VERIFY_REPORT_FORMAT = "schemapin.contract.verify/1";

/** How one server fared. */
export type ServerStatus = "match" | "drift" | "unreachable" | "unpinned";

/** One server in a verify report (JSON names are snake_case and stable). */
export interface ServerReport {
  /** Local server name. */
  name: string;
  /** Transport. */
  transport: TransportKind;
  /** `match` passes; `drift`, `unreachable` and `unpinned` fail. */
  status: ServerStatus;
  /** Server digests (§4.3): pinned and live (null when unknown). */
  digest: { locked: string | null; live: string | null };
  /** Tool counts: pinned and live (null when unknown). */
  tool_count: { locked: number | null; live: number | null };
  /** Set when the server definition used differs from the pinned identity. */
  identity_changed: { locked: ServerIdentity; live: ServerIdentity } | null;
  /** True when the lock's server digest does not match its own tool digests (hand edit). */
  lock_inconsistent: boolean;
  /** The §6 classification. */
  tools: {
    drifted: { name: string; locked: string; live: string; changed_fields: string[] | null }[];
    added: string[];
    removed: string[];
    unchanged: number;
  };
  /** Why the server could not be enumerated. */
  error: { kind: string; message: string; stderr?: string } | null;
  /** Informational notes (never change the result). */
  notices: Notice[];
  /** Readable diffs of changed tools (empty text when no snapshot entry was usable). */
  diffs: ToolDiff[];
  /**
   * Hidden text in the live tool definitions (issue 17 item 3, `findHiddenText`): warnings,
   * failures with `--strict-text`. Empty when the server could not be enumerated.
   */
  hidden_text: ToolHiddenTextFinding[];
}

/** A whole verify run. */
export interface VerifyReport {
  /** Always {@linkcode VERIFY_REPORT_FORMAT}. */
  format: string;
  /** The lock file verified. */
  lock: string;
  /**
   * `match` (exit 0) or `drift` (exit 1 for any reason: a drifted, added or removed tool, an
   * unreachable server, hidden text with `--strict-text`, or — in the CLI — a lock signature
   * that did not verify). The CLI's `error.code` says which (`CONTRACT_DRIFT`, `HIDDEN_TEXT`,
   * the signature's SchemaPin code); the name stays `drift` for compatibility of the /1 format.
   */
  result: "match" | "drift";
  /** The process exit code this report maps to (§6). */
  exit_code: 0 | 1;
  /** Whether `--allow-new` was given. */
  allow_new: boolean;
  /** Whether `--strict-text` was given: hidden text fails the run (exit 1). */
  strict_text: boolean;
  /** The snapshot file used for diffs, if any. */
  snapshot: string | null;
  /** Per server, in lock order. */
  servers: ServerReport[];
  /** Counts. */
  summary: {
    servers: number;
    matched: number;
    drifted: number;
    unreachable: number;
    unpinned: number;
    tools: { drifted: number; added: number; removed: number; unchanged: number };
    /** Hidden-text findings over all servers. */
    hidden_text: number;
  };
}

/**
 * Completes a report from its servers: result, exit code and summary (§6 exit codes). With
 * `strictText`, any hidden-text finding fails the run too (result `drift`, exit 1) although
 * every server's status stays what the §6 comparison says.
 *
 * @example
 * ```ts
 * import { finishReport } from "./report.ts";
 * finishReport("contractpin.lock", false, null, []).exit_code; // 0
 * ```
 */
export function finishReport(
  lock: string,
  allowNew: boolean,
  snapshot: string | null,
  servers: ServerReport[],
  strictText = false,
): VerifyReport {
  checkArg("finishReport", "lock", lock, "string");
  checkArg("finishReport", "strictText", strictText, "boolean");
  checkArg("finishReport", "allowNew", allowNew, "boolean");
  if (snapshot !== null) checkArg("finishReport", "snapshot", snapshot, "string");
  checkArg("finishReport", "servers", servers, "array");
  const count = (s: ServerStatus) => servers.filter((r) => r.status === s).length;
  const sum = (f: (r: ServerReport) => number) => servers.reduce((n, r) => n + f(r), 0);
  const hidden = sum((r) => r.hidden_text?.length ?? 0);
  const ok = servers.every((r) => r.status === "match") && !(strictText && hidden > 0);
  return {
    format: VERIFY_REPORT_FORMAT,
    lock,
    result: ok ? "match" : "drift",
    exit_code: ok ? 0 : 1,
    allow_new: allowNew,
    strict_text: strictText,
    snapshot,
    servers,
    summary: {
      servers: servers.length,
      matched: count("match"),
      drifted: count("drift"),
      unreachable: count("unreachable"),
      unpinned: count("unpinned"),
      tools: {
        drifted: sum((r) => r.tools.drifted.length),
        added: sum((r) => r.tools.added.length),
        removed: sum((r) => r.tools.removed.length),
        unchanged: sum((r) => r.tools.unchanged),
      },
      hidden_text: hidden,
    },
  };
}

function describeIdentity(id: ServerIdentity): string {
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

function fieldsText(fields: string[] | null): string {
  if (fields === null) return "changed (the lock has no field digests)";
  return fields.length ? fields.join(", ") : "changed";
}

/** The problems of one server, one line each, for every output format. */
export interface Finding {
  /** Stable rule id (SARIF `ruleId`). */
  readonly rule:
    | "tool-drifted"
    | "tool-added"
    | "tool-removed"
    | "server-unreachable"
    | "identity-changed"
    | "lock-inconsistent"
    | "server-unpinned"
    | "hidden-text"
    | "notice";
  /** `error` fails the run; `warning` and `note` do not. */
  readonly level: "error" | "warning" | "note";
  /** Server name. */
  readonly server: string;
  /** Tool name, when the finding is about one tool. */
  readonly tool?: string;
  /** One-line message. */
  readonly message: string;
  /** For `hidden-text`: where in the tool definition (JSON Pointer, `@offset`, kind). */
  readonly where?: string;
}

/**
 * Flattens a report into findings (errors first within each server, then notes).
 *
 * @example
 * ```ts
 * import { findings, finishReport } from "./report.ts";
 * findings(finishReport("contractpin.lock", false, null, [])); // []
 * ```
 */
export function findings(report: VerifyReport): Finding[] {
  checkArg("findings", "report", report, "object");
  checkArg("findings", "report.servers", report.servers, "array");
  const out: Finding[] = [];
  for (const s of report.servers) {
    const server = s.name;
    if (s.status === "unreachable" && s.error) {
      out.push({
        rule: "server-unreachable",
        level: "error",
        server,
        message: `server ${server} could not be checked (${s.error.kind}): ${s.error.message}`,
      });
    }
    if (s.status === "unpinned") {
      out.push({
        rule: "server-unpinned",
        level: "error",
        server,
        message: `server ${server} is configured but not pinned in ${report.lock}`,
      });
    }
    if (s.identity_changed) {
      out.push({
        rule: "identity-changed",
        level: "error",
        server,
        message: `server ${server} identity changed: pinned ${
          describeIdentity(s.identity_changed.locked)
        }, configured ${describeIdentity(s.identity_changed.live)}`,
      });
    }
    if (s.lock_inconsistent) {
      out.push({
        rule: "lock-inconsistent",
        level: "error",
        server,
        message: `server ${server}: the lock's server digest does not match its tool digests ` +
          `(the lock was edited by hand)`,
      });
    }
    for (const d of s.tools.drifted) {
      out.push({
        rule: "tool-drifted",
        level: "error",
        server,
        tool: d.name,
        message: `${server}/${d.name} drifted: ${fieldsText(d.changed_fields)}`,
      });
    }
    for (const name of s.tools.added) {
      out.push({
        rule: "tool-added",
        level: report.allow_new ? "note" : "error",
        server,
        tool: name,
        message: `${server}/${name} was added` +
          (report.allow_new ? " (allowed by --allow-new)" : ""),
      });
    }
    for (const name of s.tools.removed) {
      out.push({
        rule: "tool-removed",
        level: "error",
        server,
        tool: name,
        message: `${server}/${name} was removed`,
      });
    }
    for (const h of s.hidden_text ?? []) {
      out.push({
        rule: "hidden-text",
        level: report.strict_text ? "error" : "warning",
        server,
        tool: h.tool,
        message: `${server}/${h.tool}: hidden text at ${h.pointer || "/"}` +
          `${h.in === "key" ? " (key)" : ""}, offset ${h.offset} (${h.kind}): ${h.message}: ` +
          `"${h.excerpt}"`,
        where: `${h.pointer}${h.in === "key" ? "#key" : ""}@${h.offset}/${h.kind}`,
      });
    }
    for (const n of s.notices) {
      out.push({
        rule: "notice",
        level: "note",
        server,
        tool: n.tool,
        message: `${server}: ${n.message}`,
      });
    }
  }
  return out;
}

/**
 * The human report: one status line per server, each changed tool with its changed fields,
 * diffs, notices, and a final result line.
 *
 * @example
 * ```ts
 * import { formatHuman, parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
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
    if (s.status === "unreachable") {
      lines.push(`${label.padEnd(11)} ${s.name} (${s.transport}): ${s.error?.message ?? ""}`);
      if (s.error?.stderr) {
        lines.push("  server stderr (tail):");
        for (const l of s.error.stderr.trimEnd().split("\n").slice(-15)) lines.push("  | " + l);
      }
    } else if (s.status === "unpinned") {
      lines.push(`${label.padEnd(11)} ${s.name} (${s.transport}): not in ${report.lock}`);
    } else {
      lines.push(
        `${label.padEnd(11)} ${s.name} (${s.transport}): ${counts}  ${s.digest.live ?? ""}`,
      );
    }
    if (s.identity_changed) {
      lines.push(`  identity changed: pinned   ${describeIdentity(s.identity_changed.locked)}`);
      lines.push(`                    configured ${describeIdentity(s.identity_changed.live)}`);
    }
    if (s.lock_inconsistent) {
      lines.push("  lock inconsistent: the server digest does not match the tool digests");
    }
    for (const d of t.drifted) lines.push(`  drifted  ${d.name}: ${fieldsText(d.changed_fields)}`);
    for (const name of t.added) {
      lines.push(`  added    ${name}` + (report.allow_new ? " (allowed by --allow-new)" : ""));
    }
    for (const name of t.removed) lines.push(`  removed  ${name}`);
    for (const n of s.notices) lines.push(`  note     ${n.message}`);
    for (const h of s.hidden_text ?? []) {
      lines.push(
        `  ${report.strict_text ? "error" : "warning"}: hidden text in ${describeHiddenText(h)}`,
      );
    }
    if (options.diffs !== false) {
      for (const d of s.diffs) {
        if (d.text) {
          lines.push("");
          for (const l of d.text.trimEnd().split("\n")) lines.push("    " + l);
        }
      }
    }
  }
  const sm = report.summary;
  lines.push(
    `${report.result === "match" ? "match" : "FAIL"}: ${sm.matched}/${sm.servers} servers match` +
      ` (${sm.tools.drifted} drifted, ${sm.tools.added} added, ${sm.tools.removed} removed tools;` +
      ` ${sm.unreachable} unreachable)` + hiddenTextSummary(report),
  );
  // Names, diffs, messages and server stderr come from the server under review: never print
  // its invisible or control characters (bidi overrides, ESC sequences) as themselves.
  return escapeInvisible(lines.join("\n")) + "\n";
}

/** `; N hidden-text findings (warnings)` for the last line of a report, or "". */
function hiddenTextSummary(report: VerifyReport): string {
  const n = report.summary.hidden_text ?? 0;
  if (n === 0) return "";
  return `; ${n} hidden-text finding${n === 1 ? "" : "s"}` +
    (report.strict_text ? " (failing: --strict-text)" : " (warnings)");
}

/**
 * Finds the 1-based line of a server (and tool) entry in lock text written by
 * `serializeLock`, for annotations; 1 when it cannot be found (a reformatted lock).
 *
 * @example
 * ```ts
 * import { lockLine } from "./report.ts";
 * lockLine('{\n  "servers": {\n    "s": {\n', "s"); // 3
 * ```
 */
export function lockLine(lockText: string, server: string, tool?: string): number {
  const lines = lockText.split("\n");
  const serverKey = `    ${JSON.stringify(server)}: {`;
  let i = lines.findIndex((l) => l === serverKey);
  if (i < 0) return 1;
  if (tool !== undefined) {
    const toolKey = `        ${JSON.stringify(tool)}: {`;
    for (let j = i + 1; j < lines.length && !/^ {4}\}/.test(lines[j]); j++) {
      if (lines[j] === toolKey) {
        i = j;
        break;
      }
    }
  }
  return i + 1;
}

const RULES: Record<Finding["rule"], string> = {
  "tool-drifted": "A pinned tool's contract (description, schemas or annotations) changed.",
  "tool-added": "A tool that is not in the lock appeared on a pinned server.",
  "tool-removed": "A pinned tool is no longer served.",
  "server-unreachable": "A pinned server could not be reached or answered malformed data.",
  "identity-changed": "The configured server command or URL differs from the pinned one.",
  "lock-inconsistent": "The lock's server digest does not match its tool digests.",
  "server-unpinned": "A configured server has no entry in the lock.",
  "hidden-text": "Text a person cannot see or would not expect in a live tool definition " +
    "(tag characters, zero-width or bidi controls, variation selectors, HTML comments, long " +
    "whitespace runs, base64 blobs); an error with --strict-text.",
  "notice": "Informational: title or _meta changes, long _meta text.",
};

/**
 * A result about a file beside the lock rather than one of its servers: today the lock's
 * signature (`contract verify --require-signature`, issue 17 item 2).
 */
export interface FileFinding {
  /** Stable rule id without the `contractpin/` prefix (`lock-signature`). */
  readonly rule: string;
  /** What the rule checks, one sentence (the SARIF rule's short description). */
  readonly ruleText: string;
  /** `error` fails the run; `note` reports a check that passed. */
  readonly level: "error" | "note";
  /** The file the result is about (e.g. `contractpin.lock.sig`). */
  readonly file: string;
  /** One-line message. */
  readonly message: string;
}

/**
 * SARIF 2.1.0 for code scanning: one result per finding, located at the server's or tool's
 * line in the lock file; `fileFindings` (the lock signature) come first, at line 1 of their
 * file.
 *
 * @example
 * ```ts
 * import { formatSarif, parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
 * const lockText = await Deno.readTextFile("contractpin.lock");
 * const lock = parseLock(new TextEncoder().encode(lockText));
 * const report = await verifyLock({ lock, lockPath: "contractpin.lock" });
 * await Deno.writeTextFile("contractpin.sarif", formatSarif(report, lockText, "0.1.0"));
 * ```
 */
export function formatSarif(
  report: VerifyReport,
  lockText: string,
  version: string,
  fileFindings: readonly FileFinding[] = [],
): string {
  checkArg("formatSarif", "report", report, "object");
  checkArg("formatSarif", "report.servers", report.servers, "array");
  checkArg("formatSarif", "lockText", lockText, "string");
  checkArg("formatSarif", "version", version, "string");
  checkArg("formatSarif", "fileFindings", fileFindings, "array");
  const fileResults = fileFindings.map((f) => ({
    ruleId: `contractpin/${f.rule}`,
    level: f.level,
    message: { text: escapeInvisible(f.message) },
    locations: [{
      physicalLocation: { artifactLocation: { uri: f.file }, region: { startLine: 1 } },
    }],
    partialFingerprints: { contractpinTarget: `${f.rule}/${f.file}` },
  }));
  const fileRules = [...new Map(fileFindings.map((f) => [f.rule, f.ruleText]))].map((
    [id, text],
  ) => ({
    id: `contractpin/${id}`,
    shortDescription: { text },
    defaultConfiguration: { level: "error" },
  }));
  const results = findings(report).map((f) => ({
    ruleId: `contractpin/${f.rule}`,
    level: f.level,
    message: { text: escapeInvisible(f.message) },
    locations: [{
      physicalLocation: {
        artifactLocation: { uri: report.lock },
        region: { startLine: lockLine(lockText, f.server, f.tool) },
      },
    }],
    partialFingerprints: {
      contractpinTarget: `${f.server}/${f.tool ?? ""}/${f.rule}` +
        (f.where !== undefined ? `/${f.where}` : ""),
    },
  }));
  const sarif = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [{
      tool: {
        driver: {
          name: "schemapin-contract",
          version,
          rules: Object.entries(RULES).map(([id, text]) => ({
            id: `contractpin/${id}`,
            shortDescription: { text },
            defaultConfiguration: {
              level: id === "notice" ? "note" : id === "hidden-text" ? "warning" : "error",
            },
          })).concat(fileRules),
        },
      },
      results: [...fileResults, ...results],
    }],
  };
  return JSON.stringify(sarif, null, 2) + "\n";
}

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
 * import { githubCommand } from "./report.ts";
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
 * import { formatGithub, parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
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
      f.tool ? "/" + f.tool : ""
    }`;
    return githubCommand(
      command,
      report.lock,
      lockLine(lockText, f.server, f.tool),
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
