// Skill signatures in contractpin.lock (docs/contractpin-skills.md, "Signed skills"): the
// `signature` record of a lock item read strictly (only {domain, key_fingerprint}, not part of
// any digest), the library's check of fetched skills (a dynamic skill fails without a key being
// looked at; verifications one at a time), and the records and report built from outcomes.
import assert from "node:assert/strict";
import { parseLock, serializeLock } from "../../lib/contractpin/lock.ts";
import { lockSkillsMember } from "../../lib/contractpin/skills_lock.ts";
import {
  skillSignatureCheck,
  skillSignatureFindings,
  skillSignatureLine,
  type SkillSignatureOutcome,
  skillSignaturesReport,
  withApprovedSignatures,
  withSignatureRecords,
} from "../../lib/contractpin/skills_signature.ts";
import { compareSkills, skillsPass } from "../../lib/contractpin/skills_verify.ts";
import { checkServedSkill, sha256Digest } from "../../lib/skill/served_check.ts";
import { parseSkillEntry } from "../../lib/skill/served_entry.ts";
import type { FetchedSkill } from "../../lib/skill/served_fetch.ts";
import type { TrustedServedSkillResult, TrustedVerifier } from "../../lib/trust/verify.ts";
import { SchemaPinError } from "../../lib/errors.ts";

const enc = new TextEncoder();
const MD = enc.encode("---\nname: pdf\ndescription: PDFs\n---\n# PDF\n");
const URI = "skill://pdf/SKILL.md";
const KEY = "sha256:" + "ab".repeat(32);
const RECORD = { domain: "example.com", key_fingerprint: KEY };

function fetched(dynamic = false): FetchedSkill {
  const entry = parseSkillEntry({
    uri: URI,
    frontmatter: { name: "pdf", description: "PDFs" },
    ...(dynamic ? {} : { resources: [{ uri: URI, digest: sha256Digest(MD), size: MD.length }] }),
  }, "test");
  return { ...checkServedSkill(entry, new Map([[URI, { bytes: MD }]]), []), entry };
}

const VALID: SkillSignatureOutcome = {
  uri: URI,
  valid: true,
  domain: "example.com",
  keyFingerprint: KEY,
};

function lockWith(item: Record<string, unknown>): Uint8Array {
  const member = JSON.parse(
    JSON.stringify(lockSkillsMember({ form: "sep-2640", skills: [fetched()] })),
  );
  Object.assign(member.items[URI], item);
  return enc.encode(JSON.stringify({
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
        skills: member,
      },
    },
  }));
}

function refused(item: Record<string, unknown>, pattern: RegExp) {
  assert.throws(
    () => parseLock(lockWith(item), "t.lock"),
    (e: unknown) =>
      e instanceof SchemaPinError && e.code === "INPUT_INVALID" && pattern.test(e.message),
  );
}

/** A verifier that answers `result` and counts its calls (and how many ran at once). */
function fakeVerifier(result: Partial<TrustedServedSkillResult>) {
  const seen = { calls: 0, running: 0, most: 0 };
  const verifier: Pick<TrustedVerifier, "verifyServedSkill"> = {
    verifyServedSkill: async () => {
      seen.calls++;
      seen.running++;
      seen.most = Math.max(seen.most, seen.running);
      await new Promise((r) => setTimeout(r, 5));
      seen.running--;
      return { valid: false, warnings: [], ...result } as TrustedServedSkillResult;
    },
  };
  return { verifier, seen };
}

// ------------------------------------------------------------------------------- the record

Deno.test("signature record: read back as written, and left out of every digest", () => {
  const lock = parseLock(lockWith({ signature: RECORD }), "t.lock");
  const item = lock.servers.s.skills!.items[URI];
  assert.deepEqual(item.signature, RECORD);
  const again = parseLock(enc.encode(serializeLock(lock)), "t.lock");
  assert.deepEqual(again.servers.s.skills!.items[URI].signature, RECORD);
  // The same item without the record has the same digests.
  const bare = parseLock(lockWith({}), "t.lock").servers.s.skills!;
  assert.equal(bare.items[URI].digest, item.digest);
  assert.equal(bare.digest, lock.servers.s.skills!.digest);
});

Deno.test("signature record: only {domain, key_fingerprint}, both well formed", () => {
  refused(
    { signature: { ...RECORD, signed_at: "2026-01-01T00:00:00Z" } },
    /unknown member "signed_at"/,
  );
  refused(
    { signature: { domain: "example.com" } },
    /key_fingerprint must be a key fingerprint.*missing/,
  );
  refused(
    { signature: { key_fingerprint: KEY } },
    /signature\/domain must be a lower-case host name/,
  );
  refused({ signature: { ...RECORD, domain: "Example.COM" } }, /lower-case host name/);
  refused({ signature: { ...RECORD, domain: "https://example.com" } }, /lower-case host name/);
  refused({ signature: { ...RECORD, key_fingerprint: KEY.toUpperCase() } }, /key fingerprint/);
  refused({ signature: "example.com" }, /signature must be an object/);
});

