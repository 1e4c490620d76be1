/**
 * The guard's decisions on server → client messages: the answer to a remembered `tools/list`
 * is checked page by page (all pages: removed tools are known at the last one); the answers to
 * `prompts/list`, `resources/list` and `resources/templates/list`, to the requests about skills
 * and the `instructions` of `initialize` or `server/discover` are checked against the lock;
 * `notifications/tools/list_changed` marks the list stale; an answer to no request that carries
 * definitions is refused. Enforce replaces a failing answer with a JSON-RPC error and stops the
 * session, filter withholds what failed, audit passes and logs. `core.ts` calls these for
 * `GuardCore.fromServer`.
 *
 * @module
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../json/types.ts";
import { SURFACE_SPECS } from "../contractpin/surface.ts";
import type { ToolVerdict } from "./policy.ts";
import { checkSurfacePage, type PendingSurfaceList, SURFACE_LIST_METHODS } from "./surface.ts";
import { judgeSkillAnswer, SKILL_METHODS, type SkillRequest } from "./skills.ts";
import { errorResponse, GUARD_REFUSED, idKey, PASS, type ServerDecision } from "./jsonrpc.ts";
import {
  applyVerdicts,
  blockSession,
  endToolListing,
  type GuardSession,
  noteWithheldItems,
  type PendingRequest,
  type PendingRequests,
  toolListingOf,
} from "./session.ts";
import { type GuardContext, policyOf } from "./context.ts";
import { errorData, listProblemSentence } from "./refusal_text.ts";

/**
 * The decision on a server message without waiting, or `undefined` (and nothing changed) for a
 * page of a client's `tools/list`, which only {@linkcode decideToolListPage} checks.
 *
 * @example
 * ```ts ignore
 * import { decideServerNow } from "./server_decisions.ts";
 * decideServerNow(context, session, { jsonrpc: "2.0", method: "notifications/tools/list_changed" }, session.pending);
 * // { kind: "pass" }, and the session's list is stale
 * ```
 */
export function decideServerNow(
  context: GuardContext,
  session: GuardSession,
  message: JsonValue,
  pending: PendingRequests,
): ServerDecision | undefined {
  if (!isJsonObject(message)) return PASS;
  if (typeof message.method === "string") {
    if (message.method === "notifications/tools/list_changed" && !Object.hasOwn(message, "id")) {
      session.generation++;
      context.records.listChanged();
    }
    return PASS;
  }
  if (!Object.hasOwn(message, "id")) return PASS;
  const key = idKey(message.id);
  const request = pending.get(key);
  if (request === undefined) return unmatched(context, message);
  if (request.method === "tools/list" && Object.hasOwn(message, "result")) {
    return undefined; // a page to check: decideToolListPage
  }
  pending.delete(key);
  const surface = SURFACE_LIST_METHODS[request.method];
  if (surface !== undefined) {
    return surfaceResult(context, session, message, {
      kind: surface,
      ...(request.cursor !== undefined ? { cursor: request.cursor } : {}),
    });
  }
  if (request.method === "initialize" || request.method === "server/discover") {
    return instructionsResult(context, session, message);
  }
  if (SKILL_METHODS.has(request.method)) return skillResult(context, session, message, request);
  return PASS; // an error answer stays an error; other answers carry no definitions
}

/**
 * A page of a client's `tools/list` (the `result` of the answer to `pending`): checked, recorded
 * in the session and passed, filtered or replaced by an error according to the mode.
 *
 * @example
 * ```ts ignore
 * import { decideToolListPage } from "./server_decisions.ts";
 * await decideToolListPage(context, session, 1, { tools: [] }, { method: "tools/list", generation: 0 });
 * ```
 */
