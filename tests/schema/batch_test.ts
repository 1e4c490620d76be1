// Batches as a library call (lib/schema/batch.ts), without the CLI: results in order, each
// schema's failure its own (unreadable, unsigned, tampered), first-use pins written together
// and only for what verified, an explicit key's store never written; a sign batch writes what
// signOne writes for each schema, and a file the writer could not commit fails that schema
// only. tests/schema/batch_threads_test.ts compares threads with one thread.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { FilePinStore } from "../../lib/pins/store.ts";
import { signSchemaBase64 } from "../../lib/schema/document.ts";
import {
  type BatchWriter,
  readSchemaSignature,
  schemaToolId,
  type SignedBatchItem,
  signSchemaBatch,
  type VerifiedBatchItem,
  verifySchemaBatch,
} from "../../lib/schema/batch.ts";
import { signOne } from "../../lib/schema/sign_one.ts";
import { privateKeySigner, type Signer } from "../../lib/crypto/signer.ts";
import { explicitKeyPinStore } from "../../lib/trust/load.ts";
import { discoveryFor, OTHER, SIGNER, toolSchema } from "./_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const read = async (path: string) => {
  try {
    return await Deno.readFile(path);
  } catch {
    throw new SchemaPinError("IO_FAILED", `cannot read ${path}`, { path });
  }
};

/** a.json signed by SIGNER, b.json unsigned, c.json signed by OTHER, d.json not JSON. */
function makeBatch(dir: string): string[] {
  const write = (name: string, schema: unknown, key = SIGNER) => {
    Deno.writeTextFileSync(`${dir}/${name}`, JSON.stringify(schema));
    if (key) Deno.writeTextFileSync(`${dir}/${name}.sig`, signSchemaBase64(schema, key) + "\n");
  };
  write("a.json", toolSchema("a"));
  Deno.writeTextFileSync(`${dir}/b.json`, JSON.stringify(toolSchema("b")));
  write("c.json", toolSchema("c"), OTHER);
  Deno.writeTextFileSync(`${dir}/d.json`, "{");
  return ["a.json", "b.json", "c.json", "d.json"];
}

Deno.test("verify batch: results in order, each failure its own, pins only for what verified", async () => {
  await withTempDir(async (dir) => {
    const files = makeBatch(dir);
    const got: VerifiedBatchItem[] = [];
    const progress: number[] = [];
    await verifySchemaBatch({
      dir,
      files,
      sigDir: dir,
      read,
      flow: { domain: "example.com", discovery: discoveryFor(SIGNER), trustFirstUse: true },
      pinStore: new FilePinStore(`${dir}/pins.json`),
      threads: 0,
      onResults: (items) => Promise.resolve(void got.push(...items)),
      onProgress: (p) => progress.push(p.done),
    });
    assert.deepEqual(got.map((i) => i.path), files.map((f) => `${dir}/${f}`));
    assert.equal(got[0].result?.valid, true);
    assert.equal(got[0].result?.keyPinning, "first_use");
    assert.equal(got[1].error?.code, "SIGNATURE_INVALID");
    assert.match(got[1].error!.message, /^unsigned: /);
    assert.equal(got[2].result?.errorCode, "SIGNATURE_INVALID");
    assert.equal(got[3].error?.code, "JSON_INVALID");
    assert.deepEqual(progress, [1, 2, 3, 4]);
    const pins = await new FilePinStore(`${dir}/pins.json`).list();
    assert.deepEqual(pins.map((p) => p.toolId), ["a"]);
  });
});

Deno.test("verify batch: an explicit key's store is used as it is and nothing is written", async () => {
  await withTempDir(async (dir) => {
    const files = makeBatch(dir);
    const got: VerifiedBatchItem[] = [];
    let finished = 0;
    await verifySchemaBatch({
      dir,
      files: files.slice(0, 1),
      sigDir: dir,
      read,
      flow: { domain: "example.com", discovery: discoveryFor(SIGNER) },
      pinStore: explicitKeyPinStore(SIGNER.publicKey.fingerprint),
      batchPins: false,
      finish: () => void finished++,
      onResults: (items) => Promise.resolve(void got.push(...items)),
    });
    assert.equal(got[0].result?.valid, true, got[0].result?.errorMessage);
    assert.equal(finished, 1);
    assert.throws(() => Deno.statSync(`${dir}/pins.json`), Deno.errors.NotFound);
  });
});

/** A writer in memory; `failing` paths fail at commit. */
function memoryWriter(failing: string[] = []) {
  const pending = new Map<string, string>();
  const written = new Map<string, string>();
  let aborted = 0;
  const writer: BatchWriter = {
    get size() {
      return pending.size;
    },
    add: (path, data) => void pending.set(path, data),
    commit: () => {
      const out = [...pending].map(([path, data]) => {
        if (failing.includes(path)) {
          return { path, error: new SchemaPinError("IO_FAILED", `cannot write ${path}`) };
        }
        written.set(path, data);
        return { path };
      });
      pending.clear();
      return Promise.resolve(out);
    },
    abort: () => void aborted++,
  };
  return { writer, written, aborted: () => aborted };
}

