// §4b hashing and the legacy 1.3 algorithm: exact bytes, streaming, files changing while read.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { checkSkillPath, hashSkillDir, hashSkillFiles } from "../../lib/skill/hash.ts";
import { compareManifests, describeChanges, isUnchanged } from "../../lib/skill/manifest.ts";
import { assertSkillError, makeSkill } from "./trees.ts";
import { INTEROP_JS } from "../fixtures/interop.ts";

const enc = new TextEncoder();
const LEGACY = `${INTEROP_JS}/legacy_skill`;

function be64(n: number): Uint8Array {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
}

function sha(...parts: Uint8Array[]): Uint8Array {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

Deno.test("hash: §4b entry digest and root hash, byte for byte", () => {
  const path = enc.encode("scripts/run.sh");
  const content = enc.encode("echo hi\n");
  const entry = sha(new Uint8Array([0x66]), be64(path.length), path, be64(content.length), content);
  const root = sha(be64(path.length), path, entry);
  const h = hashSkillFiles([{ path: "scripts/run.sh", content }]);
  assert.equal(h.entries[0].digest, "sha256:" + hex(entry));
  assert.equal(h.skillHash, "sha256:" + hex(root));
  assert.deepEqual(h.rootHash, root);
  assert.equal(h.manifest["scripts/run.sh"], "sha256:" + hex(entry));
  assert.equal(h.algorithm, "1.4");
});

Deno.test("hash: legacy algorithm reproduces the reference fixture's skill_hash and manifest", async () => {
  const sig = JSON.parse(await Deno.readTextFile(`${LEGACY}/.schemapin.sig`));
  const h = await hashSkillDir(LEGACY, { algorithm: "legacy" });
  assert.equal(h.skillHash, sig.skill_hash);
  assert.deepEqual({ ...h.manifest }, sig.file_manifest);
  // The §4b hash of the same folder is a different value.
  assert.notEqual((await hashSkillDir(LEGACY)).skillHash, sig.skill_hash);
});

Deno.test("hash: §4b separates path and content; the legacy algorithm does not", () => {
  const a = [{ path: "ab", content: enc.encode("c") }];
  const b = [{ path: "a", content: enc.encode("bc") }];
  assert.notEqual(hashSkillFiles(a).entries[0].digest, hashSkillFiles(b).entries[0].digest);
  // SHA-256(path ‖ content) collides: one more reason new signatures never use it.
  assert.equal(
    hashSkillFiles(a, "legacy").entries[0].digest,
    hashSkillFiles(b, "legacy").entries[0].digest,
  );
});

Deno.test("hash: folder and in-memory hashing agree; order is by code point, not UTF-16", async () => {
  const files: Record<string, string> = {
    "SKILL.md": "---\nname: my-skill\ndescription: a test skill\n---\n# My skill\n",
    "scripts/run.sh": "#!/bin/sh\necho hello\n",
    "\u{fb00}": "U+FB00",
    "\u{1f600}": "U+1F600",
    "empty": "",
  };
  const s = await makeSkill(files);
  try {
    const fromDisk = await hashSkillDir(s.dir);
    const inMemory = hashSkillFiles(
      Object.entries(files).map(([path, text]) => ({ path, content: enc.encode(text) })),
    );
    assert.equal(fromDisk.skillHash, inMemory.skillHash);
    assert.deepEqual(fromDisk.entries, inMemory.entries);
    const paths = fromDisk.entries.map((e) => e.path);
    assert.ok(paths.indexOf("\u{fb00}") < paths.indexOf("\u{1f600}"));
    assert.equal(fromDisk.totalBytes, inMemory.totalBytes);
  } finally {
    await s.cleanup();
  }
});

Deno.test("hash: a file named __proto__ is an ordinary manifest key", () => {
  const h = hashSkillFiles([{ path: "__proto__", content: enc.encode("x") }]);
  assert.ok(Object.hasOwn(h.manifest, "__proto__"));
  assert.equal(Object.getPrototypeOf(h.manifest), Object.prototype);
  assert.deepEqual(Object.keys(h.manifest), ["__proto__"]);
});

Deno.test("hash: in-memory paths are validated", async () => {
  const content = enc.encode("x");
  for (const path of ["", "/abs", "a//b", "../x", "a/./b", "a/", "a\\b", "a\0b", "\ud800"]) {
    await assertSkillError(() => hashSkillFiles([{ path, content }]), "INPUT_INVALID");
    assert.ok(checkSkillPath(path), `${JSON.stringify(path)} must be refused`);
  }
  await assertSkillError(
    () => hashSkillFiles([{ path: "a", content }, { path: "a", content }]),
    "INPUT_INVALID",
    { message: /twice/ },
  );
  await assertSkillError(() => hashSkillFiles([]), "INPUT_INVALID", { reason: "empty" });
  await assertSkillError(
    () => hashSkillFiles([{ path: "a", content: "text" as unknown as Uint8Array }]),
    "INPUT_INVALID",
  );
  // A top-level .schemapin.sig is excluded here too; a nested one is not.
  const h = hashSkillFiles([
    { path: ".schemapin.sig", content },
    { path: "x/.schemapin.sig", content },
  ]);
  assert.deepEqual(h.entries.map((e) => e.path), ["x/.schemapin.sig"]);
});

Deno.test("hash: a file that grows while being hashed is an error", async () => {
  const s = await makeSkill();
  try {
    const big = `${s.dir}/big.bin`;
    await Deno.writeFile(big, new Uint8Array(3 << 20)); // three 1 MiB chunks
    let appended = false;
    await assertSkillError(
      () =>
        hashSkillDir(s.dir, {
          progressIntervalMs: 0,
          onProgress: async () => {
            if (appended) return;
            appended = true;
            await Deno.writeFile(big, new Uint8Array(10), { append: true });
          },
        }),
      "INPUT_INVALID",
      { reason: "changed", path: "big.bin", message: /changed size while it was being hashed/ },
    );
    assert.ok(appended);
  } finally {
    await s.cleanup();
  }
});

Deno.test("hash: a file that shrinks while being hashed is an error", async () => {
  const s = await makeSkill();
  try {
    const big = `${s.dir}/big.bin`;
    await Deno.writeFile(big, new Uint8Array(3 << 20));
    await assertSkillError(
      () =>
        hashSkillDir(s.dir, {
          progressIntervalMs: 0,
          onProgress: () => Deno.truncate(big, 1 << 20),
        }),
      "INPUT_INVALID",
      { reason: "changed", path: "big.bin" },
    );
  } finally {
    await s.cleanup();
  }
});

Deno.test("hash: a file replaced after the walk by a link to other content is an error", async () => {
  const s = await makeSkill({ "z-last.txt": "original content" });
  try {
    await Deno.writeFile(`${s.dir}/big.bin`, new Uint8Array(2 << 20));
    let swapped = false;
    await assertSkillError(
      () =>
        hashSkillDir(s.dir, {
          progressIntervalMs: 0,
          onProgress: async () => {
            if (swapped) return;
            swapped = true;
            await Deno.remove(`${s.dir}/z-last.txt`);
            await Deno.writeTextFile(`${s.base}/outside.txt`, "other");
            await Deno.symlink(`${s.base}/outside.txt`, `${s.dir}/z-last.txt`);
          },
        }),
      "INPUT_INVALID",
      // ELOOP with full permissions (O_NOFOLLOW); under scoped permissions Deno resolves the
      // link, and the byte count no longer matches the listed size.
      { path: "z-last.txt", message: /became a symbolic link|changed size/ },
    );
    assert.ok(swapped);
  } finally {
    await s.cleanup();
  }
});

Deno.test("hash: progress is reported while hashing and bytes add up", async () => {
  const s = await makeSkill();
  try {
    await Deno.writeFile(`${s.dir}/big.bin`, new Uint8Array(3 << 20));
    const reference = await hashSkillDir(s.dir);
    const seen: number[] = [];
    const h = await hashSkillDir(s.dir, {
      progressIntervalMs: 0,
      onProgress: (p) => {
        assert.equal(p.bytesTotal, reference.totalBytes);
        assert.ok(p.bytesDone <= p.bytesTotal);
        seen.push(p.bytesDone);
      },
    });
    assert.ok(seen.length >= 3, `progress called ${seen.length} times`);
    assert.deepEqual([...seen].sort((a, b) => a - b), seen, "monotonic");
    assert.equal(h.skillHash, reference.skillHash);
  } finally {
    await s.cleanup();
  }
});

Deno.test("hash: small files report progress per file, and the walk counts files", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (let i = 0; i < 200; i++) {
      await Deno.mkdir(`${dir}/d${i % 7}`, { recursive: true });
      await Deno.writeTextFile(`${dir}/d${i % 7}/f${i}.txt`, `file ${i}\n`.repeat(i % 5));
    }
    const done: number[] = [];
    const found: number[] = [];
    const h = await hashSkillDir(dir, {
      progressIntervalMs: 0,
      onProgress: (p) => void done.push(p.filesDone),
      onWalkProgress: (n) => void found.push(n),
    });
    assert.deepEqual(done, Array.from({ length: 200 }, (_, i) => i + 1), "after every file");
    assert.deepEqual(found, [64, 128, 192, 200], "every 64 files and at the end");
    assert.equal(h.skillHash, (await hashSkillDir(dir)).skillHash);
    // The same tree in memory: the shared-buffer path and the in-memory path agree.
    const files = [];
    for (const e of h.entries) {
      files.push({ path: e.path, content: await Deno.readFile(`${dir}/${e.path}`) });
    }
    assert.equal(hashSkillFiles(files).skillHash, h.skillHash);
    assert.equal(
      hashSkillFiles(files, "legacy").skillHash,
      (await hashSkillDir(dir, {
        algorithm: "legacy",
      })).skillHash,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hash: files around the one-read size agree with the in-memory hash", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const files = [];
    // One read holds 1 MiB: the §4b.4 prefix (17 bytes + the path) and the content.
    for (const delta of [-2, -1, 0, 1, 2]) {
      const path = `f${delta + 2}.bin`;
      const content = new Uint8Array((1 << 20) - 17 - path.length + delta).fill(delta + 7);
      await Deno.writeFile(`${dir}/${path}`, content);
      files.push({ path, content });
    }
    for (const algorithm of ["1.4", "legacy"] as const) {
      const h = await hashSkillDir(dir, { algorithm });
      assert.equal(h.skillHash, hashSkillFiles(files, algorithm).skillHash, algorithm);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hash: memory stays flat for a large file (streaming)", async () => {
  const s = await makeSkill();
  try {
    const f = await Deno.open(`${s.dir}/large.bin`, { write: true, create: true });
    await f.truncate(192 << 20); // sparse 192 MiB: reads return zeros, nothing on disk
    f.close();
    await hashSkillDir(s.dir, { maxEntries: 10 }); // warm up
    const before = Deno.memoryUsage().rss;
    const h = await hashSkillDir(s.dir);
    const grown = Deno.memoryUsage().rss - before;
    assert.equal(
      h.totalBytes,
      (192 << 20) + h.entries.filter((e) => e.path !== "large.bin")
        .reduce((n, e) => n + e.size, 0),
    );
    assert.ok(grown < 48 << 20, `RSS grew by ${grown} bytes while hashing 192 MiB`);
  } finally {
    await s.cleanup();
  }
});

Deno.test("manifest: added, removed and modified files in code point order", () => {
  const signed = {
    "a": "sha256:1",
    "b": "sha256:2",
    "\u{1f600}": "sha256:3",
    "\u{fb00}": "sha256:4",
  };
  const current = {
    "a": "sha256:9",
    "c": "sha256:5",
    "\u{1f600}": "sha256:7",
    "\u{fb00}": "sha256:8",
  };
  const changes = compareManifests(signed, current);
  assert.deepEqual(changes, {
    added: ["c"],
    removed: ["b"],
    modified: ["a", "\u{fb00}", "\u{1f600}"],
  });
  assert.equal(isUnchanged(changes), false);
  assert.equal(isUnchanged(compareManifests(signed, { ...signed })), true);
  assert.deepEqual(describeChanges(changes, 2), [
    "modified: a",
    "modified: \u{fb00}",
    "… and 3 more",
  ]);
});

Deno.test("manifest: __proto__ and constructor are compared as paths", () => {
  const signed = JSON.parse('{"__proto__":"sha256:1","constructor":"sha256:2"}');
  const changes = compareManifests(signed, {});
  assert.deepEqual(changes.removed, ["__proto__", "constructor"]);
  assert.deepEqual(compareManifests({}, signed).added, ["__proto__", "constructor"]);
});
