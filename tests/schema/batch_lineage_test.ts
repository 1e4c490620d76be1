// Lineage in a verify batch (issue 27, §18.4; lib/schema/batch.ts with a LineageStore): the
// store is read once and the advances of a group are written in one transaction after its
// pins, deciding each again under the lock. Tested: the same tool twice in one batch, forks and
// bare signatures refused before any pin, another writer between the check and the commit, and
// a store (or a pin store) that cannot be written — nothing reported as accepted is lost.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { FilePinStore, type PinRecord } from "../../lib/pins/store.ts";
import { type LineageRequest, LineageStore } from "../../lib/pins/lineage.ts";
import { schemaHash, signSchemaBase64, signSchemaDocument } from "../../lib/schema/document.ts";
import { type VerifiedBatchItem, verifySchemaBatch } from "../../lib/schema/batch.ts";
import type { LineageResultFields } from "../../lib/schema/lineage_verify.ts";
import { discoveryFor, SIGNER, toolSchema } from "./_fixtures.ts";
import { withTempDir } from "../cli/run.ts";

const read = (path: string) => Deno.readFile(path);
const v1 = { ...toolSchema("calc"), description: "one" };
const v2 = { ...toolSchema("calc"), description: "two" };
const fork = { ...toolSchema("calc"), description: "fork" };

/** Writes `schema` as `<dir>/<name>` with a 1.4 document (or a bare signature). */
function write(
  dir: string,
  name: string,
  schema: Record<string, unknown>,
  options: { previousHash?: string; schemaVersion?: string; bare?: boolean } = {},
): string {
  Deno.writeTextFileSync(`${dir}/${name}`, JSON.stringify(schema));
  const { bare, ...doc } = options;
  const signature = bare
    ? signSchemaBase64(schema, SIGNER)
    : JSON.stringify(signSchemaDocument(schema, SIGNER, { domain: "example.com", ...doc }));
  Deno.writeTextFileSync(`${dir}/${name}.sig`, signature);
  return name;
}

async function run(
  dir: string,
  files: string[],
  lineage: LineageStore,
  extra: { pinStore?: FilePinStore; onProgress?: (done: number) => Promise<void> | void } = {},
): Promise<(LineageResultFields | undefined)[]> {
  const got: VerifiedBatchItem[] = [];
  let progress = Promise.resolve();
  await verifySchemaBatch({
    dir,
    files,
    sigDir: dir,
    read,
    flow: { domain: "example.com", discovery: discoveryFor(SIGNER), trustFirstUse: true },
    pinStore: extra.pinStore ?? new FilePinStore(`${dir}/pins.json`),
    lineage,
    threads: 0,
    onResults: (items) => Promise.resolve(void got.push(...items)),
    onProgress: (p) => {
      progress = progress.then(() => extra.onProgress?.(p.done));
    },
  });
  await progress;
  return got.map((item) => item.result as LineageResultFields | undefined);
}

Deno.test("batch lineage: the same tool twice anchors then advances; a fork and a bare signature are refused", async () => {
  await withTempDir(async (dir) => {
    const files = [
      write(dir, "1.json", v1, { schemaVersion: "1.0.0" }),
      write(dir, "2.json", v2, { schemaVersion: "1.1.0", previousHash: schemaHash(v1) }),
      write(dir, "3.json", fork, {
        schemaVersion: "1.2.0",
        previousHash: schemaHash(toolSchema("x")),
      }),
      write(dir, "4.json", toolSchema("other"), { bare: true }),
    ];
    const store = new LineageStore({ path: `${dir}/lineage.json` });
    const results = await run(dir, files, store);
    assert.deepEqual(results.map((r) => r?.lineage?.status), [
      "anchored",
      "advanced",
      "rejected",
      "rejected",
    ]);
    assert.deepEqual(results.map((r) => r?.valid), [true, true, false, false]);
    assert.equal(results[2]?.errorCode, "LINEAGE_REJECTED");
    assert.equal(results[2]?.lineage?.reason, "fork");
    assert.equal(results[3]?.lineage?.reason, "legacy");
    const record = await store.get("calc", "example.com");
    assert.equal(record?.latestHash, schemaHash(v2));
    assert.deepEqual(record?.history, [schemaHash(v1)]);
    assert.equal(await store.get("other", "example.com"), undefined);
    // Refused before its pin: the bare-signed tool was never pinned.
    const pins = await new FilePinStore(`${dir}/pins.json`).list();
    assert.deepEqual(pins.map((p) => p.toolId), ["calc"]);
    // A second run finds both releases where the first left them.
    const again = await run(dir, files.slice(1, 2), store);
    assert.equal(again[0]?.lineage?.status, "unchanged");
  });
});

