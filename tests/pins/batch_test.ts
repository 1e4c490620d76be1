// BatchPinStore (lib/pins/batch.ts): the store is read once, the batch's pins are written in
// one transaction per flush, and an entry another writer changed meanwhile is never
// overwritten (issue 14).
import assert from "node:assert/strict";
import { BatchPinStore } from "../../lib/pins/batch.ts";
import {
  addPinIfAbsent,
  FilePinStore,
  makePinRecord,
  MemoryPinStore,
  type PinRecord,
  type PinStore,
  removePin,
  rotatePin,
} from "../../lib/pins/store.ts";
import { settlePinConflict } from "../../lib/schema/flow.ts";
import type { OfflineVerificationResult } from "../../lib/schema/flow.ts";
import { SchemaPinError } from "../../lib/errors.ts";

const FP_A = "sha256:" + "a".repeat(64);
const FP_B = "sha256:" + "b".repeat(64);

function pin(toolId: string, fingerprint = FP_A): PinRecord {
  return makePinRecord({
    toolId,
    domain: "example.com",
    fingerprint,
    source: "first_use",
    pinnedAt: "2026-12-01T00:00:00Z",
  });
}

/** A store that counts how it is used. */
class Counting implements PinStore {
  reads = 0;
  transactions = 0;
  fail = false;
  constructor(readonly inner: PinStore) {}
  get(toolId: string, domain: string) {
    this.reads++;
    return this.inner.get(toolId, domain);
  }
  list() {
    this.reads++;
    return this.inner.list();
  }
  transact<R>(change: (pins: Map<string, PinRecord>) => { changed: boolean; result: R }) {
    this.transactions++;
    if (this.fail) return Promise.reject(new SchemaPinError("IO_FAILED", "disk full"));
    return this.inner.transact(change);
  }
}

Deno.test("batch pins: the store is read once; pins wait for flush, then one transaction", async () => {
  const inner = new Counting(new MemoryPinStore([pin("old")]));
  const batch = new BatchPinStore(inner);
  for (let i = 0; i < 100; i++) {
    assert.equal(await batch.get(`t${i}`, "example.com"), undefined);
    assert.equal((await addPinIfAbsent(batch, pin(`t${i}`))).status, "added");
  }
  assert.equal((await batch.get("old", "example.com"))?.fingerprint, FP_A);
  assert.equal((await batch.get("t7", "example.com"))?.fingerprint, FP_A, "the batch sees its own");
  assert.equal(inner.reads, 1);
  assert.equal(inner.transactions, 0);
  assert.equal((await inner.inner.list()).length, 1, "nothing written before flush");
  assert.equal(batch.pendingCount, 100);
  const outcome = await batch.flush();
  assert.equal(outcome.written.length, 100);
  assert.equal(outcome.conflicts.size, 0);
  assert.equal(inner.transactions, 1);
  assert.equal((await inner.inner.list()).length, 101);
  assert.equal(batch.pendingCount, 0);
});

Deno.test("batch pins: an entry another writer changed meanwhile is kept and reported", async () => {
  const inner = new MemoryPinStore();
  const batch = new BatchPinStore(inner);
  await batch.list(); // the batch's snapshot: empty
  await addPinIfAbsent(batch, pin("same"));
  await addPinIfAbsent(batch, pin("other"));
  await addPinIfAbsent(batch, pin("free"));
  // Another process pins two of them meanwhile: one with the same key, one with another.
  await addPinIfAbsent(inner, pin("same", FP_A));
  await addPinIfAbsent(inner, pin("other", FP_B));
  const { written, conflicts } = await batch.flush();
  assert.deepEqual(written, ["free@example.com"]);
  assert.deepEqual([...conflicts.keys()].sort(), ["other@example.com", "same@example.com"]);
  assert.equal(conflicts.get("other@example.com")!.current?.fingerprint, FP_B);
  assert.equal((await inner.get("other", "example.com"))?.fingerprint, FP_B, "not overwritten");
  assert.equal((await batch.get("other", "example.com"))?.fingerprint, FP_B, "view refreshed");
});

Deno.test("batch pins: a rotation or removal by another writer is not undone", async () => {
  const inner = new MemoryPinStore([pin("rotated"), pin("removed")]);
  const batch = new BatchPinStore(inner);
  await rotatePin(batch, "rotated", "example.com", FP_B, Date.UTC(2026, 11, 1));
  await removePin(batch, "removed", "example.com");
  await rotatePin(inner, "rotated", "example.com", FP_A, Date.UTC(2026, 11, 2));
  await removePin(inner, "removed", "example.com");
  const { written, conflicts } = await batch.flush();
  assert.deepEqual(written, []);
  assert.equal(conflicts.size, 2);
  assert.equal((await inner.get("rotated", "example.com"))?.pinnedAt, "2026-12-02T00:00:00Z");
});

