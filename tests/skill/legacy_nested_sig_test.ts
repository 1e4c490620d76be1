// Legacy (1.3) folders with a nested `.schemapin.sig`. §4b defines the 1.4 algorithm with "The
// top-level `.schemapin.sig` is excluded" and sends documents below 1.4 to "the legacy
// algorithm", which verifiers "MAY accept … for compatibility": the 1.3 algorithm as the
// reference SDKs signed it leaves that name out at every depth. So the legacy walk leaves a
// nested one out (and says so); the 1.4 walk still signs it. Expected values come from an
// independent reference-style signer (reference_legacy.ts), itself checked against the
// reference JavaScript SDK's fixture below.
import assert from "node:assert/strict";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { hashSkillDir, hashSkillFiles } from "../../lib/skill/hash.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";
import { formatSkillSignatureDocument } from "../../lib/skill/document.ts";
import { verifySkillOffline } from "../../lib/skill/verify.ts";
import { walkSkillDir } from "../../lib/skill/walk.ts";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { INTEROP_JS } from "../fixtures/interop.ts";
import { referenceLegacyHash, referenceLegacySign } from "./reference_legacy.ts";
import { assertSkillError, makeSkill, mkfifo, writeTree } from "./trees.ts";

const enc = new TextEncoder();
const SIGNER_PEM = await Deno.readTextFile(`${INTEROP_JS}/signer_private.pem`);
const wellKnown = JSON.parse(await Deno.readTextFile(`${INTEROP_JS}/well_known.json`));
const referenceSig = JSON.parse(
  await Deno.readTextFile(`${INTEROP_JS}/legacy_skill/.schemapin.sig`),
);
const NOW = Date.UTC(2026, 11, 1);

/** A reference-style legacy folder holding `vendor/.schemapin.sig`, signed the 1.3 way. */
async function nestedLegacySkill(extra: Record<string, string> = {}) {
  const s = await makeSkill({
    "vendor/.schemapin.sig": '{"inner": "a vendored skill\'s own signature"}\n',
    "vendor/tool.py": "print('vendored')\n",
    ...extra,
  });
  const doc = referenceLegacySign(s.dir, {
    privateKeyPem: SIGNER_PEM,
    domain: "example.com",
    skillName: "my-skill",
    signerKid: referenceSig.signer_kid,
    signedAt: "2026-11-30T04:11:30Z",
  });
  return { ...s, doc };
}

function verify(dir: string) {
  return verifySkillOffline({
    dir,
    domain: "example.com",
    discovery: wellKnown,
    pinStore: new MemoryPinStore(),
    trustFirstUse: true,
    now: NOW,
  });
}

Deno.test("reference-style signer reproduces the reference SDK's legacy fixture exactly", () => {
  const { manifest, rootHash } = referenceLegacyHash(`${INTEROP_JS}/legacy_skill`);
  assert.deepEqual(manifest, referenceSig.file_manifest);
  assert.equal("sha256:" + rootHash.toString("hex"), referenceSig.skill_hash);
});

Deno.test("legacy nested sig: a reference-signed folder verifies, naming the uncovered file", async () => {
  const s = await nestedLegacySkill();
  try {
    assert.ok(!Object.hasOwn(s.doc.file_manifest as object, "vendor/.schemapin.sig"));
    const r = await verify(s.dir);
    assert.equal(r.valid, true, r.errorMessage);
    assert.equal(r.signatureFormat, "legacy");
    assert.equal(r.skillHash, s.doc.skill_hash);
    assert.equal(r.files, 3);
    assert.deepEqual(r.warnings, ["legacy_signature_format", "legacy_nested_signature_files"]);
    assert.deepEqual(r.unsignedFiles, ["vendor/.schemapin.sig"]);
    assert.equal(r.changes, undefined);
    assert.equal(r.lineageAnchor, false);
  } finally {
    await s.cleanup();
  }
});

Deno.test("legacy nested sig: several at different depths are all left out, in code point order", async () => {
  const s = await nestedLegacySkill({ "a/b/c/.schemapin.sig": "{}\n", "z/.schemapin.sig": "{}\n" });
  try {
    const r = await verify(s.dir);
    assert.equal(r.valid, true, r.errorMessage);
    assert.deepEqual(r.unsignedFiles, [
      "a/b/c/.schemapin.sig",
      "vendor/.schemapin.sig",
      "z/.schemapin.sig",
    ]);
  } finally {
    await s.cleanup();
  }
});

Deno.test("legacy nested sig: hashSkillDir and hashSkillFiles leave it out for legacy only", async () => {
  const s = await nestedLegacySkill();
  try {
    const legacy = await hashSkillDir(s.dir, { algorithm: "legacy" });
    assert.equal(legacy.skillHash, s.doc.skill_hash);
    assert.deepEqual(legacy.excluded, ["vendor/.schemapin.sig"]);
    const v14 = await hashSkillDir(s.dir);
    assert.deepEqual(v14.excluded, []);
    assert.ok(Object.hasOwn(v14.manifest, "vendor/.schemapin.sig"), "1.4 signs it (§4b.1)");
    const files = [
      { path: "SKILL.md", content: await Deno.readFile(`${s.dir}/SKILL.md`) },
      { path: "scripts/run.sh", content: await Deno.readFile(`${s.dir}/scripts/run.sh`) },
      { path: "vendor/tool.py", content: await Deno.readFile(`${s.dir}/vendor/tool.py`) },
      { path: "vendor/.schemapin.sig", content: enc.encode("anything") },
    ];
    const inMemory = hashSkillFiles(files, "legacy");
    assert.equal(inMemory.skillHash, s.doc.skill_hash);
    assert.deepEqual(inMemory.excluded, ["vendor/.schemapin.sig"]);
    assert.ok(Object.hasOwn(hashSkillFiles(files).manifest, "vendor/.schemapin.sig"));
  } finally {
    await s.cleanup();
  }
});

