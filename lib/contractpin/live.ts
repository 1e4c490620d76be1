/**
 * Enumerating a server described by an identity: expand `${VAR}` references, resolve relative
 * paths against the lock's folder, pick the transport, run the MCP conversation and always
 * release the server (child process, HTTP session) afterwards.
 *
 * @module
 */
import { isAbsolute, join } from "node:path";
import { normalizeClientCapabilities, type ServerIdentity } from "./lock.ts";
import { ServerFailure } from "../mcp/errors.ts";
import { readToolsDump } from "../mcp/file.ts";
import { connectHttp } from "../mcp/http.ts";
import { connectLegacySse } from "../mcp/legacy_sse.ts";
import {
  DEFAULT_STARTUP_TIMEOUT_MS,
  type ListOptions,
  listTools,
  type McpTransport,
  type ToolListing,
} from "../mcp/session.ts";
import { spawnStdio, type StdioTransport } from "../mcp/stdio.ts";
import {
  type EnvLookup,
  expandHeaders,
  expandVariables,
  type HeaderTemplate,
  parseEndpoint,
  processEnv,
} from "./secrets.ts";
import { checkArg } from "../arguments.ts";

/** A server to enumerate: where it is, plus run-time-only settings that never reach a lock. */
export interface ServerTarget {
  /** The local server name (for messages). */
  readonly name: string;
  /** The identity, possibly holding `${VAR}` references. */
  readonly identity: ServerIdentity;
  /** HTTP headers (templates); never written anywhere. */
  readonly headers?: readonly HeaderTemplate[];
  /** Folder that relative `cwd` and `path` values are relative to (the lock's folder). */
  readonly baseDir?: string;
  /**
   * For an HTTP identity: `"sse"` uses the legacy HTTP+SSE transport (MCP 2024-11-05) without
   * trying Streamable HTTP first. Not part of the identity: a verify detects it again.
   */
  readonly httpTransport?: "sse";
  /** Client capabilities to announce in `initialize` (recorded in the lock entry). */
  readonly clientCapabilities?: readonly string[];
}

/** A target with every reference expanded: ready to contact. */
export type PreparedTarget =
  | {
    name: string;
    transport: "stdio";
    command: string[];
    env?: Record<string, string>;
    cwd?: string;
    clientCapabilities?: readonly string[];
  }
  | {
    name: string;
    transport: "http";
    url: string;
    headers: [string, string][];
    httpTransport?: "sse";
    clientCapabilities?: readonly string[];
  }
  | { name: string; transport: "file"; path: string };

function capabilitiesOf(target: ServerTarget): { clientCapabilities?: readonly string[] } {
  const caps = target.clientCapabilities;
  return caps && caps.length > 0 ? { clientCapabilities: normalizeClientCapabilities(caps) } : {};
}

function resolvePath(path: string, baseDir: string | undefined): string {
  return baseDir === undefined || isAbsolute(path) ? path : join(baseDir, path);
}

/**
 * Expands `${VAR}` references in a target (command arguments, env values, cwd, URL, headers,
 * path) and resolves relative paths against `baseDir`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for an unset variable or a bad URL — a problem of the
 * caller's setup (exit 2), not of the server
 *
 * @example
 * ```ts
 * import { prepareTarget } from "./live.ts";
 * const t = prepareTarget(
 *   { name: "s", identity: { transport: "stdio", command: ["srv", "--key=${K}"] } },
 *   () => "v",
 * );
 * console.log(t); // { name: "s", transport: "stdio", command: ["srv", "--key=v"] }
 * ```
 */
