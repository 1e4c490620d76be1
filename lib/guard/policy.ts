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
import { type LineageToolTrust, type ToolTrust, verifyToolSignature } from "./signatures.ts";
import { BatchPinStore } from "../pins/batch.ts";
import { LineageBatch, LineageStore } from "../pins/lineage.ts";
import { settleBatchPins } from "../schema/flow.ts";
import { commitLineage, type LineageResultFields } from "../schema/lineage_verify.ts";
import { checkArg } from "../arguments.ts";
import { findHiddenText, type HiddenTextFinding } from "../contractpin/hidden_text.ts";
import {
  digestSurfaceList,
  instructionsDigest,
  type ItemKind,
  itemLabel,
  SURFACE_SPECS,
  type SurfaceKind,
} from "../contractpin/surface.ts";
import { SchemaPinError } from "../errors.ts";

/** What the guard does with a list that fails its checks. */
export type GuardMode = "enforce" | "filter" | "audit";

/** Why a tool did not pass. */
export type ToolProblem =
  | "drifted" // in the lock with another digest
  | "added" // not in the lock
  | "removed" // in the lock, not served
  | "unsigned" // signatures required, and no signature in _meta
  | "signature_invalid" // signatures required, and verification failed
  | "hidden_text" // strictText, and the definition holds hidden text (issue 17 item 3)
  | "malformed"; // not a tool object, no name, or a name served twice

/** The judgement of one tool (or prompt, resource, resource template, the instructions). */
export interface ToolVerdict {
  /**
   * The tool name (for a malformed entry: `tools[i]`); for another kind its key: a prompt's
   * name, a resource's URI, a template's URI template, `instructions`.
   */
  readonly name: string;
  /**
   * What the verdict is about, when not a tool (docs/contractpin-surface.md); `skill`: a skill
   * served over MCP, `name` the URI of its `SKILL.md` (docs/guard.md, "Skills served over
   * MCP").
   */
  readonly kind?: Exclude<ItemKind, "tool"> | "skill";
  /** For a skill: the file concerned (a read, a directory child), when there is one. */
  readonly file?: string;
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
  /** The server's name in the lock. */
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
   * only reported (issue 17 item 3). Findings are reported either way.
   */
  readonly strictText?: boolean;
  /**
   * Refuse every skill served over MCP whose lock item records no verified SchemaPin signature
   * (docs/guard.md, "Skills served over MCP"; ./skills_signature.ts). Needs `lock`.
   */
  readonly requireSkillSignature?: boolean;
}

/** A list being accumulated over pages: names seen with their digests. */
export type SeenTools = Map<string, string>;

/** A verdict while it is being made. */
type MutableVerdict = {
  name: string;
  ok: boolean;
  problems: ToolProblem[];
  digest: string;
  lockDigest?: string;
  changedFields?: string[];
  errorCode?: string;
  detail?: string;
  hiddenText?: HiddenTextFinding[];
};

/** A tool that verified, whose first-use pin and lineage advance wait for its page's end. */
type Staged = { verdict: MutableVerdict; result: LineageResultFields };

/**
 * Checks tools against a lock entry and/or signature trust. Stateless between calls except
 * for the signature verification caches of `lib/schema`.
 *
 * @example
 * ```ts
 * import { GuardPolicy } from "jsr:@schemapin/schemapin/guard";
 * import { parseLock } from "jsr:@schemapin/schemapin/contractpin";
 * import { FilePinStore } from "jsr:@schemapin/schemapin/pins";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 * const lock = parseLock(await Deno.readFile("contractpin.lock"));
 * const policy = new GuardPolicy({
 *   // each tool's contract digest must match the lock entry …
 *   lock: { serverName: "files", entry: lock.servers["files"], file: "contractpin.lock" },
 *   // … and each tool must carry a valid SchemaPin signature from example.com
 *   signatures: {
 *     domain: "example.com",
 *     discovery: parseJson(await Deno.readFile("schemapin.json"), "schemapin.json"),
 *     pinStore: new FilePinStore(),
 *   },
 * });
 * console.log(policy.lock?.serverName, policy.signatures); // files true
 * ```
 */
