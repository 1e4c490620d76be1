/**
 * Reading the servers of an MCP client configuration file (the formats of ./formats.ts).
 *
 * Client configs are JSONC (comments and trailing commas, {@linkcode parseJsonc}); everything
 * else is strict: duplicate names are errors. The clients' variable forms become contractpin's
 * `${VAR}` references (./variables.ts).
 *
 * An entry that runs its server through `schemapin guard` (`guard wrap`) is read as that
 * server: the command after `--`, or the URL after the mark (./marker.ts) — so pinning,
 * verifying and discovering give the same entries before and after wrapping.
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { SchemaPinError } from "../../lib/errors.ts";
import { parseJsonc } from "../json/jsonc.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { isJsonObject } from "../../lib/contractpin/contract.ts";
import type { ServerTarget } from "../../lib/contractpin/live.ts";
import { parseEndpoint } from "../../lib/contractpin/secrets.ts";
import { parseHeader } from "../mcp/header_option.ts";
import { checkArg } from "../../lib/arguments.ts";
import type { ReadInput } from "../../lib/schema/input.ts";
import { describeFsError } from "../../lib/runtime/fs.ts";
import {
  EntryProblem,
  HTTP_TYPES,
  jsonPointer,
  serverSets,
  transportTypeOf,
  urlKeyOf,
} from "./formats.ts";
import { isGuarded, readGuardedCommand, readGuardedUrl } from "./marker.ts";
import {
  type ConfigContext,
  configContextFor,
  type ConfigHost,
  normalizeVariables,
} from "./variables.ts";

/** One server entry of a client config, read without throwing. */
export interface ConfigEntry {
  /** The server's name in the config. */
  readonly name: string;
  /** Member names from the document root to the entry object. */
  readonly path: readonly string[];
  /** `"disabled": true` in the entry. */
  readonly disabled: boolean;
  /** The entry runs its server through `schemapin guard` (read as the server itself). */
  readonly guarded?: boolean;
  /** The server, when the entry can be used. */
  readonly target?: ServerTarget;
  /** Why it cannot be used (no file name in front), when it cannot. */
  readonly problem?: string;
  /** JSON pointer of the member at fault, with `problem`. */
  readonly field?: string;
}

function strings(v: JsonValue | undefined, at: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
    throw new EntryProblem(`${at} must be an array of strings`, at);
  }
  return v as string[];
}

function stringMap(v: JsonValue | undefined, at: string): Record<string, string> {
  if (!isJsonObject(v)) throw new EntryProblem(`${at} must be an object of strings`, at);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== "string") throw new EntryProblem(`${at}/${k} must be a string`, `${at}/${k}`);
    out[k] = x;
  }
  return out;
}

/** A stdio entry (it has a `command`) as its server. */
function stdioServer(
  name: string,
  entry: JsonObject,
  type: string | undefined,
  at: string,
  ctx: ConfigContext,
): ServerTarget {
  const norm = (v: string, where: string) => normalizeVariables(v, ctx, where);
  if (typeof entry.command !== "string") {
    throw new EntryProblem(`${at}/command must be a string`, `${at}/command`);
  }
  if (type !== undefined && type !== "stdio") {
    throw new EntryProblem(`${at} has a command but type ${JSON.stringify(type)}`, at);
  }
  if (entry.command === "") throw new EntryProblem(`${at}/command is empty`, `${at}/command`);
  if (entry.envFile !== undefined) {
    throw new EntryProblem(
      `${at}/envFile is not supported: contractpin cannot load it the way the client does; ` +
        `list the variables under "env" (as \${env:NAME} references)`,
      `${at}/envFile`,
    );
  }
  const args = entry.args === undefined ? [] : strings(entry.args, `${at}/args`);
  // Behind a guard (guard wrap): the server is the command after `--`.
  const argv = readGuardedCommand(entry.command, args)?.original ?? [entry.command, ...args];
  const identity: ServerTarget["identity"] = {
    transport: "stdio",
    command: argv.map((a, i) => norm(a, i === 0 ? `${at}/command` : `${at}/args/${i - 1}`)),
  };
  if (entry.env !== undefined) {
    identity.env = Object.fromEntries(
      Object.entries(stringMap(entry.env, `${at}/env`)).map((
        [k, v],
      ) => [k, norm(v, `${at}/env/${k}`)]),
    );
  }
  if (entry.cwd !== undefined) {
    if (typeof entry.cwd !== "string") {
      throw new EntryProblem(`${at}/cwd must be a string`, `${at}/cwd`);
    }
    identity.cwd = norm(entry.cwd, `${at}/cwd`);
  }
  return { name, identity };
}

