/**
 * Where MCP clients keep their server configurations, per platform, and how the servers of
 * several configs become one set of lock entries (`contract init --discover`).
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
 * tests (and other platforms) need no real home; {@linkcode discoverServers} reads the configs
 * through the caller's reader.
 *
 * @module
 */
import { dirname, isAbsolute, posix, resolve, win32 } from "node:path";
import { SchemaPinError, usageError } from "../../lib/errors.ts";
import { type ConfigContext, type ConfigEntry, parseClientConfig } from "./config.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";
import { prepareTarget, type ServerTarget } from "../../lib/contractpin/live.ts";
import { lockRelative } from "../../lib/contractpin/lock.ts";
import { type EnvLookup, processEnv, sanitizeIdentity } from "../../lib/contractpin/secrets.ts";
import { sameIdentity } from "../../lib/contractpin/verify.ts";
import { checkArg } from "../../lib/arguments.ts";

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
 * import { discoveryEnvironmentOf } from "./discover.ts";
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

/**
 * Every location where a client may keep MCP servers on this platform, project configs
 * first (their servers keep their plain names when several configs use the same name).
 *
 * @example
 * ```ts
 * import { clientConfigLocations } from "./discover.ts";
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
  const at = (
    client: McpClient,
    id: string,
    label: string,
    scope: "project" | "user",
    ...parts: string[]
  ): ClientConfigLocation => ({ client, id, label, scope, path: p.join(...parts) });
  return [
    at(
      "claude-code",
      "claude-code-project",
      "Claude Code (project)",
      "project",
      project,
      ".mcp.json",
    ),
    at("cursor", "cursor-project", "Cursor (project)", "project", project, ".cursor", "mcp.json"),
    at(
      "vscode",
      "vscode-workspace",
      "VS Code (workspace)",
      "project",
      project,
      ".vscode",
      "mcp.json",
    ),
    at(
      "claude-desktop",
      "claude-desktop",
      "Claude Desktop",
      "user",
      appConfig,
      "Claude",
      "claude_desktop_config.json",
    ),
    at(
      "claude-code",
      "claude-code-user",
      "Claude Code (user and local)",
      "user",
      home,
      ".claude.json",
    ),
    at("cursor", "cursor-user", "Cursor (user)", "user", home, ".cursor", "mcp.json"),
    at("vscode", "vscode-user", "VS Code (user)", "user", codeUser, "mcp.json"),
    at("windsurf", "windsurf", "Windsurf", "user", home, ".codeium", "windsurf", "mcp_config.json"),
    at(
      "cline",
      "cline",
      "Cline (VS Code)",
      "user",
      codeUser,
      "globalStorage",
      "saoudrizwan.claude-dev",
      "settings",
      "cline_mcp_settings.json",
    ),
    at(
      "cline",
      "cline-cli",
      "Cline (CLI)",
      "user",
      home,
      ".cline",
      "data",
      "settings",
      "cline_mcp_settings.json",
    ),
  ];
}

/** A config that was found, with its entries. */
export interface FoundConfig {
  /** Where it is. */
  readonly location: ClientConfigLocation;
  /** Its server entries. */
  readonly entries: readonly ConfigEntry[];
}

/** A discovered server to pin. */
export interface DiscoveredServer {
  /** The server's name in its config. */
  readonly configName: string;
  /** The lock entry's name: the config's name, or `name@<location id>` when taken. */
  readonly lockName: string;
  /** The server (named `lockName`). */
  readonly target: ServerTarget;
  /** The config it comes from. */
  readonly from: ClientConfigLocation;
  /** Other configs defining the same server under the same name. */
  readonly alsoIn: ClientConfigLocation[];
}

/** A discovered server that is not pinned, and why. */
export interface SkippedServer {
  /** The server's name in its config. */
  readonly name: string;
  /** The config. */
  readonly from: ClientConfigLocation;
  /** Why. */
  readonly reason: string;
}

function sameServer(a: ServerTarget, b: ServerTarget): boolean {
  return sameIdentity(a.identity, b.identity) &&
    JSON.stringify(a.headers ?? []) === JSON.stringify(b.headers ?? []) &&
    (a.httpTransport ?? null) === (b.httpTransport ?? null);
}

/**
 * Turns the entries of the configs found into lock entries: disabled and unusable entries
 * are skipped with their reason; a name used by several configs for the same server is
 * pinned once; a name used for different servers keeps its plain name for the first config
 * (in {@linkcode clientConfigLocations} order) and becomes `name@<location id>` for the
 * others — `schemapin guard wrap` finds such an entry by its identity.
 *
 * @example
 * ```ts ignore
 * const { servers, skipped } = planDiscovery(found);
 * ```
 */
