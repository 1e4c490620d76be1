// contract approve --skill URI (docs/contractpin-skills.md, "Approve") against the Deno skills
// fixture server in both forms, and against --file dumps for listings that contradict their
// bytes: a skill re-pinned from the very fetch that was shown, refused when its listing lies,
// when it changed between the review and the write, or when no server serves it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { runInProcess, withTempDir } from "./run.ts";
import type { ApproveTerminal } from "../../cli/commands/contract_approve.ts";
import {
  addSkill,
  approve,
  approveOn,
  init,
  INJECTED,
  lockFiles,
  NOTES,
  PDF,
  pinned,
  readLock,
  serverCommand,
  verify,
  writeSkills,
} from "./contract_skills_helpers.ts";

const poison = (root: string) =>
  Deno.writeTextFile(join(root, "pdf", "SKILL.md"), INJECTED + "\n", { append: true });

for (const form of ["sep", "fastmcp"]) {
  Deno.test(`approve --skill (${form}): a poisoned SKILL.md is shown with its diff and re-pinned from that fetch`, async () => {
    await withTempDir(async (dir) => {
      const root = join(dir, "skills");
      await writeSkills(root);
      await pinned(dir, root, form);
      const before = (await readLock(dir)).servers.s.skills;
      await poison(root);
      const r = await approve(dir, "--yes", "--skill", PDF);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(
        r.stdout,
        /^drifted {2}s\/skill skill:\/\/pdf\/SKILL\.md: skill:\/\/pdf\/SKILL\.md changed$/m,
      );
      assert.ok(r.stdout.includes("    +" + INJECTED), r.stdout);
      assert.match(r.stdout, /approved \(--yes --skill\)/);
      assert.match(r.stdout, /approved 1, left 0: wrote .*contractpin\.lock and .*snapshot\.json/);
      const after = (await readLock(dir)).servers.s.skills;
      assert.notEqual(after.items[PDF].digest, before.items[PDF].digest);
      assert.deepEqual(
        after.items[NOTES],
        before.items[NOTES],
        "the other skill is kept as it was",
      );
      assert.notEqual(after.digest, before.digest);
      const v = await verify(dir);
      assert.equal(v.code, 0, v.stdout);
      // The snapshot holds the approved text: the next change diffs against it.
      await Deno.writeTextFile(
        join(root, "pdf", "SKILL.md"),
        "---\nname: pdf\ndescription: Work with PDF files\n---\n# PDF\n",
      );
      const next = await verify(dir);
      assert.equal(next.code, 1);
      assert.ok(next.stdout.includes("    -" + INJECTED), next.stdout);
      assert.ok(!next.stdout.includes("pinned as a digest"), next.stdout);
    });
  });
}

Deno.test("approve --skill: an added and a removed skill are pinned and unpinned; verify passes", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "sep");
    await addSkill(root, "zip", "Zip files.\n");
    await Deno.remove(join(root, "notes"), { recursive: true });
    const r = await approve(dir, "--yes", "--skill", "skill://zip/SKILL.md", "--skill", NOTES);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^added {4}s\/skill skill:\/\/zip\/SKILL\.md$/m);
    assert.ok(r.stdout.includes("    +Zip files."), r.stdout);
    assert.match(r.stdout, /^removed {2}s\/skill skill:\/\/notes\/SKILL\.md$/m);
    assert.ok(r.stdout.includes("    -# Notes"), "the removed skill's text, from the snapshot");
    const skills = (await readLock(dir)).servers.s.skills;
    assert.deepEqual(Object.keys(skills.items).sort(), [PDF, "skill://zip/SKILL.md"]);
    assert.equal(skills.count, 2);
    assert.equal((await verify(dir)).code, 0);
  });
});

Deno.test("approve --skill of every skill of a server that serves none now: the kind is unpinned", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "fastmcp");
    await Deno.remove(join(root, "pdf"), { recursive: true });
    await Deno.remove(join(root, "notes"), { recursive: true });
    assert.equal((await verify(dir)).code, 1);
    const one = await approve(dir, "--yes", "--skill", PDF);
    assert.equal(one.code, 1, "one of two removals left");
    assert.equal((await readLock(dir)).servers.s.skills.count, 1);
    // FastMCP serves its skills as resources too: those removals are approved by their names.
    const resources: string[] = JSON.parse((await verify(dir, "--json")).stdout).changes
      .flatMap((c: { approve: string[] }) => c.approve.slice(c.approve.indexOf("s") + 1, -1));
    assert.ok(resources.includes("--resource"), resources.join(" "));
    const r = await approve(dir, "--yes", "--skill", NOTES, ...resources);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(Object.hasOwn((await readLock(dir)).servers.s, "skills"), false);
    assert.equal((await verify(dir)).code, 0);
  });
});

