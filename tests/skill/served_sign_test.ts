// skillEntryFromFolder (issue 35 item 3, for server authors): a signed folder as its SEP-2640
// entry, checked against digests computed here with WebCrypto (not the library's hash).
import assert from "node:assert/strict";
import { SchemaPinError } from "../../lib/errors.ts";
import { skillEntryFromFolder } from "../../lib/skill/served_sign.ts";
import { parseSkillEntry } from "../../lib/skill/served_entry.ts";
import { DEMO_FILES, servedRoot } from "./_served.ts";

async function digestOf(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
  return "sha256:" + [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("skillEntryFromFolder: uri, frontmatter, every file's digest and size, the signature in _meta", async () => {
  const s = await servedRoot();
  try {
    const entry = skillEntryFromFolder(s.dir);
    assert.equal(entry.uri, "skill://demo/SKILL.md");
    assert.deepEqual(entry.frontmatter, { name: "demo", description: "A demo skill" });
    const expected = await Promise.all(
      Object.entries(DEMO_FILES).map(async ([path, text]) => ({
        uri: "skill://demo/" + path.split("/").map(encodeURIComponent).join("/"),
        digest: await digestOf(text),
        size: new TextEncoder().encode(text).length,
      })),
    );
    expected.sort((a, b) => (a.uri < b.uri ? -1 : 1));
    assert.deepEqual(entry.resources, expected);
    assert.deepEqual(
      entry._meta["dev.schemapin/signature"],
      JSON.parse(await Deno.readTextFile(`${s.dir}/.schemapin.sig`)),
    );
    // It reads back as a SEP-2640 entry, and survives JSON.
    const parsed = parseSkillEntry(JSON.parse(JSON.stringify(entry)), "test");
    assert.equal(parsed.resources?.length, 3);
  } finally {
    await s.cleanup();
  }
});

Deno.test("skillEntryFromFolder: uriPrefix nests the skill; includeSignatureFile lists .schemapin.sig", async () => {
  const s = await servedRoot();
  try {
    const entry = skillEntryFromFolder(s.dir, {
      uriPrefix: "skill://acme/billing/",
      includeSignatureFile: true,
    });
    assert.equal(entry.uri, "skill://acme/billing/demo/SKILL.md");
    const sig = await Deno.readFile(`${s.dir}/.schemapin.sig`);
    assert.deepEqual(
      entry.resources.find((r) => r.uri === "skill://acme/billing/demo/.schemapin.sig"),
      {
        uri: "skill://acme/billing/demo/.schemapin.sig",
        digest: await digestOf(sig),
        size: sig.length,
      },
    );
  } finally {
    await s.cleanup();
  }
});

function assertInvalid(f: () => unknown, message: RegExp) {
  assert.throws(
    f,
    (e) => e instanceof SchemaPinError && e.code === "INPUT_INVALID" && message.test(e.message),
  );
}

Deno.test("skillEntryFromFolder: an unsigned folder, a stale signature, no name or a bad prefix throw", async () => {
  const unsigned = await servedRoot({ signed: false });
  const s = await servedRoot();
  try {
    assertInvalid(
      () => skillEntryFromFolder(unsigned.dir),
      /is not signed: .*\.schemapin\.sig does not exist/,
    );
    await Deno.writeTextFile(`${s.dir}/scripts/run.sh`, "changed\n");
    assertInvalid(() => skillEntryFromFolder(s.dir), /changed after signing \(re-sign it/);
    for (const uriPrefix of ["skill:/", "skill://acme", "no-scheme/", "skill://a//"]) {
      assertInvalid(() => skillEntryFromFolder(unsigned.dir, { uriPrefix }), /options\.uriPrefix/);
    }
  } finally {
    await unsigned.cleanup();
    await s.cleanup();
  }
  const noName = await servedRoot({ files: { "SKILL.md": "# no frontmatter\n" } });
  try {
    assertInvalid(() => skillEntryFromFolder(noName.dir), /has no frontmatter name/);
  } finally {
    await noName.cleanup();
  }
});
