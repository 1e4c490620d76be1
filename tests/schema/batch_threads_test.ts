// Batches on worker threads (issue 14, lib/schema/batch_pool.ts): the threads change the speed,
// never the result. Every test compares against the same work done on one thread — the same
// signature files byte for byte, the same verification report — including the failures
// (tampered, unsigned, wrong key, malformed, unsignable), and checks that a pool that breaks
// fails loudly instead of hanging or answering wrong.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  BATCH_AHEAD,
  BATCH_CHUNK,
  BatchPool,
  batchThreads,
  batchThreadsSetting,
  BatchWorkers,
  chunksAhead,
  MAX_BATCH_THREADS,
  POOL_FROM,
} from "../../lib/schema/batch_pool.ts";
import { signOne } from "../../lib/schema/sign_one.ts";
import { generateKeyPair, type PrivateKey, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { signSchemaBase64, signSchemaDocument } from "../../lib/schema/document.ts";
import { precheckedSignatureCount, precheckSchemaSignature } from "../../lib/schema/verify.ts";
import { ENTRY_POINTS } from "../entry_points.ts";
import { createHash, createPublicKey, verify } from "node:crypto";
import { Buffer } from "node:buffer";
import { oracleSchemapinV1 } from "../oracle/canonical.ts";
import { oracleParse } from "../oracle/json.ts";
import { compileArgs, WORKER_MODULES } from "../../scripts/compile.ts";
import { runCliProcess, runInProcess, withTempDir } from "../cli/run.ts";
import { batchArgs, writeDiscovery } from "../cli/batch_fixtures.ts";

const REPO = new URL("../../", import.meta.url).pathname;

const schemaFor = (i: number) => ({
  name: `tool_${i}`,
  description: `tool ${i}`,
  inputSchema: { type: "object", properties: { n: { type: "integer", default: i } } },
});

/** Runs `fn` with SCHEMAPIN_BATCH_THREADS set to `value` (unset: undefined), then restores it. */
async function withThreadsEnv<T>(value: string | undefined, fn: () => Promise<T> | T) {
  const before = Deno.env.get("SCHEMAPIN_BATCH_THREADS");
  if (value === undefined) Deno.env.delete("SCHEMAPIN_BATCH_THREADS");
  else Deno.env.set("SCHEMAPIN_BATCH_THREADS", value);
  try {
    return await fn();
  } finally {
    if (before === undefined) Deno.env.delete("SCHEMAPIN_BATCH_THREADS");
    else Deno.env.set("SCHEMAPIN_BATCH_THREADS", before);
  }
}

/** Every file of `dir` (sorted by name) with its bytes as text. */
function snapshot(dir: string): [string, string][] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort().map((n) => [
    n,
    Deno.readTextFileSync(`${dir}/${n}`),
  ]);
}

Deno.test("batch threads: precheck ids are the in-process ids; failures are undefined", async () => {
  const key = generateKeyPair();
  const other = generateKeyPair();
  const s = schemaFor(1);
  const doc = signSchemaDocument(s, key, { signedAt: 1_700_000_000_000 }) as unknown as Record<
    string,
    unknown
  >;
  const items = [
    { schema: s, signature: signSchemaBase64(s, key) }, // valid, bare
    { schema: s, signature: doc }, // valid, document
    { schema: { ...s, description: "changed" }, signature: signSchemaBase64(s, key) }, // tampered
    { schema: s, signature: signSchemaBase64(s, other) }, // another key
    { schema: s, signature: "not base64!" }, // malformed
    { schema: s, signature: { ...doc, signature: signSchemaBase64(s, key) } }, // forged document
    { schema: { n: 2 ** 60 }, signature: signSchemaBase64(s, key) }, // no canonical form
  ];
  const pool = new BatchPool(2);
  try {
    const ids = await pool.precheck(key.publicKey, items);
    const local = items.map((it) =>
      precheckSchemaSignature(it.schema, it.signature, key.publicKey)
    );
    assert.deepEqual(ids, local);
    assert.equal(ids.filter((id) => id !== undefined).length, 2);
    assert.ok(ids[0] !== undefined && ids[1] !== undefined);
  } finally {
    pool.close();
  }
});

