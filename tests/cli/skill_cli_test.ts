// hash-skill, sign-skill and verify-skill: outputs, options, usage errors and exit codes.
import assert from "node:assert/strict";
import { generateKeyPair, privateKeyToPem } from "../../lib/crypto/keys.ts";
import { buildDiscoveryDocument } from "../../lib/discovery/document.ts";
import { hashSkillDir } from "../../lib/skill/hash.ts";
import type { CliIO } from "../../cli/commands/command.ts";
import { limitsFromArgs } from "../../cli/commands/skill_limits.ts";
import { skillProgress } from "../../cli/commands/progress.ts";
import { makeVerifySkillCommand } from "../../cli/commands/verify_skill.ts";
import { runCliProcess, runInProcess } from "./run.ts";
import { assertJsonOutput } from "./json_schemas.ts";
import { withSkill } from "../skill/trees.ts";
import { INTEROP_JS } from "../fixtures/interop.ts";
import { referenceLegacySign } from "../skill/reference_legacy.ts";

const key = generateKeyPair();
const other = generateKeyPair();
const keys = await Deno.makeTempDir({ prefix: "schemapin-skill-cli-" });
const KEY = `${keys}/private.pem`;
const OTHER_KEY = `${keys}/other.pem`;
const DISCOVERY = `${keys}/schemapin.json`;
await Deno.writeTextFile(KEY, privateKeyToPem(key), { mode: 0o600 });
await Deno.writeTextFile(OTHER_KEY, privateKeyToPem(other), { mode: 0o600 });
await Deno.writeTextFile(`${keys}/public.pem`, key.publicKey.pem);
await Deno.writeTextFile(
  DISCOVERY,
  JSON.stringify(buildDiscoveryDocument({ publicKey: key.publicKey, developerName: "Dev" })),
);
globalThis.addEventListener("unload", () => Deno.removeSync(keys, { recursive: true }));

const INTEROP = INTEROP_JS;

function sign(dir: string, ...extra: string[]) {
  return runInProcess(["sign-skill", dir, "--key", KEY, "--domain", "example.com", ...extra]);
}

function verify(dir: string, pins: string, ...extra: string[]) {
  return runInProcess([
    "verify-skill",
    dir,
    "--domain",
    "example.com",
    "--discovery",
    DISCOVERY,
    "--pin-store",
    pins,
    ...extra,
  ]);
}

async function readSig(dir: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(`${dir}/.schemapin.sig`));
}

Deno.test("hash-skill: one line per file and the skill_hash; --json has the manifest", async () => {
  await withSkill(async (s) => {
    const expected = await hashSkillDir(s.dir);
    const r = await runInProcess(["hash-skill", s.dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      expected.entries.map((e) => `${e.digest}  ${e.path}\n`).join("") +
        `skill_hash ${expected.skillHash} (2 files, ${expected.totalBytes} bytes)\n`,
    );
    const j = await runInProcess(["hash-skill", s.dir, "--json"]);
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual(await assertJsonOutput(j.stdout), {
      format: "schemapin.hash-skill/1",
      ok: true,
      skill_hash: expected.skillHash,
      files: 2,
      total_bytes: expected.totalBytes,
      file_manifest: { ...expected.manifest },
    });
    assert.equal(r.stderr, "", "no progress line when stderr is not a terminal");
  });
});

Deno.test("hash-skill: usage errors and caps from the command line exit 2", async () => {
  await withSkill(async (s) => {
    for (
      const args of [
        ["hash-skill"],
        ["hash-skill", s.dir, s.dir],
        ["hash-skill", s.dir, "--max-entries", "0"],
        ["hash-skill", s.dir, "--max-entries", "ten"],
        ["hash-skill", s.dir, "--max-bytes", "-1"],
        ["hash-skill", s.dir, "--max-bytes", "12T"],
        ["hash-skill", s.dir, "--unknown"],
        ["hash-skill", `${s.dir}/missing`],
        ["hash-skill", `${s.dir}/SKILL.md`],
      ]
    ) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^error: /);
    }
    const capped = await runInProcess(["hash-skill", s.dir, "--max-entries", "1"]);
    assert.equal(capped.code, 2);
    assert.match(capped.stderr, /more than 1 files/);
    // The CLI names its flag where the library names its option (cli/library_words.ts).
    assert.match(capped.stderr, /\(the cap; raise it with --max-entries if this is intended\)$/m);
    const bytes = await runInProcess(["hash-skill", s.dir, "--max-bytes", "10"]);
    assert.match(bytes.stderr, /more than 10 bytes/);
    assert.match(bytes.stderr, /; raise it with --max-bytes if this is intended\)$/m);
    assert.doesNotMatch(capped.stderr + bytes.stderr, /maxEntries|maxBytes/);
    // verify-skill reports the cap as a verification result: in the CLI's words there too.
    assert.equal((await sign(s.dir)).code, 0);
    const pins = `${s.dir}.pins.json`;
    try {
      const v = await verify(s.dir, pins, "--max-entries", "1");
      assert.equal(v.code, 2, v.stderr);
      assert.match(v.stderr, /raise it with --max-entries if this is intended\)$/m);
      const j = await verify(s.dir, pins, "--max-entries", "1", "--json");
      assert.match(j.stdout, /raise it with --max-entries if this is intended\)"/);
      assert.doesNotMatch(v.stderr + j.stdout, /maxEntries/);
    } finally {
      await Deno.remove(pins).catch(() => {});
    }
    assert.deepEqual(limitsFromArgs("x", { "max-bytes": "512M", "max-entries": "20000" }), {
      maxBytes: 512 * 1024 * 1024,
      maxEntries: 20000,
    });
    assert.deepEqual(limitsFromArgs("x", { "max-bytes": "1GiB" }), { maxBytes: 1024 ** 3 });
  });
});

