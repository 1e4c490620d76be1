// The .schemapin.sig document (§4b.5): building, signing, parsing, the signing input, and
// the SKILL.md front matter name.
import assert from "node:assert/strict";
import { generateKeyPair } from "../../lib/crypto/keys.ts";
import { verifyDocumentSignature } from "../../lib/crypto/ecdsa.ts";
import { canonicalizeSchemapinV1 } from "../../lib/json/canonical_schemapin.ts";
import { hashSkillFiles } from "../../lib/skill/hash.ts";
import {
  formatSkillSignatureDocument,
  parseSkillSignatureDocument,
  signSkillDocument,
  SKILL_SIGNATURE_FIELDS,
  skillAlgorithmFor,
  type SkillSignatureDocument,
  skillSigningInput,
} from "../../lib/skill/document.ts";
import { skillNameFromFrontMatter } from "../../lib/skill/front_matter.ts";
import { readSkillName, signSkillDir } from "../../lib/skill/sign.ts";
import { assertSkillError, makeSkill } from "./trees.ts";

const enc = new TextEncoder();
const key = generateKeyPair();
const hash = hashSkillFiles([
  { path: "SKILL.md", content: enc.encode("---\nname: s\n---\n") },
  { path: "run.sh", content: enc.encode("echo\n") },
]);
const SIGNED_AT = Date.UTC(2026, 4, 1, 10);
const base = { skillName: "s", domain: "Example.COM", signedAt: SIGNED_AT };

function signed(extra: Record<string, unknown> = {}): SkillSignatureDocument {
  return signSkillDocument(hash, key, { ...base, ...extra });
}

Deno.test("document: signing covers every field; defaults are filled in", () => {
  const doc = signed({ expiresAt: "2027-01-01T00:00:00Z", schemaVersion: "1.2.0" });
  assert.equal(doc.schemapin_version, "1.4");
  assert.equal(doc.skill_hash, hash.skillHash);
  assert.equal(doc.signed_at, "2026-05-01T10:00:00Z");
  assert.equal(doc.domain, "example.com", "the domain is validated and lower-cased");
  assert.equal(doc.signer_kid, key.publicKey.fingerprint, "signer_kid defaults to the fingerprint");
  assert.deepEqual(doc.file_manifest, hash.manifest);
  // The signing input is the canonical document with signature "".
  const input = skillSigningInput(doc);
  assert.equal(new TextDecoder().decode(input), canonicalizeSchemapinV1({ ...doc, signature: "" }));
  assert.deepEqual(verifyDocumentSignature(input, doc.signature, key.publicKey), { valid: true });
});

Deno.test("document: formatted with known fields in order, pretty, newline-terminated", () => {
  const doc = signed({
    expiresAt: "2027-01-01T00:00:00Z",
    previousHash: "sha256:" + "a".repeat(64),
  });
  const text = formatSkillSignatureDocument({ ...doc, x_extra: 1 } as SkillSignatureDocument);
  assert.ok(text.endsWith("}\n"));
  assert.ok(text.includes('\n  "skill_name": "s",\n'));
  assert.ok(!text.includes("x_extra"), "only known fields are written");
  const keys = Object.keys(JSON.parse(text));
  assert.deepEqual(keys, SKILL_SIGNATURE_FIELDS.filter((f) => keys.includes(f)));
  assert.equal(keys[keys.length - 1], "file_manifest");
});

Deno.test("document: every signed field changes the signing input; unknown fields do not", () => {
  const doc = signed({
    expiresAt: "2027-01-01T00:00:00Z",
    schemaVersion: "1.0.0",
    previousHash: "sha256:" + "b".repeat(64),
    canonicalization: "schemapin-v1",
    signerKid: "kid-1",
  });
  const verifies = (d: Record<string, unknown>) =>
    verifyDocumentSignature(
      skillSigningInput(parseSkillSignatureDocument(d).document),
      doc.signature,
      key.publicKey,
    ).valid;
  assert.equal(verifies({ ...doc }), true);
  assert.equal(verifies({ ...doc, unknown_field: "anything" }), true);
  const edits: Record<string, unknown> = {
    skill_name: "t",
    skill_hash: "sha256:" + "c".repeat(64),
    signed_at: "2026-05-01T10:00:01Z",
    expires_at: "2099-01-01T00:00:00Z",
    schema_version: "1.0.1",
    previous_hash: "sha256:" + "d".repeat(64),
    domain: "example.org",
    signer_kid: "kid-2",
    file_manifest: { ...doc.file_manifest, "new.sh": "sha256:" + "e".repeat(64) },
  };
  for (const [field, value] of Object.entries(edits)) {
    assert.equal(verifies({ ...doc, [field]: value }), false, `editing ${field} must break it`);
  }
  for (const field of ["expires_at", "schema_version", "previous_hash", "canonicalization"]) {
    const { [field]: _, ...rest } = doc as unknown as Record<string, unknown>;
    assert.equal(verifies(rest), false, `removing ${field} must break it`);
  }
});

