/**
 * The SARIF 2.1.0 rendering of a verify report for code scanning (`contract verify --format
 * sarif`): the rules, one result per finding at its line in the lock file, and results about
 * files beside the lock (its signature). Pure.
 *
 * @module
 */
import type { VerifyReport } from "../../lib/contractpin/report.ts";
import { escapeInvisible } from "../../lib/contractpin/display_text.ts";
import { checkArg } from "../../lib/arguments.ts";
import { type Finding, findings } from "./report_findings.ts";
import { lockLine } from "./report_lock_line.ts";
import { SKILL_RULES } from "./skills_report.ts";

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
 * import { formatSarif } from "./report_sarif.ts";
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