Deno.test("sign-skill: writes a pretty .schemapin.sig covering every field", async () => {
  await withSkill(async (s) => {
    const r = await sign(s.dir, "--expires-in", "30d", "--schema-version", "2.1.0");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^signed my-skill for example\.com: 2 files/);
    const text = await Deno.readTextFile(`${s.dir}/.schemapin.sig`);
    assert.ok(text.startsWith('{\n  "schemapin_version": "1.4",\n  "skill_name": "my-skill",\n'));
    assert.ok(text.endsWith("}\n"));
    const doc = JSON.parse(text);
    assert.equal(doc.skill_hash, (await hashSkillDir(s.dir)).skillHash);
    assert.equal(doc.domain, "example.com");
    assert.equal(doc.schema_version, "2.1.0");
    assert.equal(doc.signer_kid, key.publicKey.fingerprint);
    assert.match(doc.signed_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, "whole seconds");
    const days = (Date.parse(doc.expires_at) - Date.parse(doc.signed_at)) / 86_400_000;
    assert.equal(days, 30);
    assert.equal((await stat(`${s.dir}/.schemapin.sig`)).mode! & 0o777, 0o644);
    // The signature covers the document: verify-skill accepts it.
    const v = await verify(s.dir, `${s.base}/pins.json`, "--trust-first-use");
    assert.equal(v.code, 0, v.stderr);
  });
});

function stat(path: string) {
  return Deno.stat(path);
}

Deno.test("sign-skill: name from --name, previous hash from --previous or --previous-hash", async () => {
  await withSkill(async (s) => {
    assert.equal((await sign(s.dir)).code, 0);
    const first = await readSig(s.dir);
    await Deno.writeTextFile(`${s.dir}/SKILL.md`, "---\nname: my-skill\n---\n# v2\n");
    // --previous may name the very file about to be replaced: it is read first.
    const r = await sign(s.dir, "--previous", `${s.dir}/.schemapin.sig`, "--name", "renamed");
    assert.equal(r.code, 0, r.stderr);
    const second = await readSig(s.dir);
    assert.equal(second.previous_hash, first.skill_hash);
    assert.equal(second.skill_name, "renamed");
    const h = "sha256:" + "ab".repeat(32);
    assert.equal((await sign(s.dir, "--previous-hash", h, "--signer-kid", "kid-7")).code, 0);
    const third = await readSig(s.dir);
    assert.equal(third.previous_hash, h);
    assert.equal(third.signer_kid, "kid-7");
    // Re-signing an unchanged folder against its own hash is refused.
    const same = await sign(s.dir, "--previous", `${s.dir}/.schemapin.sig`);
    assert.equal(same.code, 2);
    assert.match(same.stderr, /own skill_hash/);
  });
});

