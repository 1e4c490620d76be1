/**
 * The lock file (§5): exact written format, strict reading (unknown version, algorithm or
 * canonicalization refused — exit 2, never a best-effort compare), and verify's handling of
 * missing, corrupt and hand-edited locks.
 */
import assert from "node:assert/strict";
import { digestToolList } from "../../lib/contractpin/digest.ts";
import {
  buildLock,
  formatGeneratedAt,
  lockServerEntry,
  parseLock,
  serializeLock,
} from "../../lib/contractpin/lock.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { runInProcess, withTempDir } from "./helpers.ts";
import { assertJsonOutput } from "../cli/json_schemas.ts";

const enc = new TextEncoder();

function sampleLock() {
  const list = digestToolList([{ name: "b", description: "B" }, {
    name: "a",
    inputSchema: { type: "object" },
  }]);
  return buildLock(
    { files: lockServerEntry({ transport: "file", path: "tools.json" }, list) },
    new Date(Date.UTC(2026, 7, 14, 9, 31, 7, 999)),
  );
}

Deno.test("lock: written pretty, keys sorted, two-space indent, LF, trailing newline", () => {
  const text = serializeLock(sampleLock());
  assert.ok(text.endsWith("}\n"));
  assert.ok(!text.includes("\r"));
  assert.ok(!text.includes("\t"));
  const lines = text.split("\n");
  assert.equal(lines[0], "{");
  assert.equal(lines[1], '  "algorithm": "sha256",');
  assert.equal(lines[2], '  "canonicalization": "contractpin-canonical-json/1",');
  assert.equal(lines[3], '  "contractpin": "1",');
  assert.equal(lines[4], '  "generated_at": "2026-08-14T09:31:07Z",');
  assert.equal(lines[5], '  "servers": {');
  assert.equal(lines[6], '    "files": {');
  assert.equal(lines[7], '      "digest": "' + sampleLock().servers.files.digest + '",');
  assert.equal(lines[8], '      "path": "tools.json",');
  assert.equal(lines[9], '      "tool_count": 2,');
  assert.equal(lines[10], '      "tools": {');
  assert.equal(lines[11], '        "a": {'); // sorted, whatever the served order
  // Re-serialising a parsed lock gives the same bytes.
  assert.equal(serializeLock(parseLock(enc.encode(text))), text);
});

Deno.test("lock: generated_at has no fraction and ends in Z", () => {
  assert.equal(
    formatGeneratedAt(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))),
    "2026-01-02T03:04:05Z",
  );
});

Deno.test("lock: formatting is not data — a reformatted lock reads the same", () => {
  const lock = sampleLock();
  const compact = JSON.stringify(lock);
  assert.deepEqual(parseLock(enc.encode(compact)), parseLock(enc.encode(serializeLock(lock))));
});

// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

function mutated(f: (doc: Doc) => void): Uint8Array {
  const doc = JSON.parse(serializeLock(sampleLock())) as Doc;
  f(doc);
  return enc.encode(JSON.stringify(doc));
}

const invalid: [string, Uint8Array, RegExp][] = [
  ["unknown version", mutated((d) => (d.contractpin = "2")), /unsupported lock format version "2"/],
  ["numeric version", mutated((d) => (d.contractpin = 1)), /unsupported lock format version 1/],
  ["missing version", mutated((d) => delete d.contractpin), /unsupported lock format version null/],
  [
    "unknown algorithm",
    mutated((d) => (d.algorithm = "sha512")),
    /unsupported digest algorithm "sha512"/,
  ],
  [
    "unknown canonicalization",
    mutated((d) => (d.canonicalization = "contractpin-canonical-json/2")),
    /unsupported canonicalization/,
  ],
  ["unknown top-level key", mutated((d) => (d.extra = 1)), /unknown member "extra"/],
  [
    "bad timestamp",
    mutated((d) => (d.generated_at = "2026-08-14T09:31:07.123Z")),
    /generated_at must be/,
  ],
  ["servers not an object", mutated((d) => (d.servers = [])), /\/servers must be an object/],
  ["unknown transport", mutated((d) => (d.servers.files.transport = "sse")), /transport must be/],
  [
    "key of another transport",
    mutated((d) => (d.servers.files.url = "http://x")),
    /unknown member "url"/,
  ],
  ["misspelt key", mutated((d) => (d.servers.files.toolcount = 2)), /unknown member "toolcount"/],
  [
    "tool_count mismatch",
    mutated((d) => (d.servers.files.tool_count = 3)),
    /tool_count is 3 but 2 tools/,
  ],
  [
    "bad digest",
    mutated((d) => (d.servers.files.tools.a.digest = "sha256:ABC")),
    /not a sha256 digest/,
  ],
  [
    "uppercase hex digest",
    mutated((
      d,
    ) => (d.servers.files.digest = d.servers.files.digest.toUpperCase().replace(
      "SHA256",
      "sha256",
    ))),
    /not a sha256 digest/,
  ],
  [
    "unknown field digest",
    mutated((d) => (d.servers.files.tools.a.fields.title = d.servers.files.digest)),
    /unknown contract field "title"/,
  ],
  [
    "stdio without command",
    mutated((d) => (d.servers.files = { ...d.servers.files, transport: "stdio", path: undefined })),
    /command must be a non-empty array/,
  ],
  [
    "env value not a string",
    mutated((d) => {
      const s = d.servers.files;
      delete s.path;
      Object.assign(s, { transport: "stdio", command: ["x"], env: { A: 1 } });
    }),
    /env\/A must be a string/,
  ],
  ["not an object", enc.encode("[]"), /must be a JSON object/],
  ["duplicate keys", enc.encode('{"contractpin":"1","contractpin":"1"}'), /[Dd]uplicate/],
  ["truncated", enc.encode('{"contractpin":"1",'), /unexpected end of input/],
];

