/**
 * What the guard's refusals say: the sentence naming the problems that stopped a session, the
 * remedy after it (built from facts by the core's `remedyText`, see `core_options.ts`), and the
 * JSON-RPC error `data` that lists the verdicts for programs.
 *
 * @module
 */
import type { JsonObject } from "../json/types.ts";
import { DEFAULT_LOCK_FILE } from "../contractpin/lock.ts";
import { describeProblems, type GuardMode, type ToolVerdict } from "./policy.ts";
import type { GuardSession } from "./session.ts";
import { type GuardContext, policyOf } from "./context.ts";
import type { GuardCoreOptions } from "./core_options.ts";

/** One fact a remedy is built from. */
type RemedyFact = Parameters<NonNullable<GuardCoreOptions["remedyText"]>>[0];

/** A refusal: the reason logged, the message and the error `data` sent to the client. */
export interface Refusal {
  /** The reason of the `call_refused` record. */
  readonly reason: string;
  /** The JSON-RPC error message. */
  readonly message: string;
  /** The JSON-RPC error data. */
  readonly data: JsonObject;
}

/**
 * The library's words for a remedy fact: what a person can do, naming no command and no option
 * (an application passes its own `remedyText`).
 *
 * @example
 * ```ts
 * import { neutralRemedyText } from "./refusal_text.ts";
 * neutralRemedyText({ about: "approve", lockFile: "contractpin.lock", server: "fx", changed: ["echo"], skills: [] });
 * // "If these changes are expected, review and approve them in contractpin.lock (server fx: tool echo), then restart the client."
 * ```
 */
export function neutralRemedyText(fact: RemedyFact): string {
  switch (fact.about) {
    case "approve": {
      const items = [
        ...fact.changed.map((c) =>
          typeof c === "string"
            ? `tool ${c}`
            : c.kind === "instructions"
            ? "instructions"
            : `${c.kind.replace("_", " ")} ${c.key}`
        ),
        ...fact.skills.map((uri) => `skill ${uri}`),
      ];
      return `If these changes are expected, review and approve them in ${fact.lockFile} ` +
        `(server ${fact.server}: ${items.join(", ")}), then restart the client.`;
    }
    case "capabilities":
      return `The client announced the capabilities ${fact.capabilities.join(", ")}, and ` +
        "servers may list other tools to such clients: pin a lock entry for exactly these " +
        "capabilities (same command or URL, another name).";
    case "hidden_text":
      return "Their definitions hold text a person cannot see or would not expect (the audit " +
        "log names each place); the guard's policy fails it (strictText).";
    case "unsigned_skills":
      return "Skills must be pinned with their SchemaPin signature verified: a lock made or " +
        "approved with skill signatures required records each check.";
    case "unsigned_tools":
      return "Tools must carry a valid SchemaPin signature over their contract " +
        '(_meta "dev.schemapin/signature") by a key the domain publishes and that is neither ' +
        "revoked nor expired.";
    case "unpinned":
      return `pin ${fact.what === "skills" ? "them" : "it"} in the lock to check ` +
        (fact.what === "skills" ? "them" : "it");
  }
}

/**
 * The facts of a remedy for `verdicts`: changes to approve (and a client whose capabilities
 * have no entry of their own), hidden text, skills without a verified signature, tools without
 * a valid one — in the order the sentences are said.
 */
function remedyFacts(
  context: GuardContext,
  session: GuardSession,
  verdicts: readonly ToolVerdict[],
): RemedyFact[] {
  const isChange = (v: ToolVerdict) =>
    v.problems.some((p) => p === "drifted" || p === "added" || p === "removed");
  const facts: RemedyFact[] = [];
  const changedVerdicts = verdicts.filter(isChange);
  if (changedVerdicts.length > 0) {
    const lock = policyOf(context, session).lock;
    facts.push({
      about: "approve",
      lockFile: lock?.file ?? DEFAULT_LOCK_FILE,
      server: lock?.serverName ?? context.server,
      changed: changedVerdicts.flatMap((v) =>
        v.kind === "skill" ? [] : [v.kind === undefined ? v.name : { kind: v.kind, key: v.name }]
      ),
      // docs/guard.md, "Skills served over MCP": skills are approved one by one.
      skills: [
        ...new Set(changedVerdicts.filter((v) => v.kind === "skill").map((v) => v.name)),
      ],
    });
    const caps = session.clientCapabilities ?? [];
    if (caps.length > 0 && session.policy === undefined) {
      // No entry is pinned for this client's capabilities: its list may legitimately differ.
      facts.push({ about: "capabilities", capabilities: caps });
    }
  }
  if (verdicts.some((v) => v.problems.includes("hidden_text"))) {
    facts.push({ about: "hidden_text" });
  }
  // docs/guard.md, "Skills served over MCP": skills pinned without a verified signature.
  if (verdicts.some((v) => v.kind === "skill" && v.problems.includes("unsigned"))) {
    facts.push({ about: "unsigned_skills" });
  }
  if (
    verdicts.some((v) =>
      v.kind !== "skill" && v.problems.some((p) => p === "unsigned" || p === "signature_invalid")
    )
  ) {
    facts.push({ about: "unsigned_tools" });
  }
  return facts;
}

