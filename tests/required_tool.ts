/**
 * Tests that need an external program (dnsmasq, node) skip with a note when it is missing on
 * a developer's machine — but on CI (`CI=true`), where `.ci/run` installs it, a missing program
 * is a failing test, never a silent skip.
 *
 * @module
 */

/**
 * The `ignore` value for tests that need `tool`: false when it is present. When it is missing,
 * true off CI (and a note on stderr), and on CI a failing test is registered that says what
 * should have installed it.
 */
export function ignoreWithout(tool: string, present: boolean, installedBy: string): boolean {
  if (present) return false;
  if (Deno.env.get("CI") === "true") {
    Deno.test(`${tool} is installed (CI=true)`, () => {
      throw new Error(`${tool} is missing on CI: ${installedBy} must install it`);
    });
  } else {
    console.error(`${tool} not found: skipping the tests that need it (${installedBy})`);
  }
  return true;
}
