/**
 * Reading servers from an MCP client configuration file — the common JSON shape
 * `{"mcpServers": {"name": {"command": …, "args": […], "env": {…}, "cwd": …}}}` for stdio and
 * `{"url": …, "headers": {…}}` (with `type` `http` / `streamable-http` / `streamableHttp` or
 * none; `sse` for the legacy HTTP+SSE transport; Windsurf spells the URL `serverUrl`) for HTTP,
 * VS Code's
 * `{"servers": {…}}`, and Claude Code's `~/.claude.json` (user servers in `mcpServers`, a
 * project's own in `projects[<folder>].mcpServers`).
 *
 * Client configs are JSONC (comments and trailing commas, {@linkcode parseJsonc}); everything
 * else is strict: duplicate names are errors. The clients' own variable forms are turned into
 * contractpin's `${VAR}` references: `${env:NAME}` (VS Code, Cursor, Windsurf) → `${NAME}`,
 * `${NAME:-default}` (Claude Code) → `${NAME}` when set, else the default; `${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${userHome}` and `${pathSeparator}` are resolved;
 * `${input:…}` (VS Code asks the user) cannot be.
 *
 * An entry that runs its server through `schemapin guard` (`guard wrap`) is read as that
 * server: the command after `--`, or the URL after `#schemapin-upstream=` — so pinning,
 * verifying and discovering give the same entries before and after wrapping.
 *
 * @module
 */
import { basename, dirname, isAbsolute, resolve } from "node:path";
import { SchemaPinError } from "../../lib/errors.ts";
import { parseJsonc } from "../json/jsonc.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { isJsonObject } from "../../lib/contractpin/contract.ts";
import type { ServerTarget } from "../../lib/contractpin/live.ts";
import {
  type EnvLookup,
  parseEndpoint,
  parseHeader,
  processEnv,
} from "../../lib/contractpin/secrets.ts";
import { checkArg } from "../../lib/arguments.ts";
import type { ReadInput } from "../../lib/schema/input.ts";
import { readEnv } from "../../lib/runtime/fs.ts";
import { isWindows } from "../../lib/runtime/process.ts";

/** How the variables of a client config resolve (all optional). */
export interface ConfigContext {
  /**
   * The project folder: `${workspaceFolder}`, and the servers Claude Code keeps for this
   * project in `~/.claude.json` (`projects[<folder>].mcpServers`).
   */
  readonly projectDir?: string;
  /** The home folder, for `${userHome}`. */
  readonly home?: string;
  /** Which variables are set, for `${NAME:-default}` (default: the process environment). */
  readonly env?: EnvLookup;
  /** `${pathSeparator}` / `${/}` (default `/`). */
  readonly separator?: string;
}

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

class EntryProblem extends Error {
  constructor(message: string, readonly field: string) {
    super(message);
  }
}

