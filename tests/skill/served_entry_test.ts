/**
 * lib/skill/served_entry.ts: SEP-2640 skill entries and FastMCP manifests read into one form,
 * and every shape the SEP forbids refused with a message naming the skill and the member.
 */
import assert from "node:assert/strict";
import {
  parseFastMcpManifest,
  parseSkillEntry,
  quoteSkillPath,
  skillFilePath,
  skillUriParts,
} from "../../lib/skill/served_entry.ts";
import { SchemaPinError } from "../../lib/errors.ts";

const D = (c: string) => "sha256:" + c.repeat(64);
const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

function entry(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uri: "skill://acme/billing/refunds/SKILL.md",
    frontmatter: { name: "refunds", description: "Refunds" },
    resources: [
      { uri: "skill://acme/billing/refunds/examples/email.md", digest: D("b"), size: 4 },
      { uri: "skill://acme/billing/refunds/SKILL.md", digest: D("a") },
    ],
    ...over,
  };
}

function refused(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (e) => e instanceof SchemaPinError && pattern.test(e.message));
}

Deno.test("a SEP entry: root, name, files sorted by URI with decoded paths", () => {
  const e = parseSkillEntry(entry(), "server s");
  assert.equal(e.form, "sep-2640");
  assert.equal(e.root, "skill://acme/billing/refunds");
  assert.equal(e.name, "refunds");
  assert.deepEqual(e.resources?.map((r) => r.path), ["SKILL.md", "examples/email.md"]);
  assert.equal(e.resources?.[1].size, 4);
  assert.equal(e.resources?.[0].size, undefined);
});

Deno.test("a SEP entry without resources is a dynamic skill", () => {
  const e = parseSkillEntry(entry({ resources: undefined }), "s");
  assert.equal(e.resources, undefined);
});

Deno.test("SEP entries the SEP forbids are refused, naming the skill and the member", () => {
  refused(() => parseSkillEntry("x", "server s"), /server s: a skill entry must be an object/);
  refused(
    () => parseSkillEntry(entry({ uri: "skill://x/README.md" }), "s"),
    /does not end in \/SKILL\.md/,
  );
  refused(() => parseSkillEntry(entry({ uri: "skill:///SKILL.md" }), "s"), /no skill path/);
  refused(
    () => parseSkillEntry(entry({ frontmatter: { name: "other", description: "x" } }), "s"),
    /skill skill:\/\/acme\/billing\/refunds\/SKILL\.md: frontmatter\.name "other" is not the last segment/,
  );
  refused(() => parseSkillEntry(entry({ frontmatter: [] }), "s"), /frontmatter must be an object/);
  refused(() => parseSkillEntry(entry({ resources: {} }), "s"), /resources must be an array/);
  refused(
    () =>
      parseSkillEntry(
        entry({
          resources: [{ uri: "skill://acme/billing/refunds/SKILL.md", digest: "sha256:AB" }],
        }),
        "s",
      ),
    /resources\[0\]: digest must be sha256/,
  );
  refused(
    () =>
      parseSkillEntry(
        entry({
          resources: [{ uri: "skill://acme/billing/refunds/SKILL.md", digest: D("a"), size: -1 }],
        }),
        "s",
      ),
    /size must be a non-negative integer/,
  );
  refused(
    () =>
      parseSkillEntry(
        entry({ resources: [{ uri: "skill://other/SKILL.md", digest: D("a") }] }),
        "s",
      ),
    /is not a file of the skill/,
  );
  refused(
    () =>
      parseSkillEntry(
        entry({ resources: [{ uri: "skill://acme/billing/refunds/x.md", digest: D("a") }] }),
        "s",
      ),
    /does not list the skill's own SKILL\.md/,
  );
  const dup = { uri: "skill://acme/billing/refunds/SKILL.md", digest: D("a") };
  refused(() => parseSkillEntry(entry({ resources: [dup, dup] }), "s"), /lists .*SKILL\.md twice/);
  refused(() => parseSkillEntry(entry({ _meta: 3 }), "s"), /_meta must be an object/);
});

Deno.test("a file path must stay inside the skill", () => {
  assert.equal(skillFilePath("skill://a/x/../../b/SKILL.md", "skill://a"), undefined);
  assert.equal(skillFilePath("skill://a/%2e%2e/b", "skill://a"), undefined);
  assert.equal(skillFilePath("skill://a/b%2Fc", "skill://a"), undefined);
  assert.equal(skillFilePath("skill://a/%zz", "skill://a"), undefined);
  assert.equal(skillFilePath("skill://ab/SKILL.md", "skill://a"), undefined);
  assert.equal(skillFilePath("skill://a/dir/file%20one.md", "skill://a"), "dir/file one.md");
});

Deno.test("skill URI parts and FastMCP's quoting", () => {
  assert.deepEqual(skillUriParts("skill://git-workflow/SKILL.md"), {
    root: "skill://git-workflow",
    name: "git-workflow",
  });
  assert.equal(typeof skillUriParts("https://x"), "string");
  assert.equal(quoteSkillPath("a b/(c)!.md"), "a%20b/%28c%29%21.md");
});

Deno.test("a FastMCP manifest becomes an entry with skill://NAME/<path> files", () => {
  const e = parseFastMcpManifest(
    enc({
      skill: "pdf",
      files: [
        { path: "SKILL.md", size: 3, hash: D("1") },
        { path: "scripts/run me.sh", size: 2, hash: D("2") },
      ],
    }),
    "skill://pdf/_manifest",
  );
  assert.equal(e.form, "fastmcp");
  assert.equal(e.uri, "skill://pdf/SKILL.md");
  assert.deepEqual(e.resources?.map((r) => r.uri), [
    "skill://pdf/SKILL.md",
    "skill://pdf/scripts/run%20me.sh",
  ]);
  assert.equal(e.frontmatter, undefined);
});

Deno.test("malformed FastMCP manifests are refused", () => {
  const ok = { path: "SKILL.md", size: 3, hash: D("1") };
  refused(
    () => parseFastMcpManifest(enc({ files: [ok] }), "skill://pdf/SKILL.md"),
    /skill:\/\/NAME\/_manifest/,
  );
  refused(
    () => parseFastMcpManifest(enc({ skill: "pdf" }), "skill://pdf/_manifest"),
    /files array/,
  );
  refused(
    () => parseFastMcpManifest(enc({ skill: "other", files: [ok] }), "skill://pdf/_manifest"),
    /names skill "other"/,
  );
  refused(
    () => parseFastMcpManifest(enc({ files: [{ ...ok, path: "../x" }] }), "skill://pdf/_manifest"),
    /relative path inside the skill/,
  );
  refused(
    () => parseFastMcpManifest(enc({ files: [{ ...ok, hash: "md5:1" }] }), "skill://pdf/_manifest"),
    /hash must be/,
  );
  refused(
    () =>
      parseFastMcpManifest(enc({ files: [{ ...ok, path: "README.md" }] }), "skill://pdf/_manifest"),
    /lists no SKILL\.md/,
  );
  refused(() => parseFastMcpManifest(enc({ files: [ok, ok] }), "skill://pdf/_manifest"), /twice/);
  assert.throws(() => parseFastMcpManifest(new TextEncoder().encode("{"), "skill://pdf/_manifest"));
});
