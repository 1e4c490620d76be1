// contract init / verify with skills served over MCP (docs/contractpin-skills.md), against the
// Deno skills fixture server in both forms: SEP-2640 and FastMCP's skill:// manifests.
import assert from "node:assert/strict";
import { join } from "node:path";
import { runInProcess, withTempDir } from "./run.ts";
import { init, INJECTED, serverCommand, verify, writeSkills } from "./contract_skills_helpers.ts";

for (const form of ["sep", "fastmcp"]) {
  Deno.test(`contract skills (${form}): init pins the skills and verify matches`, async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, "skills");
      await writeSkills(root);
      const r = await init(dir, serverCommand(root, form));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /2 skills/);
      const lock = JSON.parse(await Deno.readTextFile(join(dir, "contractpin.lock")));
      const skills = lock.servers.s.skills;
      assert.equal(skills.form, form === "sep" ? "sep-2640" : "fastmcp");
      assert.equal(skills.count, 2);
      const pdf = skills.items["skill://pdf/SKILL.md"];
      assert.deepEqual(pdf.resources.map((f: { uri: string }) => f.uri), [
        "skill://pdf/SKILL.md",
        "skill://pdf/scripts/run.sh",
      ]);
      assert.match(pdf.skill_hash, /^sha256:[0-9a-f]{64}$/);
      const v = await verify(dir);
      assert.equal(v.code, 0, v.stdout + v.stderr);
    });
  });

  Deno.test(`contract skills (${form}): a poisoned SKILL.md fails verify with a diff`, async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, "skills");
      await writeSkills(root);
      assert.equal((await init(dir, serverCommand(root, form))).code, 0);
      await Deno.writeTextFile(join(root, "pdf", "SKILL.md"), INJECTED + "\n", { append: true });
      const v = await verify(dir);
      assert.equal(v.code, 1, v.stdout + v.stderr);
      assert.match(v.stdout, /skill skill:\/\/pdf\/SKILL\.md: skill:\/\/pdf\/SKILL\.md changed/);
      assert.ok(v.stdout.includes("+" + INJECTED), v.stdout);
      const j = JSON.parse((await verify(dir, "--json")).stdout);
      assert.equal(j.ok, false);
      assert.deepEqual(j.servers[0].skills.drifted[0].files.changed, ["skill://pdf/SKILL.md"]);
      const noDiff = await verify(dir, "--no-diff");
      assert.equal(noDiff.code, 1);
      assert.ok(!noDiff.stdout.includes(INJECTED));
    });
  });
}

async function lockExists(dir: string): Promise<boolean> {
  try {
    await Deno.stat(join(dir, "contractpin.lock"));
    return true;
  } catch {
    return false;
  }
}

Deno.test("contract skills: a listing digest that lies refuses init, naming skill and file", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    const r = await init(dir, serverCommand(root, "sep", "digest-lies"));
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /error: server s: skill skill:\/\/notes\/SKILL\.md: file skill:\/\/notes\/SKILL\.md: listed sha256:/,
    );
    assert.equal(await lockExists(dir), false);
  });
});

Deno.test("contract skills: an unlisted file under a skill refuses init", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    const r = await init(dir, serverCommand(root, "sep", "unlisted"));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /skill skill:\/\/notes\/SKILL\.md: file skill:\/\/notes\/hidden\.md: /);
    assert.equal(await lockExists(dir), false);
  });
});

Deno.test("contract skills: a dynamic skill is refused, and pinned with --allow-dynamic-skills", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    const refused = await init(dir, serverCommand(root, "sep", "dynamic"));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /skill skill:\/\/notes\/SKILL\.md: .*dynamic/);
    const allowed = await init(
      dir,
      serverCommand(root, "sep", "dynamic"),
      "--allow-dynamic-skills",
    );
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stderr, /skill skill:\/\/notes\/SKILL\.md is dynamic/);
    const lock = JSON.parse(await Deno.readTextFile(join(dir, "contractpin.lock")));
    assert.equal(lock.servers.s.skills.items["skill://notes/SKILL.md"].dynamic, true);
    assert.equal((await verify(dir)).code, 0);
  });
});

