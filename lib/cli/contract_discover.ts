/**
 * `contract init --discover`: find the MCP client configs on this machine and in the project,
 * read them (JSONC), and turn their servers into pin targets — skipping, with the reason, the
 * ones that cannot run here (disabled, unset variables, `${input:…}`, literal credentials,
 * unknown transports). The home folder, platform and project folder come from the
 * environment here and are parameters below (lib/contractpin/discover.ts).
 *
 * @module
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { SchemaPinError } from "../errors.ts";
import { type ConfigContext, parseClientConfig } from "../contractpin/config.ts";
import {
  type ClientConfigLocation,
  clientConfigLocations,
  type DiscoveredServer,
  type DiscoveryEnvironment,
  type FoundConfig,
  planDiscovery,
  type SkippedServer,
} from "../contractpin/discover.ts";
import { prepareTarget } from "../contractpin/live.ts";
import { type EnvLookup, processEnv, sanitizeIdentity } from "../contractpin/secrets.ts";
import type { CliIO } from "./command.ts";
import { UsageError } from "./command.ts";
import { lockRelative } from "./contract_shared.ts";
import { exists, readInput } from "./io.ts";

/** The discovery environment of this process: `$HOME` (`%USERPROFILE%`), the platform. */
export function discoveryEnvironment(projectDir: string, env: EnvLookup): DiscoveryEnvironment {
  const windows = Deno.build.os === "windows";
  const home = (windows ? env("USERPROFILE") ?? env("HOME") : env("HOME")) ?? "";
  if (home === "" || !isAbsolute(home)) {
    throw new UsageError(
      `contract init --discover: the home folder is unknown (${
        windows ? "%USERPROFILE%" : "$HOME"
      } is not set to an absolute path)`,
    );
  }
  return {
    home,
    platform: Deno.build.os,
    projectDir: resolve(projectDir),
    appData: env("APPDATA") || undefined,
    xdgConfigHome: env("XDG_CONFIG_HOME") || undefined,
  };
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

/**
 * Reads every client config that exists. A config that cannot be read or parsed is an error
 * naming the file (and byte offset): exit 2, like any malformed input.
 */
export async function discover(
  denv: DiscoveryEnvironment,
  options: { lockPath: string; allowLiteralSecrets: boolean; env?: EnvLookup },
  io: CliIO,
): Promise<Discovery> {
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
    if (!(await exists(location.path))) continue;
    const { entries } = parseClientConfig(await readInput(location.path, io), location.path, ctx);
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
        allowLiteralSecrets: options.allowLiteralSecrets,
      });
      servers.push(s);
    } catch (e) {
      if (!(e instanceof SchemaPinError)) throw e;
      skipped.push({ name: s.configName, from: s.from, reason: e.message });
    }
  }
  return { looked, found, servers, skipped };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Prints what was found and what is skipped (stdout: it is the result of discovery). */
export async function printDiscovery(d: Discovery, io: CliIO): Promise<void> {
  if (d.found.length === 0) {
    await io.stdout(
      `found no MCP client config; looked in:\n${
        d.looked.map((l) => `  ${l.label}: ${l.path}\n`).join("")
      }`,
    );
    return;
  }
  await io.stdout(`found ${plural(d.found.length, "MCP client config")}:\n`);
  const width = Math.max(...d.found.map((f) => f.location.label.length));
  for (const f of d.found) {
    const names = f.entries.map((e) => e.name + (e.guarded ? " (guarded)" : "")).join(", ") ||
      "no servers";
    await io.stdout(`  ${f.location.label.padEnd(width)}  ${f.location.path}: ${names}\n`);
  }
  for (const s of d.servers) {
    if (s.lockName !== s.configName) {
      await io.stdout(
        `renamed ${s.configName} (${s.from.label}) to ${s.lockName} in the lock: another config ` +
          `uses the name for a different server\n`,
      );
    }
    if (s.alsoIn.length > 0) {
      await io.stdout(
        `same server ${s.lockName} in ${s.from.label} and ${
          s.alsoIn.map((l) => l.label).join(", ")
        }: pinned once\n`,
      );
    }
  }
  for (const s of d.skipped) await printSkipped(io, s.name, s.from, s.reason);
}

/** One `skipped` line (a multi-line reason is indented). */
export async function printSkipped(
  io: CliIO,
  name: string,
  from: ClientConfigLocation,
  reason: string,
): Promise<void> {
  await io.stdout(
    `skipped ${name} (${from.label}, ${from.path}): ${reason.replaceAll("\n", "\n    ")}\n`,
  );
}
