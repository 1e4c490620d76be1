// The temporary-file registry (lib/runtime/temp_files.ts) and the atomic writers that use it: a
// write under way is listed until its rename, a finished or failed write is not, and
// removeTrackedTempFiles removes exactly what is listed.
import assert from "node:assert/strict";
import {
  onStop,
  removeTrackedTempFiles,
  runStopActions,
  trackedTempFiles,
  trackTempFile,
  untrackTempFile,
} from "../lib/runtime/temp_files.ts";
import { writeFileAtomic } from "../cli/commands/io.ts";
import { AtomicBatchWriter } from "../lib/runtime/atomic_write.ts";
import { FilePinStore, seedPin } from "../pins.ts";
import { exists, withTempDir } from "./cli/run.ts";

Deno.test("removeTrackedTempFiles removes what is tracked, skips what is gone, forgets all", async () => {
  await withTempDir(async (dir) => {
    const a = `${dir}/.a.tmp-1`;
    const b = `${dir}/.b.tmp-2`;
    const kept = `${dir}/.c.tmp-3`;
    for (const p of [a, b, kept]) Deno.writeTextFileSync(p, "x");
    trackTempFile(a);
    trackTempFile(b);
    trackTempFile(`${dir}/never-created`);
    trackTempFile(kept);
    untrackTempFile(kept); // renamed into place, say
    assert.deepEqual(trackedTempFiles(), [a, b, `${dir}/never-created`]);
    assert.deepEqual(removeTrackedTempFiles(), [a, b]);
    assert.deepEqual(trackedTempFiles(), []);
    assert.equal(await exists(a), false);
    assert.equal(await exists(b), false);
    assert.equal(await exists(kept), true, "an untracked file is not touched");
    assert.deepEqual(removeTrackedTempFiles(), []);
  });
});

Deno.test("onStop: actions run once, in order, a throwing one does not stop the others", () => {
  const ran: string[] = [];
  onStop(() => ran.push("a"));
  const off = onStop(() => ran.push("never"));
  onStop(() => {
    throw new Error("boom");
  });
  onStop(() => ran.push("c"));
  off();
  runStopActions();
  runStopActions();
  assert.deepEqual(ran, ["a", "c"]);
});

Deno.test("the atomic writers track their temporary file only while a write is under way", async () => {
  await withTempDir(async (dir) => {
    await writeFileAtomic(`${dir}/one.json`, "{}\n");
    assert.deepEqual(trackedTempFiles(), []);
    await assert.rejects(() => writeFileAtomic(`${dir}/missing/two.json`, "{}\n"));
    assert.deepEqual(trackedTempFiles(), [], "a failed write forgets its temp file");

    const writer = new AtomicBatchWriter();
    writer.add(`${dir}/a.sig`, "A\n");
    writer.add(`${dir}/b.sig`, "B\n");
    const pending = trackedTempFiles();
    assert.equal(pending.length, 2);
    for (const p of pending) {
      assert.match(p, new RegExp(`^${dir}/\\.[ab]\\.sig\\.tmp-${Deno.pid}-`));
      assert.ok(await exists(p));
    }
    const outcomes = await writer.commit();
    assert.deepEqual(outcomes.map((o) => o.error), [undefined, undefined]);
    assert.deepEqual(trackedTempFiles(), []);
    assert.equal(Deno.readTextFileSync(`${dir}/a.sig`), "A\n");

    writer.add(`${dir}/c.sig`, "C\n");
    assert.equal(trackedTempFiles().length, 1);
    writer.abort();
    assert.deepEqual(trackedTempFiles(), []);
    assert.equal(await exists(`${dir}/c.sig`), false);

    const store = new FilePinStore(`${dir}/pins.json`);
    await seedPin(store, "t", "example.com", "sha256:" + "0".repeat(64));
    assert.deepEqual(trackedTempFiles(), [], "the pin store forgets its temp file after rename");
    assert.deepEqual(
      [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.includes(".tmp-")),
      [],
    );
  });
});
