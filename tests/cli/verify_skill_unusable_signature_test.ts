// verify-skill on a folder whose .schemapin.sig is missing, truncated, not JSON or not a
// signature document (issue 37 item 4): with or without --domain, the FAIL line names the skill
// as sign-skill would (SKILL.md's `name`, else the folder's name) and the error names the real
// cause — unsigned (exit 1) or not JSON (exit 2) — never "--domain D is required" and never
// "(unnamed)"; nothing is pinned. A valid document that names no domain still needs --domain.
import assert from "node:assert/strict";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { exists, runInProcess, withTempDir } from "./run.ts";
import { writeTree } from "../skill/trees.ts";

const key = generateKeyPair();

async function setup(dir: string): Promise<{ skill: string; discovery: string; keyFile: string }> {
  const skill = `${dir}/folder-name`;
  await writeTree(skill, {
    "SKILL.md": "---\nname: pdf-tools\ndescription: Extract text.\n---\n# PDF\n",
    "scripts/run.sh": "#!/bin/sh\necho hi\n",
  });
  const discovery = `${dir}/schemapin.json`;
  await Deno.writeTextFile(
    discovery,
    JSON.stringify(buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" })),
  );
  const keyFile = `${dir}/private.pem`;
  await Deno.writeTextFile(keyFile, privateKeyToPem(key), { mode: 0o600 });
  return { skill, discovery, keyFile };
}

/** The folder's .schemapin.sig as each case leaves it, with the code and cause expected. */
const CASES: { name: string; sig?: string; code: string; exit: number; cause: RegExp }[] = [
  {
    name: "missing",
    code: "SIGNATURE_INVALID",
    exit: 1,
    cause: /the skill is unsigned: .*folder-name\/\.schemapin\.sig does not exist/,
  },
  {
    name: "truncated",
    sig: '{"schemapin_version":"1.4","skill_name":"pdf-tools","domain":"exa',
    code: "JSON_INVALID",
    exit: 2,
    cause: /\.schemapin\.sig: unterminated string at byte 61/,
  },
  {
    name: "garbage",
    sig: "not a signature\n",
    code: "JSON_INVALID",
    exit: 2,
    cause: /\.schemapin\.sig: invalid literal .* at byte 0/,
  },
  {
    name: "empty",
    sig: "",
    code: "JSON_INVALID",
    exit: 2,
    cause: /\.schemapin\.sig: unexpected end of input: expected a value at byte 0/,
  },
  {
    name: "JSON that is no signature document",
    sig: '{"hello":"world"}',
    code: "SIGNATURE_INVALID",
    exit: 1,
    cause: /schemapin_version is missing/,
  },
];

async function place(skill: string, sig: string | undefined): Promise<void> {
  await Deno.remove(`${skill}/.schemapin.sig`).catch(() => {});
  if (sig !== undefined) await Deno.writeTextFile(`${skill}/.schemapin.sig`, sig);
}

Deno.test("verify-skill: an unusable .schemapin.sig is named as such, with the skill's name, with or without --domain", async () => {
  await withTempDir(async (dir) => {
    const { skill, discovery } = await setup(dir);
    const pins = `${dir}/pins.json`;
    for (const c of CASES) {
      await place(skill, c.sig);
      for (const domain of [[], ["--domain", "example.com"]]) {
        const label = `${c.name} ${domain.join(" ") || "(no --domain)"}`;
        const r = await runInProcess([
          ...["verify-skill", skill, ...domain, "--discovery", discovery],
          ...["--pin-store", pins, "--trust-first-use"],
        ]);
        assert.equal(r.code, c.exit, `${label}: ${r.stderr}`);
        const who = domain.length ? "pdf-tools@example.com" : "pdf-tools";
        assert.equal(r.stdout, `FAIL ${who}: ${c.code}\n`, label);
        assert.match(r.stderr, new RegExp(`^error: ${c.code}: `), label);
        assert.match(r.stderr, c.cause, label);
        assert.doesNotMatch(r.stdout + r.stderr, /--domain D is required|\(unnamed\)/, label);
        assert.equal(await exists(pins), false, `${label}: something was pinned`);
      }
    }
  });
});

Deno.test("verify-skill --json: an unusable .schemapin.sig without --domain is one error object", async () => {
  await withTempDir(async (dir) => {
    const { skill, discovery } = await setup(dir);
    for (const c of CASES) {
      await place(skill, c.sig);
      const r = await runInProcess(["verify-skill", skill, "--discovery", discovery, "--json"]);
      assert.equal(r.code, c.exit, `${c.name}: ${r.stdout}`);
      const out = JSON.parse(r.stdout);
      assert.equal(out.ok, false, c.name);
      assert.equal(out.error.code, c.code, c.name);
      assert.match(out.error.message, c.cause, c.name);
      assert.equal(r.stderr, "", c.name);
    }
  });
});

Deno.test("verify-skill: without SKILL.md's name the FAIL line names the folder", async () => {
  await withTempDir(async (dir) => {
    const { skill, discovery } = await setup(dir);
    await Deno.writeTextFile(`${skill}/SKILL.md`, "# no front matter\n");
    const r = await runInProcess(["verify-skill", skill, "--discovery", discovery]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "FAIL folder-name: SIGNATURE_INVALID\n");
  });
});

Deno.test("verify-skill: a signed folder still verifies without --domain; a document naming no domain still needs it", async () => {
  await withTempDir(async (dir) => {
    const { skill, discovery, keyFile } = await setup(dir);
    const signed = await runInProcess([
      ...["sign-skill", skill, "--key", keyFile, "--domain", "example.com"],
    ]);
    assert.equal(signed.code, 0, signed.stderr);
    const ok = await runInProcess([
      ...["verify-skill", skill, "--discovery", discovery],
      ...["--pin-store", `${dir}/pins.json`, "--trust-first-use"],
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^OK pdf-tools@example\.com: /);
    // The same document without its domain: a valid document, so --domain is what is missing.
    const doc = JSON.parse(await Deno.readTextFile(`${skill}/.schemapin.sig`));
    delete doc.domain;
    await Deno.writeTextFile(`${skill}/.schemapin.sig`, JSON.stringify(doc));
    const none = await runInProcess(["verify-skill", skill, "--discovery", discovery]);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /--domain D is required: the signature does not name its domain/);
    assert.equal(none.stdout, "");
  });
});
