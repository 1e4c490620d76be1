/**
 * The `schemapin/trustBundle` JSON-RPC 2.0 envelope (§21.4): how one agent asks another for
 * its trust bundle, and how the answer is checked. Transport, and what the receiver does with
 * the bundle (verify it with `verifyTrustBundle`, then use or merge it), are the host's.
 *
 * Request:  `{"jsonrpc":"2.0","id":ID,"method":"schemapin/trustBundle","params":{"domains":[…]}}`
 * (`domains` optional: the domains the caller needs).
 * Response: `{"jsonrpc":"2.0","id":ID,"result":{"bundle":BUNDLE}}` or a JSON-RPC error object.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parseJson, parseJsonText } from "../json/parse.ts";
import { checkDomain } from "../dns/domain.ts";
import { isJsonObject, ownField, typeName } from "../json/object.ts";
import { parseTrustBundle } from "./bundle.ts";
import { checkArg } from "../arguments.ts";

/**
 * The JSON-RPC method name of §21.4, `"schemapin/trustBundle"`: what a responder routes to
 * the handler that answers with {@linkcode buildTrustBundleResponse}.
 *
 * @example Route the method in a responder
 * ```ts
 * import { TRUST_BUNDLE_METHOD } from "jsr:@schemapin/schemapin/bundle";
 *
 * const message = { jsonrpc: "2.0", id: 1, method: "schemapin/trustBundle", params: {} };
 * if (message.method === TRUST_BUNDLE_METHOD) console.log("answer with our bundle");
 * ```
 */
export const TRUST_BUNDLE_METHOD = "schemapin/trustBundle";

/**
 * A JSON-RPC id of the `schemapin/trustBundle` envelope: a string or a safe integer (never
 * null).
 */
export type JsonRpcId = string | number;

/**
 * A `schemapin/trustBundle` request (§21.4), as {@linkcode buildTrustBundleRequest} builds it.
 */
export interface TrustBundleRequest {
  /** Always "2.0". */
  jsonrpc: "2.0";
  /** The request id, echoed by the response. */
  id: JsonRpcId;
  /** Always {@linkcode TRUST_BUNDLE_METHOD}. */
  method: typeof TRUST_BUNDLE_METHOD;
  /** Parameters. */
  params: { domains?: string[] };
}

/**
 * A successful `schemapin/trustBundle` response, as {@linkcode buildTrustBundleResponse}
 * builds it.
 */
export interface TrustBundleResponse {
  /** Always "2.0". */
  jsonrpc: "2.0";
  /** The id of the request answered. */
  id: JsonRpcId;
  /** The bundle, exactly as the responder holds it (signed bundles stay byte-for-byte). */
  result: { bundle: Record<string, unknown> };
}

/** A JSON-RPC error response. */
export interface TrustBundleErrorResponse {
  /** Always "2.0". */
  jsonrpc: "2.0";
  /** The id of the request answered. */
  id: JsonRpcId;
  /** The error. */
  error: { code: number; message: string };
}

function envelopeError(message: string, details: Record<string, unknown> = {}): SchemaPinError {
  return new SchemaPinError("DISCOVERY_INVALID", `schemapin/trustBundle: ${message}`, details);
}

function checkId(id: unknown, what: string): JsonRpcId {
  if (typeof id === "string") return id;
  if (typeof id === "number" && Number.isSafeInteger(id)) return id;
  throw new SchemaPinError(
    "INPUT_INVALID",
    `${what} must be a string or a safe integer, not ${
      typeof id === "number" ? String(id) : typeName(id)
    }`,
  );
}

function toValue(input: unknown, what: string): unknown {
  if (input instanceof Uint8Array) return parseJson(input, what);
  if (typeof input === "string") return parseJsonText(input, what);
  return input;
}

/**
 * §21.4 `build_trust_bundle_request`: the `schemapin/trustBundle` request an agent sends a
 * peer to ask for its trust bundle. `domains`, when given, are the domains the caller needs,
 * validated (§9) and lower-cased. Throws `INPUT_INVALID` for a bad id or domain. Sending it
 * is the host's (any JSON-RPC transport).
 *
 * @example
 * ```ts
 * import { buildTrustBundleRequest } from "jsr:@schemapin/schemapin/bundle";
 *
 * const request = buildTrustBundleRequest(1, { domains: ["Example.com"] });
 * console.log(JSON.stringify(request));
 * // {"jsonrpc":"2.0","id":1,"method":"schemapin/trustBundle","params":{"domains":["example.com"]}}
 * ```
 */
