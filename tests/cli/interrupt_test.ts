// Ctrl-C and SIGTERM (issue 15 item 10): a command stopped while it writes removes its
// temporary files, erases its progress line and exits 130 (SIGINT) or 143 (SIGTERM); every
// file it did put in place is complete. Real processes, signalled with Deno.kill: a
// sign-schema batch of 3,000 schemas stopped once its first signatures exist (plain and on a
// pseudo-terminal), sign-skill on a terminal while it hashes, keygen, well-known and
// sign-skill stopped at their passphrase prompts, and a writer stopped in the middle of an
// atomic write (tests/fixtures/interrupt_writer.ts).
import assert from "node:assert/strict";
import { parsePublicKeyPem } from "../../keys.ts";
import { canonicalizeSchemapinV1Bytes, verifySchemaSignature } from "../../schema.ts";
import { handlesSignalsItself, SIGNAL_EXIT_CODES } from "../../cli/commands/interrupt.ts";
import { childCommand } from "../process.ts";
import { ignoreWithout } from "../required_tool.ts";
import { exists, runInProcess, schemapinTaskFlags, withTempDir } from "./run.ts";

const repo = new URL("../../", import.meta.url).pathname;
const dec = new TextDecoder();

/** Waits (polling) until `ready()` holds; fails if the child exits first. */
async function waitUntil(
  ready: () => boolean | Promise<boolean>,
  child: Deno.ChildProcess,
  what: string,
): Promise<void> {
  let exited = false;
  child.status.then(() => exited = true);
  while (!(await ready())) {
    if (exited) throw new Error(`the command ended before ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every `*.tmp-*` file under `dir`, recursively (relative paths). */
function tempFilesUnder(dir: string, prefix = ""): string[] {
  const found: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    const rel = prefix + e.name;
    if (e.isDirectory) found.push(...tempFilesUnder(`${dir}/${e.name}`, rel + "/"));
    else if (/\.tmp-/.test(e.name)) found.push(rel);
  }
  return found;
}

/** Names in `dir` ending in `suffix` (none when `dir` does not exist). */
function filesEndingIn(dir: string, suffix: string): string[] {
  try {
    return [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(suffix));
  } catch {
    return [];
  }
}

/** `schemapin args…` as a real process with the task's flags (stdout/stderr piped). */
async function spawnCli(args: string[], cwd: string): Promise<Deno.ChildProcess> {
  const flags = await schemapinTaskFlags();
  return childCommand(Deno.execPath(), {
    args: ["run", "--quiet", ...flags, `${repo}cli.ts`, ...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", INIT_CWD: "" },
  }).spawn();
}

/** A key pair and `n` small schemas in `dir/schemas`. */
async function batchFixture(dir: string, n: number): Promise<string> {
  const kg = await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/keys`]);
  assert.equal(kg.code, 0, kg.stderr);
  await Deno.mkdir(`${dir}/schemas`);
  for (let i = 0; i < n; i++) {
    Deno.writeTextFileSync(
      `${dir}/schemas/t${i}.json`,
      JSON.stringify({ name: `tool${i}`, description: `tool number ${i}`, inputSchema: {} }),
    );
  }
  return Deno.readTextFileSync(`${dir}/keys/public.pem`);
}

/** Every signature in `dir/sigs` verifies against its schema (none is partial). */
function assertSignaturesComplete(dir: string, publicPem: string): number {
  const pk = parsePublicKeyPem(publicPem);
  const sigs = filesEndingIn(`${dir}/sigs`, ".sig");
  for (const name of sigs) {
    const schema = JSON.parse(Deno.readTextFileSync(`${dir}/schemas/${name.slice(0, -4)}`));
    const signature = Deno.readTextFileSync(`${dir}/sigs/${name}`).trim();
    const check = verifySchemaSignature(canonicalizeSchemapinV1Bytes(schema), signature, pk);
    assert.equal(check.valid, true, `${name} is not a complete signature`);
  }
  return sigs.length;
}

const BATCH = 3000;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test({
    name: `sign-schema --batch stopped by ${signal}: exit ${
      SIGNAL_EXIT_CODES[signal]
    }, no temporary file, every signature written is complete`,
    ignore: Deno.build.os === "windows",
    fn: async () => {
      await withTempDir(async (dir) => {
        const publicPem = await batchFixture(dir, BATCH);
        const child = await spawnCli(
          [
            "sign-schema",
            "--batch",
            "schemas",
            "--out-dir",
            "sigs",
            "--key",
            "keys/private.pem",
            "-q",
          ],
          dir,
        );
        await waitUntil(() => filesEndingIn(`${dir}/sigs`, ".sig").length > 0, child, "a .sig");
        child.kill(signal);
        const { code, signal: killedBy, stderr } = await child.output();
        assert.equal(code, SIGNAL_EXIT_CODES[signal], dec.decode(stderr));
        assert.equal(killedBy, null, "exited through its handler, not killed by the signal");
        assert.deepEqual(tempFilesUnder(dir), []);
        const written = assertSignaturesComplete(dir, publicPem);
        assert.ok(written > 0 && written < BATCH, `${written} of ${BATCH} signed: not stopped`);
      });
    },
  });
}