Deno.test("approve --skill names no change of the skills: exit 2 for a URI no server serves nor the lock pins", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "sep");
    await poison(root);
    const files = await lockFiles(dir);
    const unknown = await approve(dir, "--yes", "--skill", "skill://nope/SKILL.md");
    assert.equal(unknown.code, 2);
    assert.match(
      unknown.stderr,
      /--skill "skill:\/\/nope\/SKILL\.md": no selected server serves it and .*contractpin\.lock does not pin it/,
    );
    const notAUri = await approve(dir, "--yes", "--skill", "pdf");
    assert.equal(notAUri.code, 2);
    assert.match(notAUri.stderr, /--skill needs a skill's SKILL\.md URI \("pdf": /);
    // Served and pinned, but unchanged: no current change (as a --tool that did not change).
    const unchanged = await approve(dir, "--yes", "--skill", NOTES);
    assert.equal(unchanged.code, 2);
    assert.match(unchanged.stderr, /--skill "skill:\/\/notes\/SKILL\.md" names no current change/);
    assert.match(unchanged.stderr, /drifted {2}s\/skill skill:\/\/pdf\/SKILL\.md/);
    assert.deepEqual(await lockFiles(dir), files);
  });
});

Deno.test("approve off a terminal without --yes: refused (exit 2), the skill change listed, nothing written", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "fastmcp");
    await poison(root);
    const files = await lockFiles(dir);
    const r = await approve(dir, "--skill", PDF);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /nothing is approved implicitly/);
    assert.match(r.stderr, / {2}drifted {2}s\/skill skill:\/\/pdf\/SKILL\.md/);
    const bare = await approve(dir, "--yes");
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /--skill URI/);
    assert.deepEqual(await lockFiles(dir), files);
  });
});

/** A terminal answering from a list; `onAsk` runs before each answer. */
function terminal(answers: string[], onAsk: () => Promise<void> = () => Promise.resolve()) {
  const asked: string[] = [];
  const t: ApproveTerminal = {
    interactive: true,
    color: false,
    async ask(question) {
      asked.push(question);
      await onAsk();
      return answers.shift();
    },
  };
  return { terminal: t, asked };
}

Deno.test("approve on a terminal: the skill is asked with its diff; no writes nothing, yes pins it", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "sep");
    await poison(root);
    const files = await lockFiles(dir);
    const no = terminal(["n"]);
    const r = await approveOn(no.terminal, dir);
    assert.equal(r.code, 1);
    assert.deepEqual(no.asked, [`approve s/skill ${PDF}? [y/N] `]);
    assert.ok(r.stdout.includes("    +" + INJECTED), r.stdout);
    assert.deepEqual(await lockFiles(dir), files);
    const yes = terminal(["y"]);
    assert.equal((await approveOn(yes.terminal, dir, "--skill", PDF)).code, 0);
    assert.equal((await verify(dir)).code, 0);
  });
});

Deno.test("approve: a skill that changes between the review and the write is refused, nothing written (exit 1)", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "sep");
    await poison(root);
    const files = await lockFiles(dir);
    // The person reviews the poisoned text and says yes; meanwhile the server changes again.
    const t = terminal(
      ["y"],
      () =>
        Deno.writeTextFile(join(root, "pdf", "SKILL.md"), "swapped after the review\n", {
          append: true,
        }),
    );
    const r = await approveOn(t.terminal, dir, "--skill", PDF);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /error: server s: skill skill:\/\/pdf\/SKILL\.md changed between the review and the write \(reviewed sha256:[0-9a-f]{64}, served sha256:[0-9a-f]{64} now\): review it again; nothing was written/,
    );
    assert.match(r.stdout, /approved 0, left 1: .*contractpin\.lock not changed/);
    assert.deepEqual(await lockFiles(dir), files);
    // A skill removed after its removal was reviewed as "drifted" is refused too.
    const gone = terminal(["y"], () => Deno.remove(join(root, "pdf"), { recursive: true }));
    const g = await approveOn(gone.terminal, dir, "--skill", PDF);
    assert.equal(g.code, 1);
    assert.match(g.stderr, /served not served now\)/);
    assert.deepEqual(await lockFiles(dir), files);
  });
});

Deno.test("approve: an added dynamic skill needs --allow-dynamic-skills (exit 1, nothing written without it)", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await addSkill(root, "pdf");
    // The fixture's `dynamic` fault serves its first skill without resources.
    const command = serverCommand(root, "sep", "dynamic");
    assert.equal((await init(dir, command, "--allow-dynamic-skills")).code, 0);
    await addSkill(root, "abc");
    const files = await lockFiles(dir);
    const refused = await approve(dir, "--yes", "--skill", "skill://abc/SKILL.md");
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /error: server s: skill skill:\/\/abc\/SKILL\.md is dynamic .*--allow-dynamic-skills/,
    );
    assert.deepEqual(await lockFiles(dir), files);
    const allowed = await approve(
      dir,
      "--yes",
      "--allow-dynamic-skills",
      "--skill",
      "skill://abc/SKILL.md",
      "--skill",
      "skill://pdf/SKILL.md",
    );
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
    const items = (await readLock(dir)).servers.s.skills.items;
    assert.equal(items["skill://abc/SKILL.md"].dynamic, true);
    assert.equal(items["skill://pdf/SKILL.md"].dynamic, undefined);
    assert.equal((await verify(dir)).code, 0);
  });
});

