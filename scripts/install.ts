/**
 * `deno task install`: puts `schemapin` on PATH from this checkout, so it runs from any folder
 * on the caller's relative paths — `deno install -g` with exactly the permission flags of the
 * `schemapin` task (read from deno.json, like `deno task compile`) and `--config` naming the
 * checkout's deno.json, so the import map resolves wherever the command is started.
 *
 *   deno task install                 # → $DENO_INSTALL_ROOT/bin/schemapin (default ~/.deno/bin)
 *   deno task install --force         # replace an earlier install (after updating the checkout)
 *   deno task install --print         # print the deno install command instead of running it
 *   deno task install --root DIR      # install into DIR/bin
 *
 * The installed command is a small script that runs `deno` from PATH. The task refuses (exit 1,
 * nothing installed) when PATH has no `deno` outside a package-manager cache: under
 * `npx -y deno@2.9.6 task install` the only `deno` on PATH is npx's own, which is on PATH only
 * while npx runs, so the installed command could not start (`exec: deno: not found`); the
 * message gives the fix, `npm i -g deno@2.9.6`. Only npm packages are fetched (the import map
 * has no JSR dependency).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { delimiter, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheReason } from "../cli/guard/schemapin_path.ts";
import { taskRunFlags } from "./compile.ts";
import { shellLine } from "./shell.ts";

/** What {@linkcode installArgs} needs beyond the flags. */
export interface InstallOptions {
  /** The checkout's folder (absolute). */
  readonly checkout: string;
  /** The command's name (default `schemapin`). */
  readonly name?: string;
  /** `--root DIR` (else deno's default: `$DENO_INSTALL_ROOT`, then `~/.deno`). */
  readonly root?: string;
  /** Replace an existing command of that name. */
  readonly force?: boolean;
}

/**
 * The `deno install` argument list: `install -g --name NAME [--root DIR] [--force] <task flags>
 * --frozen=false --config <checkout>/deno.json <checkout>/cli.ts`.
 *
 * `--frozen=false`: `deno install -g` copies deno.json next to the command and writes a new
 * lockfile there, which the checkout's `"lock": {"frozen": true}` would refuse; it locks the
 * same packages as deno.lock (only `@noble/curves` and `@noble/hashes`).
 *
 * @example
 * ```ts ignore
 * installArgs(["--allow-read"], { checkout: "/src/schemapin" });
 * ```
 */
export function installArgs(flags: readonly string[], options: InstallOptions): string[] {
  return [
    "install",
    "-g",
    "--name",
    options.name ?? "schemapin",
    ...(options.root !== undefined ? ["--root", options.root] : []),
    ...(options.force ? ["--force"] : []),
    ...flags,
    "--frozen=false",
    "--config",
    join(options.checkout, "deno.json"),
    join(options.checkout, "cli.ts"),
  ];
}

/**
 * True when a folder of `path` (a PATH value) holds a `deno` executable that is there for good:
 * a folder inside a package-manager cache (npx's `_npx/…/node_modules/.bin`, which npx puts on
 * PATH only while it runs, `node_modules/`, `~/.npm`, `~/.cache`, the Deno cache) does not count
 * (`cacheReason` of cli/guard/schemapin_path.ts, with `env` naming the caches).
 */
export async function denoOnPath(
  path: string | undefined,
  env: (name: string) => string | undefined = () => undefined,
): Promise<boolean> {
  const names = Deno.build.os === "windows" ? ["deno.exe", "deno.cmd", "deno.bat"] : ["deno"];
  for (const dir of (path ?? "").split(delimiter)) {
    if (!dir) continue;
    for (const name of names) {
      if (isAbsolute(dir) && cacheReason(join(dir, name), env) !== undefined) continue;
      const info = await Deno.stat(join(dir, name)).catch(() => undefined);
      if (info?.isFile && (Deno.build.os === "windows" || ((info.mode ?? 0) & 0o111) !== 0)) {
        return true;
      }
    }
  }
  return false;
}

const HELP = `deno task install — put schemapin on PATH from this checkout

Usage: deno task install [--force] [--root DIR] [--name NAME] [--print]

Runs deno install -g with the schemapin task's permission flags and --config naming this
checkout's deno.json, so \`schemapin\` runs from any folder on that folder's relative paths.
The command lands in DIR/bin (--root; default $DENO_INSTALL_ROOT, else ~/.deno) and runs the
\`deno\` found on PATH: without one outside a package-manager cache (only npx's, say) nothing is
installed and the task says to run npm i -g deno@2.9.6 first.

Options:
  --force       replace an existing command (re-run after updating the checkout)
  --root DIR    installation root (the command goes to DIR/bin)
  --name NAME   command name (default schemapin)
  --print       print the deno install command instead of running it

Exit codes: 0 installed (or printed); 1 refused: no deno on PATH for the installed command;
2 bad arguments; otherwise deno install's own.

Example:
  deno task install && schemapin --version
`;

if (import.meta.main) {
  let values;
  try {
    ({ values } = parseArgs({
      args: Deno.args,
      options: {
        force: { type: "boolean" },
        root: { type: "string" },
        name: { type: "string" },
        print: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    console.error(`error: install: ${e instanceof Error ? e.message : e} (see --help)`);
    Deno.exit(2);
  }
  if (values.help) {
    console.log(HELP);
    Deno.exit(0);
  }
  if (values.name !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(values.name)) {
    console.error(`error: install: --name must be a plain command name, got ${values.name}`);
    Deno.exit(2);
  }
  const checkout = fileURLToPath(new URL("../", import.meta.url)).replace(/[\\/]$/, "");
  const flags = taskRunFlags(await Deno.readTextFile(join(checkout, "deno.json")));
  const args = installArgs(flags, { checkout, ...values });
  if (values.print) {
    console.log(shellLine(["deno", ...args]));
    Deno.exit(0);
  }
  const env = (name: string) => Deno.env.get(name);
  if (!await denoOnPath(Deno.env.get("PATH"), env)) {
    console.error(
      "error: install: the installed schemapin runs `deno` from PATH, and PATH has no deno " +
        "outside a package-manager cache (npx puts its own deno on PATH only while it runs), " +
        "so the command would not start; nothing was installed. Install Deno first — " +
        "`npm i -g deno@2.9.6` (or put deno on PATH) — then run `deno task install` again.",
    );
    Deno.exit(1);
  }
  console.error(shellLine(["deno", ...args]));
  const { code } = await new Deno.Command(Deno.execPath(), {
    args,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) Deno.exit(code);
}
