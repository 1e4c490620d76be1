/**
 * How an MCP client config entry that runs its server through `schemapin guard` (`guard wrap`)
 * is written and read back — the only place that knows the wrap marker:
 *
 * - a stdio entry runs `schemapin … guard [options] -- CMD ARGS…`: the original command stays
 *   visible after `--`;
 * - an HTTP entry cannot start a process, so it points at a guard listening on loopback:
 *   `http://127.0.0.1:PORT/<path>#schemapin-upstream=URL`. The fragment keeps the original URL
 *   in the entry, where every client format keeps it verbatim, and is never sent (HTTP clients
 *   drop fragments), so no member a client might reject is added.
 *
 * Reading a wrapped entry as the server it guards keeps pinning, verifying and discovering the
 * same before and after wrapping.
 *
 * @module
 */
import type { JsonObject } from "../../lib/json/types.ts";
import { urlKeyOf } from "./formats.ts";

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
 * import { readGuardedCommand } from "./marker.ts";
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
 * import { readGuardedUrl } from "./marker.ts";
 * readGuardedUrl("http://127.0.0.1:8931/mcp#schemapin-upstream=https://mcp.example.com/mcp");
 * // "https://mcp.example.com/mcp"
 * ```
 */
export function readGuardedUrl(url: string): string | undefined {
  const k = url.indexOf(GUARD_UPSTREAM_MARK);
  return k === -1 ? undefined : url.slice(k + GUARD_UPSTREAM_MARK.length);
}

/**
 * True when a config entry runs its server through `schemapin guard`: its `command` and `args`
 * ({@linkcode readGuardedCommand}), else its URL ({@linkcode readGuardedUrl}).
 *
 * @example
 * ```ts
 * import { isGuarded } from "./marker.ts";
 * isGuarded({ url: "http://127.0.0.1:8931/mcp#schemapin-upstream=https://x.example/mcp" }); // true
 * ```
 */
export function isGuarded(entry: JsonObject): boolean {
  if (typeof entry.command === "string" && Array.isArray(entry.args)) {
    const args = entry.args;
    return args.every((a) => typeof a === "string") &&
      readGuardedCommand(entry.command, args as string[]) !== undefined;
  }
  const key = urlKeyOf(entry);
  return key !== undefined && readGuardedUrl(entry[key] as string) !== undefined;
}

/** How the guard is started from a wrapped stdio entry. */
export interface GuardInvocation {
  /** The schemapin program and the arguments before `guard` (`deno run … cli.ts`). */
  readonly program: readonly string[];
  /** Absolute path of the lock. */
  readonly lockPath: string;
  /** `--mode` for the guard (default: the guard's own, enforce). */
  readonly mode?: string;
}

/**
 * The guard's loopback URL for an upstream: same path, `127.0.0.1:port`, the mark.
 *
 * @example
 * ```ts
 * import { wrappedUrl } from "./marker.ts";
 * wrappedUrl("https://mcp.example.com/mcp", 8931);
 * // "http://127.0.0.1:8931/mcp#schemapin-upstream=https://mcp.example.com/mcp"
 * ```
 */
export function wrappedUrl(upstream: string, port: number): string {
  const u = new URL(upstream);
  return `http://127.0.0.1:${port}${u.pathname}${GUARD_UPSTREAM_MARK}${upstream}`;
}

/**
 * The arguments of a wrapped stdio entry (its command is `inv.program[0]`).
 *
 * @example
 * ```ts
 * import { guardArgs } from "./marker.ts";
 * guardArgs({ program: ["schemapin"], lockPath: "/p/contractpin.lock" }, "fs", ["npx", "fs"]);
 * // ["guard", "--lock", "/p/contractpin.lock", "--server", "fs", "--", "npx", "fs"]
 * ```
 */
export function guardArgs(
  inv: GuardInvocation,
  lockName: string,
  original: readonly string[],
): string[] {
  return [
    ...inv.program.slice(1),
    "guard",
    "--lock",
    inv.lockPath,
    "--server",
    lockName,
    ...(inv.mode ? ["--mode", inv.mode] : []),
    "--",
    ...original,
  ];
}