Deno.test("batch threads: signatures from the pool are signOne's bytes; an unsignable schema is its error", async () => {
  const key = generateKeyPair();
  const items = [
    ...Array.from({ length: 70 }, (_, i) => ({ schema: schemaFor(i), file: `s/${i}.json` })),
    { schema: { name: "big", n: 2 ** 60 }, file: "s/big.json" },
  ];
  const pool = new BatchPool(2);
  try {
    for (const docOptions of [undefined, { signedAt: 1_700_000_000_000, signerKid: "k1" }]) {
      const out = await pool.sign(key, docOptions, items);
      assert.equal(out.length, items.length);
      for (let i = 0; i < 70; i++) {
        assert.deepEqual(out[i], signOne(items[i].schema, key, docOptions, items[i].file));
      }
      const bad = out[70];
      assert.ok(bad instanceof SchemaPinError, String(bad));
      assert.equal(bad.code, "INPUT_INVALID");
      assert.match(bad.message, /^s\/big\.json: /);
      assert.throws(() => signOne(items[70].schema, key, docOptions, "s/big.json"), bad);
    }
  } finally {
    pool.close();
  }
});

Deno.test("batch threads: a broken pool rejects instead of hanging; a failed task leaves the pool working", async () => {
  const key = generateKeyPair();
  const item = { schema: schemaFor(1), signature: signSchemaBase64(schemaFor(1), key) };
  // A worker module that fails to load: the pool's tasks reject. (Deno prints that worker's
  // "Uncaught (in worker "") … Error: boom" to stderr: expected in this test's output.)
  const missing = new BatchPool(
    1,
    new URL(`data:application/javascript,${encodeURIComponent('throw new Error("boom")')}`),
  );
  try {
    await assert.rejects(missing.precheck(key.publicKey, [item]), /worker thread failed/);
    await assert.rejects(missing.precheck(key.publicKey, [item])); // still rejects, no hang
  } finally {
    missing.close();
  }
  const pool = new BatchPool(1);
  try {
    const broken = { ...key.publicKey, spki: new Uint8Array([1, 2, 3]) };
    await assert.rejects(pool.precheck(broken, [item]), /worker thread: /);
    assert.equal((await pool.precheck(key.publicKey, [item]))[0] !== undefined, true);
  } finally {
    pool.close();
  }
  await assert.rejects(pool.precheck(key.publicKey, [item]), /closed/);
});

Deno.test("batch threads: chunks come in order, at most BATCH_AHEAD prepared ahead; a failed one fails at its turn", async () => {
  const total = BATCH_CHUNK * 9 + 7;
  const started: number[] = [];
  const seen: number[] = [];
  for await (
    const from of chunksAhead(total, (from) => {
      started.push(from);
      return Promise.resolve(from);
    })
  ) {
    seen.push(from);
    // Prepared: the chunks consumed, this one, and at most BATCH_AHEAD more.
    assert.ok(started.length <= seen.length + BATCH_AHEAD, `${started.length} ${seen.length}`);
  }
  assert.deepEqual(seen, Array.from({ length: 10 }, (_, i) => i * BATCH_CHUNK));
  assert.deepEqual(started, seen);
  assert.deepEqual(await Array.fromAsync(chunksAhead(0, () => Promise.resolve(1))), []);
  // A chunk that fails early (before it is consumed) is not an unhandled rejection: it throws
  // when its turn comes, after the chunks before it.
  const got: number[] = [];
  await assert.rejects(async () => {
    for await (
      const from of chunksAhead(
        total,
        (from) =>
          from === BATCH_CHUNK * 2 ? Promise.reject(new Error("chunk 2")) : Promise.resolve(from),
      )
    ) {
      got.push(from);
      await new Promise((r) => setTimeout(r, 5));
    }
  }, /chunk 2/);
  assert.deepEqual(got, [0, BATCH_CHUNK]);
});

Deno.test("batch threads: SCHEMAPIN_BATCH_THREADS and the size threshold", async () => {
  await withThreadsEnv(undefined, () => {
    assert.equal(batchThreadsSetting(), undefined);
    assert.equal(batchThreads(POOL_FROM - 1, undefined), 0);
    const n = batchThreads(POOL_FROM, undefined);
    const cores = navigator.hardwareConcurrency;
    assert.equal(n, Math.max(1, Math.min(cores - 1, MAX_BATCH_THREADS)));
  });
  await withThreadsEnv("0", () => {
    assert.equal(batchThreadsSetting(), 0);
    assert.equal(batchThreads(1_000_000, 0), 0);
  });
  await withThreadsEnv("3", () => {
    assert.equal(batchThreadsSetting(), 3);
    assert.equal(batchThreads(5, 3), 3); // set: any batch size
    assert.equal(batchThreads(0, 3), 0);
  });
  for (const bad of ["", "9", "-1", "2.0", "abc", " 2", "10"]) {
    await withThreadsEnv(bad, () =>
      assert.throws(
        () => batchThreadsSetting(),
        (e: unknown) =>
          e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
          e.message.includes("SCHEMAPIN_BATCH_THREADS"),
        JSON.stringify(bad),
      ));
  }
});

