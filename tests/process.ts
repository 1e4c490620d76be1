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
 * @module
 */

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
