// The skill caps (--max-skill-files, --max-skill-bytes, --max-server-skill-bytes;
// docs/contractpin-skills.md, "Fetching") apply to the skills a --file dump saved exactly as to
// a live fetch: the same refusals, with the same words, naming the server and the skill.
import assert from "node:assert/strict";
import { join } from "node:path";
import { runInProcess, withTempDir } from "./run.ts";
import { init, PDF, serverCommand, writeSkills } from "./contract_skills_helpers.ts";

const enc = (s: string) => new TextEncoder().encode(s).length;

/** Skills under DIR/skills, dumped from the fixture (SEP-2640) to DIR/saved.json. */
async function saved(dir: string) {
  const root = join(dir, "skills");
  await writeSkills(root);
  const dumpPath = join(dir, "saved.json");
  const d = await runInProcess([
    "contract",
    "dump",
    "-o",
    dumpPath,
    "--server",
    "s",
    "--",
    ...serverCommand(root, "sep"),
  ]);
  assert.equal(d.code, 0, d.stderr);
  const pdfBytes = enc(await Deno.readTextFile(join(root, "pdf", "SKILL.md"))) +
    enc(await Deno.readTextFile(join(root, "pdf", "scripts", "run.sh")));
  const notesBytes = enc(await Deno.readTextFile(join(root, "notes", "SKILL.md")));
  return { root, dumpPath, pdfBytes, notesBytes };
}

/** `contract init --lock DIR/NAME.lock --file s=DUMP [caps…]`. */
function initFile(dir: string, dumpPath: string, name: string, ...caps: string[]) {
  return runInProcess([
    "contract",
    "init",
    "--lock",
    join(dir, `${name}.lock`),
    "--no-snapshot",
    "--file",
    `s=${dumpPath}`,
    ...caps,
  ]);
}

/** The `error:` lines of a run. */
const errors = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("error: server"));

const lockExists = (dir: string, name: string) =>
  Deno.stat(join(dir, `${name}.lock`)).then(() => true, () => false);

Deno.test("--max-skill-files: a dump's skill over the cap is refused as a live one is", async () => {
  await withTempDir(async (dir) => {
    const { root, dumpPath } = await saved(dir);
    const fromDump = await initFile(dir, dumpPath, "capped", "--max-skill-files", "1");
    assert.equal(fromDump.code, 1);
    assert.deepEqual(errors(fromDump.stderr), [
      `error: server s: skill ${PDF}: lists 2 files, over the cap of 1`,
    ]);
    assert.equal(await lockExists(dir, "capped"), false);
    const live = await init(dir, serverCommand(root, "sep"), "--max-skill-files", "1");
    assert.equal(live.code, 1);
    assert.deepEqual(errors(live.stderr), errors(fromDump.stderr));
    const at = await initFile(dir, dumpPath, "at", "--max-skill-files", "2");
    assert.equal(at.code, 0, at.stderr);
  });
});

Deno.test("--max-skill-bytes: a dump's skill over the cap is refused, by its listing or by its bytes", async () => {
  await withTempDir(async (dir) => {
    const { root, dumpPath, pdfBytes } = await saved(dir);
    const cap = String(pdfBytes - 1);
    const fromDump = await initFile(dir, dumpPath, "capped", "--max-skill-bytes", cap);
    assert.equal(fromDump.code, 1);
    assert.deepEqual(errors(fromDump.stderr), [
      `error: server s: skill ${PDF}: lists ${pdfBytes} bytes, over the cap of ${cap}`,
    ]);
    const live = await init(dir, serverCommand(root, "sep"), "--max-skill-bytes", cap);
    assert.deepEqual(errors(live.stderr), errors(fromDump.stderr));
    // A listing without sizes is caught while reading the bytes, as live.
    const dump = JSON.parse(await Deno.readTextFile(dumpPath));
    for (const item of dump.skills.items) {
      for (const r of item.entry.resources) delete r.size;
    }
    const unsized = join(dir, "unsized.json");
    await Deno.writeTextFile(unsized, JSON.stringify(dump));
    const read = await initFile(dir, unsized, "read", "--max-skill-bytes", cap);
    assert.equal(read.code, 1);
    assert.deepEqual(errors(read.stderr), [
      `error: server s: skill ${PDF}: reading skill://pdf/scripts/run.sh went over the ` +
      `skill's cap of ${cap} bytes`,
    ]);
    assert.equal(await lockExists(dir, "read"), false);
    const at = await initFile(dir, dumpPath, "at", "--max-skill-bytes", String(pdfBytes));
    assert.equal(at.code, 0, at.stderr);
  });
});

Deno.test("--max-server-skill-bytes: the skills of a dump are counted together, as live", async () => {
  await withTempDir(async (dir) => {
    const { root, dumpPath, pdfBytes, notesBytes } = await saved(dir);
    const total = pdfBytes + notesBytes;
    const cap = String(total - 1);
    const fromDump = await initFile(dir, dumpPath, "capped", "--max-server-skill-bytes", cap);
    assert.equal(fromDump.code, 1);
    // notes is listed first; pdf's last file goes over.
    assert.deepEqual(errors(fromDump.stderr), [
      `error: server s: skill ${PDF}: reading skill://pdf/scripts/run.sh went over the ` +
      `server's cap of ${cap} bytes for all skills`,
    ]);
    const live = await init(dir, serverCommand(root, "sep"), "--max-server-skill-bytes", cap);
    assert.deepEqual(errors(live.stderr), errors(fromDump.stderr));
    const at = await initFile(dir, dumpPath, "at", "--max-server-skill-bytes", String(total));
    assert.equal(at.code, 0, at.stderr);
  });
});

Deno.test("caps on a dump in contract verify: a skill over a cap is a contradiction (exit 1)", async () => {
  await withTempDir(async (dir) => {
    const { dumpPath } = await saved(dir);
    assert.equal((await initFile(dir, dumpPath, "contractpin")).code, 0);
    const lock = join(dir, "contractpin.lock");
    const ok = await runInProcess(["contract", "verify", "--lock", lock]);
    assert.equal(ok.code, 0, ok.stdout);
    for (const caps of [["--max-skill-files", "1"], ["--max-skill-bytes", "10"]]) {
      const v = await runInProcess(["contract", "verify", "--lock", lock, "--json", ...caps]);
      assert.equal(v.code, 1);
      const c = JSON.parse(v.stdout).servers[0].skills.contradictions;
      assert.ok(c.length > 0 && c.every((x: { kind: string }) => x.kind === "limit"), v.stdout);
      assert.ok(c.some((x: { skill: string }) => x.skill === PDF), v.stdout);
    }
  });
});