/**
 * What a person can do about `verdicts` (issue 17 item 1: for changes, how to review and pin
 * only them), in the core's words.
 *
 * @example
 * ```ts ignore
 * import { remedy } from "./refusal_text.ts";
 * remedy(context, session, [{ name: "echo", ok: false, problems: ["drifted"] }]);
 * ```
 */
export function remedy(
  context: GuardContext,
  session: GuardSession,
  verdicts: readonly ToolVerdict[],
): string {
  return remedyFacts(context, session, verdicts).map(context.remedyText).join(" ");
}

/**
 * The sentence of a refusal for problems that stop a session: what differs from what (the
 * lock, the signatures), the problems, and the remedy.
 *
 * @example
 * ```ts ignore
 * import { listProblemSentence } from "./refusal_text.ts";
 * listProblemSentence(context, session, session.blocked!);
 * // "tools of server fx differ from contractpin.lock (drifted: echo). If these changes …"
 * ```
 */
export function listProblemSentence(
  context: GuardContext,
  session: GuardSession,
  verdicts: readonly ToolVerdict[],
): string {
  const server = context.server;
  const policy = policyOf(context, session);
  const lockName = policy.lock?.file ?? DEFAULT_LOCK_FILE;
  const what = policy.lock && policy.signatures
    ? `${lockName} or lack valid SchemaPin signatures`
    : policy.lock
    ? lockName
    : undefined;
  const head = verdicts.every((v) => v.problems.every((p) => p === "hidden_text"))
    ? `tools of server ${server} hold hidden text`
    : verdicts.every((v) => v.kind === "skill" && v.problems.every((p) => p === "unsigned"))
    ? `skills of server ${server} have no verified signature recorded in ${lockName}`
    : what === undefined
    ? `tools of server ${server} lack valid SchemaPin signatures`
    : policy.lock && !policy.signatures
    ? `the ${verdicts.some((v) => v.kind !== undefined) ? "" : "tool "}contracts of server ` +
      `${server} differ from ${what}`
    : `tools of server ${server} differ from ${what}`;
  return `${head} (${describeProblems(verdicts)}). ${remedy(context, session, verdicts)}`;
}

/**
 * The JSON-RPC error `data` of a refusal: the server, the mode and each verdict (snake_case
 * fields; hidden-text findings by place and kind, never their text).
 *
 * @example
 * ```ts
 * import { errorData } from "./refusal_text.ts";
 * errorData("fx", "enforce", [{ name: "echo", ok: false, problems: ["added"] }]);
 * // { schemapin: { server: "fx", mode: "enforce", tools: [{ name: "echo", problems: ["added"] }] } }
 * ```
 */
export function errorData(
  server: string,
  mode: GuardMode,
  verdicts: readonly ToolVerdict[],
): JsonObject {
  return {
    schemapin: {
      server,
      mode,
      tools: verdicts.map((v) => {
        const o: JsonObject = { name: v.name, problems: [...v.problems] };
        if (v.kind !== undefined) o.kind = v.kind;
        if (v.file !== undefined) o.file = v.file;
        if (v.digest !== undefined) o.digest = v.digest;
        if (v.lockDigest !== undefined) o.lock_digest = v.lockDigest;
        if (v.changedFields) o.changed_fields = [...v.changedFields];
        if (v.errorCode !== undefined) o.error_code = v.errorCode;
        if (v.problems.includes("hidden_text") && v.hiddenText) {
          o.hidden_text = v.hiddenText.map((f) => ({
            pointer: f.pointer,
            offset: f.offset,
            kind: f.kind,
          }));
        }
        return o;
      }),
    },
  };
}

/**
 * A refusal with the error data of `verdicts`.
 *
 * @example
 * ```ts ignore
 * import { refusal } from "./refusal_text.ts";
 * refusal(context, "blocked", "schemapin guard: tools/call \"echo\" refused: …", session.blocked!);
 * ```
 */
export function refusal(
  context: GuardContext,
  reason: string,
  message: string,
  verdicts: readonly ToolVerdict[],
): Refusal {
  return { reason, message, data: errorData(context.server, context.mode, verdicts) };
}
