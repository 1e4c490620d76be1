/**
 * The one place schemapin fetches over the network: a hardened HTTPS GET of a small JSON
 * document (§9 "Transport Security"):
 *
 * - `https:` only — any other scheme, and URLs with credentials, are refused before a
 *   connection is made;
 * - redirects are never followed (`redirect: "manual"`): a 3xx is `DISCOVERY_FETCH_FAILED`
 *   naming where it pointed;
 * - a connect timeout (until the response headers arrive; default 5 s) and a read timeout
 *   (for the whole body, not per chunk, so a server that drips one byte at a time cannot
 *   keep the connection alive; default 10 s);
 * - a body cap (default 64 KiB) enforced while streaming: a larger `Content-Length` is
 *   refused unread, and reading stops as soon as the cap is passed;
 * - strict JSON (duplicate keys, lone surrogates, … are `DISCOVERY_INVALID`).
 *
 * TLS is verified by Deno against the host name of the URL, with the system/bundled roots,
 * `DENO_CERT`, and `client` (e.g. `Deno.createHttpClient({ caCerts })` for a private CA).
 * The standard `HTTPS_PROXY` / `NO_PROXY` variables are honoured by Deno's fetch (HTTP
 * CONNECT: TLS still runs end to end with the origin).
 *
 * Errors are `SchemaPinError`s with `details.remote: true` and `details.url`; a 404 or 410
 * also carries `details.notFound: true` (resolver chains may fall through on it).
 *
 * @module
 */
import { SchemaPinError } from "../errors.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonValue } from "../json/types.ts";
import { checkArg } from "../arguments.ts";

/** Default connect timeout (connection, TLS, request, response headers): 5 seconds. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Default read timeout (the whole body): 10 seconds. */
export const DEFAULT_READ_TIMEOUT_MS = 10_000;
/** Default body cap: 64 KiB, as the reference SDKs (§9). */
export const MAX_DISCOVERY_BYTES = 64 * 1024;

/** Options of {@linkcode fetchHttpsJson}. */
export interface HttpsFetchOptions {
  /** Connect timeout in milliseconds (see the module documentation; default 5000). */
  connectTimeoutMs?: number;
  /** Read timeout in milliseconds for the whole body (default 10000). */
  readTimeoutMs?: number;
  /** Body cap in bytes (default 65536). */
  maxBytes?: number;
  /**
   * An HTTP client, e.g. `Deno.createHttpClient({ caCerts: [pem] })` for a private CA. Deno
   * only: under Node and Bun leave it out and give the CA the runtime's way
   * (`NODE_EXTRA_CA_CERTS`).
   */
  client?: Deno.HttpClient;
}

function failed(url: string, message: string, extra: Record<string, unknown> = {}): SchemaPinError {
  return new SchemaPinError("DISCOVERY_FETCH_FAILED", message, { url, remote: true, ...extra });
}

/**
 * Why `url` may not be fetched (not `https:`, credentials, not absolute), or `undefined`.
 *
 * @example
 * ```ts
 * import { checkFetchUrl } from "./http.ts";
 * checkFetchUrl("http://example.com/x"); // "http: is refused: discovery is HTTPS only (§9)"
 * ```
 */
