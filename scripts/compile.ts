/**
 * `deno task compile`: builds the single `schemapin` binary with `deno compile`, using
 * exactly the permission flags of the `schemapin` task in deno.json (the one place they are
 * written), so the binary behaves like `deno task schemapin`.
 *
 *   deno task compile                      # host target → dist/schemapin
 *   deno task compile --target x86_64-unknown-linux-gnu
 *   deno task compile --all                # every release target → dist/schemapin-<target>
 *
 * `deno compile` downloads its `denort` runtime unless `DENORT_BIN` points at one (offline
 * builds); that variable is passed through untouched. When the download fails, the task prints
 * one line naming the runtime, the URL it comes from and `DENORT_BIN` (instead of deno's
 * five-level error chain), exits 1 and removes what it created: `dist/` itself when this run
 * made it, else the binaries this run wrote. Each `deno compile` is stopped after
 * {@linkcode COMPILE_TIMEOUT_MS} (a download that never answers).
 *
 * @module
 */
import { parseArgs } from "node:util";

/** Where `deno compile` writes (relative to the checkout, like the task's --allow-write). */
export const DIST = "dist";

/** How long one `deno compile` may run before it is stopped (10 minutes). */
export const COMPILE_TIMEOUT_MS = 10 * 60 * 1000;

/** Release targets (deno compile --target values). */
export const TARGETS: readonly string[] = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

/**
 * Flags the `schemapin` task may hold besides its permissions, for `deno run` only.
 * `--unstable-lazy-dynamic-imports` loads a command's modules when it runs instead of reading the
 * whole CLI's graph at start (issue 36 item 6). It must never reach `deno compile`: there it makes
 * the code graph skip dynamic imports, and the binary would hold no command.
 */
export const RUN_ONLY_FLAGS: readonly string[] = ["--unstable-lazy-dynamic-imports"];

/**
 * The permission flags of the `schemapin` task (everything between `deno run` and `cli.ts` but
 * {@linkcode RUN_ONLY_FLAGS}).
 *
 * @example
 * ```ts ignore
 * permissionFlags(await Deno.readTextFile("deno.json"));
 * ```
 */
export function permissionFlags(denoJsonText: string): string[] {
  return taskRunFlags(denoJsonText).filter((f) => !RUN_ONLY_FLAGS.includes(f));
}

/**
 * Every flag of the `schemapin` task, in its order: the narrow permissions and
 * {@linkcode RUN_ONLY_FLAGS} — what `deno run` and `deno install` of the CLI take.
 *
 * @example
 * ```ts ignore
 * taskRunFlags(await Deno.readTextFile("deno.json"));
 * ```
 */
export function taskRunFlags(denoJsonText: string): string[] {
  const task: string = JSON.parse(denoJsonText).tasks.schemapin;
  const words = task.trim().split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run" || words.at(-1) !== "cli.ts") {
    throw new Error(`deno.json tasks.schemapin must be "deno run <flags> cli.ts", got: ${task}`);
  }
  const flags = words.slice(2, -1);
  const bad = flags.filter((f) => !f.startsWith("--allow-") && !RUN_ONLY_FLAGS.includes(f));
  if (bad.length > 0 || flags.includes("--allow-all")) {
    throw new Error(`tasks.schemapin may only hold narrow --allow-* flags, got: ${bad.join(" ")}`);
  }
  return flags;
}

/** Modules started as workers (`new Worker(…)`), which `deno compile` must be told about. */
export const WORKER_MODULES: readonly string[] = ["lib/schema/batch_worker.ts"];

/**
 * The `deno compile` argument list for one target (or the host when `target` is undefined).
 *
 * @example
 * ```ts ignore
 * compileArgs(["--allow-read"], "x86_64-apple-darwin");
 * ```
 */
export function compileArgs(flags: string[], target?: string): string[] {
  const suffix = target ? `-${target}` : "";
  const exe = target?.includes("windows") ? ".exe" : "";
  return [
    "compile",
    ...flags,
    "--exclude-unused-npm",
    // Worker modules are not in the module graph: included by name (deno compile docs).
    ...WORKER_MODULES.flatMap((m) => ["--include", m]),
    ...(target ? ["--target", target] : []),
    "--output",
    `${DIST}/schemapin${suffix}${exe}`,
    "cli.ts",
  ];
}

/**
 * The one line to print when `deno compile` failed because it could not get its `denort`
 * runtime, or undefined when `stderr` (deno's error output, without colours) shows another
 * failure. `target` undefined is the host.
 *
 * @example
 * ```ts ignore
 * denortMissing("error: …\n    1: error sending request for url (https://dl.deno.land/…)", undefined);
 * ```
 */
