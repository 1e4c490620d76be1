/**
 * The `schemapin` a client config should start: the one found on PATH, as `command -v schemapin`
 * finds it (the absolute path of the PATH entry; a symlink is kept as the path found, so an
 * upgrade that moves its target is followed). A candidate inside a package-manager cache (npx's
 * `_npx/`, `node_modules/`, `~/.npm/`, `~/.cache/`, the Deno cache) is not usable: that path
 * disappears when the cache is cleaned, and the client config would then start nothing. Nor is
 * a script that cannot start: a missing `#!` interpreter, or a program it `exec`s that PATH does
 * not hold outside such a cache (`deno task install`'s command run under npx needs `deno`).
 *
 * @module
 */
import { delimiter, isAbsolute, join, resolve, sep } from "node:path";
import { checkArg } from "../../lib/arguments.ts";
import { usageError } from "../../lib/errors.ts";

/**
 * One `schemapin` seen on PATH.
 *
 * @example
 * ```ts
 * import type { PathCandidate } from "./schemapin_path.ts";
 * const seen: PathCandidate = {
 *   path: "/tmp/_npx/1/schemapin",
 *   rejected: "inside a package-manager cache (_npx/)",
 * };
 * ```
 */
export interface PathCandidate {
  /** Its absolute path, as found (symlinks not followed). */
  readonly path: string;
  /** Why it cannot be used; absent when it can. */
  readonly rejected?: string;
}

/**
 * What the PATH search found: the path to use (if any) and every candidate seen, in order.
 *
 * @example
 * ```ts
 * import type { SchemapinOnPath } from "./schemapin_path.ts";
 * const found: SchemapinOnPath = { path: "/usr/local/bin/schemapin", candidates: [] };
 * ```
 */
export interface SchemapinOnPath {
  /** The first candidate that is not inside a cache; absent when there is none. */
  readonly path?: string;
  /** Every candidate seen, in PATH order, up to and including `path`. */
  readonly candidates: readonly PathCandidate[];
}

/**
 * The environment the search reads (`Deno.env.get` in the CLI; a table in the tests).
 *
 * @example
 * ```ts
 * import type { EnvLookup } from "./schemapin_path.ts";
 * const env: EnvLookup = (name) => ({ PATH: "/usr/bin" } as Record<string, string>)[name];
 * ```
 */
export type EnvLookup = (name: string) => string | undefined;

/** Path segments that only occur inside package-manager caches and installs of a project. */
const CACHE_SEGMENTS = new Set(["_npx", "node_modules", ".npm", ".cache", ".pnpm-store"]);

/** The folders of package-manager caches named by the environment, as absolute paths. */
function cacheRoots(env: EnvLookup): string[] {
  const home = env("HOME") ?? env("USERPROFILE");
  const roots = [
    env("DENO_DIR"),
    env("XDG_CACHE_HOME"),
    env("npm_config_cache"),
    env("NPM_CONFIG_CACHE"),
    env("BUN_INSTALL_CACHE_DIR"),
    env("LOCALAPPDATA") && join(env("LOCALAPPDATA")!, "deno"),
    env("LOCALAPPDATA") && join(env("LOCALAPPDATA")!, "npm-cache"),
    home && join(home, ".cache"),
    home && join(home, ".npm"),
    home && join(home, "Library", "Caches"),
    home && join(home, ".bun", "install", "cache"),
  ];
  return roots.filter((r): r is string => typeof r === "string" && r !== "" && isAbsolute(r))
    .map((r) => resolve(r));
}

/**
 * Why `path` (absolute) lies in a package-manager cache, or undefined when it does not.
 * `denoPath` is this process's Deno when it runs from source (`deno run … cli.ts`): a path
 * equal to it, or in its folder, is the runtime the cache brought, not a schemapin.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts
 * import { cacheReason } from "./schemapin_path.ts";
 * cacheReason("/tmp/_npx/1/bin/schemapin", () => undefined);
 * // "inside a package-manager cache (_npx/)"
 * cacheReason("/usr/local/bin/schemapin", () => undefined); // undefined
 * ```
 */
