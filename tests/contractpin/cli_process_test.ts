/**
 * The real CLI (`deno run <schemapin task flags> cli.ts contract …`) as a user runs it: a
 * published MCP server package started through npx, and the §6 exit codes as seen by a shell.
 * The npx test downloads the package on a fresh machine, hence the generous start-up timeout.
 */
import assert from "node:assert/strict";
import { EVERYTHING_PACKAGE, rawCommand, runCliProcess, withTempDir } from "./helpers.ts";

Deno.test({
  name: `published server ${EVERYTHING_PACKAGE} via npx: init, verify 0, modified lock 1`,
  async fn() {
    await withTempDir(async (dir) => {
      const init = await runCliProcess([
        "contract",
        "init",
        "--startup-timeout",
        "240",
        "--timeout",
        "60",
        "--server",
        "everything",
        "--",
        "npx",
        "-y",
        EVERYTHING_PACKAGE,
      ], { cwd: dir });
      assert.equal(init.code, 0, init.stderr);
      const lockText = await Deno.readTextFile(`${dir}/contractpin.lock`);
      const lock = JSON.parse(lockText);
      const server = lock.servers.everything;
      assert.deepEqual(server.command, ["npx", "-y", EVERYTHING_PACKAGE]);
      assert.ok(server.tool_count >= 5, `only ${server.tool_count} tools`);
      assert.ok(Object.hasOwn(server.tools, "echo"), "server-everything has an echo tool");

      const verify = await runCliProcess(["contract", "verify", "--startup-timeout", "240"], {
        cwd: dir,
      });
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
      assert.match(
        verify.stdout,
        new RegExp(`^ok +everything \\(stdio\\): ${server.tool_count} unchanged`, "m"),
      );

      // A lock that pins a different contract for echo: drift, exit 1, echo named.
      lock.servers.everything.tools.echo.digest = "sha256:" + "0".repeat(64);
      lock.servers.everything.tools.echo.fields.description = "sha256:" + "1".repeat(64);
      await Deno.writeTextFile(`${dir}/contractpin.lock`, JSON.stringify(lock, null, 2) + "\n");
      const drift = await runCliProcess(["contract", "verify", "--startup-timeout", "240"], {
        cwd: dir,
      });
      assert.equal(drift.code, 1, drift.stdout + drift.stderr);
      assert.match(drift.stdout, /^ {2}drifted {2}echo: description$/m);
    });
  },
});

Deno.test("real CLI: exit codes 0 / 1 / 2 as a shell sees them", async () => {
  await withTempDir(async (dir) => {
    const lock = `${dir}/contractpin.lock`;
    const init = await runCliProcess([
      "contract",
      "init",
      "--lock",
      lock,
      "--server",
      "raw",
      "--",
      ...rawCommand("ok"),
    ]);
    assert.equal(init.code, 0, init.stderr);
    assert.equal((await runCliProcess(["contract", "verify", "--lock", lock])).code, 0);
    const text = await Deno.readTextFile(lock);
    await Deno.writeTextFile(lock, text.replace('"ok"', '"exit-early"'));
    const down = await runCliProcess(["contract", "verify", "--lock", lock]);
    assert.equal(down.code, 1);
    assert.match(down.stdout, /UNREACHABLE raw/);
    await Deno.writeTextFile(lock, text.replace('"contractpin": "1"', '"contractpin": "7"'));
    const version = await runCliProcess(["contract", "verify", "--lock", lock]);
    assert.equal(version.code, 2);
    assert.match(version.stderr, /unsupported lock format version "7"/);
    assert.equal((await runCliProcess(["contract", "verify", "--bogus"])).code, 2);
    const help = await runCliProcess(["contract", "--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit codes: 0/);
  });
});