for (const [label, bytes, message] of invalid) {
  Deno.test(`lock: ${label} is refused`, () => {
    assert.throws(
      () => parseLock(bytes, "contractpin.lock"),
      (e) =>
        e instanceof SchemaPinError && ["INPUT_INVALID", "JSON_INVALID"].includes(e.code) &&
        message.test(e.message),
    );
  });
}

Deno.test("verify: unknown lock version, corrupt and missing locks are exit 2", async () => {
  await withTempDir(async (dir) => {
    const lock = `${dir}/contractpin.lock`;
    await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify({ tools: [{ name: "a" }] }));
    assert.equal((await runInProcess(["contract", "verify", "--lock", lock])).code, 2);
    assert.equal(
      (await runInProcess(["contract", "init", "--lock", lock, "--file", `f=${dir}/tools.json`]))
        .code,
      0,
    );
    const good = await Deno.readTextFile(lock);
    assert.equal((await runInProcess(["contract", "verify", "--lock", lock])).code, 0);
    for (
      const [bad, message] of [
        [
          good.replace('"contractpin": "1"', '"contractpin": "2"'),
          /unsupported lock format version "2"/,
        ],
        [good.replace('"sha256",', '"blake3",'), /unsupported digest algorithm/],
        [good.slice(0, 40), /JSON_INVALID/],
        [good.replace('"tool_count": 1', '"tool_count": 2'), /tool_count is 2 but 1 tools/],
      ] as const
    ) {
      await Deno.writeTextFile(lock, bad);
      for (const format of [[], ["--json"], ["--format", "json"], ["--format", "sarif"]]) {
        const r = await runInProcess(["contract", "verify", "--lock", lock, ...format]);
        assert.equal(r.code, 2, `${message}: ${r.stderr}`);
        assert.match(r.stderr, message);
        if (format.includes("--json") || format.includes("json")) {
          // Under --json the error is also on stdout, as a schemapin.error/1 object.
          const out = await assertJsonOutput(r.stdout);
          assert.equal(out.format, "schemapin.error/1");
          assert.equal(out.ok, false);
          const error = out.error as { code: string; message: string };
          assert.match(`${error.code}: ${error.message}`, message);
          assert.ok(r.stderr.includes(`${error.code}: ${error.message}`), r.stderr);
        } else {
          assert.equal(r.stdout, "");
        }
      }
    }
  });
});