/** An HTTP entry (its URL is in `urlKey`) as its server. */
function httpServer(
  name: string,
  entry: JsonObject,
  urlKey: "url" | "serverUrl",
  type: string | undefined,
  at: string,
  ctx: ConfigContext,
): ServerTarget {
  const norm = (v: string, where: string) => normalizeVariables(v, ctx, where);
  if (type !== undefined && !HTTP_TYPES.includes(type)) {
    throw new EntryProblem(`${at} has a url but type ${JSON.stringify(type)}`, at);
  }
  const raw = entry[urlKey] as string;
  const url = norm(readGuardedUrl(raw) ?? raw, `${at}/${urlKey}`);
  try {
    parseEndpoint(url.replace(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/g, "x"));
  } catch (e) {
    throw new EntryProblem(`${at}/${urlKey}: ${(e as Error).message}`, `${at}/${urlKey}`);
  }
  const headers = entry.headers === undefined
    ? []
    : Object.entries(stringMap(entry.headers, `${at}/headers`)).map(([k, v]) => {
      const value = norm(v, `${at}/headers/${k}`);
      try {
        return parseHeader(`${k}: ${value}`);
      } catch (e) {
        throw new EntryProblem(`${at}/headers/${k}: ${(e as Error).message}`, `${at}/headers`);
      }
    });
  // type "sse": the legacy HTTP+SSE transport (2024-11-05), chosen without trying
  // Streamable HTTP first; the lock records transport "http" either way.
  return {
    name,
    identity: { transport: "http", url },
    headers,
    ...(type === "sse" ? { httpTransport: "sse" as const } : {}),
  };
}

function serverFrom(name: string, entry: JsonObject, at: string, ctx: ConfigContext): ServerTarget {
  const type = transportTypeOf(entry, at);
  if (entry.command !== undefined) return stdioServer(name, entry, type, at, ctx);
  const urlKey = urlKeyOf(entry);
  if (urlKey !== undefined) return httpServer(name, entry, urlKey, type, at, ctx);
  if (type !== undefined && !HTTP_TYPES.includes(type) && type !== "stdio") {
    throw new EntryProblem(`${at} has an unknown type ${JSON.stringify(type)}`, at);
  }
  throw new EntryProblem(
    `${at} has neither "command" (stdio) nor "url" (Streamable HTTP)`,
    at,
  );
}

/**
 * Reads every server entry of a parsed client config without throwing on a bad entry: each
 * entry carries either its target or the problem that makes it unusable (a bad member, an
 * unsupported transport or variable). Disabled entries are read too.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when the document has no server object at all
 *
 * @example
 * ```ts
 * import { readConfigEntries } from "./read.ts";
 * const doc = { servers: { a: { type: "stdio", command: "srv", env: { K: "${env:K}" } } } };
 * readConfigEntries(doc, "mcp.json")[0].target?.identity;
 * // { transport: "stdio", command: ["srv"], env: { K: "${K}" } }
 * ```
 */
