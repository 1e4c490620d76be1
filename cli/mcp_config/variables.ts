/**
 * How the variables of an MCP client config resolve. The clients' own variable forms are turned
 * into contractpin's `${VAR}` references: `${env:NAME}` (VS Code, Cursor, Windsurf) → `${NAME}`,
 * `${NAME:-default}` (Claude Code) → `${NAME}` when set, else the default; `${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${userHome}` and `${pathSeparator}` are resolved;
 * `${input:…}` (VS Code asks the user) cannot be.
 *
 * @module
 */
import { basename, dirname, resolve } from "node:path";
import { type EnvLookup, processEnv } from "../../lib/contractpin/secrets.ts";
import { readEnv } from "../../lib/runtime/fs.ts";
import { isWindows } from "../../lib/runtime/process.ts";
import { EntryProblem } from "./formats.ts";

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

const VARIABLE = /\$\{([^{}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Rewrites a client's variable forms in `value` (the member at pointer `at`) into
 * contractpin's `${NAME}` (see the module text).
 *
 * @throws {EntryProblem} for `${input:…}` and forms that cannot be resolved
 *
 * @example
 * ```ts
 * import { normalizeVariables } from "./variables.ts";
 * normalizeVariables("${workspaceFolder}/db?key=${env:KEY}", { projectDir: "/src/app" }, "/x");
 * // "/src/app/db?key=${KEY}"
 * ```
 */
export function normalizeVariables(value: string, ctx: ConfigContext, at: string): string {
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
 * import { processConfigHost } from "./variables.ts";
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
 * import { configContextFor } from "./variables.ts";
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
