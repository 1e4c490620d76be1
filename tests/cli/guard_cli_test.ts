/**
 * `schemapin guard` arguments and inputs: every mistake is exit 2 with a message naming it,
 * before any server is started.
 */
import assert from "node:assert/strict";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import { completionSpec } from "../../cli/commands/completions.ts";
import { guardCommand } from "../../cli/commands/guard.ts";
import { serveCommand } from "../../cli/commands/serve.ts";
import { signToolsCommand } from "../../cli/commands/sign_tools.ts";
import { buildLock, lockServerEntry, serializeLock } from "../../lib/contractpin/lock.ts";
import {
  baseTools,
  makePublisher,
  runInProcess,
  withTempDir,
  writeLock,
} from "../guard/helpers.ts";

Deno.test("guard --help has an example; --help after -- belongs to the server", async () => {
  const help = await runInProcess(["guard", "--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Examples:\n {2}schemapin guard --lock/);
  assert.match(help.stdout, /dev\.schemapin\/signature/);
  const passed = await runInProcess([
    "guard",
    "--lock",
    "/nonexistent.lock",
    "--",
    "srv",
    "--help",
  ]);
  assert.equal(passed.code, 2);
  assert.match(passed.stderr, /cannot read \/nonexistent\.lock/);
  assert.match((await runInProcess(["--help"])).stdout, /guard .*\n.*|sign-tools/);
});

Deno.test("guard: usage and input errors are exit 2 and name the problem", async () => {
  await withTempDir(async (dir) => {
    const lock = `${dir}/contractpin.lock`;
    await writeLock(lock, "one", baseTools());
    const two = `${dir}/two.lock`;
    const e = lockServerEntry({ transport: "stdio", command: ["x"] }, digestToolList([]));
    await Deno.writeTextFile(two, serializeLock(buildLock({ a: e, b: e })));
    await Deno.writeTextFile(`${dir}/bad-discovery.json`, '{"schema_version":"1.4"}');
    await Deno.writeTextFile(`${dir}/corrupt.lock`, '{"contractpin":"9"}');
    const pub = await makePublisher(dir);
    const L = ["--lock", lock];
    const cases: [string[], RegExp][] = [
      [["guard", ...L], /server command goes after --/],
      [["guard", ...L, "--"], /server command goes after --/],
      [["guard", ...L, "stray", "--", "srv"], /unexpected argument "stray"/],
      [["guard", ...L, "--mode", "block", "--", "srv"], /--mode must be enforce, filter or audit/],
      [["guard", ...L, "--bogus", "--", "srv"], /guard: unknown option --bogus/],
      [["guard", "--lock", `${dir}/missing.lock`, "--", "srv"], /cannot read/],
      [["guard", "--lock", `${dir}/corrupt.lock`, "--", "srv"], /unsupported lock format version/],
      [
        ["guard", "--lock", two, "--", "srv"],
        /pins 2 servers; choose one with --server NAME \(a, b\)/,
      ],
      [["guard", ...L, "--server", "nope", "--", "srv"], /has no server "nope"/],
      [["guard", ...L, "--list-timeout", "0", "--", "srv"], /--list-timeout must be a positive/],
      [["guard", ...L, "--startup-timeout", "x", "--", "srv"], /--startup-timeout/],
      [
        ["guard", ...L, "--discovery", pub.discoveryFile, "--", "srv"],
        /--discovery goes with --signatures/,
      ],
      [
        ["guard", "--signatures", "--discovery", pub.discoveryFile, "--", "srv"],
        /--signatures needs --domain/,
      ],
      [["guard", "--signatures", "--domain", "a b", "--discovery", "x", "--", "srv"], /--domain/],
      [["guard", "--signatures", "--domain", "example.com", "--", "srv"], /exactly one key source/],
      [[
        "guard",
        "--signatures",
        "--domain",
        "example.com",
        "--discovery",
        `${dir}/bad-discovery.json`,
        "--",
        "srv",
      ], /bad-discovery\.json/],
      [
        [
          "guard",
          "--signatures",
          "--domain",
          "example.com",
          "--discovery",
          "x",
          "--bundle",
          "y",
          "--",
          "srv",
        ],
        /exactly one key source/,
      ],
      [["guard", ...L, "--well-known", "--", "srv"], /--well-known goes with --signatures/],
      [
        ["guard", ...L, "--authority", "k=sha256:00", "--", "srv"],
        /--authority goes with --signatures/,
      ],
      [
        [
          "guard",
          "--signatures",
          "--domain",
          "example.com",
          "--discovery",
          pub.discoveryFile,
          "--timeout",
          "3",
          "--",
          "srv",
        ],
        /--timeout goes with --well-known or --dns/,
      ],
      [["guard", ...L, "--listen", "127.0.0.1:1"], /--listen and --upstream go together/],
      [
        ["guard", ...L, "--listen", "0.0.0.0:8931", "--upstream", "http://127.0.0.1:9/mcp"],
        /not a loopback address/,
      ],
      [
        ["guard", ...L, "--listen", "127.0.0.1:99999", "--upstream", "http://127.0.0.1:9/mcp"],
        /--listen expects HOST:PORT/,
      ],
      [["guard", ...L, "--listen", "8931", "--upstream", "ftp://x/mcp"], /--upstream/],
      [
        ["guard", ...L, "--listen", "8931", "--upstream", "http://127.0.0.1:9/mcp", "--", "srv"],
        /either a command/,
      ],
      [["guard", ...L, "--allow-remote", "--", "srv"], /--allow-remote goes with --listen/],
      [
        ["guard", ...L, "--request-timeout", "5", "--", "srv"],
        /--request-timeout goes with --listen/,
      ],
      [["guard", ...L, "--log", `${dir}/no/such/dir/log`, "--", "srv"], /cannot open --log/],
    ];
    for (const [args, message] of cases) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(" "));
      assert.equal(r.stdout, "", "stdout is the protocol channel: nothing else goes there");
    }
  });
});