export function readConfigEntries(
  doc: JsonValue,
  source: string,
  ctx: ConfigContext = {},
): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  for (const set of serverSets(doc, source, ctx.projectDir)) {
    let servers: JsonValue = doc;
    for (const key of set) servers = (servers as JsonObject)[key];
    for (const [name, entry] of Object.entries(servers as JsonObject)) {
      const path = [...set, name];
      const at = jsonPointer(path);
      if (!isJsonObject(entry)) {
        out.push({ name, path, disabled: false, problem: `${at} must be an object`, field: at });
        continue;
      }
      const disabled = entry.disabled === true;
      const guarded = isGuarded(entry);
      try {
        const target = serverFrom(name, entry, at, ctx);
        out.push({ name, path, disabled, ...(guarded ? { guarded } : {}), target });
      } catch (e) {
        if (!(e instanceof EntryProblem)) throw e;
        out.push({ name, path, disabled, problem: e.message, field: e.field });
      }
    }
  }
  return out;
}

/**
 * Parses a client config (JSONC) and reads its entries ({@linkcode readConfigEntries}).
 *
 * @throws {SchemaPinError} `JSON_INVALID` (naming the file and byte offset) or `INPUT_INVALID`
 *
 * @example
 * ```ts
 * import { parseClientConfig } from "./read.ts";
 * const text = '{"servers": {"fs": {"command": "npx", "args": ["-y", "server-fs"],},}, // VS Code\n}';
 * parseClientConfig(new TextEncoder().encode(text), "mcp.json").entries[0].name; // "fs"
 * ```
 */
export function parseClientConfig(
  bytes: Uint8Array,
  source: string,
  ctx: ConfigContext = {},
): { doc: JsonValue; entries: ConfigEntry[] } {
  checkArg("parseClientConfig", "bytes", bytes, "bytes");
  checkArg("parseClientConfig", "source", source, "string");
  checkArg("parseClientConfig", "ctx", ctx, "object");
  const doc = parseJsonc(bytes, source);
  return { doc, entries: readConfigEntries(doc, source, ctx) };
}

/**
 * Parses an MCP client configuration into server targets, keyed by name. `disabled: true`
 * entries are skipped; any other entry that cannot be used is an error.
 *
 * @throws {SchemaPinError} `JSON_INVALID` (not JSON, or JSONC) or `INPUT_INVALID` (no
 * `mcpServers`/`servers` object, an entry that is neither stdio nor HTTP, wrong member types,
 * a name defined twice)
 *
 * @example
 * ```ts
 * import { parseMcpConfig } from "./read.ts";
 * const text = '{"mcpServers":{"fs":{"command":"npx","args":["-y","server-fs","/tmp"]}}}';
 * parseMcpConfig(new TextEncoder().encode(text), "mcp.json").get("fs")?.identity;
 * // { transport: "stdio", command: ["npx", "-y", "server-fs", "/tmp"] }
 * ```
 */
export function parseMcpConfig(
  bytes: Uint8Array,
  source: string,
  ctx: ConfigContext = {},
): Map<string, ServerTarget> {
  checkArg("parseMcpConfig", "bytes", bytes, "bytes");
  checkArg("parseMcpConfig", "source", source, "string");
  checkArg("parseMcpConfig", "ctx", ctx, "object");
  const out = new Map<string, ServerTarget>();
  for (const e of parseClientConfig(bytes, source, ctx).entries) {
    if (e.disabled) continue;
    if (e.problem !== undefined) {
      throw new SchemaPinError("INPUT_INVALID", `${source}: ${e.problem}`, {
        source,
        field: e.field,
      });
    }
    if (out.has(e.name)) {
      throw new SchemaPinError(
        "INPUT_INVALID",
        `${source}: server ${JSON.stringify(e.name)} is defined twice`,
        { source, field: jsonPointer(e.path) },
      );
    }
    out.set(e.name, e.target!);
  }
  return out;
}

