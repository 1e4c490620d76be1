/**
 * The `schemapin` command-line entry point (`deno task schemapin`, or the compiled binary).
 *
 * @example
 * ```sh
 * deno task schemapin keygen --out ./keys
 * ```
 * @module
 */
import { processIO, runCli } from "./lib/cli/main.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args, processIO()));
}