Deno.test("contract skills: a SEP-2640 server listing none is pinned empty; one serving none is not", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    const r = await init(dir, serverCommand(root, "sep", "none"));
    assert.equal(r.code, 0, r.stderr);
    const lock = JSON.parse(await Deno.readTextFile(join(dir, "contractpin.lock")));
    assert.equal(lock.servers.s.skills.count, 0);
  });
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await Deno.mkdir(root);
    const r = await init(dir, serverCommand(root, "fastmcp"));
    assert.equal(r.code, 0, r.stderr);
    const lock = JSON.parse(await Deno.readTextFile(join(dir, "contractpin.lock")));
    assert.equal(Object.hasOwn(lock.servers.s, "skills"), false);
  });
});

Deno.test("contract skills: pinned skills the server no longer serves fail verify", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    assert.equal((await init(dir, serverCommand(root, "fastmcp"))).code, 0);
    await Deno.remove(join(root, "pdf"), { recursive: true });
    await Deno.remove(join(root, "notes"), { recursive: true });
    const v = await verify(dir, "--json");
    assert.equal(v.code, 1);
    const j = JSON.parse(v.stdout);
    assert.equal(j.servers[0].skills.status, "unchecked");
  });
});

Deno.test("contract skills: an added skill and a removed file are drift; the caps are enforced", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    assert.equal((await init(dir, serverCommand(root, "sep"))).code, 0);
    const capped = await verify(dir, "--max-skill-files", "1");
    assert.equal(capped.code, 1);
    assert.match(capped.stdout, /skill skill:\/\/pdf\/SKILL\.md: lists 2 files, over the cap of 1/);
    await Deno.remove(join(root, "pdf", "scripts"), { recursive: true });
    await Deno.mkdir(join(root, "zip"));
    await Deno.writeTextFile(
      join(root, "zip", "SKILL.md"),
      "---\nname: zip\ndescription: Zip\n---\n",
    );
    const v = await verify(dir, "--format", "sarif");
    assert.equal(v.code, 1);
    const rules = JSON.parse(v.stdout).runs[0].results.map((x: { ruleId: string }) => x.ruleId);
    assert.ok(rules.includes("contractpin/skill-drifted"), rules.join());
    assert.ok(rules.includes("contractpin/skill-added"), rules.join());
    const gh = await verify(dir, "--format", "github");
    assert.match(gh.stdout, /::error file=.*contract skill drifted/);
  });
});

Deno.test("contract skills: bad cap values are usage errors (exit 2)", async () => {
  await withTempDir(async (dir) => {
    const r = await init(dir, ["true"], "--max-skill-bytes", "lots");
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--max-skill-bytes must be a size/);
    const f = await init(dir, ["true"], "--max-skill-files", "0");
    assert.equal(f.code, 2);
  });
});

Deno.test("contract skills: a saved dump carries the skills; a poisoned dump fails verify", async () => {
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
      ...serverCommand(root, "fastmcp"),
    ]);
    assert.equal(d.code, 0, d.stderr);
    const dump = JSON.parse(await Deno.readTextFile(dumpPath));
    assert.equal(dump.skills.form, "fastmcp");
    const lockPath = join(dir, "contractpin.lock");
    const i = await runInProcess([
      "contract",
      "init",
      "--lock",
      lockPath,
      "--file",
      `saved=${dumpPath}`,
    ]);
    assert.equal(i.code, 0, i.stderr);
    assert.equal((await runInProcess(["contract", "verify", "--lock", lockPath])).code, 0);
    const item = dump.skills.items.find((x: { entry: { uri: string } }) =>
      x.entry.uri === "skill://pdf/_manifest"
    );
    item.files["skill://pdf/SKILL.md"].text += INJECTED + "\n";
    await Deno.writeTextFile(dumpPath, JSON.stringify(dump));
    const v = await runInProcess(["contract", "verify", "--lock", lockPath]);
    assert.equal(v.code, 1);
    assert.match(
      v.stdout,
      /contradiction {2}skill skill:\/\/pdf\/SKILL\.md: file skill:\/\/pdf\/SKILL\.md/,
    );
  });
});