Deno.test("document: signing refuses bad metadata", async () => {
  const legacy = hashSkillFiles([{ path: "a", content: enc.encode("x") }], "legacy");
  await assertSkillError(() => signSkillDocument(legacy, key, base), "INPUT_INVALID", {
    message: /never the legacy/,
  });
  const bad: [Record<string, unknown>, string, RegExp][] = [
    [{ skillName: "" }, "INPUT_INVALID", /empty/],
    [{ skillName: "a\nb" }, "INPUT_INVALID", /control/],
    [{ domain: "https://example.com" }, "INPUT_INVALID", /domain/],
    [{ domain: "localhost" }, "INPUT_INVALID", /domain/],
    [{ expiresAt: "2026-05-01 10:00:00Z" }, "INPUT_INVALID", /RFC 3339/],
    [{ expiresAt: SIGNED_AT }, "INPUT_INVALID", /later than signed_at/],
    [{ expiresAt: "2020-01-01T00:00:00Z" }, "INPUT_INVALID", /later than signed_at/],
    [{ schemaVersion: "" }, "INPUT_INVALID", /schema_version/],
    [{ previousHash: "sha256:ABC" }, "INPUT_INVALID", /previous_hash/],
    [{ previousHash: hash.skillHash }, "INPUT_INVALID", /own skill_hash/],
    [{ signerKid: "" }, "INPUT_INVALID", /signer_kid/],
    [{ canonicalization: "jcs" }, "CANONICALIZATION_UNSUPPORTED", /not supported/],
  ];
  for (const [extra, code, message] of bad) {
    await assertSkillError(() => signed(extra), code, { message });
  }
});

Deno.test("document: parsing accepts a signed document and lists unknown fields", () => {
  const doc = signed();
  const parsed = parseSkillSignatureDocument({ ...doc, note: "x", extra: [1] });
  assert.equal(parsed.algorithm, "1.4");
  assert.deepEqual(parsed.unknownFields, ["note", "extra"]);
  assert.deepEqual(parsed.warnings, []);
  assert.deepEqual(parsed.document, doc);
  const newer = parseSkillSignatureDocument({ ...doc, schemapin_version: "1.5" });
  assert.deepEqual(newer.warnings, ["signature_version_newer"]);
  assert.equal(newer.algorithm, "1.4");
});

Deno.test("document: parsing rejects malformed documents, naming the field", async () => {
  const doc = signed() as unknown as Record<string, unknown>;
  const without = (f: string) => {
    const { [f]: _, ...rest } = doc;
    return rest;
  };
  const cases: [unknown, RegExp][] = [
    [null, /must be a JSON object/],
    [[doc], /must be a JSON object/],
    [without("schemapin_version"), /schemapin_version is missing/],
    [{ ...doc, schemapin_version: 1.4 }, /schemapin_version must be a string/],
    [{ ...doc, schemapin_version: "2.0" }, /not a supported 1\.x/],
    [{ ...doc, schemapin_version: "1.4.0" }, /not a supported 1\.x/],
    [without("skill_name"), /skill_name is missing/],
    [{ ...doc, skill_name: "" }, /skill_name is empty/],
    [{ ...doc, skill_hash: "sha256:xyz" }, /skill_hash/],
    [without("signature"), /signature is missing/],
    [{ ...doc, signature: "" }, /signature is empty/],
    [{ ...doc, signed_at: "yesterday" }, /signed_at/],
    [without("file_manifest"), /file_manifest is missing/],
    [{ ...doc, file_manifest: [] }, /file_manifest must be an object/],
    [{ ...doc, file_manifest: { a: "md5:00" } }, /file_manifest\["a"\]/],
    [{ ...doc, domain: "http://example.com" }, /domain/],
    [{ ...doc, previous_hash: "sha256:" }, /previous_hash/],
    [{ ...doc, schema_version: "" }, /schema_version is empty/],
    [{ ...doc, signer_kid: 7 }, /signer_kid must be a string/],
  ];
  for (const [value, message] of cases) {
    await assertSkillError(() => parseSkillSignatureDocument(value, "x.sig"), "INPUT_INVALID", {
      message,
    });
  }
});