Deno.test("legacy nested sig: a changed signed file still fails, listed alone", async () => {
  const s = await nestedLegacySkill();
  try {
    await Deno.writeTextFile(`${s.dir}/vendor/tool.py`, "print('changed')\n");
    const r = await verify(s.dir);
    assert.equal(r.valid, false);
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.deepEqual(r.changes, { modified: ["vendor/tool.py"], added: [], removed: [] });
  } finally {
    await s.cleanup();
  }
});

Deno.test("legacy nested sig: only that exact name is left out (look-alikes are signed)", async () => {
  const s = await nestedLegacySkill({
    "vendor/.schemapin.sig.bak": "old\n",
    "vendor/x.schemapin.sig": "x\n",
  });
  try {
    assert.ok(Object.hasOwn(s.doc.file_manifest as object, "vendor/.schemapin.sig.bak"));
    assert.equal((await verify(s.dir)).valid, true);
    await Deno.writeTextFile(`${s.dir}/vendor/x.schemapin.sig`, "y\n");
    const r = await verify(s.dir);
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.deepEqual(r.changes?.modified, ["vendor/x.schemapin.sig"]);
  } finally {
    await s.cleanup();
  }
});

Deno.test("legacy nested sig: a symbolic link of that name still aborts (§4b.2)", async () => {
  const s = await nestedLegacySkill();
  try {
    await Deno.remove(`${s.dir}/vendor/.schemapin.sig`);
    await Deno.symlink("/etc/hostname", `${s.dir}/vendor/.schemapin.sig`);
    const r = await verify(s.dir);
    assert.equal(r.errorCode, "INPUT_INVALID");
    assert.match(r.errorMessage!, /vendor\/\.schemapin\.sig is a symbolic link/);
  } finally {
    await s.cleanup();
  }
});

Deno.test("legacy nested sig: a FIFO of that name still aborts without being opened", async () => {
  const s = await nestedLegacySkill();
  try {
    await Deno.remove(`${s.dir}/vendor/.schemapin.sig`);
    await mkfifo(`${s.dir}/vendor/.schemapin.sig`);
    const r = await verify(s.dir);
    assert.equal(r.errorCode, "INPUT_INVALID");
    assert.match(r.errorMessage!, /vendor\/\.schemapin\.sig is a fifo/);
  } finally {
    await s.cleanup();
  }
});

Deno.test("legacy nested sig: left-out files count towards the entry cap", async () => {
  const s = await makeSkill({ "a/.schemapin.sig": "{}", "b/.schemapin.sig": "{}" });
  try {
    // Two real files (SKILL.md, scripts/run.sh) and two nested signature files.
    assert.equal(
      walkSkillDir(s.dir, { maxEntries: 4, excludeNestedSignatureFiles: true }).files.length,
      2,
    );
    await assertSkillError(
      () => walkSkillDir(s.dir, { maxEntries: 3, excludeNestedSignatureFiles: true }),
      "INPUT_INVALID",
      { reason: "too_many_entries" },
    );
  } finally {
    await s.cleanup();
  }
});

Deno.test("legacy nested sig: a directory of that name is walked, not left out", async () => {
  const s = await makeSkill();
  try {
    await writeTree(s.dir, { "sub/.schemapin.sig/inner.txt": "inside\n" });
    const w = walkSkillDir(s.dir, { excludeNestedSignatureFiles: true });
    assert.ok(w.files.some((f) => f.path === "sub/.schemapin.sig/inner.txt"));
    assert.deepEqual(w.excluded, []);
  } finally {
    await s.cleanup();
  }
});

Deno.test("1.4 (contrast): a nested .schemapin.sig is signed, and changing it fails", async () => {
  const s = await makeSkill({ "vendor/.schemapin.sig": "{}\n" });
  try {
    const key = generateKeyPair();
    const { document } = await signSkillDir(s.dir, key, { domain: "example.com" });
    await Deno.writeTextFile(`${s.dir}/.schemapin.sig`, formatSkillSignatureDocument(document));
    await Deno.writeTextFile(`${s.dir}/vendor/.schemapin.sig`, '{"changed": true}\n');
    const r = await verifySkillOffline({
      dir: s.dir,
      domain: "example.com",
      discovery: buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" }),
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
    });
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.deepEqual(r.changes?.modified, ["vendor/.schemapin.sig"]);
    assert.equal(r.unsignedFiles, undefined);
    assert.ok(!r.warnings.includes("legacy_nested_signature_files"));
  } finally {
    await s.cleanup();
  }
});
