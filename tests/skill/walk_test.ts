// Hostile and edge-case skill folders at the library level (§4b.1–§4b.3): every one is a
// clean SchemaPinError naming the path, raised before any file data is read.
import assert from "node:assert/strict";
import {
  checkSkillRoot,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_ENTRIES,
  resolveLimits,
  walkSkillDir,
} from "../../lib/skill/walk.ts";
import { hashSkillDir } from "../../lib/skill/hash.ts";
import {
  assertSkillError,
  canReadMode000,
  makeSkill,
  manyFiles,
  mkfifo,
  mkNonUtf8,
  mksocket,
  writeTree,
} from "./trees.ts";

Deno.test("walk: files sorted by code point, directories not entries, top .schemapin.sig out", async () => {
  const s = await makeSkill({
    ".schemapin.sig": "{}",
    "nested/.schemapin.sig": "ordinary",
    "docs/\u{1f600}.md": "emoji",
    "docs/\u{fb00}.md": "ff ligature",
    "a-b": "1",
    "a/b": "2",
    "a0": "3",
  });
  try {
    await Deno.mkdir(`${s.dir}/empty/deeper`, { recursive: true });
    const { files, totalBytes } = walkSkillDir(s.dir);
    assert.deepEqual(files.map((f) => f.path), [
      "SKILL.md",
      "a-b",
      "a/b",
      "a0",
      "docs/\u{fb00}.md", // U+FB00 before U+1F600 by code point (UTF-16 order is the reverse)
      "docs/\u{1f600}.md",
      "nested/.schemapin.sig",
      "scripts/run.sh",
    ]);
    assert.equal(totalBytes, files.reduce((n, f) => n + f.size, 0));
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a symbolic link to a file aborts, naming it", async () => {
  const s = await makeSkill();
  try {
    await Deno.symlink(`${s.dir}/SKILL.md`, `${s.dir}/scripts/link.md`);
    await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "symlink",
      path: "scripts/link.md",
      message: /scripts\/link\.md is a symbolic link/,
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a symbolic link to a directory aborts (and is not followed)", async () => {
  const s = await makeSkill();
  try {
    await Deno.mkdir(`${s.base}/outside`);
    await Deno.writeTextFile(`${s.base}/outside/secret.txt`, "unsigned");
    await Deno.symlink(`${s.base}/outside`, `${s.dir}/linked-dir`);
    await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "symlink",
      path: "linked-dir",
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a dangling symbolic link aborts", async () => {
  const s = await makeSkill();
  try {
    await Deno.symlink(`${s.base}/does-not-exist`, `${s.dir}/dangling`);
    await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "symlink",
      path: "dangling",
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a FIFO aborts without being opened", async () => {
  const s = await makeSkill();
  try {
    await mkfifo(`${s.dir}/scripts/pipe`);
    // Opening a FIFO for reading would block this (synchronous) test forever.
    await assertSkillError(() => hashSkillDir(s.dir), "INPUT_INVALID", {
      reason: "fifo",
      path: "scripts/pipe",
      message: /is a fifo, not a regular file/,
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a Unix socket aborts", async () => {
  const s = await makeSkill();
  const listener = mksocket(`${s.dir}/sock`);
  try {
    await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "socket",
      path: "sock",
    });
  } finally {
    listener.close();
    await s.cleanup();
  }
});

Deno.test("walk: a device node aborts", async () => {
  const s = await makeSkill();
  try {
    const made = await new Deno.Command("mknod", {
      args: [`${s.dir}/null`, "c", "1", "3"],
      stderr: "null",
    }).output().catch(() => ({ success: false }));
    if (!made.success) {
      console.log("  skipped: mknod is not permitted here (needs CAP_MKNOD)");
      return;
    }
    await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "character_device",
      path: "null",
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a file name that is not UTF-8 aborts", async () => {
  const s = await makeSkill();
  try {
    const shown = await mkNonUtf8(`${s.dir}/scripts`);
    await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "non_utf8_name",
      path: `scripts/${shown}`,
      message: /not valid UTF-8/,
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a non-UTF-8 name next to its own U+FFFD spelling still aborts", async () => {
  const s = await makeSkill();
  try {
    const shown = await mkNonUtf8(s.dir);
    await Deno.writeTextFile(`${s.dir}/${shown}`, "a real U+FFFD name");
    await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "non_utf8_name",
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a genuine U+FFFD in a valid UTF-8 name is accepted", async () => {
  const s = await makeSkill({ "r\ufffdsum\ufffd.txt": "fine" });
  try {
    const { files } = walkSkillDir(s.dir);
    assert.ok(files.some((f) => f.path === "r\ufffdsum\ufffd.txt"));
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: 10,001 files exceed the default cap; 10,000 do not", async () => {
  const s = await makeSkill();
  try {
    await Deno.remove(`${s.dir}/scripts`, { recursive: true });
    manyFiles(s.dir, DEFAULT_MAX_ENTRIES - 1); // + SKILL.md = 10,000
    assert.equal(walkSkillDir(s.dir).files.length, DEFAULT_MAX_ENTRIES);
    await Deno.writeTextFile(`${s.dir}/one-more`, "x");
    await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "too_many_entries",
      message: /more than 10000 files/,
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: the entry cap is configurable and exact", async () => {
  const s = await makeSkill({ "c.txt": "c" }); // 3 files
  try {
    assert.equal(walkSkillDir(s.dir, { maxEntries: 3 }).files.length, 3);
    await assertSkillError(() => walkSkillDir(s.dir, { maxEntries: 2 }), "INPUT_INVALID", {
      reason: "too_many_entries",
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: more directories than the entry cap abort", async () => {
  const s = await makeSkill();
  try {
    for (let i = 0; i < 5; i++) await Deno.mkdir(`${s.dir}/d${i}`);
    await assertSkillError(() => walkSkillDir(s.dir, { maxEntries: 4 }), "INPUT_INVALID", {
      reason: "too_many_entries",
      message: /directories/,
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: more than 256 MiB aborts from lstat sizes, before reading (sparse file)", async () => {
  const s = await makeSkill();
  try {
    const f = await Deno.open(`${s.dir}/huge.bin`, { write: true, create: true });
    await f.truncate(DEFAULT_MAX_BYTES + 1); // sparse: no data on disk, nothing to read
    f.close();
    const started = performance.now();
    await assertSkillError(() => hashSkillDir(s.dir), "INPUT_INVALID", {
      reason: "too_large",
      path: "huge.bin",
      message: /more than 268435456 bytes/,
    });
    assert.ok(performance.now() - started < 2000, "the cap must not need the data");
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: the byte cap is exact", async () => {
  const s = await makeSkill();
  try {
    const total = walkSkillDir(s.dir).totalBytes;
    assert.equal(walkSkillDir(s.dir, { maxBytes: total }).totalBytes, total);
    await assertSkillError(() => walkSkillDir(s.dir, { maxBytes: total - 1 }), "INPUT_INVALID", {
      reason: "too_large",
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: a folder with only empty directories is refused", async () => {
  const base = await Deno.makeTempDir({ prefix: "schemapin-skill-" });
  try {
    await Deno.mkdir(`${base}/skill/a/b`, { recursive: true });
    await assertSkillError(() => walkSkillDir(`${base}/skill`), "INPUT_INVALID", {
      reason: "empty",
      message: /holds no file/,
    });
    // A folder holding only its own signature is empty too.
    await Deno.writeTextFile(`${base}/skill/.schemapin.sig`, "{}");
    await assertSkillError(() => walkSkillDir(`${base}/skill`), "INPUT_INVALID", {
      reason: "empty",
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("walk: the root must be an existing directory, not a link or a file", async () => {
  const s = await makeSkill();
  try {
    await Deno.symlink(s.dir, `${s.base}/link-to-skill`);
    await assertSkillError(() => checkSkillRoot(`${s.base}/link-to-skill`), "INPUT_INVALID", {
      reason: "symlink",
    });
    await assertSkillError(() => walkSkillDir(`${s.dir}/SKILL.md`), "INPUT_INVALID", {
      message: /is not a directory/,
    });
    await assertSkillError(() => walkSkillDir(`${s.base}/missing`), "IO_FAILED", {
      message: /no such file/,
    });
    await assertSkillError(() => walkSkillDir(""), "INPUT_INVALID");
    assert.equal(checkSkillRoot(`${s.dir}///`), s.dir);
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: invalid caps are refused", async () => {
  for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 60]) {
    await assertSkillError(() => resolveLimits({ maxEntries: bad }), "INPUT_INVALID");
    await assertSkillError(() => resolveLimits({ maxBytes: bad }), "INPUT_INVALID");
  }
  assert.deepEqual(resolveLimits(), {
    maxEntries: DEFAULT_MAX_ENTRIES,
    maxBytes: DEFAULT_MAX_BYTES,
  });
});

Deno.test("walk: an unreadable file is IO_FAILED naming it (or skipped as root)", async () => {
  const s = await makeSkill();
  try {
    if (await canReadMode000(s.dir)) {
      console.log(
        "  skipped: running with CAP_DAC_OVERRIDE (root), mode 000 is readable here; " +
          "tests/cli/skill_hostile_test.ts covers this case with capabilities dropped",
      );
      return;
    }
    await Deno.chmod(`${s.dir}/scripts/run.sh`, 0o000);
    await assertSkillError(() => hashSkillDir(s.dir), "IO_FAILED", {
      path: "scripts/run.sh",
      message: /permission denied/,
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: names are reported with control characters escaped", async () => {
  const s = await makeSkill();
  try {
    await Deno.symlink("/etc/hostname", `${s.dir}/evil\x1b[2Jname`);
    const e = await assertSkillError(() => walkSkillDir(s.dir), "INPUT_INVALID", {
      reason: "symlink",
    });
    assert.ok(!e.message.includes("\x1b"), "no raw escape character in the message");
    assert.match(e.message, /evil\\u001b\[2Jname/);
  } finally {
    await s.cleanup();
  }
});

Deno.test("walk: deep nesting is walked without recursion limits", async () => {
  const s = await makeSkill();
  try {
    let rel = "";
    for (let i = 0; i < 200; i++) rel += `${i % 10}/`;
    await writeTree(s.dir, { [`${rel}leaf.txt`]: "deep" });
    const { files } = walkSkillDir(s.dir);
    assert.ok(files.some((f) => f.path === `${rel}leaf.txt`));
  } finally {
    await s.cleanup();
  }
});