Deno.test("batch pins: a failed or unchanged transaction leaves the view as it was", async () => {
  const inner = new Counting(new MemoryPinStore([pin("a")]));
  const batch = new BatchPinStore(inner);
  await assert.rejects(
    batch.transact((pins) => {
      pins.delete("a@example.com");
      pins.set("b@example.com", pin("b"));
      throw new Error("boom");
    }),
    /boom/,
  );
  await batch.transact((pins) => {
    pins.set("c@example.com", pin("c"));
    return { changed: false, result: undefined };
  });
  assert.deepEqual((await batch.list()).map((r) => r.toolId), ["a"]);
  assert.equal(batch.pendingCount, 0);
  await batch.transact((pins) => {
    pins.set("d@example.com", pin("d"));
    pins.delete("d@example.com"); // back to what the store holds: nothing to write
    return { changed: true, result: undefined };
  });
  assert.equal(batch.pendingCount, 0);
  await batch.flush();
  assert.equal(inner.transactions, 0, "nothing pending: no lock, no write");
});

Deno.test("batch pins: a failed flush writes nothing, drops the pending pins, re-reads", async () => {
  const inner = new Counting(new MemoryPinStore());
  const batch = new BatchPinStore(inner);
  await addPinIfAbsent(batch, pin("x"));
  assert.deepEqual([...batch.pendingKeys()], ["x@example.com"]);
  inner.fail = true;
  await assert.rejects(batch.flush(), /disk full/);
  assert.equal(batch.pendingCount, 0);
  inner.fail = false;
  assert.equal(await batch.get("x", "example.com"), undefined, "the view is the store again");
  assert.equal(inner.reads, 2);
  assert.equal((await inner.inner.list()).length, 0);
});

Deno.test("batch pins: over a file store, one locked rewrite per flush", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/pins.json`;
    const batch = new BatchPinStore(new FilePinStore(path));
    for (let i = 0; i < 500; i++) await addPinIfAbsent(batch, pin(`t${i}`));
    assert.equal(await Deno.stat(path).then(() => true, () => false), false, "not written yet");
    await batch.flush();
    const file = JSON.parse(await Deno.readTextFile(path));
    assert.equal(file.pins.length, 500);
    assert.equal((await new FilePinStore(path).list()).length, 500);
    // A corrupt store is an error, never an empty view, and is not overwritten.
    await Deno.writeTextFile(path, "{");
    const again = new BatchPinStore(new FilePinStore(path));
    await assert.rejects(again.get("t1", "example.com"), SchemaPinError);
    await assert.rejects(addPinIfAbsent(again, pin("y")), SchemaPinError);
    assert.equal(await Deno.readTextFile(path), "{");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function validResult(toolId: string, fingerprint: string): OfflineVerificationResult {
  return {
    valid: true,
    domain: "example.com",
    toolId,
    keyFingerprint: fingerprint,
    keyPinning: "first_use",
    warnings: [],
    expired: false,
  };
}

Deno.test("settlePinConflict: same key stays valid; another key or a removal fails", () => {
  const same = validResult("t", FP_A);
  settlePinConflict(same, { fingerprint: FP_A });
  assert.equal(same.valid, true);
  assert.equal(same.keyPinning, "pinned");
  const other = validResult("t", FP_A);
  settlePinConflict(other, { fingerprint: FP_B });
  assert.equal(other.valid, false);
  assert.equal(other.errorCode, "KEY_PIN_MISMATCH");
  assert.equal(other.pinnedFingerprint, FP_B);
  assert.match(other.errorMessage!, /pinned to sha256:b+ by another verifier/);
  const removed = validResult("t", FP_A);
  settlePinConflict(removed, undefined);
  assert.equal(removed.valid, false);
  assert.equal(removed.errorCode, "KEY_NOT_FOUND");
  const failed = {
    ...validResult("t", FP_A),
    valid: false,
    errorCode: "SIGNATURE_INVALID" as const,
  };
  settlePinConflict(failed, { fingerprint: FP_B });
  assert.equal(failed.errorCode, "SIGNATURE_INVALID", "a failure stays what it was");
});