Deno.test("sign-skill: bad arguments or inputs exit 2 and write nothing", async () => {
  await withSkill(async (s) => {
    const signArgs = ["sign-skill", s.dir, "--key", KEY, "--domain", "example.com"];
    const cases: [string[], RegExp][] = [
      [["sign-skill", s.dir, "--domain", "example.com"], /--key PRIVATE\.pem is required/],
      [["sign-skill", s.dir, "--key", KEY], /--domain D is required/],
      [["sign-skill", s.dir, "--key", KEY, "--domain", "http://example.com"], /--domain/],
      [["sign-skill", "--key", KEY, "--domain", "example.com"], /expected DIR/],
      [[...signArgs, "--expires-in", "30 days"], /not a duration/],
      [[...signArgs, "--expires-at", "2020-01-01T00:00:00Z"], /in the past/],
      [[...signArgs, "--expires-in", "1d", "--expires-at", "2099-01-01T00:00:00Z"], /not both/],
      [[...signArgs, "--previous-hash", "sha256:" + "a".repeat(64), "--previous", "x"], /not both/],
      [[...signArgs, "--previous-hash", "md5:1"], /previous_hash/],
      [[...signArgs, "--previous", DISCOVERY], /schemapin_version is missing/],
      [
        ["sign-skill", s.dir, "--key", `${keys}/public.pem`, "--domain", "example.com"],
        /KEY_INVALID/,
      ],
      [["sign-skill", s.dir, "--key", `${keys}/none.pem`, "--domain", "example.com"], /IO_FAILED/],
      [[...signArgs, "--name", ""], /skill name/],
    ];
    for (const [args, message] of cases) {
      const r = await runInProcess(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, message);
      await assert.rejects(() => Deno.lstat(`${s.dir}/.schemapin.sig`), Deno.errors.NotFound);
    }
  });
});

Deno.test("sign-skill: a failed re-sign leaves the previous signature in place", async () => {
  await withSkill(async (s) => {
    assert.equal((await sign(s.dir)).code, 0);
    const before = await Deno.readTextFile(`${s.dir}/.schemapin.sig`);
    await Deno.symlink("/etc/hostname", `${s.dir}/link`);
    assert.equal((await sign(s.dir)).code, 2);
    assert.equal(await Deno.readTextFile(`${s.dir}/.schemapin.sig`), before);
  });
});

Deno.test("sign-skill --json prints the path and the document", async () => {
  await withSkill(async (s) => {
    const r = await sign(s.dir, "--json");
    assert.equal(r.code, 0, r.stderr);
    const out = await assertJsonOutput(r.stdout);
    assert.equal(out.format, "schemapin.sign-skill/1");
    assert.equal(out.ok, true);
    assert.equal(out.out, `${s.dir}/.schemapin.sig`);
    assert.equal(out.path, undefined);
    assert.deepEqual(out.document, await readSig(s.dir));
  });
});

Deno.test("verify-skill: OK, then a tampered folder lists its changes and exits 1", async () => {
  await withSkill(async (s) => {
    const pins = `${s.base}/pins.json`;
    assert.equal((await sign(s.dir)).code, 0);
    const ok = await verify(s.dir, pins, "--trust-first-use");
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(
      ok.stdout,
      /^OK my-skill@example\.com: 3 files, sha256:[0-9a-f]{64}, signed by sha256:/,
    );
    assert.match(ok.stdout, /pinned on first use/);
    assert.equal((await verify(s.dir, pins)).code, 0, "pinned now: no opt-in needed");
    await Deno.writeTextFile(`${s.dir}/SKILL.md`, "---\nname: my-skill\n---\n# changed\n");
    await Deno.writeTextFile(`${s.dir}/scripts/new.sh`, "new");
    await Deno.remove(`${s.dir}/data/a.txt`);
    const bad = await verify(s.dir, pins);
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stdout,
      "FAIL my-skill@example.com: SIGNATURE_INVALID\n" +
        "  modified: SKILL.md\n  added: scripts/new.sh\n  removed: data/a.txt\n",
    );
    assert.match(bad.stderr, /the skill changed after signing/);
    const j = await verify(s.dir, pins, "--json");
    assert.equal(j.code, 1);
    const result = await assertJsonOutput(j.stdout);
    assert.equal(result.format, "schemapin.verify-skill/1");
    assert.equal(result.ok, false);
    assert.equal((result.error as { code: string }).code, "SIGNATURE_INVALID");
    assert.deepEqual(result.changes, {
      modified: ["SKILL.md"],
      added: ["scripts/new.sh"],
      removed: ["data/a.txt"],
    });
    assert.equal(result.document, undefined);
  }, { "data/a.txt": "a" });
});

