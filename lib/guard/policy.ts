/**
 * The guard's judgement of tools, transport-free: each tool of a `tools/list` page is
 * compared with its `contractpin.lock` entry (contractpin spec §6 step 3: drifted, added,
 * removed) and, with signatures on, must carry a valid SchemaPin signature over its contract.
 *
 * @module
 */
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject, projectContract } from "../contractpin/contract.ts";
import { fieldDigests, serverDigest, toolDigest } from "../contractpin/digest.ts";
import type { LockServer } from "../contractpin/lock.ts";
import { SnapshotPinStore, type ToolTrust, verifyToolSignature } from "./signatures.ts";
import { checkArg } from "../arguments.ts";
import { findHiddenText, type HiddenTextFinding } from "../contractpin/hidden_text.ts";
import { SchemaPinError } from "../errors.ts";

/** What the guard does with a list that fails its checks. */
export type GuardMode = "enforce" | "filter" | "audit";

/** Why a tool did not pass. */
export type ToolProblem =
  | "drifted" // in the lock with another digest
  | "added" // not in the lock
  | "removed" // in the lock, not served
  | "unsigned" // --signatures, and no signature in _meta
  | "signature_invalid" // --signatures, and verification failed
  | "hidden_text" // --strict-text, and the definition holds hidden text (issue 17 item 3)
  | "malformed"; // not a tool object, no name, or a name served twice

/** The judgement of one tool. */
export interface ToolVerdict {
  /** The tool name (for a malformed entry: `tools[i]`). */
  readonly name: string;
  /** True when every enabled check passed. */
  readonly ok: boolean;
  /** Every failed check, in a fixed order. */
  readonly problems: readonly ToolProblem[];
  /** The live contract digest (contractpin §4.1). */
  readonly digest?: string;
  /** The digest pinned in the lock. */
  readonly lockDigest?: string;
  /** For `drifted`: the contract fields that changed (when the lock records field digests). */
  readonly changedFields?: readonly string[];
  /** For `signature_invalid`: the SchemaPin error code. */
  readonly errorCode?: string;
  /** A sentence for people (signature failure message, malformed reason). */
  readonly detail?: string;
  /**
   * Hidden text in the tool's definition (`findHiddenText`): logged as warnings, and a
   * `hidden_text` problem with `strictText`.
   */
  readonly hiddenText?: readonly HiddenTextFinding[];
}

/** The lock entry checked against, and its name. */
export interface LockPolicy {
  /** The server's name in the lock (`--server`). */
  readonly serverName: string;
  /** Its entry. */
  readonly entry: LockServer;
  /** The lock file, for messages. */
  readonly file?: string;
}

/** What the guard checks. At least one of the two. */
export interface GuardPolicyOptions {
  /** Compare contract digests with this lock entry. */
  readonly lock?: LockPolicy;
  /** Require a valid SchemaPin signature over each tool's contract. */
  readonly signatures?: ToolTrust;
  /**
   * Hidden text in a tool's definition makes the tool fail (`hidden_text`) instead of being
   * only reported (`--strict-text`, issue 17 item 3). Findings are reported either way.
   */
  readonly strictText?: boolean;
}

/** A list being accumulated over pages: names seen with their digests. */
export type SeenTools = Map<string, string>;

/**
 * Checks tools against a lock entry and/or signature trust. Stateless between calls except
 * for the signature verification caches of `lib/schema`.
 *
 * @example
 * ```ts
 * import { GuardPolicy } from "jsr:@schemapin/schemapin/guard";
 * const policy = new GuardPolicy({
 *   lock: {
 *     serverName: "demo",
 *     entry: { transport: "file", path: "x", tool_count: 0, digest: "", tools: {} },
 *   },
 * });
 * const [v] = await policy.checkTools([{ name: "new_tool" }], new Map());
 * console.log(v.ok, v.problems); // false ["added"]
 * ```
 */
export class GuardPolicy {
  readonly #lock: LockPolicy | undefined;
  readonly #trust: ToolTrust | undefined;
  readonly #strictText: boolean;