export function denortMissing(stderr: string, target: string | undefined): string | undefined {
  const text = stripAnsi(stderr);
  if (!/denort|Setting up base binary|dl\.deno\.land/.test(text)) return undefined;
  if (Deno.env.get("DENORT_BIN")) return undefined; // a DENORT_BIN problem: deno's own words
  const rt = target ?? Deno.build.target;
  const url = /https:\/\/\S+?denort-[\w-]+\.zip/.exec(text)?.[0] ??
    `https://dl.deno.land/release/v${Deno.version.deno}/denort-${rt}.zip`;
  // deno's chain: "Caused by:" then "0: …", "1: …"; the last is the root cause. (With
  // RUST_BACKTRACE set, a "Stack backtrace:" with numbered frames follows: not causes.)
  const chain = text.split(/^Stack backtrace:/m)[0].split(/^Caused by:/m)[1] ?? "";
  const causes = chain.split("\n").map((l) => l.trim()).filter((l) => /^\d+: /.test(l));
  const cause = causes.at(-1)?.replace(/^\d+: /, "");
  return `error: deno compile needs the denort runtime for ${rt}, downloaded from ${url}` +
    `${cause ? ` (failed: ${cause})` : ""}; offline, set DENORT_BIN=/path/to/denort ` +
    `(the denort binary of Deno ${Deno.version.deno} for ${rt})`;
}

function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, "");
}

/**
 * Runs `deno compile args`: its progress lines go to stderr as they come, its error output is
 * held back so the caller can replace it with one line. Resolves to the exit code and the
 * held-back error text (`timedOut` when it was stopped after `timeoutMs`).
 */
async function runCompile(
  args: string[],
  timeoutMs: number,
): Promise<{ code: number; error: string; timedOut: boolean }> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdin: "null",
    stdout: "inherit",
    stderr: "piped",
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }, timeoutMs);
  let error = "";
  let pending = "";
  const out = new TextEncoder();
  for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl + 1);
      pending = pending.slice(nl + 1);
      // Everything from deno's first `error:` line on is held back; progress passes through.
      if (error || /^error/.test(stripAnsi(line))) error += line;
      else await Deno.stderr.write(out.encode(line));
    }
  }
  error += pending;
  const { code } = await child.status;
  clearTimeout(timer);
  return { code, error, timedOut };
}

/** Removes what a failed run created: `dist/` when it made it, else the files it wrote. */
async function cleanUp(distExisted: boolean, written: string[]): Promise<void> {
  const remove = async (path: string, recursive = false) => {
    try {
      await Deno.remove(path, { recursive });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  };
  if (!distExisted) return await remove(DIST, true);
  for (const file of written) await remove(file);
  // deno compile writes <output>.tmp-<hex> first; a killed run can leave one.
  for await (const entry of Deno.readDir(DIST)) {
    if (/^schemapin.*\.tmp-[0-9a-f]+$/.test(entry.name)) await remove(`${DIST}/${entry.name}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

if (import.meta.main) {
  let values;
  try {
    ({ values } = parseArgs({
      args: Deno.args,
      options: { target: { type: "string" }, all: { type: "boolean" } },
    }));
  } catch (e) {
    console.error(`error: compile: ${e instanceof Error ? e.message : e}`);
    Deno.exit(2);
  }
  if (values.target !== undefined && !TARGETS.includes(values.target)) {
    console.error(`error: compile: --target must be one of ${TARGETS.join(", ")}`);
    Deno.exit(2);
  }
  const flags = permissionFlags(await Deno.readTextFile("deno.json"));
  const targets: (string | undefined)[] = values.all ? [...TARGETS] : [values.target];
  const distExisted = await exists(DIST);
  const written: string[] = [];
  for (const target of targets) {
    const args = compileArgs(flags, target);
    console.error(`deno ${args.join(" ")}`);
    const { code, error, timedOut } = await runCompile(args, COMPILE_TIMEOUT_MS);
    if (code === 0) {
      written.push(args[args.indexOf("--output") + 1]);
      continue;
    }
    await cleanUp(distExisted, written);
    const name = target ?? "the host";
    if (timedOut) {
      console.error(
        `error: deno compile for ${name} did not finish within ${COMPILE_TIMEOUT_MS / 60000} ` +
          `minutes and was stopped (downloading its denort runtime? offline, set ` +
          `DENORT_BIN=/path/to/denort)`,
      );
    } else {
      const line = denortMissing(error, target);
      if (line) console.error(line);
      else {
        await Deno.stderr.write(new TextEncoder().encode(error));
        console.error(`error: deno compile failed for ${name} (exit ${code})`);
      }
    }
    Deno.exit(1);
  }
}