export async function decideToolListPage(
  context: GuardContext,
  session: GuardSession,
  id: JsonValue,
  result: JsonValue,
  pending: PendingRequest,
): Promise<ServerDecision> {
  const bad = !isJsonObject(result)
    ? "the result is not an object"
    : Object.hasOwn(result, "resultType") && result.resultType !== "complete"
    ? `resultType is ${JSON.stringify(result.resultType)}, not "complete"`
    : !Array.isArray(result.tools)
    ? 'the result has no "tools" array'
    : Object.hasOwn(result, "nextCursor") &&
        (typeof result.nextCursor !== "string" || result.nextCursor === "")
    ? "nextCursor is not a non-empty string"
    : undefined;
  if (bad !== undefined) {
    session.listing = undefined;
    return refuseInvalid(
      context,
      id,
      bad,
      `tools/list refused: the server's answer is not a tool list (${bad})`,
    );
  }
  const page = result as JsonObject;
  const tools = page.tools as JsonValue[];
  const listing = toolListingOf(session, pending, page);
  const policy = policyOf(context, session);
  const verdicts = await policy.checkTools(tools, listing.seen);
  const last = page.nextCursor === undefined;
  const removed = last && listing.complete ? policy.removed(listing.seen) : [];
  const problems = [...verdicts.filter((v) => !v.ok), ...removed];
  for (const v of verdicts) if (v.ok) listing.approved.add(v.name);
  const wasBlocked = session.blocked !== undefined;
  context.records.verdicts(problems, verdicts);
  applyVerdicts(session, context.mode, listing.generation, verdicts, problems, false);
  if (last) endToolListing(session, listing, context.mode);
  if (problems.length > 0 || last || wasBlocked) {
    context.records.toolListSummary(
      session.blocked !== undefined,
      problems,
      last && listing.complete ? policyOf(context, session).serverDigest(listing.seen) : undefined,
      tools.length,
      false,
    );
  }
  if (context.mode === "enforce" && session.blocked) {
    return {
      kind: "replace",
      message: errorResponse(
        id,
        GUARD_REFUSED,
        `schemapin guard: tools/list refused: ${
          listProblemSentence(context, session, session.blocked)
        }`,
        errorData(context.server, context.mode, session.blocked),
      ),
    };
  }
  if (context.mode === "filter" && verdicts.some((v) => !v.ok)) {
    const filtered: JsonObject = {};
    for (const [k, v] of Object.entries(page)) {
      filtered[k] = k === "tools" ? tools.filter((_, i) => verdicts[i].ok) : v;
    }
    return { kind: "replace", message: { jsonrpc: "2.0", id, result: filtered } };
  }
  return PASS;
}

/**
 * A page of a client's `prompts/list`, `resources/list` or `resources/templates/list`,
 * checked against the lock entry of that kind like a tools/list page: enforce answers a list
 * with a problem with an error (and stops the session), filter withholds the items that fail,
 * audit passes and logs. A kind the lock does not pin (a lock made before issue 24) passes
 * unchecked, as before, with one log line saying so.
 */
function surfaceResult(
  context: GuardContext,
  session: GuardSession,
  message: JsonObject,
  pending: PendingSurfaceList,
): ServerDecision {
  if (!Object.hasOwn(message, "result")) return PASS; // an error answer stays an error
  const result = message.result;
  const policy = policyOf(context, session);
  const method = SURFACE_SPECS[pending.kind].method;
  if (!policy.pinsSurface(pending.kind)) {
    if (policy.lock) {
      const what = pending.kind.replace("_", " ");
      context.records.unpinnedOnce(
        pending.kind,
        method,
        `the lock does not pin ${what}: ${method} passes unchecked ` +
          `(${context.remedyText({ about: "unpinned", what })})`,
      );
    }
    return PASS;
  }
  const page = checkSurfacePage(policy, session.surfaceListings, pending, result);
  if (page.bad !== undefined) {
    return refuseInvalid(
      context,
      message.id,
      page.bad,
      `${method} refused: the server's answer is not a list (${page.bad})`,
      method,
    );
  }
  context.records.verdicts(page.problems, page.verdicts);
  noteWithheldItems(session, context.mode, page.verdicts);
  if (page.problems.length === 0 && !session.blocked) return PASS;
  context.records.listOutcome(method, page.problems);
  if (context.mode === "audit") return PASS;
  if (context.mode === "enforce") {
    return blockAnswer(context, session, message.id, `${method} refused`, page.problems);
  }
  const filtered: JsonObject = {};
  for (const [k, v] of Object.entries(result as JsonObject)) {
    filtered[k] = k === page.member ? page.items.filter((_, i) => page.verdicts[i].ok) : v;
  }
  return { kind: "replace", message: { jsonrpc: "2.0", id: message.id, result: filtered } };
}

/**
 * The answer to a client's request about skills (`skills/list`, `skills/get`,
 * `resources/read`, `resources/directory/read`), judged by `lib/guard/skills.ts` against the
 * lock's pinned skills, then decided like a surface list: enforce replaces the answer with an
 * error and stops the session; filter removes the failing skills or directory children (a
 * read or a `skills/get` cannot be partial: refused); audit passes and logs.
 */