/** 81 schemas and signatures in `dir`: 71 good, and every kind of failure. */
function makeMixedBatch(dir: string, key: PrivateKey): string {
  const other = generateKeyPair();
  Deno.mkdirSync(dir, { recursive: true });
  const write = (name: string, schema: unknown, sig?: string) => {
    Deno.writeTextFileSync(`${dir}/${name}.json`, JSON.stringify(schema));
    if (sig !== undefined) Deno.writeTextFileSync(`${dir}/${name}.json.sig`, sig + "\n");
  };
  for (let i = 0; i < 70; i++) write(`t${i}`, schemaFor(i), signSchemaBase64(schemaFor(i), key));
  for (let i = 70; i < 73; i++) {
    write(
      `t${i}`,
      { ...schemaFor(i), description: "rug pull" },
      signSchemaBase64(schemaFor(i), key),
    );
  }
  write("t73", schemaFor(73)); // unsigned
  write("t74", schemaFor(74));
  write("t75", schemaFor(75), signSchemaBase64(schemaFor(75), other));
  write("t76", schemaFor(76), signSchemaBase64(schemaFor(76), other));
  write("t77", schemaFor(77), "AAAA");
  const doc = signSchemaDocument(schemaFor(78), key, { signedAt: 1_700_000_000_000 });
  write("t78", schemaFor(78), JSON.stringify(doc));
  write(
    "t79",
    { ...schemaFor(79), description: "x" },
    JSON.stringify(
      signSchemaDocument(schemaFor(79), key, { signedAt: 1_700_000_000_000 }),
    ),
  );
  // A tampered copy carrying the signature of a schema verified (and cached) in the same batch.
  write("t80", { ...schemaFor(0), description: "rug pull" }, signSchemaBase64(schemaFor(0), key));
  return writeDiscovery(`${dir}.discovery.json`, key, "Threads Corp");
}

/** A first-use `verify-schema --batch` of `dir` against `discovery`, pinning into `pins`. */
const verifyArgs = (dir: string, discovery: string, pins: string, ...extra: string[]) =>
  batchArgs(dir, discovery, pins, "--trust-first-use", ...extra);

Deno.test("batch threads: verify-schema --batch reports the same with 2 threads and with none", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    const discovery = makeMixedBatch(`${dir}/s`, key);
    const run = (threads: string, pins: string) =>
      runCliProcess(verifyArgs(`${dir}/s`, discovery, pins, "--json"), {
        env: { SCHEMAPIN_BATCH_THREADS: threads },
        drain: true,
      });
    const one = await run("0", `${dir}/pins0.json`);
    const two = await run("2", `${dir}/pins2.json`);
    assert.equal(one.code, 1, one.stderr);
    assert.equal(two.code, 1, two.stderr);
    assert.equal(two.stdout, one.stdout);
    assert.equal(two.stderr, one.stderr);
    const report = JSON.parse(one.stdout);
    assert.deepEqual(report.summary, { total: 81, verified: 71, failed: 10 });
    const failedFiles = report.results.filter((r: { ok: boolean }) => !r.ok).map((
      r: { file: string },
    ) => r.file.replace(/^.*\//, ""));
    assert.deepEqual(failedFiles, [
      "t70.json",
      "t71.json",
      "t72.json",
      "t73.json",
      "t74.json",
      "t75.json",
      "t76.json",
      "t77.json",
      "t79.json",
      "t80.json",
    ]);
    const pinned = (p: string) =>
      JSON.parse(Deno.readTextFileSync(p)).pins.map((x: { tool_id: string }) => x.tool_id).sort();
    assert.deepEqual(pinned(`${dir}/pins2.json`), pinned(`${dir}/pins0.json`));
    assert.equal(pinned(`${dir}/pins2.json`).length, 71);
  });
});

