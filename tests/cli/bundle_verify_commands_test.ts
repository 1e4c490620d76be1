// `verify-schema` / `verify-skill --bundle FILE`: a signed bundle is used only after it
// verified against the authority allow-list; unsigned bundles keep working.
import assert from "node:assert/strict";
import { privateKeyToPem } from "../../lib/crypto/keys.ts";
import { runInProcess, withTempDir } from "./run.ts";
import { AUTH_1, AUTH_2, DEV_A, DEV_B, wellKnown } from "../bundle/_helpers.ts";

const FP1 = AUTH_1.publicKey.fingerprint;

interface Setup {
  dir: string;
  schema: string;
  sig: string;
  skill: string;
  pins: string;
  signed: string;
  forged: string;
  unsigned: string;
  otherKey: string;
}

async function run(args: string[]): Promise<void> {
  const r = await runInProcess(args);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
}

async function setup(dir: string): Promise<Setup> {
  const s: Setup = {
    dir,
    schema: `${dir}/calc.json`,
    sig: `${dir}/calc.json.sig`,
    skill: `${dir}/skill`,
    pins: `${dir}/pins.json`,
    signed: `${dir}/signed.json`,
    forged: `${dir}/forged.json`,
    unsigned: `${dir}/unsigned.json`,
    otherKey: `${dir}/other-dev.json`,
  };
  await Deno.writeTextFile(`${dir}/dev.pem`, privateKeyToPem(DEV_A));
  await Deno.writeTextFile(`${dir}/auth1.pem`, privateKeyToPem(AUTH_1));
  await Deno.writeTextFile(`${dir}/auth2.pem`, privateKeyToPem(AUTH_2));
  await Deno.writeTextFile(`${dir}/wk.json`, JSON.stringify(wellKnown(DEV_A, "Dev A")));
  await Deno.writeTextFile(s.otherKey, JSON.stringify(wellKnown(DEV_B, "Dev B")));
  await Deno.writeTextFile(
    s.schema,
    JSON.stringify({ name: "calc", description: "adds", parameters: { a: "integer" } }),
  );
  await run(["sign-schema", s.schema, "--key", `${dir}/dev.pem`, "--out", s.sig]);
  await Deno.mkdir(s.skill);
  await Deno.writeTextFile(`${s.skill}/SKILL.md`, "---\nname: calc-skill\n---\nAdds numbers.\n");
  await run(["sign-skill", s.skill, "--key", `${dir}/dev.pem`, "--domain", "example.com"]);
  const doc = `example.com=${dir}/wk.json`;
  await run(["bundle", "create", "--out", s.unsigned, "--discovery", doc]);
  await run(["bundle", "create", "--out", s.signed, "--discovery", doc]);
  await run(["bundle", "sign", s.signed, "--key", `${dir}/auth1.pem`, "--kid", "auth-1"]);
  // An attacker's bundle: its own kid and key, mapping example.com to another developer key.
  await run(["bundle", "create", "--out", s.forged, "--discovery", `example.com=${s.otherKey}`]);
  await run(["bundle", "sign", s.forged, "--key", `${dir}/auth2.pem`, "--kid", "auth-1"]);
  return s;
}

const schemaArgs = (s: Setup, bundle: string, ...more: string[]) => [
  "verify-schema",
  s.schema,
  "--signature",
  s.sig,
  "--domain",
  "example.com",
  "--bundle",
  bundle,
  "--pin-store",
  s.pins,
  "--trust-first-use",
  ...more,
];

const skillArgs = (s: Setup, bundle: string, ...more: string[]) => [
  "verify-skill",
  s.skill,
  "--domain",
  "example.com",
  "--bundle",
  bundle,
  "--pin-store",
  s.pins,
  "--trust-first-use",
  ...more,
];

Deno.test("verify-schema --bundle: signed bundles need an allow-listed authority", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const ok = await runInProcess(schemaArgs(s, s.signed, "--authority", `auth-1=${FP1}`));
    assert.equal(ok.code, 0, ok.stderr);
    const untrusted = await runInProcess(schemaArgs(s, s.signed));
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /BUNDLE_AUTHORITY_UNTRUSTED/);
    // The tool key's --trust-first-use does not extend to the bundle authority.
    assert.doesNotMatch(untrusted.stderr, /^verified/m);
    const firstUse = await runInProcess(schemaArgs(s, s.signed, "--trust-first-use-authority"));
    assert.equal(firstUse.code, 0, firstUse.stderr);
    const forged = await runInProcess(schemaArgs(s, s.forged, "--authority", `auth-1=${FP1}`));
    assert.equal(forged.code, 1);
    assert.match(forged.stderr, /KEY_PIN_MISMATCH/);
    const tampered = JSON.parse(await Deno.readTextFile(s.signed));
    tampered.documents[0].public_key_pem = DEV_B.publicKey.pem;
    await Deno.writeTextFile(`${dir}/tampered.json`, JSON.stringify(tampered));
    const t = await runInProcess(
      schemaArgs(s, `${dir}/tampered.json`, "--authority", `auth-1=${FP1}`),
    );
    assert.equal(t.code, 1);
    assert.match(t.stderr, /SIGNATURE_INVALID/);
  });
});

Deno.test("verify-schema --bundle: unsigned bundles as before, refused once an authority is named", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const plain = await runInProcess(schemaArgs(s, s.unsigned));
    assert.equal(plain.code, 0, plain.stderr);
    const downgrade = await runInProcess(schemaArgs(s, s.unsigned, "--authority", `auth-1=${FP1}`));
    assert.equal(downgrade.code, 1);
    assert.match(downgrade.stderr, /BUNDLE_UNSIGNED/);
    const noBundle = await runInProcess([
      "verify-schema",
      s.schema,
      "--signature",
      s.sig,
      "--domain",
      "example.com",
      "--discovery",
      `${dir}/wk.json`,
      "--authority",
      `auth-1=${FP1}`,
    ]);
    assert.equal(noBundle.code, 2);
    assert.match(noBundle.stderr, /go with --bundle FILE/);
    const badFlag = await runInProcess(schemaArgs(s, s.signed, "--authority", "auth-1"));
    assert.equal(badFlag.code, 2);
  });
});

Deno.test("verify-skill --bundle: signed bundles need an allow-listed authority", async () => {
  await withTempDir(async (dir) => {
    const s = await setup(dir);
    const ok = await runInProcess(
      skillArgs(s, s.signed, "--authority-key", `auth-1=${dir}/auth1.pem`),
    );
    // --authority-key takes a public key; a private key file is a usage error (exit 2).
    assert.equal(ok.code, 2);
    await Deno.writeTextFile(`${dir}/auth1.pub`, AUTH_1.publicKey.pem);
    const good = await runInProcess(
      skillArgs(s, s.signed, "--authority-key", `auth-1=${dir}/auth1.pub`),
    );
    assert.equal(good.code, 0, good.stderr);
    const untrusted = await runInProcess(skillArgs(s, s.signed));
    assert.equal(untrusted.code, 1);
    assert.match(untrusted.stderr, /BUNDLE_AUTHORITY_UNTRUSTED/);
    const forged = await runInProcess(skillArgs(s, s.forged, "--authority", `auth-1=${FP1}`));
    assert.equal(forged.code, 1);
    assert.match(forged.stderr, /KEY_PIN_MISMATCH/);
    const plain = await runInProcess(skillArgs(s, s.unsigned));
    assert.equal(plain.code, 0, plain.stderr);
  });
});
