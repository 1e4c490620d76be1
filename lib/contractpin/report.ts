/**
 * The verify report — one versioned JSON shape (`schemapin.contract.verify/1`) — and its
 * renderings: human text, SARIF 2.1.0 for code scanning, and GitHub workflow annotations.
 * Pure functions: the CLI prints what they return.
 *
 * @module
 */
import type { ServerIdentity, TransportKind } from "./lock.ts";
import type { Notice, SurfaceMember, ToolDiff } from "./verify.ts";
import {
  type ItemKind,
  itemLabel,
  SURFACE_KINDS,
  SURFACE_SPECS,
  type SurfaceKind,
} from "./surface.ts";
import { redactCommand } from "./secrets.ts";
import { describeHiddenText, type ToolHiddenTextFinding } from "./hidden_text.ts";
import { escapeInvisible } from "./display_text.ts";
import { checkArg } from "../arguments.ts";
import type { SkillsReport } from "./skills_verify.ts";
import { SKILL_RULES, skillFindings, skillHumanLines, skillsSummary } from "./skills_report.ts";
import { usageError } from "../errors.ts";

/**
 * The `format` value of a verify report.
 *
 * @example
 * ```ts
 * import { VERIFY_REPORT_FORMAT } from "./report.ts";
 * console.log(VERIFY_REPORT_FORMAT); // "schemapin.contract.verify/1"
 * ```
 */
export const VERIFY_REPORT_FORMAT = "schemapin.contract.verify/1";

/** The renderings of a verify report: human text, the JSON report, SARIF 2.1.0, GitHub. */
export type ReportFormat = "human" | "json" | "sarif" | "github";

const REPORT_FORMATS: readonly string[] = ["human", "json", "sarif", "github"];

/**
 * The rendering asked for with `--format` and `--json` (`--json` is `--format json`); human
 * text when neither is given.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) for an unknown format,
 *   or `--json` with another format.
 *
 * @example
 * ```ts
 * import { reportFormat } from "./report.ts";
 * reportFormat(undefined, true); // "json"
 * reportFormat("sarif", false); // "sarif"
 * ```
 */
export function reportFormat(format: string | undefined, json: boolean): ReportFormat {
  const chosen = format ?? (json ? "json" : "human");
  if (!REPORT_FORMATS.includes(chosen)) {
    throw usageError(
      `--format must be one of ${REPORT_FORMATS.join(", ")} (got ${chosen})`,
      { option: "format" },
    );
  }
  if (json && chosen !== "json") {
    throw usageError(`--json and --format ${chosen} contradict each other`, { option: "json" });
  }
  return chosen as ReportFormat;
}

/** How one server fared. */
export type ServerStatus = "match" | "drift" | "unreachable" | "unpinned";

/** One pinned surface kind of one server (docs/contractpin-surface.md §6). */
export interface SurfaceKindReport {
  /** Kind digests: pinned and live. */
  digest: { locked: string; live: string };
  /** Item counts: pinned and live. */
  count: { locked: number; live: number };
  /** Items whose digest changed, by key. */
  drifted: { name: string; locked: string; live: string; changed_fields: string[] | null }[];
  /** Served, not pinned. */
  added: string[];
  /** Pinned, not served. */
  removed: string[];
  /** How many are unchanged. */
  unchanged: number;
}

/** The surface part of a server report (docs/contractpin-surface.md §6). */
export interface SurfaceReport {
  /** Pinned and enumerated prompts. */
  prompts?: SurfaceKindReport;
  /** Pinned and enumerated resources. */
  resources?: SurfaceKindReport;
  /** Pinned and enumerated resource templates. */
  resource_templates?: SurfaceKindReport;
  /** Pinned and known instructions: digests, and whether they differ. */
  instructions?: { locked: string; live: string; drifted: boolean };
}

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
  /**
   * The prompts, resources, resource templates and instructions the lock pins, compared
   * (docs/contractpin-surface.md §6). `{}` when it pins none or the server was not enumerated.
   */
  surface?: SurfaceReport;
  /** Kinds the live server served that the lock does not pin (an older lock): not a failure. */
  unpinned_kinds?: SurfaceMember[];
  /** Kinds the lock pins that the listing did not enumerate: a failure (cannot check). */
  unchecked_kinds?: SurfaceMember[];
  /**
   * Skills served over MCP, compared with the lock (docs/contractpin-skills.md); absent when
   * the lock pins none and the server serves none.
   */
  skills?: SkillsReport;
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
    /**
     * Prompts, resources and resource templates over all servers (docs/contractpin-surface.md
     * §6); drifted instructions count as one drifted item.
     */
    surface: { drifted: number; added: number; removed: number; unchanged: number };
  };
}

