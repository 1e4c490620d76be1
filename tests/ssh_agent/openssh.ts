/**
 * Running OpenSSH's own tools (`ssh-agent`, `ssh-add`, `ssh-keygen`) and `openssl` from the
 * agent tests: whether one is installed, and running one with its output captured.
 *
 * @module
 */
import { childCommand } from "../process.ts";

const dec = (b: Uint8Array) => new TextDecoder().decode(b);

/** An executable `tool` on $PATH (looked up, never run: a bare `ssh-agent` starts an agent). */
export function onPath(tool: string): boolean {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const info = Deno.statSync(`${dir}/${tool}`);
      if (info.isFile && ((info.mode ?? 0o111) & 0o111)) return true;
    } catch { /* not here */ }
  }
  return false;
}

/** Runs `command args…` (stdin closed) and returns its exit code and output. */
export async function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await childCommand(command, {
    args,
    env,
    ...(cwd !== undefined ? { cwd } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: dec(out.stdout), stderr: dec(out.stderr) };
}

/** {@linkcode run}, failing on a non-zero exit; returns stdout. */
export async function ok(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<string> {
  const r = await run(command, args, env);
  if (r.code !== 0) throw new Error(`${command} ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}
