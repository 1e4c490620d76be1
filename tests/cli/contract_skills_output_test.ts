// The outputs of the contract commands carry the skills (docs/contractpin-skills.md): init and
// dump --json list them (validated with Ajv against schemas/cli/), their human summary lines
// count them, verify's SARIF and GitHub formats report each skill rule at the skill's line of
// the lock, and approve --json and verify --json describe a skill change.
import assert from "node:assert/strict";
import { join } from "node:path";
import { runInProcess, withTempDir } from "./run.ts";
import { assertJsonOutput, schemaValidators } from "./json_schemas.ts";
import {
  approve,
  init,
  INJECTED,
  NOTES,
  PDF,
  pinned,
  serverCommand,
  verify,
  writeSkills,
} from "./contract_skills_helpers.ts";

const SHA = /^sha256:[0-9a-f]{64}$/;

for (const form of ["sep", "fastmcp"]) {
  Deno.test(`init --json (${form}): each server lists its skills, valid against the schema`, async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, "skills");
      await writeSkills(root);
      const r = await init(dir, serverCommand(root, form), "--json");
      assert.equal(r.code, 0, r.stderr);
      const out = await assertJsonOutput(r.stdout);
      // deno-lint-ignore no-explicit-any
      const skills = (out.servers as any[])[0].skills;
      assert.equal(skills.form, form === "sep" ? "sep-2640" : "fastmcp");
      assert.equal(skills.count, 2);
      const lock = JSON.parse(await Deno.readTextFile(join(dir, "contractpin.lock")));
      assert.equal(skills.digest, lock.servers.s.skills.digest);
      assert.deepEqual(skills.items.map((i: { uri: string }) => i.uri), [NOTES, PDF]);
      const pdf = skills.items[1];
      assert.equal(pdf.file_count, 2);
      assert.equal(pdf.dynamic, false);
      assert.match(pdf.skill_hash, SHA);
      assert.equal(pdf.skill_hash, lock.servers.s.skills.items[PDF].skill_hash);
    });
  });
}

Deno.test("init --json: a dynamic skill is listed as such; hidden text in a skill file is a skill finding", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await Deno.writeTextFile(join(root, "pdf", "SKILL.md"), "Read\u200Bme.\n", { append: true });
    const r = await init(
      dir,
      serverCommand(root, "sep", "dynamic"),
      "--allow-dynamic-skills",
      "--json",
    );
    assert.equal(r.code, 0, r.stderr);
    const out = await assertJsonOutput(r.stdout);
    // deno-lint-ignore no-explicit-any
    const server = (out.servers as any[])[0];
    const notes = server.skills.items[0];
    assert.deepEqual([notes.uri, notes.dynamic, notes.file_count, notes.skill_hash], [
      NOTES,
      true,
      null,
      null,
    ]);
    const h = server.hidden_text.find((f: { item_kind?: string }) => f.item_kind === "skill");
    assert.ok(h, JSON.stringify(server.hidden_text));
    assert.equal(h.tool, PDF);
    assert.equal(h.kind, "zero_width");
  });
});

Deno.test("init --json of a listing that contradicts its bytes: ok false, the server failed, no skills listed", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    const r = await init(dir, serverCommand(root, "sep", "digest-lies"), "--json");
    assert.equal(r.code, 1);
    const out = await assertJsonOutput(r.stdout);
    assert.equal(out.ok, false);
    assert.deepEqual(out.servers, []);
    // deno-lint-ignore no-explicit-any
    assert.match((out.failed as any[])[0].message, /skill skill:\/\/notes\/SKILL\.md: file /);
  });
});

