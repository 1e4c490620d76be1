/**
 * Test helpers to run the CLI: in process (`runInProcess`, fast, with captured output) and as
 * a real process with exactly the permission flags of `deno task schemapin` (`runCliProcess`),
 * which are also the compile task's flags.
 */
import { runCli } from "../../cli/commands/main.ts";
import type { CliIO } from "../../cli/commands/command.ts";
import { childCommand } from "../process.ts";

/** What a CLI run produced. */
export interface CliResult {
  code: number;
  stdout: string;
  stdoutBytes: Uint8Array;
  stderr: string;
}

/** Runs `schemapin args…` in this process with captured stdout/stderr and optional stdin. */
export async function runInProcess(
  args: string[],
  stdin?: string | Uint8Array,
): Promise<CliResult> {
  const out: Uint8Array[] = [];
  let err = "";
  const enc = new TextEncoder();
  const io: CliIO = {
    stdout: (d) => {
      out.push(typeof d === "string" ? enc.encode(d) : d);
      return Promise.resolve();
    },
    stderr: (t) => {
      err += t;
      return Promise.resolve();
    },
    readStdin: () =>
      Promise.resolve(typeof stdin === "string" ? enc.encode(stdin) : stdin ?? new Uint8Array()),
    stderrIsTerminal: false,
  };
  const code = await runCli(args, io);
  const stdoutBytes = new Uint8Array(out.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of out) (stdoutBytes.set(b, at), at += b.length);
  return { code, stdout: new TextDecoder().decode(stdoutBytes), stdoutBytes, stderr: err };
}

const repo = new URL("../../", import.meta.url);

/** The permission flags of the `schemapin` task in deno.json (the single source of truth). */
export async function schemapinTaskFlags(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", repo)));
  const words = (config.tasks.schemapin as string).split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run" || words[words.length - 1] !== "cli.ts") {
    throw new Error(`unexpected schemapin task: ${config.tasks.schemapin}`);
  }
  return words.slice(2, -1);
}

/**
 * Runs the real CLI (`deno run <task flags> cli.ts args…`) as a child process. With `drain`,
 * the entry point is tests/fixtures/cli_drain.ts: the same CLI, but the process exits only
 * once nothing is left running, so background work cannot escape a test by racing the exit.
 */
export async function runCliProcess(
  args: string[],
  options: { stdin?: string; env?: Record<string, string>; cwd?: string; drain?: boolean } = {},
): Promise<CliResult> {
  const flags = await schemapinTaskFlags();
  const entry = options.drain ? "tests/fixtures/cli_drain.ts" : "cli.ts";
  const child = childCommand(Deno.execPath(), {
    args: ["run", "--quiet", ...flags, new URL(entry, repo).pathname, ...args],
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    // INIT_CWD "" (unset for cli.ts): a `deno task test` started below the checkout must not
    // move a CLI started in the checkout to that folder (see callerFolder in cli.ts).
    env: { NO_COLOR: "1", INIT_CWD: "", ...options.env },
    cwd: options.cwd,
  }).spawn();
  if (options.stdin !== undefined) {
    // A child may exit without reading its stdin (a usage error): a broken pipe is not an
    // error of the test, whose verdict comes from the exit code and the output.
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(options.stdin)).catch(() => {});
    await w.close().catch(() => {});
  }
  const { code, stdout, stderr } = await child.output();
  const dec = new TextDecoder();
  return { code, stdout: dec.decode(stdout), stdoutBytes: stdout, stderr: dec.decode(stderr) };
}

/** A fresh temporary directory removed after `fn`. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-test-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** True when something exists at `path` (a dangling symlink counts; any error is "no"). */
export async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}