export function planDiscovery(
  found: readonly FoundConfig[],
): { servers: DiscoveredServer[]; skipped: SkippedServer[] } {
  const servers: DiscoveredServer[] = [];
  const skipped: SkippedServer[] = [];
  const byName = new Map<string, DiscoveredServer>();
  for (const { location, entries } of found) {
    for (const e of entries) {
      if (e.disabled) {
        skipped.push({ name: e.name, from: location, reason: "disabled in the config" });
        continue;
      }
      if (e.target === undefined) {
        skipped.push({ name: e.name, from: location, reason: e.problem ?? "unusable" });
        continue;
      }
      const same = servers.find((s) =>
        (s.lockName === e.name || s.lockName.startsWith(`${e.name}@`)) &&
        sameServer(s.target, e.target!)
      );
      if (same) {
        same.alsoIn.push(location);
        continue;
      }
      let lockName = e.name;
      for (let k = 1; byName.has(lockName); k++) {
        lockName = `${e.name}@${location.id}${k > 1 ? `-${k}` : ""}`;
      }
      const s: DiscoveredServer = {
        configName: e.name,
        lockName,
        target: { ...e.target, name: lockName },
        from: location,
        alsoIn: [],
      };
      servers.push(s);
      byName.set(lockName, s);
    }
  }
  return { servers, skipped };
}

/** The configs found, the servers to pin and the ones skipped. */
export interface Discovery {
  /** Every location looked at. */
  readonly looked: ClientConfigLocation[];
  /** The configs that exist, with their entries. */
  readonly found: FoundConfig[];
  /** Servers to pin (already checked: variables set, no literal credential). */
  readonly servers: DiscoveredServer[];
  /** Servers left out, with the reason. */
  readonly skipped: SkippedServer[];
}

/** Options of {@linkcode discoverServers}. */
export interface DiscoverOptions {
  /** The lock the servers are pinned into: a relative `cwd` is stored relative to it. */
  readonly lockPath: string;
  /** Keep a server whose command holds a literal credential (contractpin §5). */
  readonly allowLiteralSecrets?: boolean;
  /** Where `${VAR}` values come from (default: the process environment). */
  readonly env?: EnvLookup;
}

/**
 * Reads every client config of `denv` that exists and plans its servers
 * ({@linkcode planDiscovery}); a server that cannot run here (an unset variable, a literal
 * credential, …) is skipped with the reason. A relative `cwd` is relative to its config's
 * folder, and is stored relative to the lock.
 *
 * @throws {SchemaPinError} for a config that cannot be read or parsed, naming the file (and
 *   byte offset)
 *
 * @example
 * ```ts ignore
 * import { discoverServers } from "./discover.ts";
 * const d = await discoverServers(
 *   { home: "/home/me", platform: "linux", projectDir: "/src/app" },
 *   { lockPath: "contractpin.lock" },
 *   files,
 * );
 * for (const s of d.skipped) console.log(`skipped ${s.name}: ${s.reason}`);
 * ```
 */
export async function discoverServers(
  denv: DiscoveryEnvironment,
  options: DiscoverOptions,
  files: Pick<ContractFiles, "read" | "exists">,
): Promise<Discovery> {
  checkArg("discoverServers", "denv", denv, "object");
  checkArg("discoverServers", "options", options, "object");
  checkArg("discoverServers", "files", files, "object");
  const env = options.env ?? processEnv;
  const looked = clientConfigLocations(denv);
  const found: FoundConfig[] = [];
  const ctx: ConfigContext = {
    projectDir: denv.projectDir,
    home: denv.home,
    env,
    separator: denv.platform === "windows" ? "\\" : "/",
  };
  for (const location of looked) {
    if (!(await files.exists(location.path))) continue;
    const { entries } = parseClientConfig(await files.read(location.path), location.path, ctx);
    // A relative cwd is relative to the config's folder (as with --config), then to the lock.
    const dir = dirname(location.path);
    found.push({
      location,
      entries: entries.map((e) => {
        const id = e.target?.identity;
        if (id?.transport !== "stdio" || id.cwd === undefined) return e;
        const cwd = isAbsolute(id.cwd) || id.cwd.includes("${") ? id.cwd : resolve(dir, id.cwd);
        const identity = { ...id, cwd: lockRelative(cwd, options.lockPath) };
        return { ...e, target: { ...e.target!, identity } };
      }),
    });
  }
  const plan = planDiscovery(found);
  const servers: DiscoveredServer[] = [];
  const skipped = [...plan.skipped];
  const baseDir = dirname(resolve(options.lockPath));
  for (const s of plan.servers) {
    try {
      prepareTarget({ ...s.target, baseDir }, env);
      sanitizeIdentity(s.target.identity, {
        server: s.lockName,
        allowLiteralSecrets: options.allowLiteralSecrets === true,
      });
      servers.push(s);
    } catch (e) {
      if (!(e instanceof SchemaPinError)) throw e;
      skipped.push({ name: s.configName, from: s.from, reason: e.message });
    }
  }
  return { looked, found, servers, skipped };
}
