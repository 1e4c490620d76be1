/**
 * Serving a few fixed JSON documents (`schemapin serve`): each path answers with its bytes
 * exactly as given, as `application/json; charset=utf-8`, with `X-Content-Type-Options: nosniff`,
 * an `ETag` (SHA-256 of the bytes; `If-None-Match` → 304) and the document's `Cache-Control`.
 * GET and HEAD only (405 otherwise), 404 for every other path, no redirects. Nothing here knows
 * what the documents are.
 *
 * @module
 */
import { sha256, toHex } from "../crypto/hash.ts";

/** One document to serve. */
export interface StaticDocument {
  /** The bytes, served as they are. */
  readonly bytes: Uint8Array;
  /** The strong `ETag`: the first 128 bits of the SHA-256 of the bytes, in hex, quoted. */
  readonly etag: string;
  /** The `Cache-Control` value. */
  readonly cacheControl: string;
}

/**
 * A document to serve: `bytes` with their `ETag` and `cacheControl`.
 *
 * @example
 * ```ts
 * import { staticDocument } from "./static.ts";
 * const doc = staticDocument(new TextEncoder().encode("{}"), "no-cache");
 * doc.etag; // '"44136fa355b3678a1146ad16f7e8649e"'
 * ```
 */
export function staticDocument(bytes: Uint8Array, cacheControl: string): StaticDocument {
  return { bytes, cacheControl, etag: `"${toHex(sha256(bytes)).slice(0, 32)}"` };
}

/**
 * Answers one request from `routes` (path → document); pure apart from the `Response` object.
 *
 * @example
 * ```ts
 * import { respondStatic, staticDocument } from "./static.ts";
 * const routes = new Map([["/doc.json", staticDocument(new TextEncoder().encode("{}"), "no-cache")]]);
 * respondStatic(routes, new Request("https://example.com/doc.json")).status; // 200
 * respondStatic(routes, new Request("https://example.com/other")).status; // 404
 * ```
 */
export function respondStatic(
  routes: ReadonlyMap<string, StaticDocument>,
  request: Request,
): Response {
  const base = { "x-content-type-options": "nosniff" };
  const url = new URL(request.url);
  const doc = routes.get(url.pathname);
  if (!doc) {
    return new Response("not found\n", {
      status: 404,
      headers: {
        ...base,
        "content-type": "text/plain; charset=utf-8",
        "cache-control": "no-store",
      },
    });
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("method not allowed\n", {
      status: 405,
      headers: { ...base, allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" },
    });
  }
  const headers = {
    ...base,
    "content-type": "application/json; charset=utf-8",
    "cache-control": doc.cacheControl,
    etag: doc.etag,
  };
  const match = request.headers.get("if-none-match");
  if (match !== null && match.split(",").some((t) => t.trim() === doc.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === "HEAD" ? null : doc.bytes.slice(), {
    status: 200,
    headers: { ...headers, "content-length": String(doc.bytes.length) },
  });
}

/**
 * The access-log line of one answered request: time, client, method, path (as JSON), status
 * and length (`-` when the response has no `Content-Length`).
 *
 * @example
 * ```ts
 * import { accessLogLine } from "./static.ts";
 * accessLogLine(
 *   new Request("https://h/.well-known/schemapin.json"),
 *   "127.0.0.1",
 *   new Response("{}", { headers: { "content-length": "2" } }),
 *   new Date(0),
 * ); // '1970-01-01T00:00:00.000Z 127.0.0.1 GET "/.well-known/schemapin.json" 200 2\n'
 * ```
 */
export function accessLogLine(
  request: Request,
  client: string,
  response: Response,
  now: Date,
): string {
  const path = new URL(request.url).pathname;
  const size = response.headers.get("content-length") ?? "-";
  return `${now.toISOString()} ${client} ${request.method} ${JSON.stringify(path)} ` +
    `${response.status} ${size}\n`;
}
