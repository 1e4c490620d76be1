// Batches at scale (issue 14): a first-use batch of 10,000 schemas keeps every pin; two
// batches running at once on one pin store lose none and never overwrite each other's pins;
// a batch killed with SIGKILL has written every pin it reported; -q and the progress line.
import assert from "node:assert/strict";
import { runCli } from "../../cli/commands/main.ts";
import type { CliIO } from "../../cli/commands/command.ts";
import { generateKeyPair, type PrivateKey, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import { FilePinStore } from "../../lib/pins/store.ts";
import { childCommand } from "../process.ts";
import { runInProcess, schemapinTaskFlags, withTempDir } from "./run.ts";
import { batchArgs, writeDiscovery } from "./batch_fixtures.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

/** `count` schemas named `${prefix}-i` signed by `key`, in `dir`, and the discovery document. */
function makeBatch(dir: string, key: PrivateKey, prefix: string, count: number): string {
  Deno.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const schema = { name: `${prefix}-${i}`, description: `tool ${i}`, inputSchema: { n: i } };
    Deno.writeTextFileSync(`${dir}/${prefix}-${i}.json`, JSON.stringify(schema));
    Deno.writeTextFileSync(`${dir}/${prefix}-${i}.json.sig`, signSchemaBase64(schema, key));
  }
  return writeDiscovery(`${dir}.discovery.json`, key, "Scale Corp");
}

/** A terminal-like CliIO that records stdout, stderr and progress writes. */
function terminalIO() {
  const rec = { stdout: "", stderr: "", progress: [] as string[] };
  const io: CliIO = {
    stdout: (d) => Promise.resolve(void (rec.stdout += String(d))),
    stderr: (t) => Promise.resolve(void (rec.stderr += t)),
    readStdin: () => Promise.resolve(new Uint8Array()),
    stderrIsTerminal: true,
    progress: (t) => void rec.progress.push(t),
  };
  return { io, rec };
}