function skillResult(
  context: GuardContext,
  session: GuardSession,
  message: JsonObject,
  request: SkillRequest,
): ServerDecision {
  if (!Object.hasOwn(message, "result")) return PASS; // an error answer stays an error
  const policy = policyOf(context, session);
  const j = judgeSkillAnswer(
    policy.lock?.entry.skills,
    request,
    message.result,
    session,
    policy.strictText,
    policy.requireSkillSignature,
  );
  if (j === undefined) return PASS;
  for (const note of j.notes) context.records.record(note);
  if (j.unpinned) {
    if (policy.lock) {
      context.records.unpinnedOnce(
        "skills",
        j.method,
        `the lock does not pin skills: ${j.method} passes unchecked ` +
          `(${context.remedyText({ about: "unpinned", what: "skills" })})`,
      );
    }
    return PASS;
  }
  if (j.bad !== undefined) {
    return refuseInvalid(
      context,
      message.id,
      j.bad,
      `${j.what} refused: the server's answer is not what was asked (${j.bad})`,
      j.method,
    );
  }
  context.records.verdicts(j.problems, j.verdicts);
  if (j.problems.length === 0 && !(session.blocked && context.mode === "enforce")) return PASS;
  context.records.listOutcome(j.method, j.problems);
  if (context.mode === "audit") return PASS;
  if (context.mode === "enforce") {
    return blockAnswer(context, session, message.id, `${j.what} refused`, j.problems);
  }
  if (j.filtered) {
    return { kind: "replace", message: { jsonrpc: "2.0", id: message.id, result: j.filtered } };
  }
  return {
    kind: "replace",
    message: errorResponse(
      message.id,
      GUARD_REFUSED,
      `schemapin guard: ${j.what} refused: ${listProblemSentence(context, session, j.problems)}`,
      errorData(context.server, context.mode, j.problems),
    ),
  };
}

/**
 * The answer to an `initialize` (legacy) or `server/discover` (MCP 2026-07-28): its
 * `instructions` are text the model reads, checked against the lock's instructions digest
 * when the lock pins them. Enforce replaces the answer with an error (the client cannot
 * start with instructions nobody approved) and stops the session; filter removes the
 * instructions from the answer; audit passes and logs.
 */
function instructionsResult(
  context: GuardContext,
  session: GuardSession,
  message: JsonObject,
): ServerDecision {
  const result = message.result;
  if (!isJsonObject(result)) return PASS;
  const policy = policyOf(context, session);
  // An interim (input_required) answer is not allowed here (basic/patterns/mrtr.md): it is
  // judged as instructions that are not a string, so a lock that pins them refuses it.
  const notComplete = Object.hasOwn(result, "resultType") && result.resultType !== "complete";
  const verdict = policy.checkInstructions(
    notComplete
      ? { resultType: result.resultType }
      : Object.hasOwn(result, "instructions")
      ? result.instructions
      : undefined,
  );
  if (verdict === undefined) return PASS;
  context.records.hiddenText(verdict);
  if (verdict.ok) return PASS;
  context.records.problem(verdict);
  if (context.mode === "audit") return PASS;
  if (context.mode === "enforce") {
    return blockAnswer(context, session, message.id, "the server's answer was refused", [
      verdict,
    ]);
  }
  const filtered: JsonObject = {};
  for (const [k, v] of Object.entries(result)) if (k !== "instructions") filtered[k] = v;
  return { kind: "replace", message: { jsonrpc: "2.0", id: message.id, result: filtered } };
}

/**
 * Enforce: `problems` stop the session (every later call, prompt or read is refused) and the
 * server's answer `id` is replaced by an error that names them.
 */
function blockAnswer(
  context: GuardContext,
  session: GuardSession,
  id: JsonValue,
  what: string,
  problems: readonly ToolVerdict[],
): ServerDecision {
  const blocked = blockSession(session, problems);
  return {
    kind: "replace",
    message: errorResponse(
      id,
      GUARD_REFUSED,
      `schemapin guard: ${what}: ${listProblemSentence(context, session, blocked)}`,
      errorData(context.server, context.mode, blocked),
    ),
  };
}

/**
 * An answer that is not what was asked (`why`, logged as `list_invalid`): passed in audit,
 * otherwise replaced by an error saying `what`.
 */
function refuseInvalid(
  context: GuardContext,
  id: JsonValue,
  why: string,
  what: string,
  list?: string,
): ServerDecision {
  context.records.listInvalid(why, list);
  if (context.mode === "audit") return PASS;
  return {
    kind: "replace",
    message: errorResponse(
      id,
      GUARD_REFUSED,
      `schemapin guard: ${what}`,
      errorData(context.server, context.mode, []),
    ),
  };
}

/**
 * An answer to no request the guard saw (an id it never forwarded, or one already answered):
 * passed, unless it carries definitions — a `tools`, `prompts`, `resources` or
 * `resourceTemplates` array, or `instructions` — that nothing checked (enforce and filter
 * replace it with an error; audit logs it).
 */
function unmatched(context: GuardContext, message: JsonObject): ServerDecision {
  const result = message.result;
  if (!isJsonObject(result)) return PASS;
  const members = ["tools", "prompts", "resources", "resourceTemplates", "skills"].filter((m) =>
    Array.isArray(result[m])
  );
  if (Object.hasOwn(result, "instructions")) members.push("instructions");
  if (members.length === 0) return PASS;
  const why = `an answer to no request the guard forwarded carries ${members.join(", ")}`;
  return refuseInvalid(
    context,
    message.id,
    why,
    `refused: ${why} (unchecked definitions never reach the client)`,
  );
}
