/**
 * What MCP client configuration files look like, and where each client keeps its file.
 *
 * The formats: the common JSON shape
 * `{"mcpServers": {"name": {"command": …, "args": […], "env": {…}, "cwd": …}}}` for stdio and
 * `{"url": …, "headers": {…}}` (with `type` `http` / `streamable-http` / `streamableHttp` or
 * none; `sse` for the legacy HTTP+SSE transport; Windsurf spells the URL `serverUrl`) for HTTP,
 * VS Code's `{"servers": {…}}`, and Claude Code's `~/.claude.json` (user servers in
 * `mcpServers`, a project's own in `projects[<folder>].mcpServers`). Client configs are JSONC
 * (comments and trailing commas).
 *
 * Locations, from each client's documentation:
 *
 * | client | scope | file |
 * | --- | --- | --- |
 * | Claude Code | project | `<project>/.mcp.json` (`mcpServers`) |
 * | Cursor | project | `<project>/.cursor/mcp.json` (`mcpServers`) |
 * | VS Code | workspace | `<project>/.vscode/mcp.json` (`servers`, JSONC) |
 * | Claude Desktop | user | macOS `~/Library/Application Support/Claude/claude_desktop_config.json`, Windows `%APPDATA%\Claude\claude_desktop_config.json`, Linux (unofficial builds) `$XDG_CONFIG_HOME/Claude/claude_desktop_config.json` |
 * | Claude Code | user, local | `~/.claude.json`: `mcpServers` (user scope) and `projects[<project>].mcpServers` (local scope) |
 * | Cursor | user | `~/.cursor/mcp.json` |
 * | VS Code | user | the profile's `mcp.json`: macOS `~/Library/Application Support/Code/User/mcp.json`, Windows `%APPDATA%\Code\User\mcp.json`, Linux `$XDG_CONFIG_HOME/Code/User/mcp.json` |
 * | Windsurf | user | `~/.codeium/windsurf/mcp_config.json` (`serverUrl` for HTTP) |
 * | Cline | user | the VS Code extension's `<Code/User>/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json`; the Cline CLI's `~/.cline/data/settings/cline_mcp_settings.json` |
 *
 * Everything here is pure: the home folder, platform and project folder are parameters, so
 * tests (and other platforms) need no real home.
 *
 * @module
 */
import { isAbsolute, posix, resolve, win32 } from "node:path";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { isJsonObject } from "../../lib/contractpin/contract.ts";
import type { EnvLookup } from "../../lib/contractpin/secrets.ts";
import { checkArg } from "../../lib/arguments.ts";

/**
 * Why one server entry cannot be used (no file name in front), with the JSON pointer of the
 * member at fault. Readers catch it and keep it with the entry; it never leaves this folder.
 *
 * @example
 * ```ts
 * import { EntryProblem } from "./formats.ts";
 * new EntryProblem("/mcpServers/fs/args must be an array of strings", "/mcpServers/fs/args")
 *   .field; // "/mcpServers/fs/args"
 * ```
 */
export class EntryProblem extends Error {
  /** The problem and the pointer of the member at fault. */
  constructor(message: string, readonly field: string) {
    super(message);
  }
}

/**
 * The JSON pointer of a member path (RFC 6901: `~` and `/` escaped).
 *
 * @example
 * ```ts
 * import { jsonPointer } from "./formats.ts";
 * jsonPointer(["mcpServers", "a/b"]); // "/mcpServers/a~1b"
 * ```
 */
export function jsonPointer(path: readonly string[]): string {
  return "/" + path.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

/**
 * The value at member path `path` of `doc`, if every step is an object holding the next.
 *
 * @example
 * ```ts
 * import { valueIn } from "./formats.ts";
 * valueIn({ mcpServers: { fs: { command: "npx" } } }, ["mcpServers", "fs", "command"]); // "npx"
 * ```
 */
export function valueIn(doc: JsonValue, path: readonly string[]): JsonValue | undefined {
  let v: JsonValue | undefined = doc;
  for (const key of path) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
    v = (v as JsonObject)[key];
  }
  return v;
}

/**
 * The object at member path `path` of `doc`, if there is one.
 *
 * @example
 * ```ts
 * import { objectAt } from "./formats.ts";
 * objectAt({ servers: { fs: { command: "npx" } } }, ["servers", "fs"]); // { command: "npx" }
 * ```
 */