export function buildTrustBundleRequest(
  id: JsonRpcId,
  options: { domains?: readonly string[] } = {},
): TrustBundleRequest {
  checkArg("buildTrustBundleRequest", "options", options, "object");
  const params: { domains?: string[] } = {};
  if (options.domains !== undefined) params.domains = checkDomains(options.domains, "domains");
  return { jsonrpc: "2.0", id: checkId(id, "request id"), method: TRUST_BUNDLE_METHOD, params };
}

function checkDomains(list: unknown, where: string): string[] {
  if (!Array.isArray(list)) {
    throw new SchemaPinError("INPUT_INVALID", `${where} must be an array of domains`);
  }
  return list.map((d, i) => {
    const dc = checkDomain(d);
    if (!dc.ok) throw new SchemaPinError("INPUT_INVALID", `${where}[${i}]: ${dc.reason}`);
    return dc.domain;
  });
}

/**
 * Reads a `schemapin/trustBundle` request (a parsed value, JSON text or bytes) on the
 * responder's side. Throws `DISCOVERY_INVALID` for anything else (wrong method or version,
 * missing or bad id, malformed params), `JSON_INVALID` for text that is not strict JSON.
 *
 * @example
 * ```ts
 * import { buildTrustBundleRequest, parseTrustBundleRequest } from "./jsonrpc.ts";
 * parseTrustBundleRequest(JSON.stringify(buildTrustBundleRequest("a"))).id; // "a"
 * ```
 */
export function parseTrustBundleRequest(
  input: unknown,
): { id: JsonRpcId; domains?: string[] } {
  const value = toValue(input, "schemapin/trustBundle request");
  if (!isJsonObject(value)) {
    throw envelopeError(`a request must be an object, not ${typeName(value)}`);
  }
  if (ownField(value, "jsonrpc") !== "2.0") throw envelopeError('jsonrpc must be "2.0"');
  if (ownField(value, "method") !== TRUST_BUNDLE_METHOD) {
    throw envelopeError(`method must be "${TRUST_BUNDLE_METHOD}"`);
  }
  let id: JsonRpcId;
  try {
    id = checkId(ownField(value, "id"), "request id");
  } catch (e) {
    throw envelopeError((e as Error).message);
  }
  const params = ownField(value, "params");
  if (params === undefined) return { id };
  if (!isJsonObject(params)) throw envelopeError("params must be an object");
  const domains = ownField(params, "domains");
  if (domains === undefined) return { id };
  try {
    return { id, domains: checkDomains(domains, "params.domains") };
  } catch (e) {
    throw envelopeError((e as Error).message);
  }
}

/**
 * §21.4 `build_trust_bundle_response`: the responder's answer to the request `id`, carrying
 * `bundle`. The bundle is checked to be a well-formed trust bundle (`DISCOVERY_INVALID`
 * otherwise) but sent unchanged, unknown fields included, so a signed bundle still verifies
 * at the other end. A bad id is `INPUT_INVALID`.
 *
 * @example Answer with the bundle this agent holds
 * ```ts
 * import { buildTrustBundleResponse } from "jsr:@schemapin/schemapin/bundle";
 * import { parseJson } from "jsr:@schemapin/schemapin";
 *
 * const bundle = parseJson(await Deno.readFile("bundle.json"), "bundle.json"); // signed
 * const response = buildTrustBundleResponse(1, bundle); // the request's id
 * console.log(JSON.stringify(response)); // {"jsonrpc":"2.0","id":1,"result":{"bundle":{…}}}
 * ```
 */
export function buildTrustBundleResponse(id: JsonRpcId, bundle: unknown): TrustBundleResponse {
  const checkedId = checkId(id, "response id");
  parseTrustBundle(bundle, "schemapin/trustBundle response bundle");
  return {
    jsonrpc: "2.0",
    id: checkedId,
    result: { bundle: structuredClone(bundle) as Record<string, unknown> },
  };
}

/**
 * Builds a JSON-RPC error response (e.g. `-32601` when the responder has no bundle to share).
 *
 * @example
 * ```ts
 * import { buildTrustBundleErrorResponse } from "./jsonrpc.ts";
 * buildTrustBundleErrorResponse(1, -32000, "no bundle").error.code; // -32000
 * ```
 */