export class GuardPolicy {
  readonly #lock: LockPolicy | undefined;
  readonly #trust: ToolTrust | undefined;
  readonly #strictText: boolean;
  readonly #requireSkillSignature: boolean;

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
    if (options.requireSkillSignature === true && !options.lock) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        "GuardPolicy: options.requireSkillSignature needs the lock (options.lock): the " +
          "signature records are the lock's",
        { function: "GuardPolicy", argument: "options" },
      );
    }
    this.#requireSkillSignature = options.requireSkillSignature === true;
  }

  /** The lock checked against, if any. */
  get lock(): LockPolicy | undefined {
    return this.#lock;
  }

  /** True when signatures are required. */
  get signatures(): boolean {
    return this.#trust !== undefined;
  }

  /** True when hidden text fails a tool (`strictText`). */
  get strictText(): boolean {
    return this.#strictText;
  }

  /** True when a skill without a recorded verified signature is refused. */
  get requireSkillSignature(): boolean {
    return this.#requireSkillSignature;
  }

  /**
   * Judges the tools of one page, in order. `seen` collects the names (and digests) of the
   * list so far: a name already in it is malformed (contractpin §4.4), and
   * {@linkcode removed} uses it at the end of the list.
   *
   * @ignore Internal: the guard's core calls it; not public API.
   */
  async checkTools(tools: readonly JsonValue[], seen: SeenTools): Promise<ToolVerdict[]> {
    // A page is checked against one read of the pin store and of the lineage store (§18.4);
    // the first-use pins and lineage advances of the tools that verified are written at the
    // page's end, one transaction each, and a tool whose write failed or was overtaken by
    // another process fails then (lib/pins/batch.ts, LineageBatch in lib/pins/lineage.ts).
    const store = (this.#trust as LineageToolTrust | undefined)?.lineage;
    const lineage = store instanceof LineageStore ? new LineageBatch(store) : undefined;
    const pins = this.#trust ? new BatchPinStore(this.#trust.pinStore) : undefined;
    const trust: LineageToolTrust | undefined = this.#trust
      ? { ...this.#trust, pinStore: pins!, ...(lineage ? { lineage } : {}) }
      : undefined;
    const out: ToolVerdict[] = [];
    const staged: Staged[] = [];
    for (let i = 0; i < tools.length; i++) {
      out.push(await this.#checkOne(tools[i], i, seen, trust, staged));
    }
    if (staged.length === 0) return out;
    const results = staged.map((s) => s.result);
    if (pins!.pendingCount > 0) await settleBatchPins(pins!, results);
    if (lineage) await commitLineage(lineage, results);
    for (const { verdict, result } of staged) {
      if (result.valid) continue;
      // Its pin or lineage could not be written, or another verifier got there first.
      verdict.problems.push("signature_invalid");
      if (result.errorCode !== undefined) verdict.errorCode = result.errorCode;
      verdict.detail = result.errorMessage;
      verdict.ok = false;
    }
    return out;
  }

  async #checkOne(
    tool: JsonValue,
    index: number,
    seen: SeenTools,
    trust: LineageToolTrust | undefined,
    staged: Staged[],
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
    const verdict: MutableVerdict = { name, ok: true, problems, digest };
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
      } else if (check.result !== undefined) {
        staged.push({ verdict, result: check.result as LineageResultFields });
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

  /**
   * True when the lock pins this kind of list (docs/contractpin-surface.md §4): a lock made
   * before issue 24 does not, and its lists of that kind pass unchecked, as before.
   *
   * @ignore Internal: the guard's core calls it; not public API.
   */
  pinsSurface(kind: SurfaceKind): boolean {
    return this.#lock?.entry[kind] !== undefined;
  }

  /**
   * True when the lock pins the server instructions.
   *
   * @ignore Internal: the guard's core calls it; not public API.
   */
  get pinsInstructions(): boolean {
    return this.#lock?.entry.instructions !== undefined;
  }

  /**
   * Judges the items of one page of a `prompts/list`, `resources/list` or
   * `resources/templates/list` answer against the lock's entry for that kind (same problems as
   * tools: drifted, added, malformed — a repeated key across pages included —, hidden text).
   * `seen` collects keys and digests for {@linkcode removedSurface}. Call it only for a kind
   * the lock pins.
   *
   * @ignore Internal: the guard's core calls it; not public API.
   */
  checkSurface(kind: SurfaceKind, items: readonly JsonValue[], seen: SeenTools): ToolVerdict[] {
    const spec = SURFACE_SPECS[kind];
    const pinned = this.#lock?.entry[kind]?.items ?? {};
    return items.map((item, index): ToolVerdict => {
      const where = `${kind}[${seen.size + index}]`;
      const rawKey = isJsonObject(item) ? item[spec.key] : undefined;
      const fallback = typeof rawKey === "string" && rawKey !== "" ? rawKey : where;
      let digested;
      try {
        digested = digestSurfaceList(kind, [item], where).items.values().next().value!;
      } catch (e) {
        return {
          name: fallback,
          kind: spec.item as Exclude<ItemKind, "tool">,
          ok: false,
          problems: ["malformed"],
          detail: (e as Error).message,
        };
      }
      const base = { name: digested.key, kind: spec.item as Exclude<ItemKind, "tool"> };
      if (seen.has(digested.key)) {
        return {
          ...base,
          ok: false,
          problems: ["malformed"],
          digest: digested.digest,
          detail: `${spec.key} ${JSON.stringify(digested.key)} is served twice in ${spec.method}`,
        };
      }
      seen.set(digested.key, digested.digest);
      const problems: ToolProblem[] = [];
      const verdict: { -readonly [K in keyof ToolVerdict]: ToolVerdict[K] } = {
        ...base,
        ok: true,
        problems,
        digest: digested.digest,
      };
      const lock = Object.hasOwn(pinned, digested.key) ? pinned[digested.key] : undefined;
      if (lock === undefined) {
        problems.push("added");
      } else {
        verdict.lockDigest = lock.digest;
        if (lock.digest !== digested.digest) {
          problems.push("drifted");
          if (lock.fields) {
            const live = digested.fields;
            const names = new Set([...Object.keys(live), ...Object.keys(lock.fields)]);
            verdict.changedFields = [...names].filter((f) => live[f] !== lock.fields![f]).sort();
          }
        }
      }
      this.#hiddenText(verdict, problems, digested.raw);
      verdict.ok = problems.length === 0;
      return verdict;
    });
  }

  /**
   * The lock's items of one kind that a complete list (`seen`) does not serve.
   *
   * @ignore Internal: the guard's core calls it; not public API.
   */
  removedSurface(kind: SurfaceKind, seen: SeenTools): ToolVerdict[] {
    const pinned = this.#lock?.entry[kind]?.items ?? {};
    const item = SURFACE_SPECS[kind].item as Exclude<ItemKind, "tool">;
    return Object.entries(pinned)
      .filter(([key]) => !seen.has(key))
      .map(([key, t]) => ({
        name: key,
        kind: item,
        ok: false,
        problems: ["removed"],
        lockDigest: t.digest,
      }));
  }

  /**
   * Judges the `instructions` member of an `initialize` or `server/discover` result against
   * the lock (docs/contractpin-surface.md §3: absent is JSON null, not ""), or undefined when
   * the lock does not pin them.
   *
   * @ignore Internal: the guard's core calls it; not public API.
   */
  checkInstructions(value: JsonValue | undefined): ToolVerdict | undefined {
    const pinned = this.#lock?.entry.instructions;
    if (pinned === undefined) return undefined;
    const base = { name: "instructions", kind: "instructions" as const };
    if (value !== undefined && typeof value !== "string") {
      return {
        ...base,
        ok: false,
        problems: ["malformed"],
        lockDigest: pinned.digest,
        detail: "the server's instructions are not a string",
      };
    }
    const digest = instructionsDigest(value ?? null);
    const problems: ToolProblem[] = digest === pinned.digest ? [] : ["drifted"];
    const verdict: { -readonly [K in keyof ToolVerdict]: ToolVerdict[K] } = {
      ...base,
      ok: true,
      problems,
      digest,
      lockDigest: pinned.digest,
    };
    if (value !== undefined) this.#hiddenText(verdict, problems, { instructions: value });
    verdict.ok = problems.length === 0;
    return verdict;
  }

  /** Hidden text in a definition: reported; with `strictText` a problem. */
  #hiddenText(
    verdict: { hiddenText?: readonly HiddenTextFinding[] },
    problems: ToolProblem[],
    definition: JsonObject,
  ): void {
    const hidden = findHiddenText(definition);
    if (hidden.length > 0) {
      verdict.hiddenText = hidden;
      if (this.#strictText) problems.push("hidden_text");
    }
  }

  /**
   * The lock's tools that a complete list (`seen`) does not serve: `removed` verdicts.
   *
   * @ignore Internal: the guard's core calls it; not public API.
   */
  removed(seen: SeenTools): ToolVerdict[] {
    if (!this.#lock) return [];
    return Object.entries(this.#lock.entry.tools)
      .filter(([name]) => !seen.has(name))
      .map(([name, t]) => ({ name, ok: false, problems: ["removed"], lockDigest: t.digest }));
  }

  /**
   * The server digest (contractpin §4.3) of a complete list.
   *
   * @ignore Internal: the guard's core calls it; not public API.
   */
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
      let text = v.kind === "skill"
        ? `skill ${v.name}${v.detail !== undefined ? ` (${v.detail})` : ""}`
        : itemLabel(v.kind, v.name);
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