export function cacheReason(path: string, env: EnvLookup, denoPath?: string): string | undefined {
  checkArg("cacheReason", "path", path, "string");
  checkArg("cacheReason", "env", env, "function");
  checkArg("cacheReason", "denoPath", denoPath, "string", true);
  const segments = path.split(/[/\\]/);
  const segment = segments.find((s) => CACHE_SEGMENTS.has(s));
  if (segment !== undefined) return `inside a package-manager cache (${segment}${sep})`;
  for (const root of cacheRoots(env)) {
    if (path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)) {
      return `inside a cache folder (${root})`;
    }
  }
  if (denoPath !== undefined && path === denoPath) return "the Deno runtime of this process";
  return undefined;
}

/** True when `path` is a regular file (symlinks followed) that may be executed. */
function isExecutableFile(path: string, windows: boolean): boolean {
  try {
    const st = Deno.statSync(path);
    if (!st.isFile) return false;
    return windows || st.mode === null || (st.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The first bytes of `path` (at most `max`), or undefined when it cannot be read. */
function head(path: string, max = 4096): Uint8Array | undefined {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(path, { read: true });
    const buf = new Uint8Array(max);
    const n = file.readSync(buf);
    return buf.subarray(0, n ?? 0);
  } catch {
    return undefined;
  } finally {
    file?.close();
  }
}

/** `name` (no folder in it) looked up on PATH, in folders outside every cache. */
function onPath(name: string, env: EnvLookup, cwd: string): boolean {
  for (const entry of (env("PATH") ?? "").split(delimiter)) {
    const path = resolve(cwd, entry === "" ? "." : entry, name);
    if (cacheReason(path, env) === undefined && isExecutableFile(path, false)) return true;
  }
  return false;
}

/** The program a shell word names, without its quotes; undefined when it is not a plain word. */
function plainWord(word: string): string | undefined {
  const unquoted = /^'([^']*)'$/.exec(word)?.[1] ?? /^"([^"$`\\]*)"$/.exec(word)?.[1] ?? word;
  return /^[^\s'"$`\\;&|<>()]+$/.test(unquoted) ? unquoted : undefined;
}

/**
 * Why the script at `path` cannot start, or undefined: a `#!` script whose interpreter is missing,
 * or that `exec`s a program PATH does not hold outside a package-manager cache — the script
 * `deno install` writes runs `exec deno …`, and under npx the only `deno` on PATH is npx's own,
 * gone once npx exits. A file that is not a `#!` script (a compiled binary) has no such problem.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { startProblem } from "./schemapin_path.ts";
 * startProblem("/home/me/.deno/bin/schemapin", (n) => Deno.env.get(n));
 * // "it runs deno, which is not on PATH outside a package-manager cache (…)"
 * ```
 */
export function startProblem(
  path: string,
  env: EnvLookup,
  options: { cwd?: string; windows?: boolean } = {},
): string | undefined {
  checkArg("startProblem", "path", path, "string");
  checkArg("startProblem", "env", env, "function");
  checkArg("startProblem", "options", options, "object");
  const windows = options.windows ?? Deno.build.os === "windows";
  if (windows || !isExecutableFile(path, windows)) return undefined; // never opens a FIFO
  const bytes = head(path);
  if (bytes === undefined || bytes[0] !== 0x23 || bytes[1] !== 0x21) return undefined; // "#!"
  const cwd = options.cwd ?? Deno.cwd();
  const lines = new TextDecoder().decode(bytes).split("\n");
  const [interpreter, arg] = lines[0].slice(2).trim().split(/[ \t]+/);
  const missing = (program: string): string | undefined => {
    if (program.includes("/")) {
      // A relative path depends on where the client starts it: nothing to check here.
      if (!isAbsolute(program)) return undefined;
      return isExecutableFile(program, false)
        ? undefined
        : `it runs ${program}, which does not exist or cannot be executed`;
    }
    if (onPath(program, env, cwd)) return undefined;
    return `it runs ${program}, which is not on PATH outside a package-manager cache` +
      (program === "deno" ? " (install Deno: npm i -g deno@2.9.6)" : "");
  };
  if (interpreter === undefined || interpreter === "") return "its #! line names no interpreter";
  const viaEnv = interpreter.endsWith("/env") && arg !== undefined && !arg.startsWith("-");
  const problem = missing(interpreter) ?? (viaEnv ? missing(arg) : undefined);
  if (problem !== undefined) return problem;
  // The program a shell script hands over to (`exec PROGRAM …`, as deno install writes it).
  if (!/\/(?:ba|da)?sh$/.test(interpreter)) return undefined;
  for (const line of lines.slice(1)) {
    const m = /^\s*exec\s+(\S+)/.exec(line);
    const program = m ? plainWord(m[1]) : undefined;
    if (program !== undefined) return missing(program);
  }
  return undefined;
}

/**
 * Searches PATH for `schemapin` as `command -v` does (each entry in order; an empty entry is the
 * current folder) and returns the first candidate that is not inside a package-manager cache,
 * with every candidate seen. On Windows the names of PATHEXT are tried as well.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { findSchemapinOnPath } from "./schemapin_path.ts";
 * const found = findSchemapinOnPath((n) => Deno.env.get(n), { denoPath: Deno.execPath() });
 * found.path; // "/home/me/.local/bin/schemapin", or undefined
 * ```
 */
export function findSchemapinOnPath(
  env: EnvLookup,
  options: { cwd?: string; denoPath?: string; windows?: boolean } = {},
): SchemapinOnPath {
  checkArg("findSchemapinOnPath", "env", env, "function");
  checkArg("findSchemapinOnPath", "options", options, "object");
  const windows = options.windows ?? Deno.build.os === "windows";
  const cwd = options.cwd ?? Deno.cwd();
  const names = windows
    ? [
      "schemapin",
      ...(env("PATHEXT") ?? ".COM;.EXE;.BAT;.CMD").split(";").filter((e) => e)
        .map((e) => `schemapin${e.toLowerCase()}`),
    ]
    : ["schemapin"];
  const candidates: PathCandidate[] = [];
  const seen = new Set<string>();
  for (const entry of (env("PATH") ?? "").split(windows ? ";" : delimiter)) {
    for (const name of names) {
      const path = resolve(cwd, entry === "" ? "." : entry, name);
      if (seen.has(path) || !isExecutableFile(path, windows)) continue;
      seen.add(path);
      // A script that cannot start (its deno missing) is no more usable than a cached one.
      const rejected = cacheReason(path, env, options.denoPath) ??
        startProblem(path, env, { cwd, windows });
      candidates.push(rejected === undefined ? { path } : { path, rejected });
      if (rejected === undefined) return { path, candidates };
    }
  }
  return { candidates };
}

/**
 * The program of `--schemapin-command` as a client config should hold it: a path with a folder
 * in it made absolute (the client does not start in this folder), a bare name kept for the
 * client's own PATH lookup.
 *
 * @throws {SchemaPinError} `INPUT_INVALID` for a `given` that is not a string
 *
 * @example
 * ```ts
 * import { schemapinProgram } from "./schemapin_path.ts";
 * schemapinProgram("schemapin"); // "schemapin"
 * schemapinProgram("/opt/bin/schemapin"); // "/opt/bin/schemapin"
 * ```
 */
export function schemapinProgram(given: string): string {
  checkArg("schemapinProgram", "given", given, "string");
  return /[/\\]/.test(given) && !isAbsolute(given) ? resolve(given) : given;
}

/**
 * How a client config starts schemapin when `--schemapin-command` is not given: the
 * `schemapin` found on PATH ({@linkcode findSchemapinOnPath}; neither one inside a
 * package-manager cache nor the Deno runtime of this process, both vanish when the cache is
 * cleaned).
 *
 * @throws {SchemaPinError} `INPUT_INVALID` with `details.usage` when none is usable, naming
 *   what was found and `--schemapin-command`; `INPUT_INVALID` for arguments of the wrong type
 *
 * @example
 * ```ts ignore
 * import { defaultSchemapinProgram } from "./schemapin_path.ts";
 * defaultSchemapinProgram((name) => Deno.env.get(name)); // ["/home/me/.local/bin/schemapin"]
 * ```
 */
export function defaultSchemapinProgram(env: EnvLookup, denoPath?: string): string[] {
  const found = findSchemapinOnPath(env, { denoPath });
  if (found.path !== undefined) return [found.path];
  const cachedOnly = found.candidates.every((c) =>
    c.rejected?.startsWith("inside ") || c.rejected === "the Deno runtime of this process"
  );
  const seen = found.candidates.length === 0
    ? "no schemapin on PATH"
    : `only ${found.candidates.map((c) => `${c.path} (${c.rejected})`).join(", ")}, which ` +
      "a client config cannot rely on: " +
      (cachedOnly ? "it disappears when that cache is cleaned" : "it would not start");
  throw usageError(
    `${seen}; install schemapin on PATH (e.g. the compiled binary in ` +
      "~/.local/bin), or give the command the client should run with --schemapin-command PATH",
    { option: "schemapin-command" },
  );
}