export function objectAt(doc: JsonValue, path: readonly string[]): JsonObject | undefined {
  const v = valueIn(doc, path);
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v as JsonObject : undefined;
}

/**
 * The member holding an HTTP entry's URL: `url`, or Windsurf's `serverUrl`.
 *
 * @example
 * ```ts
 * import { urlKeyOf } from "./formats.ts";
 * urlKeyOf({ serverUrl: "https://mcp.example.com/mcp" }); // "serverUrl"
 * ```
 */
export function urlKeyOf(entry: JsonObject): "url" | "serverUrl" | undefined {
  if (typeof entry.url === "string") return "url";
  if (typeof entry.serverUrl === "string") return "serverUrl";
  return undefined;
}

/** `type` values of HTTP entries (clients spell Streamable HTTP several ways). */
export const HTTP_TYPES: readonly string[] = ["http", "streamable-http", "streamableHttp", "sse"];

/**
 * The transport member of an entry: `type`, `transport` or (Cline) `transportType`.
 *
 * @throws {EntryProblem} when it is not a string
 *
 * @example
 * ```ts
 * import { transportTypeOf } from "./formats.ts";
 * transportTypeOf({ transportType: "sse", url: "https://x/sse" }, "/mcpServers/x"); // "sse"
 * ```
 */
export function transportTypeOf(entry: JsonObject, at: string): string | undefined {
  for (const key of ["type", "transport", "transportType"]) {
    const v = entry[key];
    if (v === undefined) continue;
    if (typeof v !== "string") throw new EntryProblem(`${at}/${key} must be a string`, at);
    return v;
  }
  return undefined;
}

/**
 * The member paths of the server objects in a client config: `mcpServers`, VS Code's
 * `servers`, and Claude Code's `projects[<projectDir>].mcpServers`.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` when there is none, or one is not an object
 *
 * @example
 * ```ts
 * import { serverSets } from "./formats.ts";
 * const doc = { mcpServers: {}, projects: { "/src/app": { mcpServers: {} } } };
 * serverSets(doc, "~/.claude.json", "/src/app");
 * // [["mcpServers"], ["projects", "/src/app", "mcpServers"]]
 * ```
 */