Deno.test("sign batch: signOne's bytes for each schema; a failed write fails only that schema", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/a.json`, JSON.stringify(toolSchema("a")));
    Deno.writeTextFileSync(`${dir}/b.json`, "{");
    Deno.writeTextFileSync(`${dir}/c.json`, JSON.stringify(toolSchema("c")));
    const mem = memoryWriter([`${dir}/out/c.json.sig`]);
    const got: SignedBatchItem[] = [];
    const { failed } = await signSchemaBatch({
      dir,
      files: ["a.json", "b.json", "c.json"],
      outDir: `${dir}/out`,
      key: SIGNER,
      read,
      writer: mem.writer,
      threads: 0,
      onResults: (items) => Promise.resolve(void got.push(...items)),
    });
    assert.equal(failed, 2);
    assert.deepEqual(got.map((i) => [i.out, i.error?.code]), [
      [`${dir}/out/a.json.sig`, undefined],
      [`${dir}/out/b.json.sig`, "JSON_INVALID"],
      [`${dir}/out/c.json.sig`, "IO_FAILED"],
    ]);
    assert.equal(
      mem.written.get(`${dir}/out/a.json.sig`),
      signOne(toolSchema("a"), SIGNER, undefined, `${dir}/a.json`).text,
    );
    assert.deepEqual(got[0].json, { file: `${dir}/a.json`, signature: got[0].json?.signature });
    assert.equal(mem.aborted(), 1); // always called at the end; nothing was pending
  });
});

Deno.test("sign batch with a signer: the key's bytes on this thread; a signer failure stops it", async () => {
  await withTempDir(async (dir) => {
    for (const name of ["a", "c", "d"]) {
      Deno.writeTextFileSync(`${dir}/${name}.json`, JSON.stringify(toolSchema(name)));
    }
    Deno.writeTextFileSync(`${dir}/b.json`, '{"n": 9007199254740993}'); // no canonical form
    const files = ["a.json", "b.json", "c.json", "d.json"];
    const mem = memoryWriter([]);
    const got: SignedBatchItem[] = [];
    const { failed } = await signSchemaBatch({
      dir,
      files,
      outDir: `${dir}/out`,
      signer: privateKeySigner(SIGNER),
      read,
      writer: mem.writer,
      threads: 2, // not used: a signer signs on this thread
      onResults: (items) => Promise.resolve(void got.push(...items)),
    });
    assert.equal(failed, 1);
    assert.deepEqual(got.map((i) => i.error?.code), [
      undefined,
      "INPUT_INVALID",
      undefined,
      undefined,
    ]);
    for (const name of ["a", "c", "d"]) {
      assert.equal(
        mem.written.get(`${dir}/out/${name}.json.sig`),
        signOne(toolSchema(name), SIGNER, undefined, `${dir}/${name}.json`).text,
      );
    }
    // A signer that fails after one signature (an agent gone): the batch stops with its error.
    let calls = 0;
    const inner = privateKeySigner(SIGNER);
    const failing: Signer = {
      publicKey: SIGNER.publicKey,
      signMessage: (m) => {
        if (++calls > 1) {
          return Promise.reject(new SchemaPinError("IO_FAILED", "agent gone", { agent: "closed" }));
        }
        return inner.signMessage(m);
      },
    };
    const mem2 = memoryWriter([]);
    await assert.rejects(
      signSchemaBatch({
        dir,
        files,
        outDir: `${dir}/out2`,
        signer: failing,
        read,
        writer: mem2.writer,
        onResults: () => Promise.resolve(),
      }),
      (e) => e instanceof SchemaPinError && e.code === "IO_FAILED" && e.message === "agent gone",
    );
    assert.equal(calls, 2, "no schema after the failure was tried");
    assert.equal(mem2.aborted(), 1);
    // Neither a key nor a signer: misuse.
    await assert.rejects(
      signSchemaBatch({
        dir,
        files,
        outDir: `${dir}/out3`,
        read,
        writer: memoryWriter([]).writer,
        onResults: () => Promise.resolve(),
      }),
      (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID",
    );
  });
});

Deno.test("batch inputs: the tool id is the schema's name; a signature document is checked", async () => {
  assert.equal(schemaToolId({ name: "a" }, "a.json"), "a");
  assert.throws(
    () => schemaToolId({ title: "a" }, "a.json"),
    (e) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" &&
      /a\.json has no usable/.test(e.message),
  );
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/s.sig`, '{"schemapin_version":"1.4"}');
    await assert.rejects(readSchemaSignature(`${dir}/s.sig`, read), SchemaPinError);
    Deno.writeTextFileSync(`${dir}/b.sig`, "QUJD\n");
    assert.equal(await readSchemaSignature(`${dir}/b.sig`, read), "QUJD");
  });
});