Deno.test("batch: a first-use batch of 10,000 schemas keeps all 10,000 pins", async () => {
  await withTempDir(async (dir) => {
    const discovery = makeBatch(`${dir}/s`, generateKeyPair(), "tool", 10_000);
    const { io, rec } = terminalIO();
    const pins = `${dir}/pins.json`;
    const code = await runCli(batchArgs(`${dir}/s`, discovery, pins, "--trust-first-use"), io);
    assert.equal(code, 0, rec.stderr);
    assert.match(rec.stdout, /10000 of 10000 schema\(s\) verified, 0 failed\n$/);
    assert.equal(rec.stdout.split("\n").filter((l) => l.startsWith("OK ")).length, 10_000);
    const stored = await new FilePinStore(pins).list();
    assert.equal(stored.length, 10_000);
    assert.equal(new Set(stored.map((p) => p.toolId)).size, 10_000);
    assert.ok(stored.every((p) => p.source === "first_use"));
    // A terminal gets a counter (the run takes seconds), erased at the end.
    assert.ok(
      // deno-lint-ignore no-control-regex -- the progress line ends with ESC [K (erase line)
      rec.progress.some((t) => /^\rverify-schema: [\d,]+\/10,000 schemas\x1b\[K$/.test(t)),
      `no progress line in ${JSON.stringify(rec.progress.slice(0, 3))}`,
    );
    assert.equal(rec.progress.at(-1), "\r\x1b[K");
    // Steady state: every pin matches; -q prints only the summary and no progress.
    const again = terminalIO();
    const code2 = await runCli(batchArgs(`${dir}/s`, discovery, pins, "-q"), again.io);
    assert.equal(code2, 0, again.rec.stderr);
    assert.equal(again.rec.stdout, "10000 of 10000 schema(s) verified, 0 failed\n");
    assert.deepEqual(again.rec.progress, []);
  });
});

/** Starts the real CLI as a process. */
async function spawnCli(args: string[]): Promise<Deno.ChildProcess> {
  return childCommand(Deno.execPath(), {
    args: ["run", "--quiet", ...(await schemapinTaskFlags()), CLI, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function finish(child: Deno.ChildProcess) {
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("batch: two batches at once on one pin store lose no pin", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    const pins = `${dir}/pins.json`;
    // Each batch has its own tools and 500 tools both have.
    const a = makeBatch(`${dir}/a`, key, "a", 1500);
    const b = makeBatch(`${dir}/b`, key, "b", 1500);
    makeBatch(`${dir}/a`, key, "shared", 500);
    makeBatch(`${dir}/b`, key, "shared", 500);
    const [ra, rb] = await Promise.all([
      spawnCli(batchArgs(`${dir}/a`, a, pins, "--trust-first-use", "-q")).then(finish),
      spawnCli(batchArgs(`${dir}/b`, b, pins, "--trust-first-use", "-q")).then(finish),
    ]);
    assert.equal(ra.code, 0, ra.stderr + ra.stdout.slice(0, 2000));
    assert.equal(rb.code, 0, rb.stderr + rb.stdout.slice(0, 2000));
    const stored = await new FilePinStore(pins).list();
    assert.equal(stored.length, 3500);
    for (const prefix of ["a", "b", "shared"]) {
      const n = prefix === "shared" ? 500 : 1500;
      assert.equal(stored.filter((p) => p.toolId.startsWith(`${prefix}-`)).length, n, prefix);
    }
  });
});

Deno.test("batch: racing first uses with different keys: each tool pinned once, loser fails", async () => {
  await withTempDir(async (dir) => {
    const pins = `${dir}/pins.json`;
    const key1 = generateKeyPair();
    const key2 = generateKeyPair();
    const d1 = makeBatch(`${dir}/one`, key1, "tool", 800);
    const d2 = makeBatch(`${dir}/two`, key2, "tool", 800);
    const [r1, r2] = await Promise.all([
      spawnCli(batchArgs(`${dir}/one`, d1, pins, "--trust-first-use")).then(finish),
      spawnCli(batchArgs(`${dir}/two`, d2, pins, "--trust-first-use")).then(finish),
    ]);
    const ok = (r: { stdout: string }) =>
      new Set([...r.stdout.matchAll(/^OK +\S+ \((tool-\d+)@example\.com\)$/gm)].map((m) => m[1]));
    const ok1 = ok(r1), ok2 = ok(r2);
    const stored = new Map((await new FilePinStore(pins).list()).map((p) => [p.toolId, p]));
    assert.equal(stored.size, 800);
    for (let i = 0; i < 800; i++) {
      const tool = `tool-${i}`;
      assert.ok(ok1.has(tool) !== ok2.has(tool), `${tool}: exactly one batch may succeed`);
      const winner = ok1.has(tool) ? key1 : key2;
      assert.equal(stored.get(tool)!.fingerprint, winner.publicKey.fingerprint, tool);
    }
    const mismatches = [r1, r2].reduce(
      (n, r) => n + (r.stdout.match(/: KEY_PIN_MISMATCH: /g) ?? []).length,
      0,
    );
    assert.equal(mismatches, 800, "every loser is reported as KEY_PIN_MISMATCH");
    assert.equal(r1.code === 0 && r2.code === 0, false);
  });
});

Deno.test("batch: killed with SIGKILL, every pin it reported is in the store", async () => {
  await withTempDir(async (dir) => {
    const pins = `${dir}/pins.json`;
    const discovery = makeBatch(`${dir}/s`, generateKeyPair(), "tool", 12_000);
    const child = await spawnCli(batchArgs(`${dir}/s`, discovery, pins, "--trust-first-use"));
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!/^OK .*\n[^]*^OK /m.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    child.kill("SIGKILL");
    await reader.cancel();
    await child.stderr.cancel();
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL", "the batch finished before it could be killed");
    const reported = [...text.matchAll(/^OK +\S+ \((tool-\d+)@example\.com\)$/gm)].map((m) => m[1]);
    assert.ok(reported.length >= 2);
    const stored = new Set((await new FilePinStore(pins).list()).map((p) => p.toolId));
    for (const tool of reported) assert.ok(stored.has(tool), `${tool} was reported but lost`);
    // The next run finds what was written and pins the rest.
    const rest = await runInProcess(
      batchArgs(`${dir}/s`, discovery, pins, "--trust-first-use", "-q"),
    );
    assert.equal(rest.code, 0, rest.stderr);
    assert.equal((await new FilePinStore(pins).list()).length, 12_000);
  });
});

Deno.test("batch: -q prints failures and the summary only; a pipe gets no progress", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    const discovery = makeBatch(`${dir}/s`, key, "tool", 5);
    Deno.writeTextFileSync(`${dir}/s/tool-3.json`, JSON.stringify({ name: "tool-3", x: 1 }));
    const pins = `${dir}/pins.json`;
    const quiet = await runInProcess(
      batchArgs(`${dir}/s`, discovery, pins, "--trust-first-use", "-q"),
    );
    assert.equal(quiet.code, 1);
    assert.match(
      quiet.stdout,
      /^FAIL \S+tool-3\.json: SIGNATURE_INVALID: [^\n]+\n4 of 5 schema\(s\) verified, 1 failed\n$/,
    );
    const loud = await runInProcess(batchArgs(`${dir}/s`, discovery, pins, "--quiet"));
    assert.equal(loud.stdout, quiet.stdout.replace(/ \(pinned[^)]*\)/g, ""));
    const full = await runInProcess(batchArgs(`${dir}/s`, discovery, pins));
    assert.equal(full.stdout.split("\n").filter((l) => l.startsWith("OK ")).length, 4);
    // sign-schema: the same rules.
    const out = `${dir}/sigs`;
    Deno.writeTextFileSync(`${dir}/private.pem`, privateKeyToPem(key));
    Deno.writeTextFileSync(`${dir}/s/broken.json`, "{");
    const signed = await runInProcess([
      "sign-schema",
      "--batch",
      `${dir}/s`,
      "--out-dir",
      out,
      "--key",
      `${dir}/private.pem`,
      "-q",
    ]);
    assert.equal(signed.code, 2);
    assert.equal(signed.stdout, "5 of 6 schema(s) signed, 1 failed\n");
    assert.match(signed.stderr, /^error: \S+broken\.json: JSON_INVALID: /);
    assert.deepEqual(
      [...Deno.readDirSync(out)].map((e) => e.name).sort(),
      [
        "tool-0.json.sig",
        "tool-1.json.sig",
        "tool-2.json.sig",
        "tool-3.json.sig",
        "tool-4.json.sig",
      ],
      "no temporary file left behind",
    );
  });
});

Deno.test("sign-schema --batch: a killed batch's temporary files are removed by the next", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    makeBatch(`${dir}/s`, key, "tool", 3);
    Deno.writeTextFileSync(`${dir}/private.pem`, privateKeyToPem(key));
    const out = `${dir}/sigs`;
    Deno.mkdirSync(out);
    // A dead writer's leftover (pid that cannot exist), a live one's (ours), a foreign file.
    const uuid = crypto.randomUUID();
    const dead = `.tool-0.json.sig.tmp-999999999-${uuid}`;
    const live = `.tool-1.json.sig.tmp-${Deno.pid}-${uuid}`;
    for (const f of [dead, live, "notes.txt"]) Deno.writeTextFileSync(`${out}/${f}`, "x");
    const r = await runInProcess([
      "sign-schema",
      "--batch",
      `${dir}/s`,
      "--out-dir",
      out,
      "--key",
      `${dir}/private.pem`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const names = new Set([...Deno.readDirSync(out)].map((e) => e.name));
    assert.ok(!names.has(dead), "the dead writer's file is removed");
    assert.ok(names.has(live) && names.has("notes.txt"), "nothing else is touched");
    assert.equal(r.stdout.split("\n").filter((l) => l.startsWith("signed ")).length, 3);
  });
});