  /** A policy checking what `options` enables. */
  constructor(options: GuardPolicyOptions) {
    checkArg("GuardPolicy", "options", options, "object");
    if (!options.lock && !options.signatures) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        "GuardPolicy: options must enable the lock check (options.lock), signatures " +
          "(options.signatures), or both",
        { function: "GuardPolicy", argument: "options" },
      );
    }
    this.#lock = options.lock;
    this.#trust = options.signatures;
    this.#strictText = options.strictText === true;
  }

  /** The lock checked against, if any. */
  get lock(): LockPolicy | undefined {
    return this.#lock;
  }

  /** True when signatures are required. */
  get signatures(): boolean {
    return this.#trust !== undefined;
  }

  /** True when hidden text fails a tool (`--strict-text`). */
  get strictText(): boolean {
    return this.#strictText;
  }

  /**
   * Judges the tools of one page, in order. `seen` collects the names (and digests) of the
   * list so far: a name already in it is malformed (contractpin §4.4), and
   * {@linkcode removed} uses it at the end of the list.
   */
  async checkTools(tools: readonly JsonValue[], seen: SeenTools): Promise<ToolVerdict[]> {
    const trust = this.#trust
      ? { ...this.#trust, pinStore: new SnapshotPinStore(this.#trust.pinStore) }
      : undefined;
    const out: ToolVerdict[] = [];
    for (let i = 0; i < tools.length; i++) {
      out.push(await this.#checkOne(tools[i], i, seen, trust));
    }
    return out;
  }

  async #checkOne(
    tool: JsonValue,
    index: number,
    seen: SeenTools,
    trust: ToolTrust | undefined,
  ): Promise<ToolVerdict> {
    let contract: JsonObject;
    try {
      contract = projectContract(tool, `tools[${index}]`);
    } catch (e) {
      return {
        name: isJsonObject(tool) && typeof tool.name === "string" ? tool.name : `tools[${index}]`,
        ok: false,
        problems: ["malformed"],
        detail: (e as Error).message,
      };
    }
    const name = contract.name as string;
    let digest: string;
    try {
      digest = toolDigest(contract);
    } catch (e) {
      return { name, ok: false, problems: ["malformed"], detail: (e as Error).message };
    }
    if (seen.has(name)) {
      return {
        name,
        ok: false,
        problems: ["malformed"],
        digest,
        detail: `the tool name ${JSON.stringify(name)} is served twice (contractpin §4.4)`,
      };
    }
    seen.set(name, digest);
    const problems: ToolProblem[] = [];
    const verdict: {
      name: string;
      ok: boolean;
      problems: ToolProblem[];
      digest: string;
      lockDigest?: string;
      changedFields?: string[];
      errorCode?: string;
      detail?: string;
      hiddenText?: HiddenTextFinding[];
    } = { name, ok: true, problems, digest };
    if (this.#lock) {
      const pinned = Object.hasOwn(this.#lock.entry.tools, name)
        ? this.#lock.entry.tools[name]
        : undefined;
      if (pinned === undefined) {
        problems.push("added");
      } else {
        verdict.lockDigest = pinned.digest;
        if (pinned.digest !== digest) {
          problems.push("drifted");
          if (pinned.fields) {
            const live = fieldDigests(contract);
            const names = new Set([...Object.keys(live), ...Object.keys(pinned.fields)]);
            verdict.changedFields = [...names].filter((f) => live[f] !== pinned.fields![f])
              .sort();
          }
        }
      }
    }
    if (trust) {
      const check = await verifyToolSignature(tool as JsonObject, trust);
      if (check.status === "unsigned") {
        problems.push("unsigned");
        verdict.detail = check.errorMessage;
      } else if (check.status === "invalid") {
        problems.push("signature_invalid");
        if (check.errorCode !== undefined) verdict.errorCode = check.errorCode;
        verdict.detail = check.errorMessage;
      }
    }
    const hidden = findHiddenText(tool);
    if (hidden.length > 0) {
      verdict.hiddenText = hidden;
      if (this.#strictText) problems.push("hidden_text");
    }
    verdict.ok = problems.length === 0;
    return verdict;
  }

  /** The lock's tools that a complete list (`seen`) does not serve: `removed` verdicts. */
  removed(seen: SeenTools): ToolVerdict[] {
    if (!this.#lock) return [];
    return Object.entries(this.#lock.entry.tools)
      .filter(([name]) => !seen.has(name))
      .map(([name, t]) => ({ name, ok: false, problems: ["removed"], lockDigest: t.digest }));
  }

  /** The server digest (contractpin §4.3) of a complete list. */
  serverDigest(seen: SeenTools): string {
    return serverDigest(seen);
  }
}

/**
 * One line per problem tool, for error messages: `drifted: echo (description), added: x`.
 *
 * @example
 * ```ts
 * import { describeProblems } from "./policy.ts";
 * describeProblems([{ name: "x", ok: false, problems: ["added"] }]); // "added: x"
 * ```
 */
export function describeProblems(verdicts: readonly ToolVerdict[]): string {
  checkArg("describeProblems", "verdicts", verdicts, "array");
  const groups = new Map<ToolProblem, string[]>();
  for (const v of verdicts) {
    for (const p of v.problems) {
      let text = v.name;
      if (p === "drifted" && v.changedFields?.length) text += ` (${v.changedFields.join(", ")})`;
      if (p === "signature_invalid" && v.errorCode) text += ` (${v.errorCode})`;
      const list = groups.get(p) ?? [];
      list.push(text);
      groups.set(p, list);
    }
  }
  const order: ToolProblem[] = [
    "drifted",
    "added",
    "removed",
    "unsigned",
    "signature_invalid",
    "hidden_text",
    "malformed",
  ];
  const label: Record<ToolProblem, string> = {
    drifted: "drifted",
    added: "added",
    removed: "removed",
    unsigned: "unsigned",
    signature_invalid: "invalid signature",
    hidden_text: "hidden text",
    malformed: "malformed",
  };
  return order.filter((p) => groups.has(p))
    .map((p) => `${label[p]}: ${groups.get(p)!.join(", ")}`)
    .join("; ");
}