export function buildTrustBundleErrorResponse(
  id: JsonRpcId,
  code: number,
  message: string,
): TrustBundleErrorResponse {
  if (!Number.isSafeInteger(code)) {
    throw new SchemaPinError("INPUT_INVALID", "a JSON-RPC error code must be an integer");
  }
  if (typeof message !== "string") {
    throw new SchemaPinError("INPUT_INVALID", "a JSON-RPC error message must be a string");
  }
  return { jsonrpc: "2.0", id: checkId(id, "response id"), error: { code, message } };
}

const RESPONSE_MEMBERS = ["jsonrpc", "id", "result", "error"];

/**
 * §21.4 `parse_trust_bundle_response`: checks a response to the request with `expectedId`
 * and returns the bundle it carries — **unverified**: pass it to `verifyTrustBundle` before
 * use. Accepts a parsed value, JSON text or bytes (parsed strictly: `JSON_INVALID`).
 *
 * Throws `SchemaPinError`:
 * - `DISCOVERY_FETCH_FAILED` for a JSON-RPC error response (`details.rpcCode`,
 *   `details.rpcMessage`);
 * - `DISCOVERY_INVALID` for everything malformed: not an object, `jsonrpc` not "2.0", an id
 *   that is missing or differs from `expectedId` (type included: `1` is not `"1"`), both or
 *   neither of `result` and `error`, a malformed error object, a `result` without an object
 *   `bundle`, unknown members.
 *
 * @example Ask a peer for its bundle, then verify what it sent
 * ```ts
 * import {
 *   buildTrustBundleRequest,
 *   MemoryBundleAuthorityStore,
 *   parseTrustBundleResponse,
 *   verifyTrustBundle,
 * } from "jsr:@schemapin/schemapin/bundle";
 *
 * // `send` is the host's transport: one JSON-RPC message out, the reply's text back
 * declare function send(message: string): Promise<string>;
 * const request = buildTrustBundleRequest("req-7");
 * const bundle = parseTrustBundleResponse(await send(JSON.stringify(request)), request.id);
 * const authorities = new MemoryBundleAuthorityStore(); // seeded with the expected authority
 * const verification = await verifyTrustBundle(bundle, authorities);
 * console.log(verification.valid, verification.errorCode);
 * ```
 */
export function parseTrustBundleResponse(
  input: unknown,
  expectedId: JsonRpcId,
): Record<string, unknown> {
  checkId(expectedId, "expected id");
  const value = toValue(input, "schemapin/trustBundle response");
  if (!isJsonObject(value)) {
    throw envelopeError(`a response must be a JSON object, not ${typeName(value)}`);
  }
  const extra = Object.keys(value).filter((k) => !RESPONSE_MEMBERS.includes(k));
  if (extra.length > 0) {
    throw envelopeError(`the response has unexpected members: ${extra.join(", ")}`);
  }
  const version = ownField(value, "jsonrpc");
  if (version !== "2.0") {
    throw envelopeError(`jsonrpc must be "2.0", not ${JSON.stringify(version) ?? "missing"}`);
  }
  if (!Object.hasOwn(value, "id")) throw envelopeError("the response has no id");
  const id = ownField(value, "id");
  if (id !== expectedId) {
    throw envelopeError(
      `the response id ${JSON.stringify(id)} does not match the request id ${
        JSON.stringify(expectedId)
      }`,
      { id, expectedId },
    );
  }
  const hasResult = Object.hasOwn(value, "result");
  const hasError = Object.hasOwn(value, "error");
  if (hasResult && hasError) throw envelopeError("the response has both result and error");
  if (hasError) {
    const error = ownField(value, "error");
    if (!isJsonObject(error)) throw envelopeError("error must be an object");
    const code = ownField(error, "code");
    const message = ownField(error, "message");
    if (typeof code !== "number" || !Number.isSafeInteger(code)) {
      throw envelopeError("error.code must be an integer");
    }
    if (typeof message !== "string") throw envelopeError("error.message must be a string");
    throw new SchemaPinError(
      "DISCOVERY_FETCH_FAILED",
      `schemapin/trustBundle: the peer answered with error ${code}: ${message}`,
      { rpcCode: code, rpcMessage: message },
    );
  }
  if (!hasResult) throw envelopeError("the response has neither result nor error");
  const result = ownField(value, "result");
  if (!isJsonObject(result)) {
    throw envelopeError(`result must be an object, not ${typeName(result)}`);
  }
  const bundle = ownField(result, "bundle");
  if (!isJsonObject(bundle)) {
    throw envelopeError(
      bundle === undefined
        ? "result.bundle is missing"
        : `result.bundle must be an object, not ${typeName(bundle)}`,
    );
  }
  return bundle;
}