export function serverSets(doc: JsonValue, source: string, projectDir?: string): string[][] {
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
  if (projectDir !== undefined && isJsonObject(projects)) {
    const project = projects[projectDir];
    if (isJsonObject(project) && project.mcpServers !== undefined) {
      const at = ["projects", projectDir, "mcpServers"];
      if (!isJsonObject(project.mcpServers)) throw bad(`${jsonPointer(at)} must be an object`, "");
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

/** An MCP client whose configuration files are known. */
export type McpClient =
  | "claude-desktop"
  | "claude-code"
  | "cursor"
  | "vscode"
  | "windsurf"
  | "cline";

/** One place a client keeps MCP servers. */
export interface ClientConfigLocation {
  /** The client. */
  readonly client: McpClient;
  /** Short unique id of this location (`cursor-project`, `vscode-user`, …). */
  readonly id: string;
  /** For people: "Cursor (project)". */
  readonly label: string;
  /** `project` files live in the project folder; `user` files in the home folder. */
  readonly scope: "project" | "user";
  /** Absolute path of the file. */
  readonly path: string;
}

/** What the locations depend on. */
export interface DiscoveryEnvironment {
  /** The user's home folder. */
  readonly home: string;
  /** The platform (`Deno.build.os`); anything else is treated as Linux. */
  readonly platform: string;
  /** The project folder (project-scoped configs). */
  readonly projectDir: string;
  /** `%APPDATA%` on Windows (default `<home>\AppData\Roaming`). */
  readonly appData?: string;
  /** `$XDG_CONFIG_HOME` on Linux (default `<home>/.config`). */
  readonly xdgConfigHome?: string;
}

/**
 * The discovery environment of a process on `platform` (`Deno.build.os`) whose environment
 * is `env`: the home folder (`$HOME`; on Windows `%USERPROFILE%`, else `$HOME`), `%APPDATA%`,
 * `$XDG_CONFIG_HOME` (empty: unset), and `projectDir` made absolute.
 *
 * @throws {SchemaPinError} a usage error (`usageError` of lib/errors.ts) when the home folder is
 *   not set to an absolute path; `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts
 * import { discoveryEnvironmentOf } from "./formats.ts";
 * const env = (name: string) => (name === "HOME" ? "/home/me" : undefined);
 * discoveryEnvironmentOf("/src/app", env, "linux");
 * // { home: "/home/me", platform: "linux", projectDir: "/src/app", appData: undefined,
 * //   xdgConfigHome: undefined }
 * ```
 */
export function discoveryEnvironmentOf(
  projectDir: string,
  env: EnvLookup,
  platform: string,
): DiscoveryEnvironment {
  checkArg("discoveryEnvironmentOf", "projectDir", projectDir, "string");
  checkArg("discoveryEnvironmentOf", "env", env, "function");
  checkArg("discoveryEnvironmentOf", "platform", platform, "string");
  const windows = platform === "windows";
  const home = (windows ? env("USERPROFILE") ?? env("HOME") : env("HOME")) ?? "";
  if (home === "" || !isAbsolute(home)) {
    throw usageError(
      `the home folder is unknown (${
        windows ? "%USERPROFILE%" : "$HOME"
      } is not set to an absolute path)`,
    );
  }
  return {
    home,
    platform,
    projectDir: resolve(projectDir),
    appData: env("APPDATA") || undefined,
    xdgConfigHome: env("XDG_CONFIG_HOME") || undefined,
  };
}

/** Each location: client, id, label, scope, then the folder it is under and the path below. */
type LocationRow = readonly [McpClient, string, string, "project" | "user", string, ...string[]];

/**
 * Every location where a client may keep MCP servers on this platform, project configs
 * first (their servers keep their plain names when several configs use the same name).
 *
 * @example
 * ```ts
 * import { clientConfigLocations } from "./formats.ts";
 * const all = clientConfigLocations({ home: "/home/me", platform: "linux", projectDir: "/src/app" });
 * all.find((l) => l.id === "cursor-user")?.path; // "/home/me/.cursor/mcp.json"
 * ```
 */
export function clientConfigLocations(env: DiscoveryEnvironment): ClientConfigLocation[] {
  checkArg("clientConfigLocations", "env", env, "object");
  checkArg("clientConfigLocations", "env.home", env.home, "string");
  checkArg("clientConfigLocations", "env.platform", env.platform, "string");
  checkArg("clientConfigLocations", "env.projectDir", env.projectDir, "string");
  const windows = env.platform === "windows";
  const p = windows ? win32 : posix;
  const home = env.home;
  const project = env.projectDir;
  // Where applications keep per-user settings: Claude Desktop and VS Code (and its extensions).
  const appConfig = windows
    ? env.appData ?? p.join(home, "AppData", "Roaming")
    : env.platform === "darwin"
    ? p.join(home, "Library", "Application Support")
    : env.xdgConfigHome ?? p.join(home, ".config");
  const codeUser = p.join(appConfig, "Code", "User");
  const clineSettings = ["settings", "cline_mcp_settings.json"];
  const rows: LocationRow[] = [
    [
      "claude-code",
      "claude-code-project",
      "Claude Code (project)",
      "project",
      project,
      ".mcp.json",
    ],
    ["cursor", "cursor-project", "Cursor (project)", "project", project, ".cursor", "mcp.json"],
    [
      "vscode",
      "vscode-workspace",
      "VS Code (workspace)",
      "project",
      project,
      ".vscode",
      "mcp.json",
    ],
    [
      "claude-desktop",
      "claude-desktop",
      "Claude Desktop",
      "user",
      appConfig,
      "Claude",
      "claude_desktop_config.json",
    ],
    [
      "claude-code",
      "claude-code-user",
      "Claude Code (user and local)",
      "user",
      home,
      ".claude.json",
    ],
    ["cursor", "cursor-user", "Cursor (user)", "user", home, ".cursor", "mcp.json"],
    ["vscode", "vscode-user", "VS Code (user)", "user", codeUser, "mcp.json"],
    ["windsurf", "windsurf", "Windsurf", "user", home, ".codeium", "windsurf", "mcp_config.json"],
    [
      "cline",
      "cline",
      "Cline (VS Code)",
      "user",
      codeUser,
      "globalStorage",
      "saoudrizwan.claude-dev",
      ...clineSettings,
    ],
    ["cline", "cline-cli", "Cline (CLI)", "user", home, ".cline", "data", ...clineSettings],
  ];
  return rows.map(([client, id, label, scope, ...parts]) => ({
    client,
    id,
    label,
    scope,
    path: p.join(...parts),
  }));
}