Deno.test("batch lineage: another writer between the check and the commit wins; the batch's releases fail", async () => {
  await withTempDir(async (dir) => {
    const files = [
      write(dir, "1.json", v1),
      write(dir, "2.json", v2, { previousHash: schemaHash(v1) }),
    ];
    const path = `${dir}/lineage.json`;
    const other = new LineageStore({ path });
    const theirs = { ...toolSchema("calc"), description: "theirs" };
    const results = await run(dir, files, new LineageStore({ path }), {
      onProgress: async (done) => {
        if (done === 1) {
          await other.checkAndAdvance("calc", "example.com", {
            schemapin_version: "1.4",
            schema_hash: schemaHash(theirs),
          });
        }
      },
    });
    assert.deepEqual(results.map((r) => r?.valid), [false, false]);
    assert.deepEqual(results.map((r) => r?.errorCode), ["LINEAGE_REJECTED", "LINEAGE_REJECTED"]);
    assert.deepEqual(results.map((r) => r?.lineage?.reason), ["missing_previous_hash", "fork"]);
    assert.equal((await other.get("calc", "example.com"))?.latestHash, schemaHash(theirs));
  });
});

/** A lineage store whose batch commits fail (as a full disk would). */
class UnwritableLineage extends LineageStore {
  override checkAndAdvanceMany(_requests: readonly LineageRequest[]): never {
    throw new SchemaPinError("IO_FAILED", "disk full");
  }
}

Deno.test("batch lineage: a store that cannot be written fails the releases it would have accepted", async () => {
  await withTempDir(async (dir) => {
    const files = [write(dir, "1.json", v1)];
    const results = await run(dir, files, new UnwritableLineage({ path: `${dir}/lineage.json` }));
    assert.equal(results[0]?.valid, false);
    assert.equal(results[0]?.errorCode, "IO_FAILED");
    assert.match(results[0]!.errorMessage!, /could not write the lineage store: disk full/);
    assert.equal(results[0]?.lineage, undefined);
    await assert.rejects(() => Deno.stat(`${dir}/lineage.json`), Deno.errors.NotFound);
  });
});

/** A pin store whose writes fail. */
class UnwritablePins extends FilePinStore {
  override transact<R>(
    _change: (pins: Map<string, PinRecord>) => { changed: boolean; result: R },
  ): Promise<R> {
    return Promise.reject(new SchemaPinError("IO_FAILED", "read-only pins"));
  }
}

Deno.test("batch lineage: a release whose first-use pin could not be written never moves lineage", async () => {
  await withTempDir(async (dir) => {
    const files = [write(dir, "1.json", v1)];
    const store = new LineageStore({ path: `${dir}/lineage.json` });
    const results = await run(dir, files, store, {
      pinStore: new UnwritablePins(`${dir}/pins.json`),
    });
    assert.equal(results[0]?.valid, false);
    assert.match(results[0]!.errorMessage!, /could not write the pin/);
    assert.equal(await store.get("calc", "example.com"), undefined);
  });
});

/** Counts what a batch asks of the store. */
class CountingLineage extends LineageStore {
  calls = { list: 0, check: 0, checkAndAdvance: 0, checkAndAdvanceMany: 0 };
  override list() {
    this.calls.list++;
    return super.list();
  }
  override check(...args: Parameters<LineageStore["check"]>) {
    this.calls.check++;
    return super.check(...args);
  }
  override checkAndAdvance(...args: Parameters<LineageStore["checkAndAdvance"]>) {
    this.calls.checkAndAdvance++;
    return super.checkAndAdvance(...args);
  }
  override checkAndAdvanceMany(...args: Parameters<LineageStore["checkAndAdvanceMany"]>) {
    this.calls.checkAndAdvanceMany++;
    return super.checkAndAdvanceMany(...args);
  }
}

Deno.test("batch lineage: the store is read once per group and written in one transaction, not per schema", async () => {
  await withTempDir(async (dir) => {
    const files = Array.from(
      { length: 60 },
      (_, i) => write(dir, `t${i}.json`, toolSchema(`t${i}`)),
    );
    const store = new CountingLineage({ path: `${dir}/lineage.json` });
    const results = await run(dir, files, store);
    assert.ok(results.every((r) => r?.valid && r.lineage?.status === "anchored"));
    const { list, check, checkAndAdvance, checkAndAdvanceMany } = store.calls;
    assert.equal(check + checkAndAdvance, 0, "no per-schema store call");
    assert.ok(
      checkAndAdvanceMany >= 1 && checkAndAdvanceMany <= 3,
      `${checkAndAdvanceMany} commits`,
    );
    assert.ok(list <= checkAndAdvanceMany, `${list} reads for ${checkAndAdvanceMany} commits`);
    assert.equal((await store.list()).length, 60);
  });
});
