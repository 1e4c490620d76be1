// Leftover temporary files of the pin store (a writer killed between creating its temporary
// file and the rename): a later write removes this store's stale ones, holding the lock, and
// keeps everything else — a live writer's file, other stores' files, look-alikes, links.
import assert from "node:assert/strict";
import { addPinIfAbsent, FilePinStore, makePinRecord } from "../../lib/pins/store.ts";
import { LineageStore } from "../../lib/pins/lineage.ts";
import { STALE_TEMP_FILE_MS } from "../../lib/pins/json_file.ts";
import { tempDir } from "../schema/_fixtures.ts";
import { childCommand } from "../process.ts";

const FP = "sha256:" + "a".repeat(64);
const UUID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9";

const pin = (toolId: string) =>
  makePinRecord({ toolId, domain: "example.com", fingerprint: FP, source: "first_use" });

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = childCommand("true", { stdout: "null", stderr: "null" }).spawn();
  await child.status;
  return child.pid;
}

/** A live process for the duration of `fn` (a `sleep`), by pid. */
async function withLiveProcess<T>(fn: (pid: number) => Promise<T>): Promise<T> {
  const child = childCommand("sleep", { args: ["60"], stdout: "null", stderr: "null" })
    .spawn();
  try {
    return await fn(child.pid);
  } finally {
    child.kill("SIGKILL");
    await child.status;
  }
}

async function touch(path: string, ageMs = 0): Promise<void> {
  await Deno.writeTextFile(path, '{"partial": ');
  if (ageMs > 0) {
    const t = new Date(Date.now() - ageMs);
    await Deno.utime(path, t, t);
  }
}

const names = (dir: string) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();

/** Runs `fn` with a fresh directory holding a pin store `pins.json` that has one pin. */
async function withStore(fn: (dir: string, store: FilePinStore) => Promise<void>) {
  const { dir, cleanup } = await tempDir();
  try {
    const store = new FilePinStore(`${dir}/pins.json`);
    await addPinIfAbsent(store, pin("first"));
    await fn(dir, store);
  } finally {
    await cleanup();
  }
}

Deno.test("temp files: a leftover of a dead writer is removed by the next write", async () => {
  await withStore(async (dir, store) => {
    const leftover = `.pins.json.tmp-${await deadPid()}-${UUID}`;
    await touch(`${dir}/${leftover}`);
    await addPinIfAbsent(store, pin("second"));
    assert.deepEqual(names(dir), ["pins.json", "pins.json.lock"]);
    assert.equal((await store.list()).length, 2);
  });
});

Deno.test("temp files: an old leftover without a pid (older versions) is removed", async () => {
  await withStore(async (dir, store) => {
    await touch(`${dir}/.pins.json.tmp-${UUID}`, STALE_TEMP_FILE_MS + 60_000);
    await addPinIfAbsent(store, pin("second"));
    assert.deepEqual(names(dir), ["pins.json", "pins.json.lock"]);
  });
});

Deno.test("temp files: an old leftover whose pid is alive again (reused) is removed", async () => {
  await withStore(async (dir, store) => {
    await withLiveProcess(async (pid) => {
      await touch(`${dir}/.pins.json.tmp-${pid}-${UUID}`, STALE_TEMP_FILE_MS + 60_000);
      await addPinIfAbsent(store, pin("second"));
      assert.deepEqual(names(dir), ["pins.json", "pins.json.lock"]);
    });
  });
});

Deno.test("temp files: a fresh file of a live writer is kept", async () => {
  await withStore(async (dir, store) => {
    await withLiveProcess(async (pid) => {
      const live = `.pins.json.tmp-${pid}-${UUID}`;
      await touch(`${dir}/${live}`);
      await addPinIfAbsent(store, pin("second"));
      assert.deepEqual(names(dir), [live, "pins.json", "pins.json.lock"]);
      assert.equal(await Deno.readTextFile(`${dir}/${live}`), '{"partial": ');
    });
  });
});

Deno.test("temp files: a fresh file of this very process is kept", async () => {
  await withStore(async (dir, store) => {
    const mine = `.pins.json.tmp-${Deno.pid}-${UUID}`;
    await touch(`${dir}/${mine}`);
    await addPinIfAbsent(store, pin("second"));
    assert.ok(names(dir).includes(mine));
  });
});

Deno.test("temp files: a fresh leftover without a pid is kept until it is old", async () => {
  await withStore(async (dir, store) => {
    const unknown = `.pins.json.tmp-${UUID}`;
    await touch(`${dir}/${unknown}`, STALE_TEMP_FILE_MS - 60_000);
    await addPinIfAbsent(store, pin("second"));
    assert.ok(names(dir).includes(unknown));
  });
});

Deno.test("temp files: names that are not this store's temporary names are never touched", async () => {
  await withStore(async (dir, store) => {
    const dead = await deadPid();
    const old = STALE_TEMP_FILE_MS + 60_000;
    const others = [
      `.pins.json.tmp-${dead}-${UUID}.bak`, // suffix
      `pins.json.tmp-${dead}-${UUID}`, // no leading dot
      `.pins.json.tmp-${dead}-not-a-uuid`,
      `.pins.json.tmp-${dead}-${UUID.toUpperCase()}`,
      `.pins.json.tmp-0-${UUID}`, // pid 0 is no writer's
      `.pins.json.lock.tmp-${dead}-${UUID}`,
      `.other.json.tmp-${dead}-${UUID}`, // another store in the same directory
      `.pinsxjson.tmp-${dead}-${UUID}`, // the dot is literal
      "notes.txt",
    ];
    for (const n of others) await touch(`${dir}/${n}`, old);
    await addPinIfAbsent(store, pin("second"));
    assert.deepEqual(names(dir), [...others, "pins.json", "pins.json.lock"].sort());
  });
});