export function prepareTarget(target: ServerTarget, env: EnvLookup = processEnv): PreparedTarget {
  checkArg("prepareTarget", "target", target, "object");
  checkArg("prepareTarget", "target.identity", target.identity, "object");
  checkArg("prepareTarget", "env", env, "function");
  const id = target.identity;
  const where = `server ${target.name}`;
  switch (id.transport) {
    case "stdio": {
      const out: PreparedTarget = {
        name: target.name,
        transport: "stdio",
        command: id.command.map((a, i) => expandVariables(a, env, `${where} command[${i}]`)),
        ...capabilitiesOf(target),
      };
      if (id.env) {
        out.env = Object.fromEntries(
          Object.entries(id.env).map(([k, v]) => [k, expandVariables(v, env, `${where} env ${k}`)]),
        );
      }
      if (id.cwd !== undefined) {
        out.cwd = resolvePath(expandVariables(id.cwd, env, `${where} cwd`), target.baseDir);
      }
      return out;
    }
    case "http": {
      const url = expandVariables(id.url, env, `${where} url`);
      parseEndpoint(url);
      return {
        name: target.name,
        transport: "http",
        url,
        headers: expandHeaders(target.headers ?? [], env),
        ...(target.httpTransport ? { httpTransport: target.httpTransport } : {}),
        ...capabilitiesOf(target),
      };
    }
    case "file":
      return {
        name: target.name,
        transport: "file",
        path: resolvePath(expandVariables(id.path, env, `${where} path`), target.baseDir),
      };
  }
}

/**
 * Enumerates every tool of a prepared target. Throws only {@linkcode ServerFailure} — an
 * unreachable or misbehaving server is a verification result, not a crash.
 *
 * @example
 * ```ts ignore
 * const listing = await enumerateTarget(prepareTarget(target), { startupTimeoutMs: 60_000 });
 * ```
 */
export async function enumerateTarget(
  target: PreparedTarget,
  options: ListOptions = {},
): Promise<ToolListing> {
  checkArg("enumerateTarget", "target", target, "object");
  checkArg("enumerateTarget", "options", options, "object");
  if (target.transport === "file") {
    return await readToolsDump(target.path, options.maxPages, `server ${target.name}`);
  }
  const source = `server ${target.name}`;
  const asked = target.clientCapabilities
    ? { ...options, clientCapabilities: target.clientCapabilities }
    : options;
  if (target.transport === "http") return await enumerateHttp(target, asked, source);
  const stdio = spawnStdio({ command: target.command, env: target.env, cwd: target.cwd, source });
  return await listAndClose(stdio, asked, source, stdio);
}

/** HTTP statuses with which a server that only speaks HTTP+SSE refuses a POST (MCP 2025-03-26). */
const LEGACY_HINT_STATUSES = [400, 404, 405];

/**
 * Streamable HTTP first (modern `server/discover`, then legacy `initialize`, as
 * `options.era` says); when its POSTs are refused with 400, 404 or 405 and no modern error
 * body, the legacy HTTP+SSE transport on the same URL — the backwards-compatibility procedure
 * of the MCP specification (2025-03-26 onward). HTTP+SSE only ever carries the legacy era, so
 * it is asked with `era: "legacy"`, and never when the caller forced `era: "modern"`.
 * `httpTransport: "sse"` skips the first attempt.
 */
async function enumerateHttp(
  target: Extract<PreparedTarget, { transport: "http" }>,
  options: ListOptions,
  source: string,
): Promise<ToolListing> {
  if (target.httpTransport !== "sse") {
    const http = connectHttp({ url: target.url, headers: target.headers, source });
    try {
      return await listAndClose(http, options, source);
    } catch (e) {
      // A JSON-RPC error body (rpc_error) is a Streamable HTTP server's answer, not a refusal.
      const refused = e instanceof ServerFailure && e.kind === "http" && !http.answered &&
        LEGACY_HINT_STATUSES.includes(e.httpStatus ?? 0) && options.era !== "modern";
      if (!refused) throw e;
    }
  }
  const legacy = await connectLegacySse({
    url: target.url,
    headers: target.headers,
    source,
    connectTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
  });
  const listing = await listAndClose(legacy, { ...options, era: "legacy" }, source);
  return {
    ...listing,
    notices: [...listing.notices, "the server speaks the legacy HTTP+SSE transport (2024-11-05)"],
  };
}

/** Lists the tools over an open transport and closes it, whatever happens. */
async function listAndClose(
  transport: McpTransport,
  options: ListOptions,
  source: string,
  stdio?: StdioTransport,
): Promise<ToolListing> {
  let failure: ServerFailure | undefined;
  try {
    return await listTools(transport, options, source);
  } catch (e) {
    failure = e instanceof ServerFailure
      ? e
      : new ServerFailure("protocol", `${source}: ${(e as Error).message}`);
    throw failure;
  } finally {
    await transport.close();
    // The server's stderr, complete once it has exited, explains most failures.
    if (failure && stdio && !failure.stderr) failure.stderr = stdio.stderr;
  }
}
