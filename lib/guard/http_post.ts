/**
 * A client's POST through the Streamable HTTP guard: the body is read strictly, its MCP
 * 2026-07-28 routing headers checked against it, each message decided by the core; what may
 * pass is forwarded upstream, and the answer — 202, a JSON body or an event stream — comes back
 * through the core, with the guard's own refusals merged in. `initialize` and `tools/list` must
 * be answered in time (the guard depends on them); a forwarded request the upstream failed to
 * answer gets a JSON-RPC error of its own.
 *
 * @module
 */
import { parseJson } from "../json/parse.ts";
import type { JsonObject, JsonValue } from "../json/types.ts";
import { isJsonObject } from "../contractpin/contract.ts";
import { HEADER_MISMATCH } from "../mcp/era.ts";
import { MAX_HTTP_MESSAGE_BYTES, mediaType } from "../mcp/http.ts";
import { SseParser } from "../mcp/sse.ts";
import { errorResponse, type GuardCore, type GuardSession, type PendingRequests } from "./core.ts";
import { jsonResponse, readClientMessage, readLimited } from "./http_body.ts";
import type { HttpGuardContext } from "./http_context.ts";
import { clientHeaders, headerMismatch, upstreamHeaders } from "./http_headers.ts";
import { ownToolList } from "./http_own_list.ts";
import { failForwarded, judgeServerMessages, relayEvent, sseEvent } from "./http_relay.ts";
import { ServerFailure } from "../mcp/errors.ts";

const encoder = new TextEncoder();

/** A request the client sent and the guard forwarded. */
interface Forwarded {
  readonly id: JsonValue;
  readonly method: string;
}

/** A POST forwarded upstream: what answering it needs. */
interface Exchange {
  readonly ctx: HttpGuardContext;
  /** The client's document (one message or a batch): the shape of the answer. */
  readonly value: JsonValue;
  /** The guard's own answers (refusals), sent before the upstream's. */
  readonly replies: JsonObject[];
  /** The requests forwarded. */
  readonly requests: Forwarded[];
  /** The forwarded requests that must be answered in time (`initialize`, `tools/list`). */
  readonly critical: Forwarded[];
  /** Ids of the answers seen so far. */
  readonly answered: Set<JsonValue>;
  /** Aborted when a critical request is not answered in time. */
  readonly controller: AbortController;
  /** The time a critical request gets, in milliseconds. */
  readonly limitMs: number;
  /** Aborts `controller` after `limitMs` (only when a request is critical). */
  readonly timer: ReturnType<typeof setTimeout> | undefined;
  /** The session the answers belong to (the upstream may name a new one). */
  target: GuardSession;
  /** Where the forwarded requests are remembered until answered. */
  pending: PendingRequests;
}

/**
 * Answers a client's POST (see the module documentation).
 *
 * @example
 * ```ts ignore
 * if (req.method === "POST") return await handlePost(ctx, req, ctx.sessionFor(sessionKey(req.headers)));
 * ```
 */
export async function handlePost(
  ctx: HttpGuardContext,
  req: Request,
  session: GuardSession,
): Promise<Response> {
  const { core } = ctx;
  const read = await readClientMessage(req, core);
  if (read instanceof Response) return read;
  const { bytes: body, value, items } = read;
  const mismatch = headerMismatch(req.headers, items);
  if (mismatch !== undefined) return refuseMismatch(core, value, mismatch);
  // The answers to a POST's requests come on its own response. Without a session (stateless
  // HTTP, shared by every client of one version and credentials) they are remembered for this
  // POST alone: two clients' requests with the same id must not take each other's answers.
  // With a session they are the session's: a broken stream is resumed with GET.
  const pending: PendingRequests = req.headers.has("mcp-session-id") ? session.pending : new Map();
  const fetchTools = ownToolList(ctx, req.headers);
  const forwarded: JsonValue[] = [];
  const replies: JsonObject[] = [];
  const requests: Forwarded[] = [];
  for (const m of items) {
    const d = await core.fromClient(session, m, fetchTools, pending);
    if (d.forward) {
      forwarded.push(m);
      if (d.request) requests.push(d.request);
    } else if (d.reply) {
      replies.push(d.reply);
    }
  }
  if (forwarded.length === 0) {
    return replies.length === 0 ? new Response(null, { status: 202 }) : jsonResponse(
      mergeInto(value, replies),
    );
  }
  const upstreamBody = forwarded.length === items.length
    ? body
    : encoder.encode(JSON.stringify(Array.isArray(value) ? forwarded : forwarded[0]));
  const ex = startExchange(ctx, value, replies, requests, session, pending);
  let response: Response;
  try {
    response = await fetch(ctx.upstream, {
      method: "POST",
      headers: upstreamHeaders(req.headers),
      body: upstreamBody as Uint8Array<ArrayBuffer>,
      redirect: "manual",
      signal: AbortSignal.any([ex.controller.signal, ctx.stopAll.signal]),
    });
  } catch (e) {
    clearTimeout(ex.timer);
    const why = timedOut(ex) ?? `cannot reach the upstream: ${(e as Error).message}`;
    core.log.record({ decision: "server_failed", message: why });
    const errors = [...replies, ...failForwarded(ctx.source, requests, ex.answered, why)];
    return errors.length
      ? jsonResponse(mergeInto(value, errors), 502)
      : new Response(why, { status: 502 });
  }
  followUpstreamSession(ex, req, session, items, response);
  return await answerPost(ex, response);
}