Deno.test("temp files: without the run permission a dead pid cannot be told: kept until old", async () => {
  await withStore(async (dir) => {
    const dead = await deadPid();
    const fresh = `.pins.json.tmp-${dead}-${UUID}`;
    const old = `.pins.json.tmp-${dead}-${UUID.replace("0f", "2f")}`;
    await touch(`${dir}/${fresh}`);
    await touch(`${dir}/${old}`, STALE_TEMP_FILE_MS + 60_000);
    const worker = new URL("./_pin_worker.ts", import.meta.url).pathname;
    const out = await childCommand(Deno.execPath(), {
      args: ["run", "--allow-read", "--allow-write", worker, `${dir}/pins.json`, "w", "1", FP],
      cwd: new URL("../../", import.meta.url).pathname,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.ok(names(dir).includes(fresh), "liveness unknown and young: kept");
    assert.ok(!names(dir).includes(old), "old: removed by the age rule");
  });
});

Deno.test("temp files: a link or a directory with a temporary name is never removed", async () => {
  await withStore(async (dir, store) => {
    const dead = await deadPid();
    const target = `${dir}/target.txt`;
    await Deno.writeTextFile(target, "keep me\n");
    const link = `.pins.json.tmp-${dead}-${UUID}`;
    await Deno.symlink(target, `${dir}/${link}`);
    const sub = `.pins.json.tmp-${dead}-${UUID.replace("0f", "1f")}`;
    await Deno.mkdir(`${dir}/${sub}`);
    await addPinIfAbsent(store, pin("second"));
    assert.ok(names(dir).includes(link));
    assert.ok(names(dir).includes(sub));
    assert.equal(await Deno.readTextFile(target), "keep me\n");
  });
});

Deno.test("temp files: a transaction that writes nothing removes nothing", async () => {
  await withStore(async (dir, store) => {
    const leftover = `.pins.json.tmp-${await deadPid()}-${UUID}`;
    await touch(`${dir}/${leftover}`);
    await addPinIfAbsent(store, pin("first")); // already pinned: no write
    assert.ok(names(dir).includes(leftover));
    await addPinIfAbsent(store, pin("second"));
    assert.ok(!names(dir).includes(leftover));
  });
});

Deno.test("temp files: each store cleans only its own (pins vs lineage in one directory)", async () => {
  await withStore(async (dir, store) => {
    const dead = await deadPid();
    const pinsLeft = `.pins.json.tmp-${dead}-${UUID}`;
    const lineageLeft = `.lineage.json.tmp-${dead}-${UUID}`;
    await touch(`${dir}/${pinsLeft}`);
    await touch(`${dir}/${lineageLeft}`);
    const lineage = new LineageStore({ path: `${dir}/lineage.json` });
    await lineage.checkAndAdvance("t", "example.com", {
      schemapin_version: "1.4",
      skill_hash: "sha256:" + "b".repeat(64),
    });
    assert.ok(names(dir).includes(pinsLeft), "the lineage store left the pin store's file");
    assert.ok(!names(dir).includes(lineageLeft));
    await addPinIfAbsent(store, pin("second"));
    assert.ok(!names(dir).includes(pinsLeft));
  });
});

Deno.test("temp files: writers killed with SIGKILL mid-write leave nothing after the next write", async () => {
  // The reproduction: kill -9 during pin writes, then write once more.
  const { dir, cleanup } = await tempDir();
  try {
    const path = `${dir}/pins.json`;
    const worker = new URL("./_pin_worker.ts", import.meta.url).pathname;
    let leftovers = 0;
    for (let round = 0; round < 8; round++) {
      const child = childCommand(Deno.execPath(), {
        // The CLI's permissions include run, which lets a writer tell a dead writer's pid.
        args: [
          "run",
          "--allow-read",
          "--allow-write",
          "--allow-run",
          worker,
          path,
          `k${round}`,
          "100000",
          FP,
        ],
        cwd: new URL("../../", import.meta.url).pathname,
        stdout: "null",
        stderr: "null",
      }).spawn();
      // Let it write for a while (its pins appear), then kill it at an arbitrary moment.
      const started = Date.now();
      while (Date.now() - started < 20_000) {
        const text = await Deno.readTextFile(path).catch(() => "");
        if (text.includes(`"k${round}-`)) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 40)));
      child.kill("SIGKILL");
      await child.status;
      const left = names(dir).filter((n) => n.startsWith(".pins.json.tmp-"));
      // Each worker cleaned the leftovers of the ones killed before it: at most its own file.
      assert.ok(left.length <= 1, `round ${round}: ${left.join(", ")}`);
      assert.ok(left.every((n) => n.startsWith(`.pins.json.tmp-${child.pid}-`)), left.join());
      leftovers += left.length;
    }
    // The store is intact whatever happened (rename is atomic) …
    const store = new FilePinStore(path);
    const before = (await store.list()).length;
    assert.ok(before > 0);
    // … and the next write leaves no temporary file (leftovers seen so far: logged).
    await addPinIfAbsent(store, pin("after-kills"));
    console.log(`  temporary files left by the kills before the write: ${leftovers}`);
    assert.deepEqual(names(dir), ["pins.json", "pins.json.lock"]);
    assert.equal((await store.list()).length, before + 1);
  } finally {
    await cleanup();
  }
});