Deno.test("verify: a hand-edited digest is drift (exit 1), not a match", async () => {
  await withTempDir(async (dir) => {
    const lock = `${dir}/contractpin.lock`;
    await Deno.writeTextFile(
      `${dir}/tools.json`,
      JSON.stringify({ tools: [{ name: "a" }, { name: "b" }] }),
    );
    assert.equal(
      (await runInProcess(["contract", "init", "--lock", lock, "--file", `f=${dir}/tools.json`]))
        .code,
      0,
    );
    const text = await Deno.readTextFile(lock);
    const doc = JSON.parse(text);
    // A tool digest edited: that tool drifts, and the server digest no longer matches its tools.
    const toolEdit = structuredClone(doc);
    toolEdit.servers.f.tools.a.digest = "sha256:" + "0".repeat(64);
    await Deno.writeTextFile(lock, JSON.stringify(toolEdit));
    let r = await runInProcess(["contract", "verify", "--lock", lock, "--json"]);
    assert.equal(r.code, 1);
    let out = await assertJsonOutput(r.stdout);
    assert.equal(out.ok, false);
    assert.equal((out.error as { code: string }).code, "CONTRACT_DRIFT");
    // deno-lint-ignore no-explicit-any
    let s = (out.servers as any[])[0];
    assert.deepEqual(s.tools.drifted.map((d: { name: string }) => d.name), ["a"]);
    assert.equal(s.lock_inconsistent, true);
    // Only the server digest edited: every tool matches, but the lock is inconsistent.
    const serverEdit = structuredClone(doc);
    serverEdit.servers.f.digest = "sha256:" + "1".repeat(64);
    await Deno.writeTextFile(lock, JSON.stringify(serverEdit));
    r = await runInProcess(["contract", "verify", "--lock", lock, "--json"]);
    assert.equal(r.code, 1);
    out = await assertJsonOutput(r.stdout);
    assert.equal(out.ok, false);
    assert.equal((out.error as { code: string }).code, "CONTRACT_DRIFT");
    // deno-lint-ignore no-explicit-any
    s = (out.servers as any[])[0];
    assert.equal(s.status, "drift");
    assert.equal(s.lock_inconsistent, true);
    assert.equal(s.tools.unchanged, 2);
  });
});

Deno.test("init: paths are stored relative to the lock, and verify works from another cwd", async () => {
  await withTempDir(async (dir) => {
    await Deno.mkdir(`${dir}/ci`);
    await Deno.writeTextFile(`${dir}/tools.json`, JSON.stringify({ tools: [{ name: "a" }] }));
    const cwd = Deno.cwd();
    Deno.chdir(dir);
    try {
      const r = await runInProcess([
        "contract",
        "init",
        "--lock",
        "ci/contractpin.lock",
        "--file",
        "f=tools.json",
      ]);
      assert.equal(r.code, 0, r.stderr);
      const lock = JSON.parse(await Deno.readTextFile("ci/contractpin.lock"));
      assert.equal(lock.servers.f.path, "../tools.json");
    } finally {
      Deno.chdir(cwd);
    }
    assert.equal(
      (await runInProcess(["contract", "verify", "--lock", `${dir}/ci/contractpin.lock`])).code,
      0,
    );
  });
});

Deno.test("init: argument errors are exit 2 and write nothing", async () => {
  await withTempDir(async (dir) => {
    const lock = `${dir}/contractpin.lock`;
    for (
      const args of [
        [],
        ["--server", "x"],
        ["--", "cmd"],
        ["--env", "A=1", "--file", `f=${dir}/t.json`],
        ["--server", "x", "--env", "1BAD=2", "--", "cmd"],
        ["--file", "f"],
        ["--file", `f=${dir}/a.json`, "--file", `f=${dir}/b.json`],
        ["--timeout", "0", "--file", `f=${dir}/a.json`],
        ["--max-pages", "1.5", "--file", `f=${dir}/a.json`],
        ["--concurrency", "x", "--file", `f=${dir}/a.json`],
        ["--unknown"],
        ["stray", "--file", `f=${dir}/a.json`],
        ["--config", `${dir}/missing.json`],
      ]
    ) {
      const r = await runInProcess(["contract", "init", "--lock", lock, ...args]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    }
    assert.deepEqual([...Deno.readDirSync(dir)], []);
    const group = await runInProcess(["contract", "bogus"]);
    assert.equal(group.code, 2);
    const bare = await runInProcess(["contract"]);
    assert.equal(bare.code, 2);
    assert.match(bare.stdout, /schemapin contract init/);
  });
});

Deno.test("init --json: versioned shape; --no-snapshot writes only the lock", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/tools.json`,
      JSON.stringify({ tools: [{ name: "a" }, { name: "b" }] }),
    );
    const r = await runInProcess([
      "contract",
      "init",
      "--lock",
      `${dir}/x.lock`,
      "--no-snapshot",
      "--json",
      "--file",
      `f=${dir}/tools.json`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    const out = await assertJsonOutput(r.stdout);
    assert.equal(out.format, "schemapin.contract.init/1");
    assert.equal(out.ok, true);
    assert.equal(out.snapshot, null);
    assert.match(out.generated_at as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.deepEqual(
      (out.servers as { name: string; tool_count: number }[]).map((s) => [s.name, s.tool_count]),
      [["f", 2]],
    );
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "tools.json",
      "x.lock",
    ]);
  });
});
