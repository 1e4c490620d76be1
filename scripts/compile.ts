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
 * builds); that variable is passed through untouched.
 *
 * @module
 */
import { parseArgs } from "node:util";

/** Release targets (deno compile --target values). */
export const TARGETS: readonly string[] = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
];

/**
 * The permission flags of the `schemapin` task (everything between `deno run` and `cli.ts`).
 *
 * @example
 * ```ts ignore
 * permissionFlags(await Deno.readTextFile("deno.json"));
 * ```
 */
export function permissionFlags(denoJsonText: string): string[] {
  const task: string = JSON.parse(denoJsonText).tasks.schemapin;
  const words = task.trim().split(/\s+/);
  if (words[0] !== "deno" || words[1] !== "run" || words.at(-1) !== "cli.ts") {
    throw new Error(`deno.json tasks.schemapin must be "deno run <flags> cli.ts", got: ${task}`);
  }
  const flags = words.slice(2, -1);
  const bad = flags.filter((f) => !f.startsWith("--allow-"));
  if (bad.length > 0 || flags.includes("--allow-all")) {
    throw new Error(`tasks.schemapin may only hold narrow --allow-* flags, got: ${bad.join(" ")}`);
  }
  return flags;
}

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
    ...(target ? ["--target", target] : []),
    "--output",
    `dist/schemapin${suffix}${exe}`,
    "cli.ts",
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { target: { type: "string" }, all: { type: "boolean" } },
  });
  const flags = permissionFlags(await Deno.readTextFile("deno.json"));
  const targets: (string | undefined)[] = values.all ? [...TARGETS] : [values.target];
  for (const target of targets) {
    const args = compileArgs(flags, target);
    console.error(`deno ${args.join(" ")}`);
    const { code } = await new Deno.Command(Deno.execPath(), {
      args,
      env: { DENO_NO_UPDATE_CHECK: "1" },
      stdout: "inherit",
      stderr: "inherit",
    })
      .output();
    if (code !== 0) {
      console.error(
        `deno compile failed for ${target ?? "the host"} (exit ${code}). Without internet access ` +
          "it cannot download its denort runtime: set DENORT_BIN to a local denort binary.",
      );
      Deno.exit(code);
    }
  }
}