Deno.test("guard, serve, sign-tools: the help's option lists and the completions come from the flag tables", async () => {
  const spec = completionSpec(guardCommand);
  const sub = (name: string) => spec.subcommands.find((s) => s.name === name)!.flags;
  assert.deepEqual(spec.subcommands.map((s) => s.name), ["wrap", "unwrap"]);
  assert.deepEqual(
    [...sub("wrap")].sort(),
    ["--help", "--lock", "--mode", "--partial", "--port", "--project", "--schemapin-command"],
  );
  assert.deepEqual(sub("unwrap"), ["--project", "--help"]);
  // The proxy's flags are not offered to wrap, nor wrap's to the proxy's option list.
  assert.ok(!sub("wrap").includes("--signatures"));
  const help = (await runInProcess(["guard", "--help"])).stdout;
  const options = help.slice(help.indexOf("\nOptions:\n"), help.indexOf("\nLimits of --listen"));
  assert.match(options, /^ {2}--require-signed-lock {4}refuse to start/m);
  assert.doesNotMatch(options, /--partial|--schemapin-command|--max-connections/);
  // --timeout of the guard is the network deadline of its key sources; --list-timeout is MCP's.
  assert.match(options, /^ {2}--timeout SECONDS {8}network deadlines/m);
  assert.match(options, /not\s+an MCP timeout \(see --list-timeout\)/);
  assert.match(help, /^Options of wrap:\n {2}--lock FILE/m);
  assert.match(help, /^ {2}--idle-timeout SECONDS/m);
  assert.doesNotMatch(help, /--handshake-timeout/, "no TLS on --listen");

  const serve = completionSpec(serveCommand).flags;
  for (const flag of ["--tls-key", "--tls-cert", "--handshake-timeout", "--max-connections"]) {
    assert.ok(serve.includes(flag), flag);
  }
  // -k/--key is a signing key everywhere: serve's TLS key has its own name.
  for (const flag of ["--key", "-k", "--cert"]) assert.ok(!serve.includes(flag), flag);
  assert.match((await runInProcess(["serve", "--help"])).stdout, /--tls-key FILE +TLS private/);
  const signTools = completionSpec(signToolsCommand).flags;
  assert.ok(signTools.includes("-o") && signTools.includes("--timeout"));
  assert.match(
    (await runInProcess(["sign-tools", "--help"])).stdout,
    /^ {2}--timeout SECONDS {8}seconds for each MCP request after initialize/m,
  );
  // A flag of another subcommand or form is refused in our words.
  const wrongForm = await runInProcess(["guard", "wrap", "c.json", "--signatures"]);
  assert.equal(wrongForm.code, 2);
  assert.match(wrongForm.stderr, /^error: guard wrap: unknown option --signatures/);
  const oldSpelling = await runInProcess(["guard", "--require-signature", "--", "x"]);
  assert.equal(oldSpelling.code, 2, "the guard never had --require-signature");
  assert.match(oldSpelling.stderr, /unknown option --require-signature/);
});