function pointer(path: readonly string[]): string {
  return "/" + path.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
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

const VARIABLE = /\$\{([^{}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Rewrites a client's variable forms into contractpin's `${NAME}` (see the module text).
 *
 * @throws {Error} (an entry problem) for `${input:…}` and forms that cannot be resolved
 */
function normalizeVariables(value: string, ctx: ConfigContext, at: string): string {
  return value.replace(VARIABLE, (whole, inner: string) => {
    // The editors' predefined variables first (no one names an environment variable so).
    if (inner === "userHome" && ctx.home !== undefined) return ctx.home;
    if (inner === "workspaceFolder" && ctx.projectDir !== undefined) return ctx.projectDir;
    if (inner === "workspaceFolderBasename" && ctx.projectDir !== undefined) {
      return basename(ctx.projectDir);
    }
    if (inner === "pathSeparator" || inner === "/") return ctx.separator ?? "/";
    if (NAME.test(inner)) return whole;
    const env = /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(inner);
    if (env) return `\${${env[1]}}`;
    const fallback = /^([A-Za-z_][A-Za-z0-9_]*):-(.*)$/s.exec(inner);
    if (fallback) {
      return (ctx.env ?? processEnv)(fallback[1]) !== undefined
        ? `\${${fallback[1]}}`
        : fallback[2];
    }
    if (inner.startsWith("input:")) {
      throw new EntryProblem(
        `${at} uses ${whole}, which the client asks the user for when it starts the server; ` +
          `contractpin cannot ask: put the value in an environment variable and write ` +
          `\${env:NAME} instead`,
        at,
      );
    }
    throw new EntryProblem(`${at} uses ${whole}, which contractpin cannot resolve`, at);
  });
}

/** The transport member of an entry: `type`, `transport` or (Cline) `transportType`. */
function typeOf(entry: JsonObject, at: string): string | undefined {
  for (const key of ["type", "transport", "transportType"]) {
    const v = entry[key];
    if (v === undefined) continue;
    if (typeof v !== "string") throw new EntryProblem(`${at}/${key} must be a string`, at);
    return v;
  }
  return undefined;
}

/**
 * The fragment that marks a URL pointed at a loopback `schemapin guard` (`guard wrap`): the
 * original URL follows it. HTTP clients never send a fragment.
 */
export const GUARD_UPSTREAM_MARK = "#schemapin-upstream=";

/** A stdio entry that runs its server through `schemapin guard`. */
export interface GuardedCommand {
  /** The server's own command and arguments (after `--`). */
  readonly original: string[];
  /** `--server` of the guard, when given. */
  readonly lockName?: string;
  /** `--lock` of the guard, when given. */
  readonly lockPath?: string;
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
}

/**
 * Reads a stdio entry as a guard in front of a server: `schemapin … guard [options] -- CMD
 * ARGS…` (the program is named schemapin, or the arguments before `guard` run a `cli.ts`) —
 * as `guard wrap` writes it, or as put in by hand.
 *
 * @example
 * ```ts
 * import { readGuardedCommand } from "./config.ts";
 * readGuardedCommand("/usr/local/bin/schemapin", ["guard", "--server", "fs", "--", "npx", "fs"]);
 * // { original: ["npx", "fs"], lockName: "fs", lockPath: undefined }
 * ```
 */
export function readGuardedCommand(
  command: string,
  args: readonly string[],
): GuardedCommand | undefined {
  for (let g = args.indexOf("guard"); g !== -1; g = args.indexOf("guard", g + 1)) {
    const prefix = args.slice(0, g);
    const isSchemapin = /schemapin/i.test(baseName(command)) ||
      prefix.some((a) => /(^|[/\\])cli\.ts$/.test(a));
    const dash = args.indexOf("--", g + 1);
    if (!isSchemapin || dash === -1 || dash === args.length - 1) continue;
    const options = args.slice(g + 1, dash);
    const value = (flag: string) => {
      const k = options.indexOf(flag);
      return k === -1 ? undefined : options[k + 1];
    };
    return {
      original: args.slice(dash + 1),
      lockName: value("--server"),
      lockPath: value("--lock"),
    };
  }
  return undefined;
}

/**
 * The original URL of an entry pointed at a loopback guard, or `undefined`.
 *
 * @example
 * ```ts
 * import { readGuardedUrl } from "./config.ts";
 * readGuardedUrl("http://127.0.0.1:8931/mcp#schemapin-upstream=https://mcp.example.com/mcp");
 * // "https://mcp.example.com/mcp"
 * ```
 */
export function readGuardedUrl(url: string): string | undefined {
  const k = url.indexOf(GUARD_UPSTREAM_MARK);
  return k === -1 ? undefined : url.slice(k + GUARD_UPSTREAM_MARK.length);
}

/** `type` values of HTTP entries (clients spell Streamable HTTP several ways). */
const HTTP_TYPES = ["http", "streamable-http", "streamableHttp", "sse"];

/** The member holding an HTTP entry's URL: `url`, or Windsurf's `serverUrl`. */
export function urlKeyOf(entry: JsonObject): "url" | "serverUrl" | undefined {
  if (typeof entry.url === "string") return "url";
  if (typeof entry.serverUrl === "string") return "serverUrl";
  return undefined;
}

function serverFrom(name: string, entry: JsonObject, at: string, ctx: ConfigContext): ServerTarget {
  const type = typeOf(entry, at);
  const norm = (v: string, where: string) => normalizeVariables(v, ctx, where);
  if (entry.command !== undefined) {
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
  const urlKey = urlKeyOf(entry);
  if (urlKey !== undefined) {
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
  if (type !== undefined && !HTTP_TYPES.includes(type) && type !== "stdio") {
    throw new EntryProblem(`${at} has an unknown type ${JSON.stringify(type)}`, at);
  }
  throw new EntryProblem(
    `${at} has neither "command" (stdio) nor "url" (Streamable HTTP)`,
    at,
  );
}

function isGuarded(entry: JsonObject): boolean {
  if (typeof entry.command === "string" && Array.isArray(entry.args)) {
    const args = entry.args;
    return args.every((a) => typeof a === "string") &&
      readGuardedCommand(entry.command, args as string[]) !== undefined;
  }
  const key = urlKeyOf(entry);
  return key !== undefined && readGuardedUrl(entry[key] as string) !== undefined;
}

/**
 * The member paths of the server objects in a client config: `mcpServers`, VS Code's
 * `servers`, and Claude Code's `projects[<projectDir>].mcpServers`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when there is none, or one is not an object
 */
export function serverSets(doc: JsonValue, source: string, ctx: ConfigContext = {}): string[][] {
  const bad = (message: string, field: string) =>
    new SchemaPinError("INPUT_INVALID", `${source}: ${message}`, { source, field });
  if (!isJsonObject(doc)) {
    throw bad('expected an object with an "mcpServers" object (or VS Code\'s "servers")', "");
  }
  const sets: string[][] = [];
  for (const key of ["mcpServers", "servers"]) {
    if (doc[key] === undefined) continue;
    if (!isJsonObject(doc[key])) throw bad(`/${key} must be an object`, `/${key}`);
    sets.push([key]);
  }
  const projects = doc.projects;
  if (ctx.projectDir !== undefined && isJsonObject(projects)) {
    const project = projects[ctx.projectDir];
    if (isJsonObject(project) && project.mcpServers !== undefined) {
      const at = ["projects", ctx.projectDir, "mcpServers"];
      if (!isJsonObject(project.mcpServers)) throw bad(`${pointer(at)} must be an object`, "");
      sets.push(at);
    }
  }
  if (sets.length === 0 && !isJsonObject(projects)) {
    throw bad(
      'expected an object with an "mcpServers" object (or VS Code\'s "servers")',
      "/mcpServers",
    );
  }
  return sets;
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
 * import { readConfigEntries } from "./config.ts";
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
  for (const set of serverSets(doc, source, ctx)) {
    let servers: JsonValue = doc;
    for (const key of set) servers = (servers as JsonObject)[key];
    for (const [name, entry] of Object.entries(servers as JsonObject)) {
      const path = [...set, name];
      const at = pointer(path);
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
 * import { parseClientConfig } from "./config.ts";
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
 * import { parseMcpConfig } from "./config.ts";
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
        { source, field: pointer(e.path) },
      );
    }
    out.set(e.name, e.target!);
  }
  return out;
}

/** The machine a client config is read on: the home folder and whether it is Windows. */
export interface ConfigHost {
  /** The home folder (`$HOME`, `%USERPROFILE%`), for `${userHome}`. */
  readonly home?: string;
  /** Windows: `${pathSeparator}` is a backslash. */
  readonly windows?: boolean;
}

/**
 * The machine this process runs on, for the client configs' variables: the home folder
 * (`$HOME`, on Windows `%USERPROFILE%`; none when unset or empty) and the platform.
 *
 * @example
 * ```ts
 * import { processConfigHost } from "./config.ts";
 * processConfigHost().windows; // false on Linux and macOS
 * ```
 */
export function processConfigHost(): ConfigHost {
  const home = readEnv(isWindows ? "USERPROFILE" : "HOME");
  return { ...(home ? { home } : {}), windows: isWindows };
}

/**
 * How the variables of the client config at `path` resolve: `${workspaceFolder}` is the folder
 * holding its `.vscode/` or `.cursor/` (or `.mcp.json`), else `project`; `${userHome}` is the
 * home folder; Claude Code's per-project servers are those of `project`.
 *
 * @example
 * ```ts
 * import { configContextFor } from "./config.ts";
 * configContextFor("/work/app/.vscode/mcp.json", ".", { home: "/home/me" });
 * // { projectDir: "/work/app", home: "/home/me", separator: "/" }
 * ```
 */
export function configContextFor(
  path: string,
  project = ".",
  host: ConfigHost = {},
): ConfigContext {
  const dir = dirname(resolve(path));
  const projectDir = [".vscode", ".cursor"].includes(basename(dir))
    ? dirname(dir)
    : basename(path) === ".mcp.json"
    ? dir
    : resolve(project);
  const { home } = host;
  return { projectDir, ...(home ? { home } : {}), separator: host.windows ? "\\" : "/" };
}

/**
 * Reads an MCP client config with `read` ({@linkcode parseMcpConfig}, its variables resolved
 * as {@linkcode configContextFor} says); relative `cwd` values are resolved against its folder.
 *
 * @throws {SchemaPinError} what `read` throws (`IO_FAILED`), and as {@linkcode parseMcpConfig}
 *
 * @example
 * ```ts ignore
 * import { readConfig } from "./config.ts";
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