Deno.test("dump --json lists the skills saved; the human line counts them; none: no member", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    const dump = (out: string, ...extra: string[]) =>
      runInProcess([
        "contract",
        "dump",
        "-o",
        join(dir, out),
        ...extra,
        "--server",
        "s",
        "--",
        ...serverCommand(root, "fastmcp"),
      ]);
    const j = await dump("a.json", "--json");
    assert.equal(j.code, 0, j.stderr);
    const out = await assertJsonOutput(j.stdout);
    // deno-lint-ignore no-explicit-any
    const skills = out.skills as any;
    assert.equal(skills.form, "fastmcp");
    assert.equal(skills.count, 2);
    assert.deepEqual(skills.items.map((i: { uri: string }) => i.uri), [NOTES, PDF]);
    const h = await dump("b.json");
    assert.match(h.stdout, /^saved s: 1 tool, .*, 2 skills → /m);
    await Deno.remove(join(root, "pdf"), { recursive: true });
    await Deno.remove(join(root, "notes"), { recursive: true });
    const none = await dump("c.json", "--json");
    const noneOut = await assertJsonOutput(none.stdout);
    assert.equal(Object.hasOwn(noneOut, "skills"), false);
    assert.doesNotMatch((await dump("d.json")).stdout, /skill/);
  });
});

Deno.test("dump --json of a listing that contradicts its bytes: ok false, nothing written", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    const r = await runInProcess([
      "contract",
      "dump",
      "-o",
      join(dir, "x.json"),
      "--json",
      "--server",
      "s",
      "--",
      ...serverCommand(root, "sep", "unlisted"),
    ]);
    assert.equal(r.code, 1);
    const out = await assertJsonOutput(r.stdout);
    // deno-lint-ignore no-explicit-any
    assert.match((out.error as any).message, /file skill:\/\/notes\/hidden\.md: served under/);
    assert.equal(Object.hasOwn(out, "skills"), false);
    assert.equal(await Deno.stat(join(dir, "x.json")).then(() => true, () => false), false);
  });
});

Deno.test("the init and dump schemas reject a skills member not of its shape", async () => {
  const schemas = await schemaValidators();
  const skills = {
    form: "sep-2640",
    count: 1,
    digest: "sha256:" + "a".repeat(64),
    items: [{
      uri: PDF,
      digest: "sha256:" + "b".repeat(64),
      file_count: 1,
      skill_hash: null,
      dynamic: false,
    }],
  };
  const dump = { format: "schemapin.contract.dump/1", ok: true, server: "s", out: "-", skills };
  assert.ok(schemas.get("schemapin.contract.dump/1")!(dump));
  for (
    const bad of [
      { ...skills, form: "other" },
      { ...skills, items: [{ ...skills.items[0], uri: "pdf" }] },
      { ...skills, items: [{ ...skills.items[0], file_count: 0 }] },
      { ...skills, extra: 1 },
    ]
  ) {
    assert.equal(schemas.get("schemapin.contract.dump/1")!({ ...dump, skills: bad }), false);
  }
});

/**
 * The 1-based line of the lock where the pdf skill's item starts: under `"skills"` (FastMCP's
 * SKILL.md is a pinned resource too, under `"resources"`).
 */
async function pdfLine(dir: string): Promise<number> {
  const lines = (await Deno.readTextFile(join(dir, "contractpin.lock"))).split("\n");
  const skills = lines.findIndex((l) => l === `      "skills": {`);
  const i = lines.findIndex((l, n) => n > skills && l.trim() === `"${PDF}": {`);
  assert.ok(skills > 0 && i > skills);
  return i + 1;
}

Deno.test("verify --format sarif: a drifted skill is a skill-drifted error at its line of the lock", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "sep");
    await Deno.writeTextFile(join(root, "pdf", "SKILL.md"), INJECTED + "\n", { append: true });
    const v = await verify(dir, "--format", "sarif");
    assert.equal(v.code, 1);
    const run = JSON.parse(v.stdout).runs[0];
    // deno-lint-ignore no-explicit-any
    const results = run.results.filter((r: any) => r.ruleId.startsWith("contractpin/skill-"));
    assert.equal(results.length, 1, JSON.stringify(run.results));
    const [r] = results;
    assert.equal(r.ruleId, "contractpin/skill-drifted");
    assert.equal(r.level, "error");
    assert.equal(r.message.text, `s/skill ${PDF} drifted: ${PDF} changed`);
    assert.equal(r.locations[0].physicalLocation.region.startLine, await pdfLine(dir));
    assert.equal(r.partialFingerprints.contractpinTarget, `s/skill:${PDF}/skill-drifted`);
    // deno-lint-ignore no-explicit-any
    const rules = new Map(run.tool.driver.rules.map((x: any) => [x.id, x]));
    for (const id of ["skill-drifted", "skill-added", "skill-removed", "skill-contradiction"]) {
      // deno-lint-ignore no-explicit-any
      assert.equal((rules.get(`contractpin/${id}`) as any)?.defaultConfiguration.level, "error");
    }
  });
});

