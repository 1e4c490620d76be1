/**
 * The problems of a verify report as findings, one line each: what the SARIF results and the
 * GitHub annotations are made of (cli/contractpin/report_sarif.ts, report_github.ts). Pure.
 *
 * @module
 */
import type { ServerReport, VerifyReport } from "../../lib/contractpin/report.ts";
import { surfaceKinds } from "../../lib/contractpin/report.ts";
import { type ItemKind, itemLabel, SURFACE_SPECS } from "../../lib/contractpin/surface.ts";
import { checkArg } from "../../lib/arguments.ts";
import { skillFindings } from "./skills_report.ts";
import { allowedNew, describeIdentity, fieldsText, kindList } from "./report_text.ts";

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
 * import { findings } from "./report_findings.ts";
 * import { finishReport } from "../../lib/contractpin/report.ts";
 * findings(finishReport("contractpin.lock", false, null, [])); // []
 * ```
 */
export function findings(report: VerifyReport): Finding[] {
  checkArg("findings", "report", report, "object");
  checkArg("findings", "report.servers", report.servers, "array");
  const out: Finding[] = [];
  for (const s of report.servers) {
    out.push(
      ...serverFindings(s, report.lock),
      ...toolFindings(s, report.allow_new),
      ...surfaceFindings(s, report.allow_new),
      ...skillFindings(s.name, s.skills, report.allow_new),
      ...kindFindings(s, report.lock),
      ...textFindings(s, report.strict_text),
    );
  }
  return out;
}

/** The server as a whole: unreachable, unpinned, its identity changed, its lock entry edited. */
function serverFindings(s: ServerReport, lock: string): Finding[] {
  const out: Finding[] = [];
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
      message: `server ${server} is configured but not pinned in ${lock}`,
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
  return out;
}

/** The §6 classification of the tools. */
function toolFindings(s: ServerReport, allowNew: boolean): Finding[] {
  const out: Finding[] = [];
  const server = s.name;
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
      level: allowNew ? "note" : "error",
      server,
      tool: name,
      message: `${server}/${name} was added` + allowedNew(allowNew),
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
  return out;
}

/** Prompts, resources, resource templates and instructions (docs/contractpin-surface.md §6). */
function surfaceFindings(s: ServerReport, allowNew: boolean): Finding[] {
  const out: Finding[] = [];
  const server = s.name;
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
        level: allowNew ? "note" : "error",
        server,
        tool: name,
        kind: item,
        message: `${server}/${itemLabel(item, name)} was added` + allowedNew(allowNew),
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
  return out;
}

/** Kinds the lock pins that were not enumerated, and kinds served that it does not pin. */
function kindFindings(s: ServerReport, lock: string): Finding[] {
  const out: Finding[] = [];
  const server = s.name;
  if (s.unchecked_kinds?.length) {
    out.push({
      rule: "kind-unchecked",
      level: "error",
      server,
      message: `${server}: the lock pins ${kindList(s.unchecked_kinds)} but the server listing ` +
        `did not enumerate ${s.unchecked_kinds.length === 1 ? "it" : "them"}, so ${
          s.unchecked_kinds.length === 1 ? "it was" : "they were"
        } not checked`,
    });
  }
  if (s.unpinned_kinds?.length) {
    out.push({
      rule: "kind-unpinned",
      level: "note",
      server,
      message: `${server}: ${lock} does not pin ${kindList(s.unpinned_kinds)} ` +
        `(served, not checked; pin with \`schemapin contract init --force\`)`,
    });
  }
  return out;
}

/** Hidden text in the live definitions (errors with `strictText`), then the notices. */
function textFindings(s: ServerReport, strictText: boolean): Finding[] {
  const out: Finding[] = [];
  const server = s.name;
  for (const h of s.hidden_text ?? []) {
    out.push({
      rule: "hidden-text",
      level: strictText ? "error" : "warning",
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
  return out;
}
