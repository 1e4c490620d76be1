// Atomic writes in the library (lib/runtime/atomic_write.ts): one file (writeFileAtomic), many
// made durable together (AtomicBatchWriter), the leftovers of a killed batch
// (removeDeadWriterTempFiles), and exists. The CLI's io.ts re-exports them.
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import {
  AtomicBatchWriter,
  exists,
  removeDeadWriterTempFiles,
  syncDirectory,
  writeFileAtomic,
} from "../../lib/runtime/atomic_write.ts";
import { trackedTempFiles } from "../../lib/runtime/temp_files.ts";
import { processAlive } from "../../lib/runtime/pid.ts";
import { withTempDir } from "../cli/run.ts";

const UUID = "0123abcd-0123-4567-89ab-0123456789ab";

function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

function ioFailed(pattern: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof SchemaPinError, String(e));
    assert.equal(e.code, "IO_FAILED");
    assert.match(e.message, pattern);
    return true;
  };
}

Deno.test("writeFileAtomic writes text or bytes with the mode asked for, and replaces only with overwrite", async () => {
  await withTempDir(async (dir) => {
    await writeFileAtomic(`${dir}/a.txt`, "one\n", { mode: 0o600 });
    assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "one\n");
    assert.equal((await Deno.stat(`${dir}/a.txt`)).mode! & 0o777, 0o600);
    await writeFileAtomic(`${dir}/a.txt`, new Uint8Array([0x32, 0x0a]), { overwrite: true });
    assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "2\n");
    assert.equal((await Deno.stat(`${dir}/a.txt`)).mode! & 0o777, 0o644, "the default mode");
    assert.deepEqual(names(dir), ["a.txt"], "no temporary file left");
    assert.deepEqual(trackedTempFiles(), []);
  });
});

Deno.test("writeFileAtomic refuses an existing file (details.exists) and a missing folder, leaving nothing", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/a.txt`, "old\n");
    await assert.rejects(writeFileAtomic(`${dir}/a.txt`, "new\n"), (e) => {
      ioFailed(/a\.txt already exists; refusing to overwrite it$/)(e);
      assert.equal((e as SchemaPinError).details.exists, true);
      return true;
    });
    assert.equal(await Deno.readTextFile(`${dir}/a.txt`), "old\n");
    await assert.rejects(
      writeFileAtomic(`${dir}/no/b.txt`, "x"),
      ioFailed(/cannot write .*no\/b\.txt: no such file or directory/),
    );
    // A directory in the way: the rename fails and the temporary file is removed.
    await Deno.mkdir(`${dir}/d`);
    await Deno.writeTextFile(`${dir}/d/keep`, "");
    await assert.rejects(
      writeFileAtomic(`${dir}/d`, "x", { overwrite: true }),
      ioFailed(/cannot write .*\/d: /),
    );
    assert.deepEqual(names(dir), ["a.txt", "d"]);
    assert.deepEqual(trackedTempFiles(), []);
  });
});

Deno.test("exists: a file, a folder and a dangling symlink exist; a missing path does not; a path below a file fails", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/f`, "");
    await Deno.symlink(`${dir}/nowhere`, `${dir}/link`);
    assert.equal(await exists(`${dir}/f`), true);
    assert.equal(await exists(dir), true);
    assert.equal(await exists(`${dir}/link`), true);
    assert.equal(await exists(`${dir}/missing`), false);
    // A path below a file cannot be inspected: an error naming it, not "missing".
    await assert.rejects(exists(`${dir}/f/below`), ioFailed(/cannot inspect .*f\/below: /));
  });
});

Deno.test("AtomicBatchWriter: nothing is in place before commit; commit puts every file in place", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/b.sig`, "old\n");
    const writer = new AtomicBatchWriter();
    writer.add(`${dir}/a.sig`, "A\n");
    writer.add(`${dir}/b.sig`, new Uint8Array([0x42, 0x0a]), 0o600);
    assert.equal(writer.size, 2);
    assert.equal(await Deno.readTextFile(`${dir}/b.sig`), "old\n", "not before commit");
    assert.equal(trackedTempFiles().length, 2);
    const outcomes = await writer.commit();
    assert.deepEqual(outcomes, [{ path: `${dir}/a.sig` }, { path: `${dir}/b.sig` }]);
    assert.equal(await Deno.readTextFile(`${dir}/a.sig`), "A\n");
    assert.equal(await Deno.readTextFile(`${dir}/b.sig`), "B\n");
    assert.equal((await Deno.stat(`${dir}/b.sig`)).mode! & 0o777, 0o600);
    assert.equal(writer.size, 0);
    assert.deepEqual(names(dir), ["a.sig", "b.sig"]);
    assert.deepEqual(trackedTempFiles(), []);
  });
});

Deno.test("AtomicBatchWriter refuses a file it cannot create, reports a failed rename, and abort removes all", async () => {
  await withTempDir(async (dir) => {
    const writer = new AtomicBatchWriter();
    assert.throws(
      () => writer.add(`${dir}/no/a.sig`, "x"),
      ioFailed(/cannot write .*no\/a\.sig: no such file or directory/),
    );
    assert.equal(writer.size, 0);
    await Deno.mkdir(`${dir}/taken`);
    await Deno.writeTextFile(`${dir}/taken/x`, "");
    writer.add(`${dir}/taken`, "x"); // a non-empty folder: the rename over it fails
    writer.add(`${dir}/ok.sig`, "ok\n");
    const [taken, ok] = await writer.commit();
    assert.equal(taken.error?.code, "IO_FAILED");
    assert.match(taken.error!.message, /cannot write .*taken/);
    assert.equal(ok.error, undefined);
    assert.deepEqual(names(dir), ["ok.sig", "taken"]);
    writer.add(`${dir}/c.sig`, "c");
    writer.abort();
    assert.deepEqual(names(dir), ["ok.sig", "taken"]);
    assert.deepEqual(trackedTempFiles(), []);
  });
});

Deno.test("removeDeadWriterTempFiles removes only regular files of dead writers with the batch name", async () => {
  await withTempDir(async (dir) => {
    // A pid that is not running (the largest allowed on Linux is far below it).
    const dead = 999_999_999;
    assert.equal(processAlive(dead), false);
    const deadName = `.a.sig.tmp-${dead}-${UUID}`;
    const liveName = `.b.sig.tmp-${Deno.pid}-${UUID}`;
    const noPid = `.c.sig.tmp-${UUID}`;
    const folder = `.d.sig.tmp-${dead}-${UUID}`;
    for (const name of [deadName, liveName, noPid, "other.sig"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "");
    }
    await Deno.mkdir(`${dir}/${folder}`);
    assert.deepEqual(removeDeadWriterTempFiles(dir), [deadName]);
    assert.deepEqual(names(dir), [liveName, noPid, folder, "other.sig"].sort());
    assert.deepEqual(removeDeadWriterTempFiles(`${dir}/missing`), [], "nothing to list");
  });
});

Deno.test("syncDirectory is best effort: a missing folder is no error", async () => {
  await withTempDir(async (dir) => {
    await syncDirectory(dir);
    await syncDirectory(`${dir}/missing`);
  });
});
