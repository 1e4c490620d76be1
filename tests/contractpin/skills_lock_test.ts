// The `skills` member of contractpin.lock (docs/contractpin-skills.md, "The lock"): read
// strictly by parseLock, built by lockSkillsMember, and the dump member read back.
import assert from "node:assert/strict";
import { parseLock, serializeLock } from "../../lib/contractpin/lock.ts";
import {
  lockSkillsMember,
  parseLockSkills,
  skillsKindDigest,
} from "../../lib/contractpin/skills_lock.ts";
import { skillsFromDump } from "../../lib/contractpin/skills_dump.ts";
import { compareSkills, skillsPass } from "../../lib/contractpin/skills_verify.ts";
import { checkServedSkill, sha256Digest } from "../../lib/skill/served_check.ts";
import { parseSkillEntry } from "../../lib/skill/served_entry.ts";
import type { FetchedSkill } from "../../lib/skill/served_fetch.ts";
import { SchemaPinError } from "../../lib/errors.ts";

const enc = new TextEncoder();
const MD = enc.encode("---\nname: pdf\ndescription: PDFs\n---\n# PDF\n");
const SH = enc.encode("echo hi\n");

function fetched(md = MD): FetchedSkill {
  const entry = parseSkillEntry({
    uri: "skill://pdf/SKILL.md",
    frontmatter: { name: "pdf", description: "PDFs" },
    resources: [
      { uri: "skill://pdf/SKILL.md", digest: sha256Digest(md), size: md.length },
      { uri: "skill://pdf/run.sh", digest: sha256Digest(SH), size: SH.length },
    ],
  }, "test");
  const reads = new Map([["skill://pdf/SKILL.md", { bytes: md }], ["skill://pdf/run.sh", {
    bytes: SH,
  }]]);
  return { ...checkServedSkill(entry, reads, []), entry };
}

function lockWith(skills: unknown): Uint8Array {
  const lock = {
    contractpin: "1",
    algorithm: "sha256",
    canonicalization: "contractpin-canonical-json/1",
    generated_at: "2026-01-01T00:00:00Z",
    servers: {
      s: {
        transport: "file",
        path: "x.json",
        tool_count: 0,
        digest: "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
        tools: {},
        skills,
      },
    },
  };
  return enc.encode(JSON.stringify(lock));
}

function member() {
  return JSON.parse(JSON.stringify(lockSkillsMember({ form: "sep-2640", skills: [fetched()] })));
}

function refused(skills: unknown, pattern: RegExp) {
  assert.throws(
    () => parseLock(lockWith(skills), "t.lock"),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && pattern.test(e.message),
  );
}

Deno.test("skills lock: built, serialized and parsed back unchanged", () => {
  const bytes = lockWith(member());
  const lock = parseLock(bytes, "t.lock");
  const s = lock.servers.s.skills!;
  assert.equal(s.count, 1);
  assert.equal(s.items["skill://pdf/SKILL.md"].resources!.length, 2);
  const again = parseLock(enc.encode(serializeLock(lock)), "t.lock");
  assert.deepEqual(again.servers.s.skills, s);
});

Deno.test("skills lock: an empty SEP-2640 kind is pinned; a server with none is not", () => {
  const empty = lockSkillsMember({ form: "sep-2640", skills: [] })!;
  assert.equal(empty.count, 0);
  assert.equal(parseLockSkills(empty as never, "t", "/s").digest, skillsKindDigest({}));
  assert.equal(lockSkillsMember({ form: "none", skills: [] }), undefined);
});

Deno.test("skills lock: an unknown member is refused", () => {
  const m = member();
  m.extra = 1;
  refused(m, /unknown member "extra"/);
  const n = member();
  n.items["skill://pdf/SKILL.md"].note = "x";
  refused(n, /unknown member "note"/);
});

Deno.test("skills lock: count must equal the items", () => {
  const m = member();
  m.count = 2;
  refused(m, /count is 2 but 1 skills/);
});

Deno.test("skills lock: a hand-edited file digest fails the set and item digests", () => {
  const m = member();
  m.items["skill://pdf/SKILL.md"].resources[0].digest = "sha256:" + "0".repeat(64);
  refused(m, /set_digest does not match/);
});

Deno.test("skills lock: a hand-edited kind digest is refused", () => {
  const m = member();
  m.digest = "sha256:" + "1".repeat(64);
  refused(m, /skills\/digest does not match its items/);
});

Deno.test("skills lock: digest formats, sorting and the own SKILL.md are checked", () => {
  const bad = member();
  bad.items["skill://pdf/SKILL.md"].skill_hash = "sha256:ABC";
  refused(bad, /skill_hash must be a sha256 digest/);
  const unsorted = member();
  unsorted.items["skill://pdf/SKILL.md"].resources.reverse();
  refused(unsorted, /sorted by uri/);
  const foreign = member();
  foreign.items["skill://pdf/SKILL.md"].resources[1].uri = "skill://other/run.sh";
  refused(foreign, /must be a file of the skill/);
  const form = member();
  form.form = "zip";
  refused(form, /form must be/);
});

Deno.test("skills lock: a dynamic item is {digest, frontmatter, dynamic: true} only", () => {
  const m = member();
  const item = m.items["skill://pdf/SKILL.md"];
  item.dynamic = true;
  refused(m, /unknown member "resources"/);
});

Deno.test("skills verify: a changed file is drift naming the file; a removal of all is a failure", () => {
  const locked = lockSkillsMember({ form: "sep-2640", skills: [fetched()] })!;
  const poisoned = fetched(
    enc.encode("---\nname: pdf\ndescription: PDFs\n---\n# PDF\nsend keys\n"),
  );
  const r = compareSkills(locked, { form: "sep-2640", skills: [poisoned] })!;
  assert.deepEqual(r.drifted[0].files.changed, ["skill://pdf/SKILL.md"]);
  assert.equal(skillsPass(r, false), false);
  const gone = compareSkills(locked, { form: "none", skills: [] })!;
  assert.equal(gone.status, "unchecked");
  assert.equal(skillsPass(gone, false), false);
  const same = compareSkills(locked, { form: "sep-2640", skills: [fetched()] })!;
  assert.equal(skillsPass(same, false), true);
});

Deno.test("skills dump: read back and checked like a live fetch; a lie in it is a problem", () => {
  const text = new TextDecoder().decode(MD);
  const ok = {
    tools: [],
    skills: {
      form: "sep-2640",
      items: [{
        entry: {
          uri: "skill://pdf/SKILL.md",
          frontmatter: { name: "pdf", description: "PDFs" },
          resources: [{ uri: "skill://pdf/SKILL.md", digest: sha256Digest(MD), size: MD.length }],
        },
        files: { "skill://pdf/SKILL.md": { text } },
      }],
    },
  };
  const served = skillsFromDump(ok, "saved")!;
  assert.equal(served.skills[0].problems.length, 0);
  const lie = structuredClone(ok);
  lie.skills.items[0].files["skill://pdf/SKILL.md"].text = text + "send keys\n";
  const problems = skillsFromDump(lie, "saved")!.skills[0].problems;
  assert.ok(problems.some((p) => p.kind === "digest" && p.file === "skill://pdf/SKILL.md"));
  const extra = structuredClone(ok) as Record<string, unknown>;
  (extra.skills as Record<string, unknown>).more = 1;
  assert.throws(() => skillsFromDump(extra as never, "saved"), /unknown member "more"/);
});
