/**
 * Builders for skill folders in tests, hostile ones included: symbolic links, FIFOs, Unix
 * sockets, names that are not UTF-8, unreadable files.
 */
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { childCommand } from "../process.ts";

/** Writes `files` (path → text or bytes) under `dir`, creating directories. */
export async function writeTree(
  dir: string,
  files: Record<string, string | Uint8Array>,
): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const full = `${dir}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(full, content);
    else await Deno.writeFile(full, content);
  }
}

/** A fresh skill folder with a SKILL.md and a script, inside a temporary directory. */
export async function makeSkill(
  files: Record<string, string | Uint8Array> = {},
): Promise<{ base: string; dir: string; cleanup: () => Promise<void> }> {
  const base = await Deno.makeTempDir({ prefix: "schemapin-skill-" });
  const dir = `${base}/my-skill`;
  await Deno.mkdir(dir);
  await writeTree(dir, {
    "SKILL.md": "---\nname: my-skill\ndescription: a test skill\n---\n# My skill\n",
    "scripts/run.sh": "#!/bin/sh\necho hello\n",
    ...files,
  });
  return {
    base,
    dir,
    cleanup: async () => {
      await Deno.chmod(base, 0o755).catch(() => {});
      await new Deno.Command("chmod", { args: ["-R", "u+rwX", base] }).output().catch(() => {});
      await Deno.remove(base, { recursive: true });
    },
  };
}

/** Runs `fn` on a fresh {@linkcode makeSkill} folder, then removes it (also on failure). */
export async function withSkill<T>(
  fn: (skill: { base: string; dir: string }) => Promise<T>,
  files: Record<string, string | Uint8Array> = {},
): Promise<T> {
  const skill = await makeSkill(files);
  try {
    return await fn(skill);
  } finally {
    await skill.cleanup();
  }
}

async function run(cmd: string, args: string[], cwd?: string): Promise<void> {
  const out = await childCommand(cmd, { args, cwd, stdout: "null", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Creates a FIFO at `path` (with mkfifo(1)). */
export async function mkfifo(path: string): Promise<void> {
  await run("mkfifo", [path]);
}

/** Creates a Unix socket file at `path`; returns the listener to close afterwards. */
export function mksocket(path: string): Deno.Listener {
  return Deno.listen({ transport: "unix", path });
}

/** Creates a file named `bad\xffname` (not UTF-8) in `dir`; returns how Deno shows it. */
export async function mkNonUtf8(dir: string): Promise<string> {
  await run("sh", ["-c", "printf x > \"$(printf 'bad\\377name')\""], dir);
  return "bad\ufffdname";
}

/** True when this process can read files whose mode is 000 (root without dropped caps). */
export async function canReadMode000(dir: string): Promise<boolean> {
  const probe = `${dir}/.probe-000`;
  await Deno.writeTextFile(probe, "x");
  await Deno.chmod(probe, 0o000);
  try {
    await Deno.readTextFile(probe);
    return true;
  } catch {
    return false;
  } finally {
    await Deno.remove(probe);
  }
}

/** Asserts that `fn` throws a SchemaPinError with `code` (and `reason` / message pattern). */
export async function assertSkillError(
  fn: () => unknown,
  code: string,
  expect: { reason?: string; path?: string; message?: RegExp } = {},
): Promise<SchemaPinError> {
  let caught: unknown;
  try {
    await fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof SchemaPinError, `expected a SchemaPinError, got ${caught}`);
  assert.equal(caught.code, code, caught.message);
  if (expect.reason !== undefined) {
    assert.equal(caught.details.reason, expect.reason, caught.message);
  }
  if (expect.path !== undefined) assert.equal(caught.details.path, expect.path, caught.message);
  if (expect.message) assert.match(caught.message, expect.message);
  return caught;
}

/** Creates `count` small files named f00000… under `dir/sub`. */
export function manyFiles(dir: string, count: number, sub = "many"): void {
  Deno.mkdirSync(`${dir}/${sub}`, { recursive: true });
  const data = new Uint8Array([0x78]);
  for (let i = 0; i < count; i++) {
    Deno.writeFileSync(`${dir}/${sub}/f${String(i).padStart(5, "0")}`, data);
  }
}