Deno.test("document: legacy documents parse as legacy; manifest optional, signed_at loose", () => {
  const legacy = {
    schemapin_version: "1.3",
    skill_name: "old",
    skill_hash: "sha256:" + "f".repeat(64),
    signature: "MEUC",
    signed_at: "2026-01-01 00:00:00",
  };
  const parsed = parseSkillSignatureDocument(legacy);
  assert.equal(parsed.algorithm, "legacy");
  assert.equal(parsed.document.file_manifest, undefined);
  assert.equal(skillAlgorithmFor("1.0"), "legacy");
  assert.equal(skillAlgorithmFor("1.4"), "1.4");
  assert.equal(skillAlgorithmFor("1.10"), "1.4");
  assert.equal(skillAlgorithmFor("0.9"), undefined);
  assert.equal(skillAlgorithmFor(1.3), undefined);
});

Deno.test("document: a manifest path named __proto__ survives parsing and signing", () => {
  const h = hashSkillFiles([{ path: "__proto__", content: enc.encode("x") }]);
  const doc = signSkillDocument(h, key, base);
  const reparsed = parseSkillSignatureDocument(JSON.parse(formatSkillSignatureDocument(doc)));
  assert.ok(Object.hasOwn(reparsed.document.file_manifest!, "__proto__"));
  assert.equal(
    verifyDocumentSignature(skillSigningInput(reparsed.document), doc.signature, key.publicKey)
      .valid,
    true,
  );
});

Deno.test("front matter: name found, quoted, commented; absent or unclosed is undefined", () => {
  const cases: [string, string | undefined][] = [
    ["---\nname: pdf-tools\ndescription: x\n---\n# body", "pdf-tools"],
    ["\ufeff---\r\nname: crlf\r\n---\r\n", "crlf"],
    ['---\nname: "quoted name"\n---\n', "quoted name"],
    ["---\nname: 'single'\n---\n", "single"],
    ["---\nname: plain # comment\n---\n", "plain"],
    ["---\ndescription: x\n  name: nested\n---\nname: body", undefined],
    ["---\nname:\n---\n", undefined],
    ["---\nname: unclosed\n", undefined],
    ["# title\nname: not front matter\n", undefined],
    ["", undefined],
  ];
  for (const [text, expected] of cases) {
    assert.equal(skillNameFromFrontMatter(text), expected, JSON.stringify(text));
  }
});

Deno.test("skill name: SKILL.md front matter, else the folder name; SKILL.md must be regular", async () => {
  const s = await makeSkill();
  try {
    assert.equal(readSkillName(s.dir), "my-skill");
    await Deno.writeTextFile(`${s.dir}/SKILL.md`, "# no front matter\n");
    assert.equal(readSkillName(s.dir + "/"), "my-skill", "the folder's own name");
    await Deno.remove(`${s.dir}/SKILL.md`);
    await Deno.symlink("/etc/hostname", `${s.dir}/SKILL.md`);
    await assertSkillError(() => readSkillName(s.dir), "INPUT_INVALID", {
      message: /not a regular file/,
    });
  } finally {
    await s.cleanup();
  }
});

Deno.test("signSkillDir: hashes, names and signs; a bad front matter name is explained", async () => {
  const s = await makeSkill();
  try {
    const { document, hash: h } = await signSkillDir(s.dir, key, { domain: "example.com" });
    assert.equal(document.skill_name, "my-skill");
    assert.equal(document.skill_hash, h.skillHash);
    await Deno.writeTextFile(`${s.dir}/SKILL.md`, "---\nname: bad\tname\n---\n");
    await assertSkillError(
      () => signSkillDir(s.dir, key, { domain: "example.com" }),
      "INPUT_INVALID",
      { message: /give a name explicitly/ },
    );
    const named = await signSkillDir(s.dir, key, { domain: "example.com", skillName: "ok" });
    assert.equal(named.document.skill_name, "ok");
  } finally {
    await s.cleanup();
  }
});
