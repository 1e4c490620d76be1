// Setting up a batch (lib/schema/batch.ts, cli/schema/sign_output.ts, lib/schema/input.ts),
// without the CLI: which files a folder lists for a pattern, the folders a batch needs, and a
// sign batch that would replace a signature file (of either format) stopping before it writes.
import assert from "node:assert/strict";
import { rejectsWith, throwsWith } from "../schema_pin_error.ts";
import { globToRegExp, joinPath, listBatch } from "../../lib/schema/batch.ts";
import { requireDirectory } from "../../lib/schema/input.ts";
import { prepareSignBatch, refuseFormatSwitch } from "../../cli/schema/sign_output.ts";
import { withTempDir } from "../cli/run.ts";

Deno.test("globToRegExp: * and ? match within a name; everything else is literal", () => {
  assert.ok(globToRegExp("*.json").test("tool.json"));
  assert.ok(globToRegExp("t?.json").test("t1.json"));
  assert.ok(!globToRegExp("*.json").test("tool.jsonx"));
  assert.ok(!globToRegExp("t?.json").test("t12.json"));
  assert.ok(!globToRegExp("a.b").test("axb"), "a dot is literal");
  assert.ok(!globToRegExp("(x)+").test("xx"), "regular expression syntax is literal");
});

Deno.test("globToRegExp: an empty pattern or one with a / is INPUT_INVALID", () => {
  throwsWith(() => globToRegExp(""), "INPUT_INVALID", /^pattern "" must be a file-name pattern/);
  throwsWith(() => globToRegExp("a/*.json"), "INPUT_INVALID", /must be a file-name pattern/);
});

Deno.test("joinPath: one slash between folder and name", () => {
  assert.equal(joinPath("a", "b.json"), "a/b.json");
  assert.equal(joinPath("a//", "b.json"), "a/b.json");
  assert.equal(joinPath("/", "b.json"), "/b.json");
});

Deno.test("listBatch: matching regular files sorted; .sig, folders and other names left out; links skipped", async () => {
  await withTempDir((dir) => {
    for (const name of ["b.json", "a.json", "a.json.sig", "notes.txt", "x.sig"]) {
      Deno.writeTextFileSync(`${dir}/${name}`, "{}");
    }
    Deno.mkdirSync(`${dir}/sub.json`);
    Deno.symlinkSync(`${dir}/a.json`, `${dir}/link.json`);
    const { files, skipped } = listBatch(dir, "*");
    assert.deepEqual(files, ["a.json", "b.json", "notes.txt"]);
    assert.deepEqual(skipped, [`${dir}/link.json`]);
    assert.deepEqual(listBatch(dir, "*.json").files, ["a.json", "b.json"]);
    return Promise.resolve();
  });
});

Deno.test("listBatch: a missing folder is IO_FAILED naming it; a bad pattern INPUT_INVALID", async () => {
  await withTempDir((dir) => {
    throwsWith(
      () => listBatch(`${dir}/nope`, "*.json"),
      "IO_FAILED",
      /cannot list .*nope: no such file/,
    );
    throwsWith(() => listBatch(dir, "x/y"), "INPUT_INVALID", /file-name pattern/);
    return Promise.resolve();
  });
});

Deno.test("requireDirectory: a folder passes; a missing one or a file is IO_FAILED naming it", async () => {
  await withTempDir(async (dir) => {
    await requireDirectory("--signature-dir", dir);
    await rejectsWith(
      requireDirectory("--signature-dir", `${dir}/nope`),
      "IO_FAILED",
      /^--signature-dir .*nope: no such file or directory$/,
    );
    Deno.writeTextFileSync(`${dir}/f`, "");
    await rejectsWith(
      requireDirectory("--resolver-dir", `${dir}/f`),
      "IO_FAILED",
      /^--resolver-dir .*\/f is not a directory$/,
    );
  });
});

Deno.test("refuseFormatSwitch: no file or the same format passes; the other format is refused", async () => {
  await withTempDir(async (dir) => {
    await refuseFormatSwitch(`${dir}/none.sig`, "document");
    Deno.writeTextFileSync(`${dir}/bare.sig`, "MEUCIQ==\n");
    Deno.writeTextFileSync(`${dir}/doc.sig`, '  {"schemapin_version": "1.4"}');
    await refuseFormatSwitch(`${dir}/bare.sig`, "bare");
    await refuseFormatSwitch(`${dir}/doc.sig`, "document");
    await rejectsWith(
      refuseFormatSwitch(`${dir}/doc.sig`, "bare"),
      "IO_FAILED",
      /holds a 1\.4 signature document \(--format document\) and this run writes a bare Base64 signature \(--format bare\); nothing was written — pass --format document/,
    );
    await rejectsWith(
      refuseFormatSwitch(`${dir}/bare.sig`, "document"),
      "IO_FAILED",
      /holds a bare Base64 signature .* pass --format bare to keep its format, or --force/,
    );
  });
});

Deno.test("prepareSignBatch: lists and creates the output folder; with force existing files are allowed", async () => {
  await withTempDir(async (dir) => {
    Deno.writeTextFileSync(`${dir}/a.json`, "{}");
    const listing = await prepareSignBatch({
      dir,
      pattern: "*.json",
      outDir: `${dir}/out/deep`,
      format: "bare",
    });
    assert.deepEqual(listing.files, ["a.json"]);
    assert.ok(Deno.statSync(`${dir}/out/deep`).isDirectory);
    Deno.writeTextFileSync(`${dir}/out/deep/a.json.sig`, "{}");
    const forced = await prepareSignBatch({
      dir,
      pattern: "*.json",
      outDir: `${dir}/out/deep`,
      format: "bare",
      force: true,
    });
    assert.deepEqual(forced.files, ["a.json"]);
  });
});

Deno.test("prepareSignBatch: without force an existing signature stops it, the other format named first", async () => {
  await withTempDir(async (dir) => {
    for (const n of ["a", "b", "c", "d"]) Deno.writeTextFileSync(`${dir}/${n}.json`, "{}");
    Deno.mkdirSync(`${dir}/out`);
    for (const n of ["a", "b", "c", "d"]) {
      Deno.writeTextFileSync(`${dir}/out/${n}.json.sig`, "MEUCIQ==");
    }
    const target = { dir, pattern: "*.json", outDir: `${dir}/out` };
    await rejectsWith(
      prepareSignBatch({ ...target, format: "bare" }),
      "IO_FAILED",
      /^4 signature file\(s\) already exist \(.*a\.json\.sig, .*b\.json\.sig, .*c\.json\.sig, …\); nothing was written — add --force to replace them$/,
    );
    await rejectsWith(
      prepareSignBatch({ ...target, format: "document" }),
      "IO_FAILED",
      /a\.json\.sig holds a bare Base64 signature/,
    );
    await rejectsWith(
      prepareSignBatch({ ...target, pattern: "/", format: "bare" }),
      "INPUT_INVALID",
      /file-name pattern/,
    );
    Deno.writeTextFileSync(`${dir}/file`, "");
    await rejectsWith(
      prepareSignBatch({ dir, pattern: "a.json", outDir: `${dir}/file/out`, format: "bare" }),
      "IO_FAILED",
      /file\/out/,
    );
  });
});