Deno.test("a writer stopped in the middle of an atomic write: temp file removed, exit 130/143", async () => {
  for (
    const [mode, signal, expected] of [
      ["wait", "SIGINT", 130],
      ["wait", "SIGTERM", 143],
      ["exit-7", undefined, 7], // another component exits: the temp file goes all the same
    ] as const
  ) {
    if (Deno.build.os === "windows" && signal === "SIGTERM") continue;
    await withTempDir(async (dir) => {
      const child = childCommand(Deno.execPath(), {
        args: ["run", "--quiet", "-A", `${repo}tests/fixtures/interrupt_writer.ts`, mode, dir],
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const reader = child.stdout.getReader();
      let out = "";
      while (!out.includes("ready")) {
        const { value, done } = await reader.read();
        if (done) break;
        out += dec.decode(value);
      }
      assert.match(out, /ready/);
      const tmp = `${dir}/.out.json.tmp-${child.pid}-0`;
      if (signal !== undefined) {
        assert.ok(await exists(tmp), "the temporary file exists while the write is under way");
        child.kill(signal);
      }
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        out += dec.decode(value);
      }
      const status = await child.status;
      await child.stderr.cancel();
      assert.equal(status.code, expected, `${mode} ${signal}`);
      assert.equal(await exists(tmp), false, `${mode} ${signal}: ${tmp} left behind`);
      assert.match(out, /erased/, "the stop actions ran (the progress line's eraser)");
      assert.deepEqual([...Deno.readDirSync(dir)], []);
    });
  }
});

Deno.test("handlesSignalsItself: guard and serve stop gracefully on their own handlers", () => {
  assert.equal(handlesSignalsItself(["serve", "--cert", "c"]), true);
  assert.equal(handlesSignalsItself(["guard", "--", "server"]), true);
  assert.equal(handlesSignalsItself(["guard", "--listen", "127.0.0.1:0"]), true);
  assert.equal(handlesSignalsItself(["guard", "wrap", "mcp.json"]), false);
  assert.equal(handlesSignalsItself(["guard", "unwrap", "mcp.json"]), false);
  assert.equal(handlesSignalsItself(["sign-schema", "--batch", "s"]), false);
  assert.equal(handlesSignalsItself(["keygen", "--unencrypted", "--out-dir", "serve"]), false);
  assert.equal(handlesSignalsItself([]), false);
});

// ---------------------------------------------------------------- on a terminal

/**
 * `script` (util-linux; Debian: bsdutils) gives the command a pseudo-terminal, so its progress
 * line and prompts are drawn as for a user. Linux only; a missing `script` fails on CI.
 */
const noScript = Deno.build.os !== "linux" || ignoreWithout(
  "script",
  await childCommand("script", { args: ["--version"], stdout: "null", stderr: "null" })
    .output().then((o) => o.success, () => false),
  ".ci/run (Debian: bsdutils)",
);

/**
 * Runs `schemapin args…` on a pseudo-terminal in `cwd`; once `ready(screen)` holds, sends
 * `signal` to the CLI process itself (the shell `script` starts is replaced by it). Returns
 * the exit code and everything drawn on the terminal.
 */
async function stopOnTerminal(
  args: string[],
  cwd: string,
  ready: (screen: string) => boolean,
  signal: "SIGINT" | "SIGTERM",
): Promise<{ code: number; screen: string }> {
  const flags = await schemapinTaskFlags();
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [Deno.execPath(), "run", "--quiet", ...flags, `${repo}cli.ts`, ...args].map(quote);
  const pidFile = `${cwd}/.cli-pid`;
  const child = childCommand("script", {
    args: [
      "-q",
      "-f",
      "-e",
      "-c",
      `echo $$ > ${quote(pidFile)}; exec ${cmd.join(" ")}`,
      "/dev/null",
    ],
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1", INIT_CWD: "" },
  }).spawn();
  const reader = child.stdout.getReader();
  let screen = "";
  let sent = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      screen += dec.decode(value);
      if (!sent && ready(screen)) {
        sent = true;
        Deno.kill(Number(Deno.readTextFileSync(pidFile).trim()), signal);
      }
    }
  } finally {
    await child.stdin.close().catch(() => {});
  }
  const { code } = await child.status;
  await Deno.remove(pidFile).catch(() => {});
  assert.ok(sent, `never ready:\n${JSON.stringify(screen.slice(-500))}`);
  return { code, screen };
}

/** The last progress line drawn (`\r<text>\x1b[K`) is followed by an erase (`\r\x1b[K`). */
function assertProgressErased(screen: string, label: string): void {
  const draws = [...screen.matchAll(new RegExp(`\\r${label}[^\\r]*\\x1b\\[K`, "g"))];
  assert.ok(draws.length > 0, `no progress line drawn:\n${JSON.stringify(screen.slice(-300))}`);
  const last = draws[draws.length - 1];
  const after = screen.slice(last.index! + last[0].length);
  assert.ok(after.includes("\r\x1b[K"), `the last progress line stays:\n${JSON.stringify(after)}`);
}

