/**
 * Discovering the MCP servers of this machine (`contract init --discover`): the client configs
 * that exist at the locations of ./formats.ts, read through the caller's reader, and how their
 * servers become one set of lock entries — a name used by several configs for the same server
 * is pinned once, for different servers it becomes `name@<location id>`.
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { SchemaPinError } from "../../lib/errors.ts";
import type { ContractFiles } from "../../lib/contractpin/files.ts";
import { prepareTarget, type ServerTarget } from "../../lib/contractpin/live.ts";
import { lockRelative } from "../../lib/contractpin/lock.ts";
import { type EnvLookup, processEnv, sanitizeIdentity } from "../../lib/contractpin/secrets.ts";
import { sameIdentity } from "../../lib/contractpin/verify.ts";
import { checkArg } from "../../lib/arguments.ts";
import {
  type ClientConfigLocation,
  clientConfigLocations,
  type DiscoveryEnvironment,
} from "./formats.ts";
import { type ConfigEntry, parseClientConfig } from "./read.ts";
import type { ConfigContext } from "./variables.ts";

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