/** A lock pinned from a saved dump of the fixture (fastmcp form) at DIR/saved.json. */
async function pinnedDump(dir: string) {
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
  const i = await runInProcess([
    "contract",
    "init",
    "--lock",
    join(dir, "contractpin.lock"),
    "--file",
    `s=${dumpPath}`,
  ]);
  assert.equal(i.code, 0, i.stderr);
  return { dumpPath, dump: JSON.parse(await Deno.readTextFile(dumpPath)) };
}

Deno.test("approve --skill of a server whose listing contradicts its bytes: refused (exit 1), naming skill and file, nothing written", async () => {
  await withTempDir(async (dir) => {
    const { dumpPath, dump } = await pinnedDump(dir);
    // The bytes change but the listing still gives the old digest: a listing that lies.
    const pdf = dump.skills.items.find((x: { entry: { uri: string } }) => x.entry.uri === PDF);
    pdf.files[PDF].text += INJECTED + "\n";
    await Deno.writeTextFile(dumpPath, JSON.stringify(dump));
    const files = await lockFiles(dir);
    for (const args of [["--yes", "--skill", PDF], ["--yes", "--skill", NOTES], []]) {
      const r = await approve(dir, ...args);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(
        r.stderr,
        /error: server s: skill skill:\/\/pdf\/SKILL\.md: file skill:\/\/pdf\/SKILL\.md: listed sha256:[0-9a-f]{64}, served sha256:/,
      );
      assert.match(
        r.stderr,
        /server s: its skills listing contradicts its own bytes; nothing on it is approved/,
      );
      assert.doesNotMatch(r.stderr, /names no current change/);
      assert.deepEqual(await lockFiles(dir), files);
    }
    const j = await approve(dir, "--yes", "--skill", PDF, "--json");
    assert.equal(j.code, 1);
    const out = JSON.parse(j.stdout);
    assert.equal(out.written, false);
    assert.match(out.problems[0].message, /file skill:\/\/pdf\/SKILL\.md: listed/);
  });
});

Deno.test("approve --skill from a --file dump: an honest change is pinned; verify passes", async () => {
  await withTempDir(async (dir) => {
    const { dumpPath } = await pinnedDump(dir);
    const root = join(dir, "skills");
    await poison(root);
    const redo = await runInProcess([
      "contract",
      "dump",
      "--force",
      "-o",
      dumpPath,
      "--server",
      "s",
      "--",
      ...serverCommand(root, "sep"),
    ]);
    assert.equal(redo.code, 0, redo.stderr);
    assert.equal((await verify(dir)).code, 1);
    const r = await approve(dir, "--yes", "--skill", PDF);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal((await verify(dir)).code, 0);
  });
});

Deno.test("approve --tool on a server with skills keeps their snapshot (diffs still drawn from it)", async () => {
  await withTempDir(async (dir) => {
    const { dumpPath, dump } = await pinnedDump(dir);
    dump.tools[0].description = "a changed tool";
    await Deno.writeTextFile(dumpPath, JSON.stringify(dump));
    const snapBefore = JSON.parse((await lockFiles(dir))[1]).servers.s.skills;
    const r = await approve(dir, "--yes", "--tool", dump.tools[0].name);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const snapAfter = JSON.parse((await lockFiles(dir))[1]).servers.s.skills;
    assert.deepEqual(snapAfter, snapBefore);
  });
});

Deno.test("verify --json: a skill change carries the approve argv (--skill), which approves it as is", async () => {
  await withTempDir(async (dir) => {
    const root = join(dir, "skills");
    await writeSkills(root);
    await pinned(dir, root, "fastmcp");
    await poison(root);
    const v = await verify(dir, "--json");
    assert.equal(v.code, 1);
    const changes = JSON.parse(v.stdout).changes;
    assert.equal(changes.length, 1);
    assert.equal(changes[0].kind, "skill");
    assert.equal(changes[0].tool, PDF);
    const argv: string[] = changes[0].approve;
    assert.deepEqual(argv.slice(-4), ["s", "--skill", PDF, "--yes"]);
    const human = await verify(dir);
    assert.match(
      human.stdout,
      /review and approve: schemapin contract approve .*--server s --skill skill:\/\/pdf\/SKILL\.md$/m,
    );
    const rest = argv.slice(3); // after "schemapin contract approve"
    rest.splice(rest.indexOf("--lock"), 2); // the helper names the lock itself
    assert.equal((await approve(dir, ...rest)).code, 0);
    assert.equal((await verify(dir)).code, 0);
  });
});