Deno.test({
  name: "on a terminal: Ctrl-C during sign-schema --batch erases the progress line",
  ignore: noScript,
  fn: async () => {
    await withTempDir(async (dir) => {
      const publicPem = await batchFixture(dir, BATCH);
      const { code, screen } = await stopOnTerminal(
        ["sign-schema", "--batch", "schemas", "--out-dir", "sigs", "--key", "keys/private.pem"],
        dir,
        // deno-lint-ignore no-control-regex
        (s) => /\rsign-schema: [0-9,]+\/3,000 schemas\x1b\[K/.test(s),
        "SIGINT",
      );
      assert.equal(code, 130, screen.slice(-500));
      assertProgressErased(screen, "sign-schema: ");
      assert.deepEqual(tempFilesUnder(dir), []);
      const written = assertSignaturesComplete(dir, publicPem);
      assert.ok(written < BATCH, "stopped before the end");
    });
  },
});

Deno.test({
  name: "on a terminal: Ctrl-C while sign-skill hashes erases the line and writes no signature",
  ignore: noScript,
  fn: async () => {
    await withTempDir(async (dir) => {
      assert.equal(
        (await runInProcess(["keygen", "--unencrypted", "--out-dir", `${dir}/keys`])).code,
        0,
      );
      const skill = `${dir}/skill`;
      await Deno.mkdir(`${skill}/data`, { recursive: true });
      Deno.writeTextFileSync(`${skill}/SKILL.md`, "---\nname: big\n---\nA large skill.\n");
      // 2 GiB in 8 sparse files (no disk used): hashing takes seconds on any machine, so the
      // progress line (drawn after PROGRESS_DELAY_MS) is always up before the hash is done. A
      // folder hashed in less than that (9,000 small files once) drew no line on a fast run.
      for (let i = 0; i < 8; i++) {
        using f = await Deno.open(`${skill}/data/f${i}.bin`, { write: true, create: true });
        await f.truncate(256 << 20);
      }
      const { code, screen } = await stopOnTerminal(
        [
          "sign-skill",
          "skill",
          "--key",
          "keys/private.pem",
          "--domain",
          "example.com",
          "--max-bytes",
          "4G",
        ],
        dir,
        (s) => /\rsign-skill: [0-9,]+\/9 files/.test(s),
        "SIGINT",
      );
      assert.equal(code, 130, screen.slice(-500));
      assertProgressErased(screen, "sign-skill: ");
      assert.equal(await exists(`${skill}/.schemapin.sig`), false);
      assert.deepEqual(tempFilesUnder(dir), []);
    });
  },
});

Deno.test({
  name: "on a terminal: keygen, well-known and sign-skill stopped at their passphrase prompt",
  ignore: noScript,
  fn: async () => {
    await withTempDir(async (dir) => {
      Deno.writeTextFileSync(`${dir}/pass`, "correct horse\n");
      const enc = await runInProcess([
        "keygen",
        "--out",
        `${dir}/enc`,
        "--encrypt",
        "--passphrase-file",
        `${dir}/pass`,
      ]);
      assert.equal(enc.code, 0, enc.stderr);
      await Deno.mkdir(`${dir}/skill`);
      Deno.writeTextFileSync(`${dir}/skill/SKILL.md`, "---\nname: s\n---\nhi\n");
      const cases: [string[], RegExp, "SIGINT" | "SIGTERM", string[]][] = [
        [["keygen", "--out-dir", "new", "--encrypt"], /New passphrase for/, "SIGINT", ["new"]],
        [["keygen", "--out-dir", "new2", "--encrypt"], /New passphrase for/, "SIGTERM", ["new2"]],
        [
          ["well-known", "--key", "enc/private.pem", "--developer", "Acme", "--out", "wk.json"],
          /Passphrase for/,
          "SIGTERM",
          ["wk.json"],
        ],
        [
          ["sign-skill", "skill", "--key", "enc/private.pem", "--domain", "example.com"],
          /Passphrase for/,
          "SIGINT",
          ["skill/.schemapin.sig"],
        ],
      ];
      for (const [args, prompt, signal, notWritten] of cases) {
        const { code, screen } = await stopOnTerminal(args, dir, (s) => prompt.test(s), signal);
        assert.equal(code, SIGNAL_EXIT_CODES[signal], `${args[0]}: ${screen}`);
        for (const path of notWritten) {
          assert.equal(await exists(`${dir}/${path}`), false, `${args[0]}: ${path} written`);
        }
        assert.deepEqual(tempFilesUnder(dir), [], args[0]);
      }
    });
  },
});

Deno.test("schemapin --help documents the exit codes after a signal", async () => {
  const r = await runInProcess(["--help"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^130\/143 stopped by Ctrl-C\/SIGTERM \(temporary files removed/m);
});
