/**
 * The guard's decisions on client → server messages: every request is remembered so its answer
 * can be judged; `tools/call` is refused unless the tool passed the latest check (enforce,
 * filter) — before a call the guard lists the tools itself when they were never checked, or
 * changed or went stale since; `prompts/get` and `resources/read` are refused in a stopped
 * session or for a withheld item. `core.ts` calls these for `GuardCore.fromClient`.
 *
 * @module
 */
import { isJsonObject, type JsonObject, type JsonValue } from "../json/types.ts";
import { describeProblems, type SeenTools } from "./policy.ts";
import { SKILL_METHODS } from "./skills.ts";
import { type ClientDecision, errorResponse, GUARD_REFUSED, INVALID_PARAMS } from "./jsonrpc.ts";
import type { FetchTools } from "./own_list.ts";
import {
  applyVerdicts,
  expireIfStale,
  type GuardSession,
  noteFreshness,
  type PendingRequests,
  rememberRequest,
} from "./session.ts";
import { noteInitialize, noteModern } from "./session_era.ts";
import { type GuardContext, policyOf } from "./context.ts";
import { listProblemSentence, type Refusal, refusal, remedy } from "./refusal_text.ts";

/**
 * The decision on a client message without waiting, or `undefined` when it needs the guard's
 * own check of the tool list first (a `tools/call` before any checked list, or after
 * `list_changed`): then {@linkcode checkThenCall}.
 *
 * @example
 * ```ts ignore
 * import { decideClientNow } from "./client_decisions.ts";
 * decideClientNow(context, session, { jsonrpc: "2.0", id: 1, method: "tools/list" }, undefined, session.pending);
 * // { forward: true, request: { id: 1, method: "tools/list" } }
 * ```
 */
export function decideClientNow(
  context: GuardContext,
  session: GuardSession,
  message: JsonValue,
  fetchTools: FetchTools | undefined,
  pending: PendingRequests,
): ClientDecision | undefined {
  if (!isJsonObject(message) || typeof message.method !== "string") return { forward: true };
  const method = message.method;
  const hasId = Object.hasOwn(message, "id");
  if (method === "initialize" && hasId) noteInitialize(context, session, message.params);
  else if (hasId) noteModern(context, session, message);
  if (method !== "tools/call") {
    if (!hasId) return { forward: true };
    if (method === "prompts/get" || method === "resources/read") {
      const refused = itemRequestRefusal(context, session, message.id, method, message.params);
      if (refused) return refused;
    }
    rememberRequest(
      pending,
      session.generation,
      message.id,
      method,
      message.params,
      SKILL_METHODS.has(method),
    );
    return { forward: true, request: { id: message.id, method } };
  }
  const params = message.params;
  const name = isJsonObject(params) ? params.name : undefined;
  if (!hasId) {
    // A call without an id cannot be answered; a lenient server might still run it.
    context.records.callNotification(typeof name === "string" ? name : undefined);
    return { forward: false };
  }
  if (typeof name !== "string") {
    return {
      forward: false,
      reply: errorResponse(
        message.id,
        INVALID_PARAMS,
        'schemapin guard: tools/call needs a string "name" in params',
      ),
    };
  }
  expireIfStale(session, Date.now());
  if (
    context.mode !== "audit" && !session.blocked &&
    session.allowed.get(name) !== session.generation &&
    session.checkedGeneration !== session.generation && fetchTools
  ) {
    return undefined; // the guard checks the list first: checkThenCall
  }
  return callDecision(context, message.id, name, callRefusalNow(context, session, name));
}

/**
 * A `tools/call` (with an id and a string name) once the guard has checked the list itself.
 *
 * @example
 * ```ts ignore
 * import { checkThenCall } from "./client_decisions.ts";
 * await checkThenCall(context, session, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo" } }, fetchTools);
 * ```
 */
export async function checkThenCall(
  context: GuardContext,
  session: GuardSession,
  message: JsonObject,
  fetchTools: FetchTools,
): Promise<ClientDecision> {
  const name = (message.params as JsonObject).name as string;
  try {
    await ensureChecked(context, session, fetchTools);
  } catch (e) {
    return callDecision(
      context,
      message.id,
      name,
      refusal(
        context,
        "check_failed",
        `schemapin guard: tools/call ${JSON.stringify(name)} refused: the guard could not ` +
          `check the tool list: ${(e as Error).message}`,
        [],
      ),
    );
  }
  const refused = !session.blocked && session.allowed.has(name)
    ? undefined
    : callRefusalAfterCheck(context, session, name);
  return callDecision(context, message.id, name, refused);
}

