/**
 * Bodies of the HTTP guard: a whole body read up to {@linkcode MAX_HTTP_MESSAGE_BYTES}, a
 * client's POST body read and judged well-formed (strict JSON, not an empty batch) before the
 * core sees it, and a JSON response written in one piece with its head.
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonValue } from "../json/types.ts";
import { MAX_HTTP_MESSAGE_BYTES } from "../mcp/http.ts";
import { errorResponse, type GuardCore, INVALID_REQUEST, PARSE_ERROR } from "./core.ts";

const encoder = new TextEncoder();

/**
 * A JSON response.
 *
 * @example
 * ```ts ignore
 * return jsonResponse(errorResponse(null, PARSE_ERROR, "…"), 400);
 * ```
 */
export function jsonResponse(value: JsonValue, status = 200, headers?: Headers): Response {
  const h = headers ?? new Headers();
  const bytes = encoder.encode(JSON.stringify(value));
  h.set("content-type", "application/json");
  h.set("content-length", String(bytes.length)); // written in one piece with its head
  return new Response(bytes, { status, headers: h });
}

/**
 * Reads a whole body, refusing one above {@linkcode MAX_HTTP_MESSAGE_BYTES}.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a body above the cap; what reading the body
 *   throws
 *
 * @example
 * ```ts ignore
 * const bytes = await readLimited(req.body);
 * ```
 */
export async function readLimited(
  body: ReadableStream<Uint8Array> | null,
): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.length;
    if (size > MAX_HTTP_MESSAGE_BYTES) {
      throw new SchemaPinError("INPUT_INVALID", `a body exceeds ${MAX_HTTP_MESSAGE_BYTES} bytes`, {
        limit: MAX_HTTP_MESSAGE_BYTES,
      });
    }
    chunks.push(c);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Reads a client's POST body: at most {@linkcode MAX_HTTP_MESSAGE_BYTES}, strict JSON, not an
 * empty batch. Anything else is answered here (413 or 400 with a JSON-RPC error) and never
 * forwarded; a body that is not strict JSON is logged as `client_malformed`.
 *
 * @example
 * ```ts ignore
 * const read = await readClientMessage(req, core);
 * if (read instanceof Response) return read;
 * ```
 */
export async function readClientMessage(
  req: Request,
  core: GuardCore,
): Promise<{ bytes: Uint8Array; value: JsonValue; items: JsonValue[] } | Response> {
  let bytes: Uint8Array;
  try {
    bytes = await readLimited(req.body);
  } catch (e) {
    return jsonResponse(errorResponse(null, INVALID_REQUEST, (e as Error).message), 413);
  }
  let value: JsonValue;
  try {
    value = parseJson(bytes, "client message");
  } catch (e) {
    core.log.record({ decision: "client_malformed", message: (e as Error).message });
    return jsonResponse(
      errorResponse(
        null,
        PARSE_ERROR,
        `schemapin guard: the request body is not strict JSON and was not forwarded: ` +
          (e as Error).message,
      ),
      400,
    );
  }
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) {
    return jsonResponse(errorResponse(null, INVALID_REQUEST, "schemapin guard: empty batch"), 400);
  }
  return { bytes, value, items };
}