Deno.test("verify --format github: a drifted skill is an ::error at its line; a removed one too", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "fastmcp");
    const line = await pdfLine(dir);
    await Deno.writeTextFile(join(root, "pdf", "SKILL.md"), INJECTED + "\n", { append: true });
    await Deno.remove(join(root, "notes"), { recursive: true });
    const v = await verify(dir, "--format", "github");
    assert.equal(v.code, 1);
    const lock = join(dir, "contractpin.lock");
    const lines = v.stdout.split("\n");
    assert.ok(
      lines.includes(
        `::error file=${lock},line=${line},title=contract skill drifted%3A s/skill skill%3A//pdf/SKILL.md::` +
          `s/skill ${PDF} drifted: ${PDF} changed`,
      ),
      v.stdout,
    );
    assert.ok(
      lines.some((l) =>
        l.startsWith("::error ") &&
        l.includes("title=contract skill removed%3A s/skill skill%3A//notes/SKILL.md")
      ),
      v.stdout,
    );
    assert.match(v.stdout, /^contract verify: drift — 0\/1 servers match \(exit 1\)$/m);
    // The human report's last line counts the skills.
    const human = await verify(dir);
    assert.match(
      human.stdout,
      /^FAIL: 0\/1 servers match .*; 1 drifted, 0 added, 1 removed skills$/m,
    );
  });
});

Deno.test("verify --format sarif and github on a dump whose listing lies: skill-contradiction errors", async () => {
  await withTempDir(async (dir) => {
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
    const lock = join(dir, "contractpin.lock");
    assert.equal(
      (await runInProcess(["contract", "init", "--lock", lock, "--file", `s=${dumpPath}`])).code,
      0,
    );
    const dump = JSON.parse(await Deno.readTextFile(dumpPath));
    dump.skills.items[1].files[PDF].text += INJECTED + "\n";
    await Deno.writeTextFile(dumpPath, JSON.stringify(dump));
    const sarif = await runInProcess(["contract", "verify", "--lock", lock, "--format", "sarif"]);
    assert.equal(sarif.code, 1);
    // deno-lint-ignore no-explicit-any
    const ids = JSON.parse(sarif.stdout).runs[0].results.map((r: any) => r.ruleId);
    assert.ok(ids.includes("contractpin/skill-contradiction"), ids.join());
    const gh = await runInProcess(["contract", "verify", "--lock", lock, "--format", "github"]);
    assert.match(
      gh.stdout,
      /^::error file=.*title=contract skill contradiction%3A s\/skill skill%3A\/\/pdf\/SKILL\.md::server s: skill skill:\/\/pdf\/SKILL\.md: file skill:\/\/pdf\/SKILL\.md: listed sha256:/m,
    );
  });
});

Deno.test("approve --json and verify --json of a skill change are valid against their schemas", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "sep");
    await Deno.writeTextFile(join(root, "pdf", "SKILL.md"), "Hidden\u200Btext.\n", {
      append: true,
    });
    const v = await verify(dir, "--json");
    assert.equal(v.code, 1);
    await assertJsonOutput(v.stdout);
    const r = await approve(dir, "--yes", "--skill", PDF, "--json");
    assert.equal(r.code, 0, r.stderr);
    const out = await assertJsonOutput(r.stdout);
    // deno-lint-ignore no-explicit-any
    const [c] = out.changes as any[];
    assert.deepEqual([c.kind, c.tool, c.change, c.approved], ["skill", PDF, "drifted", true]);
    assert.deepEqual(c.changed_fields, [`${PDF} changed`]);
    assert.equal(c.hidden_text[0].pointer, PDF);
    assert.equal(c.hidden_text[0].kind, "zero_width");
    const lock = JSON.parse(await Deno.readTextFile(join(dir, "contractpin.lock")));
    assert.equal(c.live, lock.servers.s.skills.items[PDF].digest);
  });
});