Deno.test("signature record: a dynamic item cannot carry one", () => {
  const member = JSON.parse(
    JSON.stringify(lockSkillsMember({ form: "sep-2640", skills: [fetched(true)] })),
  );
  member.items[URI].signature = RECORD;
  const bytes = enc.encode(JSON.stringify({
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
        skills: member,
      },
    },
  }));
  assert.throws(() => parseLock(bytes, "t.lock"), /unknown member "signature"/);
});

// ------------------------------------------------------------------------------- the check

Deno.test("check: a dynamic skill fails without asking the verifier", async () => {
  const { verifier, seen } = fakeVerifier({ valid: true, keyFingerprint: KEY });
  const check = skillSignatureCheck({ domain: "example.com", verifier: () => verifier });
  const o = await check.verify(fetched(true));
  assert.equal(o.valid, false);
  assert.equal(o.errorCode, "SIGNATURE_INVALID");
  assert.match(o.errorMessage!, /is dynamic/);
  assert.equal(seen.calls, 0);
});

Deno.test("check: the verifier's verdict, one skill at a time", async () => {
  const ok = fakeVerifier({ valid: true, keyFingerprint: KEY });
  const check = skillSignatureCheck({ domain: "example.com", verifier: () => ok.verifier });
  const outcomes = await Promise.all([1, 2, 3].map(() => check.verify(fetched())));
  assert.deepEqual(outcomes[0], VALID);
  assert.equal(ok.seen.calls, 3);
  assert.equal(ok.seen.most, 1, "verifications never overlap (prompts, pin writes)");
  const bad = fakeVerifier({ errorCode: "KEY_REVOKED", errorMessage: "revoked" });
  const failing = skillSignatureCheck({ domain: "example.com", verifier: () => bad.verifier });
  const o = await failing.verify(fetched());
  assert.deepEqual(
    [o.valid, o.errorCode, o.keyFingerprint],
    [false, "KEY_REVOKED", undefined],
  );
  assert.equal(
    skillSignatureLine("s", o),
    "server s: skill skill://pdf/SKILL.md: signature: KEY_REVOKED revoked",
  );
});

// ------------------------------------------------------------------------------- records

Deno.test("records: a valid outcome is recorded, a failed one is not; digests unchanged", () => {
  const member = lockSkillsMember({ form: "sep-2640", skills: [fetched()] })!;
  const recorded = withSignatureRecords(member, [VALID]);
  assert.deepEqual(recorded.items[URI].signature, RECORD);
  assert.equal(recorded.digest, member.digest);
  assert.equal(member.items[URI].signature, undefined, "the input is not modified");
  const failed = withSignatureRecords(member, [{
    ...VALID,
    valid: false,
    keyFingerprint: undefined,
  }]);
  assert.equal(failed.items[URI].signature, undefined);
  const lock = {
    contractpin: "1" as const,
    algorithm: "sha256" as const,
    canonicalization: "contractpin-canonical-json/1" as const,
    generated_at: "2026-01-01T00:00:00Z",
    servers: {
      s: {
        transport: "file" as const,
        path: "x",
        tool_count: 0,
        digest: "",
        tools: {},
        skills: member,
      },
    },
  };
  const approved = withApprovedSignatures(lock, new Map([[{ server: "s", tool: URI }, VALID]]));
  assert.deepEqual(approved.servers.s.skills!.items[URI].signature, RECORD);
  // A change for a server or skill the lock does not hold is ignored.
  const other = withApprovedSignatures(lock, new Map([[{ server: "t", tool: URI }, VALID]]));
  assert.equal(other.servers.s.skills!.items[URI].signature, undefined);
});

// ------------------------------------------------------------------------------- report

Deno.test("report: a failed signature fails the skills and is a skill-unsigned error", () => {
  const member = lockSkillsMember({ form: "sep-2640", skills: [fetched()] })!;
  const report = compareSkills(member, { form: "sep-2640", skills: [fetched()] })!;
  assert.equal(skillsPass(report, false), true);
  report.signatures = skillSignaturesReport(
    [{ ...VALID, valid: false, keyFingerprint: undefined, errorCode: "SIGNATURE_EXPIRED" }],
    member,
  );
  assert.equal(skillsPass(report, false), false);
  assert.deepEqual(report.signatures[0], {
    uri: URI,
    valid: false,
    domain: "example.com",
    key_fingerprint: null,
    error_code: "SIGNATURE_EXPIRED",
    error_message: null,
    recorded: null,
  });
  const [f] = skillSignatureFindings("s", report);
  assert.deepEqual([f.rule, f.level, f.tool], ["skill-unsigned", "error", URI]);
});

Deno.test("report: a valid signature by another key than the lock records is a note, not a failure", () => {
  const member = withSignatureRecords(
    lockSkillsMember({ form: "sep-2640", skills: [fetched()] })!,
    [VALID],
  );
  const report = compareSkills(member, { form: "sep-2640", skills: [fetched()] })!;
  const rotated = "sha256:" + "cd".repeat(32);
  report.signatures = skillSignaturesReport([{ ...VALID, keyFingerprint: rotated }], member);
  assert.equal(skillsPass(report, false), true);
  assert.deepEqual(report.signatures[0].recorded, RECORD);
  const [f] = skillSignatureFindings("s", report);
  assert.deepEqual([f.rule, f.level], ["notice", "note"]);
  assert.match(f.message, new RegExp(`signed by ${rotated}.*records ${KEY}`));
});
