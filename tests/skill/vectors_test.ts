// The published skill corpus vectors/skill/ (scripts/vectors_skill.ts): this implementation
// must reproduce every byte, verify the signature document, and agree with every case.
import assert from "node:assert/strict";
import { parseJson } from "../../lib/json/parse.ts";
import { parsePublicKeyPem } from "../../lib/crypto/keys.ts";
import { verifyDocumentSignature } from "../../lib/crypto/ecdsa.ts";
import { MemoryPinStore } from "../../lib/pins/store.ts";
import { hashSkillDir } from "../../lib/skill/hash.ts";
import { parseSkillSignatureDocument, skillSigningInput } from "../../lib/skill/document.ts";
import { verifySkillOffline } from "../../lib/skill/verify.ts";
import { buildSkillVectors } from "../../scripts/vectors_skill.ts";

const root = new URL("../../vectors/skill/", import.meta.url);
const tree = new URL("tree", root).pathname;
const expected = parseJson(await Deno.readFile(new URL("expected.json", root))) as {
  entries: { path: string; path_utf8_hex: string; size: number; entry_digest: string }[];
  root_hash_input_hex: string;
  skill_hash: string;
  signing_input: string;
  signature_document: Record<string, unknown>;
  public_key_pem: string;
  legacy: { skill_hash: string; entries: { path: string; entry_digest: string }[] };
  document_cases: { name: string; expect: "valid" | "invalid"; document: unknown }[];
};

Deno.test("skill vectors: the tree hashes to the published entries and skill_hash", async () => {
  const h = await hashSkillDir(tree);
  assert.deepEqual(
    h.entries.map((e) => ({ path: e.path, size: e.size, digest: e.digest })),
    expected.entries.map((e) => ({ path: e.path, size: e.size, digest: e.entry_digest })),
  );
  assert.equal(h.skillHash, expected.skill_hash);
  assert.ok(expected.entries.some((e) => e.path === "nested/.schemapin.sig"));
  assert.ok(!expected.entries.some((e) => e.path === ".schemapin.sig"));
  const legacy = await hashSkillDir(tree, { algorithm: "legacy" });
  assert.equal(legacy.skillHash, expected.legacy.skill_hash);
  // The legacy algorithm leaves nested/.schemapin.sig out, as the 1.3 signers did (§4b).
  assert.ok(!expected.legacy.entries.some((e) => e.path === "nested/.schemapin.sig"));
  assert.deepEqual(legacy.excluded, ["nested/.schemapin.sig"]);
  assert.deepEqual(
    legacy.entries.map((e) => ({ path: e.path, entry_digest: e.digest })),
    expected.legacy.entries,
  );
});

Deno.test("skill vectors: the published signature document verifies offline", async () => {
  const discovery = parseJson(await Deno.readFile(new URL("well_known.json", root)));
  const r = await verifySkillOffline({
    dir: tree,
    domain: "example.com",
    discovery,
    pinStore: new MemoryPinStore(),
    trustFirstUse: true,
    now: Date.UTC(2026, 5, 1),
  });
  assert.equal(r.valid, true, r.errorMessage);
  assert.equal(
    new TextDecoder().decode(skillSigningInput(r.document!)),
    expected.signing_input,
  );
});

for (const c of expected.document_cases) {
  Deno.test(`skill vectors: document case ${c.name} is ${c.expect}`, () => {
    const pk = parsePublicKeyPem(expected.public_key_pem);
    const { document } = parseSkillSignatureDocument(c.document);
    const check = verifyDocumentSignature(skillSigningInput(document), document.signature, pk);
    assert.equal(check.valid, c.expect === "valid");
  });
}

Deno.test("skill vectors: vectors/skill/ is up to date with scripts/vectors_skill.ts", async () => {
  const files = await buildSkillVectors();
  for (const [path, bytes] of Object.entries(files)) {
    assert.deepEqual(
      await Deno.readFile(new URL(path, root)),
      bytes,
      `vectors/skill/${path} is stale`,
    );
  }
  // …and holds nothing else.
  const onDisk: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) walk(`${dir}/${e.name}`, p);
      else onDisk.push(p);
    }
  };
  walk(root.pathname, "");
  assert.deepEqual(onDisk.sort(), Object.keys(files).sort());
});