/** A POST whose MCP 2026-07-28 routing headers do not match its body: 400, never forwarded. */
function refuseMismatch(core: GuardCore, value: JsonValue, mismatch: string): Response {
  core.log.record({ decision: "client_malformed", message: mismatch });
  const id = isJsonObject(value) && Object.hasOwn(value, "id") ? value.id : null;
  return jsonResponse(
    errorResponse(id, HEADER_MISMATCH, `schemapin guard: header mismatch: ${mismatch}`),
    400,
  );
}

/** Answers in the shape the client sent: a batch for a batch (or several), else one. */
function mergeInto(value: JsonValue, outs: JsonValue[]): JsonValue {
  return Array.isArray(value) || outs.length > 1 ? outs : outs[0];
}

/** The exchange of a POST about to be forwarded, its timer started. */
function startExchange(
  ctx: HttpGuardContext,
  value: JsonValue,
  replies: JsonObject[],
  requests: Forwarded[],
  session: GuardSession,
  pending: PendingRequests,
): Exchange {
  // initialize and tools/list must be answered in time: the guard depends on them.
  const critical = requests.filter((r) => r.method === "initialize" || r.method === "tools/list");
  const controller = new AbortController();
  const limitMs = critical.some((r) => r.method === "initialize") ? ctx.startupMs : ctx.requestMs;
  const timer = critical.length > 0
    ? setTimeout(() => controller.abort(new Error("timeout")), limitMs)
    : undefined;
  return {
    ctx,
    value,
    replies,
    requests,
    critical,
    answered: new Set<JsonValue>(),
    controller,
    limitMs,
    timer,
    target: session,
    pending,
  };
}

/** The reason when a critical request was not answered in time, else undefined. */
function timedOut(ex: Exchange): string | undefined {
  return ex.controller.signal.aborted ? `no answer within ${ex.limitMs / 1000} s` : undefined;
}

/** 502 with the guard's replies and an error for each forwarded request not answered. */
function failedExchange(ex: Exchange, why: string): Response {
  const errors = failForwarded(ex.ctx.source, ex.requests, ex.answered, why);
  return jsonResponse(mergeInto(ex.value, [...ex.replies, ...errors]), 502);
}

/**
 * Follows a session the upstream named in its answer: the answers then belong to that session,
 * and so do the requests the client's session was waiting on.
 */
function followUpstreamSession(
  ex: Exchange,
  req: Request,
  session: GuardSession,
  items: JsonValue[],
  response: Response,
): void {
  const { ctx } = ex;
  const sid = response.headers.get("mcp-session-id");
  const opened = sid !== null && sid !== (req.headers.get("mcp-session-id") ?? "") &&
    !ctx.sessions.has(sid);
  ex.target = sid !== null && sid !== (req.headers.get("mcp-session-id") ?? "")
    ? ctx.sessionFor(sid)
    : session;
  const target = ex.target;
  if (target === session) return;
  // The upstream opened a session. For an initialize, a new conversation: the client's
  // capabilities (from this very initialize) pick its lock entry. Otherwise the upstream
  // named a session late: it starts with everything the guard knew, so nothing decided
  // (blocked, withheld, the client's protocol) is forgotten.
  const init = items.find((m) => isJsonObject(m) && m.method === "initialize") as
    | JsonObject
    | undefined;
  if (init) ctx.core.noteInitialize(target, init.params);
  else if (opened) target.adoptStateOf(session);
  if (ex.pending === session.pending) {
    for (const [k, v] of session.pending) target.pending.set(k, v);
    session.pending.clear();
    ex.pending = target.pending;
  }
}

