/**
 * The one way the tests and their helpers start a child process: {@linkcode childCommand} is
 * `new Deno.Command` with {@linkcode CHILD_ENV} added to the child's environment.
 *
 * Why: a child `deno` checks once a day for a newer Deno release, in the background, by
 * fetching https://dl.deno.land/…. With the HTTPS_PROXY of a network test that request goes
 * through the test's recording proxy, and a test that asserts what reached the proxy fails in
 * some runs and not in others (whenever the daily check is due). DENO_NO_UPDATE_CHECK=1 turns
 * the check off. `deno task test` sets it for the whole run as well (processes that the code
 * under test starts inherit it), and tests/process_guard_test.ts fails when a file under
 * tests/ or scripts/ starts a process some other way.
 *
 * Hermetic (issue 37 item 3): the variables schemapin itself reads ({@linkcode SCHEMAPIN_ENV})
 * are removed from this process's environment when this module loads — and `deno task test`
 * unsets them before the run starts — so a user's `SCHEMAPIN_PASSPHRASE`, `SCHEMAPIN_HOME`, …
 * reach neither the CLI run in process nor any child: every test sees them unset, as on CI, and
 * a test that needs one sets it itself. tests/hermetic_test.ts checks the list against lib/ and
 * runs representative tests with hostile values, another HOME and a fresh TMPDIR.
 *
 * @module
 */

/**
 * The environment variables schemapin reads (the names lib/ looks up): the passphrase of an
 * encrypted key, the folder of the default pin and lineage stores, the batch's worker count and
 * the stack traces of `SCHEMAPIN_DEBUG`. The tests' own settings (`SCHEMAPIN_NODE22`,
 * `SCHEMAPIN_PYTHON_MCP`, … which .ci/run sets) are not among them and are kept.
 */
export const SCHEMAPIN_ENV: readonly string[] = Object.freeze([
  "SCHEMAPIN_PASSPHRASE",
  "SCHEMAPIN_HOME",
  "SCHEMAPIN_BATCH_THREADS",
  "SCHEMAPIN_DEBUG",
]);

for (const name of SCHEMAPIN_ENV) Deno.env.delete(name);

/** Variables every child process started by the tests gets. */
export const CHILD_ENV: Readonly<Record<string, string>> = Object.freeze({
  DENO_NO_UPDATE_CHECK: "1",
});

/** `env` with {@linkcode CHILD_ENV} added (it cannot be overridden). */
export function childEnv(env: Record<string, string> = {}): Record<string, string> {
  return { ...env, ...CHILD_ENV };
}

/** `new Deno.Command(program, options)` with {@linkcode CHILD_ENV} in the child's environment. */
export function childCommand(
  program: string | URL,
  options: Deno.CommandOptions = {},
): Deno.Command {
  return new Deno.Command(program, { ...options, env: childEnv(options.env) });
}

/** The running `deno` (`Deno.execPath()`) with `args`, through {@linkcode childCommand}. */
export function denoCommand(
  args: string[],
  options: Omit<Deno.CommandOptions, "args"> = {},
): Deno.Command {
  return childCommand(Deno.execPath(), { ...options, args });
}