function callDecision(
  context: GuardContext,
  id: JsonValue,
  name: string,
  refused: Refusal | undefined,
): ClientDecision {
  if (refused === undefined) return { forward: true, request: { id, method: "tools/call" } };
  context.records.callRefused(name, refused.reason);
  return {
    forward: false,
    reply: errorResponse(id, GUARD_REFUSED, refused.message, refused.data),
  };
}

/** The refusal of a call when no check of the list is due (or none can be made). */
function callRefusalNow(
  context: GuardContext,
  session: GuardSession,
  name: string,
): Refusal | undefined {
  if (context.mode === "audit") return undefined;
  if (!session.blocked && session.allowed.get(name) === session.generation) return undefined;
  if (!session.blocked && session.checkedGeneration !== session.generation) {
    return refusal(
      context,
      "unchecked",
      `schemapin guard: tools/call ${JSON.stringify(name)} refused: the tool list has not ` +
        `been checked since it changed; list the tools first`,
      [],
    );
  }
  return callRefusalAfterCheck(context, session, name);
}

/** The refusal of a call the checked list does not allow. */
function callRefusalAfterCheck(
  context: GuardContext,
  session: GuardSession,
  name: string,
): Refusal | undefined {
  if (session.blocked) {
    return refusal(
      context,
      "blocked",
      `schemapin guard: tools/call ${JSON.stringify(name)} refused: ` +
        listProblemSentence(context, session, session.blocked),
      session.blocked,
    );
  }
  const withheld = session.withheld.get(name);
  if (withheld) {
    return refusal(
      context,
      withheld.problems.join(","),
      `schemapin guard: tools/call ${JSON.stringify(name)} refused: the tool was withheld ` +
        `(${describeProblems([withheld])}). ${remedy(context, session, [withheld])}`,
      [withheld],
    );
  }
  return refusal(
    context,
    "not_listed",
    `schemapin guard: tools/call ${JSON.stringify(name)} refused: the tool is not in the ` +
      `checked tool list of server ${context.server}`,
    [],
  );
}

/** The guard lists the tools itself (once at a time per session) and checks the whole list. */
async function ensureChecked(
  context: GuardContext,
  session: GuardSession,
  fetchTools: FetchTools,
): Promise<void> {
  if (session.checking) return await session.checking;
  const generation = session.generation;
  const run = (async () => {
    let tools: JsonValue[];
    let ttlMs: number | undefined;
    try {
      ({ tools, ttlMs } = await fetchTools(session.protocol));
    } catch (e) {
      context.records.listCheckFailed((e as Error).message);
      throw e;
    }
    const seen: SeenTools = new Map();
    const policy = policyOf(context, session);
    const verdicts = await policy.checkTools(tools, seen);
    const problems = [...verdicts.filter((v) => !v.ok), ...policy.removed(seen)];
    context.records.verdicts(problems, verdicts);
    applyVerdicts(session, context.mode, generation, verdicts, problems, true);
    session.checkedGeneration = generation;
    noteFreshness(session, ttlMs);
    context.records.toolListSummary(
      session.blocked !== undefined,
      problems,
      policyOf(context, session).serverDigest(seen),
      tools.length,
      true,
    );
  })();
  session.checking = run;
  try {
    await run;
  } finally {
    session.checking = undefined;
  }
}

/**
 * Enforce: a session stopped by a problem refuses `prompts/get` and `resources/read` as it
 * refuses calls; filter: a withheld prompt or resource cannot be fetched by name.
 */
function itemRequestRefusal(
  context: GuardContext,
  session: GuardSession,
  requestId: JsonValue,
  method: string,
  params: JsonValue | undefined,
): ClientDecision | undefined {
  if (context.mode === "audit") return undefined;
  const kind = method === "prompts/get" ? "prompt" : "resource";
  const key = isJsonObject(params) ? params[kind === "prompt" ? "name" : "uri"] : undefined;
  const label = `${method} ${typeof key === "string" ? JSON.stringify(key) : ""}`.trim();
  let refused: Refusal | undefined;
  if (session.blocked) {
    refused = refusal(
      context,
      "blocked",
      `schemapin guard: ${label} refused: ${
        listProblemSentence(context, session, session.blocked)
      }`,
      session.blocked,
    );
  } else if (typeof key === "string") {
    const withheld = session.withheldItems.get(`${kind}\0${key}`);
    if (withheld) {
      refused = refusal(
        context,
        withheld.problems.join(","),
        `schemapin guard: ${label} refused: it was withheld ` +
          `(${describeProblems([withheld])}). ${remedy(context, session, [withheld])}`,
        [withheld],
      );
    }
  }
  if (refused === undefined) return undefined;
  context.records.callRefused(typeof key === "string" ? key : undefined, refused.reason, kind);
  return {
    forward: false,
    reply: errorResponse(requestId, GUARD_REFUSED, refused.message, refused.data),
  };
}
