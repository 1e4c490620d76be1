/**
 * The verify report — one versioned JSON shape (`schemapin.contract.verify/1`) — as data: its
 * server and surface parts, and the summary, result and exit code of a run (§6). The human
 * text, SARIF and GitHub renderings are the CLI's (cli/contractpin/report_*.ts).
 *
 * @module
 */
import type { ServerIdentity, TransportKind } from "./lock.ts";
import type { Notice, SurfaceMember, ToolDiff } from "./verify.ts";
import { SURFACE_KINDS, type SurfaceKind } from "./surface.ts";
import type { ToolHiddenTextFinding } from "./hidden_text.ts";
import { checkArg } from "../arguments.ts";
import type { SkillsReport } from "./skills_verify.ts";

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

/**
 * The kind reports of a surface report, with their kind, in §6 order.
 *
 * @example
 * ```ts
 * import { surfaceKinds } from "./report.ts";
 * surfaceKinds({ surface: {} }); // []
 * ```
 */
export function surfaceKinds(
  s: Pick<ServerReport, "surface">,
): [SurfaceKind, SurfaceKindReport][] {
  const out: [SurfaceKind, SurfaceKindReport][] = [];
  for (const kind of SURFACE_KINDS) {
    const k = s.surface?.[kind];
    if (k) out.push([kind, k]);
  }
  return out;
}

/**
 * How many surface items of one server are drifted, added, removed or unchanged; the
 * instructions count as one item.
 *
 * @example
 * ```ts
 * import { surfaceCount } from "./report.ts";
 * surfaceCount({ surface: { instructions: { locked: "a", live: "b", drifted: true } } }, "drifted"); // 1
 * ```
 */
export function surfaceCount(
  s: Pick<ServerReport, "surface">,
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