/**
 * Reads an MCP client config with `read` ({@linkcode parseMcpConfig}, its variables resolved
 * as {@linkcode configContextFor} says); relative `cwd` values are resolved against its folder.
 *
 * @throws {SchemaPinError} what `read` throws (`IO_FAILED`), and as {@linkcode parseMcpConfig}
 *
 * @example
 * ```ts ignore
 * import { readConfig } from "./read.ts";
 * const servers = await readConfig(".mcp.json", (p) => Deno.readFile(p), { home: "/home/me" });
 * ```
 */
export async function readConfig(
  path: string,
  read: ReadInput,
  host: ConfigHost = {},
): Promise<Map<string, ServerTarget>> {
  const targets = parseMcpConfig(await read(path), path, configContextFor(path, ".", host));
  const dir = dirname(resolve(path));
  for (const [name, t] of targets) {
    if (t.identity.transport === "stdio" && t.identity.cwd !== undefined) {
      const cwd = t.identity.cwd;
      if (!isAbsolute(cwd) && !cwd.includes("${")) {
        targets.set(name, { ...t, identity: { ...t.identity, cwd: resolve(dir, cwd) } });
      }
    }
  }
  return targets;
}

/** A client config as read for editing. */
export interface ClientConfigFile {
  /** The path as given (for messages). */
  readonly path: string;
  /** The file the path leads to (a symlinked config is edited where it lives). */
  readonly real: string;
  /** Its permission bits, kept by every write. */
  readonly mode: number;
  /** Its text. */
  readonly text: string;
  /** The parsed document. */
  readonly doc: JsonValue;
  /** Its MCP server entries. */
  readonly entries: readonly ConfigEntry[];
}

/**
 * Parses a client config read from `file.path` (JSONC; strict: `JSON_INVALID` /
 * `INPUT_INVALID` name the file).
 *
 * @example
 * ```ts ignore
 * import { parseClientConfigFile } from "./read.ts";
 * const path = ".cursor/mcp.json";
 * const real = await Deno.realPath(path);
 * const config = parseClientConfigFile(await Deno.readFile(path), {
 *   path,
 *   real,
 *   mode: (await Deno.stat(real)).mode ?? 0o644,
 * }, { projectDir: "." });
 * ```
 */
export function parseClientConfigFile(
  bytes: Uint8Array,
  file: { path: string; real: string; mode: number },
  context: ConfigContext,
): ClientConfigFile {
  const { doc, entries } = parseClientConfig(bytes, file.path, context);
  const text = new TextDecoder().decode(bytes);
  return { path: file.path, real: file.real, mode: file.mode & 0o777, text, doc, entries };
}

/**
 * Reads the client config at `path` for editing: its bytes with `read` (errors name the file),
 * the file it leads to (a symlinked config is edited where it lives) and its permission bits,
 * parsed as {@linkcode parseClientConfigFile} does.
 *
 * @throws {SchemaPinError} what `read` throws; `IO_FAILED` when the file cannot be inspected;
 *   as {@linkcode parseClientConfigFile}; `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { readClientConfigFile } from "./read.ts";
 * const config = await readClientConfigFile(".cursor/mcp.json", (p) => Deno.readFile(p), {
 *   projectDir: ".",
 * });
 * config.entries.map((e) => e.name); // ["acme"]
 * ```
 */
export async function readClientConfigFile(
  path: string,
  read: ReadInput,
  context: ConfigContext,
): Promise<ClientConfigFile> {
  checkArg("readClientConfigFile", "path", path, "string");
  checkArg("readClientConfigFile", "read", read, "function");
  checkArg("readClientConfigFile", "context", context, "object");
  const bytes = await read(path);
  let real: string, mode: number;
  try {
    real = await Deno.realPath(path);
    mode = (await Deno.stat(real)).mode ?? 0o644;
  } catch (e) {
    throw new SchemaPinError("IO_FAILED", `cannot inspect ${path}: ${describeFsError(e)}`, {
      path,
    });
  }
  return parseClientConfigFile(bytes, { path, real, mode }, context);
}
