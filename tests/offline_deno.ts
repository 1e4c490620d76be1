/**
 * A `deno` that cannot download anything and starts from a nearly empty cache: for tests that
 * prove what a task fetches (the demo needs only `@noble/curves`) or how it fails offline
 * (`deno task compile` without its `denort` runtime).
 *
 * {@linkcode offlineDenoDir} makes a fresh `DENO_DIR` holding only the npm packages of an entry
 * point's graph, fetched from the npm registry by `deno cache` into an empty cache; {@linkcode offlineEnv} points every proxy variable
 * at a CONNECT proxy on 127.0.0.1 that refuses and records each request, so a download shows up
 * as a recorded `host:443` and fails at once instead of reaching the network.
 *
 * @module
 */
import { join } from "node:path";
import { denoCommand } from "./process.ts";
import type { ConnectProxy } from "./fixtures/network/proxy.ts";

/**
 * The npm registry, as a CONNECT target. Deno 2.9 may ask it for a package document it does not
 * need to run (the publish dates its default minimum-dependency-age policy reads; see
 * denoland/deno#35834 and #36525), even when the lock file and the cache hold every package;
 * whether the request goes out before a short process exits is a matter of timing. The proxy
 * refuses it like any other, so a run that really needed it fails: tests allow this target and
 * still prove that nothing was downloaded.
 */
export const NPM_REGISTRY_CONNECT = "registry.npmjs.org:443";

/**
 * The CONNECTs in `connects` to a target not in `allowed`, in order.
 *
 * @example
 * ```ts ignore
 * connectsBeyond(["registry.npmjs.org:443", "example.com:443"], [NPM_REGISTRY_CONNECT]);
 * // ["example.com:443"]
 * ```
 */
export function connectsBeyond(
  connects: readonly string[],
  allowed: readonly string[],
): string[] {
  return connects.filter((c) => !allowed.includes(c));
}

/** Where `deno info --json` says each npm package of `entry`'s graph sits in the cache. */
export async function npmPackagesOf(
  entry: string,
  cwd: string,
  env: Record<string, string> = {},
): Promise<Record<string, { name: string; localPath: string }>> {
  const { code, stdout, stderr } = await denoCommand(["info", "--json", entry], {
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(`deno info --json ${entry} failed: ${new TextDecoder().decode(stderr)}`);
  }
  return JSON.parse(new TextDecoder().decode(stdout)).npmPackages ?? {};
}

/**
 * A new DENO_DIR (under `parent`) whose npm cache holds exactly the packages of `entry`'s graph
 * (in the repository at `repo`), built here by `deno cache` from the npm registry — never copied
 * out of the cache the tests run with, whose layout depends on its history (a cache filled
 * through the lock file has no `registry.json` package documents, issue 26). Every package must
 * pass `keep`, else this throws naming it; `copied` lists them (`name@version`).
 */
export async function offlineDenoDir(
  parent: string,
  repo: string,
  entry: string,
  keep: (name: string) => boolean,
): Promise<{ denoDir: string; copied: string[] }> {
  const denoDir = join(parent, "deno_dir");
  const env = { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" };
  const built = await denoCommand(["cache", entry], {
    cwd: repo,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!built.success) {
    throw new Error(`deno cache ${entry} failed: ${new TextDecoder().decode(built.stderr)}`);
  }
  const copied: string[] = [];
  for (const [id, pkg] of Object.entries(await npmPackagesOf(entry, repo, env))) {
    if (!keep(pkg.name)) throw new Error(`${id} is in the graph of ${entry} but not expected`);
    copied.push(id);
  }
  return { denoDir, copied };
}

/** The environment for a child that must not reach the network: every download goes to `proxy`. */
export function offlineEnv(proxy: ConnectProxy, denoDir: string): Record<string, string> {
  return {
    DENO_DIR: denoDir,
    HTTPS_PROXY: proxy.url,
    HTTP_PROXY: proxy.url,
    https_proxy: proxy.url,
    http_proxy: proxy.url,
    ALL_PROXY: proxy.url,
    NO_PROXY: "",
    no_proxy: "",
    NO_COLOR: "1",
  };
}

/** The npm packages (`name@version`, from the cache's folders) in `denoDir`'s npm cache, sorted. */
export async function cachedNpmPackages(denoDir: string): Promise<string[]> {
  const found: string[] = [];
  const dirs = async (dir: string): Promise<string[]> => {
    try {
      const names: string[] = [];
      for await (const e of Deno.readDir(dir)) if (e.isDirectory) names.push(e.name);
      return names;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return [];
      throw e;
    }
  };
  for (const host of await dirs(join(denoDir, "npm"))) {
    const hostDir = join(denoDir, "npm", host);
    const names: string[] = [];
    for (const name of await dirs(hostDir)) {
      if (name.startsWith("@")) {
        for (const sub of await dirs(join(hostDir, name))) names.push(`${name}/${sub}`);
      } else names.push(name);
    }
    for (const name of names) {
      for (const version of await dirs(join(hostDir, name))) found.push(`${name}@${version}`);
    }
  }
  return found.sort();
}