Deno.test("batch threads: sign-schema --batch writes the same bytes with 2 threads and with none", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    Deno.writeTextFileSync(`${dir}/key.pem`, privateKeyToPem(key));
    Deno.mkdirSync(`${dir}/s`);
    for (let i = 0; i < 90; i++) {
      Deno.writeTextFileSync(`${dir}/s/t${i}.json`, JSON.stringify(schemaFor(i)));
    }
    Deno.writeTextFileSync(`${dir}/s/zbig.json`, '{"name":"big","n":1152921504606846976}');
    // What a copy between threads could change: an own "__proto__", -0, escapes, key order.
    Deno.writeTextFileSync(
      `${dir}/s/proto.json`,
      '{"name":"p","__proto__":{"polluted":1},"z":-0,"a":"\\ud83d\\ude00\\u0000","1":[{},[]]}',
    );
    const run = (threads: string, out: string) =>
      runCliProcess(
        [
          "sign-schema",
          "--batch",
          `${dir}/s`,
          "--out-dir",
          out,
          "--key",
          `${dir}/key.pem`,
          "--json",
        ],
        { env: { SCHEMAPIN_BATCH_THREADS: threads }, drain: true },
      );
    const one = await run("0", `${dir}/out0`);
    const two = await run("2", `${dir}/out2`);
    assert.equal(one.code, 2, one.stderr); // the unsignable schema
    assert.equal(two.code, 2, two.stderr);
    assert.equal(two.stdout.replaceAll("/out2/", "/out0/"), one.stdout);
    assert.equal(two.stderr, one.stderr);
    const failed = JSON.parse(one.stdout).results.filter((r: { ok: boolean }) => !r.ok);
    assert.equal(failed.length, 1);
    assert.match(failed[0].file, /zbig\.json$/);
    assert.equal(failed[0].error.code, "INPUT_INVALID");
    const files = snapshot(`${dir}/out0`);
    assert.equal(files.length, 91);
    assert.deepEqual(snapshot(`${dir}/out2`), files);
    // What the threads wrote verifies without any lib/ code: the independent canonical form
    // (tests/oracle) and node:crypto's ECDSA over SHA-256(canonical) (§4.1), per file.
    const spki = createPublicKey({
      key: Buffer.from(key.publicKey.spki),
      format: "der",
      type: "spki",
    });
    for (const [name, text] of snapshot(`${dir}/out2`)) {
      const schema = Deno.readFileSync(`${dir}/s/${name.replace(/\.sig$/, "")}`);
      const hash = createHash("sha256").update(oracleSchemapinV1(oracleParse(schema))).digest();
      const ok = verify("sha256", hash, spki, Buffer.from(text.trim(), "base64"));
      assert.ok(ok, `${name} does not verify by the oracle`);
    }
  });
});

Deno.test("batch threads: a bad SCHEMAPIN_BATCH_THREADS is exit 2 and nothing is written", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    Deno.writeTextFileSync(`${dir}/key.pem`, privateKeyToPem(key));
    Deno.mkdirSync(`${dir}/s`);
    Deno.writeTextFileSync(`${dir}/s/a.json`, JSON.stringify(schemaFor(1)));
    const r = await runCliProcess(
      ["sign-schema", "--batch", `${dir}/s`, "--out-dir", `${dir}/out`, "--key", `${dir}/key.pem`],
      { env: { SCHEMAPIN_BATCH_THREADS: "many" } },
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /SCHEMAPIN_BATCH_THREADS must be a whole number from 0 to 8/);
    assert.throws(() => Deno.statSync(`${dir}/out`), Deno.errors.NotFound);
  });
});

Deno.test("batch threads: the compile task includes every worker module", async () => {
  const args = compileArgs([]);
  for (const m of WORKER_MODULES) {
    assert.ok(Deno.statSync(`${REPO}${m}`).isFile, m);
    const at = args.indexOf(m);
    assert.ok(at > 0 && args[at - 1] === "--include", `${m} in ${args.join(" ")}`);
  }
  // Every `new Worker(` in lib/ starts one of them.
  const starters: string[] = [];
  for await (const f of walk(`${REPO}lib`)) {
    if (Deno.readTextFileSync(f).includes("new Worker(")) starters.push(f.slice(REPO.length));
  }
  assert.deepEqual(starters, ["lib/schema/batch_pool.ts"]);
  const pool = Deno.readTextFileSync(`${REPO}lib/schema/batch_pool.ts`);
  for (const m of WORKER_MODULES) assert.ok(pool.includes(`"./${m.split("/").at(-1)}"`), m);
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) yield* walk(`${dir}/${e.name}`);
    else if (e.name.endsWith(".ts")) yield `${dir}/${e.name}`;
  }
}

