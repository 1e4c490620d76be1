/**
 * Serving a few fixed JSON documents (`schemapin serve`): each path answers with its bytes
 * exactly as given, as `application/json; charset=utf-8`, with `X-Content-Type-Options: nosniff`,
 * an `ETag` (SHA-256 of the bytes; `If-None-Match` → 304) and the document's `Cache-Control`.
 * GET and HEAD only (405 otherwise), 404 for every other path, no redirects, over the server of
 * lib/http/server.ts ({@linkcode listenStatic}). Nothing here knows what the documents are.
 *
 * @module
 */
import { sha256, toHex } from "../../lib/crypto/hash.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { checkArg } from "../../lib/arguments.ts";
import { type HttpServer, listenHttp, type ServerLimits } from "../../lib/http/server.ts";
import { serverEventText } from "./server_limits.ts";

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

/** How {@linkcode listenStatic} serves. */
export interface StaticServerOptions {
  /** Address to listen on. */
  readonly hostname: string;
  /** Port (0: any free port). */
  readonly port: number;
  /** PEM certificate chain and (unencrypted) key. */
  readonly tls: { readonly cert: string; readonly key: string };
  /** Limits (defaults: `DEFAULT_SERVER_LIMITS` of lib/http/server.ts). */
  readonly limits?: Partial<ServerLimits>;
  /** The documents, each at its URL path. */
  readonly documents: readonly {
    readonly path: string;
    readonly bytes: Uint8Array;
    readonly cacheControl: string;
  }[];
  /** Told of every answered request, with the client's address (an access log). */
  readonly onResponse?: (request: Request, client: string, response: Response) => void;
  /**
   * A sentence about the server itself: where it listens once started (`listening on
   * https://HOST:PORT/ (PATHS)`), out of file descriptors, ….
   */
  readonly onEvent?: (message: string) => void;
  /** Told of an error while answering (the client gets a 500). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Serves `documents` over HTTPS ({@linkcode respondStatic} for each request) until the
 * server's `shutdown`. A listener that cannot start (an address in use or not local, a
 * certificate or key TLS refuses) is `INPUT_INVALID` naming the address.
 *
 * @example
 * ```ts ignore
 * import { listenStatic } from "./static.ts";
 * const server = listenStatic({
 *   hostname: "127.0.0.1",
 *   port: 8443,
 *   tls: { cert, key },
 *   documents: [{ path: "/doc.json", bytes: new TextEncoder().encode("{}"), cacheControl: "no-cache" }],
 * });
 * await server.shutdown(5_000);
 * ```
 */
export function listenStatic(options: StaticServerOptions): HttpServer {
  checkArg("listenStatic", "options", options, "object");
  const { hostname, port, tls, documents, onResponse, onError } = options;
  checkArg("listenStatic", "options.hostname", hostname, "string");
  checkArg("listenStatic", "options.port", port, "number");
  checkArg("listenStatic", "options.tls", tls, "object");
  checkArg("listenStatic", "options.tls.cert", tls.cert, "string");
  checkArg("listenStatic", "options.tls.key", tls.key, "string");
  checkArg("listenStatic", "options.documents", documents, "array");
  const routes = new Map(
    documents.map((d) => [d.path, staticDocument(d.bytes, d.cacheControl)] as const),
  );
  let server: HttpServer;
  try {
    server = listenHttp({
      hostname,
      port,
      tls,
      ...(options.limits !== undefined ? { limits: options.limits } : {}),
      // The server's own sentences name a limit by its flag (cli/http/server_limits.ts).
      ...(options.onEvent !== undefined
        ? { onEvent: (message: string) => options.onEvent!(serverEventText(message)) }
        : {}),
      onError: (e) => {
        onError?.(e);
        return new Response("internal error\n", { status: 500 });
      },
      handler: onResponse
        ? (request, info) => {
          const response = respondStatic(routes, request);
          onResponse(request, info.remoteAddr.hostname, response);
          return response;
        }
        : (request) => respondStatic(routes, request),
    });
  } catch (e) {
    throw new SchemaPinError(
      "INPUT_INVALID",
      `cannot serve on ${hostname}:${port}: ${(e as Error).message}`,
    );
  }
  const addr = server.addr;
  const shown = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  options.onEvent?.(
    `listening on https://${shown}:${addr.port}/ (${documents.map((d) => d.path).join(", ")})`,
  );
  return server;
}