Deno.test("verify-skill: the legacy reference fixture verifies with its warning", async () => {
  const base = await Deno.makeTempDir();
  const verifyLegacy = (discovery: string, ...more: string[]) =>
    runInProcess([
      "verify-skill",
      `${INTEROP}/legacy_skill`,
      "--domain",
      "example.com",
      "--discovery",
      `${INTEROP}/${discovery}`,
      "--pin-store",
      `${base}/pins.json`,
      ...more,
    ]);
  try {
    const r = await verifyLegacy("well_known.json", "--trust-first-use");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^OK public-legacy-skill@example\.com: 3 files, sha256:c1224fc6/);
    assert.match(r.stdout, /legacy format/);
    assert.match(r.stderr, /^warning: legacy signature format .* none of the metadata/m);
    const j = await verifyLegacy("well_known.json", "--json");
    assert.equal(j.code, 0, j.stderr);
    const result = await assertJsonOutput(j.stdout);
    assert.equal(result.ok, true);
    assert.equal(result.signature_format, "legacy");
    assert.deepEqual(result.warnings, ["legacy_signature_format"]);
    assert.equal(result.lineage_anchor, false);
    const revoked = await verifyLegacy("well_known_revoked.json");
    assert.equal(revoked.code, 1);
    assert.match(revoked.stdout, /KEY_REVOKED/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

/**
 * The reference legacy fixture's document as the reference SDK writes it with an expiry:
 * schemapin_version "1.4", expires_at, the same signature over the legacy root hash.
 */
async function referenceLabelled14(): Promise<string> {
  const sig = JSON.parse(await Deno.readTextFile(`${INTEROP}/legacy_skill/.schemapin.sig`));
  const { schemapin_version: _, ...rest } = sig;
  return JSON.stringify(
    { schemapin_version: "1.4", ...rest, expires_at: "2027-11-30T04:11:30Z" },
    null,
    2,
  );
}

Deno.test("verify-skill: a 1.4 label over a legacy signature says so, lists nothing, exit 1", async () => {
  const base = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${base}/labelled.sig`, await referenceLabelled14());
    const args = [
      "verify-skill",
      `${INTEROP}/legacy_skill`,
      "--signature",
      `${base}/labelled.sig`,
      "--domain",
      "example.com",
      "--discovery",
      `${INTEROP}/well_known.json`,
      "--pin-store",
      `${base}/pins.json`,
      "--trust-first-use",
    ];
    const r = await runInProcess(args);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, "FAIL public-legacy-skill@example.com: SIGNATURE_INVALID\n");
    assert.match(
      r.stderr,
      /^error: SIGNATURE_INVALID: schemapin_version "1\.4", but the signature covers only the legacy \(1\.3\) root hash sha256:c1224fc6[0-9a-f]+, not the signature document \(§4b\); no file was modified/,
    );
    assert.doesNotMatch(r.stdout + r.stderr, /modified: /);
    const j = await runInProcess([...args, "--json"]);
    assert.equal(j.code, 1);
    const result = await assertJsonOutput(j.stdout);
    assert.equal(result.ok, false);
    assert.equal((result.error as { code: string }).code, "SIGNATURE_INVALID");
    assert.equal(result.signs_legacy_hash, true);
    assert.equal(result.changes, undefined);
    assert.equal(await Deno.stat(`${base}/pins.json`).then(() => true, () => false), false);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("verify-skill: a 1.4 label over a legacy signature, folder changed: only real changes", async () => {
  const base = await Deno.makeTempDir();
  try {
    const dir = `${base}/skill`;
    await new Deno.Command("cp", { args: ["-r", `${INTEROP}/legacy_skill`, dir] }).output();
    await new Deno.Command("chmod", { args: ["-R", "u+w", dir] }).output();
    await Deno.writeTextFile(`${dir}/.schemapin.sig`, await referenceLabelled14());
    await Deno.writeTextFile(`${dir}/SKILL.md`, "changed\n");
    const r = await runInProcess([
      "verify-skill",
      dir,
      "--domain",
      "example.com",
      "--discovery",
      `${INTEROP}/well_known.json`,
      "--pin-store",
      `${base}/pins.json`,
      "--trust-first-use",
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(
      r.stdout,
      "FAIL public-legacy-skill@example.com: SIGNATURE_INVALID\n  modified: SKILL.md\n",
    );
    assert.match(r.stderr, /covers only the legacy \(1\.3\) root hash/);
    assert.match(r.stderr, /no longer matches that legacy hash/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("verify-skill: a legacy folder with a nested .schemapin.sig verifies and names it", async () => {
  await withSkill(async (s) => {
    const sig = JSON.parse(await Deno.readTextFile(`${INTEROP}/legacy_skill/.schemapin.sig`));
    referenceLegacySign(s.dir, {
      privateKeyPem: await Deno.readTextFile(`${INTEROP}/signer_private.pem`),
      domain: "example.com",
      skillName: "my-skill",
      signerKid: sig.signer_kid,
      signedAt: "2026-11-30T04:11:30Z",
    });
    const args = [
      "verify-skill",
      s.dir,
      "--domain",
      "example.com",
      "--discovery",
      `${INTEROP}/well_known.json`,
      "--pin-store",
      `${s.base}/pins.json`,
      "--trust-first-use",
    ];
    const r = await runInProcess(args);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^OK my-skill@example\.com: 3 files, .*legacy format/);
    assert.match(
      r.stderr,
      /^warning: legacy signature format: nested \.schemapin\.sig files are not covered/m,
    );
    assert.match(r.stderr, /^ {2}not covered: vendor\/\.schemapin\.sig$/m);
    const jr = await runInProcess([...args, "--json"]);
    assert.equal(jr.code, 0, jr.stderr);
    const j = await assertJsonOutput(jr.stdout);
    assert.equal(j.ok, true);
    assert.deepEqual(j.unsigned_files, ["vendor/.schemapin.sig"]);
    assert.ok((j.warnings as string[]).includes("legacy_nested_signature_files"));
    // A signed file changed: exit 1, and only that file is listed.
    await Deno.writeTextFile(`${s.dir}/vendor/tool.py`, "print('changed')\n");
    const changed = await runInProcess(args);
    assert.equal(changed.code, 1);
    assert.equal(
      changed.stdout,
      "FAIL my-skill@example.com: SIGNATURE_INVALID\n  modified: vendor/tool.py\n",
    );
  }, {
    "vendor/.schemapin.sig": '{"inner": true}\n',
    "vendor/tool.py": "print('vendored')\n",
  });
});

Deno.test("verify-skill: a 1.4 folder's nested .schemapin.sig stays signed (no exclusion)", async () => {
  await withSkill(async (s) => {
    assert.equal((await sign(s.dir)).code, 0);
    const ok = await verify(s.dir, `${s.base}/pins.json`, "--trust-first-use");
    assert.equal(ok.code, 0, ok.stderr);
    assert.doesNotMatch(ok.stderr, /not covered/);
    await Deno.writeTextFile(`${s.dir}/vendor/.schemapin.sig`, '{"inner": false}\n');
    const r = await verify(s.dir, `${s.base}/pins.json`);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /modified: vendor\/\.schemapin\.sig/);
  }, { "vendor/.schemapin.sig": '{"inner": true}\n' });
});

Deno.test("verify-skill: unknown field warns, expiry fails closed, pin mismatch, other signer", async () => {
  await withSkill(async (s) => {
    const pins = `${s.base}/pins.json`;
    assert.equal((await sign(s.dir, "--expires-in", "1h")).code, 0);
    const doc = await readSig(s.dir);
    await Deno.writeTextFile(`${s.dir}/.schemapin.sig`, JSON.stringify({ ...doc, note: "hi" }));
    const warned = await verify(s.dir, pins, "--trust-first-use");
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /fields its signature does not cover: note \(ignored\)/);
    // Expired one hour later: a document signed with --expires-at in the near future cannot be
    // made, so edit expires_at — the signature then fails, which is what tampering must do.
    await Deno.writeTextFile(
      `${s.dir}/.schemapin.sig`,
      JSON.stringify({ ...doc, expires_at: "2020-01-01T00:00:00Z" }),
    );
    const edited = await verify(s.dir, pins);
    assert.equal(edited.code, 1);
    assert.match(edited.stdout, /SIGNATURE_INVALID/);
    // Signed by another key than the domain's: the pin and the discovery key disagree.
    assert.equal(
      (await runInProcess(["sign-skill", s.dir, "--key", OTHER_KEY, "--domain", "example.com"]))
        .code,
      0,
    );
    const foreign = await verify(s.dir, pins);
    assert.equal(foreign.code, 1);
    assert.match(foreign.stdout, /SIGNATURE_INVALID/);
    const otherDiscovery = `${s.base}/other.json`;
    await Deno.writeTextFile(
      otherDiscovery,
      JSON.stringify(buildDiscoveryDocument({ publicKey: other.publicKey, developerName: "X" })),
    );
    const mismatch = await runInProcess([
      "verify-skill",
      s.dir,
      "--domain",
      "example.com",
      "--discovery",
      otherDiscovery,
      "--pin-store",
      pins,
    ]);
    assert.equal(mismatch.code, 1);
    assert.match(mismatch.stdout, /KEY_PIN_MISMATCH/);
  });
});

Deno.test("verify-skill: an expired signature exits 1 unless --allow-expired", async () => {
  await withSkill(async (s) => {
    const pins = `${s.base}/pins.json`;
    // Sign with the library at a past time so that the document is authentic and expired.
    const { signSkillDir } = await import("../../lib/skill/sign.ts");
    const { formatSkillSignatureDocument } = await import("../../lib/skill/document.ts");
    const { document } = await signSkillDir(s.dir, key, {
      domain: "example.com",
      signedAt: Date.UTC(2025, 0, 1),
      expiresAt: "2025-02-01T00:00:00Z",
    });
    await Deno.writeTextFile(`${s.dir}/.schemapin.sig`, formatSkillSignatureDocument(document));
    const r = await verify(s.dir, pins, "--trust-first-use");
    assert.equal(r.code, 1);
    assert.match(r.stderr, /SIGNATURE_EXPIRED: the signature expired at 2025-02-01T00:00:00Z/);
    await assert.rejects(() => Deno.lstat(pins), Deno.errors.NotFound, "no pin on failure");
    const allowed = await verify(s.dir, pins, "--trust-first-use", "--allow-expired");
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(allowed.stderr, /has expired; accepted only because of --allow-expired/);
  });
});

Deno.test("verify-skill: first use without a terminal or opt-in exits 1; a yes pins", async () => {
  await withSkill(async (s) => {
    const pins = `${s.base}/pins.json`;
    assert.equal((await sign(s.dir)).code, 0);
    const r = await verify(s.dir, pins);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /KEY_NOT_FOUND/);
    assert.match(
      r.stderr,
      /seed the pin: schemapin pins add my-skill@example\.com --fingerprint sha256:/,
    );
    const questions: string[] = [];
    const command = makeVerifySkillCommand({
      prompt: (q) => {
        questions.push(q);
        return Promise.resolve("yes");
      },
    });
    let out = "";
    const io: CliIO = {
      stdout: (d) => Promise.resolve(void (out += typeof d === "string" ? d : "")),
      stderr: () => Promise.resolve(),
      readStdin: () => Promise.resolve(new Uint8Array()),
      stderrIsTerminal: false,
    };
    const code = await command.run(
      [s.dir, "--domain", "example.com", "--discovery", DISCOVERY, "--pin-store", pins],
      io,
    );
    assert.equal(code, 0, out);
    assert.equal(questions.length, 1);
    assert.match(questions[0], new RegExp(key.publicKey.fingerprint));
    assert.match(out, /pinned on first use/);
  });
});

Deno.test("verify-skill: input problems exit 2", async () => {
  await withSkill(async (s) => {
    const pins = `${s.base}/pins.json`;
    assert.equal((await sign(s.dir)).code, 0);
    await Deno.writeTextFile(`${s.base}/bad.json`, "{");
    const cases: string[][] = [
      // Without --domain the signed document's domain is used; a different one is exit 2.
      ["verify-skill", s.dir, "--domain", "other.example", "--discovery", DISCOVERY],
      ["verify-skill", s.dir, "--domain", "example.com"],
      ["verify-skill", s.dir, "--domain", "example.com", "--well-known", "--timeout", "0"],
      [
        "verify-skill",
        s.dir,
        "--domain",
        "example.com",
        "--discovery",
        DISCOVERY,
        "--bundle",
        DISCOVERY,
      ],
      ["verify-skill", s.dir, "--domain", "example.com:8443", "--discovery", DISCOVERY],
      ["verify-skill", s.dir, "--domain", "example.com", "--discovery", `${s.base}/bad.json`],
      ["verify-skill", s.dir, "--domain", "example.com", "--discovery", `${s.base}/none.json`],
      ["verify-skill", s.dir, "--domain", "example.com", "--discovery", `${keys}/public.pem`],
      [
        "verify-skill",
        s.dir,
        "--domain",
        "example.com",
        "--discovery",
        DISCOVERY,
        "--signature",
        `${s.base}/bad.json`,
      ],
      ["verify-skill", s.dir, "--domain", "example.com", "--discovery", DISCOVERY, "--tool-id", ""],
    ];
    for (const args of cases) {
      const r = await runInProcess([...args, "--pin-store", pins]);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^error: /m);
    }
    await assert.rejects(() => Deno.lstat(pins), Deno.errors.NotFound);
  });
});

Deno.test("verify-skill: --signature reads a detached document; unsigned folder exits 1", async () => {
  await withSkill(async (s) => {
    const pins = `${s.base}/pins.json`;
    assert.equal((await sign(s.dir)).code, 0);
    await Deno.rename(`${s.dir}/.schemapin.sig`, `${s.base}/detached.sig`);
    const unsigned = await verify(s.dir, pins, "--trust-first-use");
    assert.equal(unsigned.code, 1);
    assert.match(unsigned.stderr, /unsigned/);
    const r = await verify(
      s.dir,
      pins,
      "--trust-first-use",
      "--signature",
      `${s.base}/detached.sig`,
    );
    assert.equal(r.code, 0, r.stderr);
  });
});

Deno.test("skill commands through the real process: sign, verify, tamper", async () => {
  await withSkill(async (s) => {
    const pins = `${s.base}/pins.json`;
    const signed = await runCliProcess([
      "sign-skill",
      s.dir,
      "--key",
      KEY,
      "--domain",
      "example.com",
    ]);
    assert.equal(signed.code, 0, signed.stderr);
    const args = [
      "verify-skill",
      s.dir,
      "--domain",
      "example.com",
      "--discovery",
      DISCOVERY,
      "--pin-store",
      pins,
      "--trust-first-use",
    ];
    const ok = await runCliProcess(args);
    assert.equal(ok.code, 0, ok.stderr);
    await Deno.writeTextFile(`${s.dir}/scripts/run.sh`, "echo changed\n");
    const bad = await runCliProcess(args);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /modified: scripts\/run\.sh/);
  });
});

Deno.test("progress: only on a terminal, not with --quiet; walk count, then files and bytes", () => {
  const written: string[] = [];
  const io = (tty: boolean): CliIO => ({
    stdout: () => Promise.resolve(),
    stderr: () => Promise.resolve(),
    readStdin: () => Promise.resolve(new Uint8Array()),
    stderrIsTerminal: tty,
    progress: (t) => void written.push(t),
  });
  // Off a terminal or with --quiet nothing is drawn; onProgress only lets signals in.
  for (
    const off of [
      skillProgress(io(false), "hash-skill"),
      skillProgress(io(true), "hash-skill", true),
    ]
  ) {
    assert.deepEqual(Object.keys(off.options), ["onProgress"]);
  }
  let clock = 0;
  const p = skillProgress(io(true), "hash-skill", false, () => clock);
  p.options.onWalkProgress!(64);
  assert.deepEqual(written, [], "nothing before the delay");
  clock = 300;
  p.options.onWalkProgress!(12_800);
  clock = 350;
  p.options.onWalkProgress!(12_864); // within the redraw interval: not drawn
  clock = 500;
  p.options.onProgress!({
    filesDone: 3,
    filesTotal: 12_900,
    bytesDone: 48 << 20,
    bytesTotal: 128 << 20,
    elapsedMs: 200,
  });
  p.done();
  p.done();
  assert.deepEqual(written, [
    "\rhash-skill: listing… 12,800 files\x1b[K",
    "\rhash-skill: 3/12,900 files, 48.0/128.0 MiB (37%)\x1b[K",
    "\r\x1b[K",
  ]);
});

Deno.test("help: the three commands document usage, exit codes and an example", async () => {
  for (const name of ["hash-skill", "sign-skill", "verify-skill"]) {
    const r = await runInProcess([name, "--help"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Exit codes: 0/);
    assert.match(r.stdout, /Example/);
  }
});