export function checkFetchUrl(url: string): string | undefined {
  checkArg("checkFetchUrl", "url", url, "string");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not an absolute URL`;
  }
  if (parsed.protocol !== "https:") {
    return `${parsed.protocol} is refused: discovery is HTTPS only (§9)`;
  }
  if (parsed.username || parsed.password) return "URLs with credentials are refused";
  return undefined;
}

function positive(value: number | undefined, fallback: number, what: string): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) {
    throw new SchemaPinError("INPUT_INVALID", `${what} must be a positive number, not ${v}`);
  }
  return v;
}

/** The useful part of a fetch error ("invalid peer certificate: …", "tcp connect error: …"). */
function describeFetchError(e: unknown): string {
  const cause = (e as { cause?: unknown })?.cause;
  const raw = cause instanceof Error ? cause.message : (e as Error)?.message ?? String(e);
  return raw.replace(/^error sending request for url \([^)]*\): /, "")
    .replace(/^client error \(Connect\): /, "");
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

/**
 * Fetches `url` under the rules of the module documentation and returns the parsed JSON.
 * `what` names the document in messages ("discovery document"). Throws `SchemaPinError`:
 * `DISCOVERY_FETCH_FAILED` (refused scheme, connection or TLS failure, timeout, redirect,
 * HTTP status other than 200, body over the cap), `DISCOVERY_INVALID` (not strict JSON);
 * `INPUT_INVALID` for unusable options.
 *
 * @example
 * ```ts ignore
 * const doc = await fetchHttpsJson("https://example.com/.well-known/schemapin.json",
 *   "discovery document", { connectTimeoutMs: 3000 });
 * ```
 */
export async function fetchHttpsJson(
  url: string,
  what: string,
  options: HttpsFetchOptions = {},
): Promise<JsonValue> {
  checkArg("fetchHttpsJson", "options", options, "object");
  const connectMs = positive(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS, "timeout");
  const readMs = positive(options.readTimeoutMs, DEFAULT_READ_TIMEOUT_MS, "timeout");
  const maxBytes = positive(options.maxBytes, MAX_DISCOVERY_BYTES, "maxBytes");
  const refused = checkFetchUrl(url);
  if (refused) throw failed(url, `${what} ${url}: ${refused}`, { refused: true });

  const controller = new AbortController();
  let phase: "connect" | "read" = "connect";
  let timer = setTimeout(() => controller.abort(), connectMs);
  let response: Response;
  try {
    response = await fetch(url, {
      method: "GET",
      redirect: "manual",
      signal: controller.signal,
      headers: { accept: "application/json" },
      cache: "no-store",
      credentials: "omit",
      ...(options.client ? { client: options.client } : {}),
    } as RequestInit);
  } catch (e) {
    clearTimeout(timer);
    if (controller.signal.aborted) {
      throw failed(
        url,
        `${what} ${url}: no response within ${seconds(connectMs)} (connect timeout)`,
        {
          timeout: "connect",
        },
      );
    }
    throw failed(url, `cannot fetch ${what} ${url}: ${describeFetchError(e)}`);
  }
  clearTimeout(timer);
  const body = response.body;
  const discard = () => body?.cancel().catch(() => {});

  if (response.status >= 300 && response.status < 400) {
    await discard();
    const location = response.headers.get("location");
    throw failed(
      url,
      `${what} ${url}: the server redirects (HTTP ${response.status}` +
        (location ? ` to ${location}` : "") + `); redirects are not followed (§9)`,
      { status: response.status, location },
    );
  }
  if (response.status !== 200) {
    await discard();
    const notFound = response.status === 404 || response.status === 410;
    throw failed(url, `${what} ${url}: HTTP ${response.status}`, {
      status: response.status,
      ...(notFound ? { notFound: true } : {}),
    });
  }
  const declared = response.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    await discard();
    throw failed(
      url,
      `${what} ${url} is ${declared} bytes, over the ${maxBytes}-byte cap; not read`,
      { tooLarge: true },
    );
  }
  if (!body) return parseBody(new Uint8Array(), url, what);

  // The body: one deadline for all of it, and the cap checked chunk by chunk.
  phase = "read";
  const reader = body.getReader();
  let timedOut = false;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
      reject(new Error("read timeout"));
    }, readMs);
  });
  deadline.catch(() => {});
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        throw failed(
          url,
          `${what} ${url} is larger than the ${maxBytes}-byte cap; stopped reading`,
          {
            tooLarge: true,
          },
        );
      }
      chunks.push(value);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    if (e instanceof SchemaPinError) throw e;
    if (timedOut) {
      throw failed(
        url,
        `${what} ${url}: the body did not arrive within ${seconds(readMs)} (read timeout)`,
        { timeout: phase },
      );
    }
    throw failed(url, `cannot read ${what} ${url}: ${describeFetchError(e)}`);
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return parseBody(bytes, url, what);
}

function parseBody(bytes: Uint8Array, url: string, what: string): JsonValue {
  try {
    return parseJson(bytes, url);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new SchemaPinError("DISCOVERY_INVALID", `${what} ${url} is not valid JSON: ${why}`, {
      url,
      remote: true,
    });
  }
}