/** The upstream's answer to a forwarded POST, on its way to the client. */
async function answerPost(ex: Exchange, response: Response): Promise<Response> {
  const headers = clientHeaders(response.headers);
  const type = mediaType(response);
  if (response.status === 202) {
    // Accepted (notifications and responses only): no body, whatever its content type says.
    clearTimeout(ex.timer);
    await response.body?.cancel();
    return ex.replies.length > 0
      ? jsonResponse(mergeInto(ex.value, ex.replies), 200, headers)
      : new Response(null, { status: 202, headers });
  }
  if (
    !response.ok || !response.body ||
    (type !== "application/json" && type !== "text/event-stream")
  ) {
    clearTimeout(ex.timer);
    if (response.ok && ex.requests.length > 0) {
      // A 2xx answer to requests that is neither JSON nor an event stream cannot be checked:
      // a client that reads it anyway (a lenient content-type match) must not get it.
      await response.body?.cancel();
      const why = `the upstream answered with content type ${JSON.stringify(type)}, ` +
        `not application/json or text/event-stream`;
      ex.ctx.core.log.record({ decision: "server_failed", message: why });
      return failedExchange(ex, why);
    }
    return new Response(response.body, { status: response.status, headers });
  }
  if (type === "application/json") return await answerJson(ex, response, headers);
  // text/event-stream: re-emit each event after the core has seen it.
  headers.set("content-type", "text/event-stream");
  return new Response(relayPostStream(ex, response.body), { status: response.status, headers });
}

/** A JSON answer: read whole, judged by the core, merged with the guard's own replies. */
async function answerJson(ex: Exchange, response: Response, headers: Headers): Promise<Response> {
  const { ctx } = ex;
  let out: Uint8Array;
  try {
    const bytes = await readLimited(response.body);
    clearTimeout(ex.timer);
    const doc = parseJson(bytes, `${ctx.source} response`);
    const changed = await judgeServerMessages(ctx.core, ex.target, doc, ex.answered, ex.pending);
    if (changed === undefined && ex.replies.length === 0) {
      out = bytes;
    } else {
      const outs = [
        ...ex.replies,
        ...(Array.isArray(doc) ? (changed ?? doc) as JsonValue[] : [
          changed ?? doc,
        ]),
      ];
      out = encoder.encode(JSON.stringify(mergeInto(ex.value, outs)));
    }
  } catch (e) {
    clearTimeout(ex.timer);
    const why = timedOut(ex) ??
      `the upstream answered something that is not strict JSON-RPC: ${(e as Error).message}`;
    ctx.core.log.record({ decision: "server_failed", message: why });
    return failedExchange(ex, why);
  }
  headers.set("content-type", "application/json");
  headers.set("content-length", String(out.length)); // written in one piece with its head
  return new Response(out as Uint8Array<ArrayBuffer>, { status: response.status, headers });
}

/**
 * An event-stream answer, relayed event by event through the core after the guard's own
 * replies; a stream that fails ends with an error for each forwarded request not answered.
 */
function relayPostStream(
  ex: Exchange,
  upstreamBodyStream: ReadableStream<Uint8Array>,
): ReadableStream<Uint8Array> {
  const { ctx, timer } = ex;
  let clientGone = false; // the client cancelled (it gave up the call): not a server failure
  return new ReadableStream<Uint8Array>({
    async start(ctrl) {
      for (const r of ex.replies) ctrl.enqueue(sseEvent(r));
      const parser = new SseParser();
      let done = false;
      try {
        for await (const chunk of upstreamBodyStream) {
          for (const e of parser.push(chunk)) {
            ctrl.enqueue(
              await relayEvent(ctx.core, ctx.source, e, ex.target, ex.answered, ex.pending),
            );
          }
          if (ex.critical.every((r) => ex.answered.has(r.id))) clearTimeout(timer);
          if (parser.buffered > MAX_HTTP_MESSAGE_BYTES) {
            throw new ServerFailure(
              "malformed",
              `an event exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`,
            );
          }
        }
        done = true;
      } catch (e) {
        if (!clientGone) {
          const why = timedOut(ex) ?? `the upstream event stream failed: ${(e as Error).message}`;
          // The guard stopping ends the stream: not a failure of the server (the client
          // still gets an answer to each forwarded request).
          if (!ctx.stopAll.signal.aborted) {
            ctx.core.log.record({ decision: "server_failed", message: why });
          }
          for (const r of failForwarded(ctx.source, ex.requests, ex.answered, why)) {
            ctrl.enqueue(sseEvent(r));
          }
        }
      } finally {
        clearTimeout(timer);
        if (!done) await upstreamBodyStream.cancel().catch(() => {});
        try {
          ctrl.close();
        } catch { /* the client already went away */ }
      }
    },
    cancel() {
      clientGone = true;
      clearTimeout(timer);
      return upstreamBodyStream.cancel().catch(() => {});
    },
  });
}