Deno.test("batch threads: a threaded verify batch really checks on the workers (and none without)", async () => {
  await withTempDir(async (dir) => {
    const key = generateKeyPair();
    const discovery = makeMixedBatch(`${dir}/s`, key);
    const run = (threads: string, pins: string) =>
      withThreadsEnv(threads, () => runInProcess(verifyArgs(`${dir}/s`, discovery, pins, "-q")));
    const before = precheckedSignatureCount();
    const none = await run("0", `${dir}/p0.json`);
    assert.equal(none.code, 1, none.stderr);
    assert.equal(precheckedSignatureCount(), before);
    const two = await run("2", `${dir}/p2.json`);
    assert.equal(two.code, 1, two.stderr);
    assert.equal(two.stdout, none.stdout.replaceAll("/p0.json", "/p2.json"));
    // On the workers: 70 bare signatures and 2 authentic documents (t78, and t79, whose
    // document covers another schema_hash: the flow fails it) verify; the rest do not.
    assert.equal(precheckedSignatureCount() - before, 72);
  });
});

Deno.test("batch threads: the precheck functions are not part of the published API", async () => {
  for (const entry of ENTRY_POINTS) {
    const mod = await import(new URL(`../../${entry}`, import.meta.url).href);
    for (
      const name of [
        "acceptPrecheckedSignature",
        "precheckSchemaSignature",
        "precheckedSignatureCount",
      ]
    ) {
      assert.equal(name in mod, false, `${entry} exports ${name}`);
    }
  }
});

Deno.test("batch threads: verify-schema refuses a bad SCHEMAPIN_BATCH_THREADS before reading anything", async () => {
  await withTempDir(async (dir) => {
    const r = await runCliProcess([
      "verify-schema",
      "--batch",
      `${dir}/missing`,
      "--domain",
      "example.com",
      "--discovery",
      `${dir}/missing.json`,
      "--pin-store",
      `${dir}/pins.json`,
      "--json",
    ], { env: { SCHEMAPIN_BATCH_THREADS: "-1" } });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /SCHEMAPIN_BATCH_THREADS must be a whole number/);
    assert.equal(JSON.parse(r.stdout).error.code, "INPUT_INVALID");
    assert.throws(() => Deno.statSync(`${dir}/pins.json`), Deno.errors.NotFound);
  });
});

Deno.test("batch threads: BatchWorkers warns once when the pool fails, never after stop", async () => {
  const key = generateKeyPair();
  const item = { schema: schemaFor(1), signature: signSchemaBase64(schemaFor(1), key) };
  const warned: string[] = [];
  const workers = new BatchWorkers(1, "checking signatures", (line) => void warned.push(line));
  try {
    assert.equal(workers.active, true);
    const ok = await workers.use((pool) => pool.precheck(key.publicKey, [item]));
    assert.equal(ok?.[0] !== undefined, true);
    // A failed task: undefined (the caller does the work itself), one warning, pool closed.
    const bad = { ...key.publicKey, spki: new Uint8Array([1]) };
    assert.equal(await workers.use((pool) => pool.precheck(bad, [item])), undefined);
    assert.equal(await workers.use((pool) => pool.precheck(bad, [item])), undefined);
    assert.equal(workers.active, false);
    assert.equal(warned.length, 1);
    assert.match(warned[0], /^warning: checking signatures on one thread from now on: /);
  } finally {
    workers.stop();
  }
  // Stopped while work is in flight: undefined, and no warning (it was not a failure). A
  // warning that cannot be written is not an error either.
  const stopped = new BatchWorkers(1, "signing", () => Promise.reject(new Error("stderr closed")));
  const pending = stopped.use((pool) => pool.precheck(key.publicKey, [item, item, item]));
  stopped.stop();
  assert.equal(await pending, undefined);
  assert.equal(await stopped.use((pool) => pool.precheck(key.publicKey, [item])), undefined);
  const failing = new BatchWorkers(1, "signing", () => Promise.reject(new Error("stderr closed")));
  try {
    const bad = { ...key.publicKey, spki: new Uint8Array([1]) };
    assert.equal(await failing.use((pool) => pool.precheck(bad, [item])), undefined);
  } finally {
    failing.stop();
  }
  // No threads at all: nothing runs.
  const none = new BatchWorkers(0, "signing", () => assert.fail("no warning without threads"));
  assert.equal(none.active, false);
  assert.equal(await none.use(() => Promise.resolve(1)), undefined);
});