/** The kind reports of a surface report, with their kind. */
function surfaceKinds(s: ServerReport): [SurfaceKind, SurfaceKindReport][] {
  const out: [SurfaceKind, SurfaceKindReport][] = [];
  for (const kind of SURFACE_KINDS) {
    const k = s.surface?.[kind];
    if (k) out.push([kind, k]);
  }
  return out;
}

function surfaceCount(
  s: ServerReport,
  what: "drifted" | "added" | "removed" | "unchanged",
): number {
  let n = 0;
  for (const [, k] of surfaceKinds(s)) n += what === "unchanged" ? k.unchanged : k[what].length;
  const ins = s.surface?.instructions;
  if (ins && what === "drifted" && ins.drifted) n++;
  if (ins && what === "unchanged" && !ins.drifted) n++;
  return n;
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
      surface: {
        drifted: sum((r) => surfaceCount(r, "drifted")),
        added: sum((r) => surfaceCount(r, "added")),
        removed: sum((r) => surfaceCount(r, "removed")),
        unchanged: sum((r) => surfaceCount(r, "unchanged")),
      },
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

/** `prompts, resource templates and instructions` */
function kindList(kinds: readonly SurfaceMember[]): string {
  const names = kinds.map((k) => k.replace("_", " "));
  return names.length <= 1
    ? names.join("")
    : names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
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
    | "notice"
    | "prompt-drifted"
    | "prompt-added"
    | "prompt-removed"
    | "resource-drifted"
    | "resource-added"
    | "resource-removed"
    | "resource-template-drifted"
    | "resource-template-added"
    | "resource-template-removed"
    | "instructions-drifted"
    | "kind-unchecked"
    | "kind-unpinned"
    | "skill-drifted"
    | "skill-added"
    | "skill-removed"
    | "skill-contradiction"
    | "skill-unsigned";
  /** `error` fails the run; `warning` and `note` do not. */
  readonly level: "error" | "warning" | "note";
  /** Server name. */
  readonly server: string;
  /** Tool name, when the finding is about one tool; the item key for another kind. */
  readonly tool?: string;
  /** What `tool` names (docs/contractpin-surface.md §6); absent for a tool. */
  readonly kind?: ItemKind;
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
    for (const [kind, k] of surfaceKinds(s)) {
      const item = SURFACE_SPECS[kind].item;
      const rule = item.replace("_", "-");
      for (const d of k.drifted) {
        out.push({
          rule: `${rule}-drifted` as Finding["rule"],
          level: "error",
          server,
          tool: d.name,
          kind: item,
          message: `${server}/${itemLabel(item, d.name)} drifted: ${fieldsText(d.changed_fields)}`,
        });
      }
      for (const name of k.added) {
        out.push({
          rule: `${rule}-added` as Finding["rule"],
          level: report.allow_new ? "note" : "error",
          server,
          tool: name,
          kind: item,
          message: `${server}/${itemLabel(item, name)} was added` +
            (report.allow_new ? " (allowed by --allow-new)" : ""),
        });
      }
      for (const name of k.removed) {
        out.push({
          rule: `${rule}-removed` as Finding["rule"],
          level: "error",
          server,
          tool: name,
          kind: item,
          message: `${server}/${itemLabel(item, name)} was removed`,
        });
      }
    }
    if (s.surface?.instructions?.drifted) {
      out.push({
        rule: "instructions-drifted",
        level: "error",
        server,
        kind: "instructions",
        message: `${server}: the server instructions drifted`,
      });
    }
    out.push(...skillFindings(server, s.skills, report.allow_new));
    if (s.unchecked_kinds?.length) {
      out.push({
        rule: "kind-unchecked",
        level: "error",
        server,
        message: `${server}: the lock pins ${
          kindList(s.unchecked_kinds)
        } but the server listing did not enumerate ${
          s.unchecked_kinds.length === 1 ? "it" : "them"
        }, so ${s.unchecked_kinds.length === 1 ? "it was" : "they were"} not checked`,
      });
    }
    if (s.unpinned_kinds?.length) {
      out.push({
        rule: "kind-unpinned",
        level: "note",
        server,
        message: `${server}: ${report.lock} does not pin ${kindList(s.unpinned_kinds)} ` +
          `(served, not checked; pin with \`schemapin contract init --force\`)`,
      });
    }
    for (const h of s.hidden_text ?? []) {
      out.push({
        rule: "hidden-text",
        level: report.strict_text ? "error" : "warning",
        server,
        tool: h.tool,
        ...(h.item_kind ? { kind: h.item_kind } : {}),
        message: `${server}/${itemLabel(h.item_kind, h.tool)}: hidden text at ${h.pointer || "/"}` +
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
 * import { formatHuman } from "./report.ts";
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
      lines.push(`${label.padEnd(11)} ${s.name} (${s.transport}): not in ${report.lock}`);
    } else {
      lines.push(
        `${label.padEnd(11)} ${s.name} (${s.transport}): ${counted}  ${s.digest.live ?? ""}`,
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
    for (const [kind, k] of surfaceKinds(s)) {
      const item = SURFACE_SPECS[kind].item;
      for (const d of k.drifted) {
        lines.push(`  drifted  ${itemLabel(item, d.name)}: ${fieldsText(d.changed_fields)}`);
      }
      for (const name of k.added) {
        lines.push(
          `  added    ${itemLabel(item, name)}` +
            (report.allow_new ? " (allowed by --allow-new)" : ""),
        );
      }
      for (const name of k.removed) lines.push(`  removed  ${itemLabel(item, name)}`);
    }
    if (s.surface?.instructions?.drifted) lines.push("  drifted  instructions");
    lines.push(...skillHumanLines(s.skills, report.allow_new));
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
      ` ${sm.unreachable} unreachable)` + surfaceSummary(report) + hiddenTextSummary(report),
  );
  // Names, diffs, messages and server stderr come from the server under review: never print
  // its invisible or control characters (bidi overrides, ESC sequences) as themselves.
  return escapeInvisible(lines.join("\n")) + "\n";
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
export function lockLine(
  lockText: string,
  server: string,
  tool?: string,
  kind?: ItemKind,
): number {
  const lines = lockText.split("\n");
  const serverKey = `    ${JSON.stringify(server)}: {`;
  let i = lines.findIndex((l) => l === serverKey);
  if (i < 0) return 1;
  if (kind !== undefined && kind !== "tool") {
    // docs/contractpin-surface.md §4: `"prompts": {` … `"items": {` … `"KEY": {`.
    const member = kind === "instructions" ? "instructions" : `${kind}s`;
    const memberKey = `      ${JSON.stringify(member)}: {`;
    for (let j = i + 1; j < lines.length && !/^ {4}\}/.test(lines[j]); j++) {
      if (lines[j] !== memberKey) continue;
      i = j;
      if (tool === undefined || kind === "instructions") break;
      const itemKey = `          ${JSON.stringify(tool)}: {`;
      for (let m = j + 1; m < lines.length && !/^ {6}\}/.test(lines[m]); m++) {
        if (lines[m] === itemKey) {
          i = m;
          break;
        }
      }
      break;
    }
    return i + 1;
  }
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
  "prompt-drifted": "A pinned prompt's contract (name, description, arguments) changed.",
  "prompt-added": "A prompt that is not in the lock appeared on a pinned server.",
  "prompt-removed": "A pinned prompt is no longer served.",
  "resource-drifted": "A pinned resource's contract (uri, name, description, mimeType) changed.",
  "resource-added": "A resource that is not in the lock appeared on a pinned server.",
  "resource-removed": "A pinned resource is no longer served.",
  "resource-template-drifted":
    "A pinned resource template's contract (uriTemplate, name, description, mimeType) changed.",
  "resource-template-added": "A resource template that is not in the lock appeared.",
  "resource-template-removed": "A pinned resource template is no longer served.",
  "instructions-drifted": "The server instructions the model reads changed.",
  "kind-unchecked": "The lock pins prompts, resources, resource templates or instructions " +
    "that the server listing did not enumerate, so they could not be checked.",
  "kind-unpinned": "Informational: the server serves prompts, resources, resource templates " +
    "or instructions that the lock does not pin (a lock made before they were pinned).",
  "skill-drifted": SKILL_RULES["skill-drifted"],
  "skill-added": SKILL_RULES["skill-added"],
  "skill-removed": SKILL_RULES["skill-removed"],
  "skill-contradiction": SKILL_RULES["skill-contradiction"],
  "skill-unsigned": SKILL_RULES["skill-unsigned"],
};

/**
 * A result about a file beside the lock rather than one of its servers: today the lock's
 * signature (`contract verify --require-signed-lock`, issue 17 item 2).
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
 * import { formatSarif } from "./report.ts";
 * import { parseLock, verifyLock } from "jsr:@schemapin/schemapin/contractpin";
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
        region: { startLine: lockLine(lockText, f.server, f.tool, f.kind) },
      },
    }],
    partialFingerprints: {
      contractpinTarget:
        `${f.server}/${f.kind && f.kind !== "tool" ? f.kind + ":" : ""}${f.tool ?? ""}/${f.rule}` +
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
              level: id === "notice" || id === "kind-unpinned"
                ? "note"
                : id === "hidden-text"
                ? "warning"
                : "error",
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
 * import { formatGithub } from "./report.ts";
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
